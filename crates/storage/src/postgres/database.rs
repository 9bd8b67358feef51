//! The libraries of one PostgreSQL database, and what they share: the connection pool, the
//! backend's runtime, the signature scheme and the analyzer.

use std::future::Future;
use std::sync::Arc;

use deadpool_postgres::{ManagerConfig, Pool, PoolConfig, RecyclingMethod, Runtime};
use tokio_postgres::NoTls;

use super::library::PgLibrary;
use super::migrate;
use crate::PostgresConfig;
use crate::index::IndexError;
use crate::{LibraryStore, Storage, StorageError};
use dupfinder_signature::RobustScheme;
use dupfinder_text::analysis::Analyzer;

/// The libraries of one PostgreSQL database.
pub struct PgStorage {
    pub(super) shared: Arc<Shared>,
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

impl PgStorage {
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
        Ok(PgStorage { shared })
    }

    fn library(&self, id: &str) -> Arc<dyn LibraryStore> {
        Arc::new(PgLibrary::new(self.shared.clone(), id.to_string()))
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

impl Storage for PgStorage {
    fn create(&self, id: &str) -> Result<Arc<dyn LibraryStore>, IndexError> {
        self.insert_library(id, None)?;
        Ok(self.library(id))
    }

    fn open(&self, id: &str) -> Result<Option<Arc<dyn LibraryStore>>, IndexError> {
        let exists = self.shared.block_on(async {
            let client = self.shared.client().await?;
            let row = client
                .query_opt("SELECT 1 FROM libraries WHERE library = $1", &[&id])
                .await?;
            Ok::<_, IndexError>(row.is_some())
        })?;
        Ok(exists.then(|| self.library(id)))
    }

    fn delete(&self, id: &str) -> Result<bool, IndexError> {
        self.shared.block_on(async {
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
            Ok(existed == 1)
        })
    }

    fn list(&self) -> Result<Vec<String>, IndexError> {
        self.shared.block_on(async {
            let client = self.shared.client().await?;
            let rows = client
                .query("SELECT library FROM libraries ORDER BY library", &[])
                .await?;
            Ok(rows.iter().map(|r| r.get(0)).collect())
        })
    }
}
