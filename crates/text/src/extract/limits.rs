//! The bounds every reader works under (`[extract]` in the configuration). The size of the
//! file itself is bounded by the request body limit (`[limits] max_body_bytes`).

use serde::Deserialize;

/// Bounds on one file's extraction, and on extractions at once.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExtractLimits {
    /// A PDF with more pages is refused (`too_many_pages`).
    pub max_pages: u32,
    /// A DOCX, ODT or EPUB whose text entries (the document XML and its metadata; images are never
    /// unpacked) unpack to more bytes is refused (`document_too_large`): the guard against
    /// zip bombs.
    pub max_decompressed_bytes: u64,
    /// A PDF whose streams (page contents, forms, fonts, object streams; images are never
    /// decoded) decode to more bytes in all is refused (`document_too_large`): the guard
    /// against content-stream bombs. Counted before the file is parsed and again as it is.
    pub max_inflated_bytes: u64,
    /// A PDF page drawn with more content operators (a form counted each time it is drawn)
    /// is refused (`too_many_operators`).
    pub max_page_operators: u64,
    /// A PDF drawn with more content operators over all its pages is refused
    /// (`too_many_operators`).
    pub max_operators: u64,
    /// A PDF with more objects is refused (`too_many_objects`).
    pub max_objects: u64,
    /// A PDF whose arrays and dictionaries, or forms drawn inside forms, nest deeper is
    /// refused (`nesting_too_deep`): the parsers recurse on nesting.
    pub max_nesting: u32,
    /// How long one file's extraction may take before it is stopped and answered
    /// `extraction_timeout`. Keep it below `[limits] request_timeout_ms`, which bounds the
    /// whole check.
    pub timeout_seconds: u64,
    /// Files extracted at once in the process (uploads, batches, crawled full texts, imports);
    /// 0 means one per CPU core.
    pub max_concurrent: usize,
    /// Uploaded files waiting for a place to be extracted; one more is refused at once
    /// (`503 busy`). Batches, crawls and imports wait for a place instead.
    pub max_waiting: usize,
    /// Poppler's `pdftotext`, which reads the PDFs the built-in reader cannot interpret
    /// (see `extract/poppler.rs`); a program name looked up on the `PATH`, or a path. Empty
    /// switches the second reading off.
    pub pdftotext: String,
}

impl Default for ExtractLimits {
    fn default() -> Self {
        ExtractLimits {
            max_pages: 500,
            max_decompressed_bytes: 32 * 1024 * 1024,
            max_inflated_bytes: 128 * 1024 * 1024,
            max_page_operators: 200_000,
            max_operators: 5_000_000,
            max_objects: 500_000,
            max_nesting: 100,
            timeout_seconds: 20,
            max_concurrent: 0,
            max_waiting: 64,
            pdftotext: "pdftotext".to_string(),
        }
    }
}
