//! A paper's structure read from its plain text, the way an editor reads a manuscript: front
//! matter (title, authors, affiliations, e-mails, identifiers, dates, keywords, funding and
//! competing-interest statements), abstracts, headings and body, quotations and in-text
//! citations, acknowledgements, the reference list and its entries. Every part is a span of
//! code points of the text, as the check's passages are. No I/O.
//!
//! `layout` splits the text into lines and blocks, `names` knows the headings and labels,
//! `parts` walks the blocks, `quotes` and `citations` read inside paragraphs, `document`
//! puts them together.

mod citations;
mod document;
mod layout;
mod names;
mod parts;
mod quotes;

pub use document::{Structure, overlap};
pub use names::is_section_name;
pub use parts::{Part, Region};
pub use quotes::Quotation;
