//! Candidate gathering in one library: the content hash, the seed and robust signatures and the
//! selected shingles of the query, each looked up through one [`ReadView`].

use std::collections::{BTreeSet, HashMap, HashSet};

use super::Method;
use crate::CheckConfig;
use dupfinder_signature::{robust_signatures_of, seed_signature_of, top_terms, weigh_terms};
use dupfinder_storage::ReadView;
use dupfinder_storage::index::{DocKey, IndexError, ShingleHits, ShingleQuery};
use dupfinder_text::analysis::{AnalyzedText, ShingleSelection};

/// One candidate document and how it was found.
#[derive(Debug, Default)]
pub(super) struct Candidate {
    pub(super) methods: BTreeSet<Method>,
    pub(super) hits: Option<ShingleHits>,
}

impl Candidate {
    /// Found by its content hash or a signature, not by shingles alone.
    pub(super) fn signed(&self) -> bool {
        self.methods
            .iter()
            .any(|m| matches!(m, Method::Exact | Method::Signature | Method::Robust))
    }
}

/// The candidates of one library, before verification.
pub(super) struct Gathered {
    /// The query's seed signature against the view's snapshot.
    pub(super) signature: Option<u32>,
    pub(super) candidates: HashMap<DocKey, Candidate>,
    /// The library's shingle selection; the distinct query shingles it would index and those
    /// it looks up (a superset), sorted.
    pub(super) selection: ShingleSelection,
    pub(super) selected: Vec<u64>,
    pub(super) looked_up: Vec<u64>,
    /// Distinct selected query shingles that were looked up.
    pub(super) usable: usize,
    /// Sampled query shingles ignored as library boilerplate.
    pub(super) frequent: HashSet<u64>,
    /// How many library documents hold each sampled query shingle.
    pub(super) doc_freq: HashMap<u64, u64>,
}

/// The query's seed signature against `view`'s statistics, without looking anything up.
pub(super) fn query_signature(
    view: &dyn ReadView,
    query: &AnalyzedText,
) -> Result<Option<u32>, IndexError> {
    let snapshot = view.statistics(&query.term_counts)?;
    Ok(seed_signature_of(&top_terms(
        weigh_terms(&query.term_counts, &snapshot),
        dupfinder_signature::SEED_TERMS,
    )))
}

/// Every candidate for `query` in `view`. With `all_methods`, every lookup runs even where an
/// earlier one already settles the check (evaluation).
pub(super) fn gather(
    view: &dyn ReadView,
    query: &AnalyzedText,
    config: &CheckConfig,
    all_methods: bool,
) -> Result<Gathered, IndexError> {
    #[cfg(test)]
    super::engine::tests::between_lookups();
    let limit = config.max_candidates;
    // The statistics of the query's terms (a backend may lend all it has).
    let snapshot = view.statistics(&query.term_counts)?;
    // Weighed once: the seed signature and the robust ones take their terms from this order.
    let ordered = top_terms(weigh_terms(&query.term_counts, &snapshot), usize::MAX);
    let signature = seed_signature_of(&ordered);
    let mut candidates: HashMap<DocKey, Candidate> = HashMap::new();
    let mut add = |keys: Vec<DocKey>, method: Method| {
        for key in keys {
            candidates.entry(key).or_default().methods.insert(method);
        }
    };

    let exact_copies = view.with_content_hash(query.content_hash, limit)?;
    let found_exact = !exact_copies.is_empty();
    add(exact_copies, Method::Exact);
    if let Some(seed) = signature {
        add(view.with_seed(seed, limit)?, Method::Signature);
    }
    // An exact copy is its own best evidence, and its near-duplicates share its shingles;
    // robust signatures add recall only for edited texts.
    if !found_exact || all_methods {
        let robust = robust_signatures_of(&ordered, view.scheme());
        for keys in view.with_robust_each(&robust, limit)? {
            add(keys, Method::Robust);
        }
    }
    let max_df = config
        .frequent_shingle_docs
        .max((snapshot.docs() as f64 * config.frequent_shingle_share) as u64);
    let selection = view.shingle_selection();
    let looked_up = selection.lookups(&query.shingles);
    let search = view.shingle_search(&ShingleQuery {
        shingles: &looked_up,
        max_df,
        min_hits: config.min_shingle_hits,
        limit,
    })?;
    for (key, hits) in search.hits {
        let candidate = candidates.entry(key).or_default();
        candidate.methods.insert(Method::Shingles);
        candidate.hits = Some(hits);
    }
    Ok(Gathered {
        signature,
        candidates,
        selection,
        selected: selection.select(&query.shingles),
        looked_up,
        usable: search.usable,
        frequent: search.frequent,
        doc_freq: search.doc_freq,
    })
}
