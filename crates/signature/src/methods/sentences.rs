//! The sentence methods: A4 LongSent (the longest sentences) and A5 HeavySent (the heaviest by
//! the sum of their words' BM25 weights). The chosen sentences, each written as its terms
//! separated by spaces, are concatenated in alphabetical order (one per line) and signed with
//! CRC32. A sentence repeated in a document counts once.

use std::collections::HashMap;

use super::{Collection, MethodDoc, MethodSettings, bm25_weights, crc32_of};

/// The document's distinct sentences, each as its terms joined by spaces, with its length.
fn distinct_sentences(doc: &MethodDoc) -> Vec<(String, usize)> {
    let mut sentences: Vec<(String, usize)> = (0..doc.sentences.len())
        .map(|i| {
            let terms = doc.sentence(i);
            (terms.join(" "), terms.len())
        })
        .collect();
    sentences.sort_unstable();
    sentences.dedup();
    sentences
}

/// Signs the first `k` sentences of `ranked` in alphabetical order.
fn key_of(mut ranked: Vec<String>, k: usize) -> Option<u64> {
    if ranked.is_empty() {
        return None;
    }
    ranked.truncate(k);
    ranked.sort_unstable();
    let joined = ranked.join("\n");
    Some(crc32_of([joined.as_str()]))
}

/// A4 LongSent: the [`MethodSettings::top_sentences`] longest sentences in words; equal
/// lengths in alphabetical order.
pub fn long_sent_key(doc: &MethodDoc, settings: &MethodSettings) -> Option<u64> {
    let mut sentences = distinct_sentences(doc);
    sentences.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    key_of(
        sentences.into_iter().map(|(s, _)| s).collect(),
        settings.top_sentences,
    )
}

/// A5 HeavySent: the heaviest sentences, a sentence weighing the sum of A2's weights of its
/// words (each occurrence counted); equal weights in alphabetical order.
pub fn heavy_sent_key(
    doc: &MethodDoc,
    collection: &Collection<'_>,
    settings: &MethodSettings,
) -> Option<u64> {
    let weights: HashMap<&str, f64> = bm25_weights(doc, collection, settings)
        .into_iter()
        .collect();
    let mut sentences: Vec<(String, f64)> = distinct_sentences(doc)
        .into_iter()
        .map(|(s, _)| {
            let weight = s
                .split(' ')
                .map(|t| weights.get(t).copied().unwrap_or(0.0))
                .sum();
            (s, weight)
        })
        .collect();
    sentences.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    key_of(
        sentences.into_iter().map(|(s, _)| s).collect(),
        settings.top_sentences,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::library;

    fn crc(s: &str) -> Option<u64> {
        Some(u64::from(crc32fast::hash(s.as_bytes())))
    }

    #[test]
    fn long_sent_by_hand() {
        let s = MethodSettings::default();
        // Lengths 3, 2, 3, 1: the two of three words, in alphabetical order.
        let doc = MethodDoc::from_sentences(&[
            "date elder fig",
            "apple banana",
            "cherry fig grape",
            "kiwi",
        ]);
        assert_eq!(
            long_sent_key(&doc, &s),
            crc("cherry fig grape\ndate elder fig")
        );
        // Ties on length broken alphabetically: "apple banana" precedes "kiwi lime".
        let doc = MethodDoc::from_sentences(&["kiwi lime", "date elder fig", "apple banana"]);
        assert_eq!(long_sent_key(&doc, &s), crc("apple banana\ndate elder fig"));
        // A repeated sentence counts once.
        let doc = MethodDoc::from_sentences(&["apple banana", "apple banana", "kiwi"]);
        assert_eq!(long_sent_key(&doc, &s), crc("apple banana\nkiwi"));
        assert_eq!(long_sent_key(&MethodDoc::default(), &s), None);
    }

    #[test]
    fn heavy_sent_by_hand() {
        let snapshot = library();
        let collection = Collection::new(&snapshot);
        // d = [apple banana] [cherry cherry] [elder]: dl = 5, dl_avg = 3.25,
        // k·(1 − b + b·dl/dl_avg) = 2·(0.25 + 0.75·5/3.25) = 2.8076923.
        //   apple  tf 1: TF 0.2626263, IDF ln(3.5/1.5) = 0.8472979 → 0.2225227
        //   banana tf 1: IDF 0 → 0
        //   cherry tf 2: TF 0.4160000, IDF −0.8472979 → −0.3524759, twice: −0.7049518
        //   elder  tf 1: 0.2225227 (as apple)
        // Sentence weights: "apple banana" 0.2225227, "elder" 0.2225227, "cherry cherry"
        // −0.7049518. The two heaviest tie and both are taken; the longest would differ.
        let doc = MethodDoc::from_sentences(&["apple banana", "cherry cherry", "elder"]);
        let s = MethodSettings::default();
        assert_eq!(
            heavy_sent_key(&doc, &collection, &s),
            crc("apple banana\nelder")
        );
        assert_eq!(long_sent_key(&doc, &s), crc("apple banana\ncherry cherry"));
        // One sentence: the tie is broken alphabetically.
        let one = MethodSettings {
            top_sentences: 1,
            ..s
        };
        assert_eq!(heavy_sent_key(&doc, &collection, &one), crc("apple banana"));
    }
}
