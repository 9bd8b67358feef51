//! Why a file yields no text, each case with the stable code the API answers.

use super::Format;
use dupfinder_common::error_code::ErrorCode;

/// A file that could not be read as a document.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExtractError {
    /// A type dupfinder does not read (an image, an archive, an old binary Word file…).
    #[error(
        "{what} is not a supported document type; send PDF, DOCX, ODT, RTF, HTML, JATS or TEI XML, or plain text"
    )]
    Unsupported { what: String },
    /// Damaged, encrypted or mislabelled: the reason says which.
    #[error("the {format} file cannot be read: {reason}")]
    Unreadable { format: Format, reason: String },
    /// A PDF whose pages are images: nothing to read without OCR.
    #[error(
        "the PDF has no text layer ({pages} page(s) of images); run OCR on it first, e.g. `ocrmypdf -l rus+eng in.pdf out.pdf` or `tesseract scan.png out -l rus+eng` (Debian packages tesseract-ocr, tesseract-ocr-rus), and check the result"
    )]
    NoTextLayer { pages: u32 },
    /// Zero bytes.
    #[error("the file is empty")]
    Empty,
    /// A readable file without any text in it.
    #[error("the {format} file holds no text")]
    NoText { format: Format },
    #[error("the PDF has {pages} pages; at most {limit} are read (`[extract] max_pages`)")]
    TooManyPages { pages: u32, limit: u32 },
    /// A ZIP container (DOCX, ODT) that unpacks to more than the bound: a zip bomb or a
    /// document far larger than a paper.
    #[error(
        "the {format} file unpacks to more than {limit} bytes (`[extract] max_decompressed_bytes`)"
    )]
    TooLarge { format: Format, limit: u64 },
    /// A PDF whose streams decode to more than the bound: a content-stream bomb.
    #[error("the PDF's streams decode to more than {limit} bytes (`[extract] max_inflated_bytes`)")]
    TooMuchInflated { limit: u64 },
    /// A PDF that draws more than the bound, on one page or over all.
    #[error("the PDF draws with more than {limit} content operators (`[extract] {key}`)")]
    TooManyOperators { limit: u64, key: &'static str },
    #[error("the PDF has more than {limit} objects (`[extract] max_objects`)")]
    TooManyObjects { limit: u64 },
    /// Arrays and dictionaries, or forms drawn inside forms, nested deeper than the bound.
    #[error("the PDF nests more than {limit} levels deep (`[extract] max_nesting`)")]
    NestingTooDeep { limit: u32 },
    #[error("reading the file took longer than {seconds} s (`[extract] timeout_seconds`)")]
    Timeout { seconds: u64 },
    /// Too many files are being extracted and waiting already.
    #[error(
        "too many files are being read or waiting (`[extract] max_concurrent`, `max_waiting`); try again shortly"
    )]
    Busy,
    /// Nobody waits for the extraction any more: its client left, or the server is stopping.
    #[error("the extraction was stopped: the server is stopping or nobody waits for it")]
    Cancelled,
}

impl ExtractError {
    /// The stable code the API answers (and the CLI prints).
    pub fn code(&self) -> ErrorCode {
        match self {
            ExtractError::Unsupported { .. } => ErrorCode::UnsupportedMediaType,
            ExtractError::Unreadable { .. } | ExtractError::NoText { .. } | ExtractError::Empty => {
                ErrorCode::UnreadableDocument
            }
            ExtractError::NoTextLayer { .. } => ErrorCode::NoTextLayer,
            ExtractError::TooManyPages { .. } => ErrorCode::TooManyPages,
            ExtractError::TooLarge { .. } | ExtractError::TooMuchInflated { .. } => {
                ErrorCode::DocumentTooLarge
            }
            ExtractError::TooManyOperators { .. } => ErrorCode::TooManyOperators,
            ExtractError::TooManyObjects { .. } => ErrorCode::TooManyObjects,
            ExtractError::NestingTooDeep { .. } => ErrorCode::NestingTooDeep,
            ExtractError::Timeout { .. } => ErrorCode::ExtractionTimeout,
            ExtractError::Busy | ExtractError::Cancelled => ErrorCode::Busy,
        }
    }

    pub(super) fn unreadable(format: Format, reason: impl Into<String>) -> Self {
        ExtractError::Unreadable {
            format,
            reason: reason.into(),
        }
    }
}
