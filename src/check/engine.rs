//! Running a check across libraries: the query analyzed once, then per library one read view
//! from which candidates are gathered and verified; the matches of every library merged,
//! filtered by `min_similarity` and sorted.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::time::Instant;

use super::gather::gather;
use super::kinds::{KindedRange, figures};
use super::report::{ratio, round};
use super::request::go_on;
use super::verify::{
    Query, Verified, covered, distinct_without, for_each_read, token_spans, verify,
};
use super::{
    CancelFlag, CheckError, CheckReport, CheckRequest, Exclusions, Flag, MatchReport, Method, Span,
    Verdict,
};
use crate::analysis::{AnalyzedText, Analyzer, analyze_text};
use crate::config::Config;
use crate::library::{Catalog, DocumentError, parse_lang, phrases};
use crate::storage::LibraryStore;
use crate::structure::Structure;

/// Checks a text against the requested libraries.
pub fn check(catalog: &Catalog, request: &CheckRequest) -> Result<CheckReport, CheckError> {
    check_cancellable(catalog, request, &CancelFlag::new())
}

/// Checks a text against the requested libraries, stopping with [`CheckError::Cancelled`]
/// between steps (each library, each candidate) once `cancel` is set.
pub fn check_cancellable(
    catalog: &Catalog,
    request: &CheckRequest,
    cancel: &CancelFlag,
) -> Result<CheckReport, CheckError> {
    let started = Instant::now();
    if !(0.0..=1.0).contains(&request.min_similarity) {
        return Err(CheckError::InvalidSimilarity(request.min_similarity));
    }
    let ids = match request.distinct_libraries() {
        Some(ids) if ids.is_empty() => return Err(CheckError::NoLibraries),
        Some(ids) => ids,
        None => catalog.ids()?,
    };
    let libraries = ids
        .iter()
        .map(|id| catalog.store(id).map(|store| (id.as_str(), store)))
        .collect::<Result<Vec<_>, _>>()?;
    let stores: Vec<(&str, &dyn LibraryStore)> = libraries
        .iter()
        .map(|(id, store)| (*id, store.as_ref()))
        .collect();
    check_stores(
        catalog.analyzer(),
        catalog.config(),
        &stores,
        request,
        cancel,
        started,
    )
}

/// Checks a text against `libraries`, whatever backend keeps them: the part of a check after
/// the libraries were found (`started` is when the check began, for `took_ms`).
pub fn check_stores(
    analyzer: &Analyzer,
    config: &Config,
    libraries: &[(&str, &dyn LibraryStore)],
    request: &CheckRequest,
    cancel: &CancelFlag,
    started: Instant,
) -> Result<CheckReport, CheckError> {
    let lang = parse_lang(request.lang.as_deref())?;
    // The text's preparation is three steps, each linear in the text (a fraction of a second
    // for the largest text in a release build); a check given up meanwhile stops after the
    // step.
    let query = analyze(analyzer, config, &request.text, lang)?;
    go_on(cancel)?;
    let structure = Structure::detect(&request.text);
    go_on(cancel)?;
    let context = QueryContext {
        structure,
        token_chars: token_spans(&request.text, &query.tokens),
        exclusions: request.exclude.resolve(&config.check),
    };
    go_on(cancel)?;

    let budget = WorkBudget::new(&config.check, query.shingles.len());
    let mut signature = None;
    let mut generations = BTreeMap::new();
    let mut found_matches: Vec<(MatchReport, Vec<KindedRange>)> = Vec::new();
    for (i, (id, store)) in libraries.iter().enumerate() {
        go_on(cancel)?;
        let found = LibraryCheck {
            library: id,
            store: *store,
            analyzer,
            config,
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
        generations.insert(id.to_string(), found.generation);
        found_matches.extend(found.matches);
    }
    let exclusions = context.exclusions;
    for (report, _) in &mut found_matches {
        if !exclusions.counts_source(&report.library, &report.doc_id) {
            report.counted = false;
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
        flags: Flag::of(&query.disguises, query.words),
        generations,
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
    catalog: &Catalog,
    library: &str,
    text: &str,
) -> Result<HashMap<Method, Vec<String>>, CheckError> {
    let index = catalog.index(library)?;
    let query = analyze(catalog.analyzer(), catalog.config(), text, None)?;
    let view = index.view();
    let gathered = gather(&view, &query, &catalog.config().check, true)?;
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
    analyzer: &Analyzer,
    config: &Config,
    text: &str,
    lang: Option<crate::analysis::Language>,
) -> Result<AnalyzedText, DocumentError> {
    Ok(analyze_text(analyzer, text, lang, config.limits.text())?)
}

/// One library's matches.
struct LibraryMatches {
    signature: Option<u32>,
    generation: u64,
    matches: Vec<Verified>,
}

/// One library's part of a check.
struct LibraryCheck<'a> {
    library: &'a str,
    store: &'a dyn LibraryStore,
    analyzer: &'a Analyzer,
    config: &'a Config,
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
    fn new(config: &crate::config::CheckConfig, query_shingles: usize) -> Self {
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
        let config = &self.config.check;
        let view = self.store.view()?;
        let gathered = gather(view.as_ref(), self.query, config, false)?;
        // The library's own boilerplate phrases, read afresh: one added through another process
        // on a shared database is honoured at once.
        let phrases = phrases::shingles_of(&self.store.kept(), self.analyzer, self.query.lang);
        let query = Query {
            analyzed: self.query,
            text: self.query_text,
            distinct: distinct_without(&self.query.shingles, &gathered.frequent),
            frequent: &gathered.frequent,
            sampled: gathered.usable,
            structure: &self.context.structure,
            token_chars: &self.context.token_chars,
            exclusions: &self.context.exclusions,
            analyzer: self.analyzer,
            doc_freq: &gathered.doc_freq,
            phrases: &phrases,
        };
        let analyzer = self.passages.then_some(self.analyzer);
        let mut matches = Vec::new();
        for_each_read(
            view.as_ref(),
            gathered.candidates,
            &query,
            config,
            |_, candidate, stored| {
                go_on(self.cancel)?;
                self.budget.verify_one()?;
                #[cfg(test)]
                tests::before_verifying();
                let Some(stored) = stored else {
                    return Ok(());
                };
                let verified = verify(
                    view.as_ref(),
                    self.library,
                    candidate,
                    stored,
                    &query,
                    config,
                    analyzer,
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
            matches,
        })
    }
}

#[cfg(test)]
pub(super) mod tests {
    use std::cell::RefCell;
    use std::sync::Arc;

    use super::*;
    use crate::check::{CheckRequest, Verdict};
    use crate::config::Config;
    use crate::library::{DocumentInput, IdValue, NewLibrary};

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

    /// A check nobody waits for must stop at its next step rather than verify every
    /// remaining candidate (abandoned checks kept both cores busy long after their clients left).
    #[test]
    fn a_cancelled_check_stops_before_its_next_candidate() {
        let (_dir, catalog) = catalog_with_library();
        let texts: Vec<String> = (0..6).map(|i| words(i, 80)).collect();
        let documents = texts
            .iter()
            .enumerate()
            .map(|(i, text)| input(&format!("d{i}"), text.clone()))
            .collect();
        catalog.ingest("lib", documents).unwrap();
        // Every document is copied into the query: six candidates to verify.
        let request = CheckRequest::new(texts.join(" "));
        assert_eq!(check(&catalog, &request).unwrap().matches.len(), 6);

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
        let result = check_cancellable(&catalog, &request, &cancel);
        BEFORE_VERIFYING.with(|h| h.borrow_mut().take());
        assert!(matches!(result, Err(CheckError::Cancelled)), "{result:?}");
        assert_eq!(verified.load(std::sync::atomic::Ordering::Relaxed), 1);
    }

    pub(in crate::check) fn between_lookups() {
        if let Some(hook) = BETWEEN_LOOKUPS.with(|h| h.borrow_mut().take()) {
            hook();
        }
    }

    /// A catalog on a temporary data directory with an empty library `lib`.
    fn catalog_with_library() -> (tempfile::TempDir, Arc<Catalog>) {
        let dir = tempfile::tempdir().unwrap();
        let mut config = Config::default();
        config.storage.data_dir = dir.path().to_path_buf();
        config.storage.writer_memory_mb = 15;
        let catalog = Arc::new(Catalog::open(&config).unwrap());
        catalog
            .create(NewLibrary {
                id: "lib".to_string(),
                ..Default::default()
            })
            .unwrap();
        (dir, catalog)
    }

    fn words(seed: usize, n: usize) -> String {
        (0..n)
            .map(|i| format!("term{}x{}", (seed * 7919 + i * 104_729) % 5003, i % 13))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn input(
        id: &str,
        text: String,
    ) -> (usize, Result<DocumentInput, crate::library::DocumentError>) {
        let document = DocumentInput {
            id: Some(IdValue::Text(id.to_string())),
            text: Some(text),
            lang: Some("en".to_string()),
            ..Default::default()
        };
        (1, Ok(document))
    }

    /// A commit that lands while a check is between its lookups renumbers the segments; every
    /// lookup and read of the check must still go through one view of the library, or the
    /// check reports another document (or fails).
    #[test]
    fn a_commit_between_a_checks_lookups_does_not_change_what_it_reads() {
        let (_dir, catalog) = catalog_with_library();
        // Two commits, two segments: five unrelated documents, then the one the query copies.
        let unrelated = (0..5)
            .map(|i| input(&format!("x{i}"), words(i, 60)))
            .collect();
        catalog.ingest("lib", unrelated).unwrap();
        let copied = words(99, 60);
        catalog
            .ingest("lib", vec![input("y", copied.clone())])
            .unwrap();

        let writer = catalog.clone();
        BETWEEN_LOOKUPS.with(|h| {
            *h.borrow_mut() = Some(Box::new(move || {
                // Deletes and a merge: `y` moves to the first document of the first segment.
                let index = writer.index("lib").unwrap();
                for i in 0..5 {
                    assert!(index.delete(&format!("x{i}")).unwrap());
                }
                index.optimize().unwrap();
            }))
        });
        let report = check(&catalog, &CheckRequest::new(copied)).unwrap();
        let found: Vec<&str> = report.matches.iter().map(|m| m.doc_id.as_str()).collect();
        assert_eq!(found, ["y"], "{report:#?}");
        assert_eq!(report.verdict, Verdict::Duplicate);
    }
}
