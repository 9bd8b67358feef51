//! The bounds every reader works under (`[extract]` in the configuration).

use serde::Deserialize;

/// Bounds on one file's extraction.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExtractLimits {
    /// A PDF with more pages is refused (`too_many_pages`).
    pub max_pages: u32,
    /// A DOCX or ODT whose entries unpack to more bytes is refused (`document_too_large`):
    /// the guard against zip bombs.
    pub max_decompressed_bytes: u64,
    /// How long one file's extraction may take before the request is answered
    /// `extraction_timeout`.
    pub timeout_seconds: u64,
    /// The largest file accepted in a request (the body limit of multipart requests).
    pub max_file_bytes: usize,
}

impl Default for ExtractLimits {
    fn default() -> Self {
        ExtractLimits {
            max_pages: 500,
            max_decompressed_bytes: 200 * 1024 * 1024,
            timeout_seconds: 60,
            max_file_bytes: 50 * 1024 * 1024,
        }
    }
}
