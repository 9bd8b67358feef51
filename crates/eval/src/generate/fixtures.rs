//! Made-up corpora for the generator's tests: documents of topic words and common words, in
//! English and Russian, and random structured texts.

use proptest::prelude::*;

use super::rng::Rng;
use super::text::Case;
use super::{GenOptions, Modification, Query, SourceDoc, Span};

const COMMON_EN: &[&str] = &[
    "the", "of", "and", "in", "we", "is", "to", "for", "with", "results", "method", "this", "that",
    "shows", "our", "on", "by", "are", "study", "data",
];
const COMMON_RU: &[&str] = &[
    "и",
    "в",
    "на",
    "с",
    "что",
    "мы",
    "это",
    "для",
    "по",
    "как",
    "результаты",
    "работа",
    "показано",
    "который",
];
const SYLLABLES_EN: [&str; 10] = ["ka", "lo", "mi", "ne", "ru", "ta", "ve", "so", "pi", "da"];
const SYLLABLES_RU: [&str; 10] = ["ка", "ло", "ми", "не", "ру", "та", "ве", "со", "пи", "да"];

/// A made-up topic word: the digits of `i` spelled as syllables.
fn topic_word(i: usize, syllables: &[&str; 10]) -> String {
    format!(
        "{}{}{}",
        syllables[i / 100 % 10],
        syllables[i / 10 % 10],
        syllables[i % 10]
    )
}

/// A document of 3–4 paragraphs of 3–5 sentences, mixing topic words (`topic` selects a
/// band of 80 made-up words) with common words, so same-topic documents share vocabulary.
pub(super) fn document(seed: u64, topic: usize, russian: bool) -> String {
    let mut rng = Rng::new(seed);
    let (common, syllables) = if russian {
        (COMMON_RU, &SYLLABLES_RU)
    } else {
        (COMMON_EN, &SYLLABLES_EN)
    };
    let paragraphs: Vec<String> = (0..rng.between(3, 4))
        .map(|_| {
            let sentences: Vec<String> = (0..rng.between(3, 5))
                .map(|_| {
                    let words: Vec<String> = (0..rng.between(8, 16))
                        .map(|_| {
                            if rng.chance(0.5) {
                                topic_word(topic * 80 + rng.below(80), syllables)
                            } else {
                                rng.pick(common).unwrap_or(&"и").to_string()
                            }
                        })
                        .collect();
                    format!("{}.", Case::Title.apply(&words.join(" ")))
                })
                .collect();
            sentences.join(" ")
        })
        .collect();
    paragraphs.join("\n\n")
}

pub(super) fn doc(id: &str, text: String) -> SourceDoc {
    SourceDoc {
        id: id.to_string(),
        text,
    }
}

/// Documents of `texts`, named `prefix` and their position (`d0`, `d1`, …).
pub(super) fn numbered(prefix: &str, texts: Vec<String>) -> Vec<SourceDoc> {
    texts
        .into_iter()
        .enumerate()
        .map(|(i, text)| doc(&format!("{prefix}{i}"), text))
        .collect()
}

/// 12 library documents (8 English on two topics, 4 Russian) and 7 foreign ones.
pub(super) fn corpus() -> (Vec<SourceDoc>, Vec<SourceDoc>) {
    let library = (0..12)
        .map(|i| doc(&format!("lib{i}"), document(i, i as usize % 2, i >= 8)))
        .collect();
    let foreign = (0..7)
        .map(|i| {
            doc(
                &format!("foreign{i}"),
                document(100 + i, 2 + i as usize % 3, i >= 5),
            )
        })
        .collect();
    (library, foreign)
}

pub(super) fn options(kinds: &[Modification], levels: &[f64], per_kind: usize) -> GenOptions {
    GenOptions {
        kinds: kinds.to_vec(),
        levels: levels.to_vec(),
        per_kind,
        ..GenOptions::default()
    }
}

pub(super) fn source_text<'a>(docs: &'a [SourceDoc], query: &Query) -> &'a str {
    let id = query.source.as_deref().expect("a positive has a source");
    &docs
        .iter()
        .find(|d| d.id == id)
        .expect("source exists")
        .text
}

pub(super) fn slice(text: &str, span: Span) -> String {
    text.chars()
        .skip(span.start)
        .take(span.end - span.start)
        .collect()
}

pub(super) fn arb_text() -> impl Strategy<Value = String> {
    let word = "[a-zA-Zа-яА-ЯёЁ0-9é中文]{1,7}";
    let glue = prop::sample::select(vec![" ", " 😀 ", ", ", " — ", "😀", "\n"]);
    let end = prop::sample::select(vec![".", "!", "?", "…", "。", "."]);
    let sentence = (prop::collection::vec((word, glue), 3..10), end).prop_map(|(words, end)| {
        let mut s: String = words.iter().map(|(w, g)| format!("{w}{g}")).collect();
        s.truncate(s.trim_end_matches([' ', ',', '\n']).len());
        s + end
    });
    let breaks = prop::sample::select(vec![" ", " ", "\n\n", " 😀 "]);
    prop::collection::vec((sentence, breaks), 3..25).prop_map(|parts| {
        parts
            .iter()
            .map(|(s, b)| format!("{s}{b}"))
            .collect::<String>()
    })
}
