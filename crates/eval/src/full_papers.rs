//! False positives on full papers, tried as an editor would: each journal's articles (JATS,
//! read as plain text) make a library, and every article is checked against its journal's
//! library. Any counted match to another article is a false positive unless the two papers
//! really share text; the share of papers with one is measured with the default exclusions and
//! with each exclusion switched off.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use super::jats::read_jats;
use dupfinder_check::{CheckError, CheckRequest, ExcludeRequest};
use dupfinder_service::library::check;
use dupfinder_service::library::{Catalog, DocumentInput, IdValue, LibraryError, NewLibrary};

/// One configuration's figures.
#[derive(Debug, Clone, Serialize)]
pub struct FalsePositiveRow {
    /// What differs from the defaults.
    pub setting: String,
    pub papers: usize,
    /// Papers with a counted match to another paper of the library.
    pub flagged: usize,
    pub share: f64,
    /// The flagged papers with the other paper and the passage kinds that counted.
    pub examples: Vec<String>,
}

/// Why the experiment could not run.
#[derive(Debug, thiserror::Error)]
pub enum FullPapersError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Library(#[from] LibraryError),
    #[error(transparent)]
    Check(#[from] CheckError),
}

/// The journal of a PLOS article file name: `journal.pone.0012262.xml` → `pone`.
fn journal_of(name: &str) -> String {
    name.split('.').nth(1).unwrap_or("other").to_lowercase()
}

/// Imports each journal's articles of `dir` into a library `plos-<journal>` of `catalog` and
/// checks every article against its journal, once per exclusion setting.
pub fn full_paper_false_positives(
    catalog: &Catalog,
    dir: &Path,
) -> Result<Vec<FalsePositiveRow>, FullPapersError> {
    let read_error = |path: &Path, source| FullPapersError::Read {
        path: path.display().to_string(),
        source,
    };
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| read_error(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .collect();
    paths.sort();
    // (library, doc_id, text)
    let mut articles = Vec::new();
    for path in &paths {
        let xml = std::fs::read_to_string(path).map_err(|e| read_error(path, e))?;
        let Ok(article) = read_jats(&xml) else {
            continue;
        };
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let library = format!("plos-{}", journal_of(&name));
        let doc_id = name.trim_end_matches(".xml").to_string();
        articles.push((library, doc_id, article.text));
    }
    let mut by_library: BTreeMap<&str, Vec<(usize, Result<DocumentInput, _>)>> = BTreeMap::new();
    for (i, (library, doc_id, text)) in articles.iter().enumerate() {
        let input = DocumentInput {
            id: Some(IdValue::Text(doc_id.clone())),
            text: Some(text.clone()),
            lang: Some("en".to_string()),
            ..Default::default()
        };
        by_library
            .entry(library.as_str())
            .or_default()
            .push((i + 1, Ok(input)));
    }
    for (library, inputs) in by_library {
        if catalog.index(library).is_err() {
            catalog.create(NewLibrary {
                id: library.to_string(),
                ..Default::default()
            })?;
            catalog.ingest(library, inputs)?;
        }
    }
    let settings: Vec<(&str, ExcludeRequest)> = vec![
        ("default exclusions", ExcludeRequest::default()),
        (
            "quotes counted",
            ExcludeRequest {
                quotes: Some(false),
                ..Default::default()
            },
        ),
        (
            "bibliography counted",
            ExcludeRequest {
                bibliography: Some(false),
                ..Default::default()
            },
        ),
        (
            "front matter counted",
            ExcludeRequest {
                front_matter: Some(false),
                ..Default::default()
            },
        ),
        (
            "boilerplate counted",
            ExcludeRequest {
                boilerplate: Some(false),
                ..Default::default()
            },
        ),
        (
            "nothing excluded",
            ExcludeRequest {
                quotes: Some(false),
                bibliography: Some(false),
                front_matter: Some(false),
                boilerplate: Some(false),
                small_matches: Some(0),
                sources: None,
            },
        ),
    ];
    let mut rows = Vec::new();
    for (setting, exclude) in settings {
        let mut flagged = 0;
        let mut examples = Vec::new();
        for (library, doc_id, text) in &articles {
            let mut request = CheckRequest::new(text.as_str());
            request.libraries = Some(vec![library.clone()]);
            request.passages = true;
            request.exclude = exclude.clone();
            let report = check(catalog, &request)?;
            let others: Vec<String> = report
                .matches
                .iter()
                .filter(|m| m.counted && m.doc_id != *doc_id)
                .map(|m| {
                    let mut kinds: Vec<String> = m
                        .passages
                        .iter()
                        .flatten()
                        .filter(|p| report.exclusions.counts(p.kind))
                        .map(|p| format!("{:?}", p.kind).to_lowercase())
                        .collect();
                    kinds.dedup();
                    format!("{doc_id} → {} ({})", m.doc_id, kinds.join(", "))
                })
                .collect();
            if !others.is_empty() {
                flagged += 1;
                examples.extend(others);
            }
        }
        rows.push(FalsePositiveRow {
            setting: setting.to_string(),
            papers: articles.len(),
            flagged,
            share: if articles.is_empty() {
                0.0
            } else {
                flagged as f64 / articles.len() as f64
            },
            examples,
        });
    }
    Ok(rows)
}

/// The rows as a Markdown table, with the flagged pairs of each setting below it.
pub fn print_false_positives(rows: &[FalsePositiveRow]) {
    println!("| setting | papers | with a counted match to another paper | share |");
    println!("|---|---|---|---|");
    for r in rows {
        println!(
            "| {} | {} | {} | {:.3} |",
            r.setting, r.papers, r.flagged, r.share
        );
    }
    for r in rows {
        if !r.examples.is_empty() {
            println!("\n{}:", r.setting);
            for e in &r.examples {
                println!("- {e}");
            }
        }
    }
}
