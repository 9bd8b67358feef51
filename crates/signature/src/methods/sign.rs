//! One entry point for every method: a document's signature under the method asked for.

use super::{
    Collection, DecompositionRecord, Method, MethodDoc, MethodSettings, ThreeFiveRecord,
    decomposition_record, descr_words_keys, heavy_sent_key, lexrand_keys, log_shingles_key,
    long_sent_key, md5_key, megashingle_keys, opt_freq_key, tf_idf_key, tf_key, tf_ridf_key,
    three_five_record,
};

/// A document's signature under one method.
#[derive(Debug, Clone, PartialEq)]
pub enum Signed {
    /// Keys: documents sharing any one of them are found together. Empty when the document is
    /// too short for the method.
    Keys(Vec<u64>),
    /// A11's record: the sampled shingles and the document's length.
    Decomposition(DecompositionRecord),
    /// A12's record.
    ThreeFive(ThreeFiveRecord),
}

/// The signature of `doc` under `method`.
pub fn sign(
    method: Method,
    doc: &MethodDoc,
    collection: &Collection<'_>,
    settings: &MethodSettings,
) -> Signed {
    let one = |key: Option<u64>| Signed::Keys(key.into_iter().collect());
    match method {
        Method::A0 => one(md5_key(doc)),
        Method::A1 => one(tf_key(doc, settings)),
        Method::A2 => one(tf_idf_key(doc, collection, settings)),
        Method::A3 => one(tf_ridf_key(doc, collection)),
        Method::A4 => one(long_sent_key(doc, settings)),
        Method::A5 => one(heavy_sent_key(doc, collection, settings)),
        Method::A6 => Signed::Keys(megashingle_keys(doc, settings)),
        Method::A7 => Signed::Keys(lexrand_keys(doc, collection, settings)),
        Method::A8 => one(log_shingles_key(doc, settings)),
        Method::A9 => one(descr_words_keys(doc, collection, settings)),
        Method::A10 => one(opt_freq_key(doc, collection, settings)),
        Method::A11 => Signed::Decomposition(decomposition_record(doc, settings)),
        Method::A12 => Signed::ThreeFive(three_five_record(doc, settings)),
    }
}
