//! From a file's bytes to text: the format is told from the content (magic bytes, the entries
//! of a ZIP container, the root element of XML), never from the name; each format has its
//! reader; every reader yields the same [`ExtractedDocument`]: a title, the blocks it could see
//! (headings, paragraphs, abstract, references) with their pages, and one text whose offsets
//! the check's passages refer to.
//!
//! Every reader works under [`ExtractLimits`] (pages, decompressed bytes) and turns damage into
//! [`ExtractError`]; PDF parsing runs under `catch_unwind`, so a panic in a parser crate is an
//! unreadable document, never a crash. The time bound is the caller's: the API runs
//! [`extract`] on the blocking pool under a timeout.
//!
//! ```
//! use dupfinder::extract::{ExtractLimits, Format, extract};
//! let bytes = "{\\rtf1\\ansi {\\b Title}\\par Body text of the paper.\\par}".as_bytes();
//! let document = extract(bytes, &ExtractLimits::default()).unwrap();
//! assert_eq!(document.format, Format::Rtf);
//! assert_eq!(document.text, "Title\n\nBody text of the paper.");
//! ```

mod clean;
mod document;
mod epub;
mod error;
mod html;
mod limits;
mod office;
mod pdf;
mod pdf_hidden;
mod plain;
mod poppler;
mod rtf;
mod sniff;
mod xml;

pub use clean::{expand_ligatures, join_hyphenated};
pub use document::{Block, BlockKind, DocumentSummary, ExtractedDocument};
pub use error::ExtractError;
pub use limits::ExtractLimits;
pub use plain::decode_text;
pub use sniff::{Format, sniff};

/// Extracts the text of a file of any supported format.
pub fn extract(bytes: &[u8], limits: &ExtractLimits) -> Result<ExtractedDocument, ExtractError> {
    let document = match sniff(bytes)? {
        Format::Pdf => pdf::read(bytes, limits)?,
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
