//! The exact-copy self-check: every document of a corpus that was imported into a library is
//! checked, as a portal would send it (text only, no language), and must find itself.

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;

use dupfinder_check::{CheckError, CheckRequest, Method};
use dupfinder_service::library::check;
use dupfinder_service::library::{Catalog, CorpusReader, LibraryError};

/// A document that did not find itself.
#[derive(Debug, Clone, Serialize)]
pub struct SelfCheckMiss {
    pub doc_id: String,
    pub words: usize,
    pub reason: String,
}

/// Percentiles of the server-side check time, in milliseconds.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Latency {
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
}

impl Latency {
    /// Percentiles of `samples` (sorted in place).
    pub fn of(samples: &mut [f64]) -> Latency {
        if samples.is_empty() {
            return Latency::default();
        }
        samples.sort_by(f64::total_cmp);
        let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
        Latency {
            p50: at(0.5),
            p90: at(0.9),
            p99: at(0.99),
            max: samples[samples.len() - 1],
        }
    }
}

/// What the self-check found.
#[derive(Debug, Clone, Serialize)]
pub struct SelfCheckReport {
    pub library: String,
    /// Distinct document ids in the corpus (the last version of each is what the library holds).
    pub documents: usize,
    /// Documents with at least `min_words` words: the ones checked.
    pub checked: usize,
    pub min_words: usize,
    pub found: usize,
    pub found_by_signature: usize,
    pub found_by_exact: usize,
    /// Checks whose top match was the document itself.
    pub found_first: usize,
    pub misses: Vec<SelfCheckMiss>,
    pub latency_ms: Latency,
}

/// Checks every document of `corpus` with at least `min_words` whitespace-separated words
/// against `library` and reports which found themselves and how.
pub fn self_check(
    catalog: &Catalog,
    library: &str,
    corpus: &Path,
    min_words: usize,
) -> Result<SelfCheckReport, LibraryError> {
    catalog.index(library)?;
    let reader = CorpusReader::open(corpus).map_err(|source| LibraryError::Io {
        path: corpus.to_path_buf(),
        source,
    })?;
    // The library holds the last version of a repeated id.
    let mut order = Vec::new();
    let mut texts: HashMap<String, String> = HashMap::new();
    for line in reader {
        let (_, input) = line.map_err(|source| LibraryError::Io {
            path: corpus.to_path_buf(),
            source,
        })?;
        let Ok(input) = input else { continue };
        let (Some(id), Some(text)) = (input.id, input.text) else {
            continue;
        };
        let id = match id {
            dupfinder_service::library::IdValue::Text(s) => s,
            dupfinder_service::library::IdValue::Number(n) => n.to_string(),
            // Refused on import (`invalid_doc_id`): not in the library.
            dupfinder_service::library::IdValue::Other(_) => continue,
        };
        if texts.insert(id.clone(), text).is_none() {
            order.push(id);
        }
    }
    let mut report = SelfCheckReport {
        library: library.to_string(),
        documents: order.len(),
        checked: 0,
        min_words,
        found: 0,
        found_by_signature: 0,
        found_by_exact: 0,
        found_first: 0,
        misses: Vec::new(),
        latency_ms: Latency::default(),
    };
    let mut latencies = Vec::new();
    for id in order {
        let text = &texts[&id];
        let words = text.split_whitespace().count();
        if words < min_words {
            continue;
        }
        report.checked += 1;
        let mut request = CheckRequest::new(text.clone());
        request.libraries = Some(vec![library.to_string()]);
        let answer = match check(catalog, &request) {
            Ok(answer) => answer,
            Err(LibraryError::Check(CheckError::Text(e))) => {
                report.misses.push(SelfCheckMiss {
                    doc_id: id,
                    words,
                    reason: format!("rejected: {e}"),
                });
                continue;
            }
            Err(LibraryError::Check(e)) => unreachable!("a valid request failed: {e}"),
            Err(e) => return Err(e),
        };
        latencies.push(answer.took_ms);
        match answer.matches.iter().position(|m| m.doc_id == id) {
            Some(position) => {
                let found = &answer.matches[position];
                report.found += 1;
                report.found_first += usize::from(position == 0);
                report.found_by_signature +=
                    usize::from(found.methods.contains(&Method::Signature));
                report.found_by_exact += usize::from(found.methods.contains(&Method::Exact));
            }
            None => {
                let in_library = catalog.index(library)?.contains(&id)?;
                report.misses.push(SelfCheckMiss {
                    doc_id: id,
                    words,
                    reason: if in_library {
                        format!("not matched ({} other matches)", answer.matches.len())
                    } else {
                        "not in the library".to_string()
                    },
                });
            }
        }
    }
    report.latency_ms = Latency::of(&mut latencies);
    Ok(report)
}
