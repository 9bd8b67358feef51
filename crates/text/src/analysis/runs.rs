//! Runs of sentences written in another Latin-script language than the document's.
//!
//! The language of a document's Latin-script words is decided once, from the whole text. A
//! French abstract pasted into an English paper would then be stemmed and stop-worded as
//! English in the paper and as French in the library document it came from, and their
//! shingles would differ. So the document is cut into sentence segments, and a segment whose
//! stop words are plainly those of another language is analyzed in that language — the same
//! rule at ingest and at check time, so a passage is analyzed alike wherever it stands.
//!
//! Only strong evidence switches: a segment of at least [`SEGMENT_MIN_WORDS`] Latin-script
//! words in which the document language's stop words are rare (below
//! [`DOCUMENT_STOP_PERCENT`]) and another language's are common (at least
//! [`FOREIGN_STOP_PERCENT`], and at least twice as many). Prose in the document's language
//! never switches, because function words make up 30 to 50 % of it; titles, formulas and
//! reference lists, which have few function words of any language, never reach the second
//! threshold.

use std::ops::Range;

use super::language::{Language, Script};
use super::stopwords::{Languages, StopWords};

/// Latin-script words a segment needs before its stop words are judged; shorter sentences are
/// joined to the next.
pub(super) const SEGMENT_MIN_WORDS: usize = 8;

/// Below this share (percent) of the document language's stop words a segment is examined.
const DOCUMENT_STOP_PERCENT: usize = 12;

/// The share (percent) of another language's stop words that marks a segment as written in it.
const FOREIGN_STOP_PERCENT: usize = 25;

/// Stop words of the other language a segment needs at least, whatever its length.
const FOREIGN_STOP_MIN: usize = 3;

/// One word as the segmentation sees it.
#[derive(Debug, Clone, Copy)]
pub(super) struct RunWord<'a> {
    /// The normalized word.
    pub norm: &'a str,
    /// Whether the word is written in Latin script and has letters.
    pub latin: bool,
    /// Whether a sentence ends after the word.
    pub ends_sentence: bool,
}

/// What a segment's stop words say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// Too short, or no language stands out: it follows its neighbours.
    Weak,
    /// Written in the document's language.
    Document,
    /// Written in this other language.
    Foreign(Language),
}

/// The word ranges (indexes into `words`) to analyze in another Latin-script language than
/// `document`, with that language; in text order, not overlapping. Empty for nearly every
/// text.
pub(super) fn foreign_runs(
    words: &[RunWord<'_>],
    document: Language,
    stop_words: &StopWords,
) -> Vec<(Range<usize>, Language)> {
    if !stop_words.has_language(document) {
        return Vec::new();
    }
    let segments = segments(words, document, stop_words);
    let mut runs: Vec<(Range<usize>, Language)> = Vec::new();
    let mut i = 0;
    while i < segments.len() {
        let Verdict::Foreign(language) = segments[i].1 else {
            i += 1;
            continue;
        };
        // A run goes on over weak segments to the next segment of the same language; weak
        // segments at its end stay with the document.
        let start = segments[i].0.start;
        let mut end = segments[i].0.end;
        let mut j = i + 1;
        while j < segments.len() {
            match segments[j].1 {
                Verdict::Foreign(other) if other == language => {
                    end = segments[j].0.end;
                    j += 1;
                }
                Verdict::Weak => j += 1,
                _ => break,
            }
        }
        // Resume after the last segment taken into the run.
        i = segments[i..j]
            .iter()
            .rposition(|segment| segment.0.end == end)
            .map_or(j, |last| i + last + 1);
        runs.push((start..end, language));
    }
    runs
}

/// The text cut into segments of whole sentences with at least [`SEGMENT_MIN_WORDS`]
/// Latin-script words each (the last may have fewer), each with its verdict.
fn segments(
    words: &[RunWord<'_>],
    document: Language,
    stop_words: &StopWords,
) -> Vec<(Range<usize>, Verdict)> {
    let mut segments = Vec::new();
    let (mut start, mut latin, mut document_stops) = (0, 0, 0);
    for (i, word) in words.iter().enumerate() {
        if word.latin {
            latin += 1;
            document_stops += usize::from(stop_words.contains_normalized(document, word.norm));
        }
        let last = i + 1 == words.len();
        if (word.ends_sentence && latin >= SEGMENT_MIN_WORDS) || last {
            let range = start..i + 1;
            let verdict = if latin < SEGMENT_MIN_WORDS {
                Verdict::Weak
            } else if document_stops * 100 >= latin * DOCUMENT_STOP_PERCENT {
                Verdict::Document
            } else {
                foreign_verdict(
                    &words[range.clone()],
                    latin,
                    document,
                    document_stops,
                    stop_words,
                )
            };
            segments.push((range, verdict));
            (start, latin, document_stops) = (i + 1, 0, 0);
        }
    }
    segments
}

/// The language whose stop words plainly dominate a segment poor in the document's.
fn foreign_verdict(
    words: &[RunWord<'_>],
    latin: usize,
    document: Language,
    document_stops: usize,
    stop_words: &StopWords,
) -> Verdict {
    // Each word is looked up once, for all the languages it is a stop word of.
    let word_languages: Vec<Languages> = words
        .iter()
        .filter(|word| word.latin)
        .map(|word| stop_words.languages_normalized(word.norm))
        .filter(|languages| *languages != Languages::default())
        .collect();
    let best = Language::latin()
        .filter(|&language| language != document && stop_words.has_language(language))
        .map(|language| {
            let stops = word_languages.iter().filter(|l| l.has(language)).count();
            (stops, language)
        })
        // The first of equals wins, so the choice does not depend on iteration details.
        .fold(
            None,
            |best: Option<(usize, Language)>, candidate| match best {
                Some(best) if best.0 >= candidate.0 => Some(best),
                _ => Some(candidate),
            },
        );
    match best {
        Some((stops, language))
            if stops >= FOREIGN_STOP_MIN
                && stops * 100 >= latin * FOREIGN_STOP_PERCENT
                && stops >= 2 * document_stops =>
        {
            Verdict::Foreign(language)
        }
        _ => Verdict::Weak,
    }
}

/// Whether the text between two words ends a sentence (or a paragraph or line).
pub(super) fn ends_sentence(between: &str) -> bool {
    between
        .chars()
        .any(|c| matches!(c, '.' | '!' | '?' | '\n' | '\r' | '…'))
}

/// Whether a word counts for the segmentation: Latin script with letters.
pub(super) fn counts(script: Script, letters: usize) -> bool {
    script == Script::Latin && letters > 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stop_words() -> StopWords {
        StopWords::from_lists([
            (
                Language::English,
                "the\nof\nand\nin\nto\na\nis\nwe\nthat\nfor\non\nwith\n",
            ),
            (
                Language::French,
                "le\nla\nles\nde\ndes\net\nen\ndu\nune\nun\nest\nnous\npour\ndans\nque\nqui\n",
            ),
            (
                Language::Spanish,
                "el\nla\nlos\nde\ny\nen\nque\ndel\nlas\npor\nun\npara\n",
            ),
        ])
    }

    /// Words of `text` split at spaces, a sentence ending at each `.`.
    fn run_words(text: &str) -> Vec<RunWord<'_>> {
        text.split_whitespace()
            .map(|word| RunWord {
                norm: word.trim_end_matches('.'),
                latin: true,
                ends_sentence: word.ends_with('.'),
            })
            .collect()
    }

    /// The foreign runs of `text` in a document in `language`.
    fn runs_in(text: &str, language: Language) -> Vec<(Range<usize>, Language)> {
        foreign_runs(&run_words(text), language, &stop_words())
    }

    const ENGLISH: &str = "We show that the method of the authors is robust to noise and \
                           we apply it to the papers of a large library.";
    const FRENCH: &str = "Nous proposons une méthode pour la détection des documents \
                          presque identiques dans les grandes collections de la science.";

    #[test]
    fn a_french_sentence_in_an_english_text_is_a_french_run() {
        let runs = runs_in(&format!("{ENGLISH} {FRENCH} {ENGLISH}"), Language::English);
        let english_words = run_words(ENGLISH).len();
        let french_words = run_words(FRENCH).len();
        assert_eq!(
            runs,
            [(
                english_words..english_words + french_words,
                Language::French
            )]
        );
    }

    #[test]
    fn text_in_the_document_language_has_no_runs() {
        assert!(runs_in(&format!("{ENGLISH} {ENGLISH}"), Language::English).is_empty());
        assert!(runs_in(FRENCH, Language::French).is_empty());
    }

    #[test]
    fn words_poor_in_function_words_stay_with_the_document() {
        // A title or a reference entry: few stop words of any language.
        let text = "Robust signatures detection near duplicates scientific libraries \
                    evaluation corpus statistics la de.";
        assert!(runs_in(text, Language::English).is_empty());
    }

    #[test]
    fn an_english_sentence_in_a_french_text_is_an_english_run() {
        let runs = runs_in(&format!("{FRENCH} {ENGLISH}"), Language::French);
        let french_words = run_words(FRENCH).len();
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].0.start, french_words);
        assert_eq!(runs[0].1, Language::English);
    }

    #[test]
    fn short_sentences_inside_a_run_follow_it() {
        let text = format!("{ENGLISH} {FRENCH} Voir figure. {FRENCH} {ENGLISH}");
        let runs = runs_in(&text, Language::English);
        let english_words = run_words(ENGLISH).len();
        let french_words = run_words(FRENCH).len();
        assert_eq!(
            runs,
            [(
                english_words..english_words + 2 * french_words + 2,
                Language::French
            )]
        );
    }

    #[test]
    fn sentence_ends() {
        assert!(ends_sentence(". "));
        assert!(ends_sentence("\n\n"));
        assert!(ends_sentence("? "));
        assert!(!ends_sentence(", "));
        assert!(!ends_sentence(" "));
    }
}
