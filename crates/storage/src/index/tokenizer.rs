//! The analyzer as a tantivy tokenizer, registered as `dupfinder` on every index open.
//!
//! Documents are indexed pre-tokenized (the analyzer runs once, with the document's language);
//! this tokenizer serves tantivy's own uses of the field — query parsing and snippets — with the
//! language detected from the text it is given.

use tantivy::tokenizer::{Token as TantivyToken, TokenStream, Tokenizer};

use dupfinder_text::analysis::{Analyzer, Token};

/// The name the analyzer is registered under in every index.
pub const TOKENIZER_NAME: &str = "dupfinder";

/// Converts analyzer tokens into tantivy tokens.
pub(crate) fn to_tantivy_tokens(tokens: &[Token]) -> Vec<TantivyToken> {
    tokens
        .iter()
        .map(|t| TantivyToken {
            offset_from: t.start,
            offset_to: t.end,
            position: t.position as usize,
            text: t.term.clone(),
            position_length: 1,
        })
        .collect()
}

/// A tantivy [`Tokenizer`] that runs the dupfinder analyzer.
#[derive(Clone)]
pub struct AnalyzerTokenizer {
    analyzer: Analyzer,
}

impl AnalyzerTokenizer {
    pub fn new(analyzer: Analyzer) -> Self {
        AnalyzerTokenizer { analyzer }
    }
}

/// The tokens of one text, handed out one by one.
pub struct AnalyzedStream {
    tokens: Vec<TantivyToken>,
    next: usize,
}

impl Tokenizer for AnalyzerTokenizer {
    type TokenStream<'a> = AnalyzedStream;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> AnalyzedStream {
        let analyzed = self.analyzer.analyze(text, None);
        AnalyzedStream {
            tokens: to_tantivy_tokens(&analyzed.tokens),
            next: 0,
        }
    }
}

impl TokenStream for AnalyzedStream {
    fn advance(&mut self) -> bool {
        if self.next < self.tokens.len() {
            self.next += 1;
            true
        } else {
            false
        }
    }

    fn token(&self) -> &TantivyToken {
        &self.tokens[self.next - 1]
    }

    fn token_mut(&mut self) -> &mut TantivyToken {
        &mut self.tokens[self.next - 1]
    }
}
