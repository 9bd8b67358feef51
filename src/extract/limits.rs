//! The bounds every reader works under (`[extract]` in the configuration). The size of the
//! file itself is bounded by the request body limit (`[limits] max_body_bytes`).

use serde::Deserialize;

/// Bounds on one file's extraction.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExtractLimits {
    /// A PDF with more pages is refused (`too_many_pages`).
    pub max_pages: u32,
    /// A DOCX, ODT or EPUB whose text entries (the document XML and its metadata; images are never
    /// unpacked) unpack to more bytes is refused (`document_too_large`): the guard against
    /// zip bombs.
    pub max_decompressed_bytes: u64,
    /// How long one file's extraction may take before the request is answered
    /// `extraction_timeout`. Keep it below `[limits] request_timeout_ms`, which bounds the
    /// whole check.
    pub timeout_seconds: u64,
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
            timeout_seconds: 20,
            pdftotext: "pdftotext".to_string(),
        }
    }
}
