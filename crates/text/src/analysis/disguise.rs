//! What the analyzer saw through in a text, so that a check can say so (the answer's `flags`),
//! and the text-level disguises it undoes before words are normalized: hidden characters and
//! letter spacing.
//!
//! The per-word disguises (look-alike letters in a word, ligatures, `ё`) are undone in
//! `normalize`; whole words in the other script's look-alikes and transliterated Russian need
//! the words around them and are undone by the analyzer.
//!
//! Undoing and counting are apart on purpose: honest scientific text writes words that look
//! like disguises (`СаСl2`, `NРK`, `ХIX`, stress marks `Бóльшую`, pre-reform `исторiя`, the
//! acronym `PCA` and the names `Cook`, `Kok` amid Russian, `«cook»` quoted, chlorophylls `a и б`).
//! They are undone like the rest, so the same text always analyzes the same way, but they are not
//! counted: a flag says a writer disguised something, and these say nothing of the kind.

use super::language::Script;
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

/// The fewest spaced letters counted as a disguise: runs of three single letters occur in
/// honest text (`хлорофиллов a и б`, `3-х ч и в`, `A, C и B`), runs of four of one script and
/// case hardly.
const MIN_COUNTED_SPACED_LETTERS: usize = 4;

/// Whether a run of spaced letters (spaces left out) is a disguised word worth counting: at
/// least [`MIN_COUNTED_SPACED_LETTERS`] letters of one script, in one case (or capitalized).
fn is_counted_spacing(letters: &str) -> bool {
    let letters: Vec<char> = letters.chars().filter(|c| c.is_alphabetic()).collect();
    if letters.len() < MIN_COUNTED_SPACED_LETTERS {
        return false;
    }
    let script = |c: char| Script::of(c);
    let one_script = letters.iter().all(|&c| script(c) == script(letters[0]));
    let rest = &letters[1..];
    let one_case =
        rest.iter().all(|c| c.is_lowercase()) || letters.iter().all(|c| c.is_uppercase());
    // A word repeats few of its letters; a formula's indices do (`k i k i k`).
    let mut distinct = letters.clone();
    distinct.sort_unstable();
    distinct.dedup();
    one_script && one_case && 2 * distinct.len() >= letters.len()
}

/// Whether `neighbour`, the span next to a run of spaced letters that ends or starts at `at`,
/// is a word of prose on the same line: a word (spaced letters joined) of at least
/// [`PROSE_NEIGHBOUR_LETTERS`] letters. A disguised word stands among words (`это к о п и я текста`); spaced letters
/// among single letters, symbols and brackets, or on a line of their own, are a formula
/// (`( )k i k i k ix t y t z t`), a drawing of a tree, or a heading set in spaced type.
fn is_prose_neighbour(text: &str, neighbour: &WordSpan, at: usize) -> bool {
    let (from, to) = if neighbour.end <= at {
        (neighbour.end, at)
    } else {
        (at, neighbour.start)
    };
    neighbour.kind == SpanKind::Word
        && !text[from..to].contains(['\n', '\r'])
        && text[neighbour.start..neighbour.end]
            .chars()
            .filter(|c| c.is_alphabetic())
            .count()
            >= PROSE_NEIGHBOUR_LETTERS
}

/// The letters a word next to spaced letters needs to show they stand in prose.
const PROSE_NEIGHBOUR_LETTERS: usize = 3;

/// Whether a word that mixes Latin and Cyrillic letters is written that way honestly, so that
/// it is not counted as `mixed_script`: a formula or code (a digit, or a capital after the
/// first letter: `СаСl2`, `NРK`, `рНKCl`, `IB-Кi14`), an all-capital acronym or Roman numeral
/// (`ХIX`), an accented Latin letter (a stress mark in a Russian word, `Бóльшую`, or a
/// French word with one Cyrillic slip, `Рassé`: disguises use plain look-alikes), or the
/// letter `i` of pre-reform or Ukrainian spelling (`исторiя`).
pub(crate) fn is_honest_mixed_word(word: &str) -> bool {
    // Spaced single letters of both scripts joined into one span (`a и б`) are no spaced word.
    if word.chars().any(|c| c.is_numeric() || c.is_whitespace()) {
        return true;
    }
    let letters: Vec<char> = word.chars().filter(|c| c.is_alphabetic()).collect();
    if letters.iter().skip(1).any(|c| c.is_uppercase()) {
        return true;
    }
    let latin: Vec<char> = letters
        .iter()
        .copied()
        .filter(|&c| Script::of(c) == Script::Latin)
        .collect();
    latin.iter().any(|c| !c.is_ascii()) || (!latin.is_empty() && latin.iter().all(|&c| c == 'i'))
}

/// Whether a whole word in the other script's look-alike letters is written that way honestly:
/// an acronym or formula (a capital after the first letter: `PCA`, `CoO`), a name (capitalized
/// where no sentence starts: `Nils Kok`, `Mount Cook`), a word of a phrase in that script (a
/// plain word of its own script next to it: `Australian oak`, `key shift`), or a quoted word
/// (`«cook»`). `own_script_next` says whether a neighbouring word, apart by spaces only, is of
/// the word's own script and no look-alike word itself.
pub(crate) fn is_honest_look_alike(
    text: &str,
    start: usize,
    end: usize,
    own_script_next: bool,
) -> bool {
    let word = &text[start..end];
    let mut letters = word.chars().filter(|c| c.is_alphabetic());
    let first_upper = letters.next().is_some_and(char::is_uppercase);
    if letters.any(char::is_uppercase) || own_script_next {
        return true;
    }
    let before = text[..start].chars().rev().find(|c| !c.is_whitespace());
    let is_quote = |c: Option<char>| c.is_some_and(|c| "\"'«»„“”‘’‹›".contains(c));
    if is_quote(text[..start].chars().next_back()) && is_quote(text[end..].chars().next()) {
        return true;
    }
    let sentence_start = before.is_none_or(|c| ".!?…:;\n".contains(c))
        || text[..start].trim_end_matches([' ', '\t']).ends_with('\n');
    first_upper && !sentence_start
}

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
/// in place, and answers how many of them are disguises ([`is_counted_spacing`]). A joined span covers the spaces; the
/// analyzer normalizes its letters without them.
pub(crate) fn join_spaced_letters(text: &str, spans: &mut Vec<WordSpan>) -> usize {
    let mut out = Vec::with_capacity(spans.len());
    // Joined runs worth counting by their letters: (index in `out`).
    let mut candidates = Vec::new();
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
            // A first letter glued to what precedes it is an ending (`3-х ч и в`), not spaced.
            let glued = text[..spans[i].start]
                .chars()
                .next_back()
                .is_some_and(|c| c == '-' || c.is_alphanumeric());
            let first = if glued { spans[i].end } else { spans[i].start };
            if is_counted_spacing(&text[first..spans[j - 1].end]) {
                candidates.push(out.len());
            }
            out.push(WordSpan {
                start: spans[i].start,
                end: spans[j - 1].end,
                kind: SpanKind::Word,
            });
        } else {
            out.extend_from_slice(&spans[i..j]);
        }
        i = j;
    }
    // A disguised word stands among words, spaced or not; see `is_prose_neighbour`.
    let joined = candidates
        .into_iter()
        .filter(|&k| {
            let run = &out[k];
            (k > 0 && is_prose_neighbour(text, &out[k - 1], run.start))
                || out
                    .get(k + 1)
                    .is_some_and(|next| is_prose_neighbour(text, next, run.end))
        })
        .count();
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
    fn spaced_letters_in_formulas_drawings_and_headings_are_joined_but_not_counted() {
        for text in [
            "( ), ( ), ( )k i k i k ix t y t z t = 0",
            "root )\n\na c n\n\n# ! n r o i\n\ne d e u c",
            "А н н о т а ц и я\nВ статье рассмотрено",
        ] {
            let (_, count) = joined(text);
            assert_eq!(count, 0, "{text}");
        }
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
