//! The shortest copied run that is always found (README, "How it works"): eighteen consecutive
//! terms of a library paper (ten with `min_shingle_hits = 1`) copied anywhere into an otherwise
//! unrelated full paper make that paper a candidate and a counted partial copy, on both
//! backends. (Shorter runs may or may not be found: nothing is asserted about them.) A
//! PostgreSQL library from before winnowing keeps its sample.

use dupfinder::analysis::{SHINGLE_WORDS, ShingleSelection, WINNOW_WINDOW};
use dupfinder::config::PostgresConfig;
use dupfinder::index::{DocKey, ShingleQuery};
use dupfinder::signature::RobustScheme;
use dupfinder::storage::postgres::PgStorage;
use dupfinder::storage::{ReadView, Storage};

use dupfinder::config::Config;

use crate::storage_contract::{
    answer, answer_with, document, finished, full_papers, postgres, tantivy,
};
use crate::support::{PgServer, synthetic_text};

/// The shortest run the selection of new libraries always finds with `min_shingle_hits` at 1
/// (one whole window), and at its default 2 (two windows apart).
const SHORTEST: [usize; 2] = [
    WINNOW_WINDOW + SHINGLE_WORDS - 1,
    2 * WINNOW_WINDOW + SHINGLE_WORDS - 1,
];

fn words(text: &str) -> Vec<&str> {
    text.split_whitespace()
        .map(|w| w.trim_end_matches('.'))
        .collect()
}

fn the_shortest_run_is_always_found(storage: &dyn Storage) {
    assert_eq!(SHORTEST, [10, 18]);
    let store = storage.create("runs").unwrap();
    let papers = full_papers(6);
    let documents: Vec<_> = papers[..4].iter().map(|(id, t)| document(id, t)).collect();
    store.write(&documents).unwrap();
    finished(store.as_ref());
    assert_eq!(
        store.view().unwrap().shingle_selection(),
        ShingleSelection::Winnowed
    );
    // The last paper is in no library: the text every run is copied into.
    let host = words(&papers[5].1);
    for trial in 0..24 {
        let hits = 1 + trial % 2;
        let shortest = SHORTEST[hits - 1];
        let mut config = Config::default();
        config.check.min_shingle_hits = hits as u32;
        let source = trial % 4;
        let from = words(&papers[source].1);
        let start = 37 + (trial / 2) * 409;
        let run = &from[start..start + shortest];
        let at = 53 + (trial / 2) * 401;
        let text = [&host[..at], run, &host[at..]].concat().join(" ");
        let answer = answer_with(store.as_ref(), &text, &config).unwrap();
        let id = format!("paper-{source}");
        let found = answer["matches"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["doc_id"] == id.as_str())
            .unwrap_or_else(|| panic!("trial {trial}: {id} not found for {run:?}: {answer}"));
        assert_eq!(found["verdict"], "partial", "trial {trial}: {found}");
        assert_eq!(found["counted"], true, "trial {trial}: {found}");
        let passages = found["passages"].as_array().unwrap();
        assert!(
            passages
                .iter()
                .any(|p| p["words"].as_u64() >= Some(shortest as u64)),
            "trial {trial}: {passages:?}"
        );
    }
}

#[test]
fn the_shortest_run_is_always_found_on_tantivy() {
    the_shortest_run_is_always_found(tantivy().storage.as_ref());
}

#[test]
fn the_shortest_run_is_always_found_on_postgres() {
    let Some(backend) = postgres("the_shortest_run_is_always_found") else {
        return;
    };
    the_shortest_run_is_always_found(backend.storage.as_ref());
}

/// A PostgreSQL library created before winnowing (migration 8 left its row at "mod 4") keeps
/// its sample for the documents written to it, and answers as a library that winnows.
#[test]
fn a_postgres_library_of_the_mod_4_sample_keeps_it() {
    let Some(server) = PgServer::start("a_postgres_library_of_the_mod_4_sample_keeps_it") else {
        return;
    };
    let config = PostgresConfig {
        url: Some(server.create_database("dupfinder")),
        max_connections: 4,
    };
    let storage = PgStorage::connect(&config, RobustScheme::default()).unwrap();
    let (old, new) = (
        storage.create("old").unwrap(),
        storage.create("new").unwrap(),
    );
    server.psql(
        "dupfinder",
        "UPDATE libraries SET shingles = 'mod 4' WHERE library = 'old'",
    );
    let texts: Vec<String> = (0..5).map(|n| synthetic_text(n, 400)).collect();
    let documents: Vec<_> = texts
        .iter()
        .enumerate()
        .map(|(n, t)| document(&format!("d{n}"), t))
        .collect();
    for store in [&old, &new] {
        store.write(&documents).unwrap();
        finished(store.as_ref());
    }
    let view = old.view().unwrap();
    assert_eq!(view.shingle_selection(), ShingleSelection::Modulo);
    assert_eq!(
        new.view().unwrap().shingle_selection(),
        ShingleSelection::Winnowed
    );
    for d in &documents {
        assert_holds_the_mod_4_sample(view.as_ref(), DocKey::of(&d.doc_id), &d.shingle_seq);
    }
    drop(view);
    for (n, text) in texts.iter().enumerate() {
        let words: Vec<&str> = text.split_whitespace().collect();
        let unrelated = synthetic_text(100 + n as u64, 300);
        let host: Vec<&str> = unrelated.split_whitespace().collect();
        let inside = [&host[..150], &words[100..160], &host[150..]]
            .concat()
            .join(" ");
        for query in [text.clone(), inside] {
            let before = answer(old.as_ref(), &query).unwrap();
            assert_eq!(before, answer(new.as_ref(), &query).unwrap(), "{query}");
            assert!(!before["matches"].as_array().unwrap().is_empty());
        }
    }
}

/// Asserts that `view` indexes document `key`, whose shingles by position are `sequence`, with
/// the 0 mod 4 sample: all of it, and nothing winnowing alone would have chosen.
pub(crate) fn assert_holds_the_mod_4_sample(view: &dyn ReadView, key: DocKey, sequence: &[u64]) {
    let search = |shingles: &[u64]| {
        view.shingle_search(&ShingleQuery {
            shingles,
            max_df: u64::MAX,
            min_hits: 1,
            limit: 10,
        })
        .unwrap()
        .hits
    };
    let sampled = ShingleSelection::Modulo.select(sequence);
    let hits = search(&sampled);
    assert_eq!(hits[0].0, key);
    assert_eq!(hits[0].1.distinct as usize, sampled.len());
    let winnowed_only: Vec<u64> = ShingleSelection::Winnowed
        .select(sequence)
        .into_iter()
        .filter(|h| sampled.binary_search(h).is_err())
        .collect();
    assert!(!winnowed_only.is_empty());
    assert!(search(&winnowed_only).is_empty());
}
