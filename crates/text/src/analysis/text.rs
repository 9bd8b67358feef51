//! A whole text analyzed once for everything built from it — term counts, shingles, the content
//! hash — with the checks every text passes (not empty, not too large, enough words). Ingest
//! and check both analyze through here, so a document and a query of the same text agree.

use super::{Analyzer, Disguises, Language, Token, shingles};

/// Bounds on a text.
#[derive(Debug, Clone, Copy)]
pub struct TextLimits {
    /// Bytes of text at most.
    pub max_bytes: usize,
    /// Indexable words (after analysis) at least.
    pub min_words: usize,
}

/// Why a text cannot be analyzed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TextError {
    #[error("the text is empty")]
    Empty,
    #[error("the text has {terms} indexable words after analysis; at least {min} are needed")]
    TooShort { terms: usize, min: usize },
    #[error("the text is {bytes} bytes; at most {max} are accepted")]
    TooLarge { bytes: usize, max: usize },
}

/// A text analyzed for indexing or checking.
#[derive(Debug, Clone)]
pub struct AnalyzedText {
    pub lang: Language,
    /// Words in the text before stop words and short words were dropped.
    pub words: u64,
    pub tokens: Vec<Token>,
    /// Each distinct term once, sorted by term, with its count.
    pub term_counts: Vec<(String, u32)>,
    pub content_hash: u64,
    /// The shingle starting at each token position.
    pub shingles: Vec<u64>,
    /// The disguises seen through (a check answers them as `flags`).
    pub disguises: Disguises,
}

/// Validates and analyzes a text.
pub fn analyze_text(
    analyzer: &Analyzer,
    text: &str,
    lang: Option<Language>,
    limits: TextLimits,
) -> Result<AnalyzedText, TextError> {
    if text.len() > limits.max_bytes {
        return Err(TextError::TooLarge {
            bytes: text.len(),
            max: limits.max_bytes,
        });
    }
    if text.trim().is_empty() {
        return Err(TextError::Empty);
    }
    let analyzed = analyzer.analyze(text, lang);
    if analyzed.tokens.len() < limits.min_words {
        return Err(TextError::TooShort {
            terms: analyzed.tokens.len(),
            min: limits.min_words,
        });
    }
    Ok(AnalyzedText {
        shingles: shingles(&analyzed.tokens),
        lang: analyzed.language,
        words: analyzed.words as u64,
        content_hash: content_hash(&analyzed.tokens),
        term_counts: Analyzer::term_counts(&analyzed.tokens),
        tokens: analyzed.tokens,
        disguises: analyzed.disguises,
    })
}

/// The content hash of an analyzed text: xxh3 over its term sequence, so two texts that differ
/// only in case, whitespace, punctuation, stop words or homoglyphs hash the same.
pub fn content_hash(tokens: &[Token]) -> u64 {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    for token in tokens {
        hasher.update(token.term.as_bytes());
        hasher.update(&[0]);
    }
    hasher.digest()
}
