//! The shingle methods: A6 Megashingles (Fetterly et al., as the paper adapted it) and A8
//! LogShingles. Shingles are runs of [`MethodSettings::shingle_len`] terms hashed with the
//! project's shingle hash (`analysis::shingle_hash`).

use xxhash_rust::xxh3::{Xxh3, xxh3_64_with_seed};

use super::{MethodDoc, MethodSettings};
use dupfinder_text::analysis::shingle_hash;

/// A6: min-wise functions, supershingles, and shingles per supershingle (the paper's 36 = 6·6).
pub(crate) const MINHASH_FUNCTIONS: usize = 36;
pub(crate) const SUPERSHINGLES: usize = 6;
const PER_SUPERSHINGLE: usize = MINHASH_FUNCTIONS / SUPERSHINGLES;

/// The distinct shingles of the document, without wrapping round its end.
fn distinct_shingles(doc: &MethodDoc, len: usize) -> Vec<u64> {
    let mut shingles: Vec<u64> = doc
        .terms
        .windows(len)
        .map(|w| shingle_hash(w.iter().map(String::as_str)))
        .collect();
    shingles.sort_unstable();
    shingles.dedup();
    shingles
}

/// A6 Megashingles: 36 min-wise independent functions each choose the shingle minimizing them
/// (the paper builds them from random polynomials, Karp–Rabin; ours are xxh3 with 36 seeds over
/// the shingle's hash); the 36 minima form 6 supershingles of 6; every pair of supershingles is a
/// megashingle, and the 15 megashingles are the document's keys. Two documents are found when
/// they share a megashingle, i.e. two of their six supershingles.
pub fn megashingle_keys(doc: &MethodDoc, settings: &MethodSettings) -> Vec<u64> {
    let shingles = distinct_shingles(doc, settings.shingle_len);
    if shingles.is_empty() {
        return Vec::new();
    }
    let minima: Vec<u64> = (0..MINHASH_FUNCTIONS as u64)
        .map(|seed| {
            shingles
                .iter()
                .map(|h| xxh3_64_with_seed(&h.to_le_bytes(), seed))
                .min()
                .unwrap_or(0)
        })
        .collect();
    let supershingles: Vec<u64> = minima
        .chunks(PER_SUPERSHINGLE)
        .map(|group| {
            let mut hasher = Xxh3::with_seed(0x0053_5550_4552);
            for m in group {
                hasher.update(&m.to_le_bytes());
            }
            hasher.digest()
        })
        .collect();
    let mut keys = Vec::with_capacity(SUPERSHINGLES * (SUPERSHINGLES - 1) / 2);
    for a in 0..SUPERSHINGLES {
        for b in a + 1..SUPERSHINGLES {
            // The pair's positions are part of the key: supershingle 1 of one document meets
            // only supershingle 1 of another.
            let mut hasher = Xxh3::with_seed(0x4d45_4741);
            hasher.update(&[a as u8, b as u8]);
            hasher.update(&supershingles[a].to_le_bytes());
            hasher.update(&supershingles[b].to_le_bytes());
            keys.push(hasher.digest());
        }
    }
    keys
}

/// A8 LogShingles: every shingle, the last words wrapping round to the first ("words at the
/// end of the document wrap to its start"), then only those divisible by a power of two: the
/// largest `2^k` that at least [`MethodSettings::log_min_shingles`] distinct shingles are
/// divisible by, so the sample shrinks logarithmically with the document. The kept shingles,
/// sorted, hash to one exact signature. A document shorter than a shingle has none.
pub fn log_shingles_key(doc: &MethodDoc, settings: &MethodSettings) -> Option<u64> {
    let n = doc.terms.len();
    let len = settings.shingle_len;
    if n < len || n == 0 {
        return None;
    }
    let mut shingles: Vec<u64> = (0..n)
        .map(|i| shingle_hash((0..len).map(|j| doc.terms[(i + j) % n].as_str())))
        .collect();
    shingles.sort_unstable();
    shingles.dedup();
    let min = settings.log_min_shingles.min(shingles.len());
    let mut zeros: Vec<u32> = shingles.iter().map(|h| h.trailing_zeros()).collect();
    zeros.sort_unstable_by(|a, b| b.cmp(a));
    // The `min`-th largest count of trailing zeros: at least `min` shingles have that many.
    let k = zeros[min - 1];
    let mut hasher = Xxh3::with_seed(0x004c_4f47);
    for h in shingles.iter().filter(|h| h.trailing_zeros() >= k) {
        hasher.update(&h.to_le_bytes());
    }
    Some(hasher.digest())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_word() -> MethodSettings {
        MethodSettings {
            shingle_len: 2,
            ..MethodSettings::default()
        }
    }

    #[test]
    fn megashingles_are_fifteen_and_depend_on_the_shingle_set_only() {
        let s = two_word();
        // "a b a b" has the 2-shingles {ab, ba}; so has "b a b a b": the same set, the same 15
        // keys, although the texts differ.
        let one = megashingle_keys(&MethodDoc::from_sentences(&["a b a b"]), &s);
        let other = megashingle_keys(&MethodDoc::from_sentences(&["b a b a b"]), &s);
        assert_eq!(one.len(), 15);
        assert_eq!(one, other);
        let mut distinct = one.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 15);
        // {ab, bc}: a different set; with two shingles each, every minimum is taken from one of
        // them, and ab is common, so some keys may agree, but not all.
        let third = megashingle_keys(&MethodDoc::from_sentences(&["a b c"]), &s);
        assert_ne!(one, third);
        // One word has no 2-shingle.
        assert!(megashingle_keys(&MethodDoc::from_sentences(&["a"]), &s).is_empty());
    }

    #[test]
    fn megashingles_of_a_single_shingle_document() {
        // A document of exactly one shingle: all 36 minima are that shingle's, so its keys are
        // those of any document whose only shingle it is, and differ from a different one's.
        let s = two_word();
        let ab = megashingle_keys(&MethodDoc::from_sentences(&["a b"]), &s);
        let ab2 = megashingle_keys(&MethodDoc::from_sentences(&["a", "b"]), &s);
        let ba = megashingle_keys(&MethodDoc::from_sentences(&["b a"]), &s);
        assert_eq!(ab, ab2);
        assert!(ab.iter().all(|k| !ba.contains(k)));
    }

    #[test]
    fn log_shingles_wrap_round_and_sample_by_powers_of_two() {
        let s = two_word();
        // "a b c" wraps to the shingles ab, bc, ca; "b c a" to bc, ca, ab: the same set, the
        // same signature, though the texts (and their MD5) differ.
        let abc = log_shingles_key(&MethodDoc::from_sentences(&["a b c"]), &s);
        let bca = log_shingles_key(&MethodDoc::from_sentences(&["b c a"]), &s);
        assert!(abc.is_some());
        assert_eq!(abc, bca);
        // Asking for at least 3 of 3 shingles keeps all three (2^0 divides every hash): the
        // signature is then the hash of the whole set, computed here by hand.
        let all = MethodSettings {
            log_min_shingles: 3,
            ..two_word()
        };
        let mut set = [
            shingle_hash(["a", "b"]),
            shingle_hash(["b", "c"]),
            shingle_hash(["c", "a"]),
        ];
        set.sort_unstable();
        let mut hasher = Xxh3::with_seed(0x004c_4f47);
        for h in set {
            hasher.update(&h.to_le_bytes());
        }
        let expected = Some(hasher.digest());
        assert_eq!(
            log_shingles_key(&MethodDoc::from_sentences(&["a b c"]), &all),
            expected
        );
        // With one shingle wanted, only the one with the most trailing zeros is kept.
        let one = MethodSettings {
            log_min_shingles: 1,
            ..two_word()
        };
        let best = set.iter().max_by_key(|h| h.trailing_zeros()).unwrap();
        let mut hasher = Xxh3::with_seed(0x004c_4f47);
        hasher.update(&best.to_le_bytes());
        assert_eq!(
            log_shingles_key(&MethodDoc::from_sentences(&["a b c"]), &one),
            Some(hasher.digest())
        );
        assert_eq!(
            log_shingles_key(&MethodDoc::from_sentences(&["a"]), &s),
            None
        );
    }
}
