//! Section detection measured on tagged articles: each JATS article of a folder is read into
//! plain text ([`read_jats`]), its structure detected from the text alone
//! ([`Structure::detect`]) and compared with the publisher's tags.
//!
//! Parts (front matter, abstracts, body, acknowledgements, reference lists) are compared
//! character by character (white space left out), summed over all articles; block quotations,
//! reference entries and in-text citations item by item (a detected item is right when it
//! overlaps a tagged one, a tagged one is found when a detected one overlaps it).
//!
//! Files with no tags of their own (PDFs) are measured the same way against a hand-made truth
//! ([`evaluate_anchored`]): each file's parts given by the text each one starts and ends with,
//! located in the text the extractor gives, so the check's own reading of the file is what is
//! measured.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::jats::{TaggedArticle, read_jats};
use dupfinder_check::Span;
use dupfinder_text::extract::{ExtractLimits, extract};
use dupfinder_text::structure::{Part, Structure, overlap};

/// One measured row.
#[derive(Debug, Clone, Serialize)]
pub struct SectionRow {
    pub what: &'static str,
    /// `characters` or `items`.
    pub unit: &'static str,
    /// Tagged units, and those of them the detector found.
    pub truth: usize,
    pub found: usize,
    /// Detected units, and those of them that are right.
    pub detected: usize,
    pub right: usize,
    pub precision: f64,
    pub recall: f64,
}

/// Section detection on a folder of articles.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SectionsReport {
    pub articles: usize,
    /// Files that could not be read, with the reason.
    pub unreadable: Vec<(String, String)>,
    /// Quotations inside sentences the detector found: the tags do not mark them, so they
    /// are counted, not measured.
    pub inline_quotations: usize,
    pub rows: Vec<SectionRow>,
}

/// Why the evaluation could not run.
#[derive(Debug, thiserror::Error)]
pub enum SectionsError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("no .xml article in {0}")]
    Empty(String),
    #[error("the truth file {path} is not valid: {reason}")]
    Truth { path: String, reason: String },
    #[error("{file}: the truth's anchor {anchor:?} is not in the extracted text")]
    Anchor { file: String, anchor: String },
}

/// Counts of one row, summed over articles.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    truth: usize,
    found: usize,
    detected: usize,
    right: usize,
}

impl Tally {
    fn row(self, what: &'static str, unit: &'static str) -> SectionRow {
        let ratio = |a: usize, b: usize| if b == 0 { 1.0 } else { a as f64 / b as f64 };
        SectionRow {
            what,
            unit,
            truth: self.truth,
            found: self.found,
            detected: self.detected,
            right: self.right,
            precision: ratio(self.right, self.detected),
            recall: ratio(self.found, self.truth),
        }
    }

    /// Adds a character comparison: non-blank code points in `truth`, in `detected`, in both.
    fn characters(&mut self, text: &[char], truth: &[Span], detected: &[Span]) {
        let mark = |spans: &[Span]| {
            let mut marked = vec![false; text.len()];
            for s in spans {
                for m in &mut marked[s.start.min(text.len())..s.end.min(text.len())] {
                    *m = true;
                }
            }
            marked
        };
        let (t, d) = (mark(truth), mark(detected));
        for (i, c) in text.iter().enumerate() {
            if c.is_whitespace() {
                continue;
            }
            self.truth += usize::from(t[i]);
            self.detected += usize::from(d[i]);
            let both = usize::from(t[i] && d[i]);
            self.found += both;
            self.right += both;
        }
    }

    /// Adds an item comparison where one detected item must not stand for several: items
    /// match when their overlap covers at least half of each (a whole reference list read as
    /// one entry finds none of its entries).
    fn matched_items(&mut self, truth: &[Span], detected: &[Span]) {
        let len = |s: &Span| s.end.saturating_sub(s.start);
        let matches = |a: &Span, b: &Span| {
            let shared = overlap([*b], *a);
            shared > 0 && 2 * shared >= len(a) && 2 * shared >= len(b)
        };
        self.truth += truth.len();
        self.found += truth
            .iter()
            .filter(|t| detected.iter().any(|d| matches(t, d)))
            .count();
        self.detected += detected.len();
        self.right += detected
            .iter()
            .filter(|d| truth.iter().any(|t| matches(t, d)))
            .count();
    }

    /// Adds an item comparison: items match when they overlap.
    fn items(&mut self, truth: &[Span], detected: &[Span]) {
        let hits = |s: &Span, others: &[Span]| overlap(others.iter().copied(), *s) > 0;
        self.truth += truth.len();
        self.found += truth.iter().filter(|t| hits(t, detected)).count();
        self.detected += detected.len();
        self.right += detected.iter().filter(|d| hits(d, truth)).count();
    }
}

/// A measurement in progress: the report's counts and the tallies of its rows.
#[derive(Debug, Default)]
struct Measurement {
    report: SectionsReport,
    tallies: Tallies,
}

impl Measurement {
    /// Detects the structure of one article's text and tallies it against the truth.
    fn add(&mut self, article: &TaggedArticle) {
        let structure = Structure::detect(&article.text);
        self.report.articles += 1;
        self.report.inline_quotations += structure.quotations.iter().filter(|q| !q.block).count();
        self.tallies.add(article, &structure);
    }

    fn unreadable(&mut self, name: String, reason: String) {
        self.report.unreadable.push((name, reason));
    }
}

/// The tallies of every row.
#[derive(Debug, Default)]
struct Tallies {
    front: Tally,
    abstracts: Tally,
    body: Tally,
    acknowledgements: Tally,
    references: Tally,
    reference_lists: Tally,
    entries: Tally,
    block_quotes: Tally,
    cited_quotes: Tally,
    citations: Tally,
}

impl Tallies {
    fn add(&mut self, article: &TaggedArticle, structure: &Structure) {
        let text: Vec<char> = article.text.chars().collect();
        let spans = |parts: &[Part]| -> Vec<Span> {
            structure
                .regions
                .iter()
                .filter(|r| parts.contains(&r.part))
                .map(|r| r.span)
                .collect()
        };
        self.front
            .characters(&text, &article.front_matter, &spans(&[Part::FrontMatter]));
        self.abstracts
            .characters(&text, &article.abstracts, &spans(&[Part::Abstract]));
        let body: Vec<Span> = article
            .body
            .iter()
            .chain(&article.block_quotes)
            .copied()
            .collect();
        self.body
            .characters(&text, &body, &spans(&[Part::Body, Part::Heading]));
        self.acknowledgements.characters(
            &text,
            &article.acknowledgements,
            &spans(&[Part::Acknowledgements]),
        );
        let references = spans(&[Part::References]);
        self.references
            .characters(&text, &article.references, &references);
        // A paper has a reference list, and the detector says where it starts.
        let has = |spans: &[Span]| usize::from(!spans.is_empty());
        self.reference_lists.truth += has(&article.references);
        self.reference_lists.detected += has(&references);
        let both = has(&article.references) * has(&references);
        self.reference_lists.found += both;
        self.reference_lists.right += both;
        self.entries
            .matched_items(&article.reference_entries, &structure.references);
        let quotes = |cited: bool| -> Vec<Span> {
            structure
                .quotations
                .iter()
                .filter(|q| q.block && (q.cited || !cited))
                .map(|q| q.span)
                .collect()
        };
        self.block_quotes
            .items(&article.block_quotes, &quotes(false));
        self.cited_quotes
            .items(&article.cited_quotes, &quotes(true));
        self.citations
            .items(&article.citations, &structure.citations);
    }

    /// The rows a hand-made truth of parts measures (no quotations or citations).
    fn part_rows(&self) -> Vec<SectionRow> {
        let mut rows = self.rows();
        rows.truncate(7);
        rows
    }

    fn rows(&self) -> Vec<SectionRow> {
        vec![
            self.front.row("front matter", "characters"),
            self.abstracts.row("abstracts", "characters"),
            self.body.row(
                "body (headings, paragraphs, block quotations)",
                "characters",
            ),
            self.acknowledgements.row("acknowledgements", "characters"),
            self.references.row("reference lists", "characters"),
            self.reference_lists
                .row("papers with a reference list", "items"),
            self.entries
                .row("reference entries (each matched one to one)", "items"),
            self.block_quotes.row("block quotations", "items"),
            self.cited_quotes
                .row("block quotations with a citation, marked cited", "items"),
            self.citations.row("in-text citations", "items"),
        ]
    }
}

/// Reads every `.xml` article of `dir`, detects its structure from its text and compares it
/// with the tags.
pub fn evaluate_sections(dir: &Path) -> Result<SectionsReport, SectionsError> {
    let read_error = |source| SectionsError::Read {
        path: dir.display().to_string(),
        source,
    };
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .map_err(read_error)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .collect();
    paths.sort();
    if paths.is_empty() {
        return Err(SectionsError::Empty(dir.display().to_string()));
    }
    let mut measured = Measurement::default();
    for path in paths {
        let name = path.display().to_string();
        let xml = std::fs::read_to_string(&path).map_err(|source| SectionsError::Read {
            path: name.clone(),
            source,
        })?;
        match read_jats(&xml) {
            Ok(article) => measured.add(&article),
            Err(e) => measured.unreadable(name, e.to_string()),
        }
    }
    let mut report = measured.report;
    report.rows = measured.tallies.rows();
    Ok(report)
}

/// One file's parts in a hand-made truth: spans by the text they start and end with.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AnchoredParts {
    #[serde(default)]
    front_matter: Vec<Anchors>,
    #[serde(default)]
    abstracts: Vec<Anchors>,
    #[serde(default)]
    acknowledgements: Vec<Anchors>,
    #[serde(default)]
    references: Vec<Anchors>,
    /// The text each reference entry starts with; an entry runs to the next one, the last to
    /// the end of the reference list.
    #[serde(default)]
    reference_entries: Vec<String>,
}

/// A span from the first occurrence of `from` to the end of the first `to` after it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Anchors {
    from: String,
    to: String,
}

/// Finds `anchor` in `text` at or after byte `after`: its byte range.
fn locate(text: &str, after: usize, anchor: &str) -> Option<(usize, usize)> {
    let at = after + text.get(after..)?.find(anchor)?;
    Some((at, at + anchor.len()))
}

/// The truth of one extracted file as a tagged article: the anchored parts, the body the rest.
fn anchored_article(
    file: &str,
    text: String,
    parts: &AnchoredParts,
) -> Result<TaggedArticle, SectionsError> {
    let missing = |anchor: &str| SectionsError::Anchor {
        file: file.to_string(),
        anchor: anchor.to_string(),
    };
    let char_at = |byte: usize| text[..byte].chars().count();
    let spans = |list: &[Anchors]| -> Result<Vec<Span>, SectionsError> {
        list.iter()
            .map(|a| {
                let (start, _) = locate(&text, 0, &a.from).ok_or_else(|| missing(&a.from))?;
                let (_, end) = locate(&text, start, &a.to).ok_or_else(|| missing(&a.to))?;
                Ok(Span {
                    start: char_at(start),
                    end: char_at(end),
                })
            })
            .collect()
    };
    let front_matter = spans(&parts.front_matter)?;
    let abstracts = spans(&parts.abstracts)?;
    let acknowledgements = spans(&parts.acknowledgements)?;
    let references = spans(&parts.references)?;
    let list_end = references.iter().map(|s| s.end).max().unwrap_or(0);
    let mut starts = Vec::new();
    let mut after = 0;
    for anchor in &parts.reference_entries {
        let (start, end) = locate(&text, after, anchor).ok_or_else(|| missing(anchor))?;
        starts.push(char_at(start));
        after = end;
    }
    let reference_entries = starts
        .iter()
        .enumerate()
        .map(|(i, &start)| Span {
            start,
            end: starts.get(i + 1).copied().unwrap_or(list_end).max(start),
        })
        .collect();
    let labelled: Vec<Span> = [&front_matter, &abstracts, &acknowledgements, &references]
        .into_iter()
        .flatten()
        .copied()
        .collect();
    let total = text.chars().count();
    let mut body = Vec::new();
    let mut cursor = 0;
    let mut sorted = labelled.clone();
    sorted.sort_by_key(|s| s.start);
    for s in sorted.iter().chain([&Span {
        start: total,
        end: total,
    }]) {
        if s.start > cursor {
            body.push(Span {
                start: cursor,
                end: s.start,
            });
        }
        cursor = cursor.max(s.end);
    }
    Ok(TaggedArticle {
        text,
        front_matter,
        abstracts,
        body,
        block_quotes: Vec::new(),
        citations: Vec::new(),
        cited_quotes: Vec::new(),
        acknowledgements,
        references,
        reference_entries,
    })
}

/// Measures section detection on files of any format (PDFs above all) against a hand-made
/// truth: `truth` is a JSON object from file name (in `dir`) to its parts, each part a list of
/// `{"from": …, "to": …}` spans and `reference_entries` the text each entry starts with.
/// Each file is read by the extractor the check uses; an anchor missing from its text is an
/// error, so the truth cannot silently drift from what is measured.
pub fn evaluate_anchored(dir: &Path, truth: &Path) -> Result<SectionsReport, SectionsError> {
    let truth_text = std::fs::read_to_string(truth).map_err(|source| SectionsError::Read {
        path: truth.display().to_string(),
        source,
    })?;
    let files: BTreeMap<String, AnchoredParts> =
        serde_json::from_str(&truth_text).map_err(|e| SectionsError::Truth {
            path: truth.display().to_string(),
            reason: e.to_string(),
        })?;
    if files.is_empty() {
        return Err(SectionsError::Truth {
            path: truth.display().to_string(),
            reason: "it names no file".to_string(),
        });
    }
    let mut measured = Measurement::default();
    for (name, parts) in &files {
        let path = dir.join(name);
        let bytes = std::fs::read(&path).map_err(|source| SectionsError::Read {
            path: path.display().to_string(),
            source,
        })?;
        match extract(&bytes, &ExtractLimits::default()) {
            Ok(document) => measured.add(&anchored_article(name, document.text, parts)?),
            Err(e) => measured.unreadable(name.clone(), e.to_string()),
        }
    }
    let mut report = measured.report;
    report.rows = measured.tallies.part_rows();
    Ok(report)
}

/// A file of any format line by line with the detected part, for writing a hand-made truth
/// and for finding out why a row is low.
pub fn explain_file(bytes: &[u8]) -> Result<String, dupfinder_text::extract::ExtractError> {
    let text = extract(bytes, &ExtractLimits::default())?.text;
    Ok(explain_lines(&text, None))
}

/// Each non-blank line of `text` with its detected part (and, given `tagged`, the truth's
/// class at its start), cut to a readable width.
fn explain_lines(text: &str, tagged: Option<&dyn Fn(usize) -> &'static str>) -> String {
    let structure = Structure::detect(text);
    let mut out = String::new();
    let mut offset = 0;
    for line in text.split('\n') {
        let chars = line.chars().count();
        if !line.trim().is_empty() {
            let at = offset + line.chars().take_while(|c| c.is_whitespace()).count();
            let head: String = line.chars().take(90).collect();
            let part = format!("{:?}", structure.part_at(at));
            match tagged {
                Some(tagged) => out.push_str(&format!("{:<9} {part:<18} {head}\n", tagged(at))),
                None => out.push_str(&format!("{part:<18} {head}\n")),
            }
        }
        offset += chars + 1;
    }
    out
}

/// The report as a Markdown table.
pub fn print_sections(report: &SectionsReport) {
    println!(
        "{} articles ({} unreadable); {} quotations inside sentences found (not tagged, not measured)\n",
        report.articles,
        report.unreadable.len(),
        report.inline_quotations
    );
    println!("| what | unit | tagged | found | detected | right | precision | recall |");
    println!("|---|---|---|---|---|---|---|---|");
    for r in &report.rows {
        println!(
            "| {} | {} | {} | {} | {} | {} | {:.3} | {:.3} |",
            r.what, r.unit, r.truth, r.found, r.detected, r.right, r.precision, r.recall
        );
    }
    for (path, reason) in &report.unreadable {
        println!("\nunreadable: {path}: {reason}");
    }
}

/// One article paragraph by paragraph: the tag's class and the detected part, for finding
/// out why a row is low.
pub fn explain_article(xml: &str) -> Result<String, super::jats::JatsError> {
    let article = read_jats(xml)?;
    let tagged = |offset: usize| -> &'static str {
        let lists: [(&'static str, &Vec<Span>); 6] = [
            ("front", &article.front_matter),
            ("abstract", &article.abstracts),
            ("body", &article.body),
            ("quote", &article.block_quotes),
            ("ack", &article.acknowledgements),
            ("refs", &article.references),
        ];
        lists
            .iter()
            .find(|(_, spans)| spans.iter().any(|s| s.start <= offset && offset < s.end))
            .map_or("-", |(name, _)| *name)
    };
    Ok(explain_lines(&article.text, Some(&tagged)))
}
