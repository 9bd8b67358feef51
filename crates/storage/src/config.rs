//! The storage section of the configuration (`[storage]`, `[storage.postgres]`).

use std::path::PathBuf;

use serde::Deserialize;

use crate::Backend;

/// Where and how data is kept.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StorageConfig {
    /// The data directory: the library registry and one folder of indexes per library.
    pub data_dir: PathBuf,
    /// Memory budget of each library's index writer, in MB.
    pub writer_memory_mb: usize,
    /// Which backend keeps the libraries: `tantivy` (embedded, the default) or `postgres`.
    pub backend: Backend,
    /// The PostgreSQL backend (`backend = "postgres"`).
    pub postgres: PostgresConfig,
}

/// The PostgreSQL backend's server and pool.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PostgresConfig {
    /// A libpq connection string or URL, e.g.
    /// `postgresql://dupfinder@localhost/dupfinder` or `host=/run/postgresql dbname=dupfinder`.
    pub url: Option<String>,
    /// The most connections the pool keeps open.
    pub max_connections: usize,
}

impl Default for PostgresConfig {
    fn default() -> Self {
        PostgresConfig {
            url: None,
            max_connections: 16,
        }
    }
}

impl Default for StorageConfig {
    fn default() -> Self {
        StorageConfig {
            data_dir: PathBuf::from("./data"),
            writer_memory_mb: 64,
            backend: Backend::Tantivy,
            postgres: PostgresConfig::default(),
        }
    }
}
