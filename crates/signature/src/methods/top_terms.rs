//! The "top words" methods: A1 TF, A2 TF·IDF (BM25), A3 TF·RIDF and A10 OptFreq. Each weighs
//! the document's terms, takes the [`MethodSettings::top_terms`] heaviest (equal weights ordered
//! by the term), concatenates them in alphabetical order and signs the string with CRC32.

use super::{Collection, MethodDoc, MethodSettings, crc32_of};
use crate::seed_signature;

/// The key of the `k` heaviest terms, or `None` for a document without terms.
fn top_key(mut weighted: Vec<(&str, f64)>, k: usize) -> Option<u64> {
    if weighted.is_empty() {
        return None;
    }
    weighted.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    weighted.truncate(k);
    let mut terms: Vec<&str> = weighted.into_iter().map(|(t, _)| t).collect();
    terms.sort_unstable();
    Some(crc32_of(terms))
}

/// A1 TF: the terms of highest count; a "local" method, no library statistics.
pub fn tf_key(doc: &MethodDoc, settings: &MethodSettings) -> Option<u64> {
    let weighted = doc
        .counts
        .iter()
        .map(|(t, c)| (t.as_str(), f64::from(*c)))
        .collect();
    top_key(weighted, settings.top_terms)
}

/// A2's weights, Okapi BM25 with the paper's `k = 2`, `b = 0.75`:
/// `TF = tf / (k·(1 − b + b·dl/dl_avg) + tf)`, `IDF = ln((N − df + 0.5) / (df + 0.5))`,
/// `w = TF · IDF`. `dl` is the document's number of terms. A term in more than half the library
/// weighs less than nothing, as BM25's IDF has it.
pub fn bm25_weights<'a>(
    doc: &'a MethodDoc,
    collection: &Collection<'_>,
    settings: &MethodSettings,
) -> Vec<(&'a str, f64)> {
    let n = collection.docs();
    let dl = doc.terms.len() as f64;
    let norm =
        settings.bm25_k * (1.0 - settings.bm25_b + settings.bm25_b * dl / collection.avg_len);
    doc.counts
        .iter()
        .map(|(term, tf)| {
            let (df, _) = collection.df_cf(term, *tf);
            let tf = f64::from(*tf);
            let idf = ((n - df + 0.5) / (df + 0.5)).ln();
            (term.as_str(), tf / (norm + tf) * idf)
        })
        .collect()
}

/// A2 TF·IDF: the top terms by BM25 weight.
pub fn tf_idf_key(
    doc: &MethodDoc,
    collection: &Collection<'_>,
    settings: &MethodSettings,
) -> Option<u64> {
    top_key(bm25_weights(doc, collection, settings), settings.top_terms)
}

/// A3 TF·RIDF: exactly dupfinder's seed signature (`signature::tfridf`), six terms.
pub fn tf_ridf_key(doc: &MethodDoc, collection: &Collection<'_>) -> Option<u64> {
    seed_signature(&doc.counts, collection.snapshot).map(u64::from)
}

/// A10 OptFreq (Maslov's "optimal search frequency"): `TF = 0.5 + 0.5·tf/tf_max`,
/// `IDF = −ln(df/N)`, `IDF_opt = sqrt(IDF / opt)` below the optimal IDF `opt` and `opt / IDF`
/// above it; `w = TF · IDF_opt`.
pub fn opt_freq_key(
    doc: &MethodDoc,
    collection: &Collection<'_>,
    settings: &MethodSettings,
) -> Option<u64> {
    let n = collection.docs();
    let tf_max = f64::from(doc.tf_max());
    let opt = settings.opt_idf;
    let weighted = doc
        .counts
        .iter()
        .map(|(term, tf)| {
            let (df, _) = collection.df_cf(term, *tf);
            let idf = -(df / n).ln();
            let idf_opt = if idf < opt {
                (idf.max(0.0) / opt).sqrt()
            } else {
                opt / idf
            };
            (
                term.as_str(),
                (0.5 + 0.5 * f64::from(*tf) / tf_max) * idf_opt,
            )
        })
        .collect();
    top_key(weighted, settings.top_terms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::{close, library};

    fn crc(s: &str) -> Option<u64> {
        Some(u64::from(crc32fast::hash(s.as_bytes())))
    }

    #[test]
    fn tf_takes_the_most_frequent_with_ties_by_term() {
        // apple 3, banana 2, cherry 2, then date, elder, fig, grape once each: the sixth place
        // goes to the alphabetically first of the ties, so date, elder and fig stay.
        let doc = MethodDoc::from_sentences(&[
            "grape fig elder date cherry cherry banana banana apple apple apple",
        ]);
        let s = MethodSettings::default();
        assert_eq!(tf_key(&doc, &s), crc("applebananacherrydateelderfig"));
        // Order of the words in the text does not matter.
        let shuffled = MethodDoc::from_sentences(&[
            "apple banana apple cherry date elder fig grape cherry banana apple",
        ]);
        assert_eq!(tf_key(&doc, &s), tf_key(&shuffled, &s));
        assert_eq!(tf_key(&MethodDoc::default(), &s), None);
    }

    #[test]
    fn bm25_weights_by_hand() {
        let snapshot = library();
        let collection = Collection::new(&snapshot);
        // d1 = apple apple banana cherry: dl = 4, dl_avg = 3.25,
        // k·(1 − b + b·dl/dl_avg) = 2·(0.25 + 0.75·4/3.25) = 2.3461538.
        let doc = MethodDoc::from_sentences(&["apple apple banana cherry"]);
        let w: std::collections::HashMap<&str, f64> =
            bm25_weights(&doc, &collection, &MethodSettings::default())
                .into_iter()
                .collect();
        // apple: TF = 2 / 4.3461538 = 0.4601770; IDF = ln(3.5 / 1.5) = 0.8472979 → 0.3899070
        assert!(close(w["apple"], 0.389_907_0), "{}", w["apple"]);
        // banana: IDF = ln(2.5 / 2.5) = 0 → 0
        assert!(close(w["banana"], 0.0));
        // cherry: TF = 1 / 3.3461538 = 0.2988506; IDF = ln(1.5 / 3.5) = −0.8472979 → −0.2532155
        assert!(close(w["cherry"], -0.253_215_5), "{}", w["cherry"]);
        // Two terms kept: apple, then banana (0 beats cherry's negative weight).
        let two = MethodSettings {
            top_terms: 2,
            ..MethodSettings::default()
        };
        assert_eq!(tf_idf_key(&doc, &collection, &two), crc("applebanana"));
    }

    #[test]
    fn tf_ridf_is_the_seed_signature() {
        let snapshot = library();
        let collection = Collection::new(&snapshot);
        // The seed test's d1: every term kept (fewer than six), alphabetically.
        let doc = MethodDoc::from_sentences(&["apple apple banana cherry"]);
        assert_eq!(tf_ridf_key(&doc, &collection), crc("applebananacherry"));
    }

    #[test]
    fn opt_freq_by_hand() {
        let snapshot = library();
        let collection = Collection::new(&snapshot);
        // d = apple apple banana cherry elder: tf_max = 2.
        //   apple: TF 1, IDF ln 4 = 1.3862944
        //   banana: TF 0.75, IDF ln 2 = 0.6931472
        //   cherry: TF 0.75, IDF ln(4/3) = 0.2876821
        //   elder: TF 0.75, IDF ln 4 = 1.3862944
        let doc = MethodDoc::from_sentences(&["apple apple banana cherry elder"]);
        // opt = 11.5: every IDF is below it, IDF_opt = sqrt(IDF/11.5):
        //   apple 0.3471993, elder 0.75·0.3471993 = 0.2603995, banana 0.75·0.2455068 =
        //   0.1841301, cherry 0.75·0.1581653 = 0.1186240. Top two: apple, elder.
        let two = MethodSettings {
            top_terms: 2,
            ..MethodSettings::default()
        };
        assert_eq!(opt_freq_key(&doc, &collection, &two), crc("appleelder"));
        // opt = 0.5: above it the weight falls as 0.5/IDF: apple 0.3606738, elder 0.75·0.3606738
        // = 0.2705054, banana 0.75·0.7213475 = 0.5410106, cherry (below, parabola)
        // 0.75·sqrt(0.2876821/0.5) = 0.5688957. Top two: banana, cherry — the rare words lose.
        let low = MethodSettings {
            opt_idf: 0.5,
            ..two
        };
        assert_eq!(opt_freq_key(&doc, &collection, &low), crc("bananacherry"));
    }
}
