//! What the analyzer saw through in a text, so that a check can say so (the answer's `flags`),
//! and the disguises it undoes that need more than one word: hidden characters and letter
//! spacing before words are normalized, whole words in the other script's look-alikes after.
//!
//! The per-word disguises (look-alike letters in a word, ligatures, `ё`) are undone in
//! `normalize`; transliterated Russian is read back in `translit`.
//!
//! Undoing and counting are apart on purpose: honest scientific text writes words that look
//! like disguises (`СаСl2`, `NРK`, `ХIX`, stress marks `Бóльшую`, pre-reform `исторiя`, the
//! acronym `PCA` and the names `Cook`, `Kok` amid Russian, `«cook»` quoted, chlorophylls `a и б`).
//! They are undone like the rest, so the same text always analyzes the same way, but they are not
//! counted: a flag says a writer disguised something, and these say nothing of the kind.

use super::analyzer::MIN_WORD_CHARS;
use super::language::Script;
use super::normalize::{is_hidden, whole_word_look_alike};
use super::tokenize::{SpanKind, WordSpan};
use super::words::{Word, describe};

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
            after_word = super::is_alphanumeric(c);
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

/// How many words with letters on each side of a look-alike word decide the script of its
/// surroundings.
const LOOK_ALIKE_CONTEXT: usize = 4;

/// Whether a word can be a whole word of look-alikes: a plain word of at least
/// [`MIN_WORD_CHARS`] letters and nothing else, in Latin or Cyrillic script, whose every
/// letter has a look-alike in the other script.
fn is_look_alike_word(text: &str, word: &Word, normalized: &str) -> bool {
    word.span.kind == SpanKind::Word
        && word.letters >= MIN_WORD_CHARS
        && word.letters == word.chars
        && only_capitals_look_alike(&text[word.span.start..word.span.end])
        && match word.script {
            Script::Latin => whole_word_look_alike(
                &normalized[word.norm_start..word.norm_end],
                Script::Cyrillic,
            )
            .is_some(),
            Script::Cyrillic => {
                whole_word_look_alike(&normalized[word.norm_start..word.norm_end], Script::Latin)
                    .is_some()
            }
            _ => false,
        }
}

/// Whether `original` has none of the letters that pass for the other script's only as
/// capitals (`B`/`В`, `H`/`Н`, `M`/`М`, `T`/`Т`): lowercase, `м` or `t` disguise nothing, so
/// `Москва` amid English text stays Russian. Case is not consulted, so that a word reads the
/// same in capitals and in lowercase; a whole word disguised with these capitals is missed.
fn only_capitals_look_alike(original: &str) -> bool {
    !original
        .chars()
        .flat_map(char::to_lowercase)
        .any(|c| "bhmtвнмт".contains(c))
}

/// Respells whole words written in the other script's look-alike letters (Latin `kopa` amid
/// Russian, Cyrillic `сор` amid English) in the script of the words around them, and answers
/// how many of them are disguises (acronyms, names, quoted words and words of a phrase in their
/// own script are respelled but not counted: see `disguise::is_honest_look_alike`).
///
/// The surroundings decide: among the nearest [`LOOK_ALIKE_CONTEXT`] words with letters on
/// each side that are not look-alike words themselves, at least two and more than twice as many
/// must be in the other script. Latin acronyms in Russian text (`HTTP`, `ACM`) are safe because
/// their `H`, `T`, `M` are left out (see [`only_capitals_look_alike`]).
pub(super) fn respell_look_alike_words(
    text: &str,
    words: &mut [Word],
    normalized: &mut String,
) -> usize {
    let has = |script| words.iter().any(|word| word.script == script);
    if !has(Script::Latin) || !has(Script::Cyrillic) {
        return 0;
    }
    let candidate: Vec<bool> = words
        .iter()
        .map(|word| is_look_alike_word(text, word, normalized))
        .collect();
    let context = |range: &mut dyn Iterator<Item = usize>, words: &[Word]| {
        range
            .filter(|&k| !candidate[k] && words[k].letters > 0)
            .take(LOOK_ALIKE_CONTEXT)
            .map(|k| words[k].script)
            .collect::<Vec<_>>()
    };
    let mut respelled = 0;
    for i in (0..words.len()).filter(|&i| candidate[i]) {
        let word = words[i];
        let other = match word.script {
            Script::Latin => Script::Cyrillic,
            _ => Script::Latin,
        };
        let mut around = context(&mut (0..i).rev(), words);
        around.extend(context(&mut (i + 1..words.len()), words));
        let same = around.iter().filter(|&&s| s == word.script).count();
        let others = around.iter().filter(|&&s| s == other).count();
        if others < 2 || others <= 2 * same {
            continue;
        }
        let Some(spelled) =
            whole_word_look_alike(&normalized[word.norm_start..word.norm_end], other)
        else {
            continue;
        };
        let own_script_next = [i.checked_sub(1), Some(i + 1)]
            .into_iter()
            .flatten()
            .filter(|&k| k < words.len() && !candidate[k])
            .filter(|&k| {
                // A phrase's words are apart by spaces only: `OOO «Sysmex»` is no phrase.
                let (a, b) = (words[k.min(i)].span.end, words[k.max(i)].span.start);
                a <= b && text[a..b].chars().all(char::is_whitespace)
            })
            .any(|k| words[k].script == word.script && words[k].letters > 0);
        let norm_start = normalized.len();
        normalized.push_str(&spelled);
        words[i] = describe(word.span, norm_start, normalized);
        respelled += usize::from(!is_honest_look_alike(
            text,
            word.span.start,
            word.span.end,
            own_script_next,
        ));
    }
    respelled
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{originals, russian_analyzer, terms};
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

    #[test]
    fn respells_whole_latin_look_alike_words_amid_russian() {
        let analyzer = russian_analyzer();
        let clean = analyzer.analyze("Эта кора дерева очень толстая и прочная", None);
        let text = "Эта kopa дерева очень толстая и прочная";
        let disguised = analyzer.analyze(text, None);
        assert_eq!(terms(&clean), terms(&disguised));
        assert_eq!(disguised.disguises.look_alike_words, 1);
        assert_eq!(originals(text, &disguised)[1], "kopa");
    }

    #[test]
    fn respells_whole_cyrillic_look_alike_words_amid_english() {
        let analyzer = russian_analyzer();
        let clean = analyzer.analyze("The police found the cop near the station", None);
        let disguised = analyzer.analyze("The police found the сор near the station", None);
        assert_eq!(terms(&clean), terms(&disguised));
        assert_eq!(disguised.disguises.look_alike_words, 1);
    }

    #[test]
    fn leaves_acronyms_and_english_phrases_in_russian_alone() {
        let analyzer = russian_analyzer();
        let analyzed = analyzer.analyze("Протокол HTTP и формат TEX описаны подробно", None);
        assert_eq!(analyzed.disguises.look_alike_words, 0);
        let analyzed = analyzer.analyze("Метод boosting and bagging сравнивается с другими", None);
        assert_eq!(analyzed.disguises.look_alike_words, 0);
        // A Russian word amid English whose lowercase `м`, `к`, `в` look like nothing Latin.
        let analyzed = analyzer.analyze("The capital Москва hosts the largest library", None);
        assert_eq!(analyzed.disguises.look_alike_words, 0);
        // A lone English word with no Russian on both sides is left alone too.
        let analyzed = analyzer.analyze("cope with the task", None);
        assert_eq!(analyzed.disguises, Disguises::default());
    }

    #[test]
    fn joins_letter_spacing() {
        let analyzer = russian_analyzer();
        let clean = analyzer.analyze("Метод поиска дубликатов", None);
        let text = "Метод п о и с к а дубликатов";
        let spaced = analyzer.analyze(text, None);
        assert_eq!(terms(&clean), terms(&spaced));
        assert_eq!(spaced.disguises.letter_spacing, 1);
        assert_eq!(originals(text, &spaced)[1], "п о и с к а");
    }

    #[test]
    fn strips_and_counts_zero_width_characters() {
        let analyzer = russian_analyzer();
        let clean = analyzer.analyze("Метод поиска дубликатов", None);
        let hidden = analyzer.analyze("Ме\u{200B}тод по\u{200D}иска дубли\u{2060}катов", None);
        assert_eq!(terms(&clean), terms(&hidden));
        assert_eq!(hidden.disguises.hidden_characters, 3);
        assert_eq!(clean.disguises, Disguises::default());
    }

    #[test]
    fn counts_words_of_mixed_scripts() {
        let analyzed = russian_analyzer().analyze("Мы пpедлaгaем новые мeтoды", None);
        assert_eq!(analyzed.disguises.mixed_script, 2);
    }

    #[test]
    fn honest_scientific_writing_counts_as_no_disguise() {
        // Sentences of ru_sci_480 papers that were flagged before: formulas, Roman numerals,
        // stress marks, acronyms, names, phrases and quoted words in Latin script, chlorophylls
        // `a и б`, a transliterated URL, a Polish quotation, a list of letters.
        let analyzer = russian_analyzer();
        for text in [
            "в варианте (NРK)90 и СаСl2-вытяжке оптимум рНKCl снижается для СoNPs-2 в ХIX в.",
            "Бóльшую эффективность штамма показывает Рassé simple, их исторiя и Урынáлы",
            "Например, PCA находит подпространство, как и ACE, а оксид CoO и Co0 восстанавливается",
            "В ходе исследования Nils Kok и растение Mount Cook lily символизирует дуб (Australian oak)",
            "омонимичностью фамилии и глагола «cook» – готовить еду, элементы «key shift» и объединение",
            "содержание хлорофиллов a и б на 41 процент, затем 3-х ч и в фазах, если A, C и B",
            "источник: ru/article/181404/zvezdyi-vidyi-zvezd-i-ih-klassifikatsiya-po-tsvetu-i-razmeru-i-ih-svoystva/ статья",
            "упоминается «ieden do wszech w obec obywatelow ukrainnych a drugi uniwersalny do wszytkich obywatelow województwa Wołyńskiego y Ukraińskiego» в тексте",
            "переходы a → e (Hans → Hens), e → i (Berg → Birg), o → u (Most → Must), au → ei, i → a в речи",
        ] {
            let analyzed = analyzer.analyze(text, None);
            assert_eq!(analyzed.disguises, Disguises::default(), "{text}");
        }
        // The same kinds of writing disguising a text are still counted.
        let disguised = analyzer.analyze(
            "Эта kopa дерева. Kopa дерева очень пpедлaгaем с л о в о",
            None,
        );
        assert_eq!(
            disguised.disguises.look_alike_words, 2,
            "{:?}",
            disguised.disguises
        );
        assert_eq!(disguised.disguises.mixed_script, 1);
        assert_eq!(disguised.disguises.letter_spacing, 1);
    }
}
