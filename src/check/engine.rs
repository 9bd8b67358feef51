//! Running a check across libraries: candidates from the content hash, the seed and robust
//! signatures and the shingle search; every candidate verified and given a verdict; passages on
//! request.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ops::Range;
use std::time::Instant;

use serde::Serialize;
use tantivy::{DocAddress, Searcher};

use super::passages::{Chain, PassageMatch, Side, chains, passages};
use super::similarity::bag_similarity;
use crate::analysis::{Analyzer, Language};
use crate::config::CheckConfig;
use crate::index::{LibraryIndex, ShingleHits};
use crate::library::{
    AnalyzedText, Catalog, DocumentError, LibraryError, analyze_text, parse_lang,
};
use crate::signature::{robust_signatures_of, seed_signature_of, top_terms, weigh_terms};

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

impl From<crate::index::IndexError> for CheckError {
    fn from(e: crate::index::IndexError) -> Self {
        CheckError::Library(e.into())
    }
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// The same analyzed text (content hash).
    Exact,
    /// The same seed TF-RIDF signature.
    Signature,
    /// A shared robust signature variant.
    Robust,
    /// Shared word shingles.
    Shingles,
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
    /// Jaccard coefficient of the two texts' shingle sets.
    pub resemblance: f64,
    /// Share of the query's shingles found in the document.
    pub containment_query: f64,
    /// Share of the document's shingles found in the query.
    pub containment_doc: f64,
    /// Weighted Jaccard coefficient of the two bags of words: robust to word-level edits.
    pub word_similarity: f64,
    /// Share of the query's words inside passages shared with this document.
    pub coverage: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub passages: Option<Vec<PassageMatch>>,
}

impl MatchReport {
    /// The figure `min_similarity` is compared with.
    pub fn similarity(&self) -> f64 {
        self.resemblance
            .max(self.containment_query)
            .max(self.containment_doc)
    }
}

/// The answer to a check.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    pub verdict: Verdict,
    /// The seed signature of the text against the first library checked.
    pub signature: Option<u32>,
    /// Share of the query's words inside passages shared with any match.
    pub query_coverage: f64,
    pub matches: Vec<MatchReport>,
    /// The statistics generation each library was checked against: one per library, as a
    /// check reads one generation from start to end even while a re-index switches.
    pub generations: BTreeMap<String, u64>,
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

    let mut signature = None;
    let mut generations = BTreeMap::new();
    let mut matches = Vec::new();
    let mut copied: Vec<Range<usize>> = Vec::new();
    for (i, (id, index)) in libraries.iter().enumerate() {
        let context = Context {
            library: id,
            index,
            analyzer: catalog.analyzer(),
            config: &catalog.config().check,
            query: &query,
            query_text: &request.text,
            passages: request.passages,
            all_methods: false,
        };
        let found = context.run()?;
        if i == 0 {
            signature = found.signature;
        }
        generations.insert(id.to_string(), found.generation);
        for (report, ranges) in found.matches {
            if report.similarity() >= request.min_similarity {
                copied.extend(ranges);
                matches.push(report);
            }
        }
    }
    matches.sort_by(|a, b| {
        b.verdict
            .cmp(&a.verdict)
            .then(b.similarity().total_cmp(&a.similarity()))
            .then(b.word_similarity.total_cmp(&a.word_similarity))
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
        query_coverage: round(ratio(
            covered(&copied, query.tokens.len()),
            query.tokens.len(),
        )),
        matches,
        generations,
        took_ms: started.elapsed().as_secs_f64() * 1000.0,
    })
}

/// The unverified candidates each method finds for a text in one library: what the methods
/// would answer on their own, for evaluation.
pub fn raw_candidates(
    catalog: &Catalog,
    library: &str,
    text: &str,
) -> Result<HashMap<Method, Vec<String>>, CheckError> {
    let index = catalog.index(library)?;
    let query = analyze_text(catalog.analyzer(), &catalog.config().limits, text, None)?;
    let context = Context {
        library,
        index: &index,
        analyzer: catalog.analyzer(),
        config: &catalog.config().check,
        query: &query,
        query_text: text,
        passages: false,
        all_methods: true,
    };
    let gathered = context.gather()?;
    let mut by_method: HashMap<Method, Vec<String>> = HashMap::new();
    for (address, candidate) in gathered.candidates {
        let doc_id = index.stored(&gathered.searcher, address)?.doc_id;
        for method in candidate.methods {
            by_method.entry(method).or_default().push(doc_id.clone());
        }
    }
    Ok(by_method)
}

/// A verified match and the query tokens its passages cover.
type Verified = (MatchReport, Vec<Range<usize>>);

struct LibraryMatches {
    signature: Option<u32>,
    generation: u64,
    matches: Vec<Verified>,
}

/// One library's part of a check.
struct Context<'a> {
    library: &'a str,
    index: &'a LibraryIndex,
    analyzer: &'a Analyzer,
    config: &'a CheckConfig,
    query: &'a AnalyzedText,
    query_text: &'a str,
    passages: bool,
    /// Run every lookup even where an earlier one already settles the check (evaluation).
    all_methods: bool,
}

#[derive(Default)]
struct Candidate {
    methods: BTreeSet<Method>,
    hits: Option<ShingleHits>,
}

/// The candidates of one library, before verification.
struct Gathered {
    signature: Option<u32>,
    generation: u64,
    searcher: Searcher,
    candidates: HashMap<DocAddress, Candidate>,
    /// Distinct sampled query shingles that were looked up.
    usable: usize,
    /// Sampled query shingles ignored as library boilerplate.
    frequent: HashSet<u64>,
}

impl Context<'_> {
    fn run(&self) -> Result<LibraryMatches, CheckError> {
        let gathered = self.gather()?;
        let query_set = distinct_without(&self.query.shingles, &gathered.frequent);
        let mut matches = Vec::new();
        for (address, candidate) in gathered.candidates {
            let found = self.verify(
                &gathered.searcher,
                address,
                candidate,
                &query_set,
                &gathered.frequent,
                gathered.usable,
            )?;
            matches.extend(found);
        }
        Ok(LibraryMatches {
            signature: gathered.signature,
            generation: gathered.generation,
            matches,
        })
    }

    /// Every candidate: the content hash, the seed and robust signatures, the shingle search.
    fn gather(&self) -> Result<Gathered, CheckError> {
        let limit = self.config.max_candidates;
        let signatures = self.index.signatures();
        let snapshot = signatures.snapshot();
        // Weighed once: the seed signature and the robust ones take their terms from this order.
        let ordered = top_terms(weigh_terms(&self.query.term_counts, snapshot), usize::MAX);
        let signature = seed_signature_of(&ordered);
        let searcher = self.index.searcher();
        let mut candidates: HashMap<DocAddress, Candidate> = HashMap::new();

        let exact_copies = self
            .index
            .with_content_hash(self.query.content_hash, limit)?;
        let found_exact = !exact_copies.is_empty();
        for address in exact_copies {
            candidates
                .entry(address)
                .or_default()
                .methods
                .insert(Method::Exact);
        }
        let mut by_key = |keys: Vec<u64>, method: Method| -> Result<(), CheckError> {
            for key in keys {
                if let Some(address) = self.index.address_by_key(&searcher, key)? {
                    candidates
                        .entry(address)
                        .or_default()
                        .methods
                        .insert(method);
                }
            }
            Ok(())
        };
        if let Some(seed) = signature {
            by_key(signatures.with_seed(seed, limit)?, Method::Signature)?;
        }
        // An exact copy is its own best evidence, and its near-duplicates share its shingles;
        // robust signatures add recall only for edited texts.
        if !found_exact || self.all_methods {
            for robust in robust_signatures_of(&ordered, signatures.scheme()) {
                by_key(signatures.with_robust(robust, limit)?, Method::Robust)?;
            }
        }
        let max_df = self
            .config
            .frequent_shingle_docs
            .max((snapshot.docs() as f64 * self.config.frequent_shingle_share) as u64);
        let search = self.index.shingle_search(
            &searcher,
            &self.query.shingles,
            max_df,
            self.config.min_shingle_hits,
            limit,
        )?;
        for (address, hits) in search.hits {
            let candidate = candidates.entry(address).or_default();
            candidate.methods.insert(Method::Shingles);
            candidate.hits = Some(hits);
        }
        Ok(Gathered {
            signature,
            generation: signatures.generation(),
            searcher,
            candidates,
            usable: search.usable,
            frequent: search.frequent,
        })
    }

    /// Scores one candidate and decides its verdict; `None` when it is not a match.
    fn verify(
        &self,
        searcher: &Searcher,
        address: DocAddress,
        candidate: Candidate,
        query_set: &[u64],
        frequent: &HashSet<u64>,
        sampled: usize,
    ) -> Result<Option<Verified>, CheckError> {
        let config = self.config;
        let exact = candidate.methods.contains(&Method::Exact);
        let signed = exact
            || candidate.methods.contains(&Method::Signature)
            || candidate.methods.contains(&Method::Robust);
        // Cheap first look: a document found only by a couple of sampled shingles, a small share
        // of the query's, cannot reach any verdict; skip reading and analyzing it.
        let sampled_hits = candidate.hits.as_ref().map_or(0, |h| h.distinct);
        if !signed
            && sampled_hits <= 2
            && ratio(sampled_hits as usize, sampled.max(1)) < config.partial_containment
        {
            return Ok(None);
        }
        let stored = self.index.stored_for_check(searcher, address)?;

        // The candidate is compared on all its shingles, not only the indexed sample: the index
        // keeps each document's shingle sequence for this.
        let doc_shingles = &stored.shingles;
        let doc_set = distinct_without(doc_shingles, frequent);
        let shared = shared_count(query_set, &doc_set);
        let resemblance = ratio(shared, query_set.len() + doc_set.len() - shared);
        let containment_query = ratio(shared, query_set.len());
        let containment_doc = ratio(shared, doc_set.len());
        let chains = chains(
            &self.query.shingles,
            doc_shingles,
            frequent,
            config.passage_gap as usize,
            config.passage_min_shingles as usize,
        );
        let longest = chains.iter().map(|c| c.matched).max().unwrap_or(0);

        let shingle_duplicate = resemblance >= config.duplicate_resemblance
            || containment_query >= config.duplicate_containment
            || (containment_doc >= config.duplicate_containment && doc_set.len() >= 10);
        let partial = longest >= config.partial_min_shingles as usize
            || (containment_query >= config.partial_containment
                && shared >= config.partial_min_shared as usize);
        // The bag of words decides only where shingles already show shared text: alone it
        // cannot tell a reworded copy from a paper on the same topic.
        let words_decide = containment_query.max(containment_doc) >= config.word_check_containment;
        if !(exact || shingle_duplicate || partial || words_decide) {
            return Ok(None);
        }
        let counts =
            stored
                .term_counts()
                .ok_or_else(|| crate::index::IndexError::CorruptDocument {
                    doc_id: stored.document.doc_id.clone(),
                    reason: "undecodable term counts".to_string(),
                })?;
        let word_similarity = bag_similarity(&self.query.term_counts, &counts).resemblance;
        let word_duplicate = words_decide && word_similarity >= config.duplicate_word_similarity;
        let document = stored.document;
        let verdict = if exact || shingle_duplicate || word_duplicate {
            Verdict::Duplicate
        } else if partial {
            Verdict::Partial
        } else {
            return Ok(None);
        };
        let ranges: Vec<Range<usize>> = chains.iter().map(Chain::query_tokens).collect();
        // Offsets need the document's tokens: analyzed again only when passages are asked for.
        let passages = if self.passages {
            let doc_tokens = self
                .analyzer
                .analyze(&document.text, Language::from_code(&document.lang))
                .tokens;
            let query_side = Side {
                text: self.query_text,
                tokens: &self.query.tokens,
            };
            let doc_side = Side {
                text: &document.text,
                tokens: &doc_tokens,
            };
            Some(passages(&chains, &query_side, &doc_side))
        } else {
            None
        };
        let coverage = ratio(
            covered(&ranges, self.query.tokens.len()),
            self.query.tokens.len(),
        );
        let report = MatchReport {
            library: self.library.to_string(),
            doc_id: document.doc_id,
            url: document.url,
            title: document.title,
            methods: candidate.methods.into_iter().collect(),
            verdict,
            resemblance: round(resemblance),
            containment_query: round(containment_query),
            containment_doc: round(containment_doc),
            word_similarity: round(word_similarity),
            coverage: round(coverage),
            passages,
        };
        Ok(Some((report, ranges)))
    }
}

/// The distinct shingles of `shingles` not in `frequent`, sorted.
fn distinct_without(shingles: &[u64], frequent: &HashSet<u64>) -> Vec<u64> {
    let mut distinct: Vec<u64> = shingles
        .iter()
        .copied()
        .filter(|h| !frequent.contains(h))
        .collect();
    distinct.sort_unstable();
    distinct.dedup();
    distinct
}

/// How many values two sorted, deduplicated lists share.
fn shared_count(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut shared) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    shared
}

/// How many of `total` tokens the ranges cover.
fn covered(ranges: &[Range<usize>], total: usize) -> usize {
    let mut covered = vec![false; total];
    for range in ranges {
        for flag in &mut covered[range.start.min(total)..range.end.min(total)] {
            *flag = true;
        }
    }
    covered.iter().filter(|c| **c).count()
}

fn ratio(a: usize, b: usize) -> f64 {
    ratio_f(a as f64, b as f64)
}

fn ratio_f(a: f64, b: f64) -> f64 {
    if b <= 0.0 { 0.0 } else { (a / b).min(1.0) }
}

fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}
