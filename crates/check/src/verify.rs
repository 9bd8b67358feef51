//! Verification of one candidate: its stored shingles and bag of words compared with the
//! query's ([`Scores`]), the verdict ([`decide`]), and its copied passages on request.

use std::collections::HashSet;
use std::sync::OnceLock;

use rustc_hash::FxHashSet;

use rayon::prelude::*;

use super::decide::{Scores, decide, may_match, worth_reading};
use super::gather::Candidate;
use super::kinds::{Classified, KindedRange, classify, mostly_in};
use super::passages::{Chain, QueryShingles, Side, chains, passages};
use super::report::{ratio, round};
use super::similarity::{bag_similarity_of, pairs};
use super::works;
use super::{Exclusions, MatchReport, Method, NotCounted, PassageMatch, Span, Verdict};
use crate::CheckConfig;
use dupfinder_storage::ReadView;
use dupfinder_storage::index::{DocKey, IndexError, StoredForCheck};
use dupfinder_text::analysis::{AnalyzedText, Analyzer, Language, SHINGLE_WORDS, ShingleSelection};
use dupfinder_text::structure::{Part, Structure};

/// A verified match and the query tokens its passages cover, with their kinds.
pub(super) type Verified = (MatchReport, Vec<KindedRange>);

/// What verification compares a candidate with: the query and what the library ignores.
pub(super) struct Query<'a> {
    pub(super) analyzed: &'a AnalyzedText,
    pub(super) text: &'a str,
    /// The query's distinct shingles, library boilerplate left out, sorted.
    pub(super) distinct: Vec<u64>,
    /// Selected query shingles ignored as library boilerplate.
    pub(super) frequent: &'a HashSet<u64>,
    /// The library's shingle selection; the distinct query shingles it would index, sorted
    /// (those a library document holding the same passage indexes too: what tells repeated
    /// text), and those it looked up (`ShingleSelection::lookups`), sorted (the evidence a
    /// passage rests on).
    pub(super) selection: ShingleSelection,
    pub(super) selected: &'a [u64],
    pub(super) looked_up: &'a [u64],
    /// Distinct selected query shingles that were looked up.
    pub(super) sampled: usize,
    /// The query's structure, the code point span of each of its tokens, and the exclusions:
    /// what gives each passage its kind and decides whether it counts.
    pub(super) structure: &'a Structure,
    pub(super) token_chars: &'a [Span],
    pub(super) exclusions: &'a Exclusions,
    /// Analyzes a source again when a passage's source side must be located.
    pub(super) analyzer: &'a Analyzer,
    /// How many library documents hold each selected query shingle.
    pub(super) doc_freq: &'a std::collections::HashMap<u64, u64>,
    /// The shingles of the library's own boilerplate phrases, sorted.
    pub(super) phrases: &'a [u64],
    /// What this check learnt about the works holding repeated passages, through this view.
    pub(super) works: works::Works,
    /// The query's shingles indexed for aligning, made when the first source is compared.
    pub(super) aligner: OnceLock<QueryShingles<'a>>,
}

impl<'a> Query<'a> {
    fn aligner(&self) -> &QueryShingles<'a> {
        self.aligner
            .get_or_init(|| QueryShingles::new(&self.analyzed.shingles))
    }
}

/// How many candidates one read of a library fetches: one round trip per candidate dominated a
/// check on PostgreSQL (dozens of candidates share an exact copy's seed signature), and a bounded
/// chunk keeps the memory of one read small.
const READ_AHEAD: usize = 32;

/// Shingles in one read of candidates from which their scoring is spread over the cores: a
/// read of full papers (~5,000 shingles each) is, a read of abstracts (~100 each) is not.
const SPREAD_FROM_SHINGLES: usize = 16_000;

/// Calls `each` with every candidate and what `view` holds for it, scored ([`score`]): `None`
/// when the candidate is not worth reading (found by a few selected shingles alone, see
/// [`worth_reading`]) or no longer live in the view. Those worth reading are read
/// [`READ_AHEAD`] at a time through [`ReadView::stored_for_check_each`], and each read is scored
/// on rayon's threads when it holds full papers: scoring asks nothing of the library. With
/// `texts`, a full paper that matches has its text spelled there too ([`StoredForCheck::text`]
/// keeps it) and its reference lists found, since its passages will show it and passages in a
/// manuscript's references ask about them: on one thread, they were a sixth of a check.
pub(super) fn for_each_read<E: From<IndexError>>(
    view: &dyn ReadView,
    candidates: impl IntoIterator<Item = (DocKey, Candidate)>,
    query: &Query<'_>,
    config: &CheckConfig,
    texts: bool,
    mut each: impl FnMut(DocKey, Candidate, Option<(StoredForCheck, Option<Scored>)>) -> Result<(), E>,
) -> Result<(), E> {
    let (worth, skipped): (Vec<_>, Vec<_>) = candidates.into_iter().partition(|(_, c)| {
        let sampled_hits = c.hits.as_ref().map_or(0, |h| h.distinct);
        worth_reading(
            c.signed(),
            query.selection,
            sampled_hits,
            query.sampled,
            config,
        )
    });
    for (key, candidate) in skipped {
        each(key, candidate, None)?;
    }
    let mut worth = worth.into_iter();
    loop {
        let chunk: Vec<(DocKey, Candidate)> = worth.by_ref().take(READ_AHEAD).collect();
        if chunk.is_empty() {
            break;
        }
        let keys: Vec<DocKey> = chunk.iter().map(|(key, _)| *key).collect();
        let read = view.stored_for_check_each(&keys)?;
        let work: Vec<(bool, &StoredForCheck)> = chunk
            .iter()
            .zip(&read)
            .filter_map(|((_, c), stored)| {
                Some((c.methods.contains(&Method::Exact), stored.as_ref()?))
            })
            .collect();
        let shingles: usize = work.iter().map(|(_, s)| s.shingles.len()).sum();
        // The query's aligner is made here, when a source is first compared.
        let scoring = query.scoring(config);
        let scored: Vec<Option<Scored>> = if shingles >= SPREAD_FROM_SHINGLES {
            work.par_iter()
                .map(|(exact, stored)| {
                    let mut scored = score(scoring, stored, *exact)?;
                    if texts && let Some(scored) = &mut scored {
                        // A text that does not decode is reported where verification asks.
                        scored.references = stored.text().ok().map(reference_lists);
                    }
                    Ok::<_, IndexError>(scored)
                })
                .collect::<Result<_, _>>()?
        } else {
            work.iter()
                .map(|(exact, stored)| score(scoring, stored, *exact))
                .collect::<Result<_, _>>()?
        };
        let mut scored = scored.into_iter();
        for ((key, candidate), stored) in chunk.into_iter().zip(read) {
            let read = stored.map(|stored| (stored, scored.next().flatten()));
            each(key, candidate, read)?;
        }
    }
    Ok(())
}

/// What a source's shingles and terms say before the library is asked anything: its scores,
/// the chains of shared shingles its passages are made of, its distinct shingles, and the
/// verdict they decide.
pub(super) struct Scored {
    scores: Scores,
    chains: Vec<Chain>,
    doc_set: FxHashSet<u64>,
    verdict: Verdict,
    /// The source's reference lists, when they were found with its text.
    references: Option<Structure>,
}

/// What scoring reads of a [`Query`]: the parts that threads may share.
#[derive(Clone, Copy)]
pub(super) struct Scoring<'q> {
    distinct: &'q [u64],
    frequent: &'q HashSet<u64>,
    looked_up: &'q [u64],
    aligner: &'q QueryShingles<'q>,
    term_counts: &'q [(String, u32)],
    config: &'q CheckConfig,
}

impl<'a> Query<'a> {
    pub(super) fn scoring<'q>(&'q self, config: &'q CheckConfig) -> Scoring<'q> {
        Scoring {
            distinct: &self.distinct,
            frequent: self.frequent,
            looked_up: self.looked_up,
            aligner: self.aligner(),
            term_counts: &self.analyzed.term_counts,
            config,
        }
    }
}

/// Scores a source read as `stored` against the query, on all its shingles and its bag of
/// words, and decides its verdict: `None` when it is not a match.
pub(super) fn score(
    query: Scoring<'_>,
    stored: &StoredForCheck,
    exact: bool,
) -> Result<Option<Scored>, IndexError> {
    let config = query.config;
    let (mut scores, chains, doc_set) = shingle_scores(query, &stored.shingles, exact);
    if !may_match(&scores, config) {
        return Ok(None);
    }
    let counts = stored
        .term_counts()
        .ok_or_else(|| IndexError::CorruptDocument {
            doc_id: stored.meta().doc_id.clone(),
            reason: "undecodable term counts".to_string(),
        })?;
    scores.word_similarity =
        Some(bag_similarity_of(pairs(query.term_counts), counts.iter()).resemblance);
    Ok(decide(&scores, config).map(|verdict| Scored {
        scores,
        chains,
        doc_set,
        verdict,
        references: None,
    }))
}

/// Verifies one candidate, read as `stored` and scored as `scored` ([`score`]): the kinds of
/// its passages, whether they count, and its passages when `passages` asks.
#[allow(clippy::too_many_arguments)]
pub(super) fn verify(
    view: &dyn ReadView,
    library: &str,
    candidate: Candidate,
    stored: StoredForCheck,
    scored: Scored,
    query: &Query<'_>,
    config: &CheckConfig,
    passages: bool,
) -> Result<Option<Verified>, IndexError> {
    let Scored {
        scores,
        chains,
        doc_set,
        verdict,
        references,
    } = scored;
    let word_similarity = scores.word_similarity.unwrap_or_default();
    if passages {
        // A text that does not decode is an error the answer reports, not passages in nothing.
        stored.text()?;
    }
    let mut source = SourceSide::new(query.analyzer, &stored, references);
    let mut kinds: Vec<Classified> = Vec::with_capacity(chains.len());
    for c in &chains {
        let tokens = c.query_tokens();
        let span = token_span(query.token_chars, tokens.clone());
        let words = tokens.end.min(query.token_chars.len()) - tokens.start;
        let boilerplate = || {
            Ok::<_, IndexError>(
                repeated_across_works(view, query, c, config)? || in_phrases(query, c),
            )
        };
        #[cfg(test)]
        let boilerplate = tests::as_before(boilerplate)?;
        // Asked only of a passage its place does not give a kind: a full paper's front matter
        // and reference entries are shared with many sources and repeated across the library,
        // and neither answer changes their kind.
        kinds.push(classify(
            query.structure,
            span,
            words,
            query.exclusions,
            || source.in_references(c),
            boilerplate,
        )?);
    }
    // The verdict rests on the counted passages alone; a match none of whose passages
    // counts is still listed, as not counted.
    let counted_verdict = if kinds.iter().all(|k| query.exclusions.counts(k.kind)) {
        Some(verdict)
    } else {
        decide(
            &counted_scores(query, &scores, &chains, &kinds, &doc_set),
            config,
        )
    };
    let ranges: Vec<KindedRange> = chains
        .iter()
        .zip(&kinds)
        .map(|(c, k)| (c.query_tokens(), k.kind))
        .collect();
    let passages = passages.then(|| {
        let mut passages = locate(query, &mut source, &chains);
        if passages.len() == kinds.len() {
            for (passage, kind) in passages.iter_mut().zip(&kinds) {
                passage.kind = kind.kind;
                passage.cited = kind.cited;
            }
        }
        passages
    });
    let tokens = query.analyzed.tokens.len();
    let plain: Vec<std::ops::Range<usize>> = ranges.iter().map(|(r, _)| r.clone()).collect();
    let report = MatchReport {
        library: library.to_string(),
        doc_id: stored.meta().doc_id.clone(),
        url: stored.meta().url.clone(),
        title: stored.meta().title.clone(),
        pdf_url: stored.meta().pdf_url.clone(),
        doi: stored.meta().doi.clone(),
        methods: candidate.methods.into_iter().collect(),
        verdict: counted_verdict.unwrap_or(verdict),
        resemblance: round(scores.resemblance),
        containment_query: round(scores.containment_query),
        containment_doc: round(scores.containment_doc),
        word_similarity: round(word_similarity),
        coverage: round(ratio(covered(&plain, tokens), tokens)),
        share: 0.0,
        counted: counted_verdict.is_some(),
        not_counted: counted_verdict.is_none().then(|| {
            let kinds: Vec<_> = kinds.iter().map(|k| k.kind).collect();
            NotCounted::of(&kinds, query.exclusions)
        }),
        passages,
        cross_language: None,
    };
    Ok(Some((report, ranges)))
}

/// The scores the verdict reads when some passages do not count: the longest counted passage,
/// and the query's shingles shared with the document outside excluded passages.
fn counted_scores(
    query: &Query<'_>,
    scores: &Scores,
    chains: &[Chain],
    kinds: &[Classified],
    doc_set: &FxHashSet<u64>,
) -> Scores {
    let mut excluded = Vec::new();
    let mut longest = 0;
    for (chain, kind) in chains.iter().zip(kinds) {
        if query.exclusions.counts(kind.kind) {
            longest = longest.max(chain.matched);
        } else {
            let end = (chain.last.0 + 1).min(query.analyzed.shingles.len());
            excluded.extend(query.analyzed.shingles[chain.first.0..end].iter().copied());
        }
    }
    let (shared, counted) = counted_shared(&query.distinct, scores.shared, excluded, doc_set);
    Scores {
        longest_passage: longest,
        shared,
        containment_query: ratio(shared, counted),
        ..*scores
    }
}

/// Of the query's `distinct` shingles (sorted), `shared` of which the source holds (`doc_set`):
/// how many it shares, and how many there are, once the shingles of the `excluded` passages are
/// left out. Counted over the excluded shingles, a few hundred, instead of the query's
/// thousands, for every source whose passages do not all count.
fn counted_shared(
    distinct: &[u64],
    shared: usize,
    mut excluded: Vec<u64>,
    doc_set: &FxHashSet<u64>,
) -> (usize, usize) {
    excluded.sort_unstable();
    excluded.dedup();
    let (mut left_out, mut left_out_shared) = (0, 0);
    for hash in excluded {
        if distinct.binary_search(&hash).is_ok() {
            left_out += 1;
            left_out_shared += usize::from(doc_set.contains(&hash));
        }
    }
    (shared - left_out_shared, distinct.len() - left_out)
}

/// Whether the library repeats a passage across `boilerplate_min_docs` distinct works: a
/// passage that looks repeated by its shingles' document counts is boilerplate when most of
/// them are too frequent to be looked up, or when that many works hold most of it (`works`).
fn repeated_across_works(
    view: &dyn ReadView,
    query: &Query<'_>,
    chain: &Chain,
    config: &CheckConfig,
) -> Result<bool, IndexError> {
    #[cfg(test)]
    tests::asked_about_works();
    let min_docs = config.boilerplate_min_docs;
    if !repeated(query, chain, min_docs) {
        return Ok(false);
    }
    let sampled: HashSet<u64> = passage_sampled(query, chain).collect();
    let looked_up: Vec<u64> = sampled
        .iter()
        .copied()
        .filter(|hash| !query.frequent.contains(hash))
        .collect();
    if looked_up.len() * 2 < sampled.len() {
        return Ok(true);
    }
    Ok(match query.works.holding(view, &looked_up, config)? {
        None => true,
        Some(works) => works as u64 >= min_docs,
    })
}

/// The selected shingles of a passage, in query order.
fn passage_sampled<'q>(query: &'q Query<'_>, chain: &Chain) -> impl Iterator<Item = u64> + 'q {
    let end = (chain.last.0 + 1).min(query.analyzed.shingles.len());
    let start = chain.first.0.min(end);
    query.analyzed.shingles[start..end]
        .iter()
        .copied()
        .filter(|hash| query.selected.binary_search(hash).is_ok())
}

/// Whether the library's document counts say a passage may be repeated: most of its selected
/// shingles are held by at least `min_docs` library documents (or are too frequent to be
/// looked up at all).
fn repeated(query: &Query<'_>, chain: &Chain, min_docs: u64) -> bool {
    let (mut sampled, mut repeated) = (0, 0);
    for hash in passage_sampled(query, chain) {
        sampled += 1;
        let df = query.doc_freq.get(&hash).copied().unwrap_or(0);
        if df >= min_docs || query.frequent.contains(&hash) {
            repeated += 1;
        }
    }
    sampled > 0 && repeated * 2 > sampled
}

/// Whether most of a passage's shingles are shingles of the library's boilerplate phrases.
fn in_phrases(query: &Query<'_>, chain: &Chain) -> bool {
    if query.phrases.is_empty() {
        return false;
    }
    let end = (chain.last.0 + 1).min(query.analyzed.shingles.len());
    let shingles = &query.analyzed.shingles[chain.first.0.min(end)..end];
    let listed = shingles
        .iter()
        .filter(|h| query.phrases.binary_search(h).is_ok())
        .count();
    listed * 2 > shingles.len()
}

/// The code points the query tokens `tokens` cover.
fn token_span(token_chars: &[Span], tokens: std::ops::Range<usize>) -> Span {
    let (first, last) = end_tokens(tokens, token_chars.len());
    Span {
        start: token_chars[first].start,
        end: token_chars[last].end,
    }
}

/// The first and last of `tokens` among `len` tokens (`len` > 0), clamped to them.
fn end_tokens(tokens: std::ops::Range<usize>, len: usize) -> (usize, usize) {
    let last = tokens.end.min(len).saturating_sub(1);
    (tokens.start.min(last), last)
}

/// The source's side of passages, worked out only when a passage needs it: its text (spelled
/// from its term sequence when the library keeps it there), its tokens (kept by the library, or
/// one analysis of its text shared by every passage), their code point spans and its structure.
struct SourceSide<'a> {
    analyzer: &'a Analyzer,
    stored: &'a StoredForCheck,
    /// The tokens of a source whose library keeps none, analyzed on first use.
    analysed: Option<Vec<dupfinder_text::analysis::Token>>,
    /// The source's reference lists, read when a passage first asks about them.
    references: Option<Structure>,
}

impl<'a> SourceSide<'a> {
    /// `stored`'s side, with its reference lists if they were found already.
    fn new(
        analyzer: &'a Analyzer,
        stored: &'a StoredForCheck,
        references: Option<Structure>,
    ) -> Self {
        SourceSide {
            analyzer,
            stored,
            analysed: None,
            references,
        }
    }

    /// The source's text; empty when it does not decode (the check has already read its term
    /// sequence, so only damage inside the text itself comes here).
    fn text(&self) -> &'a str {
        self.stored.text().unwrap_or_default()
    }

    /// The source's tokens: as the library keeps them, or analyzed on first use.
    fn tokens(&mut self) -> &[dupfinder_text::analysis::Token] {
        if let Some(kept) = self.stored.tokens.as_deref() {
            return kept;
        }
        let (analyzer, stored) = (self.analyzer, self.stored);
        self.analysed.get_or_insert_with(|| {
            analyzer
                .analyze(
                    stored.text().unwrap_or_default(),
                    Language::from_code(&stored.meta().lang),
                )
                .tokens
        })
    }

    /// Whether the chain's source side lies in the source's reference list (read from its first
    /// heading that names one: nothing else of the source's structure is asked about).
    fn in_references(&mut self, chain: &Chain) -> bool {
        let text = self.text();
        if self
            .references
            .get_or_insert_with(|| reference_lists(text))
            .regions
            .is_empty()
        {
            return false;
        }
        let tokens = self.tokens();
        if tokens.is_empty() {
            return false;
        }
        // The code point span of the chain's tokens: two counts over the text, not a span for
        // every token of the source.
        let (first, last) = end_tokens(chain.first.1..chain.last.1 + SHINGLE_WORDS, tokens.len());
        let chars = |byte: usize| text[..byte.min(text.len())].chars().count();
        let start = chars(tokens[first].start);
        let span = Span {
            start,
            end: start.max(chars(tokens[last].end)),
        };
        self.references.as_ref().is_some_and(|structure| {
            mostly_in(structure.overlap_with_part(span, Part::References), span)
        })
    }
}

/// A source's reference lists (in tests, its whole structure when verifying as before).
fn reference_lists(text: &str) -> Structure {
    #[cfg(test)]
    let structure = tests::source_structure(text);
    #[cfg(not(test))]
    let structure = Structure::references_of(text);
    structure
}

/// The code point span of each token, in one pass over the text (tokens in text order).
pub fn token_spans(text: &str, tokens: &[dupfinder_text::analysis::Token]) -> Vec<Span> {
    let mut spans = Vec::with_capacity(tokens.len());
    let mut byte = 0;
    let mut chars = 0;
    let to = |target: usize, byte: &mut usize, chars: &mut usize| {
        let target = target.min(text.len());
        if target > *byte {
            *chars += text[*byte..target].chars().count();
            *byte = target;
        }
        *chars
    };
    for token in tokens {
        let start = to(token.start, &mut byte, &mut chars);
        let end = to(token.end, &mut byte, &mut chars);
        spans.push(Span { start, end });
    }
    spans
}

/// The candidate compared with the query on all its shingles, not only the indexed sample
/// (the index keeps each document's shingle sequence for this): the shingle scores and the
/// chains of shared shingles that make its passages.
fn shingle_scores(
    query: Scoring<'_>,
    doc_shingles: &[u64],
    exact: bool,
) -> (Scores, Vec<Chain>, FxHashSet<u64>) {
    let config = query.config;
    // The source's distinct shingles in a set, not sorted: a source's thousands of shingles
    // are hashed once each (this runs for every candidate verified).
    let mut doc_set: FxHashSet<u64> =
        FxHashSet::with_capacity_and_hasher(doc_shingles.len(), Default::default());
    doc_set.extend(doc_shingles.iter().copied());
    for hash in query.frequent {
        doc_set.remove(hash);
    }
    let shared = query
        .distinct
        .iter()
        .filter(|h| doc_set.contains(h))
        .count();
    let chains = chains(
        query.aligner,
        doc_shingles,
        query.looked_up,
        query.frequent,
        config.passage_gap as usize,
        config.passage_min_shingles as usize,
    );
    let scores = Scores {
        exact,
        resemblance: ratio(shared, query.distinct.len() + doc_set.len() - shared),
        containment_query: ratio(shared, query.distinct.len()),
        containment_doc: ratio(shared, doc_set.len()),
        shared,
        doc_shingles: doc_set.len(),
        longest_passage: chains.iter().map(|c| c.matched).max().unwrap_or(0),
        word_similarity: None,
    };
    (scores, chains, doc_set)
}

/// The chains as passages with code point offsets in both texts: the source's tokens (analyzed
/// once, with its reference list) give the offsets on its side.
fn locate(query: &Query<'_>, source: &mut SourceSide<'_>, chains: &[Chain]) -> Vec<PassageMatch> {
    let text = source.text();
    let query_side = Side {
        text: query.text,
        tokens: &query.analyzed.tokens,
    };
    let doc_side = Side {
        text,
        tokens: source.tokens(),
    };
    passages(chains, &query_side, &doc_side)
}

/// The distinct shingles of `shingles` not in `frequent`, sorted.
pub(super) fn distinct_without(shingles: &[u64], frequent: &HashSet<u64>) -> Vec<u64> {
    let mut distinct = shingles.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    if frequent.is_empty() {
        return distinct;
    }
    // Both sorted, one merge: the query's thousands of shingles are each hashed no more.
    let mut left_out: Vec<u64> = frequent.iter().copied().collect();
    left_out.sort_unstable();
    let mut next = 0;
    distinct.retain(|hash| {
        while left_out.get(next).is_some_and(|f| f < hash) {
            next += 1;
        }
        left_out.get(next) != Some(hash)
    });
    distinct
}

/// How many of `total` tokens the ranges cover.
pub(super) fn covered(ranges: &[std::ops::Range<usize>], total: usize) -> usize {
    let mut covered = vec![false; total];
    for range in ranges {
        for flag in &mut covered[range.start.min(total)..range.end.min(total)] {
            *flag = true;
        }
    }
    covered.iter().filter(|c| **c).count()
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::CheckRequest;
    use crate::engine::tests::Library;

    thread_local! {
        /// Verification as it was before passages were given their kind lazily: whether the
        /// library repeats a passage asked of every passage, the source's whole structure read.
        static AS_BEFORE: Cell<bool> = const { Cell::new(false) };
        /// How many passages the library was asked about.
        static WORKS_ASKED: Cell<usize> = const { Cell::new(0) };
    }

    /// Counting over the excluded shingles gives what filtering the query's shingles gave.
    #[test]
    fn counted_shared_is_what_filtering_every_query_shingle_gives() {
        let mut state = 0x853c_49e6_748f_ea9bu64;
        let mut next = |below: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % below
        };
        for _ in 0..300 {
            let mut distinct: Vec<u64> = (0..next(60)).map(|_| next(100)).collect();
            distinct.sort_unstable();
            distinct.dedup();
            let doc_set: FxHashSet<u64> = (0..next(60)).map(|_| next(100)).collect();
            // Excluded shingles repeat, and some are not among the distinct ones (frequent).
            let excluded: Vec<u64> = (0..next(40)).map(|_| next(100)).collect();
            let shared = distinct.iter().filter(|h| doc_set.contains(h)).count();
            let counted: Vec<u64> = distinct
                .iter()
                .copied()
                .filter(|h| !excluded.contains(h))
                .collect();
            let expected = (
                counted.iter().filter(|h| doc_set.contains(h)).count(),
                counted.len(),
            );
            assert_eq!(
                counted_shared(&distinct, shared, excluded, &doc_set),
                expected
            );
        }
    }

    /// `boilerplate`, answered at once when verifying as before.
    #[allow(clippy::type_complexity)]
    pub(super) fn as_before<'f>(
        boilerplate: impl FnOnce() -> Result<bool, IndexError> + 'f,
    ) -> Result<Box<dyn FnOnce() -> Result<bool, IndexError> + 'f>, IndexError> {
        if AS_BEFORE.get() {
            let answer = boilerplate()?;
            return Ok(Box::new(move || Ok(answer)));
        }
        Ok(Box::new(boilerplate))
    }

    pub(super) fn source_structure(text: &str) -> Structure {
        if AS_BEFORE.get() {
            Structure::detect(text)
        } else {
            Structure::references_of(text)
        }
    }

    pub(super) fn asked_about_works() {
        WORKS_ASKED.set(WORKS_ASKED.get() + 1);
    }

    /// `n` made-up words in sentences, the same for the same `seed`, another text for another.
    fn words(seed: usize, n: usize) -> String {
        let mut state = seed as u64 ^ 0x9E37_79B9_7F4A_7C15;
        let mut text = String::new();
        for i in 0..n {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let word = (state >> 33) % 4_000;
            let sep = if i == 0 {
                ""
            } else if i % 12 == 0 {
                ". "
            } else {
                " "
            };
            text += &format!("{sep}word{word}");
        }
        text
    }

    /// A full paper of the library or a manuscript: front matter all papers share, the
    /// reference entries `cited`, and body paragraphs of its own with `inserted` ones.
    fn paper(n: usize, cited: &[usize], inserted: &[String]) -> String {
        let mut text = format!(
            "Residue mulch {}\nA. Smith{n}, B. Jones{n}\n\
1 Department of soil studies, University of Lovo, Lovo 10114, Kerelia\n\
2 Institute of field research and crop breeding, Vantaa, Finland\n\
E-mail: smith{n}@university.edu\nReceived 3 September 2013; accepted 15 March 2014\n\n\
Abstract\n{}.\nKeywords: drought{n}, nitrogen{n}, mulch{n}\n\n1. Introduction\n\n",
            words(400_000 + n, 2),
            words(500_000 + n, 50),
        );
        for k in 0..3 {
            text += &format!("{}.\n\n", words(100_000 + 10 * n + k, 70));
        }
        for copied in inserted {
            text += &format!("{copied}\n\n");
        }
        text += "2. Methods\n\n";
        text += &format!("{}.\n\nReferences\n", words(200_000 + n, 70));
        for (i, w) in cited.iter().enumerate() {
            text += &format!(
                "{}. R. Ismi{w}, K. Ganik{w} (1982). {}. Journal of Soil studies 51(3), 170–190.\n",
                i + 1,
                words(300_000 + w, 12),
            );
        }
        text
    }

    /// The check as it is and as it was before give the same answer — every match, counted or
    /// not, with its scores, passages and their kinds — while asking the library about fewer
    /// passages: shared front matter and reference entries no longer ask it.
    #[test]
    fn giving_passages_their_kind_lazily_keeps_every_answer() {
        let library = Library::new();
        // A template paragraph five papers repeat (boilerplate), and the reference entries
        // every paper shares some of.
        let template = words(777, 45);
        let documents: Vec<(String, String)> = (0..8)
            .map(|n| {
                let cited = [n % 3, 3 + n % 2, 5, 6 + n % 4];
                let inserted = if n < 5 {
                    vec![template.clone()]
                } else {
                    vec![]
                };
                (format!("p{n}"), paper(n, &cited, &inserted))
            })
            .collect();
        library.add(&documents);
        let copied = words(100_000 + 10 * 2 + 1, 70);
        let quoted = format!("As they wrote, \"{}\" [2].", words(100_000 + 10 * 3, 40));
        let manuscripts = [
            paper(100, &[0, 3, 5, 6, 9], &[]),
            paper(101, &[1, 4, 5], std::slice::from_ref(&template)),
            paper(102, &[0, 5, 7], &[copied, quoted]),
        ];
        let check = |text: &str, as_before: bool| {
            AS_BEFORE.set(as_before);
            WORKS_ASKED.set(0);
            let mut request = CheckRequest::new(text);
            request.passages = true;
            let report = library.check(&request, &Default::default()).unwrap();
            AS_BEFORE.set(false);
            let mut answer = serde_json::to_value(&report).unwrap();
            answer["took_ms"] = serde_json::Value::Null;
            (answer, WORKS_ASKED.get())
        };
        let mut kinds = std::collections::BTreeSet::new();
        let (mut asked_now, mut asked_before) = (0, 0);
        for text in &manuscripts {
            let (now, asked) = check(text, false);
            let (before, asked_then) = check(text, true);
            assert_eq!(now, before);
            asked_now += asked;
            asked_before += asked_then;
            for m in now["matches"].as_array().unwrap() {
                for p in m["passages"].as_array().unwrap() {
                    kinds.insert((
                        p["kind"].as_str().unwrap().to_string(),
                        m["counted"] == true,
                    ));
                }
            }
        }
        // Every kind the check tells apart here, counted or not, was compared.
        for kind in ["front_matter", "bibliography", "boilerplate", "quoted"] {
            assert!(kinds.iter().any(|(k, _)| k == kind), "{kind}: {kinds:?}");
        }
        assert!(kinds.contains(&("copied".to_string(), true)), "{kinds:?}");
        assert!(asked_now < asked_before, "{asked_now} of {asked_before}");
    }

    #[test]
    fn shared_and_covered_count_each_once() {
        assert_eq!(
            crate::similarity::sorted_intersection(&[1, 3, 5, 7], &[2, 3, 7, 9]),
            2
        );
        assert_eq!(crate::similarity::sorted_intersection(&[], &[1]), 0);
        assert_eq!(covered(&[0..3, 2..5, 9..20], 10), 6);
        let frequent = HashSet::from([4]);
        assert_eq!(distinct_without(&[5, 4, 1, 5, 2], &frequent), [1, 2, 5]);
        let frequent = HashSet::from([0, 2, 3, 9, 10]);
        assert_eq!(
            distinct_without(&[9, 5, 4, 1, 5, 2, 9, 11], &frequent),
            [1, 4, 5, 11]
        );
        assert_eq!(distinct_without(&[3, 2], &frequent), [] as [u64; 0]);
        assert_eq!(distinct_without(&[7, 1], &HashSet::new()), [1, 7]);
    }
}
