//! Failures of a storage backend other than tantivy's own (which stay [`IndexError`]s).

use crate::index::IndexError;
use dupfinder_common::error_code::ErrorCode;

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
    pub fn code(&self) -> ErrorCode {
        match self {
            StorageError::Config(_) => ErrorCode::StorageConfig,
            StorageError::Connect(_) => ErrorCode::StorageUnreachable,
            StorageError::Database(_) => ErrorCode::StorageDatabase,
            StorageError::Migration { .. } => ErrorCode::StorageMigration,
            StorageError::NoSuchLibrary(_) => ErrorCode::LibraryNotFound,
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
