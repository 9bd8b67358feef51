//! The lexicon methods: A7 LexRand (I-Match with randomized lexicons, Kołcz et al.) and A9
//! DescrWords (Ilyinsky et al.'s descriptor words).

use xxhash_rust::xxh3::{Xxh3, xxh3_64_with_seed};

use super::{Collection, MethodDoc, MethodSettings};

/// Seeds of the lexicon draws, distinct from the robust signatures' lexicons.
const DRAW_SEED: u64 = 0x004c_4558_5241_4e44;
const IMATCH_SEED: u64 = 0x494d_4154_4348;

/// Whether extra lexicon `k` (1-based) drops `term`: a pseudo-random draw per term and lexicon,
/// the same for every document, dropping the share `drop` of the lexicon.
fn dropped(term: &str, k: u32, drop: f64) -> bool {
    let draw = xxh3_64_with_seed(term.as_bytes(), DRAW_SEED + u64::from(k));
    (draw >> 11) as f64 / (1u64 << 53) as f64 <= drop && drop > 0.0
}

fn imatch(terms: &[&str], k: u32) -> u64 {
    let mut hasher = Xxh3::with_seed(IMATCH_SEED + u64::from(k));
    for term in terms {
        hasher.update(term.as_bytes());
        hasher.update(&[0]);
    }
    hasher.digest()
}

/// A7 LexRand: the lexicon `L` holds the terms whose normalized IDF `ln(N/df) / ln N` lies in
/// [`MethodSettings::imatch_band`] (the paper drops "the words of highest and lowest IDF");
/// [`MethodSettings::lexicons`] extra lexicons each drop a random [`MethodSettings::lexicon_drop`]
/// of it. Each lexicon whose intersection with the document's distinct terms has at least
/// [`MethodSettings::imatch_min_terms`] terms gives an I-Match signature: the hash of those terms
/// in sorted order, salted by the lexicon. Documents sharing one signature are found.
pub fn lexrand_keys(
    doc: &MethodDoc,
    collection: &Collection<'_>,
    settings: &MethodSettings,
) -> Vec<u64> {
    let n = collection.docs();
    let log_n = n.ln();
    let (low, high) = settings.imatch_band;
    // `counts` is sorted by term, so the intersection comes out sorted.
    let lexicon: Vec<&str> = doc
        .counts
        .iter()
        .filter(|(term, tf)| {
            let (df, _) = collection.df_cf(term, *tf);
            let nidf = if log_n > 0.0 {
                (n / df).ln() / log_n
            } else {
                1.0
            };
            (low..=high).contains(&nidf)
        })
        .map(|(term, _)| term.as_str())
        .collect();
    let mut keys = Vec::new();
    if lexicon.len() >= settings.imatch_min_terms {
        keys.push(imatch(&lexicon, 0));
    }
    for k in 1..=settings.lexicons {
        let kept: Vec<&str> = lexicon
            .iter()
            .copied()
            .filter(|t| !dropped(t, k, settings.lexicon_drop))
            .collect();
        if kept.len() >= settings.imatch_min_terms {
            keys.push(imatch(&kept, k));
        }
    }
    keys
}

/// A9 DescrWords: the document's binary vector over the descriptor words (a bit set when the
/// word's relative frequency `tf / tf_max` reaches its threshold), hashed; documents with equal
/// vectors are found. A vector with fewer than [`MethodSettings::descr_min_bits`] bits set signs
/// nothing.
pub fn descr_words_keys(
    doc: &MethodDoc,
    collection: &Collection<'_>,
    settings: &MethodSettings,
) -> Option<u64> {
    let tf_max = f64::from(doc.tf_max());
    let bits: Vec<&str> = doc
        .counts
        .iter()
        .filter(|(term, tf)| {
            collection
                .descriptors
                .threshold(term)
                .is_some_and(|threshold| f64::from(*tf) / tf_max >= threshold)
        })
        .map(|(term, _)| term.as_str())
        .collect();
    (bits.len() >= settings.descr_min_bits.max(1)).then(|| imatch(&bits, u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::{docs, library};

    #[test]
    fn lexrand_by_hand() {
        let snapshot = library();
        let collection = Collection::new(&snapshot);
        // N = 4, ln N = 1.3862944. Normalized IDF: apple, elder, fig, grape (df 1) 1.0;
        // banana, date (df 2) ln 2 / ln 4 = 0.5; cherry (df 3) ln(4/3) / ln 4 = 0.2075187.
        // With the band [0.2, 0.99] the lexicon is {banana, cherry, date}.
        let s = MethodSettings {
            imatch_min_terms: 3,
            lexicons: 4,
            lexicon_drop: 0.0,
            ..MethodSettings::default()
        };
        let doc = MethodDoc::from_sentences(&["apple banana cherry date elder"]);
        let keys = lexrand_keys(&doc, &collection, &s);
        // Nothing dropped: the main signature and four extra ones over the same three terms,
        // each salted by its lexicon.
        assert_eq!(keys.len(), 5);
        assert_eq!(keys[0], imatch(&["banana", "cherry", "date"], 0));
        assert_eq!(keys[3], imatch(&["banana", "cherry", "date"], 3));
        // Words outside the band do not count: a copy with fig for apple and elder signs alike.
        let copy = MethodDoc::from_sentences(&["fig banana cherry date date"]);
        assert_eq!(lexrand_keys(&copy, &collection, &s), keys);
        // The band [0.3, 0.99] leaves {banana, date}: fewer than three terms, no signature.
        let narrow = MethodSettings {
            imatch_band: (0.3, 0.99),
            ..s.clone()
        };
        assert!(lexrand_keys(&doc, &collection, &narrow).is_empty());
        // Extra lexicons dropping everything leave the main signature alone.
        let all_dropped = MethodSettings {
            lexicon_drop: 1.0,
            ..s
        };
        assert_eq!(lexrand_keys(&doc, &collection, &all_dropped), vec![keys[0]]);
    }

    #[test]
    fn extra_lexicons_drop_about_the_share_asked() {
        let kept = (0..10_000)
            .filter(|i| !dropped(&format!("w{i}"), 1, 0.3))
            .count();
        assert!((6_700..7_300).contains(&kept), "{kept}");
    }

    #[test]
    fn descr_words_by_hand() {
        let snapshot = library();
        // Learned from documents as in the descriptor test (N = 8): apple, banana and cherry
        // are descriptor words with threshold 0.05, i.e. set whenever present.
        let d = docs(&[
            &[("apple", 2), ("banana", 1)],
            &[("apple", 1), ("banana", 1)],
            &[("apple", 1), ("cherry", 2)],
            &[("banana", 2), ("cherry", 2)],
        ]);
        let settings = MethodSettings {
            descr_min_bits: 2,
            ..MethodSettings::default()
        };
        let mut collection = Collection::new(&snapshot);
        collection.descriptors =
            super::super::DescriptorWords::learn(d.iter().map(Vec::as_slice), 8, &settings);
        // "apple banana elder": bits apple, banana (elder is no descriptor) → signed.
        let a = MethodDoc::from_sentences(&["apple banana elder"]);
        let b = MethodDoc::from_sentences(&["banana apple apple fig"]);
        let key = descr_words_keys(&a, &collection, &settings);
        assert_eq!(key, Some(imatch(&["apple", "banana"], u32::MAX)));
        assert_eq!(descr_words_keys(&b, &collection, &settings), key);
        // One bit only: below descr_min_bits.
        let c = MethodDoc::from_sentences(&["cherry fig grape"]);
        assert_eq!(descr_words_keys(&c, &collection, &settings), None);
    }
}
