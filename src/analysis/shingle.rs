//! Word shingles: hashes of every run of [`SHINGLE_WORDS`] consecutive terms of an analyzed
//! text. Built over terms (stems, stop words removed), so they survive changes of case,
//! punctuation, homoglyphs and function words; short runs keep a good share of shingles
//! through word-level edits (replacing 10 % of words leaves ~73 % of 3-word shingles intact).

use super::Token;

/// How many consecutive terms make one shingle.
pub const SHINGLE_WORDS: usize = 3;

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

/// The distinct shingles of a text, sorted.
pub fn distinct_shingles(positional: &[u64]) -> Vec<u64> {
    let mut distinct = positional.to_vec();
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
        assert_eq!(distinct_shingles(&s).len(), 4);
        assert!(shingles(&tokens(&["a", "b"])).is_empty());
    }

    #[test]
    fn term_boundaries_matter() {
        assert_ne!(
            shingle_hash(["ab", "c", "d"]),
            shingle_hash(["a", "bc", "d"])
        );
    }
}
