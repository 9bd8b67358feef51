//! The API's one error type: every failure becomes a status and a stable code in a JSON body
//! `{"error": {"code", "message"}}`. Each stage's error says its [`ErrorCode`] (the one table of
//! codes and their statuses, in `dupfinder_common::error_code`; the OpenAPI document lists the same codes,
//! a test holds the two together); this maps the code to the answer. Details of 5xx errors are
//! logged, not shown.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

pub use dupfinder_common::error_code::ErrorCode;

use dupfinder_harvest::CrawlError;
use dupfinder_service::library::phrases::PhraseError;
use dupfinder_service::library::{DocumentError, KeyError, LibraryError};
use dupfinder_service::reports::ReportError;

/// An error answered to an HTTP client.
#[derive(Debug)]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ApiError {
            code,
            message: message.into(),
        }
    }

    /// The status it is answered with.
    pub fn status(&self) -> StatusCode {
        self.code.status()
    }

    pub(super) fn internal(error: impl std::fmt::Display) -> Self {
        tracing::error!(%error, "internal error");
        ApiError::new(
            ErrorCode::Internal,
            "internal error; the details are in the server log",
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({"error": {"code": self.code.as_str(), "message": self.message}});
        let mut response = (self.status(), Json(body)).into_response();
        if matches!(self.code, ErrorCode::Busy | ErrorCode::TransientFault) {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from_static("1"),
            );
        }
        response
    }
}

impl From<dupfinder_text::extract::ExtractError> for ApiError {
    fn from(e: dupfinder_text::extract::ExtractError) -> Self {
        ApiError::new(e.code(), e.to_string())
    }
}

impl From<DocumentError> for ApiError {
    fn from(e: DocumentError) -> Self {
        ApiError::new(e.code(), e.to_string())
    }
}

impl From<LibraryError> for ApiError {
    fn from(e: LibraryError) -> Self {
        let code = e.code();
        let message = match code {
            ErrorCode::Internal => return ApiError::internal(e),
            ErrorCode::WriterStopped => return writer_stopped(),
            ErrorCode::StorageFull => {
                "the data directory is full; the request was not completed".to_string()
            }
            ErrorCode::StorageUnavailable => {
                "the data directory cannot be written; the request was not completed".to_string()
            }
            ErrorCode::TransientFault => "the server ran short of a resource for a moment (file \
                 descriptors or memory); the request was not completed; try again shortly"
                .to_string(),
            _ => e.to_string(),
        };
        ApiError::new(code, message)
    }
}

impl From<KeyError> for ApiError {
    fn from(e: KeyError) -> Self {
        let code = match &e {
            KeyError::Exists(_) => ErrorCode::KeyExists,
            KeyError::NotFound(_) => ErrorCode::KeyNotFound,
            KeyError::InvalidName(_) => ErrorCode::InvalidKeyName,
            KeyError::Store { .. } => return ApiError::internal(e),
        };
        ApiError::new(code, e.to_string())
    }
}

impl From<PhraseError> for ApiError {
    fn from(e: PhraseError) -> Self {
        // The database's failures are the library's: a library deleted meanwhile is not found.
        let e = match e {
            PhraseError::Storage(e) => return LibraryError::from(e).into(),
            e => e,
        };
        let code = match &e {
            PhraseError::Empty | PhraseError::TooLong { .. } | PhraseError::TooShort { .. } => {
                ErrorCode::InvalidPhrase
            }
            PhraseError::TooMany => ErrorCode::TooManyPhrases,
            PhraseError::NotFound(_) => ErrorCode::PhraseNotFound,
            PhraseError::Io { .. } | PhraseError::Corrupt { .. } | PhraseError::Storage(_) => {
                return ApiError::internal(e);
            }
        };
        ApiError::new(code, e.to_string())
    }
}

impl From<dupfinder_service::reports::ReapplyError> for ApiError {
    fn from(e: dupfinder_service::reports::ReapplyError) -> Self {
        ApiError::new(ErrorCode::ReportWithoutPassages, e.to_string())
    }
}

impl From<ReportError> for ApiError {
    fn from(e: ReportError) -> Self {
        match &e {
            ReportError::NotFound(_) => ApiError::new(ErrorCode::ReportNotFound, e.to_string()),
            ReportError::Store { .. } => ApiError::internal(e),
        }
    }
}

impl From<dupfinder_service::batch::BatchError> for ApiError {
    fn from(e: dupfinder_service::batch::BatchError) -> Self {
        use dupfinder_service::batch::BatchError;
        let code = match &e {
            BatchError::TooManyFiles { .. } => ErrorCode::TooManyFiles,
            BatchError::TooLarge { .. } => ErrorCode::BatchTooLarge,
            BatchError::Invalid(_) => ErrorCode::InvalidArchive,
            BatchError::NotFound(_) => ErrorCode::JobNotFound,
            BatchError::Store(_) => return ApiError::internal(e),
        };
        ApiError::new(code, e.to_string())
    }
}

impl From<dupfinder_service::webhooks::WebhookError> for ApiError {
    fn from(e: dupfinder_service::webhooks::WebhookError) -> Self {
        use dupfinder_service::webhooks::WebhookError;
        let code = match &e {
            WebhookError::InvalidUrl { .. } => ErrorCode::InvalidWebhookUrl,
            WebhookError::PrivateAddress { .. } => ErrorCode::PrivateAddress,
            WebhookError::InvalidEvent(_) => ErrorCode::InvalidEvent,
            WebhookError::InvalidSecret => ErrorCode::InvalidSecret,
            WebhookError::NotFound(_) => ErrorCode::WebhookNotFound,
            WebhookError::Store(_) => return ApiError::internal(e),
        };
        ApiError::new(code, e.to_string())
    }
}

impl From<CrawlError> for ApiError {
    fn from(e: CrawlError) -> Self {
        let code = match &e {
            CrawlError::NotCrawlable { .. } => ErrorCode::LibraryNotCrawlable,
            CrawlError::InvalidUrl { .. } => ErrorCode::QueuedStartUrl,
            CrawlError::PrivateAddress { .. } => ErrorCode::PrivateAddress,
            CrawlError::NotQueued(_) => ErrorCode::NotQueued,
            CrawlError::Busy(_) => ErrorCode::CrawlBusy,
            CrawlError::Paused(_) => ErrorCode::LibraryPaused,
            _ => match e {
                CrawlError::Library(e) => return e.into(),
                e => return ApiError::internal(e),
            },
        };
        ApiError::new(code, e.to_string())
    }
}

fn writer_stopped() -> ApiError {
    ApiError::new(
        ErrorCode::WriterStopped,
        "this library takes no more writes after an earlier failed write (see the server log); \
         its documents can still be read and checked; POST /api/v1/libraries/{id}/writer \
         (operator) or a server restart reopens it",
    )
}

impl From<tokio::task::JoinError> for ApiError {
    fn from(e: tokio::task::JoinError) -> Self {
        ApiError::internal(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_document_error_has_its_api_code() {
        let errors = [
            DocumentError::InvalidJson(String::new()),
            DocumentError::MissingField("text"),
            DocumentError::TextEmpty,
            DocumentError::TextTooShort { terms: 1, min: 2 },
            DocumentError::TextTooLarge { bytes: 2, max: 1 },
            DocumentError::InvalidLang(String::new()),
            DocumentError::InvalidDocId(String::new()),
            DocumentError::InvalidYear(String::new()),
            DocumentError::InvalidDoi(String::new()),
            DocumentError::InvalidPdfUrl(String::new()),
            DocumentError::JsonTooDeep { max: 1 },
        ];
        for error in errors {
            let code = error.code();
            assert!(ErrorCode::ANSWERED.contains(&code), "{code}");
            assert!(code.status().is_client_error(), "{code}");
            assert_eq!(ApiError::from(error).code, code);
        }
    }

    #[test]
    fn the_servers_own_state_is_answered_without_its_details() {
        let full = ApiError::from(LibraryError::from(dupfinder_storage::BackendError::Fault {
            fault: dupfinder_service::library::StorageFault::Full,
            reason: "/data/libraries: os error 28".to_string(),
        }));
        assert_eq!(
            (full.code, full.status().as_u16()),
            (ErrorCode::StorageFull, 507)
        );
        assert!(!full.message.contains("/data"), "{}", full.message);
        let batch = ApiError::from(LibraryError::Batch(
            dupfinder_service::batch::BatchError::Store("/data/reports.redb: damaged".to_string()),
        ));
        assert_eq!(
            (batch.code, batch.status().as_u16()),
            (ErrorCode::Internal, 500)
        );
        assert!(!batch.message.contains("/data"), "{}", batch.message);
    }
}
