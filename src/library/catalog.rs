//! The catalog: every library the service serves — its registry record and its storage — and
//! the operations the API and the CLI share.
//!
//! With the embedded backend (tantivy) the registry is a redb file of the data directory and
//! the catalog keeps each library's indexes open. With PostgreSQL the registry is in the
//! database (`libraries.record`) and every lookup reads it there, so that several processes
//! serving one database see each other's libraries at once; the data directory then keeps only
//! what is the process's own (keys, reports, webhooks, the crawl queue). Features still built
//! on the tantivy index alone (crawling, backups, reopening a writer, full-text search) answer
//! [`LibraryError::Unsupported`] on PostgreSQL.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::RwLock;

use serde::Serialize;

use super::LibraryId;
use super::StorageFault;
use super::jobs::JobKind;
use super::keys::{KeyError, KeyStore};
use super::{LibraryRecord, Registry, RegistryError};
use crate::analysis::Analyzer;
use crate::batch::BatchStore;
use crate::check::CheckError;
use crate::clock::unix_now;
use crate::config::Config;
use crate::error_code::ErrorCode;
use crate::extract::Extractions;
use crate::index::{IndexError, IndexOptions, IndexSummary, LibraryIndex, default_analyzer};
use crate::reports::{Report, ReportError, ReportStore};
use crate::storage::ingest::DocumentError;
use crate::storage::postgres::PgStorage;
use crate::storage::{Backend, LibraryStore, Storage};
use crate::webhooks::{Event, WebhookStore};

/// What can go wrong at the catalog level.
#[derive(Debug, thiserror::Error)]
pub enum LibraryError {
    #[error("{0}")]
    InvalidId(String),
    #[error("library `{0}` does not exist")]
    NotFound(String),
    #[error(transparent)]
    Registry(#[from] RegistryError),
    #[error(transparent)]
    Index(#[from] IndexError),
    /// A check could not run (its request, its text, its work budget).
    #[error(transparent)]
    Check(CheckError),
    #[error("I/O error at {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "library `{0}` takes no more writes after a failed one; reopen its writer \
         (POST /api/v1/libraries/{0}/writer) or restart the server"
    )]
    WriterStopped(String),
    #[error(transparent)]
    Keys(#[from] KeyError),
    #[error(transparent)]
    Reports(#[from] ReportError),
    /// A write failed because of the data directory (see [`Catalog::write_failed`]).
    #[error("{fault:?} storage: {reason}")]
    Storage { fault: StorageFault, reason: String },
    /// What was asked is not built on the configured backend yet.
    #[error("{what} is not available with [storage] backend = \"{backend}\" yet")]
    Unsupported { backend: &'static str, what: String },
    /// Another process serving the same database runs this job (a re-index or the dedup job)
    /// of this library.
    #[error(
        "library `{library}` is being {} by another server process on the same database; \
         follow it there, or ask again when it has finished",
        job.doing()
    )]
    JobRunningElsewhere { library: String, job: JobKind },
    /// A batch of the job table could not be read.
    #[error(transparent)]
    Batch(#[from] crate::batch::BatchError),
}

impl From<CheckError> for LibraryError {
    /// A storage failure met by a check is the library's, like any other read's.
    fn from(e: CheckError) -> Self {
        match e {
            CheckError::Storage(e) => LibraryError::Index(e),
            e => LibraryError::Check(e),
        }
    }
}

impl LibraryError {
    /// The stable code of this failure: a client's (an invalid or unknown library), the
    /// server's state (a stopped writer, a fault of the data directory) or
    /// [`ErrorCode::Internal`].
    pub fn code(&self) -> ErrorCode {
        match self {
            LibraryError::InvalidId(_) => ErrorCode::InvalidLibraryId,
            LibraryError::Check(e) => e.code(),
            LibraryError::Registry(RegistryError::Exists(_)) => ErrorCode::LibraryExists,
            LibraryError::WriterStopped(_) => ErrorCode::WriterStopped,
            LibraryError::Unsupported { .. } => ErrorCode::UnsupportedOnBackend,
            LibraryError::JobRunningElsewhere { .. } => ErrorCode::JobRunningElsewhere,
            // Deleted by another process between the lookup and the statement, too.
            e if e.is_not_found() => ErrorCode::LibraryNotFound,
            LibraryError::Storage { fault, .. } => match fault {
                StorageFault::Full => ErrorCode::StorageFull,
                StorageFault::Unavailable => ErrorCode::StorageUnavailable,
                StorageFault::Transient => ErrorCode::TransientFault,
            },
            _ => ErrorCode::Internal,
        }
    }

    /// Whether the library does not exist (any more): looked up and not found, or deleted by
    /// another process while a statement on it ran.
    pub fn is_not_found(&self) -> bool {
        match self {
            LibraryError::NotFound(_) => true,
            LibraryError::Index(e) => e.is_no_such_library(),
            _ => false,
        }
    }
}

mod on_postgres;
mod write;

/// A new library as declared by an operator.
#[derive(Debug, Clone, Default)]
pub struct NewLibrary {
    pub id: String,
    pub name: Option<String>,
    pub start_url: Option<String>,
    pub clarifications: Vec<String>,
    pub sitemap_url: Option<String>,
    pub use_sitemaps: bool,
    pub oai_url: Option<String>,
    pub oai_set: Option<String>,
}

/// A library as the API shows it: its record and its index figures.
#[derive(Debug, Clone, Serialize)]
pub struct LibraryInfo {
    pub id: String,
    pub name: String,
    pub start_url: Option<String>,
    pub clarifications: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sitemap_url: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub use_sitemaps: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oai_url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oai_set: Option<String>,
    pub documents: u64,
    pub words: u64,
    pub last_indexed: Option<u64>,
    pub status: LibraryStatus,
    pub stats_generation: u64,
    pub drift: f64,
}

/// Whether a library holds documents (a crawl's status replaces it while the library is
/// crawled or after it was).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LibraryStatus {
    Empty,
    Ready,
}

/// How documents reach a library, for the metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IngestPath {
    /// Sent to the HTTP API.
    Api,
    /// Read from a corpus file by `dupfinder import`.
    Import,
    /// Found by the crawler.
    Crawl,
}

impl IngestPath {
    /// Every path, in a fixed order.
    pub const ALL: [IngestPath; 3] = [IngestPath::Api, IngestPath::Import, IngestPath::Crawl];

    pub fn as_str(self) -> &'static str {
        match self {
            IngestPath::Api => "api",
            IngestPath::Import => "import",
            IngestPath::Crawl => "crawl",
        }
    }
}

/// The outcome of an ingest: how many documents were written, and which lines were not.
#[derive(Debug, Clone, Default, Serialize)]
pub struct IngestReport {
    pub accepted: usize,
    pub rejected: Vec<RejectedLine>,
}

/// A document that was not accepted, with its 1-based line and the reason.
#[derive(Debug, Clone, Serialize)]
pub struct RejectedLine {
    pub line: usize,
    pub error: RejectedReason,
}

/// Why a line was rejected, as a stable code and a message.
#[derive(Debug, Clone, Serialize)]
pub struct RejectedReason {
    pub code: ErrorCode,
    pub message: String,
}

impl From<&DocumentError> for RejectedReason {
    fn from(e: &DocumentError) -> Self {
        RejectedReason {
            code: e.code(),
            message: e.to_string(),
        }
    }
}

/// A folder name for a library created now: its id and the time, so that it differs from the
/// folder of any earlier library of the same id.
fn new_folder_name(id: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{id}.{nanos:x}")
}

/// Every library the service serves, and the process's own stores.
pub struct Catalog {
    data_dir: PathBuf,
    registry: Registry,
    keys: KeyStore,
    reports: ReportStore,
    webhooks: WebhookStore,
    batches: BatchStore,
    analyzer: Analyzer,
    config: Config,
    /// The libraries' database when `[storage] backend = "postgres"`; `None`: tantivy, the
    /// open indexes below.
    postgres: Option<PgStorage>,
    indexes: RwLock<HashMap<String, Arc<LibraryIndex>>>,
    /// Libraries whose index writer failed a write for a cause other than a storage fault
    /// (damage, or a cause not known): they refuse writes until an operator reopens the writer
    /// ([`Catalog::reopen_writer`]) or the process restarts.
    stopped_writers: RwLock<HashSet<String>>,
    /// Libraries whose last write failed with a storage fault (full, read-only, short of
    /// descriptors or memory): after a failed commit a writer's state is unknown (a later commit
    /// has been seen to answer `Ok` without the documents), so their next write first puts the
    /// writers back to the last commit ([`LibraryIndex::reset_writers`]).
    writers_to_reset: RwLock<HashSet<String>>,
    /// Documents written since the process started, by [`IngestPath`].
    ingested: [std::sync::atomic::AtomicU64; 3],
    /// Every file extraction of the process goes through these places.
    extractions: Extractions,
}

impl Catalog {
    /// Opens the data directory (creating it when missing) and every library in it, or, with
    /// PostgreSQL, connects to the database and applies its migrations.
    pub fn open(config: &Config) -> Result<Catalog, LibraryError> {
        let postgres = match config.storage.backend {
            Backend::Tantivy => None,
            Backend::Postgres => Some(PgStorage::connect(
                &config.storage.postgres,
                config.signatures.scheme(),
            )?),
        };
        let data_dir = config.storage.data_dir.clone();
        // With PostgreSQL the data directory holds no library: no `libraries/` folder.
        let folder = match postgres {
            None => data_dir.join("libraries"),
            Some(_) => data_dir.clone(),
        };
        std::fs::create_dir_all(folder).map_err(|source| LibraryError::Io {
            path: data_dir.clone(),
            source,
        })?;
        let registry = Registry::open(&data_dir.join("registry.redb"))?;
        let keys = KeyStore::open(&data_dir.join("keys.redb"))?;
        let reports = ReportStore::open(&data_dir.join("reports.redb"))?;
        let webhooks = WebhookStore::open(reports.database()).map_err(|e| {
            LibraryError::Reports(ReportError::Store {
                path: data_dir.join("reports.redb"),
                reason: e.to_string(),
            })
        })?;
        let batches = BatchStore::open(reports.database()).map_err(|e| {
            LibraryError::Reports(ReportError::Store {
                path: data_dir.join("reports.redb"),
                reason: e.to_string(),
            })
        })?;
        let catalog = Catalog {
            data_dir,
            registry,
            keys,
            reports,
            webhooks,
            batches,
            analyzer: default_analyzer(),
            config: config.clone(),
            postgres,
            indexes: RwLock::new(HashMap::new()),
            stopped_writers: RwLock::new(HashSet::new()),
            writers_to_reset: RwLock::new(HashSet::new()),
            ingested: Default::default(),
            extractions: Extractions::new(&config.extract),
        };
        if catalog.postgres.is_some() {
            // The libraries live in the database; the data directory's `libraries/` folder is
            // not theirs (it may hold a tantivy data directory's libraries): left untouched.
            return Ok(catalog);
        }
        let records = catalog.registry.list()?;
        for record in &records {
            let index = catalog.open_index(record)?;
            catalog
                .indexes
                .write()
                .insert(record.id.clone(), Arc::new(index));
        }
        catalog.remove_deleted_folders(&records);
        Ok(catalog)
    }

    fn index_options(&self) -> IndexOptions {
        IndexOptions {
            writer_memory: self.config.storage.writer_memory_mb.max(15) * 1_000_000,
            robust: self.config.signatures.scheme(),
        }
    }

    /// The folder of the library `record` declares.
    fn library_dir(&self, record: &LibraryRecord) -> PathBuf {
        let name = record.dir.as_deref().unwrap_or(&record.id);
        self.data_dir.join("libraries").join(name)
    }

    fn open_index(&self, record: &LibraryRecord) -> Result<LibraryIndex, LibraryError> {
        Ok(LibraryIndex::open(
            &self.library_dir(record),
            &self.analyzer,
            &self.index_options(),
        )?)
    }

    /// Copies the registry, the keys and every library's committed state into `dest` (which
    /// must not exist), while the server goes on; answers each library's documents in the copy.
    /// Writes to one library wait while that library is copied.
    pub fn snapshot_to(&self, dest: &Path) -> Result<Vec<(String, u64)>, LibraryError> {
        self.require_tantivy("a backup of the data directory")?;
        let libraries_dir = dest.join("libraries");
        std::fs::create_dir_all(&libraries_dir).map_err(|source| LibraryError::Io {
            path: libraries_dir.clone(),
            source,
        })?;
        let registry_copy = dest.join("registry.redb");
        self.registry.copy_to(&registry_copy)?;
        self.keys.copy_to(&dest.join("keys.redb"))?;
        self.reports.copy_to(&dest.join("reports.redb"))?;
        let mut copied = Vec::new();
        let mut deleted = Vec::new();
        let copied_registry = Registry::open(&registry_copy)?;
        for record in copied_registry.list()? {
            match self.index(&record.id) {
                Ok(index) => {
                    // The copy keeps the library's own folder name, which its record names.
                    let folder = index.dir().file_name().unwrap_or_default().to_owned();
                    let documents = index.snapshot_to(&libraries_dir.join(folder))?;
                    copied.push((record.id, documents));
                }
                Err(LibraryError::NotFound(_)) => deleted.push(record.id),
                Err(e) => return Err(e),
            }
        }
        // Deleted while the copy was taken: the copy holds neither record nor files.
        for id in deleted {
            copied_registry.remove(&id)?;
        }
        Ok(copied)
    }

    /// The stored reports.
    pub fn reports(&self) -> &ReportStore {
        &self.reports
    }

    /// Batches of files being checked or checked.
    pub fn batches(&self) -> &BatchStore {
        &self.batches
    }

    /// The registered webhooks, their outbox and delivery log.
    pub fn webhooks(&self) -> &WebhookStore {
        &self.webhooks
    }

    /// Keeps `report` and writes the `report.completed` event announcing it to the webhook
    /// outbox in the same commit (durable when this returns).
    pub fn keep_report(&self, report: &mut Report) -> Result<(), ReportError> {
        self.keep_report_with(report, |_| Ok(()))
    }

    /// [`Catalog::keep_report`], with whatever `also` writes in the same commit (a batch's
    /// line for the file).
    pub fn keep_report_with(
        &self,
        report: &mut Report,
        also: impl FnOnce(&redb::WriteTransaction) -> Result<(), String>,
    ) -> Result<(), ReportError> {
        let mut announced = 0;
        self.reports.insert_with(report, |txn, report| {
            announced = self
                .webhooks
                .announce_in(txn, &Event::report_completed(report))
                .map_err(|e| e.to_string())?;
            also(txn)
        })?;
        if announced > 0 {
            self.webhooks.wake();
        }
        Ok(())
    }

    /// Removes the folders no library declares: those of libraries deleted while their files
    /// were still in use.
    fn remove_deleted_folders(&self, records: &[LibraryRecord]) {
        let kept: HashSet<PathBuf> = records.iter().map(|r| self.library_dir(r)).collect();
        let Ok(entries) = std::fs::read_dir(self.data_dir.join("libraries")) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir()
                && !kept.contains(&path)
                && let Err(e) = std::fs::remove_dir_all(&path)
            {
                tracing::warn!(dir = %path.display(), error = %e, "could not remove a deleted library's files");
            }
        }
    }

    /// Whether `index` is still the open index of library `id` (not deleted, not created anew
    /// since it was looked up).
    fn is_current(
        &self,
        indexes: &HashMap<String, Arc<LibraryIndex>>,
        id: &str,
        index: &Arc<LibraryIndex>,
    ) -> bool {
        indexes
            .get(id)
            .is_some_and(|current| Arc::ptr_eq(current, index))
    }

    /// The analyzer every library uses.
    pub fn analyzer(&self) -> &Analyzer {
        &self.analyzer
    }

    /// The places, bounds and stop of the process's file extractions.
    pub fn extractions(&self) -> &Extractions {
        &self.extractions
    }

    /// The configuration the catalog was opened with.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The data directory.
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// Whether the data directory can take a write now: creates, fills (1 MiB), syncs and
    /// removes a probe file. Used after a write failed, to tell a full or read-only data
    /// directory from other failures when the index library reports its I/O errors as text.
    pub fn probe_storage(&self) -> Result<(), std::io::Error> {
        use std::io::Write;
        let path = self.data_dir.join(".storage-probe");
        let written = std::fs::File::create(&path).and_then(|mut file| {
            file.write_all(&[0u8; 1 << 20])?;
            file.sync_all()
        });
        let _ = std::fs::remove_file(&path);
        written
    }

    /// The API keys and the audit log.
    pub fn keys(&self) -> &KeyStore {
        &self.keys
    }

    /// Counts `documents` written by `path` (for the metrics).
    pub fn count_ingested(&self, path: IngestPath, documents: u64) {
        let slot = IngestPath::ALL.iter().position(|p| *p == path).unwrap_or(0);
        self.ingested[slot].fetch_add(documents, std::sync::atomic::Ordering::Relaxed);
    }

    /// Documents written since the process started, by path.
    pub fn ingested(&self) -> Vec<(IngestPath, u64)> {
        IngestPath::ALL
            .iter()
            .zip(&self.ingested)
            .map(|(path, count)| (*path, count.load(std::sync::atomic::Ordering::Relaxed)))
            .collect()
    }

    /// Bytes the files of library `id` take on disk; `None` when its storage is not files of
    /// this machine (PostgreSQL).
    pub fn disk_bytes(&self, id: &str) -> Option<u64> {
        if self.postgres.is_some() {
            return None;
        }
        let Ok(index) = self.index(id) else {
            return Some(0);
        };
        let mut total = 0;
        let mut pending = vec![index.dir().to_path_buf()];
        while let Some(dir) = pending.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                match entry.metadata() {
                    Ok(meta) if meta.is_dir() => pending.push(entry.path()),
                    Ok(meta) => total += meta.len(),
                    Err(_) => {}
                }
            }
        }
        Some(total)
    }

    /// Declares a new library and creates its (empty) indexes.
    pub fn create(&self, spec: NewLibrary) -> Result<LibraryInfo, LibraryError> {
        let id = spec.id.clone();
        self.create_library(spec)
            .map_err(|e| self.write_failed(&id, e))
    }

    fn create_library(&self, spec: NewLibrary) -> Result<LibraryInfo, LibraryError> {
        let id = LibraryId::parse(&spec.id).map_err(LibraryError::InvalidId)?;
        let record = LibraryRecord {
            id: id.to_string(),
            name: spec.name.unwrap_or_else(|| id.to_string()),
            start_url: spec.start_url,
            clarifications: spec.clarifications,
            sitemap_url: spec.sitemap_url,
            use_sitemaps: spec.use_sitemaps,
            oai_url: spec.oai_url,
            oai_set: spec.oai_set,
            created_at: unix_now(),
            last_indexed: None,
            dir: self
                .postgres
                .is_none()
                .then(|| new_folder_name(id.as_str())),
        };
        if let Some(postgres) = &self.postgres {
            on_postgres::create(postgres, &record)?;
            return self.describe(id.as_str());
        }
        let mut indexes = self.indexes.write();
        self.registry.insert(&record)?;
        let index = match self.open_index(&record) {
            Ok(index) => index,
            Err(e) => {
                let _ = self.registry.remove(id.as_str());
                return Err(e);
            }
        };
        indexes.insert(id.to_string(), Arc::new(index));
        drop(indexes);
        self.describe(id.as_str())
    }

    /// Library `id` through the storage seam, whichever backend keeps it. With PostgreSQL it is
    /// looked up in the database at each call: a library another process deleted is not found.
    pub fn store(&self, id: &str) -> Result<Arc<dyn LibraryStore>, LibraryError> {
        let Some(postgres) = &self.postgres else {
            let index: Arc<dyn LibraryStore> = self.index(id)?;
            return Ok(index);
        };
        LibraryId::parse(id).map_err(LibraryError::InvalidId)?;
        postgres
            .open(id)?
            .ok_or_else(|| LibraryError::NotFound(id.to_string()))
    }

    /// The open tantivy indexes of library `id`, for the features built on them alone. With
    /// PostgreSQL: [`LibraryError::NotFound`] for a library that does not exist, else
    /// [`LibraryError::Unsupported`].
    pub fn index(&self, id: &str) -> Result<Arc<LibraryIndex>, LibraryError> {
        LibraryId::parse(id).map_err(LibraryError::InvalidId)?;
        if self.postgres.is_some() {
            self.store(id)?;
            return Err(self.unsupported(
                "this operation (it reads the library's tantivy index, which the database does \
                 not hold)",
            ));
        }
        self.indexes
            .read()
            .get(id)
            .cloned()
            .ok_or_else(|| LibraryError::NotFound(id.to_string()))
    }

    /// The backend that keeps the libraries.
    pub fn backend(&self) -> Backend {
        if self.postgres.is_some() {
            Backend::Postgres
        } else {
            Backend::Tantivy
        }
    }

    /// [`LibraryError::Unsupported`] for `what` on this catalog's backend.
    pub fn unsupported(&self, what: &str) -> LibraryError {
        LibraryError::Unsupported {
            backend: self.backend().name(),
            what: what.to_string(),
        }
    }

    /// Fails with [`LibraryError::Unsupported`] naming `what` unless the libraries are kept by
    /// tantivy: the features not built on the storage seam yet.
    pub fn require_tantivy(&self, what: &str) -> Result<(), LibraryError> {
        match self.postgres {
            None => Ok(()),
            Some(_) => Err(self.unsupported(what)),
        }
    }

    /// Ids of every library, sorted.
    pub fn ids(&self) -> Result<Vec<String>, LibraryError> {
        if let Some(postgres) = &self.postgres {
            return Ok(postgres.list()?);
        }
        let mut ids: Vec<String> = self.indexes.read().keys().cloned().collect();
        ids.sort();
        Ok(ids)
    }

    /// A library's registry record: how it was declared.
    pub fn record(&self, id: &str) -> Result<LibraryRecord, LibraryError> {
        LibraryId::parse(id).map_err(LibraryError::InvalidId)?;
        let record = match &self.postgres {
            Some(postgres) => on_postgres::record(postgres, id)?,
            None => self.registry.get(id)?,
        };
        record.ok_or_else(|| LibraryError::NotFound(id.to_string()))
    }

    /// A library with its figures.
    pub fn describe(&self, id: &str) -> Result<LibraryInfo, LibraryError> {
        let store = self.store(id)?;
        let record = self.record(id)?;
        let summary: IndexSummary = store.summary()?;
        Ok(LibraryInfo {
            id: record.id,
            name: record.name,
            start_url: record.start_url,
            clarifications: record.clarifications,
            sitemap_url: record.sitemap_url,
            use_sitemaps: record.use_sitemaps,
            oai_url: record.oai_url,
            oai_set: record.oai_set,
            documents: summary.documents,
            words: summary.words,
            last_indexed: record.last_indexed,
            status: if summary.documents == 0 {
                LibraryStatus::Empty
            } else {
                LibraryStatus::Ready
            },
            stats_generation: summary.generation,
            drift: summary.drift,
        })
    }

    /// Every library with its figures, sorted by id. A library deleted meanwhile (by another
    /// process on a shared database) is left out.
    pub fn list(&self) -> Result<Vec<LibraryInfo>, LibraryError> {
        let mut libraries = Vec::new();
        for id in self.ids()? {
            match self.describe(&id) {
                Ok(info) => libraries.push(info),
                Err(e) if e.is_not_found() => {}
                Err(e) => return Err(e),
            }
        }
        Ok(libraries)
    }

    /// Removes a library: its record, its indexes and its files.
    pub fn delete(&self, id: &str) -> Result<(), LibraryError> {
        self.delete_library(id)
            .map_err(|e| self.write_failed(id, e))
    }

    fn delete_library(&self, id: &str) -> Result<(), LibraryError> {
        LibraryId::parse(id).map_err(LibraryError::InvalidId)?;
        if let Some(postgres) = &self.postgres {
            return match postgres.delete(id)? {
                true => Ok(()),
                false => Err(LibraryError::NotFound(id.to_string())),
            };
        }
        let mut indexes = self.indexes.write();
        let Some(index) = indexes.remove(id) else {
            return Err(LibraryError::NotFound(id.to_string()));
        };
        self.registry.remove(id)?;
        self.stopped_writers.write().remove(id);
        self.writers_to_reset.write().remove(id);
        drop(indexes);
        // Requests, jobs and crawls that still hold the index keep reading their view; a write
        // of theirs fails or lands in this folder, which belongs to no library any more, and is
        // answered `library_not_found` (see `write_prepared`).
        let dir = index.dir().to_path_buf();
        drop(index);
        if let Err(e) = std::fs::remove_dir_all(&dir) {
            // The folder is removed on the next start.
            tracing::warn!(dir = %dir.display(), error = %e, "could not remove a deleted library's files");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::library::{DocumentInput, IdValue};

    fn line(id: &str, seed: usize) -> (usize, Result<DocumentInput, DocumentError>) {
        let text = (0..60)
            .map(|i| format!("word{}x{}", (seed * 7919 + i * 104_729) % 5003, i % 11))
            .collect::<Vec<_>>()
            .join(" ");
        let input = DocumentInput {
            id: Some(IdValue::Text(id.to_string())),
            text: Some(text),
            lang: Some("en".to_string()),
            ..Default::default()
        };
        (1, Ok(input))
    }

    /// A library stopped by a failed write refuses writes until its writer is reopened, then
    /// takes them again; one marked for a reset after a storage fault resets on its next
    /// write and takes it. Both keep what was written before.
    #[test]
    fn a_stopped_writer_is_reopened_and_a_faulted_one_reset_without_restart() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = Config::default();
        config.storage.data_dir = dir.path().to_path_buf();
        config.storage.writer_memory_mb = 15;
        let catalog = Catalog::open(&config).unwrap();
        catalog
            .create(NewLibrary {
                id: "lib".to_string(),
                ..Default::default()
            })
            .unwrap();
        catalog.ingest("lib", vec![line("a", 1)]).unwrap();

        catalog.stopped_writers.write().insert("lib".to_string());
        let refused = catalog.ingest("lib", vec![line("b", 2)]).unwrap_err();
        assert!(
            matches!(refused, LibraryError::WriterStopped(_)),
            "{refused:?}"
        );
        catalog.reopen_writer("lib").unwrap();
        assert_eq!(
            catalog.ingest("lib", vec![line("b", 2)]).unwrap().accepted,
            1
        );

        catalog.writers_to_reset.write().insert("lib".to_string());
        assert_eq!(
            catalog.ingest("lib", vec![line("c", 3)]).unwrap().accepted,
            1
        );
        assert!(catalog.writers_to_reset.read().is_empty());
        assert!(catalog.delete_document("lib", "a").unwrap());
        let index = catalog.index("lib").unwrap();
        let view = index.view();
        for (id, present) in [("a", false), ("b", true), ("c", true)] {
            assert_eq!(view.document(id).unwrap().is_some(), present, "{id}");
        }
        assert!(matches!(
            catalog.reopen_writer("missing"),
            Err(LibraryError::NotFound(_))
        ));
    }
}
