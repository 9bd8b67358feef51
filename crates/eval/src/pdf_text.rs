//! Whether a PDF's text reads as its author wrote it: words kept whole, paragraphs kept whole.
//!
//! A set is a folder of PDFs, each beside the text it was printed from: `<stem>.txt` (a title,
//! then paragraphs separated by blank lines) and `<stem>.<producer>.pdf` (for example
//! `ru_chem_1.chromium.pdf`, `ru_chem_1.libreoffice.pdf`; `benches/scripts/pdf_text_set.py`
//! makes one). A PDF without a source text is measured against poppler's `pdftotext`, whose
//! words are then the reference (`<stem>.pdf`, group `pdftotext-reference`).
//!
//! - **Whole words**: of the reference's words of six letters or more (letters only, lowercase,
//!   counted with multiplicity), the share found as words of the extraction. A word broken by
//!   a false space («Проб лема») or glued to its neighbour is not found.
//! - **Whole paragraphs**: of the source's paragraphs of 20 words or more, the share found
//!   inside one paragraph of the extraction (blank-line separated), letters and digits
//!   compared: a paragraph cut by a page break, or with a running header inside it, is not.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use dupfinder_text::extract::{ExtractLimits, extract};

use crate::extraction::{Extractor, pdf_files};

/// The least letters of a counted word.
const MIN_LETTERS: usize = 6;

/// The least words of a counted paragraph.
const MIN_PARAGRAPH_WORDS: usize = 20;

/// One file's figures for one extractor.
#[derive(Debug, Clone, Serialize)]
pub struct FileText {
    pub file: String,
    pub group: String,
    pub extractor: Extractor,
    pub error: Option<String>,
    pub words: usize,
    pub whole_words: usize,
    pub paragraphs: usize,
    pub whole_paragraphs: usize,
    /// A few reference words not found whole, for reading.
    pub broken: Vec<String>,
}

/// One group's figures (a language and a producer) for one extractor.
#[derive(Debug, Clone, Serialize)]
pub struct GroupText {
    pub group: String,
    pub extractor: Extractor,
    pub files: usize,
    pub failed: usize,
    pub words: usize,
    pub whole_word_rate: f64,
    pub paragraphs: usize,
    pub whole_paragraph_rate: Option<f64>,
}

/// The group of a PDF: its stem's prefix (`ru`, `plos`) and its producer.
fn group_of(pdf: &Path, has_source: bool) -> (String, Option<PathBuf>) {
    let name = pdf
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = name.strip_suffix(".pdf").unwrap_or(&name);
    let (base, producer) = stem.rsplit_once('.').unwrap_or((stem, "pdf"));
    let source = pdf.with_file_name(format!("{base}.txt"));
    if has_source && source.is_file() {
        let prefix = base.split('_').next().unwrap_or(base);
        (format!("{prefix} {producer}"), Some(source))
    } else {
        ("pdftotext-reference".to_string(), None)
    }
}

/// Measures every PDF under `root` with each extractor.
pub fn evaluate_pdf_text(
    root: &Path,
    extractors: &[Extractor],
) -> std::io::Result<(Vec<GroupText>, Vec<FileText>)> {
    let mut files = Vec::new();
    for pdf in pdf_files(root)? {
        let (group, source) = group_of(&pdf, true);
        let bytes = std::fs::read(&pdf)?;
        let reference = match &source {
            Some(source) => std::fs::read_to_string(source)?,
            // Without a reference the file is not measured (pdftotext missing or failing).
            None => match Extractor::Pdftotext.text(&pdf, &bytes) {
                Ok(text) => text,
                Err(_) => continue,
            },
        };
        for &extractor in extractors {
            if source.is_none() && extractor == Extractor::Pdftotext {
                continue;
            }
            let text = match extractor {
                Extractor::Dupfinder => {
                    // The built-in reader alone, as on a machine without poppler.
                    let limits = ExtractLimits {
                        pdftotext: String::new(),
                        ..ExtractLimits::default()
                    };
                    extract(&bytes, &limits)
                        .map(|d| d.text)
                        .map_err(|e| format!("{}: {e}", e.code()))
                }
                other => other.text(&pdf, &bytes),
            };
            files.push(measure(
                &pdf,
                &group,
                extractor,
                &reference,
                text,
                source.is_some(),
            ));
        }
    }
    let mut groups: Vec<GroupText> = Vec::new();
    for file in &files {
        let at = groups
            .iter()
            .position(|g| g.group == file.group && g.extractor == file.extractor);
        let at = at.unwrap_or_else(|| {
            groups.push(GroupText {
                group: file.group.clone(),
                extractor: file.extractor,
                files: 0,
                failed: 0,
                words: 0,
                whole_word_rate: 0.0,
                paragraphs: 0,
                whole_paragraph_rate: None,
            });
            groups.len() - 1
        });
        let group = &mut groups[at];
        group.files += 1;
        group.failed += usize::from(file.error.is_some());
        // Rates kept as counts until the end.
        group.words += file.words;
        group.whole_word_rate += file.whole_words as f64;
        group.paragraphs += file.paragraphs;
        *group.whole_paragraph_rate.get_or_insert(0.0) += file.whole_paragraphs as f64;
    }
    for group in &mut groups {
        group.whole_word_rate /= group.words.max(1) as f64;
        group.whole_paragraph_rate = (group.paragraphs > 0)
            .then(|| group.whole_paragraph_rate.unwrap_or(0.0) / group.paragraphs as f64);
    }
    groups.sort_by(|a, b| (&a.group, a.extractor as u8).cmp(&(&b.group, b.extractor as u8)));
    Ok((groups, files))
}

fn measure(
    pdf: &Path,
    group: &str,
    extractor: Extractor,
    reference: &str,
    text: Result<String, String>,
    has_source: bool,
) -> FileText {
    let reference = join_line_end_hyphens(reference);
    let expected = long_words(&reference);
    let words = expected.len();
    let mut figures = FileText {
        file: pdf.display().to_string(),
        group: group.to_string(),
        extractor,
        error: None,
        words,
        whole_words: 0,
        paragraphs: 0,
        whole_paragraphs: 0,
        broken: Vec::new(),
    };
    let paragraphs: Vec<String> = if has_source {
        reference
            .split("\n\n")
            .filter(|p| p.split_whitespace().count() >= MIN_PARAGRAPH_WORDS)
            .map(letters_and_digits)
            .collect()
    } else {
        Vec::new()
    };
    figures.paragraphs = paragraphs.len();
    let text = match text {
        Ok(text) => text,
        Err(e) => {
            figures.error = Some(e);
            return figures;
        }
    };
    let mut found: HashMap<String, usize> = HashMap::new();
    for word in words_of(&text) {
        *found.entry(word).or_default() += 1;
    }
    for word in expected {
        match found.get_mut(&word) {
            Some(n) if *n > 0 => {
                *n -= 1;
                figures.whole_words += 1;
            }
            _ if figures.broken.len() < 12 => figures.broken.push(word),
            _ => {}
        }
    }
    let blocks: Vec<String> = text.split("\n\n").map(letters_and_digits).collect();
    figures.whole_paragraphs = paragraphs
        .iter()
        .filter(|p| blocks.iter().any(|b| b.contains(p.as_str())))
        .count();
    figures
}

/// A word broken by a hyphen at a line's end made whole («приме-\nнения»), as a reader does;
/// the hyphen kept where the text writes the word with it elsewhere («сервис-ориентированный»).
fn join_line_end_hyphens(text: &str) -> String {
    let hyphenated: std::collections::HashSet<String> = text
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|w| w.contains('-'))
        .collect();
    let mut out = String::with_capacity(text.len());
    let mut lines = text.split('\n').peekable();
    while let Some(line) = lines.next() {
        let next = lines.peek().copied().unwrap_or_default().trim_start();
        let next_lower = next.chars().next().is_some_and(char::is_lowercase);
        match line.strip_suffix('-') {
            Some(head) if next_lower && head.chars().last().is_some_and(char::is_alphabetic) => {
                let last = head.rsplit(char::is_whitespace).next().unwrap_or_default();
                let first = next
                    .split(|c: char| !c.is_alphanumeric())
                    .next()
                    .unwrap_or_default();
                let compound = format!("{last}-{first}").to_lowercase();
                let compound = compound.trim_start_matches(|c: char| !c.is_alphanumeric());
                if hyphenated.contains(compound) {
                    out.push_str(line);
                } else {
                    out.push_str(head);
                }
            }
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

fn words_of(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

fn long_words(text: &str) -> Vec<String> {
    words_of(text)
        .filter(|w| w.chars().count() >= MIN_LETTERS)
        .collect()
}

fn letters_and_digits(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broken_words_and_cut_paragraphs_are_counted() {
        let source = "Заголовок\n\nПроблема международного обмена научными публикациями стоит \
                      перед библиотеками и редакциями журналов уже много лет подряд и требует \
                      внимания всех участников.";
        let read = "Заголовок\n\nПроб лема международного обмена научными публикациями стоит \
                    перед библиотеками и редакциями журналов уже\n\nмного лет подряд и требует \
                    внимания всех участников.";
        let figures = measure(
            Path::new("x.chromium.pdf"),
            "ru chromium",
            Extractor::Dupfinder,
            source,
            Ok(read.to_string()),
            true,
        );
        assert_eq!(figures.broken, ["проблема"]);
        assert_eq!(figures.whole_words + 1, figures.words);
        assert_eq!((figures.paragraphs, figures.whole_paragraphs), (1, 0));
        assert_eq!(join_line_end_hyphens("приме-\nнения"), "применения\n");
        assert_eq!(
            join_line_end_hyphens("сервис-ориентированный и сервис-\nориентированный"),
            "сервис-ориентированный и сервис-ориентированный\n"
        );
    }
}
