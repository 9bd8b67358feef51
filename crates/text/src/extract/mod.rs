//! From a file's bytes to text: the format is told from the content (magic bytes, the entries
//! of a ZIP container, the root element of XML), never from the name; each format has its
//! reader; every reader yields the same [`ExtractedDocument`]: a title, the blocks it could see
//! (headings, paragraphs, abstract, references) with their pages, and one text whose offsets
//! the check's passages refer to.
//!
//! Every reader works under [`ExtractLimits`] (pages, decompressed bytes; for PDF also inflated
//! stream bytes, content operators, objects and nesting, measured around the parser crates,
//! see `pdf_bounds.rs`) and its time bound, stops at its next step when cancelled, and turns
//! damage into [`ExtractError`]; PDF parsing runs under `catch_unwind`, so a panic in a parser
//! crate is an unreadable document, never a crash. [`Extractions`] is the one way the process
//! extracts a file (uploads, batches, crawled full texts, imports): under a cap of extractions
//! at once, cancelled when nobody waits for it or the server stops.
//!
//! ```
//! use dupfinder_text::extract::{ExtractLimits, Format, extract};
//! let bytes = "{\\rtf1\\ansi {\\b Title}\\par Body text of the paper.\\par}".as_bytes();
//! let document = extract(bytes, &ExtractLimits::default()).unwrap();
//! assert_eq!(document.format, Format::Rtf);
//! assert_eq!(document.text, "Title\n\nBody text of the paper.");
//! ```

mod budget;
mod clean;
mod document;
mod doi;
mod epub;
mod error;
mod html;
mod limits;
mod office;
mod page;
mod pdf;
mod pdf_bounds;
mod pdf_decode;
mod pdf_hidden;
mod pdf_lexer;
mod pdf_scan;
mod places;
mod plain;
mod poppler;
mod rtf;
mod sniff;
mod xml;

use budget::Budget;
use dupfinder_common::cancel::CancelFlag;

pub use clean::{expand_ligatures, join_hyphenated};
pub use document::{Block, BlockKind, DocumentSummary, ExtractedDocument};
pub use doi::normalize_doi;
pub use error::ExtractError;
pub use limits::ExtractLimits;
pub use page::{ExtractedPage, PageError, normalize_url, read_page};
pub(crate) use page::{MAX_NESTING, nesting_exceeds};
pub use places::Extractions;
pub use plain::decode_text;
pub use sniff::{Format, sniff};

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
