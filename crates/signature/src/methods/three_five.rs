//! A12 "3+5" (§6.2): each document is described by the signatures of its three longest
//! sentences and its five longest words, its length and its number of sentences, using no
//! library statistics. Documents sharing one of the three sentences form chains ordered by
//! length, cut where neighbouring lengths differ by more than the ratio; neighbours are compared
//! by the paper's rules (see [`three_five_pairs`]).

use rustc_hash::FxHashSet;
use serde::Serialize;

use super::pairs::chained_pairs;
use super::{FoundPairs, MethodDoc, MethodSettings, crc32_of};

/// Sentences and words in a record: the "3" and the "5".
pub(crate) const LONGEST_SENTENCES: usize = 3;
pub(crate) const LONGEST_WORDS: usize = 5;

/// What A12 keeps of a document.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ThreeFiveRecord {
    /// `len`: terms (words of three letters or more, stop words dropped).
    pub len: u32,
    /// `num`: sentences.
    pub num: u32,
    /// `ss1..ss3`: CRC32 of the longest distinct sentences (terms joined by spaces), longest
    /// first, equal lengths by signature. Fewer for documents of one or two sentences.
    pub sentences: Vec<u64>,
    /// `ws1..ws5`: CRC32 of the longest distinct terms, longest first (in characters), equal
    /// lengths by signature.
    pub words: Vec<u64>,
}

/// The record of `doc`.
pub fn three_five_record(doc: &MethodDoc, _settings: &MethodSettings) -> ThreeFiveRecord {
    let mut sentences: Vec<(usize, u64)> = (0..doc.sentences.len())
        .map(|i| {
            let terms = doc.sentence(i);
            (terms.len(), crc32_of([terms.join(" ").as_str()]))
        })
        .collect();
    sentences.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    sentences.dedup_by_key(|s| s.1);
    let mut seen = FxHashSet::default();
    let mut words: Vec<(usize, u64)> = doc
        .counts
        .iter()
        .map(|(t, _)| (t.chars().count(), crc32_of([t.as_str()])))
        .filter(|w| seen.insert(w.1))
        .collect();
    words.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    ThreeFiveRecord {
        len: doc.terms.len() as u32,
        num: doc.sentences.len() as u32,
        sentences: sentences
            .into_iter()
            .take(LONGEST_SENTENCES)
            .map(|s| s.1)
            .collect(),
        words: words.into_iter().take(LONGEST_WORDS).map(|w| w.1).collect(),
    }
}

fn common(a: &[u64], b: &[u64]) -> usize {
    a.iter().filter(|x| b.contains(x)).count()
}

/// Whether two records are duplicates by the paper's rules: they are compared only when their
/// sentence counts differ by at most [`MethodSettings::sentence_ratio`] and at least
/// [`MethodSettings::common_words`] of their five word signatures agree (in any order); then they
/// are duplicates when their longest sentences agree, or, both having more than five sentences,
/// two of their three sentence signatures agree (in any order).
pub fn three_five_duplicates(a: &ThreeFiveRecord, b: &ThreeFiveRecord, s: &MethodSettings) -> bool {
    let (few, many) = (a.num.min(b.num).max(1), a.num.max(b.num));
    if f64::from(many) > s.sentence_ratio * f64::from(few) {
        return false;
    }
    if common(&a.words, &b.words) < s.common_words {
        return false;
    }
    let first_agree = !a.sentences.is_empty() && a.sentences.first() == b.sentences.first();
    first_agree || (a.num > 5 && b.num > 5 && common(&a.sentences, &b.sentences) >= 2)
}

/// The pairs A12 finds. A chain piece of more than `max_group` documents is left out and
/// counted; pairs met in several chains are compared once.
pub fn three_five_pairs(
    records: &[ThreeFiveRecord],
    settings: &MethodSettings,
    max_group: usize,
) -> FoundPairs {
    let entries = records
        .iter()
        .enumerate()
        .flat_map(|(doc, r)| r.sentences.iter().map(move |s| (*s, r.len, doc as u32)))
        .collect();
    chained_pairs(entries, settings.length_ratio, max_group, |a, b| {
        three_five_duplicates(&records[a as usize], &records[b as usize], settings)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crc(s: &str) -> u64 {
        u64::from(crc32fast::hash(s.as_bytes()))
    }

    #[test]
    fn record_by_hand() {
        let doc = MethodDoc::from_sentences(&[
            "alpha beta",
            "gamma delta epsilon zeta",
            "eta",
            "theta iota kappa",
            "alpha beta",
        ]);
        let r = three_five_record(&doc, &MethodSettings::default());
        // 2 + 4 + 1 + 3 + 2 terms in 5 sentences.
        assert_eq!((r.len, r.num), (12, 5));
        // Longest sentences: 4 words, 3 words, then 2 ("alpha beta" once).
        assert_eq!(
            r.sentences,
            vec![
                crc("gamma delta epsilon zeta"),
                crc("theta iota kappa"),
                crc("alpha beta")
            ]
        );
        // Longest words: epsilon (7), then the five-letter words alpha, delta, gamma, kappa,
        // theta ordered by their CRC32; four of them fill the five places.
        assert_eq!(r.words.len(), 5);
        assert_eq!(r.words[0], crc("epsilon"));
        let mut fives: Vec<u64> = ["alpha", "delta", "gamma", "kappa", "theta"]
            .iter()
            .map(|w| crc(w))
            .collect();
        fives.sort_unstable();
        assert_eq!(&r.words[1..], &fives[..4]);
    }

    fn record(len: u32, num: u32, sentences: &[u64], words: &[u64]) -> ThreeFiveRecord {
        ThreeFiveRecord {
            len,
            num,
            sentences: sentences.to_vec(),
            words: words.to_vec(),
        }
    }

    #[test]
    fn rules_by_hand() {
        let s = MethodSettings::default();
        let a = record(100, 10, &[1, 2, 3], &[11, 12, 13, 14, 15]);
        // Same longest sentence, two words in common: duplicates.
        let b = record(105, 11, &[1, 9, 8], &[15, 14, 20, 21, 22]);
        assert!(three_five_duplicates(&a, &b, &s));
        // One word in common: not compared.
        let c = record(105, 11, &[1, 2, 3], &[15, 20, 21, 22, 23]);
        assert!(!three_five_duplicates(&a, &c, &s));
        // 10 and 13 sentences: ×1.3, more than 1.2.
        let d = record(105, 13, &[1, 2, 3], &[11, 12, 13, 14, 15]);
        assert!(!three_five_duplicates(&a, &d, &s));
        // Longest sentences differ but ss2, ss3 agree (in another order), both have more than
        // five sentences: duplicates; with five sentences, not.
        let e = record(105, 11, &[7, 3, 2], &[11, 12, 30, 31, 32]);
        assert!(three_five_duplicates(&a, &e, &s));
        let a5 = record(100, 5, &[1, 2, 3], &[11, 12, 13, 14, 15]);
        let e5 = record(105, 5, &[7, 3, 2], &[11, 12, 30, 31, 32]);
        assert!(!three_five_duplicates(&a5, &e5, &s));
    }

    #[test]
    fn pairs_by_hand() {
        let s = MethodSettings::default();
        let records = vec![
            record(100, 10, &[1, 2, 3], &[11, 12, 13, 14, 15]),
            // Shares sentence 1, close length, two words: found.
            record(110, 10, &[1, 4, 5], &[11, 12, 40, 41, 42]),
            // Shares sentence 1 and every word, but 200 terms: cut from the chain.
            record(200, 10, &[1, 2, 3], &[11, 12, 13, 14, 15]),
            // Shares nothing.
            record(100, 10, &[6], &[11, 12, 13, 14, 15]),
        ];
        let found = three_five_pairs(&records, &s, 10);
        assert_eq!(found.pairs, vec![(0, 1)]);
        assert_eq!(found.comparisons, 1);
    }
}
