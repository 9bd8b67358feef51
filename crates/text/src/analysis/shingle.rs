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

/// The hash of one shingle: xxh3 (seeded) of its terms, each followed by a zero byte. Hashed
/// in one call from a buffer on the stack when the terms fit it (a check hashes every shingle
/// of every candidate it verifies; the streaming hasher took most of that time), and streamed
/// otherwise; both give the same value.
pub fn shingle_hash<'a>(terms: impl IntoIterator<Item = &'a str>) -> u64 {
    const ROOM: usize = 192;
    let mut buffer = [0u8; ROOM];
    let mut used = 0;
    let mut terms = terms.into_iter();
    for term in terms.by_ref() {
        let bytes = term.as_bytes();
        let end = used + bytes.len() + 1;
        if end > ROOM {
            let mut hasher = xxhash_rust::xxh3::Xxh3::with_seed(SEED);
            hasher.update(&buffer[..used]);
            hasher.update(bytes);
            hasher.update(&[0]);
            for term in terms {
                hasher.update(term.as_bytes());
                hasher.update(&[0]);
            }
            return hasher.digest();
        }
        buffer[used..end - 1].copy_from_slice(bytes);
        // The separator is the buffer's zero already.
        used = end;
    }
    xxhash_rust::xxh3::xxh3_64_with_seed(&buffer[..used], SEED)
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

    /// The values are part of the on-disk format: the hash in one call must equal the
    /// streamed one it replaced, short terms or long.
    #[test]
    fn a_shingle_hashes_as_its_streamed_terms() {
        let streamed = |terms: &[&str]| {
            let mut hasher = xxhash_rust::xxh3::Xxh3::with_seed(SEED);
            for term in terms {
                hasher.update(term.as_bytes());
                hasher.update(&[0]);
            }
            hasher.digest()
        };
        let long = "д".repeat(80);
        let longer = "x".repeat(300);
        for terms in [
            vec!["метод", "шингл", "сравн"],
            vec!["a", "", "b"],
            vec![long.as_str(), long.as_str(), "c"],
            vec!["c", longer.as_str(), "d"],
            vec![],
        ] {
            assert_eq!(
                shingle_hash(terms.iter().copied()),
                streamed(&terms),
                "{terms:?}"
            );
        }
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
