//! The test generator: check queries with known truth, made from a library's documents, for
//! measuring the precision and recall of the check.
//!
//! Positives are library documents modified in a known way and to a known degree (the *level*:
//! the share of the document changed), so a check must find their source. Partial copies put a
//! passage of a library document into a foreign text, so a check must find the passage but not
//! call the whole a duplicate. Negatives are foreign documents (documents not in the library),
//! unrelated or on the same topic, where any match is a false positive.
//!
//! Everything is reproducible: the same documents, options and seed give the same queries, on
//! any platform and with any version of the dependencies (the generator brings its own RNG).
//!
//! The structure of a text is the generator's own, independent of the analyzer under test:
//! words are maximal runs of alphanumeric characters, sentences end after `.`, `!`, `?` or `…`
//! followed by whitespace and an uppercase letter (common abbreviations and initials excepted)
//! or after Chinese `。！？`, and paragraphs are separated by blank lines.

mod disguise;
#[cfg(test)]
mod fixtures;
mod modify;
mod partial;
mod pool;
mod prepared;
mod rng;
mod text;

use serde::{Deserialize, Serialize};

use prepared::{Cursors, Prepared};
use rng::Rng;

/// A document the generator reads: a library document (source of positives) or a foreign one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceDoc {
    /// The document's id in its corpus; positives name their source by it.
    pub id: String,
    /// The document's text.
    pub text: String,
}

/// How a query was made from its source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Modification {
    /// The source text unchanged.
    Exact,
    /// Paragraphs shuffled (pseudo-paragraphs of about five sentences when the text has fewer
    /// than three); the level is ignored.
    ParagraphPermutation,
    /// Whole sentences deleted, about the level's share of the words.
    ParagraphDeletion,
    /// Sentences of a foreign document inserted at sentence boundaries, about the level's share
    /// of the source's word count.
    ParagraphAddition,
    /// Sentences shuffled within their paragraphs; the level is ignored.
    SentenceReordering,
    /// The level's share of the words replaced by words of similar length from other documents.
    WordReplacement,
    /// One letter changed (two adjacent swapped, or one replaced by a letter of the same
    /// script) in the level's share of the words.
    LetterReplacement,
    /// Cyrillic letters replaced by Latin look-alikes, or Latin by Cyrillic, in the level's
    /// share of the words.
    Homoglyphs,
    /// Whole words of three letters or more written in the other script's look-alike letters
    /// (`кора` as Latin `kopa`), the level's share of the words or as many as can be. Not among
    /// the default kinds (ask for it with `--kinds`).
    LookAlikeWords,
    /// The whole text transliterated into Latin letters (GOST 7.79-B, BGN/PCGN, ISO 9 or the
    /// passport system, one chosen per query); the level is ignored. Not among the default kinds.
    Transliteration,
    /// Zero-width characters inside the level's share of the words. Not among the default kinds.
    ZeroWidth,
    /// The level's share of the words written with spaces between their letters. Not among the
    /// default kinds.
    LetterSpacing,
    /// Paragraphs or sentences repeated, about the level's share of the words.
    RepeatedParagraphs,
    /// Letter case changed in the level's share of the words, whitespace collapsed or
    /// expanded, punctuation dropped or added.
    Noise,
    /// The level's share of the words deleted.
    WordDeletion,
    /// The level's share of the word count inserted, from other documents' vocabulary.
    WordInsertion,
    /// A passage of whole sentences of a library document inside a foreign document; the level
    /// is ignored.
    PartialCopy,
    /// A partial copy set as a quotation: the passage inside quotation marks (« » in Cyrillic
    /// text, “ ” otherwise) followed by a citation `[1]`; the span is the passage inside the
    /// marks. Not among the default kinds (ask for it with `--kinds`).
    QuotedCopy,
    /// A partial copy whose opening sentence the query also holds a second time, at its very
    /// start, away from the copy: the copied case is the full passage, and the aligner must
    /// place it on that occurrence (the one that extends into the longest alignment), not on
    /// the lone sentence that comes first. Not among the default kinds.
    RepeatedCopy,
    /// A short partial copy (40 to 120 words) in a long document that also holds
    /// [`MANY_SOURCES_OTHERS`] whole other library documents: the short case must not be lost
    /// to the stronger sources. The truth is the short copy alone. Not among the default kinds.
    ManySources,
    /// A foreign document as it is.
    NegativeUnrelated,
    /// The foreign documents whose vocabulary is closest to a library document's, as they are.
    NegativeSameTopic,
}

/// The default kinds ([`Modification::all`]).
const ALL_MODIFICATIONS: [Modification; 15] = [
    Modification::Exact,
    Modification::ParagraphPermutation,
    Modification::ParagraphDeletion,
    Modification::ParagraphAddition,
    Modification::SentenceReordering,
    Modification::WordReplacement,
    Modification::LetterReplacement,
    Modification::Homoglyphs,
    Modification::RepeatedParagraphs,
    Modification::Noise,
    Modification::WordDeletion,
    Modification::WordInsertion,
    Modification::PartialCopy,
    Modification::NegativeUnrelated,
    Modification::NegativeSameTopic,
];

impl Modification {
    /// The serde name (`word_replacement`), for query ids and report keys.
    pub fn name(&self) -> &'static str {
        match self {
            Modification::Exact => "exact",
            Modification::ParagraphPermutation => "paragraph_permutation",
            Modification::ParagraphDeletion => "paragraph_deletion",
            Modification::ParagraphAddition => "paragraph_addition",
            Modification::SentenceReordering => "sentence_reordering",
            Modification::WordReplacement => "word_replacement",
            Modification::LetterReplacement => "letter_replacement",
            Modification::Homoglyphs => "homoglyphs",
            Modification::LookAlikeWords => "look_alike_words",
            Modification::Transliteration => "transliteration",
            Modification::ZeroWidth => "zero_width",
            Modification::LetterSpacing => "letter_spacing",
            Modification::RepeatedParagraphs => "repeated_paragraphs",
            Modification::Noise => "noise",
            Modification::WordDeletion => "word_deletion",
            Modification::WordInsertion => "word_insertion",
            Modification::PartialCopy => "partial_copy",
            Modification::QuotedCopy => "quoted_copy",
            Modification::RepeatedCopy => "repeated_copy",
            Modification::ManySources => "many_sources",
            Modification::NegativeUnrelated => "negative_unrelated",
            Modification::NegativeSameTopic => "negative_same_topic",
        }
    }

    /// The default kinds, in declaration order: every kind but those asked for by name (the
    /// look-alike words, transliteration, zero-width and letter spacing disguises, quoted and
    /// repeated copies, many sources).
    pub fn all() -> &'static [Modification] {
        &ALL_MODIFICATIONS
    }

    /// Whether queries of this kind derive from no library document.
    pub fn is_negative(&self) -> bool {
        matches!(
            self,
            Modification::NegativeUnrelated | Modification::NegativeSameTopic
        )
    }

    /// Whether a query of this kind is a near-duplicate of its source (not a partial copy, not
    /// a negative).
    pub fn expects_duplicate(&self) -> bool {
        !self.is_negative() && !self.is_partial()
    }

    /// Whether a query of this kind holds a passage of its source inside a foreign text.
    pub fn is_partial(&self) -> bool {
        matches!(
            self,
            Modification::PartialCopy
                | Modification::QuotedCopy
                | Modification::RepeatedCopy
                | Modification::ManySources
        )
    }
}

/// What to generate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GenOptions {
    /// Seed of every random choice.
    pub seed: u64,
    /// Degrees of modification, each the share of the document changed (`0.10` = 10 %).
    /// Values are clamped to `[0, 1]`; non-finite values and repeats are dropped. No levels, no
    /// queries: kinds that ignore the level still produce theirs once per level.
    pub levels: Vec<f64>,
    /// Queries per (kind, level).
    pub per_kind: usize,
    /// The kinds to generate (repeats are dropped).
    pub kinds: Vec<Modification>,
    /// The smallest passage a partial copy takes, in words; passages run up to about three
    /// times this.
    pub partial_min_words: usize,
    /// Documents with fewer words are not used at all: neither as sources nor as negatives,
    /// hosts or added material (short records are mostly titles and stubs).
    pub min_source_words: usize,
}

impl Default for GenOptions {
    fn default() -> GenOptions {
        GenOptions {
            seed: 1,
            levels: vec![0.05, 0.10, 0.20],
            per_kind: 20,
            kinds: Modification::all().to_vec(),
            partial_min_words: 50,
            min_source_words: 50,
        }
    }
}

/// A check query and the truth about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Query {
    /// Unique within a generated set: `kind-level-index`, e.g. `word_replacement-0.10-17`.
    pub id: String,
    /// How the query was made.
    pub kind: Modification,
    /// The share of the document changed (recorded even for kinds that ignore it).
    pub level: f64,
    /// The text to check.
    pub text: String,
    /// The library document the query derives from; `None` for negatives.
    #[serde(default)]
    pub source: Option<String>,
    /// Whether the check should report the source as a near-duplicate: true for the
    /// near-duplicate kinds, false for partial copies and negatives.
    pub expect_duplicate: bool,
    /// Partial copy: where the copied passage lies in `text`, in code points.
    #[serde(default)]
    pub query_span: Option<Span>,
    /// Partial copy: where the passage was taken from in the source's text, in code points.
    #[serde(default)]
    pub source_span: Option<Span>,
}

pub use dupfinder_check::Span;

/// Generates `per_kind` queries for every kind and level of `options`: positives and partial
/// copies from `docs` (the library), negatives, partial-copy hosts and added material from
/// `foreign` (documents not in the library).
///
/// Each query draws the next source document of a seeded shuffle of the eligible library
/// documents (round-robin, so sources repeat only once all were used); a document that cannot
/// take a modification is passed over for the next. Kinds that need foreign documents produce
/// nothing without them, and a query whose candidates all fail is left out, so the result may
/// hold fewer queries than asked for. The output is a pure function of the inputs.
pub fn generate(docs: &[SourceDoc], foreign: &[SourceDoc], options: &GenOptions) -> Vec<Query> {
    let mut kinds: Vec<Modification> = Vec::new();
    for kind in &options.kinds {
        if !kinds.contains(kind) {
            kinds.push(*kind);
        }
    }
    let mut levels: Vec<f64> = Vec::new();
    for level in options.levels.iter().filter(|l| l.is_finite()) {
        let level = level.clamp(0.0, 1.0);
        if !levels.contains(&level) {
            levels.push(level);
        }
    }
    if kinds.is_empty() || levels.is_empty() || options.per_kind == 0 {
        return Vec::new();
    }
    let prepared = Prepared::new(docs, foreign, options, &kinds);
    let mut cursors = Cursors::default();
    let mut queries = Vec::new();
    for &kind in &kinds {
        // The declaration index: stable while the enum's order is.
        let kind_label = kind as u64;
        for &level in &levels {
            for index in 0..options.per_kind {
                let mut rng =
                    Rng::derive(options.seed, &[kind_label, level.to_bits(), index as u64]);
                let id = format!("{}-{}-{index}", kind.name(), level_label(level));
                if let Some(query) = prepared.query(kind, level, id, &mut rng, &mut cursors) {
                    queries.push(query);
                }
            }
        }
    }
    queries
}

/// The level as it appears in query ids: two decimals (`0.10`) unless that would lose
/// precision, so ids stay readable and distinct levels never share an id.
fn level_label(level: f64) -> String {
    let short = format!("{level:.2}");
    if short.parse::<f64>() == Ok(level) {
        short
    } else {
        format!("{level}")
    }
}

/// Serializes queries as JSON Lines, one query per line, each line ending in `\n`.
pub fn to_json_lines(queries: &[Query]) -> String {
    let mut out = String::new();
    for query in queries {
        // A Query holds only strings, numbers, booleans and options of them: serializing it
        // cannot fail.
        out.push_str(&serde_json::to_string(query).expect("a Query always serializes"));
        out.push('\n');
    }
    out
}

/// Parses one line written by [`to_json_lines`].
pub fn from_json_line(line: &str) -> Result<Query, serde_json::Error> {
    serde_json::from_str(line)
}

#[cfg(test)]
mod tests {
    use super::fixtures::{arb_text, corpus, doc, document, numbered, options, source_text};
    use super::text::{Script, differs_beyond_whitespace, word_count, words};
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn same_seed_same_output_other_seed_other_output() {
        let (docs, foreign) = corpus();
        let first = generate(&docs, &foreign, &GenOptions::default());
        let again = generate(&docs, &foreign, &GenOptions::default());
        assert!(!first.is_empty());
        assert_eq!(to_json_lines(&first), to_json_lines(&again));
        let other = generate(
            &docs,
            &foreign,
            &GenOptions {
                seed: 2,
                ..GenOptions::default()
            },
        );
        assert_eq!(first.len(), other.len());
        let differing = first
            .iter()
            .zip(&other)
            .filter(|(a, b)| a.text != b.text)
            .count();
        assert!(
            differing > first.len() / 2,
            "{differing} of {}",
            first.len()
        );
    }

    #[test]
    fn every_kind_gives_valid_queries_that_differ_from_the_source() {
        let (docs, foreign) = corpus();
        let queries = generate(
            &docs,
            &foreign,
            &options(Modification::all(), &[0.05, 0.1, 0.2], 3),
        );
        for kind in Modification::all() {
            assert_eq!(
                queries.iter().filter(|q| q.kind == *kind).count(),
                9,
                "{kind:?}"
            );
        }
        for query in &queries {
            assert!(!query.text.trim().is_empty(), "{}", query.id);
            assert_eq!(query.expect_duplicate, query.kind.expects_duplicate());
            if query.kind.is_negative() {
                continue;
            }
            let source = source_text(&docs, query);
            if query.kind == Modification::Exact {
                assert_eq!(query.text, source);
            } else {
                assert!(
                    differs_beyond_whitespace(&query.text, source),
                    "{}",
                    query.id
                );
            }
        }
    }

    #[test]
    fn negatives_have_no_source_and_are_foreign_texts() {
        let (docs, foreign) = corpus();
        let kinds = [
            Modification::NegativeUnrelated,
            Modification::NegativeSameTopic,
        ];
        let queries = generate(&docs, &foreign, &options(&kinds, &[0.1], 5));
        assert_eq!(queries.len(), 10);
        for query in &queries {
            assert_eq!(query.source, None);
            assert!(!query.expect_duplicate);
            assert!(query.query_span.is_none() && query.source_span.is_none());
            assert!(foreign.iter().any(|d| d.text == query.text));
        }
    }

    #[test]
    fn same_topic_negatives_take_the_closest_foreign_documents_first() {
        let (docs, mut foreign) = corpus();
        // A foreign document on the library's topic 0, and an exact copy of a library document,
        // which must not be offered as a negative.
        foreign.push(doc("on_topic", document(500, 0, false)));
        foreign.push(doc("copy", docs[3].text.clone()));
        let queries = generate(
            &docs,
            &foreign,
            &options(&[Modification::NegativeSameTopic], &[0.1], 3),
        );
        assert_eq!(queries[0].text, foreign[7].text);
        assert!(queries.iter().all(|q| q.text != docs[3].text));
        assert_ne!(queries[1].text, queries[0].text);
        assert_ne!(queries[2].text, queries[1].text);
    }

    #[test]
    fn ids_are_unique_and_levels_recorded() {
        let (docs, foreign) = corpus();
        let levels = [0.05, 0.1, 0.125, 0.1];
        let queries = generate(&docs, &foreign, &options(Modification::all(), &levels, 2));
        let mut ids: Vec<&str> = queries.iter().map(|q| q.id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), queries.len());
        assert!(ids.contains(&"word_replacement-0.10-1"));
        assert!(ids.contains(&"partial_copy-0.125-0"));
        assert!(
            queries
                .iter()
                .all(|q| [0.05, 0.1, 0.125].contains(&q.level))
        );
    }

    #[test]
    fn sources_are_drawn_round_robin() {
        let (docs, foreign) = corpus();
        let kinds = [
            Modification::WordReplacement,
            Modification::Noise,
            Modification::Exact,
        ];
        let queries = generate(&docs, &foreign, &options(&kinds, &[0.1, 0.2], 2));
        let mut sources: Vec<&str> = queries.iter().filter_map(|q| q.source.as_deref()).collect();
        assert_eq!(sources.len(), 12);
        sources.sort_unstable();
        sources.dedup();
        assert_eq!(sources.len(), 12, "every one of the 12 documents used once");
    }

    #[test]
    fn short_documents_are_not_used() {
        let (mut docs, mut foreign) = corpus();
        docs.push(doc("short", "Only a few words here.".to_string()));
        foreign.push(doc("short_foreign", "Few words. Too few.".to_string()));
        let queries = generate(&docs, &foreign, &options(Modification::all(), &[0.1], 20));
        assert!(queries.iter().all(|q| q.source.as_deref() != Some("short")));
        assert!(queries.iter().all(|q| !q.text.contains("Too few")));
    }

    #[test]
    fn word_replacement_changes_about_the_level_of_words() {
        let (docs, foreign) = corpus();
        let queries = generate(
            &docs,
            &foreign,
            &options(&[Modification::WordReplacement], &[0.1], 12),
        );
        assert_eq!(queries.len(), 12);
        for query in &queries {
            let before: Vec<&str> = words(source_text(&docs, query)).collect();
            let after: Vec<&str> = words(&query.text).collect();
            assert_eq!(before.len(), after.len());
            let changed = before.iter().zip(&after).filter(|(a, b)| a != b).count();
            let share = changed as f64 / before.len() as f64;
            assert!((share - 0.1).abs() <= 0.01, "{}: {share}", query.id);
            // Only the words changed: punctuation and whitespace are as they were.
            let strip = |t: &str| {
                t.chars()
                    .filter(|c| !c.is_alphanumeric())
                    .collect::<String>()
            };
            assert_eq!(strip(&query.text), strip(source_text(&docs, query)));
        }
    }

    #[test]
    fn homoglyph_queries_contain_mixed_script_words() {
        let (docs, foreign) = corpus();
        let mixed = |text: &str| {
            words(text)
                .filter(|w| {
                    let scripts: Vec<Script> = w.chars().map(Script::of).collect();
                    scripts.contains(&Script::Latin) && scripts.contains(&Script::Cyrillic)
                })
                .count()
        };
        let queries = generate(
            &docs,
            &foreign,
            &options(&[Modification::Homoglyphs], &[0.05, 0.2], 12),
        );
        assert_eq!(queries.len(), 24);
        for query in &queries {
            assert_eq!(mixed(source_text(&docs, query)), 0);
            assert!(mixed(&query.text) > 0, "{}", query.id);
        }
    }

    #[test]
    fn sentence_deletion_removes_about_the_level_of_words() {
        let (docs, foreign) = corpus();
        let queries = generate(
            &docs,
            &foreign,
            &options(&[Modification::ParagraphDeletion], &[0.2], 12),
        );
        for query in &queries {
            let before = word_count(source_text(&docs, query));
            let removed = before - word_count(&query.text);
            // Whole sentences (at most 16 words here) are removed, so the target is met within
            // about one sentence.
            let target = (0.2 * before as f64).round() as usize;
            assert!(
                removed.abs_diff(target) <= 16,
                "{}: {removed} of {before}",
                query.id
            );
        }
    }

    #[test]
    fn kinds_needing_foreign_documents_are_skipped_without_them() {
        let (docs, _) = corpus();
        let queries = generate(&docs, &[], &options(Modification::all(), &[0.1], 2));
        let produced: Vec<Modification> = queries.iter().map(|q| q.kind).collect();
        for kind in [
            Modification::ParagraphAddition,
            Modification::PartialCopy,
            Modification::NegativeUnrelated,
            Modification::NegativeSameTopic,
        ] {
            assert!(!produced.contains(&kind), "{kind:?}");
        }
        assert!(produced.contains(&Modification::WordInsertion));
        assert!(generate(&[], &[], &GenOptions::default()).is_empty());
        let (_, foreign) = corpus();
        let only_negatives = generate(&[], &foreign, &GenOptions::default());
        assert!(only_negatives.iter().all(|q| q.kind.is_negative()));
        assert!(generate(&docs, &foreign, &options(Modification::all(), &[], 5)).is_empty());
    }

    #[test]
    fn json_lines_roundtrip_and_serde_names() {
        let (docs, foreign) = corpus();
        let queries = generate(&docs, &foreign, &options(Modification::all(), &[0.1], 1));
        let lines = to_json_lines(&queries);
        assert_eq!(lines.lines().count(), queries.len());
        let back: Vec<Query> = lines.lines().map(|l| from_json_line(l).unwrap()).collect();
        assert_eq!(back, queries);
        for kind in Modification::all() {
            assert_eq!(
                serde_json::to_string(kind).unwrap(),
                format!("\"{}\"", kind.name())
            );
        }
        assert_eq!(Modification::all().len(), 15);
        assert!(from_json_line("{\"id\": 1}").is_err());
    }

    /// Structured texts, arbitrary printable strings, and texts made of punctuation and breaks.
    fn arb_any_text() -> impl Strategy<Value = String> {
        prop_oneof![
            arb_text(),
            "\\PC{0,300}",
            "[ \n\t.!?…。a-zA-Zа-яА-Я1]{0,120}"
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]


        #[test]
        fn any_text_gives_valid_queries(
            sources in prop::collection::vec(arb_any_text(), 1..4),
            hosts in prop::collection::vec(arb_any_text(), 0..3),
            seed in any::<u64>(),
            level in 0.0f64..0.5,
        ) {
            let (docs, foreign) = (numbered("d", sources), numbered("f", hosts));
            let options = GenOptions {
                seed,
                partial_min_words: 3,
                min_source_words: 1,
                ..options(Modification::all(), &[level], 2)
            };
            for query in generate(&docs, &foreign, &options) {
                prop_assert!(!query.text.trim().is_empty());
                prop_assert_eq!(query.source.is_none(), query.kind.is_negative());
                if query.kind.is_negative() || query.kind == Modification::Exact {
                    continue;
                }
                prop_assert!(differs_beyond_whitespace(&query.text, source_text(&docs, &query)));
            }
        }
    }
}
