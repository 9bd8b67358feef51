//! The catalog: every library the service serves — through one [`Storage`], the backend
//! `[storage] backend` names, chosen when the catalog opens — and the process's own stores
//! (keys, reports, webhooks, batches), with the operations the API and the CLI share.
//!
//! Whatever differs between the backends is the storage's: where a library's record is kept (a
//! redb registry of the data directory, or `libraries.record` of the database, read afresh at
//! every lookup so that several processes serving one database see each other's libraries at
//! once), what a failed write leaves behind, and the features only the embedded backend offers
//! (a backup of the data directory, reopening a writer, the tantivy index itself), which
//! PostgreSQL answers [`BackendError::Unsupported`] for. With PostgreSQL the keys, the audit
//! log, the reports, the batches and the webhooks are in the database too (each store's
//! PostgreSQL implementation, chosen here once), and the data directory keeps only what is the
//! process's own (the crawl queue).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use super::LibraryId;
use super::declare::{DeclarationError, check_schedule, check_url};
use super::jobs::JobKind;
use super::keys::{EmbeddedKeys, KeyError, KeyStore};
use super::keys_pg::PgKeys;
use super::{LibraryRecord, RegistryError};
use crate::batch::{BatchLine, BatchStore, EmbeddedBatches, PgBatches};
use crate::config::Config;
use crate::reports::{EmbeddedReports, PgReports, Report, ReportError, ReportStore};
use crate::webhooks::{EmbeddedWebhooks, PgWebhooks, WebhookStore};
use dupfinder_check::CheckError;
use dupfinder_common::clock::unix_now;
use dupfinder_common::error_code::ErrorCode;
use dupfinder_storage::index::{IndexError, IndexSummary, LibraryIndex, default_analyzer};
use dupfinder_storage::ingest::DocumentError;
use dupfinder_storage::{BackendError, LibraryStore, Schedule, Storage, open_storage};
use dupfinder_text::analysis::Analyzer;
use dupfinder_text::extract::Extractions;

/// What can go wrong at the catalog level.
#[derive(Debug, thiserror::Error)]
pub enum LibraryError {
    /// What the libraries' storage answered: an invalid or unknown library, its record, its
    /// indexes or database, a fault of where it is kept, a stopped writer, a feature the
    /// backend does not offer.
    #[error(transparent)]
    Backend(#[from] BackendError),
    /// A check could not run (its request, its text, its work budget).
    #[error(transparent)]
    Check(CheckError),
    #[error("I/O error at {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Keys(#[from] KeyError),
    #[error(transparent)]
    Reports(#[from] ReportError),
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
    /// A library's declaration was refused (its id, an address, its schedule).
    #[error(transparent)]
    Declaration(#[from] DeclarationError),
}

impl From<IndexError> for LibraryError {
    fn from(e: IndexError) -> Self {
        LibraryError::Backend(BackendError::Index(e))
    }
}

impl From<RegistryError> for LibraryError {
    fn from(e: RegistryError) -> Self {
        LibraryError::Backend(BackendError::Registry(e))
    }
}

impl From<CheckError> for LibraryError {
    /// A storage failure met by a check is the library's, like any other read's.
    fn from(e: CheckError) -> Self {
        match e {
            CheckError::Storage(e) => e.into(),
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
            LibraryError::Backend(e) => e.code(),
            LibraryError::Check(e) => e.code(),
            LibraryError::JobRunningElsewhere { .. } => ErrorCode::JobRunningElsewhere,
            LibraryError::Declaration(e) => e.code(),
            _ => ErrorCode::Internal,
        }
    }

    /// Whether the library does not exist (any more): looked up and not found, or deleted by
    /// another process while a statement on it ran.
    pub fn is_not_found(&self) -> bool {
        matches!(self, LibraryError::Backend(e) if e.is_not_found())
    }
}

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
    /// How often it is to be harvested again (kept and shown; not acted on yet).
    pub schedule: Option<Schedule>,
    /// Paused: its crawl is not started.
    pub paused: bool,
}

impl NewLibrary {
    /// Refuses addresses the crawler could not fetch and a schedule out of bounds.
    fn check(&self) -> Result<(), DeclarationError> {
        for (field, address) in [
            ("start_url", &self.start_url),
            ("sitemap_url", &self.sitemap_url),
            ("oai_url", &self.oai_url),
        ] {
            if let Some(address) = address {
                check_url(field, address)?;
            }
        }
        self.schedule.as_ref().map_or(Ok(()), check_schedule)
    }
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
    /// How often it is to be harvested again; `null` when never.
    pub schedule: Option<Schedule>,
    /// Whether an operator paused it (its crawl is not started).
    pub paused: bool,
    pub documents: u64,
    pub words: u64,
    pub last_indexed: Option<u64>,
    pub status: LibraryStatus,
    pub stats_generation: u64,
    pub drift: f64,
}

/// Which libraries a listing shows: a filter on id and name, and a page.
#[derive(Debug, Clone, Default)]
pub struct LibraryQuery {
    /// A substring of the id or the name, in any case; none or empty: every library.
    pub q: Option<String>,
    pub offset: usize,
    pub limit: usize,
}

/// A page of libraries, and how many match the filter in all.
#[derive(Debug, Clone, Serialize)]
pub struct LibraryPage {
    pub total: usize,
    pub libraries: Vec<LibraryInfo>,
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

/// The service's own records: in the data directory, or in the database the libraries live in
/// (so that every server process serving it shares them).
struct Records {
    keys: Box<dyn KeyStore>,
    reports: Box<dyn ReportStore>,
    webhooks: Box<dyn WebhookStore>,
    batches: Box<dyn BatchStore>,
}

impl Records {
    fn open(config: &Config, storage: &dyn Storage) -> Result<Records, LibraryError> {
        if let Some(db) = storage.database() {
            return Ok(Records {
                keys: Box::new(PgKeys::new(db.clone())),
                reports: Box::new(PgReports::new(db.clone())),
                webhooks: Box::new(PgWebhooks::new(db.clone(), &config.webhooks)),
                batches: Box::new(PgBatches::new(db, config.batch.lease_secs)),
            });
        }
        let data_dir = &config.storage.data_dir;
        let keys = EmbeddedKeys::open(&data_dir.join("keys.redb"))?;
        let reports = EmbeddedReports::open(&data_dir.join("reports.redb"))?;
        let store_error = |e: &dyn std::fmt::Display| {
            LibraryError::Reports(ReportError::Store {
                path: data_dir.join("reports.redb"),
                reason: e.to_string(),
            })
        };
        let webhooks = EmbeddedWebhooks::open(reports.database()).map_err(|e| store_error(&e))?;
        let batches = EmbeddedBatches::open(reports.database()).map_err(|e| store_error(&e))?;
        Ok(Records {
            keys: Box::new(keys),
            reports: Box::new(reports),
            webhooks: Box::new(webhooks),
            batches: Box::new(batches),
        })
    }
}

/// Every library the service serves, and the service's own stores.
pub struct Catalog {
    data_dir: PathBuf,
    /// The libraries, on the backend `[storage] backend` names.
    storage: Arc<dyn Storage>,
    keys: Box<dyn KeyStore>,
    reports: Box<dyn ReportStore>,
    webhooks: Box<dyn WebhookStore>,
    batches: Box<dyn BatchStore>,
    analyzer: Analyzer,
    config: Config,
    /// Documents written since the process started, by [`IngestPath`].
    ingested: [std::sync::atomic::AtomicU64; 3],
    /// Every file extraction of the process goes through these places.
    extractions: Extractions,
}

impl Catalog {
    /// Opens the data directory (creating it when missing) and every library in it, or, with
    /// PostgreSQL, connects to the database and applies its migrations.
    pub fn open(config: &Config) -> Result<Catalog, LibraryError> {
        let analyzer = default_analyzer();
        let storage = open_storage(&config.storage, &analyzer, config.signatures.scheme())?;
        let data_dir = config.storage.data_dir.clone();
        let Records {
            keys,
            reports,
            webhooks,
            batches,
        } = Records::open(config, storage.as_ref())?;
        Ok(Catalog {
            data_dir,
            storage,
            keys,
            reports,
            webhooks,
            batches,
            analyzer,
            config: config.clone(),
            ingested: Default::default(),
            extractions: Extractions::new(&config.extract),
        })
    }

    /// Copies the registry, the keys and every library's committed state into `dest` (which
    /// must not exist), while the server goes on; answers each library's documents in the copy.
    /// Writes to one library wait while that library is copied.
    pub fn snapshot_to(&self, dest: &Path) -> Result<Vec<(String, u64)>, LibraryError> {
        let copied = self.storage.snapshot_to(dest)?;
        self.keys.copy_to(&dest.join("keys.redb"))?;
        self.reports.copy_to(&dest.join("reports.redb"))?;
        Ok(copied)
    }

    /// Whether a backup of the data directory holds the libraries: [`BackendError::Unsupported`]
    /// naming `what` when the backend keeps them elsewhere.
    pub fn backup_possible(&self, what: &str) -> Result<(), LibraryError> {
        Ok(self.storage.backup_possible(what)?)
    }

    /// The stored reports.
    pub fn reports(&self) -> &dyn ReportStore {
        self.reports.as_ref()
    }

    /// Batches of files being checked or checked.
    pub fn batches(&self) -> &dyn BatchStore {
        self.batches.as_ref()
    }

    /// The registered webhooks, their outbox and delivery log.
    pub fn webhooks(&self) -> &dyn WebhookStore {
        self.webhooks.as_ref()
    }

    /// Keeps `report` and writes the `report.completed` event announcing it to the webhook
    /// outbox in the same commit (durable when this returns).
    pub fn keep_report(&self, report: &mut Report) -> Result<(), ReportError> {
        self.keep_report_with(report, None)
    }

    /// [`Catalog::keep_report`], with a batch's line for the file in the same commit.
    pub fn keep_report_with(
        &self,
        report: &mut Report,
        line: Option<BatchLine<'_>>,
    ) -> Result<(), ReportError> {
        if self.reports.keep(report, line)? > 0 {
            self.webhooks.wake();
        }
        Ok(())
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

    /// The API keys and the audit log.
    pub fn keys(&self) -> &dyn KeyStore {
        self.keys.as_ref()
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
        self.storage.disk_bytes(id)
    }

    /// Declares a new library and creates its (empty) indexes.
    pub fn create(&self, spec: NewLibrary) -> Result<LibraryInfo, LibraryError> {
        let id = spec.id.clone();
        self.create_library(spec).map_err(|e| match e {
            LibraryError::Backend(e) => self.storage.write_failed(&id, e).into(),
            e => e,
        })
    }

    fn create_library(&self, spec: NewLibrary) -> Result<LibraryInfo, LibraryError> {
        spec.check()?;
        let id = LibraryId::parse(&spec.id).map_err(BackendError::InvalidId)?;
        self.storage.register(LibraryRecord {
            name: spec.name.unwrap_or_else(|| id.to_string()),
            start_url: spec.start_url,
            clarifications: spec.clarifications,
            sitemap_url: spec.sitemap_url,
            use_sitemaps: spec.use_sitemaps,
            oai_url: spec.oai_url,
            oai_set: spec.oai_set,
            schedule: spec.schedule,
            paused: spec.paused,
            // The storage names the library's folder, when it keeps one.
            ..LibraryRecord::of_id(id.as_str(), unix_now())
        })?;
        Ok(self.info(id.as_str())?)
    }

    /// Library `id` through the storage seam, whichever backend keeps it. With PostgreSQL it is
    /// looked up in the database at each call: a library another process deleted is not found.
    pub fn store(&self, id: &str) -> Result<Arc<dyn LibraryStore>, LibraryError> {
        Ok(self.storage.library(id)?)
    }

    /// The open tantivy indexes of library `id`, for the features built on them alone. With
    /// PostgreSQL: [`BackendError::NotFound`] for a library that does not exist, else
    /// [`BackendError::Unsupported`].
    pub fn index(&self, id: &str) -> Result<Arc<LibraryIndex>, LibraryError> {
        Ok(self.storage.index(id)?)
    }

    /// The storage that keeps the libraries.
    pub fn storage(&self) -> &dyn Storage {
        self.storage.as_ref()
    }

    /// Ids of every library, sorted.
    pub fn ids(&self) -> Result<Vec<String>, LibraryError> {
        Ok(self.storage.list()?)
    }

    /// A library's registry record: how it was declared.
    pub fn record(&self, id: &str) -> Result<LibraryRecord, LibraryError> {
        Ok(self.declared(id)?)
    }

    fn declared(&self, id: &str) -> Result<LibraryRecord, BackendError> {
        LibraryId::parse(id).map_err(BackendError::InvalidId)?;
        self.storage
            .record(id)?
            .ok_or_else(|| BackendError::NotFound(id.to_string()))
    }

    /// A library with its figures.
    pub fn describe(&self, id: &str) -> Result<LibraryInfo, LibraryError> {
        Ok(self.info(id)?)
    }

    fn info(&self, id: &str) -> Result<LibraryInfo, BackendError> {
        let record = self.declared(id)?;
        self.info_of(record)
    }

    /// A library with its figures, from its record.
    fn info_of(&self, record: LibraryRecord) -> Result<LibraryInfo, BackendError> {
        let store = self.storage.library(&record.id)?;
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
            schedule: record.schedule,
            paused: record.paused,
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

    /// A page of the libraries, sorted by id: those `visible` lets through whose id or name
    /// holds `query.q` in any case, from `query.offset`, at most `query.limit` of them, with how
    /// many match in all. Only the page's libraries are opened for their figures.
    pub fn list_page(
        &self,
        query: &LibraryQuery,
        visible: &dyn Fn(&str) -> bool,
    ) -> Result<LibraryPage, LibraryError> {
        let q = query.q.as_deref().unwrap_or_default().to_lowercase();
        let matching: Vec<LibraryRecord> = self
            .storage
            .records()?
            .into_iter()
            .filter(|record| visible(&record.id))
            .filter(|record| {
                q.is_empty() || record.id.contains(&q) || record.name.to_lowercase().contains(&q)
            })
            .collect();
        let total = matching.len();
        let mut libraries = Vec::new();
        for record in matching.into_iter().skip(query.offset).take(query.limit) {
            match self.info_of(record) {
                Ok(info) => libraries.push(info),
                // Deleted meanwhile (by another process on a shared database).
                Err(e) if e.is_not_found() => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(LibraryPage { total, libraries })
    }

    /// Removes a library: its record, its indexes and its files.
    pub fn delete(&self, id: &str) -> Result<(), LibraryError> {
        self.delete_library(id)
            .map_err(|e| self.storage.write_failed(id, e).into())
    }

    fn delete_library(&self, id: &str) -> Result<(), BackendError> {
        LibraryId::parse(id).map_err(BackendError::InvalidId)?;
        match self.storage.delete(id)? {
            true => Ok(()),
            false => Err(BackendError::NotFound(id.to_string())),
        }
    }
}
