//! What the analyzer saw through in a text, so that a check can say so (the answer's `flags`),
//! and the text-level disguises it undoes before words are normalized: hidden characters and
//! letter spacing.
//!
//! The per-word disguises (look-alike letters in a word, ligatures, `ё`) are undone in
//! `normalize`; whole words in the other script's look-alikes and transliterated Russian need
//! the words around them and are undone by the analyzer.

use super::normalize::is_hidden;
use super::tokenize::{SpanKind, WordSpan};

/// Counts of the disguises found in one text. All zero for an honest text (nearly always: a
/// few of them occur naturally, see each field).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Disguises {
    /// Invisible characters next to a letter or digit (zero-width spaces and joiners,
    /// direction marks, word joiners); soft hyphens are not counted, since word processors
    /// put them in honestly.
    pub hidden_characters: usize,
    /// Words written with a space between their letters (`с л о в о`), joined back.
    pub letter_spacing: usize,
    /// Words mixing Latin and Cyrillic letters, folded into one script.
    pub mixed_script: usize,
    /// Whole words of three letters or more written in the other script's look-alike letters
    /// amid text of one script, respelled.
    pub look_alike_words: usize,
    /// Words of Russian transliterated into Latin letters, read back into Cyrillic.
    pub transliterated: usize,
}

impl Disguises {
    /// Whether nothing was found.
    pub fn is_empty(&self) -> bool {
        *self == Disguises::default()
    }
}

/// Counts the hidden characters of `text` that stand right after a letter or digit, where they
/// hide inside words (a byte order mark at the start of a text hides nothing).
pub(crate) fn count_hidden_characters(text: &str) -> usize {
    if text.is_ascii() {
        return 0;
    }
    let mut count = 0;
    let mut after_word = false;
    for c in text.chars() {
        if is_hidden(c) {
            count += usize::from(after_word);
        } else {
            after_word = c.is_alphanumeric();
        }
    }
    count
}

/// The fewest spaced letters that make a spaced word: two single letters in a row are common
/// (`и в`, `a b`), three that are not a word are rare.
const MIN_SPACED_LETTERS: usize = 3;

/// Whether `gap`, the text between two single-letter spans, is the one space of letter
/// spacing. Two spaces or more, a line break or punctuation separate words.
fn is_letter_gap(gap: &str) -> bool {
    let mut chars = gap.chars();
    matches!(
        (chars.next(), chars.next()),
        (Some(c), None) if c.is_whitespace() && c != '\n' && c != '\r'
    )
}

fn is_single_letter(text: &str, span: &WordSpan) -> bool {
    if span.kind != SpanKind::Word {
        return false;
    }
    let mut chars = text[span.start..span.end]
        .chars()
        .filter(|c| !is_hidden(*c));
    matches!((chars.next(), chars.next()), (Some(c), None) if c.is_alphabetic())
}

/// Joins runs of single letters separated by one space (`с л о в о`) into one span each,
/// in place, and answers how many such words were made. A joined span covers the spaces; the
/// analyzer normalizes its letters without them.
pub(crate) fn join_spaced_letters(text: &str, spans: &mut Vec<WordSpan>) -> usize {
    let mut joined = 0;
    let mut out = Vec::with_capacity(spans.len());
    let mut i = 0;
    while i < spans.len() {
        let mut j = i + 1;
        if is_single_letter(text, &spans[i]) {
            while j < spans.len()
                && is_single_letter(text, &spans[j])
                && is_letter_gap(&text[spans[j - 1].end..spans[j].start])
            {
                j += 1;
            }
        }
        if j - i >= MIN_SPACED_LETTERS {
            out.push(WordSpan {
                start: spans[i].start,
                end: spans[j - 1].end,
                kind: SpanKind::Word,
            });
            joined += 1;
        } else {
            out.extend_from_slice(&spans[i..j]);
        }
        i = j;
    }
    *spans = out;
    joined
}

#[cfg(test)]
mod tests {
    use super::super::tokenize::for_each_span;
    use super::*;

    fn joined(text: &str) -> (Vec<&str>, usize) {
        let mut spans = Vec::new();
        for_each_span(text, |span| spans.push(span));
        let count = join_spaced_letters(text, &mut spans);
        (spans.iter().map(|s| &text[s.start..s.end]).collect(), count)
    }

    #[test]
    fn joins_spaced_letters_into_words() {
        let (words, count) = joined("это с л о в о  и  д е л о, w o r d");
        assert_eq!(words, ["это", "с л о в о", "и", "д е л о", "w o r d"]);
        assert_eq!(count, 3);
    }

    #[test]
    fn leaves_pairs_of_single_letters_and_lists_alone() {
        let (words, count) = joined("и в дом; a, b, c; x\ny\nz");
        assert_eq!(words, ["и", "в", "дом", "a", "b", "c", "x", "y", "z"]);
        assert_eq!(count, 0);
    }

    #[test]
    fn counts_hidden_characters_inside_words_only() {
        assert_eq!(count_hidden_characters("\u{FEFF}plain text"), 0);
        assert_eq!(count_hidden_characters("pla\u{200B}in te\u{200D}xt"), 2);
        assert_eq!(count_hidden_characters("hy\u{AD}phen"), 0);
        assert_eq!(count_hidden_characters("ascii only"), 0);
    }
}
