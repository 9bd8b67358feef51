//! Running a check across libraries: the query analyzed once, then per library one read view
//! from which candidates are gathered and verified; the matches of every library merged,
//! filtered by `min_similarity` and sorted.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::sync::Arc;
use std::time::Instant;

use super::gather::{gather, query_signature};
use super::kinds::{KindedRange, figures};
use super::report::{ratio, round};
use super::request::go_on;
use super::verify::{
    Query, Verified, covered, distinct_without, for_each_read, token_spans, verify,
};
use super::{
    CancelFlag, CheckError, CheckReport, CheckRequest, Exclusions, Flag, MatchReport, Method,
    NotCounted, Span, Verdict,
};
use crate::CheckConfig;
use dupfinder_storage::candidates::CandidateProbe;
use dupfinder_storage::{LibraryStore, ReadView, Storage, phrases};
use dupfinder_text::analysis::{
    AnalyzedText, Analyzer, DocumentError, TextLimits, analyze_text, parse_lang,
};
use dupfinder_text::structure::Structure;

/// What a check runs with: the analyzer its libraries were indexed with, the `[check]` rules and
/// the bounds on a checked text (`[limits]`).
#[derive(Clone, Copy)]
pub struct Checker<'a> {
    pub analyzer: &'a Analyzer,
    pub config: &'a CheckConfig,
    pub text_limits: TextLimits,
}

/// Checks a text against `libraries`, whatever backend keeps them: the part of a check after
/// the libraries were found (`started` is when the check began, for `took_ms`).
///
/// When `storage` keeps a map of where candidates may be ([`Storage::candidate_libraries`]),
/// only the libraries it names are looked in: the others hold no candidate, so the answer is
/// the one every library's own lookups would give, at a cost that follows the candidates rather
/// than the number of libraries.
pub fn check_stores(
    checker: &Checker,
    libraries: &[(&str, &dyn LibraryStore)],
    storage: Option<&dyn Storage>,
    request: &CheckRequest,
    cancel: &CancelFlag,
    started: Instant,
) -> Result<CheckReport, CheckError> {
    let ids: Vec<&str> = libraries.iter().map(|(id, _)| *id).collect();
    let open = |i: usize| Ok(Some(StoreRef::Borrowed(libraries[i].1)));
    check_libraries(checker, &ids, &open, storage, request, cancel, started)
}

/// A library's store as a check holds it: lent by the caller or opened for the check.
pub enum StoreRef<'a> {
    Borrowed(&'a dyn LibraryStore),
    Shared(Arc<dyn LibraryStore>),
}

impl<'a> std::ops::Deref for StoreRef<'a> {
    type Target = dyn LibraryStore + 'a;

    fn deref(&self) -> &Self::Target {
        match self {
            StoreRef::Borrowed(store) => *store,
            StoreRef::Shared(store) => store.as_ref(),
        }
    }
}

/// Checks a text against the libraries `ids` like [`check_stores`], opening only those the
/// check looks in: `open(i)` opens library `ids[i]`, or answers `None` for one deleted since the
/// list was made (it is passed over).
pub fn check_libraries<'a, E: From<CheckError>>(
    checker: &Checker,
    ids: &[&str],
    open: &dyn Fn(usize) -> Result<Option<StoreRef<'a>>, E>,
    storage: Option<&dyn Storage>,
    request: &CheckRequest,
    cancel: &CancelFlag,
    started: Instant,
) -> Result<CheckReport, E> {
    let lang = parse_lang(request.lang.as_deref()).map_err(CheckError::from)?;
    // The text's preparation is three steps, each linear in the text (a fraction of a second
    // for the largest text in a release build); a check given up meanwhile stops after the
    // step.
    let query = analyze(checker, &request.text, lang).map_err(CheckError::from)?;
    go_on(cancel)?;
    let structure = Structure::detect(&request.text);
    go_on(cancel)?;
    let context = QueryContext {
        structure,
        token_chars: token_spans(&request.text, &query.tokens),
        exclusions: request.exclude.resolve(checker.config),
    };
    go_on(cancel)?;

    // A check of one library looks in it whatever the map says (the first library also gives
    // the query's reported signature): asking the map would only add its lookups.
    let reach = storage.filter(|_| ids.len() > 1).and_then(|storage| {
        storage.candidate_libraries(&CandidateProbe {
            content_hash: query.content_hash,
            shingles: &query.shingles,
            terms: &query.term_counts,
            min_shingle_hits: checker.config.min_shingle_hits,
        })
    });
    let budget = WorkBudget::new(checker.config, query.shingles.len());
    let mut signature = None;
    let mut generations = BTreeMap::new();
    let mut found_matches: Vec<(MatchReport, Vec<KindedRange>)> = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        go_on(cancel)?;
        let looked_in = reach.as_ref().is_none_or(|reach| reach.contains(*id));
        if !looked_in && i > 0 {
            continue;
        }
        let Some(store) = open(i)? else {
            continue;
        };
        if !looked_in {
            let view = store.view().map_err(CheckError::from)?;
            signature = query_signature(view.as_ref(), &query).map_err(CheckError::from)?;
            continue;
        }
        let found = LibraryCheck {
            library: id,
            store: &*store,
            checker,
            query: &query,
            query_text: &request.text,
            passages: request.passages,
            context: &context,
            cancel,
            budget: &budget,
        }
        .run()?;
        if i == 0 {
            signature = found.signature;
        }
        if found.candidates > 0 {
            generations.insert(id.to_string(), found.generation);
        }
        found_matches.extend(found.matches);
    }
    let added = super::translated::Translated {
        checker,
        ids,
        open,
        request,
        query: &query,
        cancel,
        storage,
        found: &mut found_matches,
    }
    .run()?;
    found_matches.extend(added.matches);
    let exclusions = context.exclusions;
    for (report, _) in &mut found_matches {
        if !exclusions.counts_source(&report.library, &report.doc_id) {
            report.counted = false;
            report.not_counted = Some(NotCounted::SourceExcluded);
        }
    }
    found_matches.sort_by(|(a, _), (b, _)| {
        b.counted
            .cmp(&a.counted)
            .then(b.verdict.cmp(&a.verdict))
            .then(b.similarity().total_cmp(&a.similarity()))
            .then(b.word_similarity.total_cmp(&a.word_similarity))
            .then_with(|| a.doc_id.cmp(&b.doc_id))
    });
    let tokens = query.tokens.len();
    let kinded: Vec<(bool, Vec<KindedRange>)> = found_matches
        .iter()
        .map(|(report, ranges)| (report.counted, ranges.clone()))
        .collect();
    let (similarity_index, shares, per_match) = figures(&kinded, &exclusions, tokens);
    let copied: Vec<Range<usize>> = found_matches
        .iter()
        .flat_map(|(_, ranges)| ranges.iter().map(|(r, _)| r.clone()))
        .collect();
    // The verdict counts every counted match, those `min_similarity` hides included.
    let verdict = found_matches
        .iter()
        .filter(|(m, _)| m.counted)
        .map(|(m, _)| m.verdict)
        .max()
        .unwrap_or(Verdict::Original);
    let mut matches = Vec::new();
    let mut hidden_matches = 0;
    for ((mut report, _), share) in found_matches.into_iter().zip(per_match) {
        report.share = round(share);
        if report.similarity() >= request.min_similarity {
            matches.push(report);
        } else {
            hidden_matches += 1;
        }
    }
    Ok(CheckReport {
        verdict,
        signature,
        query_coverage: round(ratio(covered(&copied, tokens), tokens)),
        similarity_index: round(similarity_index),
        words: tokens,
        shares: super::Shares {
            copied: round(shares.copied),
            quoted: round(shares.quoted),
            bibliography: round(shares.bibliography),
            front_matter: round(shares.front_matter),
            boilerplate: round(shares.boilerplate),
            small: round(shares.small),
        },
        exclusions,
        hidden_matches,
        matches,
        flags: Flag::of(&query.disguises, query.words)
            .into_iter()
            .chain((added.reworded > 0).then(|| Flag::rewording(added.reworded)))
            .collect(),
        generations,
        libraries_checked: ids.len(),
        cross_language: added.cross_language,
        took_ms: started.elapsed().as_secs_f64() * 1000.0,
    })
}

/// What every library's part of a check reads about the query besides its analysis.
struct QueryContext {
    structure: Structure,
    token_chars: Vec<Span>,
    exclusions: Exclusions,
}

/// The unverified candidates each method finds for a text in one library: what the methods
/// would answer on their own, for evaluation.
pub fn raw_candidates(
    checker: &Checker,
    view: &dyn ReadView,
    text: &str,
) -> Result<HashMap<Method, Vec<String>>, CheckError> {
    let query = analyze(checker, text, None)?;
    let gathered = gather(view, &query, checker.config, true)?;
    let mut by_method: HashMap<Method, Vec<String>> = HashMap::new();
    for (key, candidate) in gathered.candidates {
        let Some(document) = view.stored(key)? else {
            continue;
        };
        for method in candidate.methods {
            by_method
                .entry(method)
                .or_default()
                .push(document.meta.doc_id.clone());
        }
    }
    Ok(by_method)
}

fn analyze(
    checker: &Checker,
    text: &str,
    lang: Option<dupfinder_text::analysis::Language>,
) -> Result<AnalyzedText, DocumentError> {
    Ok(analyze_text(
        checker.analyzer,
        text,
        lang,
        checker.text_limits,
    )?)
}

/// One library's matches.
struct LibraryMatches {
    signature: Option<u32>,
    generation: u64,
    /// Candidates gathered, before verification.
    candidates: usize,
    matches: Vec<Verified>,
}

/// One library's part of a check.
struct LibraryCheck<'a> {
    library: &'a str,
    store: &'a dyn LibraryStore,
    checker: &'a Checker<'a>,
    query: &'a AnalyzedText,
    query_text: &'a str,
    passages: bool,
    context: &'a QueryContext,
    cancel: &'a CancelFlag,
    budget: &'a WorkBudget,
}

/// The work one check may still do across its libraries: a text built to match many candidates
/// with many passages is refused once past a bound, before the work rather than after it.
struct WorkBudget {
    /// Verification steps of one candidate: the text's shingles, each compared once.
    steps_per_candidate: u64,
    candidates: std::cell::Cell<u64>,
    passages: std::cell::Cell<u64>,
    max_candidates: u64,
    max_passages: u64,
    max_steps: u64,
}

impl WorkBudget {
    fn new(config: &CheckConfig, query_shingles: usize) -> Self {
        WorkBudget {
            steps_per_candidate: query_shingles.max(1) as u64,
            candidates: Default::default(),
            passages: Default::default(),
            max_candidates: config.max_checked_candidates,
            max_passages: config.max_passages,
            max_steps: config.max_verification_steps,
        }
    }

    /// Takes one more candidate's verification from the budget.
    fn verify_one(&self) -> Result<(), CheckError> {
        let candidates = self.candidates.get() + 1;
        if candidates > self.max_candidates {
            return Err(CheckError::WorkBudgetExceeded {
                what: "candidates verified",
                key: "max_checked_candidates",
                limit: self.max_candidates,
            });
        }
        if candidates.saturating_mul(self.steps_per_candidate) > self.max_steps {
            return Err(CheckError::WorkBudgetExceeded {
                what: "verification steps",
                key: "max_verification_steps",
                limit: self.max_steps,
            });
        }
        self.candidates.set(candidates);
        Ok(())
    }

    /// Counts the passages a verified candidate shares with the text.
    fn found(&self, passages: usize) -> Result<(), CheckError> {
        let passages = self.passages.get() + passages as u64;
        if passages > self.max_passages {
            return Err(CheckError::WorkBudgetExceeded {
                what: "passages",
                key: "max_passages",
                limit: self.max_passages,
            });
        }
        self.passages.set(passages);
        Ok(())
    }
}

impl LibraryCheck<'_> {
    /// Gathers and verifies every candidate through one view of the library.
    fn run(&self) -> Result<LibraryMatches, CheckError> {
        let config = self.checker.config;
        let view = self.store.view()?;
        let gathered = gather(view.as_ref(), self.query, config, false)?;
        // The library's own boilerplate phrases, read afresh: one added through another process
        // on a shared database is honoured at once.
        let phrases =
            phrases::shingles_of(&self.store.kept(), self.checker.analyzer, self.query.lang);
        let query = Query {
            analyzed: self.query,
            text: self.query_text,
            distinct: distinct_without(&self.query.shingles, &gathered.frequent),
            frequent: &gathered.frequent,
            selection: gathered.selection,
            selected: &gathered.selected,
            looked_up: &gathered.looked_up,
            sampled: gathered.usable,
            structure: &self.context.structure,
            token_chars: &self.context.token_chars,
            exclusions: &self.context.exclusions,
            analyzer: self.checker.analyzer,
            doc_freq: &gathered.doc_freq,
            phrases: &phrases,
            works: Default::default(),
            aligner: Default::default(),
        };
        let candidates = gathered.candidates.len();
        let mut matches = Vec::new();
        for_each_read(
            view.as_ref(),
            gathered.candidates,
            &query,
            config,
            self.passages,
            |_, candidate, stored| {
                go_on(self.cancel)?;
                self.budget.verify_one()?;
                #[cfg(test)]
                tests::before_verifying();
                let Some((stored, Some(scored))) = stored else {
                    return Ok(());
                };
                let verified = verify(
                    view.as_ref(),
                    self.library,
                    candidate,
                    stored,
                    scored,
                    &query,
                    config,
                    self.passages,
                )?;
                if let Some((_, passages)) = &verified {
                    self.budget.found(passages.len())?;
                }
                matches.extend(verified);
                Ok::<_, CheckError>(())
            },
        )?;
        Ok(LibraryMatches {
            signature: gathered.signature,
            generation: view.generation(),
            candidates,
            matches,
        })
    }
}

#[cfg(test)]
pub(super) mod tests {
    use std::cell::RefCell;
    use std::sync::Arc;

    use dupfinder_storage::index::{IndexOptions, LibraryIndex, default_analyzer};
    use dupfinder_storage::ingest::{DocumentInput, IdValue, prepare};

    use super::*;
    use crate::{CheckRequest, Verdict};

    thread_local! {
        /// Runs once, after a check's read of a library began and before its first lookup.
        static BETWEEN_LOOKUPS: RefCell<Option<Box<dyn FnOnce()>>> = RefCell::new(None);
    }

    thread_local! {
        /// Runs before each candidate is verified.
        static BEFORE_VERIFYING: RefCell<Option<Box<dyn FnMut()>>> = RefCell::new(None);
    }

    pub(super) fn before_verifying() {
        BEFORE_VERIFYING.with(|h| {
            if let Some(hook) = h.borrow_mut().as_mut() {
                hook();
            }
        });
    }

    pub(crate) fn between_lookups() {
        if let Some(hook) = BETWEEN_LOOKUPS.with(|h| h.borrow_mut().take()) {
            hook();
        }
    }

    /// One tantivy library on a temporary directory, and the rules it is checked with.
    pub(crate) struct Library {
        _dir: tempfile::TempDir,
        index: Arc<LibraryIndex>,
        analyzer: Analyzer,
        config: CheckConfig,
    }

    impl Library {
        pub(crate) fn new() -> Self {
            let dir = tempfile::tempdir().unwrap();
            let analyzer = default_analyzer();
            let options = IndexOptions {
                writer_memory: 15_000_000,
                ..IndexOptions::default()
            };
            let index = Arc::new(LibraryIndex::open(dir.path(), &analyzer, &options).unwrap());
            Library {
                _dir: dir,
                index,
                analyzer,
                config: CheckConfig::default(),
            }
        }

        /// Writes and commits `(id, text)` documents in English.
        pub(crate) fn add(&self, documents: &[(String, String)]) {
            let limits = TextLimits {
                max_bytes: 5_000_000,
                min_words: 10,
            };
            let prepared: Vec<_> = documents
                .iter()
                .map(|(id, text)| {
                    let input = DocumentInput {
                        id: Some(IdValue::Text(id.clone())),
                        text: Some(text.clone()),
                        lang: Some("en".to_string()),
                        ..Default::default()
                    };
                    prepare(&self.analyzer, limits, input).unwrap()
                })
                .collect();
            self.index.add(&prepared).unwrap();
        }

        pub(crate) fn check(
            &self,
            request: &CheckRequest,
            cancel: &CancelFlag,
        ) -> Result<CheckReport, CheckError> {
            let checker = Checker {
                analyzer: &self.analyzer,
                config: &self.config,
                text_limits: TextLimits {
                    max_bytes: 5_000_000,
                    min_words: 10,
                },
            };
            let stores: [(&str, &dyn LibraryStore); 1] = [("lib", self.index.as_ref())];
            check_stores(&checker, &stores, None, request, cancel, Instant::now())
        }
    }

    /// `n` made-up words, the same for the same `seed`.
    pub(crate) fn words(seed: usize, n: usize) -> String {
        (0..n)
            .map(|i| format!("term{}x{}", (seed * 7919 + i * 104_729) % 5003, i % 13))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A check nobody waits for must stop at its next step rather than verify every
    /// remaining candidate (abandoned checks kept both cores busy long after their clients left).
    #[test]
    fn a_cancelled_check_stops_before_its_next_candidate() {
        let library = Library::new();
        let texts: Vec<String> = (0..6).map(|i| words(i, 80)).collect();
        let documents: Vec<_> = texts
            .iter()
            .enumerate()
            .map(|(i, text)| (format!("d{i}"), text.clone()))
            .collect();
        library.add(&documents);
        // Every document is copied into the query: six candidates to verify.
        let request = CheckRequest::new(texts.join(" "));
        let report = library.check(&request, &CancelFlag::new()).unwrap();
        assert_eq!(report.matches.len(), 6);

        let cancel = CancelFlag::new();
        let verified = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let (flag, count) = (cancel.clone(), verified.clone());
        BEFORE_VERIFYING.with(|h| {
            *h.borrow_mut() = Some(Box::new(move || {
                // The client goes away while the first candidate is being verified.
                count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                flag.cancel();
            }))
        });
        let result = library.check(&request, &cancel);
        BEFORE_VERIFYING.with(|h| h.borrow_mut().take());
        assert!(matches!(result, Err(CheckError::Cancelled)), "{result:?}");
        assert_eq!(verified.load(std::sync::atomic::Ordering::Relaxed), 1);
    }

    /// A commit that lands while a check is between its lookups renumbers the segments; every
    /// lookup and read of the check must still go through one view of the library, or the
    /// check reports another document (or fails).
    #[test]
    fn a_commit_between_a_checks_lookups_does_not_change_what_it_reads() {
        let library = Library::new();
        // Two commits, two segments: five unrelated documents, then the one the query copies.
        let unrelated: Vec<_> = (0..5).map(|i| (format!("x{i}"), words(i, 60))).collect();
        library.add(&unrelated);
        let copied = words(99, 60);
        library.add(&[("y".to_string(), copied.clone())]);

        let index = library.index.clone();
        BETWEEN_LOOKUPS.with(|h| {
            *h.borrow_mut() = Some(Box::new(move || {
                // Deletes and a merge: `y` moves to the first document of the first segment.
                for i in 0..5 {
                    assert!(index.delete(&format!("x{i}")).unwrap());
                }
                index.optimize().unwrap();
            }))
        });
        let report = library
            .check(&CheckRequest::new(copied), &CancelFlag::new())
            .unwrap();
        let found: Vec<&str> = report.matches.iter().map(|m| m.doc_id.as_str()).collect();
        assert_eq!(found, ["y"], "{report:#?}");
        assert_eq!(report.verdict, Verdict::Duplicate);
    }
}
