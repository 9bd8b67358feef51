//! The text of documents, with no storage and no network:
//! - [`extract`]: files (PDF, DOCX, ODT, RTF, HTML, JATS/TEI, EPUB, plain text) → text and its
//!   structure; the format told from the content; PDF reading bounded in bytes and work.
//! - [`analysis`]: text → tokens (normalization, homoglyph folding, language, stop words,
//!   stemming, positions and offsets).
//! - [`structure`]: a paper's parts, quotations and citations read from its plain text.

pub mod analysis;
pub mod extract;
pub mod structure;
