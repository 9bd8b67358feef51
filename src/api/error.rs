//! The API's one error type: every failure becomes a status and a stable code in a JSON body
//! `{"error": {"code", "message"}}`. Details of 5xx errors are logged, not shown. A write that
//! fails because the data directory is full or cannot be written says so (`507 storage_full`,
//! `503 storage_unavailable`) instead of `500 internal`.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::check::CheckError;
use crate::crawl::CrawlError;
use crate::library::{Catalog, DocumentError, LibraryError, RegistryError};

/// An error answered to an HTTP client.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }

    pub fn bad_request(code: &'static str, message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::BAD_REQUEST, code, message)
    }

    fn internal(error: impl std::fmt::Display) -> Self {
        tracing::error!(%error, "internal error");
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "internal error; the details are in the server log",
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({"error": {"code": self.code, "message": self.message}});
        (self.status, Json(body)).into_response()
    }
}

impl From<DocumentError> for ApiError {
    fn from(e: DocumentError) -> Self {
        let status = match e {
            DocumentError::TextTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            DocumentError::TextTooShort { .. } | DocumentError::TextEmpty => {
                StatusCode::UNPROCESSABLE_ENTITY
            }
            _ => StatusCode::BAD_REQUEST,
        };
        ApiError::new(status, e.code(), e.to_string())
    }
}

impl From<LibraryError> for ApiError {
    fn from(e: LibraryError) -> Self {
        match e {
            LibraryError::InvalidId(message) => {
                ApiError::bad_request("invalid_library_id", message)
            }
            LibraryError::NotFound(_) => {
                ApiError::new(StatusCode::NOT_FOUND, "library_not_found", e.to_string())
            }
            LibraryError::Registry(RegistryError::Exists(_)) => {
                ApiError::new(StatusCode::CONFLICT, "library_exists", e.to_string())
            }
            LibraryError::WriterStopped(_) => writer_stopped(),
            e => match StorageFault::of(&e) {
                Some(fault) => fault.into_api_error(&e),
                None if e.to_string().contains("index writer was killed") => {
                    tracing::error!(error = %e, "index writer stopped");
                    writer_stopped()
                }
                None => ApiError::internal(e),
            },
        }
    }
}

impl From<CheckError> for ApiError {
    fn from(e: CheckError) -> Self {
        match e {
            CheckError::Text(e) => e.into(),
            CheckError::Library(e) => e.into(),
            CheckError::InvalidSimilarity(_) => {
                ApiError::bad_request("invalid_min_similarity", e.to_string())
            }
            CheckError::NoLibraries => ApiError::bad_request("invalid_libraries", e.to_string()),
        }
    }
}

impl From<CrawlError> for ApiError {
    fn from(e: CrawlError) -> Self {
        let status_code = match &e {
            CrawlError::NotCrawlable { .. } => {
                Some((StatusCode::UNPROCESSABLE_ENTITY, "library_not_crawlable"))
            }
            CrawlError::InvalidUrl { .. } => {
                Some((StatusCode::UNPROCESSABLE_ENTITY, "invalid_start_url"))
            }
            CrawlError::PrivateAddress { .. } => {
                Some((StatusCode::UNPROCESSABLE_ENTITY, "private_address"))
            }
            CrawlError::NotQueued(_) => Some((StatusCode::NOT_FOUND, "not_queued")),
            CrawlError::Busy(_) => Some((StatusCode::CONFLICT, "crawl_busy")),
            _ => None,
        };
        match (status_code, e) {
            (Some((status, code)), e) => ApiError::new(status, code, e.to_string()),
            (None, CrawlError::Library(e)) => e.into(),
            (None, e) => ApiError::internal(e),
        }
    }
}

fn writer_stopped() -> ApiError {
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "writer_stopped",
        "this library takes no more writes after an earlier failed write (see the server log); \
         its documents can still be read and checked; a server restart reopens it",
    )
}

/// The answer to a failed write: when it would be `500 internal` or `503 writer_stopped` but the
/// data directory cannot take a write now (full, read-only), the storage fault instead.
pub(super) fn write_failure(catalog: &Catalog, error: ApiError) -> ApiError {
    if !matches!(error.code, "internal" | "writer_stopped") {
        return error;
    }
    match catalog.probe_storage() {
        Ok(()) => error,
        Err(probe) => match StorageFault::of(&probe) {
            Some(fault) => fault.into_api_error(&probe),
            None => error,
        },
    }
}

/// A write that failed because of the data directory rather than the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StorageFault {
    /// No space left (or the disk quota is exhausted).
    Full,
    /// The file system is read-only or the process may not write there.
    Unavailable,
}

impl StorageFault {
    /// Finds the I/O error behind `error`. tantivy and redb do not always chain their I/O
    /// errors as sources, so besides the chain the rendered messages are searched for the
    /// operating system's error numbers.
    fn of(error: &(dyn std::error::Error + 'static)) -> Option<StorageFault> {
        use std::io::ErrorKind;
        let by_kind = |kind: ErrorKind| match kind {
            ErrorKind::StorageFull | ErrorKind::QuotaExceeded => Some(StorageFault::Full),
            ErrorKind::ReadOnlyFilesystem | ErrorKind::PermissionDenied => {
                Some(StorageFault::Unavailable)
            }
            _ => None,
        };
        let mut current = Some(error);
        while let Some(e) = current {
            if let Some(io) = e.downcast_ref::<std::io::Error>()
                && let Some(fault) = by_kind(io.kind())
            {
                return Some(fault);
            }
            current = e.source();
        }
        let rendered = format!("{error} {error:?}");
        let mentions = |needles: &[&str]| needles.iter().any(|n| rendered.contains(n));
        if mentions(&[
            "os error 28)",
            "os error 122)",
            "StorageFull",
            "QuotaExceeded",
        ]) {
            Some(StorageFault::Full)
        } else if mentions(&["os error 30)", "os error 13)", "ReadOnlyFilesystem"]) {
            Some(StorageFault::Unavailable)
        } else {
            None
        }
    }

    fn into_api_error(self, error: &dyn std::fmt::Display) -> ApiError {
        tracing::error!(%error, fault = ?self, "storage fault");
        match self {
            StorageFault::Full => ApiError::new(
                StatusCode::INSUFFICIENT_STORAGE,
                "storage_full",
                "the data directory is full; the request was not completed",
            ),
            StorageFault::Unavailable => ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "storage_unavailable",
                "the data directory cannot be written; the request was not completed",
            ),
        }
    }
}

impl From<tokio::task::JoinError> for ApiError {
    fn from(e: tokio::task::JoinError) -> Self {
        ApiError::internal(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("tantivy error at /data: An IO error occurred: '{0}'")]
    struct Flattened(String);

    #[test]
    fn storage_faults_are_found_in_the_chain_or_in_the_message() {
        let full = std::io::Error::from(std::io::ErrorKind::StorageFull);
        assert_eq!(StorageFault::of(&full), Some(StorageFault::Full));
        let wrapped = LibraryError::Io {
            path: "/data".into(),
            source: std::io::Error::from(std::io::ErrorKind::ReadOnlyFilesystem),
        };
        assert_eq!(StorageFault::of(&wrapped), Some(StorageFault::Unavailable));
        let flattened = Flattened("No space left on device (os error 28)".into());
        assert_eq!(StorageFault::of(&flattened), Some(StorageFault::Full));
        let flattened = Flattened("Read-only file system (os error 30)".into());
        assert_eq!(
            StorageFault::of(&flattened),
            Some(StorageFault::Unavailable)
        );
        let other = Flattened("Data corrupted (os error 5)".into());
        assert_eq!(StorageFault::of(&other), None);
    }
}
