//! The shortest copied run that is always found (README, "How it works"): ten consecutive terms
//! of a library paper copied anywhere into an otherwise unrelated full paper make that paper a
//! candidate and a counted partial copy, on both backends. (A run of nine terms may or may not
//! be found: nothing is asserted about it.)

use dupfinder::analysis::{SHINGLE_WORDS, ShingleSelection, WINNOW_WINDOW};
use dupfinder::storage::Storage;

use crate::storage_contract::{answer, document, finished, full_papers, postgres, tantivy};

/// The shortest run the selection of new libraries always finds.
const SHORTEST: usize = WINNOW_WINDOW + SHINGLE_WORDS - 1;

fn words(text: &str) -> Vec<&str> {
    text.split_whitespace()
        .map(|w| w.trim_end_matches('.'))
        .collect()
}

fn a_run_of_ten_terms_is_always_found(storage: &dyn Storage) {
    assert_eq!(SHORTEST, 10);
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
    for trial in 0..12 {
        let source = trial % 4;
        let from = words(&papers[source].1);
        let start = 37 + trial * 409;
        let run = &from[start..start + SHORTEST];
        let at = 53 + trial * 401;
        let text = [&host[..at], run, &host[at..]].concat().join(" ");
        let answer = answer(store.as_ref(), &text).unwrap();
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
                .any(|p| p["words"].as_u64() >= Some(SHORTEST as u64)),
            "trial {trial}: {passages:?}"
        );
    }
}

#[test]
fn a_run_of_ten_terms_is_always_found_on_tantivy() {
    a_run_of_ten_terms_is_always_found(tantivy().storage.as_ref());
}

#[test]
fn a_run_of_ten_terms_is_always_found_on_postgres() {
    let Some(backend) = postgres("a_run_of_ten_terms_is_always_found") else {
        return;
    };
    a_run_of_ten_terms_is_always_found(backend.storage.as_ref());
}
