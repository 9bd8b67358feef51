//! Text analysis: from a document's text to the terms that signatures and shingles are built
//! from, each with its position and its byte offsets in the original text.
//!
//! The pipeline, one file per step:
//!
//! - `tokenize` cuts the original text into word spans; Chinese and
//!   Japanese runs become overlapping character bigrams;
//! - `normalize` undoes the disguises of copied text in each word: NFKC,
//!   lowercase, invisible characters, `ё`→`е`, Latin/Cyrillic look-alike letters;
//! - `words` describes each normalized word by its script, and maps scripts to
//!   languages;
//! - `disguise` counts what was seen through (a check's `flags`), joins
//!   spaced letters (`с л о в о`) and respells whole words written in the
//!   other script's look-alike letters;
//! - `translit` reads Russian transliterated into Latin letters back into
//!   Cyrillic (GOST 7.79-B, BGN/PCGN, ISO 9, passport);
//! - `stopwords` holds the stop-word lists, parsed from file contents the
//!   caller supplies;
//! - `language` knows the languages, their ISO codes, their stemmers and the
//!   script of each character;
//! - `runs` finds sentences plainly written in another Latin-script language
//!   than the document's (a French abstract pasted into an English paper);
//! - `latin_language` detects the language of Latin-script text;
//! - `analyzer` runs the steps, drops short words, numbers and stop words,
//!   and stems what remains;
//! - `text` analyzes a whole document or query once: term counts, shingles and
//!   the content hash, with the bounds every text passes.
//!
//! This module does no I/O: stop words arrive as strings, and texts as `&str`.
//!
//! ```
//! use dupfinder_text::analysis::{Analyzer, Language, StopWords};
//!
//! let stop_words = StopWords::from_lists([(Language::Russian, "и\nдля\n")]);
//! let analyzer = Analyzer::new(stop_words);
//! let text = "Поиск нечётких дубликатов и заимствований";
//! let analyzed = analyzer.analyze(text, None);
//! assert_eq!(analyzed.language, Language::Russian);
//! let first = &analyzed.tokens[0];
//! assert_eq!((first.term.as_str(), &text[first.start..first.end]), ("поиск", "Поиск"));
//! ```

mod analyzer;
mod disguise;
mod input;
mod language;
mod latin_language;
mod normalize;
mod runs;
mod shingle;
mod span;
mod stopwords;
#[cfg(test)]
mod test_support;
mod text;
mod tokenize;
mod translit;
mod words;

pub use analyzer::{Analyzed, Analyzer, Token};
pub use disguise::Disguises;
pub use input::{DocumentError, parse_lang};
pub use language::Language;
pub(crate) use language::is_alphanumeric;
pub use shingle::{
    SHINGLE_SAMPLE, SHINGLE_WORDS, ShingleSelection, WINNOW_WINDOW, shingle_hash, shingle_sequence,
    shingles,
};
pub use span::Span;
pub use stopwords::StopWords;
pub use text::{AnalyzedText, TextError, TextLimits, analyze_text, content_hash};
