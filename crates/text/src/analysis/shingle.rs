//! Word shingles: hashes of every run of [`SHINGLE_WORDS`] consecutive terms of an analyzed
//! text. Built over terms (stems, stop words removed), so they survive changes of case,
//! punctuation, homoglyphs and function words; short runs keep a good share of shingles
//! through word-level edits (replacing 10 % of words leaves ~73 % of 3-word shingles intact).

use super::Token;

/// How many consecutive terms make one shingle.
pub const SHINGLE_WORDS: usize = 3;

/// One shingle in this many is indexed and looked up: those whose hash is a multiple of it.
/// Index and query select by the same rule, so shared text shares the same sample (the
/// "0 mod p" scheme); containment estimated on the sample is unbiased, and the index and the
/// number of lookups per check shrink by this factor. Part of the on-disk format.
pub const SHINGLE_SAMPLE: u64 = 4;

/// Whether a shingle belongs to the indexed sample.
pub fn is_sampled(hash: u64) -> bool {
    hash.is_multiple_of(SHINGLE_SAMPLE)
}

const SEED: u64 = 0x5348_494e_474c_4533;

/// The hash of one shingle.
pub fn shingle_hash<'a>(terms: impl IntoIterator<Item = &'a str>) -> u64 {
    let mut hasher = xxhash_rust::xxh3::Xxh3::with_seed(SEED);
    for term in terms {
        hasher.update(term.as_bytes());
        hasher.update(&[0]);
    }
    hasher.digest()
}

/// The shingle starting at each token position: element `i` covers tokens `i..i + SHINGLE_WORDS`.
/// A text with fewer tokens than a shingle has none.
pub fn shingles(tokens: &[Token]) -> Vec<u64> {
    tokens
        .windows(SHINGLE_WORDS)
        .map(|window| shingle_hash(window.iter().map(|t| t.term.as_str())))
        .collect()
}

/// The distinct sampled shingles of a text, sorted: what the index holds for a document.
pub fn sampled_shingles(positional: &[u64]) -> Vec<u64> {
    let mut distinct: Vec<u64> = positional
        .iter()
        .copied()
        .filter(|h| is_sampled(*h))
        .collect();
    distinct.sort_unstable();
    distinct.dedup();
    distinct
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(terms: &[&str]) -> Vec<Token> {
        terms
            .iter()
            .enumerate()
            .map(|(i, t)| Token {
                term: t.to_string(),
                position: i as u32,
                start: 0,
                end: 0,
            })
            .collect()
    }

    #[test]
    fn one_shingle_per_window() {
        let t = tokens(&["a", "b", "c", "d", "b", "c", "d"]);
        let s = shingles(&t);
        assert_eq!(s.len(), 5);
        // "b c d" occurs twice.
        assert_eq!(s[1], s[4]);
        let sampled = sampled_shingles(&s);
        assert!(sampled.iter().all(|h| is_sampled(*h)));
        assert!(sampled.windows(2).all(|w| w[0] < w[1]));
        assert!(shingles(&tokens(&["a", "b"])).is_empty());
    }

    #[test]
    fn about_one_in_sample_is_kept() {
        let kept = (0..10_000)
            .filter(|i| is_sampled(shingle_hash([format!("w{i}").as_str(), "x", "y"])))
            .count();
        assert!((2_200..2_800).contains(&kept), "{kept}");
    }

    #[test]
    fn term_boundaries_matter() {
        assert_ne!(
            shingle_hash(["ab", "c", "d"]),
            shingle_hash(["a", "bc", "d"])
        );
    }
}
