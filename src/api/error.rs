//! The API's one error type: every failure becomes a status and a stable code in a JSON body
//! `{"error": {"code", "message"}}`. Details of 5xx errors are logged, not shown.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::check::CheckError;
use crate::crawl::CrawlError;
use crate::index::IndexError;
use crate::library::{DocumentError, LibraryError, RegistryError};

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
            LibraryError::Index(IndexError::Io { ref source, .. })
                if source.kind() == std::io::ErrorKind::StorageFull =>
            {
                ApiError::new(
                    StatusCode::INSUFFICIENT_STORAGE,
                    "storage_full",
                    "the data directory is full",
                )
            }
            e => ApiError::internal(e),
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

impl From<tokio::task::JoinError> for ApiError {
    fn from(e: tokio::task::JoinError) -> Self {
        ApiError::internal(e)
    }
}
