//! Translated copies: a Russian text checked against English documents and an English one
//! against Russian documents. The query's terms are translated through a bilingual lexicon
//! into the other language's stems (numbers, Latin-script names and acronyms kept as they
//! are), the documents of that language holding most of them are found by a term search in
//! each library's own index, and each is verified by aligning sentences across the languages.
//! Aligned sentences that follow each other in both texts are translated passages; they count
//! like copied ones.
//!
//! Without a lexicon (none configured, or it cannot be read) the check says cross-language
//! checking is `unavailable` and why; a request may turn it `off`.

mod align;
mod lexicon;
mod synonyms;

use std::collections::HashSet;
use std::path::PathBuf;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::engine::StoreRef;
use super::kinds::KindedRange;
use super::report::{ratio, round};
use super::request::go_on;
use super::similarity::pairs;
use super::verify::Verified;
use super::{CancelFlag, CheckError, CheckRequest, MatchReport, Method, PassageKind, Verdict};
use super::{Checker, PassageMatch};
use dupfinder_storage::ReadView;
use dupfinder_storage::Storage;
use dupfinder_storage::index::{DocKey, MAX_SEARCH_TERMS, StoredForCheck, TermCounts};
use dupfinder_text::analysis::{AnalyzedText, Language, Span};

pub use lexicon::{
    Lexicon, LexiconError, build as build_lexicon, build_from_dictd, thesaurus_entries,
};

/// The `[check.cross_language]` section.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CrossLanguageConfig {
    /// The lexicon file `dupfinder lexicon build` wrote; without one, cross-language checking
    /// is unavailable.
    pub lexicon: Option<PathBuf>,
    /// Documents of the other language verified per library, at most.
    pub max_candidates: usize,
    /// A document is aligned with the query only when the lexicon relates at least this share
    /// of the query's words or of the document's to the other text (a bag-of-words test).
    pub min_overlap: f64,
    /// Two sentences are aligned when this share of their units (terms and numbers, the
    /// geometric mean of both sentences' counts) match through the lexicon…
    pub sentence_score: f64,
    /// …and at least this many do, and its share is above that of the document's next best
    /// sentence by `sentence_margin`.
    pub sentence_units: usize,
    pub sentence_margin: f64,
    /// A translated document is a duplicate when this share of either text is aligned.
    pub duplicate_coverage: f64,
    /// A translated passage makes a partial copy when it holds this many aligned sentences…
    pub partial_sentences: usize,
    /// …and this many words of the query.
    pub partial_words: usize,
}

impl Default for CrossLanguageConfig {
    fn default() -> Self {
        CrossLanguageConfig {
            lexicon: None,
            max_candidates: 3,
            min_overlap: 0.5,
            sentence_score: 0.5,
            sentence_units: 3,
            sentence_margin: 0.05,
            duplicate_coverage: 0.6,
            partial_sentences: 2,
            partial_words: 20,
        }
    }
}

/// Whether a check looked across languages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CrossLanguageState {
    On,
    Off,
    Unavailable,
}

/// A check's cross-language state, and why it is unavailable.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CrossLanguage {
    #[serde(rename = "cross_language")]
    pub state: CrossLanguageState,
    #[serde(
        rename = "cross_language_reason",
        skip_serializing_if = "Option::is_none"
    )]
    pub reason: Option<String>,
}

impl CrossLanguage {
    fn unavailable(reason: String) -> Self {
        CrossLanguage {
            state: CrossLanguageState::Unavailable,
            reason: Some(reason),
        }
    }
}

/// The languages of a match found across them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LanguagePair {
    pub query_lang: String,
    pub doc_lang: String,
}

/// The other language of a pair the lexicon translates.
fn other(lang: Language) -> Option<Language> {
    match lang {
        Language::Russian => Some(Language::English),
        Language::English => Some(Language::Russian),
        _ => None,
    }
}

/// What the cross-language part of a check reads.
pub(super) struct Translated<'c, 'a, E> {
    pub(super) checker: &'c Checker<'c>,
    pub(super) ids: &'c [&'c str],
    pub(super) open: &'c dyn Fn(usize) -> Result<Option<StoreRef<'a>>, E>,
    pub(super) request: &'c CheckRequest,
    pub(super) query: &'c AnalyzedText,
    pub(super) cancel: &'c CancelFlag,
    /// Where the libraries are kept, when it can tell which libraries hold documents of a
    /// language: the others are never opened.
    pub(super) storage: Option<&'c dyn Storage>,
    /// The matches found in the query's own language; those that swapped words for synonyms
    /// get the method `synonyms`.
    pub(super) found: &'c mut [Verified],
}

/// What the cross-language part of a check adds.
pub(super) struct Added {
    pub(super) cross_language: CrossLanguage,
    pub(super) matches: Vec<Verified>,
    /// Matches of the query's own language with words swapped for synonyms.
    pub(super) reworded: usize,
}

impl<E: From<CheckError>> Translated<'_, '_, E> {
    /// The translated matches of every library and whether the check looked for them; the
    /// found matches that swapped words for synonyms marked.
    pub(super) fn run(mut self) -> Result<Added, E> {
        let config = &self.checker.config.cross_language;
        let added = |cross_language, matches| Added {
            cross_language,
            matches,
            reworded: 0,
        };
        let Some(path) = &config.lexicon else {
            let reason = "no bilingual lexicon is configured ([check.cross_language] lexicon; \
                          build one with `dupfinder lexicon build`)";
            return Ok(added(
                CrossLanguage::unavailable(reason.to_string()),
                Vec::new(),
            ));
        };
        let lexicon = match Lexicon::cached(path) {
            Ok(lexicon) => lexicon,
            Err(e) => return Ok(added(CrossLanguage::unavailable(e.to_string()), Vec::new())),
        };
        let reworded = self.mark_synonyms(&lexicon)?;
        let added = |cross_language, matches| Added {
            cross_language,
            matches,
            reworded,
        };
        if !self.request.cross_language {
            let off = CrossLanguage {
                state: CrossLanguageState::Off,
                reason: None,
            };
            return Ok(added(off, Vec::new()));
        }
        let on = CrossLanguage {
            state: CrossLanguageState::On,
            reason: None,
        };
        let from = self.query.lang;
        let Some(to) = other(from) else {
            return Ok(added(on, Vec::new()));
        };
        let weights = translated_terms(&lexicon, from, to, self.query);
        if weights.is_empty() {
            return Ok(added(on, Vec::new()));
        }
        // The query's side of an alignment is prepared at the first candidate: most checks
        // find none.
        let side = std::cell::OnceCell::new();
        let side = || {
            side.get_or_init(|| Side {
                query: align::Query::new(
                    &lexicon,
                    (from, to),
                    &self.request.text,
                    &self.query.tokens,
                    &self.query.term_counts,
                ),
                from,
                to,
                tokens: self.query.tokens.len(),
            })
        };
        let holding = self
            .storage
            .and_then(|storage| storage.libraries_holding_language(to.code()));
        let mut matches = Vec::new();
        for (i, id) in self.ids.iter().enumerate() {
            go_on(self.cancel)?;
            if holding.as_ref().is_some_and(|h| !h.contains(*id)) {
                continue;
            }
            let Some(store) = (self.open)(i)? else {
                continue;
            };
            let view = store.view().map_err(CheckError::from)?;
            let Some(terms) = search_terms(view.as_ref(), &weights).map_err(CheckError::from)?
            else {
                continue;
            };
            let Some(keys) = view
                .term_search(&terms, to.code(), config.max_candidates)
                .map_err(CheckError::from)?
            else {
                let reason = format!("library {id} is kept by a backend without term search");
                return Ok(added(CrossLanguage::unavailable(reason), Vec::new()));
            };
            for key in keys {
                go_on(self.cancel)?;
                // A document matched in the query's own language is not compared again.
                if self
                    .found
                    .iter()
                    .any(|(m, _)| m.library == *id && DocKey::of(&m.doc_id) == key)
                {
                    continue;
                }
                let Some(stored) = view.stored_for_check(key).map_err(CheckError::from)? else {
                    continue;
                };
                let side = side();
                let empty = TermCounts::default();
                let counts = stored.term_counts().unwrap_or(&empty);
                let terms = align::DocTerms::new(&side.query, counts.iter());
                let (query_share, doc_share) = side.query.overlap(&terms);
                if query_share.max(doc_share) < config.min_overlap {
                    continue;
                }
                matches.extend(self.verify(side, id, &stored, &terms));
            }
        }
        Ok(added(on, matches))
    }

    /// Marks the counted matches of the query's own language that swapped words for synonyms
    /// (method `synonyms`); answers how many.
    fn mark_synonyms(&mut self, lexicon: &Lexicon) -> Result<usize, E> {
        let mut reworded = 0;
        for (report, _) in self.found.iter_mut() {
            if !report.counted || report.cross_language.is_some() {
                continue;
            }
            let Some(i) = self.ids.iter().position(|id| *id == report.library) else {
                continue;
            };
            let Some(store) = (self.open)(i)? else {
                continue;
            };
            let view = store.view().map_err(CheckError::from)?;
            let key = DocKey::of(&report.doc_id);
            let Some(doc_terms) = view.stored_term_counts(key).map_err(CheckError::from)? else {
                continue;
            };
            let lang = self.query.lang;
            let swapped = synonyms::swapped(lexicon, lang, &self.query.term_counts, &doc_terms);
            if synonyms::reworded(swapped, self.query.term_counts.len()) {
                report.methods.push(Method::Synonyms);
                reworded += 1;
            }
        }
        Ok(reworded)
    }

    /// One document of the other language against the query: its sentences aligned with the
    /// query's, the verdict from the aligned shares and passages.
    ///
    /// The document's tokens are those the library keeps; without them its text is analyzed
    /// again.
    fn verify(
        &self,
        side: &Side,
        library: &str,
        stored: &StoredForCheck,
        terms: &align::DocTerms,
    ) -> Option<Verified> {
        let config = &self.checker.config.cross_language;
        let meta = stored.meta();
        // A text that does not decode is a damaged document: nothing to align with.
        let text = stored.text().ok()?;
        let (doc_tokens, doc_sentences) = match stored.token_places() {
            Some((tokens, places)) => (
                tokens.len(),
                terms.sentences(&side.query, text, tokens, places),
            ),
            None => {
                let tokens = self.checker.analyzer.analyze(text, Some(side.to)).tokens;
                let (counts, places) = align::places(&tokens);
                let terms = align::DocTerms::new(&side.query, pairs(&counts));
                let sentences = terms.sentences(&side.query, text, &tokens, &places);
                (tokens.len(), sentences)
            }
        };
        let links = align::align(
            &side.query,
            &doc_sentences,
            (
                config.sentence_score,
                config.sentence_units,
                config.sentence_margin,
            ),
        );
        let doc_sentences = &doc_sentences.sentences;
        let side_sentences = &side.query.sentences;
        let tokens_of = |sentences: &[align::Sentence], picked: &mut dyn Iterator<Item = usize>| {
            let distinct: HashSet<usize> = picked.collect();
            distinct
                .iter()
                .map(|&i| sentences[i].tokens.len())
                .sum::<usize>()
        };
        let query_tokens = side.tokens;
        let covered_query = tokens_of(side_sentences, &mut links.iter().map(|l| l.query));
        let covered_doc = tokens_of(doc_sentences, &mut links.iter().map(|l| l.doc));
        let coverage_query = ratio(covered_query, query_tokens);
        let coverage_doc = ratio(covered_doc, doc_tokens);
        let mut passages = Vec::new();
        let mut ranges: Vec<KindedRange> = Vec::new();
        for run in align::runs(&links) {
            let run = &links[run];
            let (first, last) = (run[0], run[run.len() - 1]);
            let query_range =
                side_sentences[first.query].tokens.start..side_sentences[last.query].tokens.end;
            let words = query_range.len();
            if run.len() < config.partial_sentences || words < config.partial_words {
                continue;
            }
            let doc_first = run.iter().map(|l| l.doc).min().unwrap_or(first.doc);
            let doc_last = run.iter().map(|l| l.doc).max().unwrap_or(last.doc);
            passages.push(PassageMatch {
                query: Span {
                    start: side_sentences[first.query].chars.start,
                    end: side_sentences[last.query].chars.end,
                },
                doc: Span {
                    start: doc_sentences[doc_first].chars.start,
                    end: doc_sentences[doc_last].chars.end,
                },
                words,
                shared_shingles: 0,
                kind: PassageKind::Copied,
                cited: None,
                translated: true,
            });
            ranges.push((query_range, PassageKind::Copied));
        }
        let verdict = if coverage_query.max(coverage_doc) >= config.duplicate_coverage
            && !passages.is_empty()
        {
            Verdict::Duplicate
        } else if !passages.is_empty() {
            Verdict::Partial
        } else {
            return None;
        };
        let score = if links.is_empty() {
            0.0
        } else {
            links.iter().map(|l| l.score).sum::<f64>() / links.len() as f64
        };
        let covered: usize = ranges.iter().map(|(r, _)| r.len()).sum();
        let report = MatchReport {
            library: library.to_string(),
            doc_id: meta.doc_id.clone(),
            url: meta.url.clone(),
            title: meta.title.clone(),
            pdf_url: meta.pdf_url.clone(),
            doi: meta.doi.clone(),
            methods: vec![Method::Translation],
            verdict,
            resemblance: round(coverage_query.min(coverage_doc)),
            containment_query: round(coverage_query),
            containment_doc: round(coverage_doc),
            word_similarity: round(score),
            coverage: round(ratio(covered, query_tokens)),
            share: 0.0,
            counted: true,
            not_counted: None,
            passages: self.request.passages.then_some(passages),
            cross_language: Some(LanguagePair {
                query_lang: side.from.code().to_string(),
                doc_lang: side.to.code().to_string(),
            }),
        };
        Some((report, ranges))
    }
}

/// The query's side of an alignment.
struct Side {
    query: align::Query,
    from: Language,
    to: Language,
    /// How many tokens the query has.
    tokens: usize,
}

/// The query's terms in the other language, each weighed by the query's count of the terms it
/// translates shared among their translations; Latin-script terms (names, acronyms, formulas)
/// stand for themselves.
fn translated_terms<'a>(
    lexicon: &'a Lexicon,
    from: Language,
    to: Language,
    query: &'a AnalyzedText,
) -> FxHashMap<&'a str, f64> {
    let mut weights: FxHashMap<&str, f64> = FxHashMap::default();
    for (term, count) in &query.term_counts {
        let translations = lexicon.translate(from, to, term);
        for translation in translations {
            *weights.entry(translation.as_str()).or_default() +=
                f64::from(*count) / translations.len() as f64;
        }
        if term.chars().all(|c| c.is_ascii_alphanumeric()) && from == Language::Russian {
            *weights.entry(term.as_str()).or_default() += f64::from(*count);
        }
    }
    weights
}

/// The translated terms a library is searched with, the rarest and most weighed first,
/// [`MAX_SEARCH_TERMS`] at the most; none when the library's statistics know documents but not one
/// of the terms (a library of the query's language alone: nothing to look up).
fn search_terms(
    view: &dyn ReadView,
    weights: &FxHashMap<&str, f64>,
) -> Result<Option<Vec<String>>, dupfinder_storage::index::IndexError> {
    let asked: Vec<(String, u32)> = weights.keys().map(|t| (t.to_string(), 1)).collect();
    let snapshot = view.statistics(&asked)?;
    if snapshot.docs() > 0 && weights.keys().all(|t| snapshot.get(t).is_none()) {
        return Ok(None);
    }
    let docs = snapshot.docs().max(1) as f64;
    let mut scored: Vec<(f64, &str)> = weights
        .iter()
        .map(|(term, weight)| {
            // A term the statistics do not know yet (written since they were counted) is
            // taken as common: looked up, but after the known rare ones.
            let df = snapshot.get(term).map_or(docs, |s| s.df as f64).max(1.0);
            (weight * (1.0 + docs / df).ln(), *term)
        })
        .collect();
    let order = |a: &(f64, &str), b: &(f64, &str)| b.0.total_cmp(&a.0).then(a.1.cmp(b.1));
    if scored.len() > MAX_SEARCH_TERMS {
        scored.select_nth_unstable_by(MAX_SEARCH_TERMS - 1, order);
        scored.truncate(MAX_SEARCH_TERMS);
    }
    scored.sort_unstable_by(order);
    Ok(Some(
        scored.into_iter().map(|(_, t)| t.to_string()).collect(),
    ))
}

#[cfg(test)]
mod tests;
