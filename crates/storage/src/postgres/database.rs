//! The libraries of one PostgreSQL database, and what they share: the connection pool, the
//! backend's runtime, the signature scheme and the analyzer.

use std::future::Future;
use std::path::Path;
use std::sync::Arc;

use deadpool_postgres::{ManagerConfig, Pool, PoolConfig, RecyclingMethod, Runtime};
use tokio_postgres::NoTls;

use super::library::PgLibrary;
use super::migrate;
use crate::index::{IndexError, LibraryIndex, PreparedDocument, RebuildControl};
use crate::{
    Backend, BackendError, LibraryRecord, LibraryStore, PostgresConfig, RecordChange, Registry,
    Storage, StorageError,
};
use dupfinder_common::clock::unix_now;
use dupfinder_signature::RobustScheme;
use dupfinder_text::analysis::Analyzer;

/// The libraries of one PostgreSQL database.
pub struct PgStorage {
    pub(super) shared: Arc<Shared>,
    /// The registry store of the data directory this process serves from, when it took one
    /// ([`PgStorage::hold_data_dir`]): it keeps no library (their records are in the
    /// database); it is held so that a second process started on the same data directory is
    /// told that it is in use, in the words the embedded backend uses.
    data_dir: Option<Registry>,
}

/// What every library and view of one database shares.
pub(crate) struct Shared {
    pub(crate) pool: Pool,
    runtime: tokio::runtime::Runtime,
    pub(crate) scheme: RobustScheme,
    /// The analyzer of search vectors and queries (every library uses the default one).
    pub(crate) analyzer: Analyzer,
}

impl Shared {
    /// Runs `future` to completion on the backend's runtime.
    pub(crate) fn block_on<F: Future>(&self, future: F) -> F::Output {
        match tokio::runtime::Handle::try_current() {
            Ok(handle) if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
                tokio::task::block_in_place(|| self.runtime.block_on(future))
            }
            _ => self.runtime.block_on(future),
        }
    }

    /// A pooled connection.
    pub(crate) async fn client(&self) -> Result<deadpool_postgres::Object, IndexError> {
        self.pool
            .get()
            .await
            .map_err(|e| IndexError::from(StorageError::Connect(e.to_string())))
    }
}

/// The database of a [`PgStorage`], for the service's own tables (keys, reports, batches,
/// webhooks, the audit log; migration 6): its pool and the runtime its calls block on.
#[derive(Clone)]
pub struct PgDatabase {
    shared: Arc<Shared>,
}

impl PgDatabase {
    /// Runs `future` to completion on the backend's runtime (see [`Shared::block_on`]).
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.shared.block_on(future)
    }

    /// A pooled connection.
    pub async fn client(&self) -> Result<deadpool_postgres::Object, IndexError> {
        self.shared.client().await
    }
}

impl PgStorage {
    /// The database, for the service's own tables.
    pub fn database(&self) -> PgDatabase {
        PgDatabase {
            shared: self.shared.clone(),
        }
    }

    /// Connects to the database of `config.url` and applies the migrations it lacks.
    pub fn connect(config: &PostgresConfig, scheme: RobustScheme) -> Result<Self, IndexError> {
        let url = config.url.clone().ok_or_else(|| {
            StorageError::Config(
                "[storage] backend = \"postgres\" needs [storage.postgres] url".to_string(),
            )
        })?;
        let mut pool_config = deadpool_postgres::Config::new();
        pool_config.url = Some(url);
        pool_config.manager = Some(ManagerConfig {
            recycling_method: RecyclingMethod::Fast,
        });
        pool_config.pool = Some(PoolConfig::new(config.max_connections.max(1)));
        let pool = pool_config
            .create_pool(Some(Runtime::Tokio1), NoTls)
            .map_err(|e| StorageError::Config(e.to_string()))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("dupfinder-postgres")
            .enable_all()
            .build()
            .map_err(|e| StorageError::Connect(e.to_string()))?;
        let shared = Arc::new(Shared {
            pool,
            runtime,
            scheme,
            analyzer: crate::index::default_analyzer(),
        });
        shared.block_on(async {
            let mut client = shared.client().await?;
            migrate::apply(&mut client).await
        })?;
        Ok(PgStorage {
            shared,
            data_dir: None,
        })
    }

    /// Takes the data directory `dir` (created when missing) for this process, for as long as
    /// the storage lives: the process's own stores (keys, reports, the crawl queue) live there.
    /// The libraries do not: a `libraries/` folder there is not theirs (it may hold a tantivy
    /// data directory's libraries) and is left untouched.
    pub fn hold_data_dir(mut self, dir: &Path) -> Result<Self, BackendError> {
        std::fs::create_dir_all(dir).map_err(IndexError::io(dir))?;
        self.data_dir = Some(Registry::open(&dir.join("registry.redb"))?);
        Ok(self)
    }

    fn handle(&self, id: &str) -> Arc<dyn LibraryStore> {
        Arc::new(PgLibrary::new(self.shared.clone(), id.to_string()))
    }

    /// [`BackendError::Unsupported`]: `what` is not built on PostgreSQL.
    fn unsupported(&self, what: &str) -> BackendError {
        BackendError::unsupported(Backend::Postgres, what)
    }

    /// Runs `sql` (several statements) on one pooled connection: for tests and tools.
    pub fn execute_batch(&self, sql: &str) -> Result<(), IndexError> {
        self.shared.block_on(async {
            let client = self.shared.client().await?;
            client.batch_execute(sql).await?;
            Ok(())
        })
    }
}

/// Every lookup reads the database, so that several processes serving it see each other's
/// libraries and records at once.
impl Storage for PgStorage {
    fn backend(&self) -> Backend {
        Backend::Postgres
    }

    fn create(&self, id: &str) -> Result<Arc<dyn LibraryStore>, BackendError> {
        self.insert_library(id, None)?;
        Ok(self.handle(id))
    }

    fn register(&self, record: LibraryRecord) -> Result<(), BackendError> {
        self.insert_record(&record)
    }

    fn open(&self, id: &str) -> Result<Option<Arc<dyn LibraryStore>>, BackendError> {
        let exists = self.shared.block_on(async {
            let client = self.shared.client().await?;
            let row = client
                .query_opt("SELECT 1 FROM libraries WHERE library = $1", &[&id])
                .await?;
            Ok::<_, IndexError>(row.is_some())
        })?;
        Ok(exists.then(|| self.handle(id)))
    }

    fn record(&self, id: &str) -> Result<Option<LibraryRecord>, BackendError> {
        self.read_record(id)
    }

    fn records(&self) -> Result<Vec<LibraryRecord>, BackendError> {
        self.read_records()
    }

    fn change_record(
        &self,
        id: &str,
        change: &mut dyn FnMut(&mut LibraryRecord),
    ) -> Result<RecordChange, BackendError> {
        self.modify_record(id, change)
    }

    fn touch(&self, id: &str) -> Result<(), BackendError> {
        Ok(self.set_last_indexed(id, unix_now())?)
    }

    fn delete(&self, id: &str) -> Result<bool, BackendError> {
        let deleted = self.shared.block_on(async {
            let mut client = self.shared.client().await?;
            let tx = client.transaction().await?;
            // The library row first: writers and re-indexes of it wait on this lock, then find
            // it gone.
            let existed = tx
                .execute("DELETE FROM libraries WHERE library = $1", &[&id])
                .await?;
            for table in [
                "generations",
                "documents",
                "term_stats",
                "signatures",
                "robust_signatures",
                "shingles",
                "dedup_documents",
                "dedup_lines",
                "phrases",
            ] {
                tx.execute(&format!("DELETE FROM {table} WHERE library = $1"), &[&id])
                    .await?;
            }
            tx.commit().await?;
            Ok::<_, IndexError>(existed == 1)
        })?;
        Ok(deleted)
    }

    fn list(&self) -> Result<Vec<String>, BackendError> {
        let ids = self.shared.block_on(async {
            let client = self.shared.client().await?;
            let rows = client
                .query("SELECT library FROM libraries ORDER BY library", &[])
                .await?;
            Ok::<_, IndexError>(rows.iter().map(|r| r.get(0)).collect())
        })?;
        Ok(ids)
    }

    /// The first documents of a library also make its first statistics snapshot, unless
    /// another process is making it already.
    fn write(&self, id: &str, documents: &[PreparedDocument]) -> Result<(), BackendError> {
        let store = self.library(id)?;
        store.write(documents)?;
        // A view's generation is one indexed row; the summary would count the documents.
        let first = store.view()?.generation() == 0;
        if first && let Some(mut claim) = store.clone().claim_reindex()? {
            claim.reindex(&RebuildControl::default(), &mut |_| {})?;
        }
        Ok(())
    }

    fn delete_document(&self, id: &str, doc_id: &str) -> Result<bool, BackendError> {
        Ok(self.library(id)?.delete(doc_id)?)
    }

    /// The data directory holds no library: its faults say nothing about a write, and the
    /// database answers for its own.
    fn write_failed(&self, _id: &str, error: BackendError) -> BackendError {
        error
    }

    fn reopen_writer(&self, _id: &str) -> Result<(), BackendError> {
        Err(self.unsupported("reopening a library's index writers"))
    }

    fn index(&self, id: &str) -> Result<Arc<LibraryIndex>, BackendError> {
        self.library(id)?;
        Err(self.unsupported(
            "this operation (it reads the library's tantivy index, which the database does \
             not hold)",
        ))
    }

    fn disk_bytes(&self, _id: &str) -> Option<u64> {
        None
    }

    fn backup_possible(&self, what: &str) -> Result<(), BackendError> {
        Err(self.unsupported(what))
    }

    fn snapshot_to(&self, _dest: &Path) -> Result<Vec<(String, u64)>, BackendError> {
        Err(self.unsupported("a backup of the data directory"))
    }

    /// Every process serving the database may have left a re-index unfinished.
    fn shared_by_processes(&self) -> bool {
        true
    }

    fn database(&self) -> Option<PgDatabase> {
        Some(PgStorage::database(self))
    }
}
