//! Phrases in long texts, whose words are counted in `body_terms` without positions.
//!
//! A full paper's positions would cost it ~8 KB, a fifth of its data directory, and only a
//! browse search's phrases ask for them. So a phrase over a long text is found in two steps:
//! the documents holding all its words (the postings' conjunction, scored by BM25 as any words
//! are), then, for each, the order of its terms read in its stored term sequence — the same
//! order the positions would have given, since both count the analysed tokens one by one.
//!
//! Reading a document back costs a few hundred microseconds (its block decompressed, its terms
//! and their order decoded), so a search confirms at most [`PHRASE_CHECKS`] of them: the best
//! its phrases' words rank (`search.rs`), each read once for all the search's phrases
//! ([`PhraseBook`]). When more documents hold the words, the search says
//! its total is a lower bound: a phrase of common words over a large archive is answered in
//! bounded time, its hits the best of those confirmed, and says so.

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use parking_lot::{Mutex, RwLock};
use rustc_hash::FxHashMap;

use tantivy::index::SegmentId;
use tantivy::query::{
    BooleanQuery, EnableScoring, Explanation, Occur, Query, Scorer, TermQuery, Weight,
};
use tantivy::schema::{Field, IndexRecordOption, Term};
use tantivy::store::StoreReader;
use tantivy::{DocId, DocSet, Score, SegmentReader, TERMINATED, TantivyError};

use super::document::TermCounts;
use super::encoding::{decode_compact_counts, term_places};
use super::raw::{RawDocument, StoredFields};

/// The most documents one search reads back to confirm its phrases' order: the best its
/// phrases' words rank.
pub const PHRASE_CHECKS: usize = 2_000;

/// How many confirmations a search has left, shared by its phrases and segments.
#[derive(Debug)]
pub(crate) struct PhraseBudget {
    left: AtomicUsize,
    spent: AtomicBool,
}

impl PhraseBudget {
    pub(crate) fn new(checks: usize) -> Arc<Self> {
        Arc::new(PhraseBudget {
            left: AtomicUsize::new(checks),
            spent: AtomicBool::new(false),
        })
    }

    /// Takes one confirmation; `false` (and the budget marked spent) when none is left.
    fn take(&self) -> bool {
        let taken = self
            .left
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(1)
            })
            .is_ok();
        if !taken {
            self.spent.store(true, Ordering::Relaxed);
        }
        taken
    }

    /// Whether a document was left unconfirmed for want of budget.
    pub(crate) fn spent(&self) -> bool {
        self.spent.load(Ordering::Relaxed)
    }
}

/// One word of a phrase: its term, or, for the last word of a prefix phrase (`"word sen"*`),
/// the start every term it stands for begins with.
#[derive(Debug, Clone, PartialEq)]
struct PhraseWord {
    text: String,
    prefix: bool,
}

/// A phrase as its words are checked in a term sequence.
#[derive(Debug, Clone, PartialEq)]
struct Phrase {
    words: Vec<PhraseWord>,
    /// The most words that may stand between the phrase's words, in all (`"…"~slop`).
    slop: u32,
}

/// Where a stored document keeps what a phrase is checked against.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SequenceFields {
    pub(crate) term_counts: Field,
    pub(crate) term_seq: Field,
}

/// The phrases of one search and what each long text it read holds of them. A document is read
/// and decoded once, when a phrase first asks for it, and every phrase of the search is checked
/// in it then: a query of many phrases whose words the same papers hold costs one read of each,
/// not one for each phrase, and no phrase spends the budget the others need.
#[derive(Debug)]
pub(crate) struct PhraseBook {
    fields: SequenceFields,
    /// Every phrase of the search, each once; complete before the search runs.
    phrases: RwLock<Vec<Phrase>>,
    /// For each document read, whether it holds each phrase (in the order above).
    read: Mutex<FxHashMap<(SegmentId, DocId), Found>>,
}

/// Whether a document holds each phrase of a [`PhraseBook`].
type Found = Arc<[bool]>;

impl PhraseBook {
    pub(crate) fn new(fields: SequenceFields) -> Arc<Self> {
        Arc::new(PhraseBook {
            fields,
            phrases: RwLock::default(),
            read: Mutex::default(),
        })
    }

    /// The number of `phrase` in the book, added if it is new.
    fn add(&self, phrase: Phrase) -> usize {
        let mut phrases = self.phrases.write();
        match phrases.iter().position(|known| *known == phrase) {
            Some(which) => which,
            None => {
                phrases.push(phrase);
                phrases.len() - 1
            }
        }
    }

    /// Whether document `doc` of `segment` holds phrase `which`: read from `store`, if no phrase
    /// read it yet, while `budget` lasts (`None` when it is spent).
    fn holds(
        &self,
        which: usize,
        segment: SegmentId,
        store: &StoreReader,
        doc: DocId,
        budget: &PhraseBudget,
    ) -> Option<bool> {
        if let Some(&holds) = self
            .read
            .lock()
            .get(&(segment, doc))
            .and_then(|found| found.get(which))
        {
            return Some(holds);
        }
        if !budget.take() {
            return None;
        }
        let found: Arc<[bool]> =
            holds_phrases(&self.phrases.read(), self.fields, store, doc).into();
        let holds = found.get(which).copied().unwrap_or(false);
        self.read.lock().insert((segment, doc), found);
        Some(holds)
    }
}

/// A phrase over a field without positions, confirmed against each document's term sequence.
#[derive(Debug, Clone)]
pub(crate) struct SequencePhraseQuery {
    /// The phrase's number in `book`.
    which: usize,
    /// The conjunction of the phrase's whole words in the field: the candidates, and their
    /// score.
    words_query: BooleanQuery,
    terms: Vec<Term>,
    book: Arc<PhraseBook>,
    budget: Arc<PhraseBudget>,
    confirm: Confirm,
}

impl SequencePhraseQuery {
    /// A phrase of `words` (analysed terms, in order; at least two) in `field`, entered in
    /// `book`; with `prefix`, the last word stands for any term beginning with it; confirmed
    /// where `confirm` says, while `budget` lasts.
    pub(crate) fn new(
        field: Field,
        words: Vec<String>,
        slop: u32,
        prefix: bool,
        book: Arc<PhraseBook>,
        budget: Arc<PhraseBudget>,
        confirm: Confirm,
    ) -> Self {
        let last = words.len().saturating_sub(1);
        let words: Vec<PhraseWord> = words
            .into_iter()
            .enumerate()
            .map(|(i, text)| PhraseWord {
                text,
                prefix: prefix && i == last,
            })
            .collect();
        let mut terms: Vec<Term> = words
            .iter()
            .filter(|word| !word.prefix)
            .map(|word| Term::from_field_text(field, &word.text))
            .collect();
        terms.sort();
        terms.dedup();
        let words_query = BooleanQuery::new(
            terms
                .iter()
                .map(|term| {
                    let query = TermQuery::new(term.clone(), IndexRecordOption::WithFreqs);
                    (Occur::Must, Box::new(query) as Box<dyn Query>)
                })
                .collect(),
        );
        SequencePhraseQuery {
            which: book.add(Phrase { words, slop }),
            words_query,
            terms,
            book,
            budget,
            confirm,
        }
    }
}

impl Query for SequencePhraseQuery {
    fn weight(&self, enable_scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        if let Confirm::No = self.confirm {
            return self.words_query.weight(enable_scoring);
        }
        Ok(Box::new(SequencePhraseWeight {
            words: self.words_query.weight(enable_scoring)?,
            phrase: Arc::new(self.clone()),
        }))
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        for term in &self.terms {
            visitor(term, true);
        }
    }
}

struct SequencePhraseWeight {
    words: Box<dyn Weight>,
    phrase: Arc<SequencePhraseQuery>,
}

impl Weight for SequencePhraseWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let mut scorer = SequencePhraseScorer {
            words: self.words.scorer(reader, boost)?,
            // A candidate is read once: its block is rarely another's (a long text fills one).
            store: reader.get_store_reader(1)?,
            phrase: self.phrase.clone(),
            segment: reader.segment_id(),
            only: match &self.phrase.confirm {
                Confirm::Only(candidates) => Some(
                    candidates
                        .get(&reader.segment_id())
                        .cloned()
                        .unwrap_or_default(),
                ),
                _ => None,
            },
            ended: false,
        };
        scorer.settle();
        Ok(Box::new(scorer))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let store = reader.get_store_reader(1)?;
        let book = &self.phrase.book;
        let phrase = &book.phrases.read()[self.phrase.which];
        if !holds_phrases(std::slice::from_ref(phrase), book.fields, &store, doc)[0] {
            return Err(TantivyError::InvalidArgument(format!(
                "document {doc} does not hold the phrase"
            )));
        }
        self.words.explain(reader, doc)
    }
}

/// Each segment's documents, ascending: the long texts a search confirms its phrases in.
pub(crate) type Candidates = Arc<FxHashMap<SegmentId, Vec<DocId>>>;

/// Where a phrase is confirmed.
#[derive(Debug, Clone)]
pub(crate) enum Confirm {
    /// Nowhere: the words' conjunction alone, a superset of the phrase's documents, which a
    /// search ranks to choose the candidates it confirms.
    No,
    /// In every document holding the words, while the budget lasts; after it, the words hold
    /// for the phrase. For a phrase the query excludes (more documents holding it, fewer hits).
    All,
    /// In the given candidates only; any other document does not hold the phrase.
    Only(Candidates),
}

/// The candidates holding every word, passed over until one holds the phrase.
struct SequencePhraseScorer {
    words: Box<dyn Scorer>,
    store: StoreReader,
    phrase: Arc<SequencePhraseQuery>,
    segment: SegmentId,
    /// The segment's candidates, when only they are confirmed.
    only: Option<Vec<DocId>>,
    /// The budget ran out: no candidate is confirmed any more.
    ended: bool,
}

impl SequencePhraseScorer {
    /// Moves on from the current candidate (included) to the first that holds the phrase.
    fn settle(&mut self) -> DocId {
        let mut doc = self.words.doc();
        let phrase = &self.phrase;
        while doc != TERMINATED {
            if let Some(only) = &self.only
                && only.binary_search(&doc).is_err()
            {
                doc = self.words.advance();
                continue;
            }
            match phrase
                .book
                .holds(phrase.which, self.segment, &self.store, doc, &phrase.budget)
            {
                Some(true) => return doc,
                Some(false) => doc = self.words.advance(),
                // An excluded phrase is taken to hold where it was not read: the search then
                // leaves out what it could not confirm, and its total stays a lower bound.
                None if matches!(phrase.confirm, Confirm::All) => return doc,
                None => {
                    // Counted as not holding it, as is every candidate after it.
                    self.ended = true;
                    return TERMINATED;
                }
            }
        }
        TERMINATED
    }
}

impl DocSet for SequencePhraseScorer {
    fn advance(&mut self) -> DocId {
        if self.ended {
            return TERMINATED;
        }
        self.words.advance();
        self.settle()
    }

    fn seek(&mut self, target: DocId) -> DocId {
        if self.ended {
            return TERMINATED;
        }
        if self.words.doc() < target {
            self.words.seek(target);
        }
        self.settle()
    }

    fn doc(&self) -> DocId {
        match self.ended {
            true => TERMINATED,
            false => self.words.doc(),
        }
    }

    fn size_hint(&self) -> u32 {
        self.words.size_hint()
    }

    fn cost(&self) -> u64 {
        // Each candidate is read from the store: dearer than any postings to go through.
        self.words.cost().saturating_mul(64)
    }
}

impl Scorer for SequencePhraseScorer {
    fn score(&mut self) -> Score {
        self.words.score()
    }
}

/// Whether document `doc` of `store` holds each of `phrases`' words in order. A document that
/// cannot be read holds none: a search has no error to give for one document, and a check
/// reports it where it reads it.
fn holds_phrases(
    phrases: &[Phrase],
    fields: SequenceFields,
    store: &StoreReader,
    doc: DocId,
) -> Vec<bool> {
    let read = || {
        let raw = store
            .get_document_bytes(doc)
            .ok()
            .and_then(RawDocument::parse)?;
        let counts =
            decode_compact_counts(raw.first_bytes(fields.term_counts).unwrap_or_default())?;
        let places = term_places(raw.first_bytes(fields.term_seq)?, &counts)?;
        Some((Positions::new(&places, counts.len())?, counts))
    };
    let Some((positions, counts)) = read() else {
        return vec![false; phrases.len()];
    };
    phrases
        .iter()
        .map(|phrase| {
            let wanted: Option<Vec<Range<u32>>> = phrase
                .words
                .iter()
                .map(|word| places_of(&counts, word))
                .collect();
            wanted.is_some_and(|wanted| in_order(&positions, &wanted, phrase.slop))
        })
        .collect()
}

/// A document's tokens grouped by term: the positions an index would have kept, made once from
/// its term sequence for every phrase checked in it.
struct Positions {
    /// Where each term's positions begin in `positions`, and where the last ends.
    starts: Vec<u32>,
    /// Each term's positions, ascending, the terms in term order.
    positions: Vec<u32>,
}

impl Positions {
    /// The positions of `places` (each token's term, below `terms`); `None` when a place is out
    /// of range.
    fn new(places: &[u32], terms: usize) -> Option<Self> {
        let mut starts = vec![0u32; terms + 1];
        for &place in places {
            *starts.get_mut(place as usize + 1)? += 1;
        }
        for term in 0..terms {
            starts[term + 1] += starts[term];
        }
        let mut next = starts.clone();
        let mut positions = vec![0u32; places.len()];
        for (position, &place) in places.iter().enumerate() {
            let at = &mut next[place as usize];
            positions[*at as usize] = position as u32;
            *at += 1;
        }
        Some(Positions { starts, positions })
    }

    /// The positions of the terms of `run`, ascending.
    fn of(&self, run: &Range<u32>) -> Vec<u32> {
        let start = self.starts[run.start as usize] as usize;
        let end = self.starts[run.end as usize] as usize;
        let mut positions = self.positions[start..end].to_vec();
        if run.len() > 1 {
            positions.sort_unstable();
        }
        positions
    }
}

/// The places in `counts` of the terms `word` stands for (a run: terms are in term order, and
/// those beginning with a prefix follow those before it); `None` when the document has none.
fn places_of(counts: &TermCounts, word: &PhraseWord) -> Option<Range<u32>> {
    let key = word.text.as_str();
    let start = counts.partition_point(|term| term < key);
    let end = match word.prefix {
        true => counts.partition_point(|term| term < key || term.starts_with(key)),
        false => counts.partition_point(|term| term <= key),
    };
    (start < end).then_some(start as u32..end as u32)
}

/// Whether `places` (each token's term) holds the phrase whose words stand for the terms of
/// the `wanted` runs, as tantivy measures a phrase with positions: take a token for each word,
/// its position less the word's place in the phrase; the steps from each word's to the next add
/// up to at most `slop`. At 0 the words stand side by side in order; at 1 one word may stand
/// one off (a word between, or a repeated word's one token shared); two words swapped cost 2.
fn in_order(positions: &Positions, wanted: &[Range<u32>], slop: u32) -> bool {
    let Some((first, rest)) = wanted.split_first() else {
        return false;
    };
    // Each word's tokens, as positions less the word's place: ascending.
    let tokens = |word: usize, run: &Range<u32>| {
        positions
            .of(run)
            .into_iter()
            .map(move |at| i64::from(at) - word as i64)
    };
    let slop = i64::from(slop);
    // Each token of the word so far that a phrase reaches, with the least slop it spends.
    let mut reached: Vec<(i64, i64)> = tokens(0, first).map(|at| (at, 0)).collect();
    for (word, run) in rest.iter().enumerate() {
        if reached.is_empty() {
            break;
        }
        let mut from = 0;
        let mut now = Vec::new();
        for at in tokens(word + 1, run) {
            while from < reached.len() && reached[from].0 < at - slop {
                from += 1;
            }
            let least = reached[from..]
                .iter()
                .take_while(|(before, _)| *before <= at + slop)
                .map(|(before, spent)| spent + (at - before).abs())
                .filter(|&spent| spent <= slop)
                .min();
            if let Some(spent) = least {
                now.push((at, spent));
            }
        }
        reached = now;
    }
    !reached.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phrase_is_measured_as_tantivy_measures_positions() {
        // Terms: 0 a, 1 b, 2 c, 3 d.
        let text = [0, 1, 2, 3, 0, 2, 3, 1];
        let run = |place: u32| place..place + 1;
        let in_order = |text: &[u32], wanted: &[Range<u32>], slop| {
            in_order(&Positions::new(text, 4).unwrap(), wanted, slop)
        };
        assert!(in_order(&text, &[run(0), run(1), run(2)], 0));
        // "c _ b" at 5..7 is one off; "b a" (at 1, 0) swapped costs 2.
        assert!(in_order(&text, &[run(2), run(1)], 1));
        assert!(!in_order(&text, &[run(2), run(1)], 0));
        assert!(!in_order(&text, &[run(1), run(0)], 1));
        assert!(in_order(&text, &[run(1), run(0)], 2));
        // A word twice: one "d" shares its token at a slop of 1, as tantivy's phrases do.
        assert!(!in_order(&text, &[run(3), run(3)], 0));
        assert!(in_order(&text, &[run(3), run(3)], 1));
        // Steps add up: a, b, d at 0, 1, 3 spend 1.
        assert!(in_order(&text, &[run(0), run(1), run(3)], 1));
        assert!(!in_order(&text, &[run(0), run(1), run(3)], 0));
        // A prefix stands for a run of terms.
        assert!(in_order(&text, &[run(0), 1..3, run(3)], 0));
        assert!(!in_order(&text, &[], 0));
        assert!(!in_order(&[], &[run(0), run(1)], 0));
    }

    #[test]
    fn a_word_finds_its_terms_and_a_prefix_their_run() {
        let counts =
            TermCounts::from_pairs([("alpha", 1), ("beta", 2), ("betray", 1), ("gamma", 1)]);
        let word = |text: &str, prefix| PhraseWord {
            text: text.to_string(),
            prefix,
        };
        assert_eq!(places_of(&counts, &word("beta", false)), Some(1..2));
        assert_eq!(places_of(&counts, &word("bet", true)), Some(1..3));
        assert_eq!(places_of(&counts, &word("bet", false)), None);
        assert_eq!(places_of(&counts, &word("delta", false)), None);
        assert_eq!(places_of(&counts, &word("gamma", true)), Some(3..4));
    }
}
