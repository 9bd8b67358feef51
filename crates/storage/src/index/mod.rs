//! Per-library tantivy indexes: the schema declared in `index_schema/`, the content index,
//! statistics snapshots built from its postings, and per-generation signature indexes.

mod browse;
mod candidates;
mod document;
mod encoding;
mod error;
mod library_index;
mod open;
mod phrase;
mod postings;
mod query;
mod raw;
mod rebuild;
pub(crate) mod runs;
mod schema;
mod search;
mod signatures;
mod snapshot;
mod stats;
mod stopwords;
mod stored;
mod tokenizer;
mod upgrade;
mod view;
mod woven;
mod write;

#[cfg(test)]
mod testing;

pub use browse::{DocumentPage, DocumentSummary, SortKey, SortOrder};
pub use document::{
    DocKey, DocumentMeta, PreparedDocument, StoredDocument, StoredForCheck, TermCounts,
    content_hash, doc_key,
};
pub(crate) use encoding::{decode_shingles, encode_shingles};
pub use error::IndexError;
pub use library_index::{IndexOptions, IndexSummary, LibraryIndex};
pub use open::{current_generation, prepare_schema};
pub use phrase::PHRASE_CHECKS;
pub use query::{QueryError, translate_query};
pub(crate) use rebuild::pace;
pub use rebuild::{RebuildControl, RebuildOutcome};
pub use schema::{ContentSchema, SignatureSchema};
pub use search::{SNIPPET_CHARS, SearchError, SearchHit, SearchResults, snippet_html};
pub use signatures::SignatureIndex;
pub use stopwords::default_analyzer;
pub use tokenizer::{AnalyzerTokenizer, TOKENIZER_NAME};
pub use view::{LibraryView, MAX_SEARCH_TERMS, ShingleHits, ShingleQuery, ShingleSearch};
pub use write::{LONG_TEXT, LONG_TEXT_TOKENS};
