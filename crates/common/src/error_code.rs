//! Every error code of the service, in one table: the stable snake_case code a failure is
//! answered or recorded with, and for the codes the HTTP API answers, their status. Each stage's
//! error type says its code with `code() -> ErrorCode`; the API turns the code into a status
//! and a JSON body, the CLI and batches print or keep it, the crawler records it with a page.
//! The wire spellings are a contract (`API.md`): they never change.
//!
//! This module uses nothing else of the crate, so that every stage can name its codes.

use std::fmt;

use http::StatusCode;

/// Declares [`ErrorCode`] from one table: the codes answered (variant, stable code, HTTP
/// status), then the codes only recorded (variant, stable code).
macro_rules! error_codes {
    (
        answered { $($variant:ident = $code:literal => $status:ident,)* }
        recorded { $($recorded:ident = $recorded_code:literal,)* }
    ) => {
        /// Every error code of the service: those the API answers, with their status, and
        /// those only recorded (why a crawled page or harvested record was not indexed, why a
        /// storage backend failed).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $($variant,)*
            $($recorded,)*
        }

        impl ErrorCode {
            /// Every code the API answers, in the table's order (the OpenAPI document lists
            /// the same).
            pub const ANSWERED: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// Every code only recorded, never answered as such.
            pub const RECORDED: &'static [ErrorCode] = &[$(ErrorCode::$recorded,)*];

            /// The stable snake_case code.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $code,)*
                    $(ErrorCode::$recorded => $recorded_code,)*
                }
            }

            /// The HTTP status this code is answered with. A code only recorded is not
            /// answered as such: one that reached a client would be the server's own fault.
            pub fn status(self) -> StatusCode {
                match self {
                    $(ErrorCode::$variant => StatusCode::$status,)*
                    $(ErrorCode::$recorded)|* => StatusCode::INTERNAL_SERVER_ERROR,
                }
            }
        }
    };
}

error_codes! {
    answered {
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
        InvalidSchedule = "invalid_schedule" => BAD_REQUEST,
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
        LibraryPaused = "library_paused" => CONFLICT,
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
    recorded {
        // Why a crawled page was not read: its fetch (`crawl/fetch.rs`; a page not found, a
        // fetch timed out and a private address have the answered codes `not_found`,
        // `timeout` and `private_address`) or its HTML (`extract/page.rs`).
        UnsupportedScheme = "unsupported_scheme",
        RobotsDisallowed = "robots_disallowed",
        HttpStatus = "http_status",
        ServerError = "server_error",
        RateLimited = "rate_limited",
        Network = "network",
        TooLarge = "too_large",
        NotHtml = "not_html",
        RedirectLoop = "redirect_loop",
        TooManyRedirects = "too_many_redirects",
        BadRedirect = "bad_redirect",
        Client = "client",
        TooDeep = "too_deep",
        // Why a crawled page was not indexed: a link that is no URL, a page that is no
        // article, a reader that failed outside its bounds, an index that refused it.
        InvalidUrl = "invalid_url",
        NotArticle = "not_article",
        ExtractFailed = "extract_failed",
        IndexFailed = "index_error",
        // Why a sitemap or an OAI-PMH answer could not be fetched or used.
        SitemapUnavailable = "sitemap_unavailable",
        OaiUnavailable = "oai_unavailable",
        SitemapGzip = "sitemap_gzip",
        SitemapTooLarge = "sitemap_too_large",
        SitemapInvalid = "sitemap_invalid",
        OaiBaseUrl = "oai_base_url",
        OaiInvalid = "oai_invalid",
        OaiError = "oai_error",
        // Why a storage backend other than tantivy failed.
        StorageConfig = "storage_config",
        StorageUnreachable = "storage_unreachable",
        StorageDatabase = "storage_database",
        StorageMigration = "storage_migration",
        // A batch's file left unchecked because the batch was aborted before it.
        Aborted = "aborted",
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// A code compared with its wire spelling, as tests and readers of stored JSON do.
impl PartialEq<&str> for ErrorCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_but_for_the_start_url_answered_at_two_stages() {
        let every = ErrorCode::ANSWERED.iter().chain(ErrorCode::RECORDED);
        let mut codes: Vec<&str> = every.map(|c| c.as_str()).collect();
        let count = codes.len();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), count - 1);
        assert_eq!(ErrorCode::QueuedStartUrl, "invalid_start_url");
        assert_eq!(ErrorCode::InvalidStartUrl, "invalid_start_url");
    }

    #[test]
    fn recorded_codes_are_not_answered_as_client_errors() {
        for code in ErrorCode::RECORDED {
            assert_eq!(code.status(), StatusCode::INTERNAL_SERVER_ERROR, "{code}");
        }
        assert_eq!(ErrorCode::LibraryNotFound.status(), StatusCode::NOT_FOUND);
        assert_eq!(
            serde_json::to_string(&ErrorCode::TextTooShort).unwrap(),
            "\"text_too_short\""
        );
    }
}
