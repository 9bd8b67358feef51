//! How well PDF text extraction works on a folder of PDFs with reference texts: word recall
//! (the share of the reference's words, counted with multiplicity, found in the extraction),
//! 4-gram recall (the share of the reference's consecutive word 4-grams found: words in the
//! wrong reading order — columns interleaved, footnotes in mid-sentence — break 4-grams
//! while leaving word recall intact), pages per second. Scans with an OCR text layer (text
//! drawn invisibly, render mode 3, over a page image) are reported apart from born-digital
//! files, since their reference is itself OCR output.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;
use unicode_normalization::UnicodeNormalization;

use dupfinder_text::extract::{ExtractLimits, extract};

/// The extractors compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Extractor {
    /// dupfinder's own reader (`extract`): pdf-extract's glyphs, our lines, paragraphs and
    /// header removal.
    Dupfinder,
    /// The `pdf-extract` crate's plain-text output as it comes.
    PdfExtract,
    /// Poppler's `pdftotext` (an external program; for comparison only).
    Pdftotext,
}

impl Extractor {
    pub fn parse(name: &str) -> Option<Extractor> {
        match name {
            "dupfinder" => Some(Extractor::Dupfinder),
            "pdf-extract" => Some(Extractor::PdfExtract),
            "pdftotext" => Some(Extractor::Pdftotext),
            _ => None,
        }
    }

    /// The text the extractor reads from a PDF, or why it read none.
    pub(crate) fn text(self, path: &Path, bytes: &[u8]) -> Result<String, String> {
        match self {
            Extractor::Dupfinder => extract(bytes, &ExtractLimits::default())
                .map(|d| d.text)
                .map_err(|e| format!("{}: {e}", e.code())),
            Extractor::PdfExtract => std::panic::catch_unwind(|| {
                pdf_extract::extract_text_from_mem(bytes).map_err(|e| e.to_string())
            })
            .unwrap_or_else(|_| Err("panicked".to_string())),
            Extractor::Pdftotext => {
                let output = std::process::Command::new("pdftotext")
                    .args(["-enc", "UTF-8"])
                    .arg(path)
                    .arg("-")
                    .output()
                    .map_err(|e| format!("cannot run pdftotext: {e}"))?;
                if !output.status.success() {
                    return Err(String::from_utf8_lossy(&output.stderr).into_owned());
                }
                Ok(String::from_utf8_lossy(&output.stdout).into_owned())
            }
        }
    }
}

/// One PDF's figures.
#[derive(Debug, Clone, Serialize)]
pub struct FileFigures {
    pub file: String,
    pub pages: usize,
    /// Drawn with invisible text over images: an OCR layer.
    pub ocr_layer: bool,
    pub seconds: f64,
    pub error: Option<String>,
    pub word_recall: Option<f64>,
    pub gram_recall: Option<f64>,
}

/// The figures of one extractor over a folder.
#[derive(Debug, Clone, Serialize)]
pub struct ExtractionReport {
    pub extractor: Extractor,
    pub files: usize,
    pub failed: usize,
    pub pages: usize,
    pub seconds: f64,
    pub pages_per_second: f64,
    pub born_digital: GroupFigures,
    pub ocr_layer: GroupFigures,
    pub per_file: Vec<FileFigures>,
}

/// Medians over a group of files with a reference text.
#[derive(Debug, Clone, Default, Serialize)]
pub struct GroupFigures {
    pub files: usize,
    pub median_word_recall: Option<f64>,
    pub min_word_recall: Option<f64>,
    pub median_gram_recall: Option<f64>,
    /// Files whose 4-gram recall is 0.1 or more below their word recall: words present but
    /// out of order.
    pub order_problems: usize,
}

/// Every `.pdf` under `root` (or `root` itself), sorted.
pub fn pdf_files(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    if root.is_file() {
        return Ok(vec![root.to_path_buf()]);
    }
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else if path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("pdf"))
            {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The reference text of `pdf`: `<txt_dir>/<stem>.txt`, else `../Documents_TXT/<stem>.txt`
/// beside the PDF's folder (the ACL scisumm layout).
pub fn reference_for(pdf: &Path, txt_dir: Option<&Path>) -> Option<PathBuf> {
    let stem = pdf.file_stem()?;
    let name = format!("{}.txt", stem.to_string_lossy());
    let candidate = match txt_dir {
        Some(dir) => dir.join(&name),
        None => pdf.parent()?.parent()?.join("Documents_TXT").join(&name),
    };
    candidate.is_file().then_some(candidate)
}

/// Runs `extractor` over `files`.
pub fn evaluate_extraction(
    extractor: Extractor,
    files: &[PathBuf],
    txt_dir: Option<&Path>,
) -> std::io::Result<ExtractionReport> {
    let mut per_file = Vec::new();
    for path in files {
        let bytes = std::fs::read(path)?;
        let (pages, ocr_layer) = page_facts(&bytes);
        let started = Instant::now();
        let outcome = extractor.text(path, &bytes);
        let seconds = started.elapsed().as_secs_f64();
        let reference = reference_for(path, txt_dir)
            .map(|p| std::fs::read(p).map(|b| String::from_utf8_lossy(&b).into_owned()))
            .transpose()?;
        let (word_recall, gram_recall, error) = match (&outcome, &reference) {
            (Ok(text), Some(reference)) => {
                let (w, g) = recall(reference, text);
                (Some(w), Some(g), None)
            }
            (Ok(_), None) => (None, None, None),
            (Err(e), Some(_)) => (Some(0.0), Some(0.0), Some(e.clone())),
            (Err(e), None) => (None, None, Some(e.clone())),
        };
        per_file.push(FileFigures {
            file: path.display().to_string(),
            pages,
            ocr_layer,
            seconds,
            error,
            word_recall,
            gram_recall,
        });
    }
    let pages: usize = per_file.iter().map(|f| f.pages).sum();
    let seconds: f64 = per_file.iter().map(|f| f.seconds).sum();
    Ok(ExtractionReport {
        extractor,
        files: per_file.len(),
        failed: per_file.iter().filter(|f| f.error.is_some()).count(),
        pages,
        seconds,
        pages_per_second: if seconds > 0.0 {
            pages as f64 / seconds
        } else {
            0.0
        },
        born_digital: group(per_file.iter().filter(|f| !f.ocr_layer)),
        ocr_layer: group(per_file.iter().filter(|f| f.ocr_layer)),
        per_file,
    })
}

fn group<'a>(files: impl Iterator<Item = &'a FileFigures>) -> GroupFigures {
    let scored: Vec<&FileFigures> = files.filter(|f| f.word_recall.is_some()).collect();
    let median = |mut values: Vec<f64>| -> Option<f64> {
        values.sort_by(f64::total_cmp);
        let n = values.len();
        match n {
            0 => None,
            _ if n % 2 == 1 => Some(values[n / 2]),
            _ => Some((values[n / 2 - 1] + values[n / 2]) / 2.0),
        }
    };
    let words: Vec<f64> = scored.iter().filter_map(|f| f.word_recall).collect();
    let grams: Vec<f64> = scored.iter().filter_map(|f| f.gram_recall).collect();
    GroupFigures {
        files: scored.len(),
        min_word_recall: words.iter().copied().reduce(f64::min),
        median_word_recall: median(words),
        median_gram_recall: median(grams),
        order_problems: scored
            .iter()
            .filter(|f| f.word_recall.unwrap_or(0.0) - f.gram_recall.unwrap_or(0.0) >= 0.1)
            .count(),
    }
}

fn extracted_has(available: &HashMap<&str, usize>, word: &str) -> bool {
    available.get(word).is_some_and(|&n| n > 0)
}

/// Pages, and whether any page draws invisible text (render mode 3: an OCR layer).
fn page_facts(bytes: &[u8]) -> (usize, bool) {
    let Ok(document) = lopdf::Document::load_mem(bytes) else {
        return (0, false);
    };
    let pages = document.get_pages();
    let ocr = pages.values().any(|&id| {
        document
            .get_page_content(id)
            .is_ok_and(|content| content.windows(4).any(|w| w == b"3 Tr"))
    });
    (pages.len(), ocr)
}

/// Words for comparison: compatibility-normalized, lowercase, letters and digits only, with
/// hyphens between letters removed together with any line break after them («sen-\ntences»,
/// «sen-tences» and «sentences» all become «sentences»), on both sides alike.
pub fn comparable_words(text: &str) -> Vec<String> {
    let normalized: String = text.nfkc().collect::<String>().to_lowercase();
    let chars: Vec<char> = normalized.chars().collect();
    let mut joined = String::with_capacity(normalized.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if matches!(c, '-' | '\u{2010}' | '\u{ad}') && i > 0 && chars[i - 1].is_alphabetic() {
            let mut j = i + 1;
            while j < chars.len() && chars[j].is_whitespace() && j - i < 4 {
                j += 1;
            }
            if j < chars.len() && chars[j].is_alphabetic() {
                i = j;
                continue;
            }
        }
        joined.push(c);
        i += 1;
    }
    joined
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Word recall and 4-gram recall of `extracted` against `reference`, forgiving the defects the
/// ACL corpus's reference texts were found to have on a sample: a reference word that is not
/// found but splits into two words that are («tothe» → «to» + «the», lines joined without a
/// space) counts as found, and so do two missed neighbours that make one extracted word
/// directly or around a ligature the reference dropped («classi» «ers» → «classifiers»). The 4-grams are taken over
/// the reference with such words split.
pub fn recall(reference: &str, extracted: &str) -> (f64, f64) {
    let reference = comparable_words(reference);
    let extracted = comparable_words(extracted);
    if reference.is_empty() {
        return (1.0, 1.0);
    }
    let total = reference.len();
    let mut available: HashMap<&str, usize> = HashMap::new();
    for word in &extracted {
        *available.entry(word.as_str()).or_default() += 1;
    }
    let mut found = 0usize;
    let mut missed = Vec::new();
    for (at, word) in reference.iter().enumerate() {
        if let Some(count) = available.get_mut(word.as_str())
            && *count > 0
        {
            *count -= 1;
            found += 1;
        } else {
            missed.push(at);
        }
    }
    let mut repaired: Vec<Vec<String>> = reference.iter().map(|w| vec![w.clone()]).collect();
    for at in missed {
        let word = &reference[at];
        let split = word.char_indices().skip(1).map(|(i, _)| i).find(|&i| {
            let (a, b) = word.split_at(i);
            available.get(a).is_some_and(|&n| n > 0)
                && available.get(b).is_some_and(|&n| n > usize::from(a == b))
        });
        if let Some(i) = split {
            let (a, b) = word.split_at(i);
            for part in [a, b] {
                if let Some(n) = available.get_mut(part) {
                    *n -= 1;
                }
            }
            found += 1;
            repaired[at] = vec![a.to_string(), b.to_string()];
        }
    }
    // Two missed neighbours that make one extracted word, joined directly («ensem» «ble») or
    // around a ligature the reference lost («classi» «ers» → «classifiers»).
    let mut at = 0;
    while at + 1 < reference.len() {
        let (a, b) = (&reference[at], &reference[at + 1]);
        let both_missed = repaired[at].len() == 1
            && repaired[at + 1].len() == 1
            && !extracted_has(&available, a)
            && !extracted_has(&available, b);
        let joined = both_missed
            .then(|| {
                ["", "fi", "fl", "ff", "ffi", "ffl"]
                    .iter()
                    .map(|lig| format!("{a}{lig}{b}"))
                    .find(|w| extracted_has(&available, w))
            })
            .flatten();
        if let Some(word) = joined {
            if let Some(n) = available.get_mut(word.as_str()) {
                *n -= 1;
            }
            found += 2;
            repaired[at] = vec![word];
            repaired[at + 1] = Vec::new();
            at += 2;
        } else {
            at += 1;
        }
    }
    let reference: Vec<String> = repaired.into_iter().flatten().collect();
    let grams =
        |words: &[String]| -> HashSet<String> { words.windows(4).map(|w| w.join(" ")).collect() };
    let extracted_grams = grams(&extracted);
    let reference_grams: Vec<String> = reference.windows(4).map(|w| w.join(" ")).collect();
    let gram_found = reference_grams
        .iter()
        .filter(|g| extracted_grams.contains(*g))
        .count();
    let gram_recall = if reference_grams.is_empty() {
        1.0
    } else {
        gram_found as f64 / reference_grams.len() as f64
    };
    (found as f64 / total as f64, gram_recall)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recall_counts_words_and_order() {
        let (words, grams) = recall("one two three four five", "one two three four five");
        assert_eq!((words, grams), (1.0, 1.0));
        let (words, grams) = recall("one two three four five", "five four three two one");
        assert_eq!(words, 1.0);
        assert_eq!(grams, 0.0);
        let (words, _) = recall("a a b c", "a b");
        assert_eq!(words, 0.5);
        // The reference's own defects: a line-end hyphen kept, two words glued.
        let (words, grams) = recall(
            "finding sen-\ntences tothe answer now",
            "finding sentences to the answer now",
        );
        assert_eq!(words, 1.0);
        assert_eq!(grams, 1.0);
        let (words, _) = recall(
            "three classi ers and ensem ble",
            "three classifiers and ensemble",
        );
        assert_eq!(words, 1.0);
    }
}
