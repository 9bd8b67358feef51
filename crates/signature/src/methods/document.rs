//! What every method reads of a document: its terms in order, their counts, and where its
//! sentences start and end.

use std::ops::Range;

use dupfinder_text::analysis::Token;

/// A document as the methods see it: the analyzer's terms (stemmed, stop words and words under
/// three letters dropped, as the paper's preprocessing drops "function words and words of three
/// letters or fewer") and its sentences as ranges of those terms.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MethodDoc {
    pub terms: Vec<String>,
    /// Each distinct term once, sorted by term, with its count.
    pub counts: Vec<(String, u32)>,
    /// Non-empty, consecutive ranges of `terms`, covering them all.
    pub sentences: Vec<Range<usize>>,
}

/// Characters that end a sentence when whitespace follows them.
const FULL_STOPS: [char; 4] = ['.', '!', '?', '…'];
/// Characters that end a sentence wherever they stand (CJK punctuation).
const CJK_STOPS: [char; 3] = ['。', '！', '？'];

/// Whether the text between two kept words ends a sentence: a full stop followed by whitespace
/// (possibly after a closing quote or bracket), a CJK full stop, or a blank line. Abbreviations
/// such as "e.g." end a sentence too; the paper's splitter is not described, and a rule this
/// plain is what its preprocessing suggests.
fn ends_sentence(gap: &str) -> bool {
    if gap.contains(CJK_STOPS) || gap.contains("\n\n") || gap.contains("\r\n\r\n") {
        return true;
    }
    let mut chars = gap.chars().peekable();
    while let Some(c) = chars.next() {
        if FULL_STOPS.contains(&c) {
            let mut rest = chars.clone();
            while rest
                .peek()
                .is_some_and(|c| matches!(c, '"' | '\'' | ')' | ']' | '»' | '”' | '’'))
            {
                rest.next();
            }
            if rest.peek().is_some_and(|c| c.is_whitespace()) {
                return true;
            }
        }
    }
    false
}

impl MethodDoc {
    /// The document of `text` analyzed into `tokens` (whose byte offsets point into `text`).
    pub fn new(text: &str, tokens: &[Token]) -> MethodDoc {
        let mut sentences = Vec::new();
        let mut start = 0;
        for i in 1..tokens.len() {
            let gap = text.get(tokens[i - 1].end..tokens[i].start).unwrap_or("");
            if ends_sentence(gap) {
                sentences.push(start..i);
                start = i;
            }
        }
        if start < tokens.len() {
            sentences.push(start..tokens.len());
        }
        let terms: Vec<String> = tokens.iter().map(|t| t.term.clone()).collect();
        MethodDoc {
            counts: counts_of(&terms),
            terms,
            sentences,
        }
    }

    /// A document given as its sentences of terms (for tests and hand-made examples).
    pub fn from_sentences(sentences: &[&str]) -> MethodDoc {
        let mut terms = Vec::new();
        let mut ranges = Vec::new();
        for sentence in sentences {
            let start = terms.len();
            terms.extend(sentence.split_whitespace().map(str::to_string));
            if terms.len() > start {
                ranges.push(start..terms.len());
            }
        }
        MethodDoc {
            counts: counts_of(&terms),
            terms,
            sentences: ranges,
        }
    }

    /// The terms of sentence `i`.
    pub fn sentence(&self, i: usize) -> &[String] {
        &self.terms[self.sentences[i].clone()]
    }

    /// The largest count of any term (`tf_max`), 0 for an empty document.
    pub fn tf_max(&self) -> u32 {
        self.counts.iter().map(|(_, c)| *c).max().unwrap_or(0)
    }
}

fn counts_of(terms: &[String]) -> Vec<(String, u32)> {
    let mut sorted: Vec<&String> = terms.iter().collect();
    sorted.sort_unstable();
    let mut counts: Vec<(String, u32)> = Vec::new();
    for term in sorted {
        match counts.last_mut() {
            Some((last, count)) if last == term => *count += 1,
            _ => counts.push((term.clone(), 1)),
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(text: &str, word: &str, from: usize) -> Token {
        let start = text[from..].find(word).unwrap() + from;
        Token {
            term: word.to_lowercase(),
            position: 0,
            start,
            end: start + word.len(),
        }
    }

    #[test]
    fn sentences_end_at_full_stops_followed_by_space() {
        let text = "Alpha beta. Gamma 3.5 delta! \"Epsilon zeta.\" Eta\n\ntheta";
        let words = [
            "Alpha", "beta", "Gamma", "delta", "Epsilon", "zeta", "Eta", "theta",
        ];
        let mut from = 0;
        let tokens: Vec<Token> = words
            .iter()
            .map(|w| {
                let t = token(text, w, from);
                from = t.end;
                t
            })
            .collect();
        let doc = MethodDoc::new(text, &tokens);
        // "3.5" has no space after its dot: no break between gamma and delta.
        assert_eq!(doc.sentences, vec![0..2, 2..4, 4..6, 6..7, 7..8]);
        assert_eq!(doc.sentence(1), ["gamma", "delta"]);
        assert_eq!(doc.counts.len(), 8);
        assert_eq!(doc.tf_max(), 1);
    }

    #[test]
    fn from_sentences_counts_terms() {
        let doc = MethodDoc::from_sentences(&["a b a", "", "c"]);
        assert_eq!(doc.sentences, vec![0..3, 3..4]);
        assert_eq!(
            doc.counts,
            vec![("a".into(), 2), ("b".into(), 1), ("c".into(), 1)]
        );
        assert_eq!(doc.tf_max(), 2);
    }
}
