//! The near-duplicate signature methods A0–A12 of the seed comparison paper (seed 002, §4–§6),
//! each a pure function from a document's analysis and the library statistics to a signature.
//!
//! Every method reads the same [`MethodDoc`] (the analyzer's stemmed terms, stop words and words
//! under three letters dropped, with sentence boundaries) and the same [`Collection`] (`N`,
//! `df`, `cf` from a [`StatsSnapshot`](crate::StatsSnapshot), plus what A9 learns from
//! the library). Two documents are found as near-duplicates by a method when:
//!
//! - A0–A10: they share a key ([`Signed::Keys`]; one key for the single-hash methods, several
//!   for A6 megashingles and A7 randomized lexicons), grouped by [`pairs_sharing_a_key`];
//! - A11 "decomposition": they sit near each other in a length-ordered chain of documents
//!   sharing a sampled shingle and pass the direct comparison ([`decomposition_pairs`]);
//! - A12 "3+5": they sit near each other in a length-ordered chain of documents sharing one of
//!   their three longest sentences and agree on the paper's rules ([`three_five_pairs`]).
//!
//! Where the paper leaves a parameter open the choice is a field of [`MethodSettings`], with the
//! reason in its doc comment.

mod collection;
mod crc;
mod decomposition;
mod document;
mod lexical;
mod md5;
mod pairs;
mod sentences;
mod settings;
mod shingled;
mod sign;
mod three_five;
mod top_terms;

pub use collection::{Collection, DescriptorWords};
pub use decomposition::{DecompositionRecord, decomposition_pairs, decomposition_record};
pub use document::MethodDoc;
pub use lexical::{descr_words_keys, lexrand_keys};
pub use md5::md5_key;
pub use pairs::{FoundPairs, pairs_sharing_a_key};
pub use sentences::{heavy_sent_key, long_sent_key};
pub use settings::{Method, MethodSettings, ParseMethodError, SettingError};
pub use shingled::{log_shingles_key, megashingle_keys};
pub use sign::{Signed, sign};
pub use three_five::{ThreeFiveRecord, three_five_duplicates, three_five_pairs, three_five_record};
pub use top_terms::{bm25_weights, opt_freq_key, tf_idf_key, tf_key, tf_ridf_key};

pub(crate) use crc::crc32_of;
