//! Documents found together because they share a key: grouping by sorting (key, document)
//! entries, never by comparing all pairs.

use serde::Serialize;

/// The pairs a method found, as `(a, b)` document numbers with `a < b`, sorted and distinct.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FoundPairs {
    #[serde(skip)]
    pub pairs: Vec<(u32, u32)>,
    /// Groups (documents sharing a key, or chain pieces) left out for holding more than the cap.
    pub oversized_groups: usize,
    /// Pairs compared directly by a method that compares (A11, A12).
    pub comparisons: u64,
}

impl FoundPairs {
    pub(crate) fn finish(mut self) -> FoundPairs {
        self.pairs.sort_unstable();
        self.pairs.dedup();
        self
    }
}

/// Pairs of documents sharing at least one key; `keys[d]` are document `d`'s keys. A key shared
/// by more than `max_group` documents yields no pairs (it is counted in
/// [`FoundPairs::oversized_groups`]): such keys are what boilerplate or near-empty documents
/// have in common, and a group of `g` documents would cost `g²/2` pairs.
pub fn pairs_sharing_a_key(keys: &[Vec<u64>], max_group: usize) -> FoundPairs {
    let mut entries: Vec<(u64, u32)> = keys
        .iter()
        .enumerate()
        .flat_map(|(doc, keys)| keys.iter().map(move |k| (*k, doc as u32)))
        .collect();
    entries.sort_unstable();
    entries.dedup();
    let mut found = FoundPairs::default();
    for group in entries.chunk_by(|a, b| a.0 == b.0) {
        if group.len() < 2 {
            continue;
        }
        if group.len() > max_group {
            found.oversized_groups += 1;
            continue;
        }
        for (i, a) in group.iter().enumerate() {
            for b in &group[i + 1..] {
                found.pairs.push((a.1, b.1));
            }
        }
    }
    found.finish()
}

/// The pairs that A11 and A12 find: documents sharing a key (`entries`: key, length, document)
/// are ordered by length, the run is cut into chain pieces where the length grows by more than
/// `ratio`, and within a piece each document is compared (once, however many keys the two
/// share) with the later ones no longer than `ratio` times it; `compare` says whether a pair is
/// a duplicate. A piece of more than `max_group` documents is left out and counted.
pub(crate) fn chained_pairs(
    mut entries: Vec<(u64, u32, u32)>,
    ratio: f64,
    max_group: usize,
    mut compare: impl FnMut(u32, u32) -> bool,
) -> FoundPairs {
    entries.sort_unstable();
    let mut found = FoundPairs::default();
    let mut compared: rustc_hash::FxHashSet<(u32, u32)> = rustc_hash::FxHashSet::default();
    let mut chain: Vec<(u32, u32)> = Vec::new();
    for group in entries.chunk_by(|a, b| a.0 == b.0) {
        if group.len() < 2 {
            continue;
        }
        chain.clear();
        chain.extend(group.iter().map(|(_, len, doc)| (*len, *doc)));
        for piece in chain_pieces(&chain, ratio) {
            if piece.len() < 2 {
                continue;
            }
            if piece.len() > max_group {
                found.oversized_groups += 1;
                continue;
            }
            for (i, a) in piece.iter().enumerate() {
                for b in piece[i + 1..]
                    .iter()
                    .take_while(|b| f64::from(b.0) <= ratio * f64::from(a.0))
                {
                    let pair = (a.1.min(b.1), a.1.max(b.1));
                    if compared.insert(pair) {
                        found.comparisons += 1;
                        if compare(pair.0, pair.1) {
                            found.pairs.push(pair);
                        }
                    }
                }
            }
        }
    }
    found.finish()
}

/// Cuts a run of `(length, document)` entries sorted by length where the next document is
/// longer than the previous by more than `ratio` (A11 and A12's chains).
pub(crate) fn chain_pieces(
    chain: &[(u32, u32)],
    ratio: f64,
) -> impl Iterator<Item = &[(u32, u32)]> {
    chain.chunk_by(move |a, b| f64::from(b.0) <= ratio * f64::from(a.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_of_shared_keys_by_hand() {
        // d0 {1, 2}, d1 {2}, d2 {3, 1}, d3 {4}, d4 {2, 1}:
        // key 1 → d0, d2, d4; key 2 → d0, d1, d4; key 3 and 4 alone.
        let keys = vec![vec![1, 2], vec![2], vec![3, 1], vec![4], vec![2, 1]];
        let found = pairs_sharing_a_key(&keys, 10);
        assert_eq!(found.pairs, vec![(0, 1), (0, 2), (0, 4), (1, 4), (2, 4)]);
        assert_eq!(found.oversized_groups, 0);
        // With groups capped at 2 documents both groups of three are left out.
        let capped = pairs_sharing_a_key(&keys, 2);
        assert!(capped.pairs.is_empty());
        assert_eq!(capped.oversized_groups, 2);
        // A key repeated within one document pairs it with nobody.
        assert!(pairs_sharing_a_key(&[vec![7, 7]], 10).pairs.is_empty());
    }

    #[test]
    fn chains_cut_where_lengths_jump() {
        // 100, 110 (×1.10), 120 (×1.09), 140 (×1.17: cut), 150.
        let chain = [(100, 0), (110, 1), (120, 2), (140, 3), (150, 4)];
        let pieces: Vec<&[(u32, u32)]> = chain_pieces(&chain, 1.15).collect();
        assert_eq!(pieces, vec![&chain[..3], &chain[3..]]);
    }
}
