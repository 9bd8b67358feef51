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

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt;
use std::sync::Arc;

use rust_stemmers::Stemmer;

use super::language::{Language, Script};
use unicode_normalization::UnicodeNormalization;

use super::disguise::{
    Disguises, count_hidden_characters, is_honest_look_alike, is_honest_mixed_word,
    join_spaced_letters,
};
use super::normalize::{is_invisible, normalize_into, whole_word_look_alike};
use super::runs::{self, RunWord};
use super::stopwords::{StopWords, WordHashBuilder};
use super::tokenize::{SpanKind, WordSpan, for_each_span};
use super::translit::{
    SYSTEMS, System, is_sign_mark, is_trailing_sign_mark, looks_russian, to_cyrillic,
};

/// Words with fewer characters than this (after normalization) are dropped: they are mostly
/// function words and abbreviations that make signatures of unrelated documents collide.
const MIN_WORD_CHARS: usize = 3;

/// How many of a text's first Latin-script words are checked against the English stop words
/// before `whatlang` is asked, and how many must at least be there for the check to count.
const ENGLISH_CHECK_WORDS: usize = 100;
const ENGLISH_CHECK_MIN_WORDS: usize = 20;

/// The share of English stop words (in percent) that makes a text English without asking
/// `whatlang`.
///
/// Function words make up 30 to 50 % of English prose, while in the other Latin-script
/// languages the English stop words that happen to be words too (`in`, `a`, `do`, `i`, `at`)
/// add up to 0 to 20 %. On the 58,959 ACL abstracts, 89 % of the English ones pass the
/// threshold; of the documents that `whatlang` alone calls non-English, 9 do, and 8 of those
/// are English abstracts that `whatlang` mistook for French or Spanish. The check costs about
/// a microsecond, where `whatlang` costs 30 to 40, which would otherwise be half of the time
/// spent on an abstract.
const ENGLISH_STOP_WORD_PERCENT: usize = 30;

/// Bytes of normalized Latin-script words given to `whatlang` in a first attempt.
///
/// `whatlang` costs about 15 µs plus 60 µs per kilobyte. A few dozen words identify a language
/// reliably in most documents, so a short sample is tried first and the long one only when the
/// short one is not conclusive. On the ACL abstracts, 98 % of the documents are decided by the
/// short sample, and the decision differs from the long sample's in 13 of 58,959; shorter
/// samples mistake more English abstracts for French.
const QUICK_SAMPLE_BYTES: usize = 200;

/// The most bytes of normalized Latin-script words that `whatlang` looks at (rounded up to the
/// end of a word).
const FULL_SAMPLE_BYTES: usize = 4000;

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
    shared: Arc<Shared>,
}

/// The immutable state behind an [`Analyzer`].
struct Shared {
    stop_words: StopWords,
    /// One stemmer per language, indexed by `Language::index`; built once because analysis
    /// runs for every document and every query.
    stemmers: Vec<Option<Stemmer>>,
    /// Chooses among the Latin-script languages that have stemmers.
    detector: whatlang::Detector,
}

/// What the first pass learns about one word span.
#[derive(Debug, Clone, Copy)]
struct Word {
    span: WordSpan,
    /// The normalized word is `normalized[norm_start..norm_end]`.
    norm_start: usize,
    norm_end: usize,
    /// The script most of the word's letters belong to (`Other` when it has none).
    script: Script,
    chars: usize,
    letters: usize,
}

/// Letter counts of a whole text per script, to find its dominant script.
#[derive(Debug, Default)]
struct ScriptTally {
    letters: [usize; SCRIPT_COUNT],
    has_kana: bool,
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

    /// Counts the terms of `tokens`, sorted by term (byte order), as signing needs them.
    pub fn term_counts(tokens: &[Token]) -> Vec<(String, u32)> {
        let mut terms: Vec<&str> = tokens.iter().map(|token| token.term.as_str()).collect();
        terms.sort_unstable();
        terms
            .chunk_by(|a, b| a == b)
            .map(|run| {
                let count = u32::try_from(run.len()).unwrap_or(u32::MAX);
                (run[0].to_owned(), count)
            })
            .collect()
    }

    /// The term of a normalized word of `script` and `language`, or `None` when it is a stop
    /// word. Latin-script words also lose the English stop words, because English phrases
    /// turn up in texts of every language.
    fn word_term(&self, norm: &str, language: Language, script: Script) -> Option<String> {
        let english_too = script == Script::Latin && language != Language::English;
        if self.is_stop_word(language, norm)
            || (english_too && self.is_stop_word(Language::English, norm))
        {
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

    fn is_stop_word(&self, language: Language, word: &str) -> bool {
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

    /// Detects the language of the Latin-script words among `words`: English when English
    /// stop words abound, else what `whatlang` reliably finds, else nothing.
    fn detect_latin(&self, words: &[Word], normalized: &str) -> Option<Language> {
        // The sample is built from normalized words, so that detection, like everything else,
        // does not depend on case, spacing or punctuation.
        let mut latin_words = words
            .iter()
            .filter(|word| word.script == Script::Latin)
            .map(|word| &normalized[word.norm_start..word.norm_end])
            .peekable();
        if self.is_clearly_english(latin_words.clone()) {
            return Some(Language::English);
        }
        let mut sample = String::with_capacity(QUICK_SAMPLE_BYTES + 32);
        extend_sample(&mut sample, &mut latin_words, QUICK_SAMPLE_BYTES);
        if let Some(language) = self.detect_reliably(&sample) {
            return Some(language);
        }
        // When the quick sample already held every Latin-script word, a second look at the
        // same text cannot be more reliable.
        latin_words.peek()?;
        extend_sample(&mut sample, &mut latin_words, FULL_SAMPLE_BYTES);
        self.detect_reliably(&sample)
    }

    /// Whether English stop words make up so much of the first Latin-script `words` that the
    /// text is English without doubt. Without English stop words this is never the case.
    fn is_clearly_english<'a>(&self, words: impl Iterator<Item = &'a str>) -> bool {
        if !self.shared.stop_words.has_language(Language::English) {
            return false;
        }
        let (mut checked, mut stop) = (0, 0);
        for word in words.take(ENGLISH_CHECK_WORDS) {
            checked += 1;
            stop += usize::from(self.is_stop_word(Language::English, word));
        }
        checked >= ENGLISH_CHECK_MIN_WORDS && stop * 100 >= checked * ENGLISH_STOP_WORD_PERCENT
    }

    fn detect_reliably(&self, sample: &str) -> Option<Language> {
        self.shared
            .detector
            .detect(sample)
            .filter(whatlang::Info::is_reliable)
            .and_then(|info| Language::from_whatlang(info.lang()))
    }
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
fn respell_look_alike_words(text: &str, words: &mut [Word], normalized: &mut String) -> usize {
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

/// The fewest Latin-script words in a row that are tested for transliterated Russian: shorter
/// runs are names, terms and titles, whose stop words say nothing.
const MIN_TRANSLITERATED_WORDS: usize = 12;

/// How many words of a run are read back with each system to decide whether it is Russian.
const TRANSLITERATION_SAMPLE_WORDS: usize = 200;

impl Analyzer {
    /// Reads runs of Latin-script words that are transliterated Russian back into Cyrillic,
    /// and answers how many words were read back. A soft or hard sign written as an apostrophe
    /// or a backtick splits a word in the tokenizer; inside such a run, the pieces are joined
    /// again, marks included.
    fn read_back_transliteration(
        &self,
        text: &str,
        words: &mut Vec<Word>,
        normalized: &mut String,
    ) -> usize {
        if !self.shared.stop_words.has_language(Language::Russian) {
            return 0;
        }
        let mut rebuilt: Vec<Word> = Vec::new();
        let mut copied = 0;
        let mut read_back = 0;
        let mut i = 0;
        while i < words.len() {
            if words[i].script != Script::Latin {
                i += 1;
                continue;
            }
            let start = i;
            let mut latin = 0;
            while i < words.len()
                && words[i].span.kind == SpanKind::Word
                && matches!(words[i].script, Script::Latin | Script::Other)
            {
                latin += usize::from(words[i].script == Script::Latin);
                i += 1;
            }
            if latin < MIN_TRANSLITERATED_WORDS || is_other_than_prose(text, &words[start..i]) {
                continue;
            }
            let Some(system) = self.transliteration_system(&words[start..i], normalized) else {
                continue;
            };
            rebuilt.extend_from_slice(&words[copied..start]);
            read_back += read_back_run(text, &words[start..i], system, normalized, &mut rebuilt);
            copied = i;
        }
        if copied > 0 {
            rebuilt.extend_from_slice(&words[copied..]);
            *words = rebuilt;
        }
        read_back
    }

    /// The system a run of Latin-script words was transliterated from Russian with, or `None`
    /// when the run does not read as Russian in any system.
    fn transliteration_system(&self, run: &[Word], normalized: &str) -> Option<System> {
        let sample: Vec<&str> = run
            .iter()
            .filter(|word| word.script == Script::Latin)
            .take(TRANSLITERATION_SAMPLE_WORDS)
            .map(|word| &normalized[word.norm_start..word.norm_end])
            .collect();
        if self.is_clearly_english(sample.iter().copied()) {
            return None;
        }
        let english = sample
            .iter()
            .filter(|word| self.is_stop_word(Language::English, word))
            .count();
        let mut buffer = String::new();
        let mut best: Option<(System, usize)> = None;
        for system in SYSTEMS {
            let stop = sample
                .iter()
                .filter(|word| {
                    buffer.clear();
                    normalize_into(&to_cyrillic(word, system), &mut buffer);
                    self.is_stop_word(Language::Russian, &buffer)
                })
                .count();
            if best.is_none_or(|(_, most)| stop > most) {
                best = Some((system, stop));
            }
        }
        let (system, stop) = best?;
        looks_russian(stop, english, sample.len()).then_some(system)
    }
}

/// Letters of Polish and German spelling that no transliteration of Russian uses: a run with
/// them in one word of [`FOREIGN_WORD_SHARE`] or more is a quotation in such a language, which
/// may read like transliterated Russian by its short words (`w`, `na`, `do`, `to`, `die`).
const NOT_IN_TRANSLITERATION: &str = "ąćęłńśźżóĄĆĘŁŃŚŹŻÓäöüßÄÖÜ";

/// One word in this many holding a letter of [`NOT_IN_TRANSLITERATION`] makes a run foreign.
const FOREIGN_WORD_SHARE: usize = 30;

/// Whether a run of Latin-script words is something other than transliterated prose: a
/// quotation in Polish or German ([`NOT_IN_TRANSLITERATION`]), a list, a glossary or an
/// address (most of its words not separated by spaces alone, as prose is: one word a line,
/// `Blech «Geld», pumpen «borgen»`, a transliterated URL slug joined by `-` and `/`), or a list
/// of letters (most words one letter long, as in
/// `a → e, e → i, o → u`).
fn is_other_than_prose(text: &str, run: &[Word]) -> bool {
    let foreign = run
        .iter()
        .filter(|w| text[w.span.start..w.span.end].contains(|c| NOT_IN_TRANSLITERATION.contains(c)))
        .count();
    if foreign * FOREIGN_WORD_SHARE >= run.len() {
        return true;
    }
    let plain_gaps = run
        .windows(2)
        .filter(|pair| {
            let gap = &text[pair[0].span.end..pair[1].span.start];
            !gap.is_empty() && gap.chars().all(|c| c == ' ' || c == '\t')
        })
        .count();
    let single_letters = run.iter().filter(|w| w.letters == 1).count();
    plain_gaps * 2 < run.len().saturating_sub(1) || single_letters * 5 > run.len() * 2
}

/// Reads one run of transliterated words back into Cyrillic, appending the words to `out`, and
/// answers how many were read back.
fn read_back_run(
    text: &str,
    run: &[Word],
    system: System,
    normalized: &mut String,
    out: &mut Vec<Word>,
) -> usize {
    let mut read_back = 0;
    let mut k = 0;
    while k < run.len() {
        let word = run[k];
        k += 1;
        if word.script != Script::Latin {
            out.push(word);
            continue;
        }
        let mut end = word.span.end;
        while k < run.len() && run[k].script == Script::Latin {
            let gap = &text[end..run[k].span.start];
            if gap.is_empty() || gap.chars().count() > 2 || !gap.chars().all(is_sign_mark) {
                break;
            }
            end = run[k].span.end;
            k += 1;
        }
        let trailing: usize = text[end..]
            .chars()
            .take_while(|&c| is_trailing_sign_mark(c))
            .take(2)
            .map(char::len_utf8)
            .sum();
        if trailing > 0
            && !text[end + trailing..]
                .chars()
                .next()
                .is_some_and(char::is_alphanumeric)
        {
            end += trailing;
        }
        let latin: String = text[word.span.start..end]
            .chars()
            .filter(|&c| !is_invisible(c))
            .nfkc()
            .flat_map(char::to_lowercase)
            .collect();
        let norm_start = normalized.len();
        normalize_into(&to_cyrillic(&latin, system), normalized);
        let span = WordSpan {
            start: word.span.start,
            end,
            kind: SpanKind::Word,
        };
        out.push(describe(span, norm_start, normalized));
        read_back += 1;
    }
    read_back
}

/// Appends words to `sample`, each followed by a space, until it holds at least `bytes` bytes
/// or the words run out.
fn extend_sample<'a>(sample: &mut String, words: &mut impl Iterator<Item = &'a str>, bytes: usize) {
    while sample.len() < bytes {
        let Some(word) = words.next() else {
            return;
        };
        sample.push_str(word);
        sample.push(' ');
    }
}

impl fmt::Debug for Analyzer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Analyzer")
            .field("stop_words", &self.shared.stop_words)
            .finish_non_exhaustive()
    }
}

/// Normalizes the word at `span` into `normalized` and describes it; also answers whether the
/// word mixed Latin and Cyrillic letters. A span of spaced letters is normalized without its
/// spaces.
fn profile_word(text: &str, span: WordSpan, normalized: &mut String) -> (Word, bool) {
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
fn describe(span: WordSpan, norm_start: usize, normalized: &str) -> Word {
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
    fn add(&mut self, word: &Word, normalized: &str) {
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
    fn dominant_script(&self) -> Script {
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
struct ScriptLanguages {
    /// The given or detected language of the Latin-script words.
    latin: Language,
    /// Japanese when the text has kana, else Chinese.
    cjk: Language,
}

impl ScriptLanguages {
    /// The language whose stemmer and stop words apply to words of `script`.
    fn of(self, script: Script) -> Language {
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
    use super::*;
    use proptest::prelude::*;

    const ENGLISH_STOP: &str = "# a few English function words\nthe\nof\nand\nare\nin\nis\nwe\nfor\nwith\nthis\nthat\non\nby\nto\na\nan\n";
    const FRENCH_STOP: &str = "des\nles\nune\nnous\npour\ndans\nla\nle\nde\net\nun\nsur\nque\nqui\nen\nest\nau\naux\nsont\npar\ncette\n";
    const RUSSIAN_STOP: &str = "и\nв\nмы\nна\nдля\nэто\nее\n";

    fn analyzer() -> Analyzer {
        Analyzer::new(StopWords::from_lists([
            (Language::English, ENGLISH_STOP),
            (Language::French, FRENCH_STOP),
            (Language::Russian, RUSSIAN_STOP),
        ]))
    }

    fn terms(analyzed: &Analyzed) -> Vec<&str> {
        analyzed.tokens.iter().map(|t| t.term.as_str()).collect()
    }

    fn originals<'a>(text: &'a str, analyzed: &Analyzed) -> Vec<&'a str> {
        analyzed
            .tokens
            .iter()
            .map(|t| &text[t.start..t.end])
            .collect()
    }

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

    const RUSSIAN: &str = "В работе рассматривается задача поиска нечётких дубликатов в больших \
        коллекциях научных текстов. Для её решения предложен новый метод, который использует \
        сигнатуры и шинглы, а также учитывает структуру документа и его язык.";
    const RUSSIAN_MORE_STOP: &str = "в\nи\nдля\nее\nего\nа\nтакже\nэто\nна\nс\nпо\nне\nчто\nкак\n";

    fn russian_analyzer() -> Analyzer {
        Analyzer::new(StopWords::from_lists([
            (Language::English, ENGLISH_STOP),
            (Language::Russian, RUSSIAN_MORE_STOP),
        ]))
    }

    /// The share of `copy`'s terms that are `original`'s, in order-free comparison.
    fn shared_terms(original: &Analyzed, copy: &Analyzed) -> f64 {
        let known: std::collections::HashSet<&str> =
            original.tokens.iter().map(|t| t.term.as_str()).collect();
        let shared = copy
            .tokens
            .iter()
            .filter(|t| known.contains(t.term.as_str()))
            .count();
        shared as f64 / original.tokens.len().max(copy.tokens.len()) as f64
    }

    fn assert_offsets_slice(text: &str, analyzed: &Analyzed) {
        for token in &analyzed.tokens {
            assert!(text.get(token.start..token.end).is_some(), "{token:?}");
        }
    }

    #[test]
    fn reads_gost_transliteration_back() {
        let analyzer = russian_analyzer();
        let original = analyzer.analyze(RUSSIAN, None);
        let text = "V rabote rassmatrivaetsya zadacha poiska nechyotkix dublikatov v bol`shix \
            kollekciyax nauchny`x tekstov. Dlya eyo resheniya predlozhen novy`j metod, kotory`j \
            ispol`zuet signatury` i shingly`, a takzhe uchity`vaet strukturu dokumenta i ego yazy`k.";
        let copy = analyzer.analyze(text, None);
        assert!(copy.disguises.transliterated >= 25, "{:?}", copy.disguises);
        assert!(shared_terms(&original, &copy) >= 0.9, "{:?}", terms(&copy));
        assert_eq!(copy.language, Language::Russian);
        assert_offsets_slice(text, &copy);
        // The soft sign's backtick stays inside the word it belongs to.
        assert!(originals(text, &copy).contains(&"bol`shix"));
    }

    #[test]
    fn reads_bgn_transliteration_back() {
        let analyzer = russian_analyzer();
        let original = analyzer.analyze(RUSSIAN, None);
        let text = "V rabote rassmatrivayetsya zadacha poiska nechëtkikh dublikatov v bol'shikh \
            kollektsiyakh nauchnykh tekstov. Dlya yeyë resheniya predlozhen novyy metod, kotoryy \
            ispol'zuyet signatury i shingly, a takzhe uchityvayet strukturu dokumenta i yego yazyk.";
        let copy = analyzer.analyze(text, None);
        assert!(copy.disguises.transliterated >= 25, "{:?}", copy.disguises);
        assert!(shared_terms(&original, &copy) >= 0.9, "{:?}", terms(&copy));
    }

    #[test]
    fn english_is_not_taken_for_transliteration() {
        let analyzer = russian_analyzer();
        let text = "We study the detection of near duplicates in large collections of papers \
            and propose a method that uses signatures and shingles, as well as the structure \
            of a document and its language.";
        let analyzed = analyzer.analyze(text, None);
        assert_eq!(analyzed.disguises, Disguises::default());
        assert_eq!(analyzed.language, Language::English);
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
    fn french_abstract_gives_content_stems_without_function_words() {
        let text = "Nous proposons une nouvelle méthode pour la détection des documents \
                    presque identiques dans les grandes collections scientifiques. Les \
                    signatures sont calculées à partir des mots les plus significatifs, et \
                    nous montrons que cette approche reste robuste lorsque le texte est \
                    légèrement modifié par les auteurs.";
        let analyzed = analyzer().analyze(text, None);
        assert_eq!(analyzed.language, Language::French);
        let terms = terms(&analyzed);
        for function_word in ["des", "les", "une", "nous", "pour", "dans", "dan", "la"] {
            assert!(
                !terms.contains(&function_word),
                "{function_word} in {terms:?}"
            );
        }
        for stem in [
            "proposon", "nouvel", "méthod", "détect", "docu", "scientif", "signatur",
        ] {
            assert!(terms.contains(&stem), "{stem} missing from {terms:?}");
        }
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
    fn confident_detection_overrides_a_wrong_label() {
        // Real collections label French abstracts as English; analyzed as English they would
        // be signed by their function words, and a check without the label would differ.
        let text = "De nombreuses méthodes ont été proposées pour accélérer la prédiction \
                    d'objets structurés, ou pour permettre la prise en compte de dépendances \
                    plus riches afin d'améliorer les performances de la prédiction.";
        let labelled = analyzer().analyze(text, Some(Language::English));
        let unlabelled = analyzer().analyze(text, None);
        assert_eq!(labelled.language, Language::French);
        assert_eq!(terms(&labelled), terms(&unlabelled));
    }

    #[test]
    fn unreliable_detection_falls_back_to_english() {
        let analyzed = analyzer().analyze("Running", None);
        assert_eq!(analyzed.language, Language::English);
        assert_eq!(terms(&analyzed), ["run"]);
    }

    /// A realistic English stop list (the common function words), for the tests where the
    /// English stop-word check must not mistake other languages for English.
    const FULL_ENGLISH_STOP: &str = "a about above after again against all am an and any are as
        at be because been before being below between both but by can did do does doing down
        during each few for from further had has have having he her here hers herself him
        himself his how i if in into is it its itself me more most my myself no nor not now of
        off on once only or other our ours ourselves out over own same she should so some such
        than that the their theirs them themselves then there these they this those through to
        too under until up very was we were what when where which while who whom why will with
        would you your yours yourself yourselves";

    #[test]
    fn other_latin_languages_are_not_taken_for_english() {
        let english = FULL_ENGLISH_STOP
            .split_whitespace()
            .collect::<Vec<_>>()
            .join("\n");
        let analyzer = Analyzer::new(StopWords::from_lists([(Language::English, &*english)]));
        // The languages where English stop words are most common, with a share of 4 to 18 %.
        let texts = [
            (
                Language::German,
                "In dieser Arbeit stellen wir ein Verfahren zur Erkennung von nahezu identischen Dokumenten in großen wissenschaftlichen Bibliotheken vor. Das Verfahren berechnet für jedes Dokument eine Signatur aus den seltensten Wörtern und vergleicht sie mit den Signaturen im Index. Die Ergebnisse zeigen, dass die Methode auch dann funktioniert, wenn einzelne Sätze umgestellt oder Wörter ersetzt wurden.",
            ),
            (
                Language::Dutch,
                "In dit artikel beschrijven we een methode om bijna identieke documenten in grote wetenschappelijke bibliotheken te vinden. Voor elk document wordt een handtekening berekend uit de zeldzaamste woorden, en deze wordt vergeleken met de handtekeningen in de index. De resultaten laten zien dat de methode ook werkt als zinnen zijn verplaatst of als er woorden zijn vervangen, en dat het over het algemeen snel is.",
            ),
            (
                Language::Italian,
                "In questo lavoro presentiamo un metodo per individuare documenti quasi identici in grandi biblioteche scientifiche. Per ogni documento si calcola una firma a partire dalle parole meno frequenti, che viene poi confrontata con le firme presenti nell'indice. I risultati mostrano che il metodo funziona anche quando le frasi vengono riordinate o alcune parole vengono sostituite.",
            ),
            (
                Language::Portuguese,
                "Neste trabalho apresentamos um método para a detecção de documentos quase idênticos em grandes bibliotecas científicas. Para cada documento calcula-se uma assinatura a partir das palavras mais raras do texto, que é comparada com as assinaturas do índice. Os resultados mostram que o método funciona também quando as frases do documento são reordenadas ou quando algumas palavras são substituídas.",
            ),
            (
                Language::Danish,
                "I denne artikel præsenterer vi en metode til at finde næsten identiske dokumenter i store videnskabelige biblioteker. For hvert dokument beregnes en signatur ud fra de sjældneste ord, og den sammenlignes med signaturerne i indekset. Resultaterne viser at metoden også virker, når sætninger er flyttet, eller når ord er blevet erstattet med andre ord i teksten.",
            ),
            (
                Language::Hungarian,
                "Ebben a cikkben egy módszert mutatunk be a majdnem azonos dokumentumok felismerésére a nagy tudományos könyvtárakban. Minden dokumentumhoz a legritkább szavakból számítunk egy aláírást, és ezt összehasonlítjuk az index aláírásaival. Az eredmények azt mutatják, hogy a módszer akkor is működik, ha a mondatokat átrendezik, vagy a szavakat másokra cserélik.",
            ),
        ];
        for (expected, text) in texts {
            assert_eq!(analyzer.analyze(text, None).language, expected, "{text}");
        }
    }

    #[test]
    fn english_stop_words_decide_english_without_whatlang() {
        let english = FULL_ENGLISH_STOP
            .split_whitespace()
            .collect::<Vec<_>>()
            .join("\n");
        let analyzer = Analyzer::new(StopWords::from_lists([(Language::English, &*english)]));
        let words = |text: &'static str| text.split(' ');
        // 11 stop words among 20 words: 55 %.
        let english_like = "we show that the method is robust and that it finds most of the copies in large scientific libraries quickly";
        assert!(analyzer.is_clearly_english(words(english_like)));
        // The same share among fewer than 20 words proves nothing.
        assert!(!analyzer.is_clearly_english(words("we show that the method is robust")));
        let dutch = "we tonen aan dat de methode robuust is en dat zij de meeste kopieen in grote wetenschappelijke bibliotheken snel vindt";
        assert!(!analyzer.is_clearly_english(words(dutch)));
        // Without English stop words the check never decides.
        assert!(!Analyzer::new(StopWords::default()).is_clearly_english(words(english_like)));
    }

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
    fn greek_stemmer_emptying_a_word_keeps_the_word() {
        assert_eq!(
            Stemmer::create(rust_stemmers::Algorithm::Greek).stem("αμε"),
            ""
        );
        let analyzed = Analyzer::new(StopWords::default()).analyze("ΑΜΕ αμε", None);
        assert_eq!(terms(&analyzed), ["αμε", "αμε"]);
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
