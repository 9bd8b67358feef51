//! Text structure for the generator: scripts, words, sentences and paragraphs.
//!
//! Deliberately independent of `dupfinder_text::analysis`: the generator produces ground truth for
//! testing the analyzer, so it must not share the analyzer's notion of a word or its bugs.
//! Words are maximal runs of alphanumeric characters; sentences end after `.`, `!`, `?` or `…`
//! followed by whitespace and an uppercase letter (or the end), or after Chinese `。！？`;
//! paragraphs are separated by blank lines.

use std::ops::Range;

use super::rng::Rng;

/// The writing system of a letter, as far as the modifications care: which alphabet a random
/// replacement letter is drawn from, and which words can take homoglyphs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Script {
    Latin,
    Cyrillic,
    Greek,
    Han,
    Digit,
    Other,
}

const SCRIPTS: [Script; 6] = [
    Script::Latin,
    Script::Cyrillic,
    Script::Greek,
    Script::Han,
    Script::Digit,
    Script::Other,
];

impl Script {
    pub(crate) fn of(c: char) -> Script {
        match c {
            '0'..='9' => Script::Digit,
            'a'..='z' | 'A'..='Z' => Script::Latin,
            '\u{00C0}'..='\u{024F}' | '\u{1E00}'..='\u{1EFF}' if c.is_alphabetic() => Script::Latin,
            '\u{0400}'..='\u{04FF}' => Script::Cyrillic,
            '\u{0370}'..='\u{03FF}' => Script::Greek,
            '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' => Script::Han,
            _ if c.is_numeric() => Script::Digit,
            _ => Script::Other,
        }
    }

    /// The script most of the letters of `text` belong to; digits count only when there are no
    /// letters at all, so `COVID19` is Latin and `2024` is Digit.
    pub(crate) fn dominant(text: &str) -> Script {
        let mut counts = [0usize; SCRIPTS.len()];
        for c in text.chars().filter(|c| c.is_alphanumeric()) {
            counts[Script::of(c) as usize] += 1;
        }
        let letters = SCRIPTS
            .iter()
            .filter(|s| **s != Script::Digit)
            .max_by_key(|s| (counts[**s as usize], std::cmp::Reverse(**s as usize)));
        match letters {
            Some(s) if counts[*s as usize] > 0 => *s,
            _ if counts[Script::Digit as usize] > 0 => Script::Digit,
            _ => Script::Other,
        }
    }

    /// A random lowercase letter (or digit) of this script; `None` where we know no alphabet.
    pub(crate) fn random_char(self, rng: &mut Rng) -> Option<char> {
        let (first, count) = match self {
            Script::Latin => ('a', 26),
            Script::Cyrillic => ('а', 32),
            // 24 letters from α to ω, skipping final sigma (ς), which is not a free letter.
            Script::Greek => {
                let c = char::from_u32(0x03B1 + rng.below(24) as u32)?;
                return Some(if c >= '\u{03C2}' {
                    char::from_u32(c as u32 + 1)?
                } else {
                    c
                });
            }
            // The basic CJK Unified Ideographs block.
            Script::Han => ('\u{4E00}', 0x9FA5 - 0x4E00 + 1),
            Script::Digit => ('0', 10),
            Script::Other => return None,
        };
        char::from_u32(first as u32 + rng.below(count) as u32)
    }
}

/// `c` in the case of `like` (for letters that have a single-character case mapping).
pub(crate) fn case_like(like: char, c: char) -> char {
    let mapped = if like.is_uppercase() {
        c.to_uppercase().next()
    } else if like.is_lowercase() {
        c.to_lowercase().next()
    } else {
        Some(c)
    };
    mapped.unwrap_or(c)
}

/// The capitalisation of a word, so a replacement can be written the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Case {
    Lower,
    Upper,
    Title,
    /// No cased letters, or an irregular mix (`iPhone`); kept as the replacement comes.
    Other,
}

impl Case {
    pub(crate) fn of(word: &str) -> Case {
        let mut cased = word
            .chars()
            .filter(|c| c.is_lowercase() || c.is_uppercase());
        let Some(first) = cased.next() else {
            return Case::Other;
        };
        let rest: Vec<char> = cased.collect();
        let rest_lower = rest.iter().all(|c| c.is_lowercase());
        let rest_upper = rest.iter().all(|c| c.is_uppercase());
        match (first.is_uppercase(), rest_lower, rest_upper) {
            // A single uppercase letter reads as a capital, not as shouting.
            (true, _, true) if !rest.is_empty() => Case::Upper,
            (true, true, _) => Case::Title,
            (false, true, _) => Case::Lower,
            _ => Case::Other,
        }
    }

    pub(crate) fn apply(self, word: &str) -> String {
        match self {
            Case::Lower => word.to_lowercase(),
            Case::Upper => word.to_uppercase(),
            Case::Title => {
                let mut chars = word.chars();
                match chars.next() {
                    Some(first) => first
                        .to_uppercase()
                        .chain(chars.flat_map(char::to_lowercase))
                        .collect(),
                    None => String::new(),
                }
            }
            Case::Other => word.to_string(),
        }
    }
}

pub(crate) fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
}

/// The words of `text`, in order.
pub(crate) fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !is_word_char(c))
        .filter(|w| !w.is_empty())
}

pub(crate) fn word_count(text: &str) -> usize {
    words(text).count()
}

/// Whether two texts differ in anything but whitespace: the test of a real modification, since
/// re-joining sentences legitimately normalizes the whitespace between them.
pub(crate) fn differs_beyond_whitespace(a: &str, b: &str) -> bool {
    visible(a).ne(visible(b))
}

fn visible(text: &str) -> impl Iterator<Item = char> + '_ {
    text.chars().filter(|c| !c.is_whitespace())
}

/// A text cut into alternating separators and words, `seps[0] words[0] seps[1] … words[n-1]
/// seps[n]`, so word-level modifications keep the punctuation and whitespace around each word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tokens {
    pub(crate) seps: Vec<String>,
    pub(crate) words: Vec<String>,
}

impl Tokens {
    pub(crate) fn split(text: &str) -> Tokens {
        let mut seps = Vec::new();
        let mut words = Vec::new();
        let mut current = String::new();
        let mut in_word = false;
        for c in text.chars() {
            if is_word_char(c) != in_word {
                let done = std::mem::take(&mut current);
                if in_word {
                    words.push(done);
                } else {
                    seps.push(done);
                }
                in_word = !in_word;
            }
            current.push(c);
        }
        if in_word {
            words.push(current);
            seps.push(String::new());
        } else {
            seps.push(current);
        }
        Tokens { seps, words }
    }

    pub(crate) fn join(&self) -> String {
        let mut out = String::with_capacity(
            self.seps.iter().map(String::len).sum::<usize>()
                + self.words.iter().map(String::len).sum::<usize>(),
        );
        for (sep, word) in self.seps.iter().zip(&self.words) {
            out.push_str(sep);
            out.push_str(word);
        }
        if let Some(last) = self.seps.last() {
            out.push_str(last);
        }
        out
    }
}

const WESTERN_ENDS: &[char] = &['.', '!', '?', '…'];
const CJK_ENDS: &[char] = &['。', '！', '？', '｡'];
/// Closing quotes and brackets that belong to the sentence they follow.
const CLOSERS: &[char] = &['"', '\'', '”', '’', '»', ')', ']', '」', '』', '）'];
/// Opening quotes, brackets and dialogue dashes that may precede a sentence's first letter.
const OPENERS: &[char] = &['"', '\'', '“', '‘', '„', '«', '(', '[', '—', '–', '-'];
/// Words that, followed by a period, rarely end a sentence (lowercase). Single letters
/// (initials, `e.g.`, `т. е.`) are handled separately.
const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "fig", "figs", "eq", "eqs", "ref", "refs",
    "vol", "pp", "al", "vs", "cf", "approx", "dept", "univ", "inc", "ltd", "рис", "табл", "см",
    "стр", "гл", "им", "проф", "акад", "доц", "гг", "вв", "ср", "тыс", "млн", "млрд", "ул",
];

/// Byte ranges of the paragraphs of `text` (separated by lines holding only whitespace),
/// trimmed and non-empty.
pub(crate) fn paragraph_ranges(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut end = 0;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let line_start = offset;
        offset += line.len();
        let trimmed = line.trim();
        if trimmed.is_empty() {
            if let Some(s) = start.take() {
                out.push(s..end);
            }
            continue;
        }
        let lead = line.len() - line.trim_start().len();
        if start.is_none() {
            start = Some(line_start + lead);
        }
        end = line_start + line.trim_end().len();
    }
    if let Some(s) = start {
        out.push(s..end);
    }
    out
}

/// Byte ranges of the sentences of `text`, trimmed, non-empty, in order, never crossing a
/// paragraph break; together they hold every non-whitespace character of the text.
pub(crate) fn sentence_ranges(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    for paragraph in paragraph_ranges(text) {
        split_paragraph(&text[paragraph.clone()], paragraph.start, &mut out);
    }
    out
}

fn split_paragraph(par: &str, offset: usize, out: &mut Vec<Range<usize>>) {
    let chars: Vec<(usize, char)> = par.char_indices().collect();
    let byte_at = |i: usize| chars.get(i).map_or(par.len(), |(b, _)| *b);
    let mut push = |from: usize, to: usize| {
        let piece = &par[from..to];
        let trimmed = piece.trim_start();
        let start = from + (piece.len() - trimmed.len());
        let end = start + trimmed.trim_end().len();
        if end > start {
            out.push(offset + start..offset + end);
        }
    };
    let mut sentence_start = 0;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i].1;
        if !WESTERN_ENDS.contains(&c) && !CJK_ENDS.contains(&c) {
            i += 1;
            continue;
        }
        let run_start = i;
        let mut j = i;
        let mut cjk = false;
        while j < chars.len()
            && (WESTERN_ENDS.contains(&chars[j].1) || CJK_ENDS.contains(&chars[j].1))
        {
            cjk |= CJK_ENDS.contains(&chars[j].1);
            j += 1;
        }
        let run_end = j;
        while j < chars.len() && CLOSERS.contains(&chars[j].1) {
            j += 1;
        }
        let boundary = j == chars.len() || cjk || {
            let mut k = j;
            let spaced = chars[k].1.is_whitespace();
            while k < chars.len() && (chars[k].1.is_whitespace() || OPENERS.contains(&chars[k].1)) {
                k += 1;
            }
            spaced
                && k < chars.len()
                && chars[k].1.is_uppercase()
                && !is_abbreviation(&chars, run_start, run_end)
        };
        if boundary {
            push(byte_at(sentence_start), byte_at(j));
            sentence_start = j;
        }
        i = j.max(i + 1);
    }
    push(byte_at(sentence_start), par.len());
}

/// Whether the single period at `run_start` closes an abbreviation or an initial rather than a
/// sentence.
fn is_abbreviation(chars: &[(usize, char)], run_start: usize, run_end: usize) -> bool {
    if run_end - run_start != 1 || chars[run_start].1 != '.' {
        return false;
    }
    let mut k = run_start;
    while k > 0 && is_word_char(chars[k - 1].1) {
        k -= 1;
    }
    let word: String = chars[k..run_start].iter().map(|(_, c)| *c).collect();
    let letters = word.chars().count();
    if letters == 0 {
        return false;
    }
    (letters == 1 && word.chars().all(char::is_alphabetic))
        || ABBREVIATIONS.contains(&word.to_lowercase().as_str())
}

/// Joins sentences of one paragraph: a space between them, except after a Chinese full stop,
/// where the original had none.
pub(crate) fn join_sentences<S: AsRef<str>>(sentences: &[S]) -> String {
    let mut out = String::new();
    for sentence in sentences {
        let sentence = sentence.as_ref();
        if let Some(last) = out.chars().last()
            && !CJK_ENDS.contains(&last)
        {
            out.push(' ');
        }
        out.push_str(sentence);
    }
    out
}

/// A text as paragraphs of sentences, for the modifications that move whole sentences.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Layout {
    pub(crate) paragraphs: Vec<Vec<String>>,
}

impl Layout {
    pub(crate) fn parse(text: &str) -> Layout {
        let paragraphs = paragraph_ranges(text)
            .into_iter()
            .map(|p| {
                let mut ranges = Vec::new();
                split_paragraph(&text[p.clone()], 0, &mut ranges);
                ranges
                    .into_iter()
                    .map(|r| text[p.clone()][r].to_string())
                    .collect()
            })
            .collect();
        Layout { paragraphs }
    }

    /// Paragraphs joined by a blank line; empty paragraphs are dropped.
    pub(crate) fn render(&self) -> String {
        let rendered: Vec<String> = self
            .paragraphs
            .iter()
            .filter(|p| !p.is_empty())
            .map(|p| join_sentences(p))
            .collect();
        rendered.join("\n\n")
    }

    /// Every sentence as `(paragraph, index in paragraph)`, in text order.
    pub(crate) fn positions(&self) -> Vec<(usize, usize)> {
        self.paragraphs
            .iter()
            .enumerate()
            .flat_map(|(p, s)| (0..s.len()).map(move |i| (p, i)))
            .collect()
    }
}

/// Paragraphs to permute or repeat: the real ones when there are at least three, otherwise
/// pseudo-paragraphs of about five sentences (at least three of them when the text has three
/// sentences), since a text without blank lines is still made of paragraphs.
pub(crate) fn paragraph_units(text: &str) -> Vec<String> {
    let real = paragraph_ranges(text);
    if real.len() >= 3 {
        return real.into_iter().map(|r| text[r].to_string()).collect();
    }
    let sentences: Vec<&str> = sentence_ranges(text)
        .into_iter()
        .map(|r| &text[r])
        .collect();
    let size = (sentences.len() / 3).clamp(1, 5);
    sentences.chunks(size).map(join_sentences).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::rng::Rng;
    use proptest::prelude::*;

    fn sentences(text: &str) -> Vec<&str> {
        sentence_ranges(text)
            .into_iter()
            .map(|r| &text[r])
            .collect()
    }

    #[test]
    fn english_sentences_keep_abbreviations() {
        let text = "Smith et al. Showed it. See Fig. 3 and Dr. Brown's note, e.g. Table 2! \
                    J. R. R. Tolkien wrote... Then what? \"Nothing.\" The end";
        assert_eq!(
            sentences(text),
            vec![
                "Smith et al. Showed it.",
                "See Fig. 3 and Dr. Brown's note, e.g. Table 2!",
                "J. R. R. Tolkien wrote...",
                "Then what?",
                "\"Nothing.\"",
                "The end",
            ]
        );
    }

    #[test]
    fn russian_and_chinese_sentences() {
        let text = "Это первое предложение. См. рис. 2 ниже! А. С. Пушкин — поэт… Итак,\nвсё.\n\n\
                    这是第一句。这是第二句！第三句？";
        assert_eq!(
            sentences(text),
            vec![
                "Это первое предложение.",
                "См. рис. 2 ниже!",
                "А. С. Пушкин — поэт…",
                "Итак,\nвсё.",
                "这是第一句。",
                "这是第二句！",
                "第三句？",
            ]
        );
        assert_eq!(
            join_sentences(&["这是。", "那是。", "Ok."]),
            "这是。那是。Ok."
        );
    }

    #[test]
    fn lowercase_after_period_does_not_split() {
        assert_eq!(
            sentences("It was 3.5 m. long and ok. Next one."),
            vec!["It was 3.5 m. long and ok.", "Next one."]
        );
    }

    #[test]
    fn paragraphs_split_on_blank_lines() {
        let text = "\n  First para\nline two.  \n \t\nSecond.\n\n\n\nThird. ";
        let paras: Vec<&str> = paragraph_ranges(text)
            .into_iter()
            .map(|r| &text[r])
            .collect();
        assert_eq!(paras, vec!["First para\nline two.", "Second.", "Third."]);
        let layout = Layout::parse(text);
        assert_eq!(
            layout.render(),
            "First para\nline two.\n\nSecond.\n\nThird."
        );
    }

    #[test]
    fn pseudo_paragraphs_for_flat_texts() {
        let text = (0..12)
            .map(|i| format!("Sentence {i}."))
            .collect::<Vec<_>>()
            .join(" ");
        let units = paragraph_units(&text);
        assert_eq!(units.len(), 3);
        assert_eq!(units[0], "Sentence 0. Sentence 1. Sentence 2. Sentence 3.");
        assert_eq!(paragraph_units("One. Two.").len(), 2);
    }

    #[test]
    fn scripts_and_cases() {
        assert_eq!(Script::dominant("COVID19"), Script::Latin);
        assert_eq!(Script::dominant("2024"), Script::Digit);
        assert_eq!(Script::dominant("слово word слово"), Script::Cyrillic);
        assert_eq!(Script::dominant("中文"), Script::Han);
        assert_eq!(Case::of("Word"), Case::Title);
        assert_eq!(Case::of("WORD"), Case::Upper);
        assert_eq!(Case::of("A"), Case::Title);
        assert_eq!(Case::of("iPhone"), Case::Other);
        assert_eq!(Case::Title.apply("слово"), "Слово");
        let mut rng = Rng::new(3);
        for script in [
            Script::Latin,
            Script::Cyrillic,
            Script::Greek,
            Script::Han,
            Script::Digit,
        ] {
            for _ in 0..200 {
                let c = script.random_char(&mut rng).unwrap();
                assert_eq!(Script::of(c), script, "{c}");
                assert!(is_word_char(c));
            }
        }
    }

    proptest! {
        #[test]
        fn tokens_roundtrip(text in "[a-zа-я中 ,.\n😀-]{0,60}") {
            let tokens = Tokens::split(&text);
            prop_assert_eq!(tokens.seps.len(), tokens.words.len() + 1);
            prop_assert_eq!(tokens.join(), text.clone());
            prop_assert_eq!(tokens.words.len(), word_count(&text));
        }

        #[test]
        fn sentences_cover_all_visible_text(text in "[a-zA-Zа-яА-Я中 ,.!?…。\n😀]{0,80}") {
            let ranges = sentence_ranges(&text);
            let mut covered = 0;
            let mut last_end = 0;
            for r in &ranges {
                prop_assert!(r.start >= last_end && r.end > r.start);
                let s = &text[r.clone()];
                prop_assert_eq!(s.trim(), s);
                covered += s.chars().filter(|c| !c.is_whitespace()).count();
                last_end = r.end;
            }
            prop_assert_eq!(covered, text.chars().filter(|c| !c.is_whitespace()).count());
        }
    }
}
