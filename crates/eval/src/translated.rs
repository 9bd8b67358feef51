//! Translated copies measured on sentence-aligned Russian–English text (TICO-19, FLORES-200):
//! consecutive sentences of one source make a document in both languages. Two thirds of the
//! documents go into a library in each language; every document is checked in the other
//! language against it, so the library documents must be found (recall) and nothing else
//! claimed (precision; the other third, same topic but absent, can only be claimed wrongly).
//! Translated passages: three sentences of a library document, translated, inserted into the
//! middle of an absent document, measured with PAN's measures.

use std::path::Path;

use serde::Serialize;

use super::pan::{Aligned, PanMeasures, pan_measures};
use dupfinder_check::{CheckError, CheckRequest};
use dupfinder_service::library::check;
use dupfinder_service::library::{Catalog, DocumentInput, IdValue, LibraryError, NewLibrary};

/// Sentences of a document at the most: longer sources are cut into documents of this size.
const DOCUMENT_SENTENCES: usize = 8;
/// Sentences of a document at the least.
const MIN_SENTENCES: usize = 3;
/// Sentences of a translated passage.
const PASSAGE_SENTENCES: usize = 3;

/// One document in both languages, as sentences.
#[derive(Debug, Clone)]
struct Parallel {
    id: String,
    en: Vec<String>,
    ru: Vec<String>,
}

/// The figures of one direction.
#[derive(Debug, Clone, Serialize)]
pub struct DirectionRow {
    pub direction: String,
    /// Queries whose translation is in the library.
    pub translated_queries: usize,
    /// …found as a counted match.
    pub found: usize,
    /// …found with the verdict `duplicate`.
    pub found_duplicate: usize,
    /// Counted matches to another document (any query).
    pub false_claims: usize,
    /// Queries absent from the library (same topic), and those with a counted match.
    pub absent_queries: usize,
    pub absent_claimed: usize,
    pub recall: f64,
    pub precision: f64,
    pub passages: PanMeasures,
    /// Mean check time, milliseconds.
    pub mean_ms: f64,
    /// Mean time of the absent documents checked against both libraries (their own language's
    /// and the other), with cross-language checking off and on, in the same run.
    pub both_libraries_ms_off: f64,
    pub both_libraries_ms_on: f64,
}

/// Why the evaluation could not run.
#[derive(Debug, thiserror::Error)]
pub enum TranslatedError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{0}: the two languages have different numbers of lines")]
    Misaligned(String),
    #[error("cross-language checking is unavailable: {0}")]
    Unavailable(String),
    #[error(transparent)]
    Library(#[from] LibraryError),
    #[error(transparent)]
    Check(#[from] CheckError),
}

/// Reads `lines` files and a per-line source file (its `column`, after `header` lines).
fn read_parallel(
    dir: &Path,
    name: &str,
    sources: &str,
    column: usize,
    header: usize,
) -> Result<Vec<Parallel>, TranslatedError> {
    let read = |file: &str| {
        let path = dir.join(file);
        std::fs::read_to_string(&path).map_err(|source| TranslatedError::Read {
            path: path.display().to_string(),
            source,
        })
    };
    let en = read(&format!("{name}.en"))?;
    let ru = read(&format!("{name}.ru"))?;
    let info = read(sources)?;
    let en: Vec<&str> = en.lines().collect();
    let ru: Vec<&str> = ru.lines().collect();
    let info: Vec<&str> = info
        .lines()
        .skip(header)
        .map(|l| l.split('\t').nth(column).unwrap_or(""))
        .collect();
    if en.len() != ru.len() || en.len() != info.len() {
        return Err(TranslatedError::Misaligned(name.to_string()));
    }
    let mut documents = Vec::new();
    let mut start = 0;
    for i in 1..=en.len() {
        if i == en.len() || info[i] != info[start] || i - start == DOCUMENT_SENTENCES {
            if i - start >= MIN_SENTENCES {
                documents.push(Parallel {
                    id: format!("{name}-{start}"),
                    en: en[start..i].iter().map(|s| s.trim().to_string()).collect(),
                    ru: ru[start..i].iter().map(|s| s.trim().to_string()).collect(),
                });
            }
            start = i;
        }
    }
    Ok(documents)
}

/// Evaluates translated copies on the parallel texts of `dir` with the libraries `xl-en` and
/// `xl-ru` of `catalog` (made and filled once).
pub fn evaluate_translated(
    catalog: &Catalog,
    dir: &Path,
) -> Result<Vec<DirectionRow>, TranslatedError> {
    let mut documents = read_parallel(dir, "tico19", "tico19.info.tsv", 1, 0)?;
    documents.extend(read_parallel(
        dir,
        "flores200.devtest",
        "flores200.devtest.metadata.tsv",
        0,
        1,
    )?);
    let in_library = |k: usize| k % 3 != 2;
    for (library, lang) in [("xl-en", "en"), ("xl-ru", "ru")] {
        if catalog.index(library).is_ok() {
            continue;
        }
        catalog.create(NewLibrary {
            id: library.to_string(),
            ..Default::default()
        })?;
        let inputs = documents
            .iter()
            .enumerate()
            .filter(|(k, _)| in_library(*k))
            .map(|(k, d)| {
                let sentences = if lang == "en" { &d.en } else { &d.ru };
                let input = DocumentInput {
                    id: Some(IdValue::Text(d.id.clone())),
                    text: Some(sentences.join(" ")),
                    lang: Some(lang.to_string()),
                    ..Default::default()
                };
                (k + 1, Ok(input))
            })
            .collect();
        catalog.ingest(library, inputs)?;
    }
    let mut rows = Vec::new();
    for (from, library) in [("ru", "xl-en"), ("en", "xl-ru")] {
        rows.push(direction(catalog, &documents, from, library, &in_library)?);
    }
    Ok(rows)
}

/// One direction: every document in language `from` checked against `library`.
fn direction(
    catalog: &Catalog,
    documents: &[Parallel],
    from: &str,
    library: &str,
    in_library: &dyn Fn(usize) -> bool,
) -> Result<DirectionRow, TranslatedError> {
    let side = |d: &Parallel| {
        if from == "ru" {
            d.ru.clone()
        } else {
            d.en.clone()
        }
    };
    let run = |text: String| -> Result<dupfinder_check::CheckReport, TranslatedError> {
        let mut request = CheckRequest::new(text);
        request.libraries = Some(vec![library.to_string()]);
        request.passages = true;
        request.lang = Some(from.to_string());
        let report = check(catalog, &request)?;
        if report.cross_language.state != dupfinder_check::CrossLanguageState::On {
            let reason = report.cross_language.reason.clone().unwrap_or_default();
            return Err(TranslatedError::Unavailable(reason));
        }
        Ok(report)
    };
    let mut row = DirectionRow {
        direction: format!("{from} → {}", if from == "ru" { "en" } else { "ru" }),
        translated_queries: 0,
        found: 0,
        found_duplicate: 0,
        false_claims: 0,
        absent_queries: 0,
        absent_claimed: 0,
        recall: 0.0,
        precision: 0.0,
        passages: PanMeasures::default(),
        mean_ms: 0.0,
        both_libraries_ms_off: 0.0,
        both_libraries_ms_on: 0.0,
    };
    let mut millis = 0.0;
    let mut checks = 0usize;
    for (k, document) in documents.iter().enumerate() {
        let report = run(side(document).join(" "))?;
        millis += report.took_ms;
        checks += 1;
        let counted: Vec<_> = report.matches.iter().filter(|m| m.counted).collect();
        if in_library(k) {
            row.translated_queries += 1;
            if let Some(own) = counted.iter().find(|m| m.doc_id == document.id) {
                row.found += 1;
                if own.verdict == dupfinder_check::Verdict::Duplicate {
                    row.found_duplicate += 1;
                }
            }
        } else {
            row.absent_queries += 1;
            if !counted.is_empty() {
                row.absent_claimed += 1;
            }
        }
        row.false_claims += counted.iter().filter(|m| m.doc_id != document.id).count();
    }
    // Translated passages: an absent document with three sentences of a library one inside.
    let absent: Vec<usize> = (0..documents.len()).filter(|k| !in_library(*k)).collect();
    let sources: Vec<usize> = (0..documents.len())
        .filter(|k| in_library(*k) && documents[*k].en.len() > PASSAGE_SENTENCES)
        .collect();
    let mut cases = Vec::new();
    let mut detections = Vec::new();
    for (q, (&host, &source)) in absent.iter().zip(sources.iter().step_by(2)).enumerate() {
        let host_sentences = side(&documents[host]);
        let inserted = &side(&documents[source])[1..=PASSAGE_SENTENCES];
        let middle = host_sentences.len() / 2;
        let before = host_sentences[..middle].join(" ");
        let passage = inserted.join(" ");
        let after = host_sentences[middle..].join(" ");
        let start = before.chars().count() + usize::from(!before.is_empty());
        let text = [before, passage.clone(), after]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        cases.push(Aligned {
            query: q,
            source: documents[source].id.clone(),
            start,
            end: start + passage.chars().count(),
        });
        let report = run(text)?;
        millis += report.took_ms;
        checks += 1;
        for m in report.matches.iter().filter(|m| m.counted) {
            for p in m.passages.iter().flatten() {
                detections.push(Aligned {
                    query: q,
                    source: m.doc_id.clone(),
                    start: p.query.start,
                    end: p.query.end,
                });
            }
        }
    }
    row.passages = pan_measures(&cases, &detections);
    // Latency of queries without a translated source, with and without the cross-language
    // search, alternated so that both see the same machine.
    let (mut off, mut on) = (0.0, 0.0);
    for &k in &absent {
        for cross_language in [false, true, false, true] {
            let mut request = CheckRequest::new(side(&documents[k]).join(" "));
            request.libraries = Some(vec!["xl-en".to_string(), "xl-ru".to_string()]);
            request.lang = Some(from.to_string());
            request.cross_language = cross_language;
            let took = check(catalog, &request)?.took_ms;
            *if cross_language { &mut on } else { &mut off } += took / 2.0;
        }
    }
    row.both_libraries_ms_off = off / absent.len().max(1) as f64;
    row.both_libraries_ms_on = on / absent.len().max(1) as f64;
    row.recall = ratio(row.found, row.translated_queries);
    row.precision = ratio(row.found, row.found + row.false_claims);
    row.mean_ms = millis / checks.max(1) as f64;
    Ok(row)
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 { 1.0 } else { a as f64 / b as f64 }
}

/// The rows as a Markdown table.
pub fn print_translated(rows: &[DirectionRow]) {
    println!(
        "| direction | translated documents | recall | found as duplicate | false claims | precision | absent documents claimed | passage precision | passage recall | granularity | plagdet | mean check ms | both libraries, ms: cross-language off / on |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for r in rows {
        println!(
            "| {} | {} | {:.3} | {} | {} | {:.3} | {} / {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.1} | {:.1} / {:.1} |",
            r.direction,
            r.translated_queries,
            r.recall,
            r.found_duplicate,
            r.false_claims,
            r.precision,
            r.absent_claimed,
            r.absent_queries,
            r.passages.precision,
            r.passages.recall,
            r.passages.granularity,
            r.passages.plagdet,
            r.mean_ms,
            r.both_libraries_ms_off,
            r.both_libraries_ms_on
        );
    }
}
