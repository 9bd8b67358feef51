//! A11 "decomposition" (§6.1): documents sharing a (sampled) shingle form a chain ordered by
//! length; chains are cut where neighbouring lengths differ by more than the similarity allows,
//! and only documents within that length ratio of each other are compared, directly. Repeated
//! comparisons across chains are skipped by remembering the pairs compared (the paper's hash of
//! processed pairs; it also drops chains contained in others, which only saves the same work).

use serde::Serialize;

use super::pairs::chained_pairs;
use super::{FoundPairs, MethodDoc, MethodSettings};
use dupfinder_text::analysis::shingle_hash;

/// What A11 keeps of a document: its length in terms and its distinct sampled shingles.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DecompositionRecord {
    pub len: u32,
    pub shingles: Vec<u64>,
}

/// The record of `doc`: shingles of [`MethodSettings::shingle_len`] terms whose hash is a
/// multiple of [`MethodSettings::sampling`].
pub fn decomposition_record(doc: &MethodDoc, settings: &MethodSettings) -> DecompositionRecord {
    let mut shingles: Vec<u64> = doc
        .terms
        .windows(settings.shingle_len)
        .map(|w| shingle_hash(w.iter().map(String::as_str)))
        .filter(|h| h.is_multiple_of(settings.sampling.max(1)))
        .collect();
    shingles.sort_unstable();
    shingles.dedup();
    DecompositionRecord {
        len: doc.terms.len() as u32,
        shingles,
    }
}

/// The pairs A11 finds: neighbours in a chain (lengths within [`MethodSettings::length_ratio`])
/// for which `compare` holds. The paper compares with Perl's `String::Similarity`; the caller
/// passes the comparison (the evaluation passes its reference similarity). A chain piece of more
/// than `max_group` documents is left out and counted.
pub fn decomposition_pairs(
    records: &[DecompositionRecord],
    settings: &MethodSettings,
    max_group: usize,
    compare: impl FnMut(u32, u32) -> bool,
) -> FoundPairs {
    let entries = records
        .iter()
        .enumerate()
        .flat_map(|(doc, r)| r.shingles.iter().map(move |s| (*s, r.len, doc as u32)))
        .collect();
    chained_pairs(entries, settings.length_ratio, max_group, compare)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(len: u32, shingles: &[u64]) -> DecompositionRecord {
        DecompositionRecord {
            len,
            shingles: shingles.to_vec(),
        }
    }

    #[test]
    fn chains_compare_only_close_lengths_once() {
        // Shingle 1: d0 (100), d1 (110), d2 (200); shingle 2: d0, d1, d3 (105).
        // Chain of 1 by length: 100, 110 | 200 (cut: ×1.82) → compares (0, 1).
        // Chain of 2: 100, 105, 110 → compares (0, 3), (0, 1) again (skipped), (1, 3)... all
        // three within ×1.15 of each other: (0, 3), (1, 3) new.
        let records = vec![
            record(100, &[1, 2]),
            record(110, &[1, 2]),
            record(200, &[1]),
            record(105, &[2]),
        ];
        let s = MethodSettings::default();
        let mut asked = Vec::new();
        let found = decomposition_pairs(&records, &s, 10, |a, b| {
            asked.push((a, b));
            (a, b) != (1, 3)
        });
        asked.sort_unstable();
        assert_eq!(asked, vec![(0, 1), (0, 3), (1, 3)]);
        assert_eq!(found.comparisons, 3);
        // The comparison decides: (1, 3) was refused.
        assert_eq!(found.pairs, vec![(0, 1), (0, 3)]);
        // A cap of 2 leaves the three-document piece of shingle 2 out.
        let capped = decomposition_pairs(&records, &s, 2, |_, _| true);
        assert_eq!(capped.pairs, vec![(0, 1)]);
        assert_eq!(capped.oversized_groups, 1);
    }

    #[test]
    fn record_samples_shingles() {
        let doc = MethodDoc::from_sentences(&["a b c d e f g h"]);
        let all = MethodSettings {
            shingle_len: 3,
            ..MethodSettings::default()
        };
        // 8 terms: 6 distinct 3-shingles.
        let r = decomposition_record(&doc, &all);
        assert_eq!((r.len, r.shingles.len()), (8, 6));
        assert_eq!(r.shingles[0], {
            let mut v: Vec<u64> = ["a b c", "b c d", "c d e", "d e f", "e f g", "f g h"]
                .iter()
                .map(|s| shingle_hash(s.split(' ')))
                .collect();
            v.sort_unstable();
            v[0]
        });
        // Sampling keeps exactly the multiples.
        let sampled = decomposition_record(&doc, &MethodSettings { sampling: 2, ..all });
        let even: Vec<u64> = r.shingles.iter().copied().filter(|h| h % 2 == 0).collect();
        assert_eq!(sampled.shingles, even);
    }
}
