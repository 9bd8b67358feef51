//! Failures of a storage backend other than tantivy's own (which stay [`IndexError`]s).

use crate::index::IndexError;

/// What can go wrong talking to a storage backend.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    #[error("storage configuration is invalid: {0}")]
    Config(String),
    #[error("cannot reach the PostgreSQL server: {0}")]
    Connect(String),
    #[error("PostgreSQL error: {0}")]
    Database(#[from] tokio_postgres::Error),
    #[error("PostgreSQL migration {version} failed: {reason}")]
    Migration { version: i32, reason: String },
    #[error("library `{0}` does not exist in the storage backend")]
    NoSuchLibrary(String),
}

impl StorageError {
    /// A stable code naming the failure.
    pub fn code(&self) -> &'static str {
        match self {
            StorageError::Config(_) => "storage_config",
            StorageError::Connect(_) => "storage_unreachable",
            StorageError::Database(_) => "storage_database",
            StorageError::Migration { .. } => "storage_migration",
            StorageError::NoSuchLibrary(_) => "library_not_found",
        }
    }
}

impl From<tokio_postgres::Error> for IndexError {
    fn from(e: tokio_postgres::Error) -> Self {
        IndexError::Storage(StorageError::Database(e))
    }
}

impl From<StorageError> for IndexError {
    fn from(e: StorageError) -> Self {
        IndexError::Storage(e)
    }
}
