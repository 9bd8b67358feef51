//! The backends and what each offers: its libraries, their records and writes, and the features
//! only one of them has. The service holds one [`Storage`], chosen by [`open_storage`] from
//! `[storage] backend`, and never asks which backend it is.

use std::path::Path;
use std::sync::Arc;

use super::library::LibraryStore;
use super::postgres::PgStorage;
use super::tantivy::TantivyStorage;
use crate::index::{IndexOptions, LibraryIndex, PreparedDocument};
use crate::{BackendError, LibraryId, LibraryRecord, RecordChange, StorageConfig};
use dupfinder_signature::RobustScheme;
use dupfinder_text::analysis::Analyzer;

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

/// Opens the backend `config` names: the libraries of the data directory (created when missing),
/// or the database, connected and migrated, with the data directory taken for this process.
pub fn open_storage(
    config: &StorageConfig,
    analyzer: &Analyzer,
    scheme: RobustScheme,
) -> Result<Arc<dyn Storage>, BackendError> {
    Ok(match config.backend {
        Backend::Tantivy => {
            let options = IndexOptions {
                writer_memory: config.writer_memory_mb.max(15) * 1_000_000,
                robust: scheme,
            };
            Arc::new(TantivyStorage::open(
                &config.data_dir,
                analyzer.clone(),
                options,
            )?)
        }
        Backend::Postgres => {
            Arc::new(PgStorage::connect(&config.postgres, scheme)?.hold_data_dir(&config.data_dir)?)
        }
    })
}

/// The libraries of one backend: their records, their writes with what a failed one leaves
/// behind, and the features only some backends offer (the others answer
/// [`BackendError::Unsupported`]).
pub trait Storage: Send + Sync {
    /// Which backend this is.
    fn backend(&self) -> Backend;

    /// Creates the library `id` with a record of its id alone (or opens it when it exists).
    fn create(&self, id: &str) -> Result<Arc<dyn LibraryStore>, BackendError>;

    /// Creates the library `record` declares, keeping the record;
    /// [`crate::RegistryError::Exists`] when the id is taken.
    fn register(&self, record: LibraryRecord) -> Result<(), BackendError>;

    /// Opens the library `id`, if it exists.
    fn open(&self, id: &str) -> Result<Option<Arc<dyn LibraryStore>>, BackendError>;

    /// The library `id`: [`BackendError::InvalidId`] for an id that is not one,
    /// [`BackendError::NotFound`] when it does not exist.
    fn library(&self, id: &str) -> Result<Arc<dyn LibraryStore>, BackendError> {
        LibraryId::parse(id).map_err(BackendError::InvalidId)?;
        self.open(id)?
            .ok_or_else(|| BackendError::NotFound(id.to_string()))
    }

    /// The record of library `id`, if it exists.
    fn record(&self, id: &str) -> Result<Option<LibraryRecord>, BackendError>;

    /// Every library's record, ordered by id.
    fn records(&self) -> Result<Vec<LibraryRecord>, BackendError>;

    /// Changes the record of library `id` by `change`, atomically with every other change of
    /// it (a write stamping `last_indexed` included), and writes it only when it changed. The
    /// library's documents are not touched.
    fn change_record(
        &self,
        id: &str,
        change: &mut dyn FnMut(&mut LibraryRecord),
    ) -> Result<RecordChange, BackendError>;

    /// Records that library `id` was just written to (its record's `last_indexed`).
    fn touch(&self, id: &str) -> Result<(), BackendError>;

    /// Deletes the library `id` and everything in it; whether it existed.
    fn delete(&self, id: &str) -> Result<bool, BackendError>;

    /// The ids of every library, sorted.
    fn list(&self) -> Result<Vec<String>, BackendError>;

    /// Writes `documents` (at least one) to library `id` durably, as
    /// [`LibraryStore::write`] does; the first documents of a library also make its first
    /// statistics snapshot, so that signatures are meaningful from the start.
    fn write(&self, id: &str, documents: &[PreparedDocument]) -> Result<(), BackendError>;

    /// Deletes the document `doc_id` of library `id`; whether it was there.
    fn delete_document(&self, id: &str, doc_id: &str) -> Result<bool, BackendError>;

    /// What a failed write of library `id` (or of the libraries: a creation, a deletion)
    /// answers: a fault of where the backend keeps the library as [`BackendError::Fault`], a
    /// killed index writer as [`BackendError::WriterStopped`], anything else as it is. Every
    /// write of the service passes its failure through here.
    fn write_failed(&self, id: &str, error: BackendError) -> BackendError;

    /// Reopens the writers of library `id` at their last commit, whatever stopped them, so
    /// that it takes writes again without a restart.
    fn reopen_writer(&self, id: &str) -> Result<(), BackendError>;

    /// The open tantivy indexes of library `id`, for the features built on them alone
    /// (evaluation). [`BackendError::NotFound`] for a library that does not exist.
    fn index(&self, id: &str) -> Result<Arc<LibraryIndex>, BackendError>;

    /// Bytes the files of library `id` take on disk; `None` when its storage is not files of
    /// this machine.
    fn disk_bytes(&self, id: &str) -> Option<u64>;

    /// Whether a backup of the data directory holds the libraries: [`BackendError::Unsupported`]
    /// naming `what` when it cannot.
    fn backup_possible(&self, what: &str) -> Result<(), BackendError>;

    /// Copies the registry and every library's committed state into `dest` (which must not
    /// exist), while writes go on; answers each library's documents in the copy. Writes to one
    /// library wait while that library is copied.
    fn snapshot_to(&self, dest: &Path) -> Result<Vec<(String, u64)>, BackendError>;

    /// The libraries that may hold a candidate for a check's `probe` (a superset: a library
    /// left out holds none), or `None` when the backend keeps no map spanning its libraries and
    /// every library must be looked in.
    fn candidate_libraries(
        &self,
        _probe: &crate::candidates::CandidateProbe<'_>,
    ) -> Option<std::collections::HashSet<String>> {
        None
    }

    /// The libraries that may hold a document in `language` (an ISO 639-1 code; a superset),
    /// or `None` when the backend keeps no map spanning its libraries.
    fn libraries_holding_language(
        &self,
        _language: &str,
    ) -> Option<std::collections::HashSet<String>> {
        None
    }

    /// Whether library `id` is open in this process now. A library that stayed closed was not
    /// written meanwhile, so a sweep over every library may pass it over.
    fn is_open(&self, _id: &str) -> bool {
        true
    }

    /// Whether other processes may serve the same libraries at once (a database), so that a
    /// re-index one of them left unfinished is to be looked for again and again, not only at
    /// start.
    fn shared_by_processes(&self) -> bool;

    /// The database the libraries live in, when they live in one: the service keeps its own
    /// records (keys, reports, batches, webhooks, the audit log) there too, so that every
    /// process serving it shares them. `None` for the embedded backend.
    fn database(&self) -> Option<crate::postgres::PgDatabase> {
        None
    }
}
