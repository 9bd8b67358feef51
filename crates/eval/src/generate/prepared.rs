//! One run of the generator: what is computed once over the whole corpora (the usable
//! documents in seeded order, the vocabulary pool, the same-topic ranking, the donors of added
//! paragraphs), and each query made from it.

use super::modify::{self, Material};
use super::partial::{MANY_SOURCES_OTHERS, SHORT_COPY_WORDS, partial_copy, repeat_opening};
use super::pool::{WordPool, rank_by_topic};
use super::rng::Rng;
use super::text::{Script, differs_beyond_whitespace, word_count};
use super::{GenOptions, Modification, Query, SourceDoc, Span};

/// How many candidate sources a query tries before it is given up (a kind that does not fit
/// most documents, such as homoglyphs in a Chinese library, must not scan the whole library
/// for every query).
const MAX_SOURCE_ATTEMPTS: usize = 100;

/// Bounds for the one-off preparations over whole corpora, so a very large corpus costs
/// bounded time and memory. The vocabulary pool reads at most this many documents of each side
/// (plenty for word substitutes); the same-topic ranking compares at most this many foreign
/// with this many library documents. The first of the seeded shuffles are taken.
const POOL_DOCS_PER_SIDE: usize = 1_000;
const TOPIC_LIBRARY_DOCS: usize = 5_000;
const TOPIC_FOREIGN_DOCS: usize = 2_000;

/// Stream labels for [`Rng::derive`], distinct from each other and from query streams.
const STREAM_LIBRARY: u64 = u64::MAX;
const STREAM_FOREIGN: u64 = u64::MAX - 1;

/// Round-robin positions, shared by all queries of a run.
#[derive(Debug, Default)]
pub(super) struct Cursors {
    library: usize,
    foreign: usize,
    same_topic: usize,
}

/// Everything computed once per run.
pub(super) struct Prepared<'a> {
    docs: &'a [SourceDoc],
    foreign: &'a [SourceDoc],
    partial_min_words: usize,
    /// Indices into `docs` with enough words, in seeded random order.
    library: Vec<usize>,
    /// Indices into `foreign` with enough words (negatives and hosts), in seeded random order.
    foreign_usable: Vec<usize>,
    /// Indices into `foreign`, closest to the library's vocabulary first.
    same_topic: Vec<usize>,
    pool: WordPool,
    donors: Vec<(&'a str, Script)>,
}

impl<'a> Prepared<'a> {
    pub(super) fn new(
        docs: &'a [SourceDoc],
        foreign: &'a [SourceDoc],
        options: &GenOptions,
        kinds: &[Modification],
    ) -> Self {
        let min_words = options.min_source_words.max(1);
        let usable = |set: &[SourceDoc], stream: u64| {
            let mut picked: Vec<usize> = (0..set.len())
                .filter(|&i| word_count(&set[i].text) >= min_words)
                .collect();
            Rng::derive(options.seed, &[stream]).shuffle(&mut picked);
            picked
        };
        let library = usable(docs, STREAM_LIBRARY);
        let foreign_usable = usable(foreign, STREAM_FOREIGN);

        let pool = if kinds.iter().any(|k| {
            matches!(
                k,
                Modification::WordReplacement | Modification::WordInsertion
            )
        }) {
            let library_texts = library
                .iter()
                .take(POOL_DOCS_PER_SIDE)
                .map(|&i| docs[i].text.as_str());
            let foreign_texts = foreign_usable
                .iter()
                .take(POOL_DOCS_PER_SIDE)
                .map(|&i| foreign[i].text.as_str());
            WordPool::build(foreign_texts.chain(library_texts))
        } else {
            WordPool::default()
        };
        let same_topic = if kinds.contains(&Modification::NegativeSameTopic) {
            let library_texts: Vec<&str> = library
                .iter()
                .take(TOPIC_LIBRARY_DOCS)
                .map(|&i| docs[i].text.as_str())
                .collect();
            let foreign_texts: Vec<(usize, &str)> = foreign_usable
                .iter()
                .take(TOPIC_FOREIGN_DOCS)
                .map(|&i| (i, foreign[i].text.as_str()))
                .collect();
            rank_by_topic(&library_texts, &foreign_texts)
        } else {
            Vec::new()
        };
        let donors = if kinds.contains(&Modification::ParagraphAddition) {
            let texts = foreign_usable.iter().map(|&i| foreign[i].text.as_str());
            texts.map(|t| (t, Script::dominant(t))).collect()
        } else {
            Vec::new()
        };
        Prepared {
            docs,
            foreign,
            partial_min_words: options.partial_min_words.max(1),
            library,
            foreign_usable,
            same_topic,
            pool,
            donors,
        }
    }

    pub(super) fn query(
        &self,
        kind: Modification,
        level: f64,
        id: String,
        rng: &mut Rng,
        cursors: &mut Cursors,
    ) -> Option<Query> {
        let query = |text: String, source: Option<&SourceDoc>| Query {
            id: id.clone(),
            kind,
            level,
            text,
            source: source.map(|d| d.id.clone()),
            expect_duplicate: kind.expects_duplicate(),
            query_span: None,
            source_span: None,
        };
        // A partial copy: the query holds the copied passage, and says where it lies in both.
        let copied =
            |(source, (text, query_span, source_span)): (&SourceDoc, (String, Span, Span))| Query {
                query_span: Some(query_span),
                source_span: Some(source_span),
                ..query(text, Some(source))
            };
        match kind {
            Modification::NegativeUnrelated => {
                let doc = &self.foreign[next_in(&self.foreign_usable, &mut cursors.foreign)?];
                Some(query(doc.text.clone(), None))
            }
            Modification::NegativeSameTopic => {
                let doc = &self.foreign[next_in(&self.same_topic, &mut cursors.same_topic)?];
                Some(query(doc.text.clone(), None))
            }
            Modification::ManySources => {
                let host = self.host(cursors.foreign)?;
                let n = self.library.len();
                if n <= MANY_SOURCES_OTHERS {
                    return None;
                }
                // The other sources: the library documents after the cursor, whole.
                let mut long = String::new();
                for k in 1..=MANY_SOURCES_OTHERS {
                    let other = &self.docs[self.library[(cursors.library + k * 7) % n]];
                    long.push_str(other.text.trim());
                    long.push_str("\n\n");
                }
                long.push_str(&host.text);
                let copy = self.with_source(&mut cursors.library, |doc| {
                    partial_copy(&doc.text, &long, SHORT_COPY_WORDS, false, rng)
                })?;
                cursors.foreign += 1;
                Some(copied(copy))
            }
            Modification::PartialCopy | Modification::QuotedCopy | Modification::RepeatedCopy => {
                let quoted = kind == Modification::QuotedCopy;
                let repeated = kind == Modification::RepeatedCopy;
                let host = self.host(cursors.foreign)?;
                let copy = self.with_source(&mut cursors.library, |doc| {
                    let copy =
                        partial_copy(&doc.text, &host.text, self.partial_min_words, quoted, rng)?;
                    if repeated {
                        repeat_opening(copy)
                    } else {
                        Some(copy)
                    }
                })?;
                cursors.foreign += 1;
                Some(copied(copy))
            }
            _ => {
                let material = Material {
                    pool: &self.pool,
                    donors: &self.donors,
                };
                let (source, text) = self.with_source(&mut cursors.library, |doc| {
                    modify::apply(kind, level, &doc.text, rng, &material).filter(|text| {
                        !text.trim().is_empty()
                            && (kind == Modification::Exact
                                || differs_beyond_whitespace(text, &doc.text))
                    })
                })?;
                Some(query(text, Some(source)))
            }
        }
    }

    /// The usable foreign document at `cursor`, for a partial copy to be placed in; the caller
    /// moves the cursor on once the copy is made.
    fn host(&self, cursor: usize) -> Option<&'a SourceDoc> {
        let at = cursor % self.foreign_usable.len().max(1);
        Some(&self.foreign[*self.foreign_usable.get(at)?])
    }

    /// Tries the library documents from the cursor on until `make` succeeds; the cursor then
    /// points past the document used.
    fn with_source<T>(
        &self,
        cursor: &mut usize,
        mut make: impl FnMut(&SourceDoc) -> Option<T>,
    ) -> Option<(&'a SourceDoc, T)> {
        let n = self.library.len();
        let attempts = n.min(MAX_SOURCE_ATTEMPTS);
        for attempt in 0..attempts {
            let at = (*cursor + attempt) % n;
            let doc = &self.docs[self.library[at]];
            if let Some(made) = make(doc) {
                *cursor = at + 1;
                return Some((doc, made));
            }
        }
        *cursor += attempts;
        None
    }
}

/// The next element of a round-robin over `items`.
fn next_in(items: &[usize], cursor: &mut usize) -> Option<usize> {
    let item = *items.get(*cursor % items.len().max(1))?;
    *cursor += 1;
    Some(item)
}
