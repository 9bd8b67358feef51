//! Languages the analyzer knows, their ISO 639 codes, and the Unicode script of a character.
//!
//! The analyzer picks a stemmer and a stop-word list per word from the word's script, so this
//! file holds both halves of that decision: [`Language`] (one variant per Snowball stemmer of
//! `rust_stemmers`, plus the CJK languages and [`Language::Other`]) and [`Script`], a small
//! hand-written classifier of characters by Unicode block.

use rust_stemmers::Algorithm;

/// A language whose text the analyzer can process.
///
/// There is one variant per Snowball stemmer of `rust_stemmers`, plus Chinese and Japanese
/// (segmented into character bigrams), Korean (whole words, unstemmed) and [`Language::Other`]
/// for text the analyzer cannot identify: it has no stemmer and no stop words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Language {
    /// Arabic (`ar`).
    Arabic,
    /// Danish (`da`).
    Danish,
    /// Dutch (`nl`).
    Dutch,
    /// English (`en`).
    English,
    /// Finnish (`fi`).
    Finnish,
    /// French (`fr`).
    French,
    /// German (`de`).
    German,
    /// Modern Greek (`el`).
    Greek,
    /// Hungarian (`hu`).
    Hungarian,
    /// Italian (`it`).
    Italian,
    /// Norwegian, Bokmål or Nynorsk (`no`).
    Norwegian,
    /// Portuguese (`pt`).
    Portuguese,
    /// Romanian (`ro`).
    Romanian,
    /// Russian (`ru`).
    Russian,
    /// Spanish (`es`).
    Spanish,
    /// Swedish (`sv`).
    Swedish,
    /// Tamil (`ta`).
    Tamil,
    /// Turkish (`tr`).
    Turkish,
    /// Chinese (`zh`).
    Chinese,
    /// Japanese (`ja`).
    Japanese,
    /// Korean (`ko`).
    Korean,
    /// A language the analyzer does not know; its code is `und` (undetermined).
    Other,
}

/// Every language, in declaration order, so that `ALL[lang.index()] == lang`.
const ALL: [Language; 22] = [
    Language::Arabic,
    Language::Danish,
    Language::Dutch,
    Language::English,
    Language::Finnish,
    Language::French,
    Language::German,
    Language::Greek,
    Language::Hungarian,
    Language::Italian,
    Language::Norwegian,
    Language::Portuguese,
    Language::Romanian,
    Language::Russian,
    Language::Spanish,
    Language::Swedish,
    Language::Tamil,
    Language::Turkish,
    Language::Chinese,
    Language::Japanese,
    Language::Korean,
    Language::Other,
];

/// Accepted codes, lowercase: ISO 639-1, ISO 639-3 and the ISO 639-2/B (bibliographic) codes
/// that differ from 639-3, because library metadata uses all three.
const CODES: &[(&str, Language)] = &[
    ("ar", Language::Arabic),
    ("ara", Language::Arabic),
    ("arb", Language::Arabic),
    ("da", Language::Danish),
    ("dan", Language::Danish),
    ("nl", Language::Dutch),
    ("nld", Language::Dutch),
    ("dut", Language::Dutch),
    ("en", Language::English),
    ("eng", Language::English),
    ("fi", Language::Finnish),
    ("fin", Language::Finnish),
    ("fr", Language::French),
    ("fra", Language::French),
    ("fre", Language::French),
    ("de", Language::German),
    ("deu", Language::German),
    ("ger", Language::German),
    ("el", Language::Greek),
    ("ell", Language::Greek),
    ("gre", Language::Greek),
    ("hu", Language::Hungarian),
    ("hun", Language::Hungarian),
    ("it", Language::Italian),
    ("ita", Language::Italian),
    ("no", Language::Norwegian),
    ("nor", Language::Norwegian),
    ("nb", Language::Norwegian),
    ("nob", Language::Norwegian),
    ("nn", Language::Norwegian),
    ("nno", Language::Norwegian),
    ("pt", Language::Portuguese),
    ("por", Language::Portuguese),
    ("ro", Language::Romanian),
    ("ron", Language::Romanian),
    ("rum", Language::Romanian),
    ("ru", Language::Russian),
    ("rus", Language::Russian),
    ("es", Language::Spanish),
    ("spa", Language::Spanish),
    ("sv", Language::Swedish),
    ("swe", Language::Swedish),
    ("ta", Language::Tamil),
    ("tam", Language::Tamil),
    ("tr", Language::Turkish),
    ("tur", Language::Turkish),
    ("zh", Language::Chinese),
    ("zho", Language::Chinese),
    ("chi", Language::Chinese),
    ("cmn", Language::Chinese),
    ("ja", Language::Japanese),
    ("jpn", Language::Japanese),
    ("ko", Language::Korean),
    ("kor", Language::Korean),
    ("und", Language::Other),
];

impl Language {
    /// Parses an ISO 639-1, ISO 639-3 or ISO 639-2/B code, ignoring ASCII case.
    ///
    /// All Norwegian codes (`no`, `nor`, `nb`, `nob`, `nn`, `nno`) map to
    /// [`Language::Norwegian`], and `und` (undetermined) maps to [`Language::Other`].
    /// Unknown codes give `None`.
    ///
    /// ```
    /// use dupfinder_text::analysis::Language;
    /// assert_eq!(Language::from_code("EN"), Some(Language::English));
    /// assert_eq!(Language::from_code("rus"), Some(Language::Russian));
    /// assert_eq!(Language::from_code("xx"), None);
    /// ```
    pub fn from_code(code: &str) -> Option<Language> {
        CODES
            .iter()
            .find(|(known, _)| known.eq_ignore_ascii_case(code))
            .map(|&(_, language)| language)
    }

    /// The ISO 639-1 code of the language (`und` for [`Language::Other`], which has none).
    pub fn code(&self) -> &'static str {
        match self {
            Language::Arabic => "ar",
            Language::Danish => "da",
            Language::Dutch => "nl",
            Language::English => "en",
            Language::Finnish => "fi",
            Language::French => "fr",
            Language::German => "de",
            Language::Greek => "el",
            Language::Hungarian => "hu",
            Language::Italian => "it",
            Language::Norwegian => "no",
            Language::Portuguese => "pt",
            Language::Romanian => "ro",
            Language::Russian => "ru",
            Language::Spanish => "es",
            Language::Swedish => "sv",
            Language::Tamil => "ta",
            Language::Turkish => "tr",
            Language::Chinese => "zh",
            Language::Japanese => "ja",
            Language::Korean => "ko",
            Language::Other => "und",
        }
    }

    /// Every language, [`Language::Other`] included.
    pub fn all() -> &'static [Language] {
        &ALL
    }

    /// The Snowball stemmer for this language, or `None` for Chinese, Japanese, Korean and
    /// [`Language::Other`], whose words are kept as they are.
    pub fn stemmer_algorithm(&self) -> Option<Algorithm> {
        let algorithm = match self {
            Language::Arabic => Algorithm::Arabic,
            Language::Danish => Algorithm::Danish,
            Language::Dutch => Algorithm::Dutch,
            Language::English => Algorithm::English,
            Language::Finnish => Algorithm::Finnish,
            Language::French => Algorithm::French,
            Language::German => Algorithm::German,
            Language::Greek => Algorithm::Greek,
            Language::Hungarian => Algorithm::Hungarian,
            Language::Italian => Algorithm::Italian,
            Language::Norwegian => Algorithm::Norwegian,
            Language::Portuguese => Algorithm::Portuguese,
            Language::Romanian => Algorithm::Romanian,
            Language::Russian => Algorithm::Russian,
            Language::Spanish => Algorithm::Spanish,
            Language::Swedish => Algorithm::Swedish,
            Language::Tamil => Algorithm::Tamil,
            Language::Turkish => Algorithm::Turkish,
            Language::Chinese | Language::Japanese | Language::Korean | Language::Other => {
                return None;
            }
        };
        Some(algorithm)
    }

    /// A dense index (`0..Language::all().len()`) for per-language tables.
    pub(crate) fn index(self) -> usize {
        self as usize
    }

    /// Whether the language is written in Latin script and therefore competes with the other
    /// Latin-script languages in detection.
    pub(crate) fn is_latin(self) -> bool {
        self.to_whatlang().is_some()
    }

    /// The Latin-script languages that detection chooses from: those with a stemmer.
    pub(crate) fn latin() -> impl Iterator<Item = Language> {
        ALL.into_iter().filter(|language| language.is_latin())
    }

    /// The `whatlang` counterpart of a Latin-script language; `None` for all other languages,
    /// because detection is only ever asked to choose among Latin-script languages.
    pub(crate) fn to_whatlang(self) -> Option<whatlang::Lang> {
        use whatlang::Lang;
        let lang = match self {
            Language::Danish => Lang::Dan,
            Language::Dutch => Lang::Nld,
            Language::English => Lang::Eng,
            Language::Finnish => Lang::Fin,
            Language::French => Lang::Fra,
            Language::German => Lang::Deu,
            Language::Hungarian => Lang::Hun,
            Language::Italian => Lang::Ita,
            Language::Norwegian => Lang::Nob,
            Language::Portuguese => Lang::Por,
            Language::Romanian => Lang::Ron,
            Language::Spanish => Lang::Spa,
            Language::Swedish => Lang::Swe,
            Language::Turkish => Lang::Tur,
            _ => return None,
        };
        Some(lang)
    }

    /// The inverse of [`Language::to_whatlang`].
    pub(crate) fn from_whatlang(lang: whatlang::Lang) -> Option<Language> {
        Language::latin().find(|language| language.to_whatlang() == Some(lang))
    }
}

/// The writing system of a character, by Unicode block.
///
/// This is a block classification, not a letter test: Arabic digits are `Arabic` and the
/// Katakana middle dot is `Katakana`. Callers that care about letters check
/// `char::is_alphabetic` as well. Combining marks, digits and punctuation shared by all scripts
/// are `Other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Script {
    Latin,
    Cyrillic,
    Greek,
    Arabic,
    Tamil,
    Han,
    Hiragana,
    Katakana,
    Hangul,
    Other,
}

impl Script {
    /// Classifies one character.
    pub(crate) fn of(c: char) -> Script {
        // ASCII is the overwhelming majority of characters in the libraries' texts, so it is
        // decided before any range table is consulted.
        if c.is_ascii() {
            return if c.is_ascii_alphabetic() {
                Script::Latin
            } else {
                Script::Other
            };
        }
        match u32::from(c) {
            0x00AA
            | 0x00BA
            | 0x00C0..=0x00D6
            | 0x00D8..=0x00F6
            | 0x00F8..=0x02AF
            | 0x1E00..=0x1EFF
            | 0x2C60..=0x2C7F
            | 0xA720..=0xA7FF
            | 0xAB30..=0xAB6F
            | 0xFB00..=0xFB06
            | 0xFF21..=0xFF3A
            | 0xFF41..=0xFF5A => Script::Latin,
            0x0400..=0x052F | 0x1C80..=0x1C8F | 0x2DE0..=0x2DFF | 0xA640..=0xA69F => {
                Script::Cyrillic
            }
            0x0370..=0x03FF | 0x1F00..=0x1FFF => Script::Greek,
            0x0600..=0x06FF
            | 0x0750..=0x077F
            | 0x0870..=0x08FF
            | 0xFB50..=0xFDFF
            | 0xFE70..=0xFEFC => Script::Arabic,
            0x0B80..=0x0BFF | 0x11FC0..=0x11FFF => Script::Tamil,
            0x2E80..=0x2FDF
            | 0x3005
            | 0x3007
            | 0x3021..=0x3029
            | 0x3038..=0x303B
            | 0x3400..=0x4DBF
            | 0x4E00..=0x9FFF
            | 0xF900..=0xFAFF
            | 0x20000..=0x323AF => Script::Han,
            0x3041..=0x309F | 0x1B001..=0x1B11F => Script::Hiragana,
            0x30A0..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F | 0x1B000 => Script::Katakana,
            0x1100..=0x11FF
            | 0x3130..=0x318F
            | 0xA960..=0xA97F
            | 0xAC00..=0xD7FF
            | 0xFFA0..=0xFFDC => Script::Hangul,
            _ => Script::Other,
        }
    }

    /// The script of `c` when it is a letter of one of the ranges that make up nearly all of
    /// the libraries' text (Latin up to Extended-B, basic Cyrillic, the CJK unified
    /// ideographs, kana, Hangul syllables), decided by range alone.
    ///
    /// `None` means "not known here": the caller falls back to `char::is_alphabetic` and
    /// [`Script::of`]. Those consult Unicode tables, and for Cyrillic or CJK text the
    /// lookups would otherwise cost more than the rest of the analysis together.
    pub(crate) fn of_common_letter(c: char) -> Option<Script> {
        match u32::from(c) {
            0x41..=0x5A | 0x61..=0x7A | 0xC0..=0xD6 | 0xD8..=0xF6 | 0xF8..=0x24F => {
                Some(Script::Latin)
            }
            0x0400..=0x0481 | 0x048A..=0x052F => Some(Script::Cyrillic),
            0x4E00..=0x9FFF => Some(Script::Han),
            0x3041..=0x3096 | 0x309D..=0x309F => Some(Script::Hiragana),
            0x30A1..=0x30FA | 0x30FC..=0x30FF => Some(Script::Katakana),
            0xAC00..=0xD7A3 => Some(Script::Hangul),
            _ => None,
        }
    }

    /// Whether words of this script are segmented into character bigrams.
    pub(crate) fn is_cjk(self) -> bool {
        matches!(self, Script::Han | Script::Hiragana | Script::Katakana)
    }
}

/// `char::is_alphanumeric`, answered by range for the letters of [`Script::of_common_letter`]:
/// the Unicode table lookup behind it was a tenth of a Russian paper's check (its parts read from
/// its words).
pub(crate) fn is_alphanumeric(c: char) -> bool {
    Script::of_common_letter(c).is_some() || c.is_alphanumeric()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_alphanumeric_test_answers_as_the_standard_one_for_every_character() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            assert_eq!(is_alphanumeric(c), c.is_alphanumeric(), "{c:?}");
        }
    }

    #[test]
    fn parses_iso_639_1_and_639_3_codes_ignoring_case() {
        let cases = [
            ("en", Language::English),
            ("eng", Language::English),
            ("EN", Language::English),
            ("Eng", Language::English),
            ("ru", Language::Russian),
            ("rus", Language::Russian),
            ("RUS", Language::Russian),
            ("fr", Language::French),
            ("fra", Language::French),
            ("fre", Language::French),
            ("de", Language::German),
            ("ger", Language::German),
            ("zh", Language::Chinese),
            ("chi", Language::Chinese),
            ("zho", Language::Chinese),
            ("ja", Language::Japanese),
            ("jpn", Language::Japanese),
            ("ko", Language::Korean),
            ("kor", Language::Korean),
            ("nb", Language::Norwegian),
            ("nob", Language::Norwegian),
            ("no", Language::Norwegian),
            ("nor", Language::Norwegian),
            ("el", Language::Greek),
            ("ell", Language::Greek),
            ("gre", Language::Greek),
            ("und", Language::Other),
        ];
        for (code, expected) in cases {
            assert_eq!(Language::from_code(code), Some(expected), "code {code:?}");
        }
    }

    #[test]
    fn rejects_unknown_codes() {
        for code in ["", "x", "xx", "english", "en-US", " en", "pl", "ukr"] {
            assert_eq!(Language::from_code(code), None, "code {code:?}");
        }
    }

    #[test]
    fn every_language_round_trips_through_its_code() {
        for &language in Language::all() {
            assert_eq!(Language::from_code(language.code()), Some(language));
        }
    }

    #[test]
    fn all_is_indexed_by_index() {
        assert_eq!(Language::all().len(), 22);
        for (i, language) in Language::all().iter().enumerate() {
            assert_eq!(language.index(), i);
        }
    }

    #[test]
    fn exactly_the_eighteen_snowball_languages_have_stemmers() {
        let stemmed = Language::all()
            .iter()
            .filter(|language| language.stemmer_algorithm().is_some())
            .count();
        assert_eq!(stemmed, 18);
        for language in [
            Language::Chinese,
            Language::Japanese,
            Language::Korean,
            Language::Other,
        ] {
            assert_eq!(language.stemmer_algorithm(), None);
        }
    }

    #[test]
    fn latin_languages_map_to_whatlang_and_back() {
        assert_eq!(Language::latin().count(), 14);
        for language in Language::latin() {
            let lang = language.to_whatlang().expect("a Latin-script language");
            assert_eq!(Language::from_whatlang(lang), Some(language));
        }
        assert!(!Language::Russian.is_latin());
        assert!(!Language::Greek.is_latin());
        assert_eq!(Language::from_whatlang(whatlang::Lang::Rus), None);
    }

    #[test]
    fn common_letters_agree_with_the_unicode_tables() {
        let ranges = [
            0x0000..0x0600,
            0x3000..0x3100,
            0x4DF0..0xA000,
            0xABF0..0xD800,
        ];
        for c in ranges.into_iter().flatten().filter_map(char::from_u32) {
            match Script::of_common_letter(c) {
                Some(script) => {
                    assert!(c.is_alphabetic(), "{c:?} is not a letter");
                    assert_eq!(script, Script::of(c), "{c:?}");
                }
                None => assert!(
                    !(c.is_ascii_alphabetic() || ('а'..='я').contains(&c) || c == '中'),
                    "{c:?} should be common"
                ),
            }
        }
    }

    #[test]
    fn classifies_characters_by_script() {
        let cases = [
            ('a', Script::Latin),
            ('Z', Script::Latin),
            ('é', Script::Latin),
            ('ß', Script::Latin),
            ('ő', Script::Latin),
            ('ﬁ', Script::Latin),
            ('Ａ', Script::Latin),
            ('ж', Script::Cyrillic),
            ('Ё', Script::Cyrillic),
            ('і', Script::Cyrillic),
            ('λ', Script::Greek),
            ('ά', Script::Greek),
            ('ب', Script::Arabic),
            ('த', Script::Tamil),
            ('中', Script::Han),
            ('々', Script::Han),
            ('𠀀', Script::Han),
            ('ひ', Script::Hiragana),
            ('カ', Script::Katakana),
            ('ー', Script::Katakana),
            ('ｶ', Script::Katakana),
            ('한', Script::Hangul),
            ('ᄀ', Script::Hangul),
            ('1', Script::Other),
            (' ', Script::Other),
            ('\u{301}', Script::Other),
            ('א', Script::Other),
            ('😀', Script::Other),
        ];
        for (c, expected) in cases {
            assert_eq!(Script::of(c), expected, "char {c:?}");
        }
        assert!(Script::Han.is_cjk() && Script::Hiragana.is_cjk() && Script::Katakana.is_cjk());
        assert!(!Script::Hangul.is_cjk() && !Script::Latin.is_cjk());
    }
}
