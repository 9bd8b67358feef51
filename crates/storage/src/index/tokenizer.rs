//! The analyzer as a tantivy tokenizer, registered as `dupfinder` on every index open.
//!
//! Documents are indexed already analysed (the analyzer runs once, with the document's
//! language): the indexed field is given the document's terms as one text marked as analysed
//! ([`analysed_text`]), which this tokenizer reads back term by term. Any other text — tantivy's
//! own uses of the field, query parsing and snippets — is analyzed, with the language detected
//! from the text it is given.
//!
//! The terms go as a text rather than as tantivy's pre-tokenized value because tantivy keeps a
//! pre-tokenized value in its document as JSON and parses it again to index it: for a full paper's
//! ~5,000 tokens, a ninth of an import's time (benches/RESULTS.md, "Full papers: an import
//! without the tokens' round trip through JSON").

use std::str::Split;

use tantivy::tokenizer::{Token as TantivyToken, TokenStream, Tokenizer};

use dupfinder_text::analysis::{Analyzer, Token};

/// The name the analyzer is registered under in every index.
pub const TOKENIZER_NAME: &str = "dupfinder";

/// The first character of a text that holds analysed terms: no text a query or a document gives
/// the tokenizer starts with it (control characters are not text).
const ANALYSED: char = '\u{1}';

/// A text's analysed terms as the indexed field is given them: [`ANALYSED`], then the terms in
/// order, one space between two. A term never holds a space: the analyzer cuts words at spaces.
pub(crate) fn analysed_text(tokens: &[Token]) -> String {
    let mut text =
        String::with_capacity(1 + tokens.iter().map(|t| t.term.len() + 1).sum::<usize>());
    text.push(ANALYSED);
    for (i, token) in tokens.iter().enumerate() {
        debug_assert!(!token.term.contains(' '), "{:?}", token.term);
        if i > 0 {
            text.push(' ');
        }
        text.push_str(&token.term);
    }
    text
}

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

/// The tokens of one text, handed out one by one: analyzed, or read back from
/// [`analysed_text`].
pub enum AnalyzedStream<'a> {
    Analyzed {
        tokens: Vec<TantivyToken>,
        next: usize,
    },
    ReadBack {
        terms: Split<'a, char>,
        token: TantivyToken,
    },
}

impl Tokenizer for AnalyzerTokenizer {
    type TokenStream<'a> = AnalyzedStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> AnalyzedStream<'a> {
        if let Some(terms) = text.strip_prefix(ANALYSED) {
            return AnalyzedStream::ReadBack {
                terms: terms.split(' '),
                // tantivy's default token stands before the first position (`usize::MAX`).
                token: TantivyToken::default(),
            };
        }
        let analyzed = self.analyzer.analyze(text, None);
        AnalyzedStream::Analyzed {
            tokens: to_tantivy_tokens(&analyzed.tokens),
            next: 0,
        }
    }
}

impl TokenStream for AnalyzedStream<'_> {
    fn advance(&mut self) -> bool {
        match self {
            AnalyzedStream::Analyzed { tokens, next } => {
                if *next < tokens.len() {
                    *next += 1;
                    true
                } else {
                    false
                }
            }
            AnalyzedStream::ReadBack { terms, token } => {
                // An empty text holds one empty piece, and no term.
                let Some(term) = terms.next().filter(|term| !term.is_empty()) else {
                    return false;
                };
                token.position = token.position.wrapping_add(1);
                token.text.clear();
                token.text.push_str(term);
                true
            }
        }
    }

    fn token(&self) -> &TantivyToken {
        match self {
            AnalyzedStream::Analyzed { tokens, next } => &tokens[*next - 1],
            AnalyzedStream::ReadBack { token, .. } => token,
        }
    }

    fn token_mut(&mut self) -> &mut TantivyToken {
        match self {
            AnalyzedStream::Analyzed { tokens, next } => &mut tokens[*next - 1],
            AnalyzedStream::ReadBack { token, .. } => token,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream_of(tokenizer: &mut AnalyzerTokenizer, text: &str) -> Vec<(String, usize)> {
        let mut stream = tokenizer.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            let token = stream.token();
            out.push((token.text.clone(), token.position));
        }
        out
    }

    /// A document's terms given as analysed text come back as the tokens the analysis gave:
    /// the same terms at the same positions as its pre-tokenized value held.
    #[test]
    fn analysed_text_gives_back_the_analysis_tokens() {
        let analyzer = crate::index::default_analyzer();
        let mut tokenizer = AnalyzerTokenizer::new(analyzer.clone());
        for text in [
            "Метод шинглов сравнивает тексты по последовательностям из трёх слов.",
            "Shingles of three words compare texts; signatures compare telling words.",
            "本研究探讨了稻田养鸭模式对水稻产量的影响。Mixed 文本 and 漢字.",
            "",
        ] {
            let analyzed = analyzer.analyze(text, None);
            let expected: Vec<(String, usize)> = to_tantivy_tokens(&analyzed.tokens)
                .into_iter()
                .map(|t| (t.text, t.position))
                .collect();
            assert_eq!(
                stream_of(&mut tokenizer, &analysed_text(&analyzed.tokens)),
                expected,
                "{text}"
            );
            // The same text not marked is analyzed.
            assert_eq!(stream_of(&mut tokenizer, text), expected, "{text}");
        }
    }
}
