//! The words of a text as the analyzer's first pass sees them — normalized into one buffer,
//! each with its script — and the languages those scripts choose.

use super::disguise::is_honest_mixed_word;
use super::language::{Language, Script};
use super::normalize::normalize_into;
use super::tokenize::{SpanKind, WordSpan};

/// What the first pass learns about one word span.
#[derive(Debug, Clone, Copy)]
pub(super) struct Word {
    pub(super) span: WordSpan,
    /// The normalized word is `normalized[norm_start..norm_end]`.
    pub(super) norm_start: usize,
    pub(super) norm_end: usize,
    /// The script most of the word's letters belong to (`Other` when it has none).
    pub(super) script: Script,
    pub(super) chars: usize,
    pub(super) letters: usize,
}

/// Letter counts of a whole text per script, to find its dominant script.
#[derive(Debug, Default)]
pub(super) struct ScriptTally {
    pub(super) letters: [usize; SCRIPT_COUNT],
    pub(super) has_kana: bool,
}

const SCRIPT_COUNT: usize = 10;

/// The scripts in the order their languages win ties for the primary language.
const SCRIPTS: [Script; SCRIPT_COUNT] = [
    Script::Latin,
    Script::Cyrillic,
    Script::Greek,
    Script::Arabic,
    Script::Tamil,
    Script::Han,
    Script::Hiragana,
    Script::Katakana,
    Script::Hangul,
    Script::Other,
];

/// Normalizes the word at `span` into `normalized` and describes it; also answers whether the
/// word mixed Latin and Cyrillic letters. A span of spaced letters is normalized without its
/// spaces.
pub(super) fn profile_word(text: &str, span: WordSpan, normalized: &mut String) -> (Word, bool) {
    let original = &text[span.start..span.end];
    let norm_start = normalized.len();
    let mixed = if original.contains(char::is_whitespace) {
        let letters: String = original.chars().filter(|c| !c.is_whitespace()).collect();
        normalize_into(&letters, normalized)
    } else {
        normalize_into(original, normalized)
    };
    let counted = mixed && !is_honest_mixed_word(original);
    (describe(span, norm_start, normalized), counted)
}

/// Describes the word at `span` whose normalized form is `normalized[norm_start..]`.
pub(super) fn describe(span: WordSpan, norm_start: usize, normalized: &str) -> Word {
    let norm = &normalized[norm_start..];
    let (script, chars, letters) = if norm.is_ascii() {
        // Most words are ASCII: one byte per character, and every letter is Latin.
        let letters = norm.bytes().filter(u8::is_ascii_alphabetic).count();
        let script = if letters > 0 {
            Script::Latin
        } else {
            Script::Other
        };
        (script, norm.len(), letters)
    } else {
        let mut chars = 0;
        let mut letters_by_script = [0_usize; SCRIPT_COUNT];
        let mut script = Script::Other;
        let mut best = 0;
        for c in norm.chars() {
            chars += 1;
            let of = match Script::of_common_letter(c) {
                Some(script) => Some(script),
                None if c.is_alphabetic() => Some(Script::of(c)),
                None => None,
            };
            if let Some(of) = of {
                let count = &mut letters_by_script[of as usize];
                *count += 1;
                // Strictly greater: on a tie the script that got there first keeps the word.
                if *count > best {
                    best = *count;
                    script = of;
                }
            }
        }
        (script, chars, letters_by_script.iter().sum())
    };
    Word {
        span,
        norm_start,
        norm_end: normalized.len(),
        script,
        chars,
        letters,
    }
}

impl ScriptTally {
    pub(super) fn add(&mut self, word: &Word, normalized: &str) {
        match word.span.kind {
            SpanKind::Word => self.letters[word.script as usize] += word.letters,
            SpanKind::Cjk => {
                // A bigram overlaps its neighbours, so it stands for about one character.
                self.letters[Script::Han as usize] += 1;
                let norm = &normalized[word.norm_start..word.norm_end];
                if norm
                    .chars()
                    .any(|c| matches!(Script::of(c), Script::Hiragana | Script::Katakana))
                {
                    self.has_kana = true;
                }
            }
        }
    }

    /// The script with the most letters (the first in [`SCRIPTS`] on a tie), or
    /// [`Script::Other`] for a text without letters.
    pub(super) fn dominant_script(&self) -> Script {
        let mut dominant = Script::Other;
        let mut best = 0;
        for script in SCRIPTS {
            let letters = self.letters[script as usize];
            if letters > best {
                best = letters;
                dominant = script;
            }
        }
        dominant
    }
}

/// The languages of one text's words, by script.
#[derive(Debug, Clone, Copy)]
pub(super) struct ScriptLanguages {
    /// The given or detected language of the Latin-script words.
    pub(super) latin: Language,
    /// Japanese when the text has kana, else Chinese.
    pub(super) cjk: Language,
}

impl ScriptLanguages {
    /// The language whose stemmer and stop words apply to words of `script`.
    pub(super) fn of(self, script: Script) -> Language {
        match script {
            Script::Latin => self.latin,
            Script::Cyrillic => Language::Russian,
            Script::Greek => Language::Greek,
            Script::Arabic => Language::Arabic,
            Script::Tamil => Language::Tamil,
            Script::Han | Script::Hiragana | Script::Katakana => self.cjk,
            Script::Hangul => Language::Korean,
            Script::Other => Language::Other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::analyzer::Analyzer;
    use super::super::stopwords::StopWords;
    use super::super::test_support::{analyzer, originals, terms};
    use super::*;
    use rust_stemmers::Stemmer;

    #[test]
    fn script_table_matches_the_script_indices() {
        for (i, script) in SCRIPTS.into_iter().enumerate() {
            assert_eq!(script as usize, i);
        }
    }

    #[test]
    fn chinese_text_is_bigrammed() {
        let text = "我们提出一种新方法。重复文档";
        let analyzed = analyzer().analyze(text, None);
        assert_eq!(analyzed.language, Language::Chinese);
        assert_eq!(
            terms(&analyzed),
            [
                "我们", "们提", "提出", "出一", "一种", "种新", "新方", "方法", "重复", "复文",
                "文档"
            ]
        );
        assert_eq!(originals(text, &analyzed), terms(&analyzed));
        assert_eq!(analyzed.words, 11);
    }

    #[test]
    fn kana_makes_cjk_text_japanese() {
        let analyzed = analyzer().analyze("日本語のテキストを解析する", None);
        assert_eq!(analyzed.language, Language::Japanese);
        assert_eq!(terms(&analyzed)[..3], ["日本", "本語", "語の"]);
    }

    #[test]
    fn hangul_words_are_kept_whole_and_unstemmed() {
        let analyzed = analyzer().analyze("한국어 텍스트를 분석하는 방법", None);
        assert_eq!(analyzed.language, Language::Korean);
        // Two-syllable words fall under the three-character minimum like any other word.
        assert_eq!(terms(&analyzed), ["한국어", "텍스트를", "분석하는"]);
    }

    #[test]
    fn each_script_gets_its_own_stemmer() {
        let analyzer = Analyzer::new(StopWords::default());
        let stem = |algorithm, word| {
            Stemmer::create(algorithm)
                .stem(&super::super::normalize::normalize(word))
                .into_owned()
        };
        use rust_stemmers::Algorithm;
        let text = "Documents документами έγγραφα المستندات ஆவணங்கள்";
        let analyzed = analyzer.analyze(text, Some(Language::English));
        assert_eq!(
            terms(&analyzed),
            [
                stem(Algorithm::English, "Documents"),
                stem(Algorithm::Russian, "документами"),
                stem(Algorithm::Greek, "έγγραφα"),
                stem(Algorithm::Arabic, "المستندات"),
                stem(Algorithm::Tamil, "ஆவணங்கள்"),
            ]
        );
        assert_eq!(analyzed.language, Language::English);
    }

    #[test]
    fn russian_text_with_english_terms_stems_each_by_its_script() {
        let text = "Мы используем алгоритмы hashing и методы clustering для анализа";
        let analyzed = analyzer().analyze(text, None);
        assert_eq!(analyzed.language, Language::Russian);
        assert_eq!(
            terms(&analyzed),
            ["использу", "алгоритм", "hash", "метод", "cluster", "анализ"]
        );
    }

    #[test]
    fn empty_and_letterless_texts() {
        let analyzer = analyzer();
        let empty = analyzer.analyze("", None);
        assert_eq!(
            (empty.tokens.len(), empty.words, empty.language),
            (0, 0, Language::Other)
        );
        let numbers = analyzer.analyze("1234 5678 — 😀", Some(Language::German));
        assert_eq!(numbers.tokens.len(), 0);
        assert_eq!(numbers.words, 2);
        assert_eq!(numbers.language, Language::German);
    }
}
