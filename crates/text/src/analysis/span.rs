//! Ranges of a text in code points, the unit in which every offset the service answers is
//! written (passages, structure, quotations, the evaluation's truth).

use serde::{Deserialize, Serialize};

/// A range of a text in code points (`char`s, not bytes), `start` inclusive, `end` exclusive:
/// how the API's offsets and the evaluation's truth are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    /// First code point of the range.
    pub start: usize,
    /// One past the last code point of the range.
    pub end: usize,
}
