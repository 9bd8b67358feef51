//! The API's one error type: every failure becomes a status and a stable code in a JSON body
//! `{"error": {"code", "message"}}`. [`ErrorCode`] is the one table of codes and their statuses
//! (the OpenAPI document lists the same codes; a test holds the two together). Details of 5xx
//! errors are logged, not shown.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::check::CheckError;
use crate::crawl::CrawlError;
use crate::library::phrases::PhraseError;
use crate::library::{DocumentError, KeyError, LibraryError, RegistryError, StorageFault};
use crate::reports::ReportError;

/// Declares [`ErrorCode`] from one table: variant, stable code, HTTP status.
macro_rules! error_codes {
    ($($variant:ident = $code:literal => $status:ident,)*) => {
        /// Every error code the API answers, with its status.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum ErrorCode {
            $($variant,)*
        }

        impl ErrorCode {
            /// Every code, in the table's order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// The stable snake_case code.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $code,)*
                }
            }

            /// The HTTP status this code is answered with.
            pub fn status(self) -> StatusCode {
                match self {
                    $(ErrorCode::$variant => StatusCode::$status,)*
                }
            }
        }
    };
}

error_codes! {
    // The request body and its JSON.
    InvalidBody = "invalid_body" => BAD_REQUEST,
    InvalidUtf8 = "invalid_utf8" => BAD_REQUEST,
    InvalidJson = "invalid_json" => BAD_REQUEST,
    JsonTooDeep = "json_too_deep" => BAD_REQUEST,
    MissingField = "missing_field" => BAD_REQUEST,
    BodyTooLarge = "body_too_large" => PAYLOAD_TOO_LARGE,
    BodyTimeout = "body_timeout" => REQUEST_TIMEOUT,
    TooManyLines = "too_many_lines" => PAYLOAD_TOO_LARGE,
    // Documents and checked texts.
    TextEmpty = "text_empty" => UNPROCESSABLE_ENTITY,
    TextTooShort = "text_too_short" => UNPROCESSABLE_ENTITY,
    TextTooLarge = "text_too_large" => PAYLOAD_TOO_LARGE,
    InvalidLang = "invalid_lang" => BAD_REQUEST,
    InvalidDocId = "invalid_doc_id" => BAD_REQUEST,
    InvalidYear = "invalid_year" => BAD_REQUEST,
    InvalidDoi = "invalid_doi" => BAD_REQUEST,
    InvalidPdfUrl = "invalid_pdf_url" => BAD_REQUEST,
    DocumentNotFound = "document_not_found" => NOT_FOUND,
    // Files.
    UnsupportedMediaType = "unsupported_media_type" => UNSUPPORTED_MEDIA_TYPE,
    UnreadableDocument = "unreadable_document" => UNPROCESSABLE_ENTITY,
    NoTextLayer = "no_text_layer" => UNPROCESSABLE_ENTITY,
    TooManyPages = "too_many_pages" => PAYLOAD_TOO_LARGE,
    DocumentTooLarge = "document_too_large" => PAYLOAD_TOO_LARGE,
    TooManyOperators = "too_many_operators" => PAYLOAD_TOO_LARGE,
    TooManyObjects = "too_many_objects" => PAYLOAD_TOO_LARGE,
    NestingTooDeep = "nesting_too_deep" => PAYLOAD_TOO_LARGE,
    ExtractionTimeout = "extraction_timeout" => UNPROCESSABLE_ENTITY,
    MissingFile = "missing_file" => BAD_REQUEST,
    // Libraries.
    InvalidLibraryId = "invalid_library_id" => BAD_REQUEST,
    LibraryNotFound = "library_not_found" => NOT_FOUND,
    LibraryExists = "library_exists" => CONFLICT,
    InvalidStartUrl = "invalid_start_url" => BAD_REQUEST,
    InvalidSitemapUrl = "invalid_sitemap_url" => BAD_REQUEST,
    InvalidOaiUrl = "invalid_oai_url" => BAD_REQUEST,
    // Checks.
    InvalidMinSimilarity = "invalid_min_similarity" => BAD_REQUEST,
    InvalidLibraries = "invalid_libraries" => BAD_REQUEST,
    TooManyLibraries = "too_many_libraries" => BAD_REQUEST,
    // Search and listings.
    MissingQuery = "missing_query" => BAD_REQUEST,
    QueryTooLong = "query_too_long" => BAD_REQUEST,
    InvalidQuery = "invalid_query" => BAD_REQUEST,
    UnknownField = "unknown_field" => BAD_REQUEST,
    InvalidParameter = "invalid_parameter" => BAD_REQUEST,
    InvalidPath = "invalid_path" => BAD_REQUEST,
    InvalidSort = "invalid_sort" => BAD_REQUEST,
    InvalidOrder = "invalid_order" => BAD_REQUEST,
    InvalidLimit = "invalid_limit" => BAD_REQUEST,
    InvalidOffset = "invalid_offset" => BAD_REQUEST,
    // The crawl queue and jobs.
    LibraryNotCrawlable = "library_not_crawlable" => UNPROCESSABLE_ENTITY,
    // The same code as a refused `start_url` on create, but found when a crawl is queued: the
    // library exists and cannot be crawled as declared, hence 422 (kept as answered so far).
    QueuedStartUrl = "invalid_start_url" => UNPROCESSABLE_ENTITY,
    PrivateAddress = "private_address" => UNPROCESSABLE_ENTITY,
    NotQueued = "not_queued" => NOT_FOUND,
    CrawlBusy = "crawl_busy" => CONFLICT,
    JobNotFound = "job_not_found" => NOT_FOUND,
    JobRunningElsewhere = "job_running_elsewhere" => CONFLICT,
    // Batches.
    TooManyFiles = "too_many_files" => PAYLOAD_TOO_LARGE,
    BatchTooLarge = "batch_too_large" => PAYLOAD_TOO_LARGE,
    InvalidArchive = "invalid_archive" => BAD_REQUEST,
    // Webhooks.
    InvalidWebhookUrl = "invalid_webhook_url" => BAD_REQUEST,
    InvalidEvent = "invalid_event" => BAD_REQUEST,
    InvalidSecret = "invalid_secret" => BAD_REQUEST,
    WebhookNotFound = "webhook_not_found" => NOT_FOUND,
    // Reports.
    ReportNotFound = "report_not_found" => NOT_FOUND,
    InvalidDecision = "invalid_decision" => BAD_REQUEST,
    // A library's boilerplate phrases.
    InvalidPhrase = "invalid_phrase" => BAD_REQUEST,
    TooManyPhrases = "too_many_phrases" => CONFLICT,
    PhraseNotFound = "phrase_not_found" => NOT_FOUND,
    ReportWithoutPassages = "report_without_passages" => UNPROCESSABLE_ENTITY,
    // Access, routing and time.
    MissingToken = "missing_token" => UNAUTHORIZED,
    InvalidToken = "invalid_token" => UNAUTHORIZED,
    Forbidden = "forbidden" => FORBIDDEN,
    // What another web page could send: a name that is not the server's (DNS rebinding), a
    // write from another origin, a write without a key in a type a form can send.
    HostNotAllowed = "host_not_allowed" => FORBIDDEN,
    ForeignOrigin = "foreign_origin" => FORBIDDEN,
    UnsupportedContentType = "unsupported_content_type" => UNSUPPORTED_MEDIA_TYPE,
    // Keys.
    InvalidKeyName = "invalid_key_name" => BAD_REQUEST,
    InvalidRole = "invalid_role" => BAD_REQUEST,
    KeyExists = "key_exists" => CONFLICT,
    KeyNotFound = "key_not_found" => NOT_FOUND,
    // Key management that would leave keys but no admin key to manage them.
    AdminKeyRequired = "admin_key_required" => CONFLICT,
    NotFound = "not_found" => NOT_FOUND,
    MethodNotAllowed = "method_not_allowed" => METHOD_NOT_ALLOWED,
    Timeout = "timeout" => SERVICE_UNAVAILABLE,
    WorkBudgetExceeded = "work_budget_exceeded" => UNPROCESSABLE_ENTITY,
    Busy = "busy" => SERVICE_UNAVAILABLE,
    // The server's own state.
    WriterStopped = "writer_stopped" => SERVICE_UNAVAILABLE,
    StorageFull = "storage_full" => INSUFFICIENT_STORAGE,
    StorageUnavailable = "storage_unavailable" => SERVICE_UNAVAILABLE,
    TransientFault = "transient_fault" => SERVICE_UNAVAILABLE,
    UnsupportedOnBackend = "unsupported_on_backend" => NOT_IMPLEMENTED,
    Internal = "internal" => INTERNAL_SERVER_ERROR,
}

impl ErrorCode {
    /// The code spelled `code`, if there is one.
    pub fn parse(code: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.iter().copied().find(|c| c.as_str() == code)
    }
}

impl PartialEq<&str> for ErrorCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

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

impl From<crate::extract::ExtractError> for ApiError {
    fn from(e: crate::extract::ExtractError) -> Self {
        let code = ErrorCode::parse(e.code()).unwrap_or(ErrorCode::UnreadableDocument);
        ApiError::new(code, e.to_string())
    }
}

impl From<DocumentError> for ApiError {
    fn from(e: DocumentError) -> Self {
        let code = ErrorCode::parse(e.code()).unwrap_or(ErrorCode::InvalidJson);
        ApiError::new(code, e.to_string())
    }
}

impl From<LibraryError> for ApiError {
    fn from(e: LibraryError) -> Self {
        let code = match &e {
            LibraryError::InvalidId(_) => ErrorCode::InvalidLibraryId,
            LibraryError::NotFound(_) => ErrorCode::LibraryNotFound,
            LibraryError::Registry(RegistryError::Exists(_)) => ErrorCode::LibraryExists,
            LibraryError::WriterStopped(_) => return writer_stopped(),
            LibraryError::Unsupported { .. } => ErrorCode::UnsupportedOnBackend,
            LibraryError::JobRunningElsewhere { .. } => ErrorCode::JobRunningElsewhere,
            // Deleted by another process between the lookup and the statement.
            e if e.is_not_found() => ErrorCode::LibraryNotFound,
            LibraryError::Storage {
                fault: StorageFault::Full,
                ..
            } => {
                return ApiError::new(
                    ErrorCode::StorageFull,
                    "the data directory is full; the request was not completed",
                );
            }
            LibraryError::Storage {
                fault: StorageFault::Unavailable,
                ..
            } => {
                return ApiError::new(
                    ErrorCode::StorageUnavailable,
                    "the data directory cannot be written; the request was not completed",
                );
            }
            LibraryError::Storage {
                fault: StorageFault::Transient,
                ..
            } => {
                return ApiError::new(
                    ErrorCode::TransientFault,
                    "the server ran short of a resource for a moment (file descriptors or \
                     memory); the request was not completed; try again shortly",
                );
            }
            _ => return ApiError::internal(e),
        };
        ApiError::new(code, e.to_string())
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

impl From<crate::reports::ReapplyError> for ApiError {
    fn from(e: crate::reports::ReapplyError) -> Self {
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

impl From<crate::batch::BatchError> for ApiError {
    fn from(e: crate::batch::BatchError) -> Self {
        use crate::batch::BatchError;
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

impl From<crate::webhooks::WebhookError> for ApiError {
    fn from(e: crate::webhooks::WebhookError) -> Self {
        use crate::webhooks::WebhookError;
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

impl From<CheckError> for ApiError {
    fn from(e: CheckError) -> Self {
        match e {
            CheckError::Text(e) => e.into(),
            CheckError::Library(e) => e.into(),
            CheckError::InvalidSimilarity(_) => {
                ApiError::new(ErrorCode::InvalidMinSimilarity, e.to_string())
            }
            CheckError::NoLibraries => ApiError::new(ErrorCode::InvalidLibraries, e.to_string()),
            // Only a check nobody waits for is cancelled; the answer is not read.
            CheckError::Cancelled => ApiError::new(ErrorCode::Timeout, e.to_string()),
            CheckError::WorkBudgetExceeded { .. } => {
                ApiError::new(ErrorCode::WorkBudgetExceeded, e.to_string())
            }
        }
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
            assert_eq!(ApiError::from(error).code, code);
        }
    }

    #[test]
    fn codes_are_unique_but_for_the_start_url_answered_at_two_stages() {
        let mut codes: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), ErrorCode::ALL.len() - 1);
        assert_eq!(ErrorCode::QueuedStartUrl, "invalid_start_url");
    }
}
