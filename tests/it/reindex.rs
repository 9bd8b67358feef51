//! Re-indexing: a cancelled re-index resumes, writes made during one end up signed in the new
//! generation, and a damaged statistics snapshot is rebuilt when the library opens.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use axum::http::StatusCode;
use dupfinder::analysis::analyze_text;
use dupfinder::config::Config;
use dupfinder::index::{LibraryIndex, PreparedDocument, RebuildControl, RebuildOutcome};
use dupfinder::library::{Catalog, DocumentInput, IdValue, JobState, JobTrigger, Jobs, NewLibrary};
use dupfinder::signature::seed_signature;
use dupfinder::storage::ingest::prepare;
use serde_json::{Value, json};

use crate::support::{app, catalog, catalog_with, synthetic_text};
use crate::support::{error_code, json_request, send};

/// Creates library `id` with documents `d{from}..d{to}` of synthetic text.
pub(crate) fn add_synthetic(catalog: &Catalog, id: &str, from: u64, to: u64) {
    if catalog.store(id).is_err() {
        catalog
            .create(NewLibrary {
                id: id.to_string(),
                ..Default::default()
            })
            .unwrap();
    }
    let lines = (from..to)
        .enumerate()
        .map(|(i, n)| (i + 1, Ok(synthetic_input(n))))
        .collect();
    let report = catalog.ingest(id, lines).unwrap();
    assert!(report.rejected.is_empty(), "{:?}", report.rejected);
}

/// Every live document is signed in the current generation with exactly the signature its text
/// has against the current snapshot, and nothing else is signed.
pub(crate) fn assert_signed_consistently(catalog: &Catalog, index: &LibraryIndex, ids: &[String]) {
    let signatures = index.signatures();
    assert_eq!(signatures.len(), ids.len() as u64, "signed documents");
    for doc_id in ids {
        let stored = index.document(doc_id).unwrap().unwrap();
        let query = analyze_text(
            catalog.analyzer(),
            &stored.text,
            None,
            catalog.config().limits.text(),
        )
        .unwrap();
        assert_eq!(
            signatures.seed_of(doc_id).unwrap(),
            seed_signature(&query.term_counts, signatures.snapshot()),
            "{doc_id} in generation {}",
            signatures.generation()
        );
    }
}

/// A re-index of `index` signing `per_second` documents a second on a thread of its own,
/// returned once it has signed its first.
fn rebuild_in_the_background(
    index: &Arc<LibraryIndex>,
    per_second: u32,
) -> std::thread::JoinHandle<RebuildOutcome> {
    let (started_tx, started_rx) = std::sync::mpsc::channel();
    let index = index.clone();
    let rebuilding = std::thread::spawn(move || {
        let control = RebuildControl {
            max_docs_per_second: per_second,
            commit_every: 50,
            ..Default::default()
        };
        let mut told = false;
        index
            .rebuild(&control, |_| {
                if !told {
                    started_tx.send(()).unwrap();
                    told = true;
                }
            })
            .unwrap()
    });
    started_rx.recv().unwrap();
    rebuilding
}

fn ids(range: std::ops::Range<u64>) -> Vec<String> {
    range.map(|n| format!("d{n}")).collect()
}

#[test]
fn a_cancelled_reindex_resumes_where_it_stopped() {
    let (_dir, catalog) = catalog();
    add_synthetic(&catalog, "lib", 0, 300);
    let index = catalog.index("lib").unwrap();
    assert_eq!(index.signatures().generation(), 1);

    let cancel = AtomicBool::new(true);
    let control = RebuildControl {
        cancel: Some(&cancel),
        ..Default::default()
    };
    let outcome = index.rebuild(&control, |_| {}).unwrap();
    assert_eq!(
        outcome,
        RebuildOutcome::Cancelled {
            generation: 2,
            signed: 1
        }
    );
    // Checks still read generation 1, complete.
    assert_eq!(index.signatures().generation(), 1);
    assert_signed_consistently(&catalog, &index, &ids(0..300));

    // A write between the two runs is signed in the new generation too.
    add_synthetic(&catalog, "lib", 300, 310);
    let mut first_progress = None;
    let generation = index
        .rebuild_statistics(|done| {
            first_progress.get_or_insert(done);
        })
        .unwrap();
    assert_eq!(generation, 2);
    assert_eq!(
        first_progress,
        Some(1),
        "the resumed run starts from the signed document"
    );
    assert_signed_consistently(&catalog, &index, &ids(0..310));
    assert!(
        !index.dir().join("signatures/gen-1").exists(),
        "the old generation is removed"
    );
}

#[test]
fn writes_during_a_reindex_are_signed_in_the_new_generation() {
    let (_dir, catalog) = catalog();
    add_synthetic(&catalog, "lib", 0, 400);
    let index = catalog.index("lib").unwrap();
    let rebuilding = rebuild_in_the_background(&index, 400);
    // During the re-index (about one second): new documents, a replaced one, a deleted one.
    add_synthetic(&catalog, "lib", 400, 420);
    let replaced = DocumentInput {
        id: Some(IdValue::Text("d5".to_string())),
        text: Some(synthetic_text(9_999, 90)),
        ..Default::default()
    };
    catalog.ingest("lib", vec![(1, Ok(replaced))]).unwrap();
    assert!(index.delete("d7").unwrap());
    assert_eq!(
        index.signatures().generation(),
        1,
        "the re-index is still running"
    );

    let outcome = rebuilding.join().unwrap();
    assert_eq!(outcome, RebuildOutcome::Finished { generation: 2 });
    let live: Vec<String> = ids(0..420).into_iter().filter(|id| id != "d7").collect();
    assert_signed_consistently(&catalog, &index, &live);
    assert_eq!(index.signatures().seed_of("d7").unwrap(), None);
}

/// Document `d{n}` of synthetic text, as `add_synthetic` writes it.
fn synthetic_input(n: u64) -> DocumentInput {
    DocumentInput {
        id: Some(IdValue::Text(format!("d{n}"))),
        text: Some(synthetic_text(n, 40 + (n as usize * 13) % 120)),
        ..Default::default()
    }
}

/// Documents `d{from}..d{to}` prepared as `add_synthetic` would ingest them.
fn prepared(catalog: &Catalog, from: u64, to: u64) -> Vec<PreparedDocument> {
    (from..to)
        .map(|n| {
            prepare(
                catalog.analyzer(),
                catalog.config().limits.text(),
                synthetic_input(n),
            )
            .unwrap()
        })
        .collect()
}

/// A bulk import stages its documents without signatures and re-indexes at its end. Cut short
/// before that re-index (the process dies), the library opens again with every committed
/// document signed.
#[test]
fn documents_an_import_committed_unsigned_are_signed_when_the_library_opens_after_a_crash() {
    let (dir, catalog) = catalog();
    add_synthetic(&catalog, "lib", 0, 100);
    let index = catalog.index("lib").unwrap();
    index.stage(&prepared(&catalog, 100, 150)).unwrap();
    index.commit_staged().unwrap();
    assert_eq!(
        index.signatures().seed_of("d120").unwrap(),
        None,
        "staged unsigned"
    );
    assert_eq!(index.document("d120").unwrap().unwrap().meta.doc_id, "d120");
    drop((index, catalog));

    let catalog = reopen(dir.path());
    let index = catalog.index("lib").unwrap();
    assert_signed_consistently(&catalog, &index, &ids(0..150));
}

/// Documents staged before a re-index counts its snapshot and committed while it runs are in
/// neither its count nor among the documents written since it began: it signs them all the same.
#[test]
fn a_reindex_signs_what_was_staged_before_it_began_and_committed_while_it_ran() {
    let (_dir, catalog) = catalog();
    add_synthetic(&catalog, "lib", 0, 300);
    let index = catalog.index("lib").unwrap();
    index.stage(&prepared(&catalog, 300, 320)).unwrap();
    // Written a second before the re-index begins: `added_at` counts whole seconds.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let rebuilding = rebuild_in_the_background(&index, 600);
    index.commit_staged().unwrap();
    assert_eq!(
        index.signatures().generation(),
        1,
        "the re-index is still running"
    );
    let outcome = rebuilding.join().unwrap();
    assert_eq!(outcome, RebuildOutcome::Finished { generation: 2 });
    assert_signed_consistently(&catalog, &index, &ids(0..320));
}

fn reopen(dir: &std::path::Path) -> Arc<Catalog> {
    let mut config = Config::default();
    config.storage.data_dir = dir.to_path_buf();
    config.storage.writer_memory_mb = 15;
    Arc::new(Catalog::open(&config).unwrap())
}

#[test]
fn a_corrupt_or_missing_snapshot_is_rebuilt_on_open() {
    let (dir, catalog) = catalog();
    add_synthetic(&catalog, "lib", 0, 120);
    let library_dir = catalog.index("lib").unwrap().dir().to_path_buf();
    drop(catalog);

    let stats = library_dir.join("stats/gen-1.stats");
    let mut bytes = std::fs::read(&stats).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x55;
    std::fs::write(&stats, &bytes).unwrap();
    let catalog = reopen(dir.path());
    let index = catalog.index("lib").unwrap();
    assert_eq!(
        index.signatures().generation(),
        2,
        "rebuilt as the next generation"
    );
    assert_eq!(index.signatures().snapshot().docs(), 120);
    assert_signed_consistently(&catalog, &index, &ids(0..120));
    drop((index, catalog));

    std::fs::remove_file(library_dir.join("stats/gen-2.stats")).unwrap();
    let catalog = reopen(dir.path());
    let index = catalog.index("lib").unwrap();
    assert_eq!(index.signatures().generation(), 3);
    assert_signed_consistently(&catalog, &index, &ids(0..120));
    let files: HashSet<String> = std::fs::read_dir(library_dir.join("stats"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files, HashSet::from(["gen-3.stats".to_string()]));
}

async fn job_until_finished(app: &axum::Router, job: &str) -> Value {
    for _ in 0..3000 {
        let (status, body) = send(app, "GET", &format!("/api/v1/jobs/{job}"), "", "").await;
        assert_eq!(status, StatusCode::OK, "{body}");
        if !matches!(body["state"].as_str(), Some("queued" | "running")) {
            return body;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("job {job} did not finish");
}

#[tokio::test]
async fn reindex_job_over_http_runs_aborts_and_resumes() {
    let (_dir, catalog) = catalog_with(|config| config.reindex.max_docs_per_second = 200);
    add_synthetic(&catalog, "lib", 0, 400);
    let app = app(catalog.clone());

    let (status, body) = send(&app, "POST", "/api/v1/libraries/nope/reindex", "", "").await;
    assert_eq!(
        (status, error_code(&body)),
        (StatusCode::NOT_FOUND, "library_not_found")
    );
    let (status, body) = send(&app, "GET", "/api/v1/jobs/reindex-999", "", "").await;
    assert_eq!(
        (status, error_code(&body)),
        (StatusCode::NOT_FOUND, "job_not_found")
    );

    // Started, then aborted after a while: the old generation still serves.
    let (status, job) = send(&app, "POST", "/api/v1/libraries/lib/reindex", "", "").await;
    assert_eq!(status, StatusCode::ACCEPTED, "{job}");
    let id = job["job"].as_str().unwrap().to_string();
    assert_eq!(job["kind"], "reindex");
    assert_eq!(job["library"], "lib");
    assert_eq!(job["total"], 400);
    // Asking again while it runs answers the same job.
    let (_, again) = send(&app, "POST", "/api/v1/libraries/lib/reindex", "", "").await;
    assert_eq!(again["job"], job["job"]);
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    let (status, _) = send(&app, "DELETE", &format!("/api/v1/jobs/{id}"), "", "").await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let aborted = job_until_finished(&app, &id).await;
    assert_eq!(aborted["state"], "aborted", "{aborted}");
    let signed = aborted["done"].as_u64().unwrap();
    assert!(signed > 0 && signed < 400, "{aborted}");
    let index = catalog.index("lib").unwrap();
    assert_eq!(index.signatures().generation(), 1);
    assert!(index.has_unfinished_rebuild());

    // The next re-index resumes: it starts from what was signed and finishes.
    let (_, job) = send(&app, "POST", "/api/v1/libraries/lib/reindex", "", "").await;
    let id = job["job"].as_str().unwrap().to_string();
    let done = job_until_finished(&app, &id).await;
    assert_eq!(done["state"], "done", "{done}");
    assert_eq!(done["generation"], 2);
    assert_eq!(done["done"], 400);
    assert_eq!(index.signatures().generation(), 2);
    assert!(!index.has_unfinished_rebuild());
    assert_signed_consistently(&catalog, &index, &ids(0..400));

    let (_, list) = send(&app, "GET", "/api/v1/jobs", "", "").await;
    let states: Vec<&str> = list["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["done", "aborted"], "newest first");
    let (status, _) = json_request(&app, "GET", "/api/v1/libraries/lib", json!(null)).await;
    assert_eq!(status, StatusCode::OK);
}

#[test]
fn drift_past_the_threshold_starts_a_reindex() {
    let (_dir, catalog) = catalog_with(|config| {
        config.reindex.auto_drift = 0.25;
        config.reindex.auto_min_documents = 50;
    });
    add_synthetic(&catalog, "lib", 0, 100);
    let jobs = Jobs::new(catalog.clone());
    add_synthetic(&catalog, "lib", 100, 120);
    jobs.reindex_drifted();
    assert!(
        jobs.list().is_empty(),
        "a drift of 0.2 is below the threshold"
    );

    add_synthetic(&catalog, "lib", 120, 130);
    jobs.reindex_drifted();
    let started = jobs.list();
    assert_eq!(started.len(), 1);
    assert_eq!(started[0].trigger, JobTrigger::Drift);
    jobs.stop_all();
    let index = catalog.index("lib").unwrap();
    while jobs.list()[0].state != JobState::Done && jobs.list()[0].state != JobState::Aborted {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    if jobs.list()[0].state == JobState::Aborted {
        index.rebuild_statistics(|_| {}).unwrap();
    }
    assert_eq!(index.signatures().generation(), 2);
    assert_eq!(index.summary().drift, 0.0);
}
