//! The PostgreSQL backend: every library in one database, in tables keyed by library so that
//! Citus can distribute them by it (see `migrations/` and DISTRIBUTED.md).
//!
//! The client is tokio-postgres with a deadpool-postgres pool: the one maintained asynchronous
//! PostgreSQL driver of the Rust ecosystem, pipelining and prepared-statement caching included,
//! and a pool without background threads. sqlx would add its query macros' machinery and its
//! own runtime layer for nothing we use. The seam is synchronous (a check runs on the blocking
//! pool), so the backend owns a small tokio runtime and blocks on it. Called from a task of the
//! server's own (multi-threaded) runtime, it first hands the task's thread over
//! (`block_in_place`), so that a database round trip never stalls the server's other requests.
//!
//! Text search is not delegated to PostgreSQL's `to_tsvector('russian' | 'english')`: the
//! service's own analyzer already folds homoglyphs, `ё`, ligatures and picks a stemmer per word
//! across every language it supports, and statistics, signatures and shingles must all come from
//! that one analysis, or a check on PostgreSQL would answer otherwise than on tantivy. So the
//! database holds the analyzer's terms (`documents.terms`), and the full-text search of a
//! library runs PostgreSQL's text search over a `tsvector` of the analyzer's tokens
//! (`documents.search`, see `search.rs`): a search finds on PostgreSQL what it finds on tantivy.

mod claim;
mod database;
mod kept;
mod library;
mod meta;
mod migrate;
mod registry;
mod search;
mod view;

pub use claim::PgReindexClaim;
pub use database::{PgDatabase, PgStorage};
pub use library::PgLibrary;
pub use view::PgView;
