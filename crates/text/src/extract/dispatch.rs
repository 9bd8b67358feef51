//! One entry point for every format: the format told from the bytes, then its reader, under
//! one budget.

use super::budget::Budget;
use super::{
    ExtractError, ExtractLimits, ExtractedDocument, Format, decode_text, epub, html, office, pdf,
    plain, rtf, sniff, xml,
};
use dupfinder_common::cancel::CancelFlag;

/// Extracts the text of a file of any supported format, under `limits` (its time included).
pub fn extract(bytes: &[u8], limits: &ExtractLimits) -> Result<ExtractedDocument, ExtractError> {
    extract_cancellable(bytes, limits, &CancelFlag::new())
}

/// [`extract`], stopped at its next step once `cancel` is set ([`ExtractError::Cancelled`]).
pub fn extract_cancellable(
    bytes: &[u8],
    limits: &ExtractLimits,
    cancel: &CancelFlag,
) -> Result<ExtractedDocument, ExtractError> {
    let budget = Budget::new(limits, cancel.clone());
    budget.go_on()?;
    let document = match sniff(bytes)? {
        Format::Pdf => pdf::read(bytes, &budget)?,
        Format::Docx => office::read_docx(bytes, limits)?,
        Format::Odt => office::read_odt(bytes, limits)?,
        Format::Epub => epub::read(bytes, limits)?,
        Format::Rtf => rtf::read(bytes)?,
        Format::Html => html::read(&decode_text(bytes))?,
        Format::Jats => xml::read_jats(&decode_text(bytes))?,
        Format::Tei => xml::read_tei(&decode_text(bytes))?,
        Format::Text => plain::read(bytes),
    };
    if document.text.trim().is_empty() {
        return Err(ExtractError::NoText {
            format: document.format,
        });
    }
    Ok(document)
}
