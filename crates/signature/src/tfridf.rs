//! TF-RIDF weights and the seed signature, exactly as the seed papers define them:
//!
//! - `TF(t) = 0.5 + 0.5 · tf(t) / tf_max`
//! - `IDF(t) = −ln(df / N)`, `P_IDF(t) = −ln(1 − exp(−cf / N))`, `RIDF = IDF − P_IDF`
//! - `w(t) = TF(t) · RIDF(t)`; the 6 terms of highest weight (ties broken by the term), sorted
//!   alphabetically and concatenated with no separator, CRC32 → the signature.
//!
//! A term absent from the snapshot counts as `df = 1, cf = tf`, as if the document being signed
//! had been added to the library.

use super::StatsSnapshot;

/// How many terms make the seed signature.
pub const SEED_TERMS: usize = 6;

/// Residual IDF of a term: how much more concentrated the term is than a Poisson distribution
/// with the same mean would be. `n` is clamped to at least 1 so an empty library still yields
/// finite (if uninformative) weights.
pub fn ridf(df: f64, cf: f64, n: f64) -> f64 {
    let n = n.max(1.0);
    let idf = -(df / n).ln();
    let p_idf = -(1.0 - (-cf / n).exp()).ln();
    idf - p_idf
}

/// A document term with its TF-RIDF weight.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WeightedTerm<'a> {
    pub term: &'a str,
    pub weight: f64,
}

/// Weighs every term of a document. `counts` holds each distinct term once with its count in the
/// document.
pub fn weigh_terms<'a>(
    counts: &'a [(String, u32)],
    snapshot: &StatsSnapshot,
) -> Vec<WeightedTerm<'a>> {
    let tf_max = counts.iter().map(|(_, c)| *c).max().unwrap_or(0);
    if tf_max == 0 {
        return Vec::new();
    }
    let n = snapshot.docs() as f64;
    counts
        .iter()
        .map(|(term, tf)| {
            let (df, cf) = match snapshot.get(term) {
                Some(stats) => (f64::from(stats.df.max(1)), stats.cf.max(1) as f64),
                None => (1.0, f64::from(*tf)),
            };
            let tf_weight = 0.5 + 0.5 * f64::from(*tf) / f64::from(tf_max);
            WeightedTerm {
                term,
                weight: tf_weight * ridf(df, cf, n),
            }
        })
        .collect()
}

/// The `k` terms of highest weight, heaviest first; equal weights are ordered by the term so the
/// choice is deterministic.
pub fn top_terms<'a>(mut weighted: Vec<WeightedTerm<'a>>, k: usize) -> Vec<WeightedTerm<'a>> {
    let by_weight = |a: &WeightedTerm<'_>, b: &WeightedTerm<'_>| {
        b.weight
            .total_cmp(&a.weight)
            .then_with(|| a.term.cmp(b.term))
    };
    if weighted.len() > k && k > 0 {
        weighted.select_nth_unstable_by(k, by_weight);
        weighted.truncate(k);
    }
    weighted.sort_by(by_weight);
    weighted
}

/// The seed signature's terms: the top [`SEED_TERMS`] by weight, in alphabetical order.
pub fn seed_terms<'a>(counts: &'a [(String, u32)], snapshot: &StatsSnapshot) -> Vec<&'a str> {
    let mut terms: Vec<&str> = top_terms(weigh_terms(counts, snapshot), SEED_TERMS)
        .into_iter()
        .map(|w| w.term)
        .collect();
    terms.sort_unstable();
    terms
}

/// The seed TF-RIDF signature of a document, or `None` for a document with no terms.
pub fn seed_signature(counts: &[(String, u32)], snapshot: &StatsSnapshot) -> Option<u32> {
    seed_signature_of(&top_terms(weigh_terms(counts, snapshot), SEED_TERMS))
}

/// The seed signature from a document's weighted terms already ordered by [`top_terms`] (at
/// least its [`SEED_TERMS`] heaviest), so that callers computing more than one signature weigh
/// the terms once.
pub fn seed_signature_of(ordered: &[WeightedTerm<'_>]) -> Option<u32> {
    let mut terms: Vec<&str> = ordered.iter().take(SEED_TERMS).map(|w| w.term).collect();
    if terms.is_empty() {
        return None;
    }
    terms.sort_unstable();
    let mut hasher = crc32fast::Hasher::new();
    for term in terms {
        hasher.update(term.as_bytes());
    }
    Some(hasher.finalize())
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::fixture::{close, library};

    fn counts(pairs: &[(&str, u32)]) -> Vec<(String, u32)> {
        let mut v: Vec<(String, u32)> = pairs.iter().map(|(t, c)| (t.to_string(), *c)).collect();
        v.sort();
        v
    }

    #[test]
    fn ridf_matches_hand_computation() {
        // apple: IDF = -ln(1/4) = 1.3862944; P_IDF = -ln(1 - e^(-2/4)) = -ln(0.3934693) = 0.9327521
        assert!(close(ridf(1.0, 2.0, 4.0), 1.386_294_4 - 0.932_752_1));
        // cherry: IDF = -ln(3/4) = 0.2876821; P_IDF = -ln(1 - e^(-1)) = -ln(0.6321206) = 0.4586751
        assert!(close(ridf(3.0, 4.0, 4.0), 0.287_682_1 - 0.458_675_1));
        // elder: IDF = 1.3862944; P_IDF = -ln(1 - e^(-1/4)) = -ln(0.2211992) = 1.5086916
        assert!(close(ridf(1.0, 1.0, 4.0), 1.386_294_4 - 1.508_691_6));
    }

    #[test]
    fn weights_and_signature_match_hand_computation() {
        let snapshot = library();
        // d1: tf apple 2, banana 1, cherry 1; tf_max = 2.
        let d1 = counts(&[("apple", 2), ("banana", 1), ("cherry", 1)]);
        let weights: HashMap<&str, f64> = weigh_terms(&d1, &snapshot)
            .into_iter()
            .map(|w| (w.term, w.weight))
            .collect();
        // apple: TF = 0.5 + 0.5·2/2 = 1.0; RIDF = 0.4535423 → w = 0.4535423
        assert!(close(weights["apple"], 0.453_542_3));
        // banana: TF = 0.75; IDF = ln 2 = 0.6931472; P_IDF = -ln(1 - e^(-0.5)) = 0.9327521;
        // RIDF = -0.2396049 → w = -0.1797037
        assert!(close(weights["banana"], -0.179_703_7));
        // cherry: TF = 0.75; RIDF = 0.2876821 - 0.4586751 = -0.1709930 → w = -0.1282448
        assert!(close(weights["cherry"], -0.128_244_8));

        // Fewer than six terms: all of them, alphabetically.
        assert_eq!(
            seed_terms(&d1, &snapshot),
            vec!["apple", "banana", "cherry"]
        );
        assert_eq!(
            seed_signature(&d1, &snapshot),
            Some(crc32fast::hash(b"applebananacherry"))
        );
    }

    #[test]
    fn top_six_with_ties_broken_by_term() {
        let snapshot = library();
        // Every term once: TF = 1 for all. RIDF: apple 0.4535423, elder/fig/grape -0.1223972,
        // cherry -0.1709931, banana and date -0.2396049 (tied). Six of the seven are taken; the
        // tie for the sixth place is broken by the term, so "banana" stays and "date" goes.
        let doc = counts(&[
            ("apple", 1),
            ("banana", 1),
            ("cherry", 1),
            ("date", 1),
            ("elder", 1),
            ("fig", 1),
            ("grape", 1),
        ]);
        assert_eq!(
            seed_terms(&doc, &snapshot),
            vec!["apple", "banana", "cherry", "elder", "fig", "grape"]
        );
        assert_eq!(
            seed_signature(&doc, &snapshot),
            Some(crc32fast::hash(b"applebananacherryelderfiggrape"))
        );
    }

    #[test]
    fn absent_term_counts_as_df_one_cf_tf() {
        let snapshot = library();
        // "kiwi" is not in the library: df = 1, cf = tf = 2, so with TF = 1 its weight is
        // RIDF(1, 2, 4) = 0.4535423, the same as apple's.
        let doc = counts(&[("kiwi", 2), ("apple", 2)]);
        let weights = weigh_terms(&doc, &snapshot);
        assert!(close(weights[0].weight, 0.453_542_3));
        assert!(close(weights[1].weight, 0.453_542_3));
    }

    #[test]
    fn empty_document_has_no_signature() {
        assert_eq!(seed_signature(&[], &library()), None);
    }
}
