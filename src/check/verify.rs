//! Verification of one candidate: its stored shingles and bag of words compared with the
//! query's ([`Scores`]), the verdict ([`decide`]), and its copied passages on request.

use std::collections::HashSet;
use std::ops::Range;

use super::decide::{Scores, decide, may_match, worth_reading};
use super::gather::Candidate;
use super::passages::{Chain, Side, chains, passages};
use super::report::{ratio, round};
use super::similarity::{bag_similarity, sorted_intersection};
use super::{MatchReport, Method, PassageMatch};
use crate::analysis::{AnalyzedText, Analyzer, Language};
use crate::config::CheckConfig;
use crate::index::{DocKey, IndexError, LibraryView, StoredDocument};

/// A verified match and the query tokens its passages cover.
pub(super) type Verified = (MatchReport, Vec<Range<usize>>);

/// What verification compares a candidate with: the query and what the library ignores.
pub(super) struct Query<'a> {
    pub(super) analyzed: &'a AnalyzedText,
    pub(super) text: &'a str,
    /// The query's distinct shingles, library boilerplate left out, sorted.
    pub(super) distinct: Vec<u64>,
    /// Sampled query shingles ignored as library boilerplate.
    pub(super) frequent: &'a HashSet<u64>,
    /// Distinct sampled query shingles that were looked up.
    pub(super) sampled: usize,
}

/// Scores one candidate and decides its verdict; `None` when it is not a match (or no longer
/// live in the view).
pub(super) fn verify(
    view: &LibraryView<'_>,
    library: &str,
    key: DocKey,
    candidate: Candidate,
    query: &Query<'_>,
    config: &CheckConfig,
    analyzer: Option<&Analyzer>,
) -> Result<Option<Verified>, IndexError> {
    let sampled_hits = candidate.hits.as_ref().map_or(0, |h| h.distinct);
    if !worth_reading(candidate.signed(), sampled_hits, query.sampled, config) {
        return Ok(None);
    }
    let Some(stored) = view.stored_for_check(key)? else {
        return Ok(None);
    };
    let exact = candidate.methods.contains(&Method::Exact);
    let (mut scores, chains) = shingle_scores(query, &stored.shingles, exact, config);
    if !may_match(&scores, config) {
        return Ok(None);
    }
    let counts = stored
        .term_counts()
        .ok_or_else(|| IndexError::CorruptDocument {
            doc_id: stored.document.meta.doc_id.clone(),
            reason: "undecodable term counts".to_string(),
        })?;
    let word_similarity = bag_similarity(&query.analyzed.term_counts, &counts).resemblance;
    scores.word_similarity = Some(word_similarity);
    let Some(verdict) = decide(&scores, config) else {
        return Ok(None);
    };
    let document = stored.document;
    let ranges: Vec<Range<usize>> = chains.iter().map(Chain::query_tokens).collect();
    let passages = analyzer.map(|analyzer| locate(analyzer, query, &document, &chains));
    let tokens = query.analyzed.tokens.len();
    let report = MatchReport {
        library: library.to_string(),
        doc_id: document.meta.doc_id,
        url: document.meta.url,
        title: document.meta.title,
        methods: candidate.methods.into_iter().collect(),
        verdict,
        resemblance: round(scores.resemblance),
        containment_query: round(scores.containment_query),
        containment_doc: round(scores.containment_doc),
        word_similarity: round(word_similarity),
        coverage: round(ratio(covered(&ranges, tokens), tokens)),
        passages,
    };
    Ok(Some((report, ranges)))
}

/// The candidate compared with the query on all its shingles, not only the indexed sample
/// (the index keeps each document's shingle sequence for this): the shingle scores and the
/// chains of shared shingles that make its passages.
fn shingle_scores(
    query: &Query<'_>,
    doc_shingles: &[u64],
    exact: bool,
    config: &CheckConfig,
) -> (Scores, Vec<Chain>) {
    let doc_set = distinct_without(doc_shingles, query.frequent);
    let shared = sorted_intersection(&query.distinct, &doc_set);
    let chains = chains(
        &query.analyzed.shingles,
        doc_shingles,
        query.frequent,
        config.passage_gap as usize,
        config.passage_min_shingles as usize,
    );
    let scores = Scores {
        exact,
        resemblance: ratio(shared, query.distinct.len() + doc_set.len() - shared),
        containment_query: ratio(shared, query.distinct.len()),
        containment_doc: ratio(shared, doc_set.len()),
        shared,
        doc_shingles: doc_set.len(),
        longest_passage: chains.iter().map(|c| c.matched).max().unwrap_or(0),
        word_similarity: None,
    };
    (scores, chains)
}

/// The chains as passages with code point offsets in both texts: the document is analyzed
/// again for its tokens' offsets, which only passages need.
fn locate(
    analyzer: &Analyzer,
    query: &Query<'_>,
    document: &StoredDocument,
    chains: &[Chain],
) -> Vec<PassageMatch> {
    let doc_tokens = analyzer
        .analyze(&document.text, Language::from_code(&document.meta.lang))
        .tokens;
    let query_side = Side {
        text: query.text,
        tokens: &query.analyzed.tokens,
    };
    let doc_side = Side {
        text: &document.text,
        tokens: &doc_tokens,
    };
    passages(chains, &query_side, &doc_side)
}

/// The distinct shingles of `shingles` not in `frequent`, sorted.
pub(super) fn distinct_without(shingles: &[u64], frequent: &HashSet<u64>) -> Vec<u64> {
    let mut distinct: Vec<u64> = shingles
        .iter()
        .copied()
        .filter(|h| !frequent.contains(h))
        .collect();
    distinct.sort_unstable();
    distinct.dedup();
    distinct
}

/// How many of `total` tokens the ranges cover.
pub(super) fn covered(ranges: &[Range<usize>], total: usize) -> usize {
    let mut covered = vec![false; total];
    for range in ranges {
        for flag in &mut covered[range.start.min(total)..range.end.min(total)] {
            *flag = true;
        }
    }
    covered.iter().filter(|c| **c).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_and_covered_count_each_once() {
        assert_eq!(sorted_intersection(&[1, 3, 5, 7], &[2, 3, 7, 9]), 2);
        assert_eq!(sorted_intersection(&[], &[1]), 0);
        assert_eq!(covered(&[0..3, 2..5, 9..20], 10), 6);
        let frequent = HashSet::from([4]);
        assert_eq!(distinct_without(&[5, 4, 1, 5, 2], &frequent), [1, 2, 5]);
    }
}
