//! Splitting the original text into word spans, with byte offsets into that text.
//!
//! A word is a maximal run of alphanumeric characters (`char::is_alphanumeric`), extended by
//! combining marks and by the invisible characters of [`is_invisible`] when they stand inside
//! the word. Everything else separates words, apostrophes and hyphens included, so `don't`
//! gives `don` and `t`, and `TF-RIDF` gives `TF` and `RIDF`.
//!
//! Chinese and Japanese are written without spaces, so a run of Han, Hiragana or Katakana
//! characters is not one word but a sentence. Such runs are split out of the surrounding word
//! and emitted as overlapping character bigrams (`中文分词` gives `中文`, `文分`, `分词`), a
//! standard segmentation that needs no dictionary; a run of a single character is emitted as
//! that character. Korean separates words with spaces, so Hangul words are kept whole.
//!
//! Spans always refer to the original text, before any normalization, so that a passage found
//! in the analyzed text can be shown in the text a person reads.

use super::language::Script;
use super::normalize::is_invisible;

/// How a span was cut out of the text, which decides how the analyzer treats it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SpanKind {
    /// An ordinary word.
    Word,
    /// A CJK character bigram, or a lone CJK character.
    Cjk,
}

/// A word of the original text: `text[start..end]`, on character boundaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WordSpan {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) kind: SpanKind,
}

/// The role a character plays in word splitting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CharClass {
    /// A letter or digit: starts or continues a word.
    Base,
    /// A Han, Hiragana or Katakana letter: starts or continues a CJK stretch.
    Cjk,
    /// A combining mark: continues a word, never starts one.
    Mark,
    /// An invisible character: belongs to a word only between two of its characters.
    Invisible,
    /// Anything else: ends the current word.
    Separator,
}

fn classify(c: char) -> CharClass {
    if c.is_ascii() {
        return if c.is_ascii_alphanumeric() {
            CharClass::Base
        } else {
            CharClass::Separator
        };
    }
    if let Some(script) = Script::of_common_letter(c) {
        return if script.is_cjk() {
            CharClass::Cjk
        } else {
            CharClass::Base
        };
    }
    if c.is_alphanumeric() {
        if Script::of(c).is_cjk() {
            CharClass::Cjk
        } else {
            CharClass::Base
        }
    } else if is_invisible(c) {
        CharClass::Invisible
    } else if is_combining_mark(c) {
        CharClass::Mark
    } else {
        CharClass::Separator
    }
}

/// Whether `c` is a combining mark that must not split a word.
///
/// The standard library has no general-category lookup, so this lists the combining blocks and
/// the marks of the scripts the analyzer handles by hand. Only characters that are not already
/// alphanumeric reach this test, which is why some ranges can span a whole block's letters and
/// marks alike: the letters in them were classified before.
fn is_combining_mark(c: char) -> bool {
    let code = u32::from(c);
    // Letters and marks of the Indic blocks occupy the first 0x64 code points of each 0x80
    // block; the dandas and digits that follow are punctuation and numbers.
    let indic = (0x0900..=0x0DFF).contains(&code) && code & 0x7F <= 0x63;
    indic
        || matches!(
            code,
            0x0300..=0x036F
                | 0x0483..=0x0489
                | 0x0591..=0x05BD
                | 0x05BF
                | 0x05C1..=0x05C2
                | 0x05C4..=0x05C5
                | 0x05C7
                | 0x0610..=0x061A
                | 0x064B..=0x065F
                | 0x0670
                | 0x06D6..=0x06DC
                | 0x06DF..=0x06E4
                | 0x06E7..=0x06E8
                | 0x06EA..=0x06ED
                | 0x08CA..=0x08FF
                | 0x0E31
                | 0x0E34..=0x0E3A
                | 0x0E47..=0x0E4E
                | 0x1AB0..=0x1AFF
                | 0x1DC0..=0x1DFF
                | 0x20D0..=0x20FF
                | 0x2DE0..=0x2DFF
                | 0x302A..=0x302F
                | 0x3099..=0x309A
                | 0xA66F..=0xA67D
                | 0xFE00..=0xFE0F
                | 0xFE20..=0xFE2F
                | 0xE0100..=0xE01EF
        )
}

/// The segment of a word run being built: either an ordinary word or a CJK stretch.
#[derive(Debug, Clone, Copy)]
enum Segment {
    /// An ordinary word from `start` to the end of its last visible character.
    Word { start: usize, end: usize },
    /// A CJK stretch. A unit is one CJK character with the combining marks that follow it;
    /// `current` is the unit being read and `previous` the one before it, if any.
    Cjk {
        previous: Option<(usize, usize)>,
        current: (usize, usize),
    },
}

/// Calls `emit` with every word span of `text`, in order of their start offsets.
///
/// A callback rather than a collection keeps the analyzer free of an intermediate vector.
pub(crate) fn for_each_span(text: &str, mut emit: impl FnMut(WordSpan)) {
    let mut segment: Option<Segment> = None;
    for (start, c) in text.char_indices() {
        let end = start + c.len_utf8();
        match classify(c) {
            CharClass::Separator => flush(segment.take(), &mut emit),
            // An invisible character extends nothing by itself; if the word continues after
            // it, the next character's end covers it, and if not, it stays outside the span.
            CharClass::Invisible => {}
            CharClass::Mark => match &mut segment {
                Some(Segment::Word { end: word_end, .. }) => *word_end = end,
                Some(Segment::Cjk { current, .. }) => current.1 = end,
                None => {}
            },
            class @ (CharClass::Base | CharClass::Cjk) => {
                let cjk = class == CharClass::Cjk;
                match (&mut segment, cjk) {
                    (Some(Segment::Word { end: word_end, .. }), false) => *word_end = end,
                    (Some(Segment::Cjk { previous, current }), true) => {
                        if let Some((previous_start, _)) = *previous {
                            emit(WordSpan {
                                start: previous_start,
                                end: current.1,
                                kind: SpanKind::Cjk,
                            });
                        }
                        *previous = Some(*current);
                        *current = (start, end);
                    }
                    _ => {
                        flush(segment.take(), &mut emit);
                        segment = Some(if cjk {
                            Segment::Cjk {
                                previous: None,
                                current: (start, end),
                            }
                        } else {
                            Segment::Word { start, end }
                        });
                    }
                }
            }
        }
    }
    flush(segment, &mut emit);
}

/// Emits what remains of a finished segment: the word, or the last bigram of a CJK stretch
/// (the lone character when the stretch has only one).
fn flush(segment: Option<Segment>, emit: &mut impl FnMut(WordSpan)) {
    match segment {
        None => {}
        Some(Segment::Word { start, end }) => emit(WordSpan {
            start,
            end,
            kind: SpanKind::Word,
        }),
        Some(Segment::Cjk { previous, current }) => {
            let start = previous.map_or(current.0, |(previous_start, _)| previous_start);
            emit(WordSpan {
                start,
                end: current.1,
                kind: SpanKind::Cjk,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(text: &str) -> Vec<WordSpan> {
        let mut spans = Vec::new();
        for_each_span(text, |span| spans.push(span));
        spans
    }

    fn words(text: &str) -> Vec<&str> {
        spans(text)
            .into_iter()
            .map(|span| &text[span.start..span.end])
            .collect()
    }

    fn kinds(text: &str) -> Vec<SpanKind> {
        spans(text).into_iter().map(|span| span.kind).collect()
    }

    #[test]
    fn splits_on_spaces_and_punctuation() {
        assert_eq!(
            words("Near-duplicate (fuzzy) documents, 2024: TF·RIDF!"),
            [
                "Near",
                "duplicate",
                "fuzzy",
                "documents",
                "2024",
                "TF",
                "RIDF"
            ]
        );
        assert_eq!(words(""), Vec::<&str>::new());
        assert_eq!(words(" \t\n.,;"), Vec::<&str>::new());
    }

    #[test]
    fn apostrophes_and_hyphens_split_words() {
        assert_eq!(words("don't"), ["don", "t"]);
        assert_eq!(words("l’analyse d'un"), ["l", "analyse", "d", "un"]);
        assert_eq!(words("кто-то"), ["кто", "то"]);
        assert_eq!(
            words("state\u{2010}of\u{2011}the\u{2013}art"),
            ["state", "of", "the", "art"]
        );
    }

    #[test]
    fn invisible_characters_inside_a_word_keep_it_whole() {
        assert_eq!(words("dupli\u{AD}cate"), ["dupli\u{AD}cate"]);
        assert_eq!(words("ab\u{200B}cd\u{200D}ef"), ["ab\u{200B}cd\u{200D}ef"]);
        // At the edges of a word they belong to no word.
        assert_eq!(words("\u{AD}word\u{AD} \u{200B}"), ["word"]);
        assert_eq!(words("a\u{200D}😀"), ["a"]);
    }

    #[test]
    fn combining_marks_continue_words_but_never_start_them() {
        assert_eq!(words("re\u{301}sume\u{301}"), ["re\u{301}sume\u{301}"]);
        assert_eq!(words("\u{301}abc"), ["abc"]);
        // Tamil: the virama (pulli) U+0BCD is a mark, not a letter.
        assert_eq!(words("தமிழ் மொழி"), ["தமிழ்", "மொழி"]);
        // Arabic with vowel marks.
        assert_eq!(words("كَتَبَ"), ["كَتَبَ"]);
    }

    #[test]
    fn unicode_letters_and_digits_form_words() {
        assert_eq!(words("ﬁnal Ⅻ ½ ÀÉÎ"), ["ﬁnal", "Ⅻ", "½", "ÀÉÎ"]);
        assert_eq!(words("😀word😀слово🎉"), ["word", "слово"]);
    }

    #[test]
    fn cjk_runs_become_overlapping_bigrams() {
        let text = "中文分词";
        assert_eq!(words(text), ["中文", "文分", "分词"]);
        assert_eq!(kinds(text), [SpanKind::Cjk; 3]);
        let spans = spans(text);
        assert_eq!((spans[1].start, spans[1].end), (3, 9));
    }

    #[test]
    fn a_lone_cjk_character_is_its_own_span() {
        assert_eq!(words("中"), ["中"]);
        assert_eq!(words("中 文"), ["中", "文"]);
        assert_eq!(words("中。文字"), ["中", "文字"]);
    }

    #[test]
    fn cjk_is_split_out_of_mixed_runs() {
        assert_eq!(words("abc中文def"), ["abc", "中文", "def"]);
        assert_eq!(
            kinds("abc中文def"),
            [SpanKind::Word, SpanKind::Cjk, SpanKind::Word]
        );
        assert_eq!(words("GPU並列計算"), ["GPU", "並列", "列計", "計算"]);
        assert_eq!(words("x中"), ["x", "中"]);
    }

    #[test]
    fn kana_and_kanji_bigram_together() {
        assert_eq!(
            words("日本語のテキスト"),
            ["日本", "本語", "語の", "のテ", "テキ", "キス", "スト"]
        );
        // A combining voiced sound mark stays with its kana.
        assert_eq!(words("か\u{3099}き"), ["か\u{3099}き"]);
    }

    #[test]
    fn hangul_words_stay_whole() {
        assert_eq!(words("한국어 텍스트 분석"), ["한국어", "텍스트", "분석"]);
        assert_eq!(kinds("한국어"), [SpanKind::Word]);
    }

    #[test]
    fn spans_lie_on_char_boundaries_in_order() {
        let text = "Ёжик\u{AD}и 中文字 ﬁnal—😀 한국 x\u{301}";
        let spans = spans(text);
        assert!(!spans.is_empty());
        for pair in spans.windows(2) {
            assert!(pair[0].start <= pair[1].start);
        }
        for span in spans {
            assert!(span.start < span.end && span.end <= text.len());
            assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
        }
    }
}
