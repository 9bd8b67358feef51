//! One file checked: its text extracted through the process's
//! [`Extractions`](dupfinder_text::extract::Extractions) (under `[extract]`'s bounds and time), checked,
//! and what is seen in the file rather than in its text (hidden text) added to the text's flags.
//! The API's upload, batches and the CLI check a file through here, so a file gets the same
//! verdict, figures and flags whichever way it comes.

use crate::library::{Catalog, LibraryError, check_cancellable};
use dupfinder_check::{CheckReport, CheckRequest, Flag};
use dupfinder_common::cancel::CancelFlag;
use dupfinder_common::error_code::ErrorCode;
use dupfinder_text::extract::{DocumentSummary, ExtractError, ExtractedDocument};

/// A file's check: the report (its flags include the file's own), what the file was, and the
/// request as checked, whose text (the file's) the passages' offsets refer to.
#[derive(Debug)]
pub struct FileCheck {
    pub report: CheckReport,
    pub document: DocumentSummary,
    pub request: CheckRequest,
}

impl FileCheck {
    /// The check's answer as the API, a batch's stored report and `dupfinder check` give it:
    /// the report, with what the file was under `document`.
    pub fn answer(&self) -> serde_json::Result<serde_json::Value> {
        let mut answer = serde_json::to_value(&self.report)?;
        answer["document"] = serde_json::to_value(&self.document)?;
        Ok(answer)
    }
}

/// Why a file was not checked.
#[derive(Debug, thiserror::Error)]
pub enum FileCheckError {
    #[error(transparent)]
    Extract(#[from] ExtractError),
    #[error(transparent)]
    Check(#[from] LibraryError),
}

impl FileCheckError {
    /// The stable code of this failure.
    pub fn code(&self) -> ErrorCode {
        match self {
            FileCheckError::Extract(e) => e.code(),
            FileCheckError::Check(e) => e.code(),
        }
    }
}

/// Checks the file `name` (its `bytes`) with `request`'s options (its `text` is the file's),
/// extracting it on this thread once a place is free. Stops at its next step once `cancel`
/// is set or the server stops.
pub fn check_file(
    catalog: &Catalog,
    name: &str,
    bytes: &[u8],
    request: CheckRequest,
    cancel: &CancelFlag,
) -> Result<FileCheck, FileCheckError> {
    let document = catalog.extractions().extract_blocking(bytes, cancel)?;
    Ok(check_extracted(catalog, name, document, request, cancel)?)
}

/// Checks the file `name`, already extracted as `document`, with `request`'s options (its
/// `text` is the document's). For a caller that extracted the file itself (the API, which
/// extracts on the async runtime's terms: answered at the time bound, refused when too many
/// files wait).
pub fn check_extracted(
    catalog: &Catalog,
    name: &str,
    document: ExtractedDocument,
    mut request: CheckRequest,
    cancel: &CancelFlag,
) -> Result<FileCheck, LibraryError> {
    let summary = document.summary(name);
    request.text = document.text;
    let mut report = check_cancellable(catalog, &request, cancel)?;
    // Hidden text is seen in the file, not in its extracted text: its flag joins the text's own.
    if summary.hidden_characters > 0 {
        report
            .flags
            .push(Flag::hidden_text(summary.hidden_characters));
    }
    Ok(FileCheck {
        report,
        document: summary,
        request,
    })
}
