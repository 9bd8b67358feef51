//! Failures of a storage backend other than tantivy's own (which stay [`IndexError`]s), and what
//! the service's operations on a backend's libraries answer ([`BackendError`]).

use crate::index::IndexError;
use crate::{Backend, RegistryError, StorageFault};
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

/// What an operation of the service on a backend's libraries ([`crate::Storage`]) answers when
/// it fails: the library's id or existence, its record, its storage, a fault of where the
/// backend keeps it, a writer stopped after a failed write, or a feature the backend does not
/// offer.
#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    /// Not a valid library id (the reason).
    #[error("{0}")]
    InvalidId(String),
    #[error("library `{0}` does not exist")]
    NotFound(String),
    #[error(transparent)]
    Registry(#[from] RegistryError),
    #[error(transparent)]
    Index(#[from] IndexError),
    /// A write failed because of where the backend keeps the library rather than the request
    /// (see [`crate::Storage::write_failed`]).
    #[error("{fault:?} storage: {reason}")]
    Fault { fault: StorageFault, reason: String },
    /// The library's index writer failed a write for a cause other than a fault: it takes no
    /// more writes until it is reopened ([`crate::Storage::reopen_writer`]).
    #[error(
        "library `{0}` takes no more writes after a failed one; reopen its writer \
         (POST /api/v1/libraries/{0}/writer) or restart the server"
    )]
    WriterStopped(String),
    /// What was asked is not built on this backend.
    #[error("{what} is not available with [storage] backend = \"{backend}\" yet")]
    Unsupported { backend: &'static str, what: String },
}

impl BackendError {
    /// [`BackendError::Unsupported`]: `what` on `backend`.
    pub fn unsupported(backend: Backend, what: &str) -> BackendError {
        BackendError::Unsupported {
            backend: backend.name(),
            what: what.to_string(),
        }
    }

    /// A stable code naming the failure.
    pub fn code(&self) -> ErrorCode {
        match self {
            BackendError::InvalidId(_) => ErrorCode::InvalidLibraryId,
            BackendError::Registry(RegistryError::Exists(_)) => ErrorCode::LibraryExists,
            BackendError::Fault { fault, .. } => match fault {
                StorageFault::Full => ErrorCode::StorageFull,
                StorageFault::Unavailable => ErrorCode::StorageUnavailable,
                StorageFault::Transient => ErrorCode::TransientFault,
            },
            BackendError::WriterStopped(_) => ErrorCode::WriterStopped,
            BackendError::Unsupported { .. } => ErrorCode::UnsupportedOnBackend,
            // Deleted by another process between the lookup and the statement, too.
            e if e.is_not_found() => ErrorCode::LibraryNotFound,
            _ => ErrorCode::Internal,
        }
    }

    /// Whether the library does not exist (any more): looked up and not found, or deleted by
    /// another process while a statement on it ran.
    pub fn is_not_found(&self) -> bool {
        match self {
            BackendError::NotFound(_) => true,
            BackendError::Index(e) => e.is_no_such_library(),
            _ => false,
        }
    }
}
