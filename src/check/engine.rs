//! Running a check across libraries.

use std::collections::BTreeMap;
use std::time::Instant;

use serde::Serialize;

use super::similarity::{Similarity, bag_similarity};
use crate::index::LibraryIndex;
use crate::library::{
    AnalyzedText, Catalog, DocumentError, LibraryError, analyze_text, parse_lang,
};
use crate::signature::seed_signature;

/// What a portal asks.
#[derive(Debug, Clone)]
pub struct CheckRequest {
    pub text: String,
    /// Libraries to check against; `None` means all.
    pub libraries: Option<Vec<String>>,
    pub passages: bool,
    /// Matches whose best similarity is below this are not returned.
    pub min_similarity: f64,
    pub lang: Option<String>,
}

impl CheckRequest {
    /// A request for `text` against every library, with the defaults.
    pub fn new(text: impl Into<String>) -> Self {
        CheckRequest {
            text: text.into(),
            libraries: None,
            passages: false,
            min_similarity: 0.0,
            lang: None,
        }
    }
}

/// Why a check could not run.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error(transparent)]
    Text(#[from] DocumentError),
    #[error(transparent)]
    Library(#[from] LibraryError),
    #[error("min_similarity must be between 0 and 1, not {0}")]
    InvalidSimilarity(f64),
    #[error("`libraries` is empty; leave it out to check against every library")]
    NoLibraries,
}

/// The overall or per-match verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Original,
    Partial,
    Duplicate,
}

/// How a match was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// The same analyzed text (content hash).
    Exact,
    /// The same seed TF-RIDF signature.
    Signature,
}

/// One matching document.
#[derive(Debug, Clone, Serialize)]
pub struct MatchReport {
    pub library: String,
    pub doc_id: String,
    pub url: Option<String>,
    pub title: Option<String>,
    pub methods: Vec<Method>,
    pub verdict: Verdict,
    pub resemblance: f64,
    pub containment_query: f64,
    pub containment_doc: f64,
}

/// The answer to a check.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    pub verdict: Verdict,
    /// The seed signature of the text against the first library checked.
    pub signature: Option<u32>,
    pub matches: Vec<MatchReport>,
    pub took_ms: f64,
}

/// Checks a text against the requested libraries.
pub fn check(catalog: &Catalog, request: &CheckRequest) -> Result<CheckReport, CheckError> {
    let started = Instant::now();
    if !(0.0..=1.0).contains(&request.min_similarity) {
        return Err(CheckError::InvalidSimilarity(request.min_similarity));
    }
    let ids = match &request.libraries {
        Some(ids) if ids.is_empty() => return Err(CheckError::NoLibraries),
        Some(ids) => ids.clone(),
        None => catalog.ids(),
    };
    let libraries = ids
        .iter()
        .map(|id| catalog.index(id).map(|index| (id.as_str(), index)))
        .collect::<Result<Vec<_>, _>>()?;
    let lang = parse_lang(request.lang.as_deref())?;
    let query = analyze_text(
        catalog.analyzer(),
        &catalog.config().limits,
        &request.text,
        lang,
    )?;
    let limit = catalog.config().check.max_candidates;

    let mut signature = None;
    let mut matches = Vec::new();
    for (i, (id, index)) in libraries.iter().enumerate() {
        let found = check_library(id, index, &query, limit)?;
        if i == 0 {
            signature = found.signature;
        }
        matches.extend(found.matches);
    }
    matches.retain(|m| best(m) >= request.min_similarity);
    matches.sort_by(|a, b| {
        best(b)
            .total_cmp(&best(a))
            .then_with(|| a.doc_id.cmp(&b.doc_id))
    });
    let verdict = matches
        .iter()
        .map(|m| m.verdict)
        .max()
        .unwrap_or(Verdict::Original);
    Ok(CheckReport {
        verdict,
        signature,
        matches,
        took_ms: started.elapsed().as_secs_f64() * 1000.0,
    })
}

fn best(m: &MatchReport) -> f64 {
    m.resemblance
        .max(m.containment_query)
        .max(m.containment_doc)
}

struct LibraryMatches {
    signature: Option<u32>,
    matches: Vec<MatchReport>,
}

fn check_library(
    id: &str,
    index: &LibraryIndex,
    query: &AnalyzedText,
    limit: usize,
) -> Result<LibraryMatches, CheckError> {
    let signatures = index.signatures();
    let signature = seed_signature(&query.term_counts, signatures.snapshot());
    let searcher = index.searcher();
    let mut candidates: BTreeMap<String, Vec<Method>> = BTreeMap::new();
    for address in index
        .with_content_hash(query.content_hash, limit)
        .map_err(LibraryError::from)?
    {
        let doc = index
            .stored(&searcher, address)
            .map_err(LibraryError::from)?;
        candidates
            .entry(doc.doc_id)
            .or_default()
            .push(Method::Exact);
    }
    if let Some(seed) = signature {
        for doc_id in signatures
            .with_seed(seed, limit)
            .map_err(LibraryError::from)?
        {
            candidates
                .entry(doc_id)
                .or_default()
                .push(Method::Signature);
        }
    }
    let mut matches = Vec::with_capacity(candidates.len());
    for (doc_id, methods) in candidates {
        let Some(address) = index
            .address(&searcher, &doc_id)
            .map_err(LibraryError::from)?
        else {
            continue; // Replaced or deleted since the signatures were read.
        };
        let (doc, counts) = index
            .stored_with_counts(&searcher, address)
            .map_err(LibraryError::from)?;
        let similarity: Similarity = bag_similarity(&query.term_counts, &counts);
        matches.push(MatchReport {
            library: id.to_string(),
            doc_id,
            url: doc.url,
            title: doc.title,
            methods,
            verdict: Verdict::Duplicate,
            resemblance: round(similarity.resemblance),
            containment_query: round(similarity.containment_query),
            containment_doc: round(similarity.containment_doc),
        });
    }
    Ok(LibraryMatches { signature, matches })
}

fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}
