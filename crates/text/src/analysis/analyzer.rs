//! The analyzer: from a text to the stemmed terms that signatures and shingles are built from.
//!
//! Analysis runs in two passes over the word spans of the text. The first normalizes every
//! word into one shared buffer and notes its script; the second drops what carries no meaning
//! (short words, numbers, stop words) and stems the rest. Two passes are needed because the
//! stemmer of a Latin-script word depends on the language of the whole document, which is only
//! known once all its Latin-script words have been seen — and on the language of its sentence
//! when that is plainly another (`runs`: a French abstract pasted into an English paper is
//! analyzed as French, as it is in the French document it came from).
//!
//! Every other word is handled by its own script, whatever the document's language: Cyrillic
//! words are Russian, Greek words Greek, Arabic words Arabic, Tamil words Tamil; CJK bigrams
//! and Hangul words are kept unstemmed. A Russian paper with an English abstract is therefore
//! analyzed correctly in both halves.
//!
//! The steps live beside it: `words` describes each word of the first pass, `disguise` and
//! `translit` undo the disguises that need the words around them, `latin_language` detects the
//! language of the Latin-script words.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt;
use std::sync::Arc;

use rust_stemmers::Stemmer;

use super::disguise::{
    Disguises, count_hidden_characters, join_spaced_letters, respell_look_alike_words,
};
use super::language::{Language, Script};
use super::runs::{self, RunWord};
use super::stopwords::{StopWords, WordHashBuilder};
use super::tokenize::{SpanKind, for_each_span};
use super::words::{ScriptLanguages, ScriptTally, Word, profile_word};

/// Words with fewer characters than this (after normalization) are dropped: they are mostly
/// function words and abbreviations that make signatures of unrelated documents collide.
pub(super) const MIN_WORD_CHARS: usize = 3;

/// One kept term of an analyzed text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The normalized, stemmed word, or a CJK bigram.
    pub term: String,
    /// The index of the token among the kept tokens of the text, counting from 0.
    pub position: u32,
    /// The byte offset in the original text where the word starts.
    pub start: usize,
    /// The byte offset in the original text just past the word's end.
    pub end: usize,
}

/// The result of analyzing one text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analyzed {
    /// The kept tokens, in text order.
    pub tokens: Vec<Token>,
    /// The language given by the caller, or else the language of the script most of the
    /// text's letters are written in: for Latin script the detected language, for Cyrillic
    /// Russian, for CJK Japanese if there is kana and Chinese if not, [`Language::Other`] for
    /// a text without letters.
    pub language: Language,
    /// The number of word spans in the text before any filtering; each CJK bigram (or lone
    /// CJK character) counts as one.
    pub words: usize,
    /// The disguises seen through.
    pub disguises: Disguises,
}

/// Turns texts into tokens. Cloning is cheap (a reference count), and one analyzer can be
/// shared by all threads.
///
/// ```
/// use dupfinder_text::analysis::{Analyzer, Language, StopWords};
///
/// let stop_words = StopWords::from_lists([(Language::English, "the\nof\nare\n")]);
/// let analyzer = Analyzer::new(stop_words);
/// let analyzed = analyzer.analyze("The signatures of duplicated papers are equal.", None);
/// let terms: Vec<&str> = analyzed.tokens.iter().map(|t| t.term.as_str()).collect();
/// assert_eq!(terms, ["signatur", "duplic", "paper", "equal"]);
/// assert_eq!(analyzed.language, Language::English);
/// assert_eq!(analyzed.words, 7);
/// ```
#[derive(Clone)]
pub struct Analyzer {
    pub(super) shared: Arc<Shared>,
}

/// The immutable state behind an [`Analyzer`].
pub(super) struct Shared {
    pub(super) stop_words: StopWords,
    /// One stemmer per language, indexed by `Language::index`; built once because analysis
    /// runs for every document and every query.
    stemmers: Vec<Option<Stemmer>>,
    /// Chooses among the Latin-script languages that have stemmers.
    pub(super) detector: whatlang::Detector,
}

impl Analyzer {
    /// Creates an analyzer that removes `stop_words`.
    pub fn new(stop_words: StopWords) -> Analyzer {
        let stemmers = Language::all()
            .iter()
            .map(|language| language.stemmer_algorithm().map(Stemmer::create))
            .collect();
        let latin = Language::latin()
            .filter_map(Language::to_whatlang)
            .collect();
        Analyzer {
            shared: Arc::new(Shared {
                stop_words,
                stemmers,
                detector: whatlang::Detector::with_allowlist(latin),
            }),
        }
    }

    /// Analyzes `text`, whose language is `lang` if the caller knows it.
    ///
    /// `lang` decides the stemmer and stop words of Latin-script words when it is a
    /// Latin-script language. Otherwise their language is detected from the text's normalized
    /// Latin-script words: English when English stop words make up at least 30 % of the first
    /// 100 of them, else what `whatlang` (restricted to the Latin-script languages with
    /// stemmers) reliably finds in the first 200 bytes of them, or failing that in the first
    /// 4000, else English. Words of other scripts are analyzed by their script, whatever
    /// `lang` says.
    pub fn analyze(&self, text: &str, lang: Option<Language>) -> Analyzed {
        // First pass: cut the text into words, join spaced letters, normalize every word into
        // one buffer and note its script; then undo the disguises that need the words around
        // them, and tally the scripts of what remains.
        let mut spans = Vec::with_capacity(text.len() / 6);
        for_each_span(text, |span| spans.push(span));
        let mut disguises = Disguises {
            hidden_characters: count_hidden_characters(text),
            letter_spacing: join_spaced_letters(text, &mut spans),
            ..Disguises::default()
        };
        let mut normalized = String::with_capacity(text.len() + text.len() / 8);
        let mut words = Vec::with_capacity(spans.len());
        for span in spans {
            let (word, mixed) = profile_word(text, span, &mut normalized);
            disguises.mixed_script += usize::from(mixed);
            words.push(word);
        }
        disguises.look_alike_words = respell_look_alike_words(text, &mut words, &mut normalized);
        disguises.transliterated =
            self.read_back_transliteration(text, &mut words, &mut normalized);
        let mut tally = ScriptTally::default();
        for word in &words {
            tally.add(word, &normalized);
        }

        let has_latin = tally.letters[Script::Latin as usize] > 0;
        let languages = ScriptLanguages {
            // A given language is a hint: labels in real collections are often wrong (French
            // abstracts labelled English), and a text must be analyzed the same way whether it
            // arrives with a label or without one, so confident detection wins.
            latin: match lang {
                Some(language) if language.is_latin() => {
                    self.detect_latin(&words, &normalized).unwrap_or(language)
                }
                _ if has_latin => self
                    .detect_latin(&words, &normalized)
                    .unwrap_or(Language::English),
                _ => Language::English,
            },
            cjk: if tally.has_kana {
                Language::Japanese
            } else {
                Language::Chinese
            },
        };

        // Sentences plainly written in another Latin-script language are analyzed in it.
        let foreign = if has_latin {
            self.foreign_runs(text, &words, &normalized, languages.latin)
        } else {
            Vec::new()
        };
        let mut foreign = foreign.iter().peekable();

        // Second pass: filter and stem. Words repeat a lot within a text, so the fate of each
        // distinct word (dropped, or the index of the token that holds its term) is memoized
        // and the stemmer runs once per distinct word — per language, since a word of a
        // foreign run has another term than the same word elsewhere.
        let mut tokens: Vec<Token> = Vec::with_capacity(words.len());
        let mut seen: HashMap<&str, Option<usize>, WordHashBuilder> =
            HashMap::with_capacity_and_hasher(words.len(), WordHashBuilder::default());
        let mut seen_foreign: HashMap<(Language, &str), Option<usize>> = HashMap::new();
        for (i, word) in words.iter().enumerate() {
            while foreign.next_if(|(range, _)| range.end <= i).is_some() {}
            let run_language = foreign
                .peek()
                .filter(|(range, _)| range.contains(&i))
                .map(|&&(_, language)| language);
            let norm = &normalized[word.norm_start..word.norm_end];
            let term = match word.span.kind {
                SpanKind::Cjk => {
                    if self.is_stop_word(languages.cjk, norm) {
                        continue;
                    }
                    norm.to_owned()
                }
                SpanKind::Word => {
                    if word.letters == 0 || word.chars < MIN_WORD_CHARS {
                        continue;
                    }
                    if let Some(language) = run_language.filter(|_| word.script == Script::Latin) {
                        match seen_foreign.entry((language, norm)) {
                            Entry::Occupied(entry) => match *entry.get() {
                                Some(index) => tokens[index].term.clone(),
                                None => continue,
                            },
                            Entry::Vacant(entry) => {
                                let term = self.word_term(norm, language, word.script);
                                entry.insert(term.as_ref().map(|_| tokens.len()));
                                match term {
                                    Some(term) => term,
                                    None => continue,
                                }
                            }
                        }
                    } else {
                        match seen.entry(norm) {
                            Entry::Occupied(entry) => match *entry.get() {
                                Some(index) => tokens[index].term.clone(),
                                None => continue,
                            },
                            Entry::Vacant(entry) => {
                                let language = languages.of(word.script);
                                let term = self.word_term(norm, language, word.script);
                                entry.insert(term.as_ref().map(|_| tokens.len()));
                                match term {
                                    Some(term) => term,
                                    None => continue,
                                }
                            }
                        }
                    }
                }
            };
            let position = u32::try_from(tokens.len()).unwrap_or(u32::MAX);
            tokens.push(Token {
                term,
                position,
                start: word.span.start,
                end: word.span.end,
            });
        }

        let language = match lang {
            Some(language) if language.is_latin() => languages.latin,
            Some(language) => language,
            None => languages.of(tally.dominant_script()),
        };
        Analyzed {
            tokens,
            language,
            words: words.len(),
            disguises,
        }
    }

    /// Counts the terms of `tokens`, sorted by term (byte order), as signing needs them. Counted
    /// in a map and only the distinct terms sorted: a text repeats most of its terms.
    pub fn term_counts(tokens: &[Token]) -> Vec<(String, u32)> {
        let mut counts: HashMap<&str, u32> = HashMap::with_capacity(tokens.len() / 2);
        for token in tokens {
            let count = counts.entry(token.term.as_str()).or_insert(0);
            *count = count.saturating_add(1);
        }
        let mut terms: Vec<(String, u32)> = counts
            .into_iter()
            .map(|(term, count)| (term.to_owned(), count))
            .collect();
        terms.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        terms
    }

    /// The term of a normalized word of `script` and `language`, or `None` when it is a stop
    /// word. Latin-script words also lose the English stop words, because English phrases
    /// turn up in texts of every language.
    fn word_term(&self, norm: &str, language: Language, script: Script) -> Option<String> {
        let english_too = script == Script::Latin && language != Language::English;
        let stop_in = self.shared.stop_words.languages_normalized(norm);
        if stop_in.has(language) || (english_too && stop_in.has(Language::English)) {
            return None;
        }
        let stem = match &self.shared.stemmers[language.index()] {
            Some(stemmer) => stemmer.stem(norm),
            None => return Some(norm.to_owned()),
        };
        // Some Snowball stemmers strip short words down to nothing (Greek turns `αμε` into an
        // empty string); an empty term would make distinct words equal, so the word is kept.
        if stem.is_empty() {
            Some(norm.to_owned())
        } else {
            Some(stem.into_owned())
        }
    }

    pub(super) fn is_stop_word(&self, language: Language, word: &str) -> bool {
        let stop_words = &self.shared.stop_words;
        stop_words.has_language(language) && stop_words.contains_normalized(language, word)
    }

    /// The word ranges of `words` in another Latin-script language than `latin`, the
    /// document's (see `runs`).
    fn foreign_runs(
        &self,
        text: &str,
        words: &[Word],
        normalized: &str,
        latin: Language,
    ) -> Vec<(std::ops::Range<usize>, Language)> {
        let run_words: Vec<RunWord<'_>> = words
            .iter()
            .enumerate()
            .map(|(i, word)| RunWord {
                norm: &normalized[word.norm_start..word.norm_end],
                latin: runs::counts(word.script, word.letters),
                ends_sentence: words.get(i + 1).is_none_or(|next| {
                    next.span.start > word.span.end
                        && runs::ends_sentence(&text[word.span.end..next.span.start])
                }),
            })
            .collect();
        runs::foreign_runs(&run_words, latin, &self.shared.stop_words)
    }
}

impl fmt::Debug for Analyzer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Analyzer")
            .field("stop_words", &self.shared.stop_words)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{analyzer, originals, terms};
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn offsets_slice_back_to_the_original_words() {
        let text = "😀The ﬁnal dupli\u{AD}cation🎉 of «Москва» — ＴＥＸＴ x\u{200B}y-z 中文!";
        let analyzed = analyzer().analyze(text, None);
        assert_eq!(
            originals(text, &analyzed),
            ["ﬁnal", "dupli\u{AD}cation", "Москва", "ＴＥＸＴ", "中文"]
        );
        assert_eq!(
            terms(&analyzed),
            ["final", "duplic", "москв", "text", "中文"]
        );
    }

    #[test]
    fn positions_count_kept_tokens_from_zero() {
        let analyzed = analyzer().analyze("the cats of the world are sleeping", None);
        assert_eq!(terms(&analyzed), ["cat", "world", "sleep"]);
        let positions: Vec<u32> = analyzed.tokens.iter().map(|t| t.position).collect();
        assert_eq!(positions, [0, 1, 2]);
    }

    #[test]
    fn words_count_every_span_before_filtering() {
        let analyzed = analyzer().analyze("A 42 of the cats, in 2024: ok.", None);
        assert_eq!(analyzed.words, 8);
        assert_eq!(terms(&analyzed), ["cat"]);
    }

    #[test]
    fn drops_short_words_numbers_and_stop_words_but_keeps_alphanumerics() {
        let analyzed = analyzer().analyze("We ran 12345 tests on H2O and CO2 in 3D at 10x.", None);
        assert_eq!(terms(&analyzed), ["ran", "test", "h2o", "co2", "10x"]);
    }

    #[test]
    fn folds_latin_look_alikes_in_russian_text() {
        let clean = "Мы предлагаем новые методы анализа текстов";
        // "предлагаем", "методы" and "текстов" typed with Latin `p`, `a`, `e`, `o` and `c`.
        let disguised = "Мы пpедлaгaем новые мeтoды анализа тeкcтов";
        assert_ne!(clean, disguised);
        let analyzer = analyzer();
        let clean = analyzer.analyze(clean, None);
        let disguised = analyzer.analyze(disguised, None);
        assert_eq!(
            terms(&clean),
            ["предлага", "нов", "метод", "анализ", "текст"]
        );
        assert_eq!(terms(&disguised), terms(&clean));
        assert_eq!(disguised.language, Language::Russian);
    }

    #[test]
    fn folds_cyrillic_look_alikes_in_english_text() {
        let analyzer = analyzer();
        let clean = analyzer.analyze("Robust signatures detect copied papers", None);
        // Cyrillic `о`, `е`, `с`, `р`, `а` inside English words.
        let disguised = analyzer.analyze("Rоbust signaturеs dеtесt copied рареrs", None);
        assert_eq!(
            terms(&clean),
            ["robust", "signatur", "detect", "copi", "paper"]
        );
        assert_eq!(terms(&disguised), terms(&clean));
    }

    #[test]
    fn yo_and_ye_give_the_same_terms() {
        let analyzer = analyzer();
        let with_yo = analyzer.analyze("Ёлка, её зелёные иголки", None);
        let with_ye = analyzer.analyze("Елка, ее зеленые иголки", None);
        assert_eq!(terms(&with_yo), terms(&with_ye));
        assert!(!terms(&with_yo).concat().contains('ё'));
    }

    #[test]
    fn a_french_passage_in_an_english_text_is_analyzed_as_in_its_french_source() {
        let french = "Nous proposons une nouvelle méthode pour la détection des documents \
                      presque identiques dans les grandes collections scientifiques. Les \
                      signatures sont calculées à partir des mots les plus significatifs.";
        let english = "We study how the papers of a library are copied and we show that the \
                       method of the authors is robust to the noise of the scanned texts.";
        let analyzer = analyzer();
        let source = analyzer.analyze(french, None);
        assert_eq!(source.language, Language::French);
        let host = format!("{english} {french} {english}");
        let pasted = analyzer.analyze(&host, None);
        assert_eq!(pasted.language, Language::English);
        let start = english.len() + 1;
        let inside: Vec<&str> = pasted
            .tokens
            .iter()
            .filter(|t| t.start >= start && t.end <= start + french.len())
            .map(|t| t.term.as_str())
            .collect();
        assert_eq!(inside, terms(&source));
        // The English sentences around it keep their English analysis, the same word included.
        let english_alone = analyzer.analyze(english, None);
        let before: Vec<&str> = pasted.tokens[..english_alone.tokens.len()]
            .iter()
            .map(|t| t.term.as_str())
            .collect();
        assert_eq!(before, terms(&english_alone));
    }

    #[test]
    fn latin_words_also_lose_english_stop_words() {
        let text = "Nous proposons une nouvelle méthode the détection des documents \
                    presque identiques dans les grandes collections scientifiques.";
        let analyzed = analyzer().analyze(text, Some(Language::French));
        assert!(!terms(&analyzed).contains(&"the"));
        assert!(terms(&analyzed).contains(&"méthod"));
    }

    #[test]
    fn a_given_latin_language_chooses_the_stemmer() {
        let analyzer = analyzer();
        let french = analyzer.analyze("collections scientifiques", Some(Language::French));
        assert_eq!(french.language, Language::French);
        assert_eq!(terms(&french), ["collect", "scientif"]);
        let english = analyzer.analyze("collections scientifiques", Some(Language::English));
        assert_eq!(terms(&english), ["collect", "scientifiqu"]);
    }

    #[test]
    fn greek_stemmer_emptying_a_word_keeps_the_word() {
        assert_eq!(
            Stemmer::create(rust_stemmers::Algorithm::Greek).stem("αμε"),
            ""
        );
        let analyzed = Analyzer::new(StopWords::default()).analyze("ΑΜΕ αμε", None);
        assert_eq!(terms(&analyzed), ["αμε", "αμε"]);
    }

    #[test]
    fn term_counts_are_sorted_by_term() {
        let analyzed = analyzer().analyze("papers copy papers; copied paper, signatures", None);
        assert_eq!(
            Analyzer::term_counts(&analyzed.tokens),
            [
                ("copi".to_owned(), 2),
                ("paper".to_owned(), 3),
                ("signatur".to_owned(), 1)
            ]
        );
        assert!(Analyzer::term_counts(&[]).is_empty());
    }

    #[test]
    fn analyzer_is_cheap_to_share_across_threads() {
        fn assert_shareable<T: Clone + Send + Sync + 'static>() {}
        assert_shareable::<Analyzer>();
        let analyzer = analyzer();
        let clone = analyzer.clone();
        assert!(Arc::ptr_eq(&analyzer.shared, &clone.shared));
        let handle = std::thread::spawn(move || clone.analyze("threads share analyzers", None));
        assert_eq!(
            terms(&handle.join().unwrap()),
            ["thread", "share", "analyz"]
        );
    }

    /// Flips the case of the characters whose case change round-trips (so `ß` or `ς`, whose
    /// uppercase does not lowercase back to them, stay as they are).
    fn change_case(word: &str, flips: &[bool]) -> String {
        word.chars()
            .zip(flips.iter().cycle())
            .map(|(c, &flip)| {
                let mut upper = c.to_uppercase();
                match (flip, upper.next(), upper.next()) {
                    (true, Some(u), None) if u.to_lowercase().eq(c.to_lowercase()) => u,
                    _ => c,
                }
            })
            .collect()
    }

    /// Words from the scripts the analyzer handles, with the characters people use to
    /// disguise copies.
    fn word_strategy() -> impl Strategy<Value = String> {
        prop_oneof![
            4 => "[a-z]{1,10}",
            3 => "[а-яё]{1,10}",
            2 => "[a-zéèçàüöäñ]{1,10}",
            1 => "[α-ω]{1,8}",
            1 => "[一-龥]{1,5}",
            1 => "[ぁ-んァ-ン]{1,5}",
            1 => "[가-힣]{1,4}",
            1 => "[0-9]{1,4}",
            1 => "[a-z]{1,4}\u{AD}[a-z]{1,4}",
            1 => "[а-я]{1,4}[aceopx][а-я]{1,4}",
            1 => "ﬁ[a-z]{1,5}",
        ]
    }

    fn separator_strategy() -> impl Strategy<Value = String> {
        prop_oneof![
            Just(" ".to_owned()),
            "[ \t\n]{1,4}",
            Just("\u{3000}".to_owned()),
            Just("\r\n\r\n".to_owned()),
        ]
    }

    fn any_text_strategy() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            3 => word_strategy(),
            2 => "\\PC{0,6}",
            1 => "[\u{300}-\u{36F}\u{AD}\u{200B}-\u{200D}\u{FEFF}'’-]{1,3}",
            1 => "[😀🎉👩‍🔬❤️]{1,3}",
            1 => "[ .,;:!?()«»—\n]{1,3}",
        ];
        proptest::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #[test]
        fn case_and_whitespace_changes_keep_the_terms(
            words in proptest::collection::vec(word_strategy(), 0..60),
            separators in proptest::collection::vec(separator_strategy(), 60),
            flips in proptest::collection::vec(any::<bool>(), 1..16),
        ) {
            // Single letters separated by one space are letter spacing (`с л о в о`), which is
            // told from words by the spaces alone; they are left out of this property.
            let words: Vec<String> = words.into_iter().filter(|w| w.chars().count() > 1).collect();
            let analyzer = analyzer();
            let plain = words.join(" ");
            let mut changed = String::from("  ");
            for (word, separator) in words.iter().zip(&separators) {
                changed.push_str(&change_case(word, &flips));
                changed.push_str(separator);
            }
            let plain = analyzer.analyze(&plain, None);
            let changed = analyzer.analyze(&changed, None);
            prop_assert_eq!(terms(&plain), terms(&changed));
            prop_assert_eq!(plain.language, changed.language);
            prop_assert_eq!(plain.words, changed.words);
        }

        #[test]
        fn tokens_lie_on_char_boundaries_inside_the_text(text in any_text_strategy()) {
            let analyzed = analyzer().analyze(&text, None);
            for (i, token) in analyzed.tokens.iter().enumerate() {
                prop_assert!(token.start < token.end && token.end <= text.len());
                prop_assert!(text.is_char_boundary(token.start));
                prop_assert!(text.is_char_boundary(token.end));
                prop_assert_eq!(token.position as usize, i);
                prop_assert!(!token.term.is_empty());
            }
            prop_assert!(analyzed.words >= analyzed.tokens.len());
        }

        #[test]
        fn arbitrary_strings_never_panic(text in "\\PC*") {
            let analyzed = analyzer().analyze(&text, None);
            for token in &analyzed.tokens {
                prop_assert!(text.get(token.start..token.end).is_some());
            }
        }
    }
}
