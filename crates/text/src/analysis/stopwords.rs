//! Stop-word lists per language, parsed from the contents of stop-word files.
//!
//! The lists are data, not code: the caller reads the files (this module does no I/O) and
//! passes their contents in. Each entry is normalized exactly as the analyzer normalizes words,
//! so a list may spell `её` or `Der` and still match the analyzed `ее` and `der`.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::language::Language;
use super::normalize::{normalize, normalize_into};

/// Stop words of each language, normalized.
///
/// [`Language::Other`] never has stop words: lists given for it are ignored, because words of
/// an unknown language cannot be judged against a list meant for another.
#[derive(Debug, Clone, Default)]
pub struct StopWords {
    /// Each stop word with the languages it is a stop word of, one bit a language
    /// ([`Languages`]): a word is looked up once whatever the languages asked about.
    languages_of: HashMap<Box<str>, Languages, WordHashBuilder>,
    /// The languages with stop words.
    listed: Languages,
}

/// A set of languages, bit `Language::index` for each.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Languages(u64);

impl Languages {
    fn of(language: Language) -> Languages {
        Languages(1 << language.index())
    }

    /// Whether `language` is in the set.
    pub(crate) fn has(self, language: Language) -> bool {
        self.0 & Languages::of(language).0 != 0
    }
}

/// Builds [`WordHasher`]s for the hash sets and maps of words.
pub(crate) type WordHashBuilder = BuildHasherDefault<WordHasher>;

/// A fast hasher for short strings: the multiply-rotate scheme of rustc's `FxHasher`, eight
/// bytes at a time.
///
/// Stop-word lookups run for nearly every word of every text, and the standard SipHash costs
/// more than the rest of the lookup. SipHash protects maps that attackers can insert into; the
/// stop-word sets are fixed when the analyzer is built, so a crafted text can only probe them,
/// never lengthen their chains.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct WordHasher {
    hash: u64,
}

impl WordHasher {
    const MULTIPLIER: u64 = 0x51_7c_c1_b7_27_22_0a_95;

    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(Self::MULTIPLIER);
    }
}

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, byte: u8) {
        self.add(u64::from(byte));
    }

    fn finish(&self) -> u64 {
        // The multiplication mixes well into the high bits only; folding them down gives the
        // low bits, which pick the bucket, the same quality.
        self.hash ^ (self.hash >> 32)
    }
}

impl StopWords {
    /// Builds the lists from `(language, file content)` pairs.
    ///
    /// A file holds one word per line. Lines are trimmed; empty lines and lines starting with
    /// `#` are skipped. Several files for one language are merged.
    ///
    /// ```
    /// use dupfinder_text::analysis::{Language, StopWords};
    /// let stop_words = StopWords::from_lists([
    ///     (Language::English, "# English\nthe\nof\n\nAnd\n"),
    ///     (Language::Russian, "и\nеё\n"),
    /// ]);
    /// assert!(stop_words.contains(Language::English, "and"));
    /// assert!(stop_words.contains(Language::Russian, "ее"));
    /// assert!(!stop_words.contains(Language::French, "the"));
    /// ```
    pub fn from_lists<'a>(lists: impl IntoIterator<Item = (Language, &'a str)>) -> StopWords {
        let mut stop_words = StopWords::default();
        for (language, content) in lists {
            if language == Language::Other {
                continue;
            }
            let bit = Languages::of(language);
            for line in content.lines() {
                let line = line.trim();
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                let languages = stop_words
                    .languages_of
                    .entry(normalize(line).into_boxed_str())
                    .or_default();
                languages.0 |= bit.0;
                stop_words.listed.0 |= bit.0;
            }
        }
        stop_words
    }

    /// Whether `word` is a stop word of `language`. The word is normalized first, so case,
    /// ligatures and the other disguises of the analyzer do not matter.
    pub fn contains(&self, language: Language, word: &str) -> bool {
        let mut normalized = String::with_capacity(word.len());
        normalize_into(word, &mut normalized);
        self.contains_normalized(language, &normalized)
    }

    /// Like [`StopWords::contains`] for a word that is already normalized, without the
    /// allocation that normalizing takes.
    pub(crate) fn contains_normalized(&self, language: Language, word: &str) -> bool {
        self.languages_normalized(word).has(language)
    }

    /// The languages `word` (already normalized) is a stop word of.
    pub(crate) fn languages_normalized(&self, word: &str) -> Languages {
        self.languages_of.get(word).copied().unwrap_or_default()
    }

    /// Whether `language` has any stop words, so the analyzer can skip lookups that cannot hit.
    pub(crate) fn has_language(&self, language: Language) -> bool {
        self.listed.has(language)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_one_word_per_line_skipping_comments_and_blank_lines() {
        let content = "# English stop words\n\nthe\r\n  of  \n#not-a-word\n\t\nand\n";
        let stop_words = StopWords::from_lists([(Language::English, content)]);
        for word in ["the", "of", "and"] {
            assert!(stop_words.contains(Language::English, word), "{word}");
        }
        assert!(!stop_words.contains(Language::English, "#not-a-word"));
        assert!(!stop_words.contains(Language::English, "not-a-word"));
        assert!(!stop_words.contains(Language::English, ""));
        let english = |languages: &Languages| languages.has(Language::English);
        assert_eq!(
            stop_words
                .languages_of
                .values()
                .filter(|l| english(l))
                .count(),
            3
        );
    }

    #[test]
    fn every_language_is_a_bit_of_a_set() {
        assert!(Language::all().len() <= 64);
        let languages: Vec<Languages> = Language::all().iter().map(|&l| Languages::of(l)).collect();
        for (i, a) in languages.iter().enumerate() {
            assert!(languages[i + 1..].iter().all(|b| a.0 & b.0 == 0));
        }
    }

    #[test]
    fn normalizes_entries_and_queries_alike() {
        let stop_words = StopWords::from_lists([
            (Language::Russian, "ЕЁ\nэто\n"),
            (Language::German, "Über\n"),
        ]);
        assert!(stop_words.contains(Language::Russian, "ее"));
        assert!(stop_words.contains(Language::Russian, "её"));
        assert!(stop_words.contains_normalized(Language::Russian, "ее"));
        assert!(stop_words.contains(Language::Russian, "ЭТО"));
        assert!(stop_words.contains(Language::German, "über"));
        assert!(stop_words.contains(Language::German, "u\u{308}ber"));
    }

    #[test]
    fn keeps_languages_apart_and_merges_lists_of_one_language() {
        let stop_words = StopWords::from_lists([
            (Language::French, "les\ndes\n"),
            (Language::English, "the\n"),
            (Language::French, "une\n"),
        ]);
        assert!(stop_words.contains(Language::French, "les"));
        assert!(stop_words.contains(Language::French, "une"));
        assert!(!stop_words.contains(Language::English, "les"));
        assert!(!stop_words.contains(Language::French, "the"));
        assert!(stop_words.has_language(Language::French));
        assert!(!stop_words.has_language(Language::Spanish));
    }

    #[test]
    fn ignores_lists_for_other() {
        let stop_words = StopWords::from_lists([(Language::Other, "the\n")]);
        assert!(!stop_words.contains(Language::Other, "the"));
        assert!(!stop_words.has_language(Language::Other));
    }

    #[test]
    fn word_hasher_separates_similar_words() {
        use std::hash::BuildHasher;
        let builder = WordHashBuilder::default();
        let words = [
            "",
            "a",
            "b",
            "ab",
            "ba",
            "abcdefgh",
            "abcdefgi",
            "abcdefghi",
            "bcdefghi",
        ];
        let hashes: std::collections::HashSet<u64> =
            words.iter().map(|w| builder.hash_one(w)).collect();
        assert_eq!(hashes.len(), words.len());
        assert_eq!(builder.hash_one("word"), builder.hash_one("word"));
    }

    #[test]
    fn default_is_empty() {
        let stop_words = StopWords::default();
        for &language in Language::all() {
            assert!(!stop_words.has_language(language));
        }
    }
}
