//! The storage seam: what the service needs from wherever a library's documents, statistics and
//! signatures live. Two backends implement it: tantivy ([`tantivy`], the embedded default, one
//! index per library under the data directory) and PostgreSQL ([`postgres`], one database that
//! Citus can distribute by library).
//!
//! The seam is three traits, from the outside in:
//! - [`Storage`]: the libraries of one backend (create, open, delete, list);
//! - [`LibraryStore`]: one library (write a batch, delete, its summary, browse, re-index, and a
//!   read view);
//! - [`ReadView`]: one consistent read of a library pinned to one statistics generation, through
//!   which every lookup and stored read of a check goes.
//!
//! Errors stay [`IndexError`]s, so that the check, the catalog and the API keep one error path;
//! a backend's own failures travel as [`IndexError::Storage`].

pub mod index;
pub mod ingest;
pub mod phrases;
pub mod postgres;
pub mod tantivy;

use std::borrow::Cow;
use std::sync::Arc;

use crate::index::{
    DocKey, DocumentPage, IndexError, IndexSummary, PreparedDocument, RebuildControl,
    RebuildOutcome, SearchError, SearchResults, ShingleSearch, SortKey, SortOrder, StoredDocument,
    StoredForCheck,
};
use dupfinder_signature::{RobustScheme, StatsSnapshot};

pub use config::{PostgresConfig, StorageConfig};
pub use error::StorageError;
pub use kept::{AddedPhrase, Held, Kept, KeptLock, KeptRows, Phrase};
pub use library_id::LibraryId;

mod config;
mod error;
mod kept;
mod library_id;

/// Which backend keeps the libraries (`[storage] backend`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// One tantivy index per library under the data directory.
    #[default]
    Tantivy,
    /// One PostgreSQL database (`[storage.postgres] url`).
    Postgres,
}

impl Backend {
    /// The name `[storage] backend` spells it with.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Tantivy => "tantivy",
            Backend::Postgres => "postgres",
        }
    }
}

/// One consistent read of a library: a statistics generation and the documents as of one
/// moment. Writes and generation switches after the view was taken do not change what it reads.
pub trait ReadView {
    /// The statistics generation the view's signatures were computed against.
    fn generation(&self) -> u64;

    /// The robust signature variants of the view's generation.
    fn scheme(&self) -> RobustScheme;

    /// The statistics of the view's generation: `N`, and `df` and `cf` of at least the terms of
    /// `terms` (a backend may answer with every term it has at hand).
    fn statistics(&self, terms: &[(String, u32)]) -> Result<Cow<'_, StatsSnapshot>, IndexError>;

    /// Live documents whose content hash is `hash`.
    fn with_content_hash(&self, hash: u64, limit: usize) -> Result<Vec<DocKey>, IndexError>;

    /// Live documents whose seed signature is `seed`.
    fn with_seed(&self, seed: u32, limit: usize) -> Result<Vec<DocKey>, IndexError>;

    /// Live documents having `signature` among their robust signatures.
    fn with_robust(&self, signature: u64, limit: usize) -> Result<Vec<DocKey>, IndexError>;

    /// [`ReadView::with_robust`] for each of `signatures`, in their order. A backend where a
    /// lookup is a round trip answers them all in one.
    fn with_robust_each(
        &self,
        signatures: &[u64],
        limit: usize,
    ) -> Result<Vec<Vec<DocKey>>, IndexError> {
        signatures
            .iter()
            .map(|signature| self.with_robust(*signature, limit))
            .collect()
    }

    /// Which live documents share sampled shingles with a query (see
    /// [`crate::index::LibraryView::shingle_search`] for the meaning of each argument).
    fn shingle_search(
        &self,
        shingles: &[u64],
        max_df: u64,
        min_hits: u32,
        limit: usize,
    ) -> Result<ShingleSearch, IndexError>;

    /// The stored document `key`, if it is live in this view.
    fn stored(&self, key: DocKey) -> Result<Option<StoredDocument>, IndexError>;

    /// The stored document `key` with what verification needs, if it is live in this view.
    fn stored_for_check(&self, key: DocKey) -> Result<Option<StoredForCheck>, IndexError>;

    /// [`ReadView::stored_for_check`] for each of `keys`, in their order. A backend where a read
    /// is a round trip answers them all in one: a check verifies dozens of candidates.
    fn stored_for_check_each(
        &self,
        keys: &[DocKey],
    ) -> Result<Vec<Option<StoredForCheck>>, IndexError> {
        keys.iter().map(|key| self.stored_for_check(*key)).collect()
    }

    /// [`ReadView::stored`] for each of `keys`, in their order. A backend where a read is a
    /// round trip answers them all in one: building clusters looks up every member.
    fn stored_each(&self, keys: &[DocKey]) -> Result<Vec<Option<StoredDocument>>, IndexError> {
        keys.iter().map(|key| self.stored(*key)).collect()
    }

    /// The live document `doc_id`.
    fn document(&self, doc_id: &str) -> Result<Option<StoredDocument>, IndexError> {
        self.stored(DocKey::of(doc_id))
    }

    /// Keys of every live document.
    fn keys(&self) -> Result<Vec<DocKey>, IndexError>;
}

/// One library of a backend.
pub trait LibraryStore: Send + Sync {
    /// A read view pinned to the current generation and the documents committed now.
    fn view(&self) -> Result<Box<dyn ReadView + '_>, IndexError>;

    /// Where the state kept with the library lives: its boilerplate phrases, its dedup job's
    /// checkpoint, edges, clusters and alerts (see [`Kept`]).
    fn kept(&self) -> Kept;

    /// Writes documents durably, each signed against the current generation; a document whose
    /// id exists replaces it (upsert by id).
    fn write(&self, documents: &[PreparedDocument]) -> Result<(), IndexError>;

    /// Deletes the document `doc_id`; whether it was there.
    fn delete(&self, doc_id: &str) -> Result<bool, IndexError>;

    /// Counts describing the library now.
    fn summary(&self) -> Result<IndexSummary, IndexError>;

    /// A page of live documents in the order asked for.
    fn browse(
        &self,
        sort: SortKey,
        order: SortOrder,
        limit: usize,
        offset: usize,
    ) -> Result<DocumentPage, IndexError>;

    /// Searches the library's documents (the query language of [`crate::index::search`]);
    /// `limit` hits from `offset`, best first.
    fn search(
        &self,
        query: &str,
        limit: usize,
        offset: usize,
    ) -> Result<SearchResults, SearchError>;

    /// Re-indexes: counts statistics over live documents, signs every document into a new
    /// generation and switches to it atomically; an interrupted re-index is resumed. Waits while
    /// another re-index of the library runs.
    fn reindex(
        &self,
        control: &RebuildControl<'_>,
        progress: &mut dyn FnMut(u64),
    ) -> Result<RebuildOutcome, IndexError>;

    /// The right to re-index the library, or `None` at once when a re-index of it holds that
    /// right elsewhere (another process on a shared database). The server's jobs re-index
    /// through a claim, so that a job runs once however many processes serve the library.
    fn claim_reindex(self: Arc<Self>) -> Result<Option<Box<dyn ReindexClaim>>, IndexError>;

    /// Whether a re-index of the library was left unfinished, and why.
    fn unfinished_reindex(&self) -> Result<UnfinishedReindex, IndexError>;
}

/// The right to re-index one library, held until it is dropped: no other claim on the library
/// is granted meanwhile.
pub trait ReindexClaim: Send {
    /// Re-indexes, as [`LibraryStore::reindex`] does, without waiting for anyone.
    fn reindex(
        &mut self,
        control: &RebuildControl<'_>,
        progress: &mut dyn FnMut(u64),
    ) -> Result<RebuildOutcome, IndexError>;

    /// Marks the library's unfinished generation as paused by an operator (`true`), or takes
    /// the mark away (`false`). A backend that keeps no such mark ignores it.
    fn set_paused(&mut self, paused: bool) -> Result<(), IndexError>;
}

/// What is left of a library's last re-index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnfinishedReindex {
    /// Nothing: the last re-index finished, or none was started.
    None,
    /// A generation was left half signed by a stop or a crash: the next re-index resumes it.
    Interrupted,
    /// A generation was left half signed by an operator's abort: resume sweeps leave it alone.
    Paused,
}

/// The libraries of one backend.
pub trait Storage: Send + Sync {
    /// Creates the library `id` (or opens it when it exists).
    fn create(&self, id: &str) -> Result<Arc<dyn LibraryStore>, IndexError>;

    /// Opens the library `id`, if it exists.
    fn open(&self, id: &str) -> Result<Option<Arc<dyn LibraryStore>>, IndexError>;

    /// Deletes the library `id` and everything in it; whether it existed.
    fn delete(&self, id: &str) -> Result<bool, IndexError>;

    /// The ids of every library, sorted.
    fn list(&self) -> Result<Vec<String>, IndexError>;
}
