//! The storage contract: one suite of behaviours every backend must show, run on the embedded
//! tantivy backend and on a real PostgreSQL server started for the test — statistics per
//! generation (deleted and replaced documents excluded), every lookup, a generation switch while
//! a view holds the old generation, an interrupted re-index resumed — and the same check answers
//! on both for the fixture corpus and queries made from it.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};

use dupfinder::analysis::{Analyzer, ShingleSelection};
use dupfinder::check::{CancelFlag, CheckRequest, Checker, check_stores};
use dupfinder::config::{Config, PostgresConfig};
use dupfinder::index::{
    DocKey, IndexOptions, PreparedDocument, RebuildControl, RebuildOutcome, ShingleQuery, SortKey,
    SortOrder, default_analyzer,
};
use dupfinder::library::{parse_document, prepare};
use dupfinder::signature::{RobustScheme, all_signatures};
use dupfinder::storage::postgres::PgStorage;
use dupfinder::storage::tantivy::TantivyStorage;
use dupfinder::storage::{LibraryRecord, LibraryStore, RecordChange, Schedule, Storage};
use serde_json::json;

use crate::support::{PgServer, corpus, synthetic_text};

/// A backend under test and what must live as long as it (a directory, a server).
pub(crate) struct Backend {
    pub(crate) storage: Box<dyn Storage>,
    _keep: Box<dyn std::any::Any>,
}

pub(crate) fn tantivy() -> Backend {
    let dir = tempfile::tempdir().unwrap();
    let options = IndexOptions {
        writer_memory: 15_000_000,
        robust: RobustScheme::default(),
    };
    let storage = TantivyStorage::open(dir.path(), default_analyzer(), options).unwrap();
    Backend {
        storage: Box::new(storage),
        _keep: Box::new(dir),
    }
}

pub(crate) fn postgres(test: &str) -> Option<Backend> {
    let server = PgServer::start(test)?;
    let config = PostgresConfig {
        url: Some(server.create_database("dupfinder")),
        max_connections: 8,
    };
    let storage = PgStorage::connect(&config, RobustScheme::default()).unwrap();
    Some(Backend {
        // Dropped in field order: the pool before the server.
        storage: Box::new(storage),
        _keep: Box::new(server),
    })
}

/// Instantiates each contract test for both backends.
macro_rules! contract {
    ($($test:ident),* $(,)?) => {
        mod on_tantivy {
            $(
                #[test]
                fn $test() {
                    let backend = super::tantivy();
                    super::$test(backend.storage.as_ref());
                }
            )*
        }
        mod on_postgres {
            $(
                #[test]
                fn $test() {
                    let Some(backend) = super::postgres(stringify!($test)) else {
                        return;
                    };
                    super::$test(backend.storage.as_ref());
                }
            )*
        }
    };
}

contract!(
    statistics_count_live_documents_of_the_generation,
    every_lookup_finds_live_documents_only,
    a_view_keeps_its_generation_through_a_switch,
    an_interrupted_reindex_resumes,
    libraries_are_created_listed_and_deleted,
    a_record_changes_in_place_and_the_documents_stay,
    search_finds_words_phrases_and_fields,
    a_phrase_deep_in_a_full_paper_is_found_in_its_order_only,
    term_search_ranks_documents_of_one_language,
);

/// The term search of translated-copy checks: documents of the language asked for, those holding
/// most of the terms first; none of another language.
fn term_search_ranks_documents_of_one_language(storage: &dyn Storage) {
    let store = storage.create("terms").unwrap();
    const WORDS: [&str; 24] = [
        "river", "mountain", "protein", "vaccine", "market", "engine", "harbour", "teacher",
        "library", "garden", "weather", "journal", "patient", "circuit", "theatre", "forest",
        "glacier", "senate", "orchard", "bridge", "painter", "station", "harvest", "planet",
    ];
    // Each document draws eight words of its own and a few shared ones, in English.
    let text = |i: usize| {
        let own = (0..8).map(|j| WORDS[(i * 4 + j) % WORDS.len()]);
        let words: Vec<&str> = own.cycle().take(60).collect();
        format!("The {} study.", words.join(" "))
    };
    let mut docs: Vec<PreparedDocument> = (0..6)
        .map(|i| document(&format!("d{i}"), &text(i)))
        .collect();
    docs[5].lang = dupfinder::analysis::Language::Russian;
    store.write(&docs).unwrap();
    finished(store.as_ref());
    let view = store.view().unwrap();
    let terms: Vec<String> = docs[2].term_counts.iter().map(|(t, _)| t.clone()).collect();
    let found = view.term_search(&terms, "en", 3).unwrap().unwrap();
    assert_eq!(found[0], DocKey::of("d2"), "{found:?}");
    assert!(found.len() <= 3);
    let theirs: Vec<String> = docs[5].term_counts.iter().map(|(t, _)| t.clone()).collect();
    let found = view.term_search(&theirs, "ru", 3).unwrap().unwrap();
    assert_eq!(found, [DocKey::of("d5")]);
    assert!(
        view.term_search(&terms, "de", 3)
            .unwrap()
            .unwrap()
            .is_empty()
    );
}

fn analyzer() -> Analyzer {
    default_analyzer()
}

pub(crate) fn document(id: &str, text: &str) -> PreparedDocument {
    let json = json!({"id": id, "title": format!("Title {id}"), "text": text, "lang": "en"});
    let input = parse_document(&json.to_string()).unwrap();
    prepare(&analyzer(), Config::default().limits.text(), input).unwrap()
}

pub(crate) fn finished(store: &dyn LibraryStore) -> u64 {
    match store
        .reindex(&RebuildControl::default(), &mut |_| {})
        .unwrap()
    {
        RebuildOutcome::Finished { generation } => generation,
        other => panic!("the re-index did not finish: {other:?}"),
    }
}

/// `N`, `df` and `cf` counted by hand from the live documents.
fn expected_statistics(live: &[&PreparedDocument]) -> HashMap<String, (u64, u64)> {
    let mut expected: HashMap<String, (u64, u64)> = HashMap::new();
    for document in live {
        for (term, count) in &document.term_counts {
            let entry = expected.entry(term.clone()).or_default();
            entry.0 += 1;
            entry.1 += u64::from(*count);
        }
    }
    expected
}

fn statistics_count_live_documents_of_the_generation(storage: &dyn Storage) {
    let store = storage.create("stats").unwrap();
    let a = document("a", &synthetic_text(1, 120));
    let b = document("b", &synthetic_text(2, 120));
    let c = document("c", &synthetic_text(3, 120));
    store.write(&[a.clone(), b.clone(), c.clone()]).unwrap();
    let b2 = document("b", &synthetic_text(4, 90));
    store.write(std::slice::from_ref(&b2)).unwrap();
    assert!(store.delete("c").unwrap());
    assert!(!store.delete("c").unwrap());
    assert_eq!(finished(store.as_ref()), 1);

    let expected = expected_statistics(&[&a, &b2]);
    let mut asked: Vec<(String, u32)> = Vec::new();
    for d in [&a, &b, &b2, &c] {
        asked.extend(d.term_counts.iter().cloned());
    }
    let view = store.view().unwrap();
    assert_eq!(view.generation(), 1);
    let snapshot = view.statistics(&asked).unwrap();
    assert_eq!(snapshot.docs(), 2, "N counts live documents only");
    for (term, _) in &asked {
        let got = snapshot.get(term).map(|s| (u64::from(s.df), s.cf));
        assert_eq!(got, expected.get(term).copied(), "df and cf of `{term}`");
    }
    let summary = store.summary().unwrap();
    assert_eq!(summary.documents, 2);
    assert_eq!(summary.generation, 1);
    assert_eq!(summary.snapshot_documents, 2);
}

fn every_lookup_finds_live_documents_only(storage: &dyn Storage) {
    let store = storage.create("lookups").unwrap();
    let mut docs: Vec<PreparedDocument> = (0..12)
        .map(|i| document(&format!("d{i}"), &synthetic_text(100 + i, 150)))
        .collect();
    // Some documents name their full text and DOI; the others have neither.
    for (i, d) in docs.iter_mut().enumerate().filter(|(i, _)| i % 3 == 0) {
        d.pdf_url = Some(format!("https://journal.example/{i}.pdf"));
        d.doi = Some(format!("10.5555/d{i}"));
    }
    store.write(&docs).unwrap();
    finished(store.as_ref());
    let view = store.view().unwrap();
    let scheme = view.scheme();
    let selection = view.shingle_selection();
    assert_eq!(selection, ShingleSelection::NEW, "a new library winnows");
    for d in &docs {
        let key = DocKey::of(&d.doc_id);
        assert_eq!(
            view.with_content_hash(d.content_hash, 10).unwrap(),
            vec![key]
        );
        let snapshot = view.statistics(&d.term_counts).unwrap();
        let (seed, robust) = all_signatures(&d.term_counts, &snapshot, scheme);
        assert!(view.with_seed(seed.unwrap(), 10).unwrap().contains(&key));
        assert!(!robust.is_empty());
        for signature in &robust {
            assert!(view.with_robust(*signature, 10).unwrap().contains(&key));
        }
        let sampled = selection.select(&d.shingle_seq);
        let search = view
            .shingle_search(&ShingleQuery {
                shingles: &sampled,
                max_df: u64::MAX,
                min_hits: 1,
                limit: 100,
            })
            .unwrap();
        let best = &search.hits[0];
        assert_eq!(best.0, key, "a document's own shingles find it first");
        assert_eq!(best.1.distinct as usize, sampled.len());
        assert_eq!(search.usable, sampled.len());
        assert!(sampled.iter().all(|s| search.doc_freq.get(s) >= Some(&1)));

        let stored = view.stored(key).unwrap().unwrap();
        assert_eq!(stored.meta.doc_id, d.doc_id);
        assert_eq!(stored.meta.title, d.title);
        assert_eq!(stored.meta.lang, d.lang.code());
        assert_eq!(
            (&stored.meta.pdf_url, &stored.meta.doi),
            (&d.pdf_url, &d.doi)
        );
        assert_eq!(stored.text, d.text);
        assert_eq!(stored.words, d.words);
        assert_eq!(stored.content_hash, d.content_hash);
        let for_check = view.stored_for_check(key).unwrap().unwrap();
        assert_eq!(for_check.shingles, d.shingle_seq);
        assert_eq!(for_check.term_counts().unwrap().to_pairs(), d.term_counts);
        assert_eq!(view.document(&d.doc_id).unwrap().unwrap().text, d.text);
    }
    // Shingles held by more documents than allowed are boilerplate, not candidates.
    let shared = document("shared", &format!("{} {}", docs[0].text, docs[1].text));
    store.write(std::slice::from_ref(&shared)).unwrap();
    let view = store.view().unwrap();
    let search = view
        .shingle_search(&ShingleQuery {
            shingles: &selection.select(&docs[0].shingle_seq),
            max_df: 1,
            min_hits: 1,
            limit: 100,
        })
        .unwrap();
    assert!(!search.frequent.is_empty());
    assert!(search.hits.iter().all(|(k, _)| *k != DocKey::of("d0")));
    drop(view);

    let mut keys: Vec<DocKey> = store.view().unwrap().keys().unwrap();
    keys.sort();
    let mut expected: Vec<DocKey> = docs.iter().map(|d| DocKey::of(&d.doc_id)).collect();
    expected.push(DocKey::of("shared"));
    expected.sort();
    assert_eq!(keys, expected);

    // A deleted document is gone from every lookup of a later view.
    assert!(store.delete("d3").unwrap());
    let gone = &docs[3];
    let key = DocKey::of("d3");
    let view = store.view().unwrap();
    let snapshot = view.statistics(&gone.term_counts).unwrap();
    let (seed, robust) = all_signatures(&gone.term_counts, &snapshot, view.scheme());
    assert!(
        view.with_content_hash(gone.content_hash, 10)
            .unwrap()
            .is_empty()
    );
    assert!(!view.with_seed(seed.unwrap(), 10).unwrap().contains(&key));
    assert!(
        robust
            .iter()
            .all(|s| !view.with_robust(*s, 10).unwrap().contains(&key))
    );
    let search = view
        .shingle_search(&ShingleQuery {
            shingles: &selection.select(&gone.shingle_seq),
            max_df: u64::MAX,
            min_hits: 1,
            limit: 100,
        })
        .unwrap();
    assert!(search.hits.iter().all(|(k, _)| *k != key));
    assert!(view.stored(key).unwrap().is_none());
    assert!(view.document("d3").unwrap().is_none());
    assert!(view.document("never").unwrap().is_none());
    // Many reads at once answer in the keys' order, nothing for a key not live.
    let asked = [
        DocKey::of("d5"),
        key,
        DocKey::of("d0"),
        DocKey::of("never"),
        DocKey::of("d5"),
    ];
    let read: Vec<Option<String>> = view
        .stored_for_check_each(&asked)
        .unwrap()
        .into_iter()
        .map(|d| d.map(|d| d.meta().doc_id.clone()))
        .collect();
    let expected: Vec<Option<String>> = vec![
        Some("d5".into()),
        None,
        Some("d0".into()),
        None,
        Some("d5".into()),
    ];
    assert_eq!(read, expected);
    let d0 = view.stored_for_check_each(&[DocKey::of("d0")]).unwrap();
    let d0 = d0[0].as_ref().unwrap();
    assert_eq!(d0.shingles, docs[0].shingle_seq);
    assert_eq!(d0.term_counts().unwrap().to_pairs(), docs[0].term_counts);

    let page = store.browse(SortKey::DocId, SortOrder::Asc, 3, 1).unwrap();
    assert_eq!(page.total, 12);
    let ids: Vec<&str> = page.items.iter().map(|i| i.meta.doc_id.as_str()).collect();
    assert_eq!(ids, ["d1", "d10", "d11"]);
}

fn a_view_keeps_its_generation_through_a_switch(storage: &dyn Storage) {
    let store = storage.create("switch").unwrap();
    let docs: Vec<PreparedDocument> = (0..8)
        .map(|i| document(&format!("s{i}"), &synthetic_text(200 + i, 140)))
        .collect();
    store.write(&docs).unwrap();
    assert_eq!(finished(store.as_ref()), 1);
    let old = store.view().unwrap();
    let first = &docs[0];
    let old_snapshot = old.statistics(&first.term_counts).unwrap().into_owned();
    let (old_seed, _) = all_signatures(&first.term_counts, &old_snapshot, old.scheme());

    // While the view is held: a new document, a deletion, and a switch to generation 2.
    let late = document("late", &synthetic_text(299, 140));
    store.write(std::slice::from_ref(&late)).unwrap();
    assert!(store.delete("s0").unwrap());
    assert_eq!(finished(store.as_ref()), 2);

    assert_eq!(old.generation(), 1);
    let again = old.statistics(&first.term_counts).unwrap();
    assert_eq!(
        again.docs(),
        8,
        "the old view keeps generation 1's statistics"
    );
    assert!(old.stored(DocKey::of("s0")).unwrap().is_some());
    assert!(old.document("late").unwrap().is_none());
    assert!(
        old.with_seed(old_seed.unwrap(), 10)
            .unwrap()
            .contains(&DocKey::of("s0"))
    );
    drop(old);

    let new = store.view().unwrap();
    assert_eq!(new.generation(), 2);
    assert_eq!(new.statistics(&late.term_counts).unwrap().docs(), 8);
    assert!(new.document("s0").unwrap().is_none());
    let snapshot = new.statistics(&late.term_counts).unwrap();
    let (seed, _) = all_signatures(&late.term_counts, &snapshot, new.scheme());
    assert!(
        new.with_seed(seed.unwrap(), 10)
            .unwrap()
            .contains(&DocKey::of("late"))
    );
}

fn an_interrupted_reindex_resumes(storage: &dyn Storage) {
    let store = storage.create("resume").unwrap();
    let docs: Vec<PreparedDocument> = (0..40)
        .map(|i| document(&format!("r{i:02}"), &synthetic_text(300 + i, 100)))
        .collect();
    store.write(&docs).unwrap();
    let cancel = AtomicBool::new(false);
    let control = RebuildControl {
        cancel: Some(&cancel),
        max_docs_per_second: 0,
        commit_every: 5,
    };
    let outcome = store
        .reindex(&control, &mut |done| {
            if done >= 12 {
                cancel.store(true, Ordering::Relaxed);
            }
        })
        .unwrap();
    let RebuildOutcome::Cancelled { generation, signed } = outcome else {
        panic!("the re-index was not stopped: {outcome:?}");
    };
    assert_eq!(generation, 1);
    assert!(signed >= 12, "{signed}");
    assert_eq!(
        store.view().unwrap().generation(),
        0,
        "checks still read generation 0"
    );

    // Writes go on between the two runs.
    let late = document("late", &synthetic_text(399, 100));
    store.write(std::slice::from_ref(&late)).unwrap();
    assert!(store.delete("r01").unwrap());

    let mut first_progress = None;
    let outcome = store
        .reindex(&RebuildControl::default(), &mut |done| {
            first_progress.get_or_insert(done);
        })
        .unwrap();
    assert_eq!(outcome, RebuildOutcome::Finished { generation: 1 });
    assert!(
        first_progress.unwrap() >= 10,
        "the second run resumed (began at {first_progress:?}), it did not start over"
    );
    let view = store.view().unwrap();
    assert_eq!(view.generation(), 1);
    let mut live: Vec<&PreparedDocument> = docs.iter().filter(|d| d.doc_id != "r01").collect();
    live.push(&late);
    for d in &live {
        let snapshot = view.statistics(&d.term_counts).unwrap();
        let (seed, _) = all_signatures(&d.term_counts, &snapshot, view.scheme());
        assert!(
            view.with_seed(seed.unwrap(), 10)
                .unwrap()
                .contains(&DocKey::of(&d.doc_id)),
            "{} is signed in generation 1",
            d.doc_id
        );
    }
    let gone = &docs[1];
    let snapshot = view.statistics(&gone.term_counts).unwrap();
    let (seed, _) = all_signatures(&gone.term_counts, &snapshot, view.scheme());
    assert!(
        !view
            .with_seed(seed.unwrap(), 10)
            .unwrap()
            .contains(&DocKey::of("r01"))
    );
}

fn libraries_are_created_listed_and_deleted(storage: &dyn Storage) {
    assert!(storage.list().unwrap().is_empty());
    assert!(storage.open("one").unwrap().is_none());
    let one = storage.create("one").unwrap();
    one.write(&[document("x", &synthetic_text(7, 80))]).unwrap();
    storage.create("two").unwrap();
    assert_eq!(storage.list().unwrap(), ["one", "two"]);
    let reopened = storage.open("one").unwrap().unwrap();
    assert!(reopened.view().unwrap().document("x").unwrap().is_some());
    assert!(storage.delete("one").unwrap());
    assert!(!storage.delete("one").unwrap());
    assert_eq!(storage.list().unwrap(), ["two"]);
    assert!(storage.create("not a valid id!").is_err());
}

/// A declaration changed in place (as a registry import does) keeps the library's documents and
/// the record's other fields; a later write's `last_indexed` keeps the change.
fn a_record_changes_in_place_and_the_documents_stay(storage: &dyn Storage) {
    storage
        .register(LibraryRecord {
            name: "Journal".to_string(),
            ..LibraryRecord::of_id("journal", 100)
        })
        .unwrap();
    storage.create("bare").unwrap();
    storage
        .write("journal", &[document("x", &synthetic_text(7, 80))])
        .unwrap();
    let mut declare = |record: &mut LibraryRecord| {
        record.start_url = Some("https://journal.example/".to_string());
        record.schedule = Some(Schedule { every_hours: 24 });
        record.paused = true;
    };
    // A library created without a record is described by its id, and takes one.
    for (id, expected) in [
        ("journal", RecordChange::Changed),
        ("journal", RecordChange::Unchanged),
        ("missing", RecordChange::NotFound),
        ("bare", RecordChange::Changed),
    ] {
        let changed = storage.change_record(id, &mut declare).unwrap();
        assert_eq!(changed, expected, "{id}");
    }
    storage.touch("journal").unwrap();
    let record = storage.record("journal").unwrap().unwrap();
    assert_eq!(record.name, "Journal");
    assert_eq!(
        record.start_url.as_deref(),
        Some("https://journal.example/")
    );
    assert_eq!(
        (record.schedule, record.paused),
        (Some(Schedule { every_hours: 24 }), true)
    );
    assert!(record.last_indexed.is_some());
    let store = storage.library("journal").unwrap();
    assert!(store.view().unwrap().document("x").unwrap().is_some());
    let records = storage.records().unwrap();
    let ids: Vec<&str> = records.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["bare", "journal"]);
    assert!(records[0].paused);
}

/// A check's answer without the time it took, or its error.
pub(crate) fn answer(store: &dyn LibraryStore, text: &str) -> Result<serde_json::Value, String> {
    answer_with(store, text, &Config::default())
}

/// [`answer`] under `config`.
pub(crate) fn answer_with(
    store: &dyn LibraryStore,
    text: &str,
    config: &Config,
) -> Result<serde_json::Value, String> {
    let mut request = CheckRequest::new(text);
    request.passages = true;
    let report = check_stores(
        &Checker {
            analyzer: &analyzer(),
            config: &config.check,
            text_limits: config.limits.text(),
        },
        &[("corpus", store)],
        None,
        &request,
        &CancelFlag::new(),
        std::time::Instant::now(),
    )
    .map_err(|e| e.to_string())?;
    let mut value = serde_json::to_value(&report).unwrap();
    value.as_object_mut().unwrap().remove("took_ms");
    Ok(value)
}

/// Queries made from the corpus: each text as it is, cut short, its sentences reversed, and
/// joined with the next one.
fn generated_queries(texts: &[String]) -> Vec<String> {
    let mut queries = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        queries.push(text.clone());
        let words: Vec<&str> = text.split_whitespace().collect();
        queries.push(words[..words.len() * 2 / 3].join(" "));
        let mut sentences: Vec<&str> = text.split_inclusive(". ").collect();
        sentences.reverse();
        queries.push(sentences.concat());
        let next = &texts[(i + 1) % texts.len()];
        let half: Vec<&str> = next.split_whitespace().collect();
        queries.push(format!("{text} {}", half[..half.len() / 2].join(" ")));
    }
    queries.push(synthetic_text(4242, 200));
    queries
}

#[test]
fn checks_answer_the_same_on_both_backends() {
    let Some(pg) = postgres("checks_answer_the_same_on_both_backends") else {
        return;
    };
    let embedded = tantivy();
    let documents: Vec<PreparedDocument> = corpus()
        .into_iter()
        .map(|value| {
            let input = parse_document(&value.to_string()).unwrap();
            prepare(&analyzer(), Config::default().limits.text(), input).unwrap()
        })
        .collect();
    let texts: Vec<String> = documents.iter().map(|d| d.text.clone()).collect();
    let stores: Vec<_> = [&embedded, &pg]
        .iter()
        .map(|backend| {
            let store = backend.storage.create("corpus").unwrap();
            store.write(&documents).unwrap();
            finished(store.as_ref());
            store
        })
        .collect();
    let queries = generated_queries(&texts);
    let mut with_matches = 0;
    for query in &queries {
        let on_tantivy = answer(stores[0].as_ref(), query);
        let on_postgres = answer(stores[1].as_ref(), query);
        assert_eq!(on_tantivy, on_postgres, "the answers differ for: {query}");
        if on_tantivy.is_ok_and(|a| !a["matches"].as_array().unwrap().is_empty()) {
            with_matches += 1;
        }
    }
    assert!(
        with_matches >= texts.len(),
        "the corpus's own texts find themselves ({with_matches} of {})",
        queries.len()
    );
}

/// The fixture corpus as prepared documents, two of them with authors and other years.
fn search_corpus() -> Vec<PreparedDocument> {
    corpus()
        .into_iter()
        .map(|mut value| {
            match value["id"].as_str().unwrap() {
                "en-01" => value["authors"] = json!(["Anna Smith", "Boris Kalinin"]),
                "en-02" => value["year"] = json!(2015),
                _ => {}
            }
            let input = parse_document(&value.to_string()).unwrap();
            prepare(&analyzer(), Config::default().limits.text(), input).unwrap()
        })
        .collect()
}

/// The ids a search finds (every hit), and the total it reports.
fn found(store: &dyn LibraryStore, query: &str) -> Result<(BTreeSet<String>, usize), String> {
    let results = store.search(query, 1000, 0).map_err(|e| e.to_string())?;
    let ids = results.hits.iter().map(|h| h.meta.doc_id.clone()).collect();
    Ok((ids, results.total))
}

/// Full papers of ~5,000 made-up words (no stop words, so a phrase's words are its terms), drawn
/// from a small vocabulary by a fixed sequence: many shared words, few shared runs.
pub(crate) fn full_papers(count: usize) -> Vec<(String, String)> {
    let syllables = [
        "ka", "lo", "mer", "ti", "sun", "var", "pel", "dor", "qui", "zan",
    ];
    let vocabulary: Vec<String> = (0..300)
        .map(|i| {
            let (a, b, c) = (i % 10, (i / 10) % 10, (i / 100) % 10);
            format!("{}{}{}x", syllables[a], syllables[b], syllables[c])
        })
        .collect();
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    (0..count)
        .map(|paper| {
            let words: Vec<&str> = (0..5_000)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    vocabulary[(state % 300) as usize].as_str()
                })
                .collect();
            let paragraphs: Vec<String> = words.chunks(100).map(|c| c.join(" ") + ".").collect();
            (format!("paper-{paper}"), paragraphs.join("\n\n"))
        })
        .collect()
}

fn a_phrase_deep_in_a_full_paper_is_found_in_its_order_only(storage: &dyn Storage) {
    let store = storage.create("full-papers").unwrap();
    let papers = full_papers(4);
    let documents: Vec<PreparedDocument> = papers.iter().map(|(id, t)| document(id, t)).collect();
    store.write(&documents).unwrap();
    // Six words from the last thousand of the third paper, as a phrase and out of order.
    let words: Vec<&str> = papers[2].1.split_whitespace().collect();
    let run: Vec<&str> = words[4_200..4_206]
        .iter()
        .map(|w| w.trim_end_matches('.'))
        .collect();
    let holding = |phrase: &[&str]| -> BTreeSet<String> {
        papers
            .iter()
            .filter(|(_, text)| {
                let flat: Vec<&str> = text
                    .split_whitespace()
                    .map(|w| w.trim_end_matches('.'))
                    .collect();
                flat.windows(phrase.len()).any(|w| w == phrase)
            })
            .map(|(id, _)| id.clone())
            .collect()
    };
    let ids = |query: &str| found(store.as_ref(), query).unwrap().0;
    let phrase = format!("\"{}\"", run.join(" "));
    assert!(holding(&run).contains("paper-2"));
    assert_eq!(ids(&phrase), holding(&run), "{phrase}");
    let mut reversed = run.clone();
    reversed.reverse();
    let phrase = format!("\"{}\"", reversed.join(" "));
    assert_eq!(ids(&phrase), holding(&reversed), "{phrase}");
    assert!(!holding(&reversed).contains("paper-2") || holding(&run) == holding(&reversed));
    // Every word of the run alone is in every paper: only the order tells them apart.
    assert_eq!(ids(&run.join(" ")).len(), papers.len());
    // The full text comes back as it was written.
    let view = store.view().unwrap();
    let stored = view.stored(DocKey::of("paper-2")).unwrap().unwrap();
    assert_eq!(stored.text, papers[2].1);
}

fn search_finds_words_phrases_and_fields(storage: &dyn Storage) {
    let store = storage.create("papers").unwrap();
    let documents = search_corpus();
    store.write(&documents).unwrap();
    let ids = |query: &str| found(store.as_ref(), query).unwrap().0;
    let set = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    let russian: BTreeSet<String> = documents
        .iter()
        .filter(|d| d.doc_id.starts_with("ru-"))
        .map(|d| d.doc_id.clone())
        .collect();

    assert!(ids("nitrogen fixation").contains("en-01"));
    assert_eq!(
        ids("\"free-living nitrogen-fixing bacteria\""),
        set(&["en-01"])
    );
    // Words combined with AND: no document speaks of both.
    assert!(ids("nitrogen superconducting").is_empty());
    assert_eq!(ids("title:fusion"), set(&["en-02"]));
    assert_eq!(ids("author:smith"), set(&["en-01"]));
    assert_eq!(ids("author:kalinin nitrogen"), set(&["en-01"]));
    assert!(ids("author:nitrogen").is_empty());
    assert_eq!(ids("lang:ru"), russian);
    assert_eq!(ids("year:2015"), set(&["en-02"]));
    assert_eq!(ids("year:..2016 loop"), set(&["en-02"]));
    assert!(!ids("year:2016..").contains("en-02"));
    assert!(!ids("nitrogen -wheat").contains("en-01"));
    assert!(ids("nitrogen OR superconducting").len() >= 2);
    // Stemmed as the analyzer stems: another form of the same word.
    assert!(ids("мониторинг работников").contains("ru-01"));
    // Stop words alone ask for nothing; exclusions alone are refused.
    assert_eq!(
        found(store.as_ref(), "the of and").unwrap(),
        (BTreeSet::new(), 0)
    );
    assert!(found(store.as_ref(), "-wheat").is_err());
    assert!(found(store.as_ref(), "colour:red").is_err());

    // Snippets mark the words; pages keep the total.
    let results = store.search("nitrogen", 1, 0).unwrap();
    assert_eq!(results.hits.len(), 1);
    assert!(
        results.hits[0]
            .snippet
            .to_lowercase()
            .contains("<b>nitrogen</b>"),
        "{}",
        results.hits[0].snippet
    );
    let total = results.total;
    assert!(total >= 1, "{total}");
    let past = store.search("nitrogen", 10, 500).unwrap();
    assert_eq!((past.total, past.hits.len()), (total, 0));
    // A title match ranks first.
    let top = store.search("fusion", 10, 0).unwrap();
    assert_eq!(top.hits[0].meta.doc_id, "en-02");

    // A deleted document is not found; a replaced one is found by its new text.
    assert!(store.delete("en-02").unwrap());
    assert!(ids("title:fusion").is_empty());
    let replaced = json!({
        "id": "en-01",
        "title": "Residue mulch",
        "text": "Quasicrystal lattices of aluminium alloys grown by slow cooling show \
                 tenfold diffraction symmetry, sharp Bragg peaks and phason strain relaxing \
                 over weeks of annealing.",
    });
    let replaced = parse_document(&replaced.to_string()).unwrap();
    let replaced = prepare(&analyzer(), Config::default().limits.text(), replaced).unwrap();
    store.write(std::slice::from_ref(&replaced)).unwrap();
    assert_eq!(ids("quasicrystal"), set(&["en-01"]));
    assert!(!ids("nitrogen").contains("en-01"));

    // A "word" longer than a database lexeme may be (an embedded blob) is written, and the
    // document is found by its other words.
    let blob = json!({
        "id": "blob",
        "title": "Embedded data",
        "text": format!("{} {}", "q".repeat(3_000), replaced.text),
    });
    let blob = parse_document(&blob.to_string()).unwrap();
    let blob = prepare(&analyzer(), Config::default().limits.text(), blob).unwrap();
    store.write(std::slice::from_ref(&blob)).unwrap();
    assert_eq!(ids("quasicrystal"), set(&["blob", "en-01"]));
    assert!(ids(&"q".repeat(3_000)).is_subset(&set(&["blob"])));
}

/// Both backends find the same documents, with the same totals, for queries made from the
/// corpus: title words, phrases of the text, field filters and exclusions.
#[test]
fn searches_find_the_same_documents_on_both_backends() {
    let Some(pg) = postgres("searches_find_the_same_documents_on_both_backends") else {
        return;
    };
    let embedded = tantivy();
    let documents = search_corpus();
    let stores: Vec<_> = [&embedded, &pg]
        .iter()
        .map(|backend| {
            let store = backend.storage.create("papers").unwrap();
            store.write(&documents).unwrap();
            store
        })
        .collect();
    let mut queries = Vec::new();
    for document in &documents {
        let title: Vec<&str> = document
            .title
            .as_deref()
            .unwrap_or_default()
            .split_whitespace()
            .filter(|w| w.chars().count() > 4)
            .collect();
        let words: Vec<&str> = document.text.split_whitespace().collect();
        if let [first, second, ..] = title[..] {
            queries.push(format!("{first} {second}"));
            queries.push(format!("title:{first}"));
            queries.push(format!("{first} -{second}"));
        }
        if words.len() <= 40 {
            continue;
        }
        queries.push(format!("\"{}\"", words[10..13].join(" ")));
        queries.push(format!("{} lang:{}", words[20], document.lang.code()));
        queries.push(format!("{} OR {}", words[30], words[40]));
    }
    let mut with_hits = 0;
    for query in &queries {
        let on_tantivy = found(stores[0].as_ref(), query);
        let on_postgres = found(stores[1].as_ref(), query);
        assert_eq!(on_tantivy, on_postgres, "the hits differ for: {query}");
        if on_tantivy.is_ok_and(|(ids, _)| !ids.is_empty()) {
            with_hits += 1;
        }
    }
    assert!(
        with_hits * 3 >= queries.len() * 2,
        "most queries find something ({with_hits} of {})",
        queries.len()
    );
}

/// Libraries kept on two PostgreSQL servers, one check against both: the check reads each
/// library through its own server's view and merges the matches.
#[test]
fn one_check_spans_libraries_on_two_servers() {
    let Some(first) = postgres("one_check_spans_libraries_on_two_servers") else {
        return;
    };
    let Some(second) = postgres("one_check_spans_libraries_on_two_servers") else {
        return;
    };
    // The same paper in both libraries, under other ids, with a sentence more in the east.
    let text = synthetic_text(501, 160);
    let left = document("left", &text);
    let right = document("right", &format!("{text} {}", synthetic_text(502, 12)));
    let west = first.storage.create("west").unwrap();
    west.write(std::slice::from_ref(&left)).unwrap();
    let east = second.storage.create("east").unwrap();
    east.write(std::slice::from_ref(&right)).unwrap();
    assert!(second.storage.open("west").unwrap().is_none());

    // The same two libraries on tantivy, for comparison.
    let embedded = tantivy();
    let west_local = embedded.storage.create("west").unwrap();
    west_local.write(std::slice::from_ref(&left)).unwrap();
    let east_local = embedded.storage.create("east").unwrap();
    east_local.write(std::slice::from_ref(&right)).unwrap();

    let request = CheckRequest::new(text.clone());
    let check = |west: &dyn LibraryStore, east: &dyn LibraryStore| {
        check_stores(
            &Checker {
                analyzer: &analyzer(),
                config: &Config::default().check,
                text_limits: Config::default().limits.text(),
            },
            &[("west", west), ("east", east)],
            None,
            &request,
            &CancelFlag::new(),
            std::time::Instant::now(),
        )
        .unwrap()
    };
    let report = check(west.as_ref(), east.as_ref());
    let local = check(west_local.as_ref(), east_local.as_ref());
    let mut a = serde_json::to_value(&report).unwrap();
    let mut b = serde_json::to_value(&local).unwrap();
    a.as_object_mut().unwrap().remove("took_ms");
    b.as_object_mut().unwrap().remove("took_ms");
    assert_eq!(a, b, "two servers answer as two tantivy libraries");
    let found: BTreeSet<(String, String)> = report
        .matches
        .iter()
        .map(|m| (m.library.clone(), m.doc_id.clone()))
        .collect();
    let expected: BTreeSet<(String, String)> = [("west", "left"), ("east", "right")]
        .iter()
        .map(|(l, d)| (l.to_string(), d.to_string()))
        .collect();
    assert_eq!(found, expected, "{report:#?}");
    assert_eq!(report.generations.len(), 2);
}

/// A catalog asked to serve PostgreSQL without saying which server is refused with the reason,
/// never served from the data directory instead.
#[test]
fn the_catalog_refuses_postgres_without_a_url() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::default();
    config.storage.data_dir = dir.path().to_path_buf();
    config.storage.backend = dupfinder::storage::Backend::Postgres;
    let Err(error) = dupfinder::library::Catalog::open(&config) else {
        panic!("a catalog opened on backend = \"postgres\" without a url");
    };
    assert!(
        error.to_string().contains("[storage.postgres] url"),
        "{error}"
    );
    assert!(
        !dir.path().join("libraries").exists(),
        "the data directory was prepared for tantivy libraries"
    );
}
