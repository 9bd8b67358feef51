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
mod dispatch;
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
mod pdf_layout;
mod pdf_lexer;
mod pdf_repair;
mod pdf_scan;
mod places;
mod plain;
mod poppler;
mod rtf;
mod sniff;
mod xml;

pub use clean::{expand_ligatures, join_hyphenated};
pub use dispatch::{extract, extract_cancellable};
pub use document::{Block, BlockKind, DocumentSummary, ExtractedDocument};
pub use doi::normalize_doi;
pub use error::ExtractError;
pub use limits::ExtractLimits;
pub use page::{ExtractedPage, PageError, normalize_url, read_page};
pub(crate) use page::{MAX_NESTING, nesting_exceeds};
pub use places::Extractions;
pub use plain::decode_text;
pub use sniff::{Format, sniff};
