//! Duplicates inside a library and boilerplate phrases on PostgreSQL, against a real server: the
//! dedup job finds the clusters it finds on tantivy and resumes from its checkpoint; its state
//! is in the database, so that two `dupfinder serve` processes on one database list the same
//! clusters, see each other's alerts and honour each other's phrases at once; and the job runs
//! once across processes (`409 job_running_elsewhere` elsewhere).

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use dupfinder::config::Config;
use dupfinder::dedup::{DedupControl, DedupOutcome, claim_dedup, run_dedup};
use dupfinder::library::{Catalog, LibraryError};
use serde_json::{Value, json};

use crate::dedup::{clusters, edited, expected_groups, finish, groups, ingest, planted, set_of};
use crate::phrases::{NOTICE, notice, passages_of};
use crate::storage_serve::{
    LIBRARY, Shared, call, check, create_library, finished, import, wait_for,
};
use crate::support::{PgServer, ServerProcess, catalog, synthetic_text};

/// A catalog on the PostgreSQL database `url`, with `dir` as its data directory.
fn postgres_catalog(url: &str, dir: &Path) -> Arc<Catalog> {
    let mut config = Config::default();
    config.storage.data_dir = dir.to_path_buf();
    config.storage.backend = dupfinder::storage::Backend::Postgres;
    config.storage.postgres.url = Some(url.to_string());
    config.storage.postgres.max_connections = 8;
    Arc::new(Catalog::open(&config).unwrap())
}

#[test]
fn a_dedup_job_on_postgres_finds_the_clusters_it_finds_on_tantivy_and_resumes() {
    let Some(pg) = PgServer::start("dedup_on_postgres") else {
        return;
    };
    let url = pg.create_database("dupfinder");
    let dir = tempfile::tempdir().unwrap();
    let on_postgres = postgres_catalog(&url, dir.path());
    let (_tantivy_dir, on_tantivy) = catalog();
    planted(&on_postgres, 130);
    planted(&on_tantivy, 130);

    // Stopped after its first chunk, the job on PostgreSQL leaves its checkpoint in the
    // database, and the next run resumes from it.
    let cancel = AtomicBool::new(false);
    let control = DedupControl {
        cancel: Some(&cancel),
    };
    let stopped = run_dedup(&on_postgres, "lib", &control, |done, _| {
        if done > 0 {
            cancel.store(true, Ordering::Relaxed);
        }
    })
    .unwrap();
    assert_eq!(stopped, DedupOutcome::Cancelled { done: 64 });
    let store = on_postgres.store("lib").unwrap();
    assert!(dupfinder::dedup::has_unfinished(store.as_ref()));
    assert_eq!(
        pg.psql(
            "dupfinder",
            "SELECT count(*) FROM dedup_documents WHERE library = 'lib' AND name = 'checkpoint'"
        ),
        "1"
    );
    let first_seen = std::cell::Cell::new(None);
    let resumed = run_dedup(&on_postgres, "lib", &DedupControl::default(), |done, _| {
        if first_seen.get().is_none() {
            first_seen.set(Some(done));
        }
    })
    .unwrap();
    assert_eq!(first_seen.get(), Some(64), "resumed from the checkpoint");
    assert!(
        matches!(resumed, DedupOutcome::Finished { documents: 133, .. }),
        "{resumed:?}"
    );
    assert!(!dupfinder::dedup::has_unfinished(store.as_ref()));
    assert!(matches!(
        finish(&on_tantivy),
        DedupOutcome::Finished { documents: 133, .. }
    ));

    let on_pg = clusters(&on_postgres);
    assert_eq!(groups(&on_pg), expected_groups());
    assert_eq!(groups(&on_pg), groups(&clusters(&on_tantivy)));
    let canonicals = |set: &dupfinder::dedup::ClusterSet| -> BTreeSet<String> {
        set.clusters.iter().map(|c| c.canonical.clone()).collect()
    };
    assert_eq!(canonicals(&on_pg), canonicals(&clusters(&on_tantivy)));

    // A deleted copy leaves its cluster; sent again, it raises an alert and joins it again.
    assert!(on_postgres.delete_document("lib", "copy-7").unwrap());
    assert!(!groups(&clusters(&on_postgres)).contains(&set_of(&["d7", "copy-7"])));
    ingest(&on_postgres, "lib", "copy-7", edited(7, 20, "gamma"));
    assert_eq!(groups(&clusters(&on_postgres)), expected_groups());
    let alerts = dupfinder::dedup::alerts(&on_postgres, Some("lib")).unwrap();
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    assert_eq!(alerts[0].doc_id, "copy-7");
    assert_eq!(alerts[0].matches[0].doc_id, "d7");
}

#[test]
fn a_dedup_job_claimed_elsewhere_is_refused_until_it_is_released() {
    let Some(pg) = PgServer::start("dedup_claimed") else {
        return;
    };
    let url = pg.create_database("dupfinder");
    let (one, other) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let first = postgres_catalog(&url, one.path());
    let second = postgres_catalog(&url, other.path());
    planted(&first, 10);
    let claim = claim_dedup(&first, "lib").unwrap();
    for catalog in [&first, &second] {
        match claim_dedup(catalog, "lib") {
            Err(LibraryError::JobRunningElsewhere { library, .. }) => assert_eq!(library, "lib"),
            Err(e) => panic!("{e}"),
            Ok(_) => panic!("a second claim of a held dedup job was granted"),
        }
    }
    drop(claim);
    assert!(claim_dedup(&second, "lib").is_ok());
}

/// Sends the document `id` with `text` to `server`.
fn send(server: &ServerProcess, id: &str, text: &str) {
    let (status, body) = call(
        server,
        "POST",
        &format!("/api/v1/libraries/{LIBRARY}/documents"),
        Some(json!({"id": id, "text": text})),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["accepted"], 1, "{body}");
}

/// Synthetic document `n` of [`import`] with every `every`-th word replaced.
fn copy_of(n: u64, every: usize) -> String {
    synthetic_text(n, 120)
        .split(' ')
        .enumerate()
        .map(|(i, w)| {
            if i % every == every - 1 {
                format!("x{i}q")
            } else {
                w.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The clusters `server` lists, each as the set of its documents.
fn listed_groups(server: &ServerProcess) -> BTreeSet<BTreeSet<String>> {
    let (status, body) = call(
        server,
        "GET",
        &format!("/api/v1/libraries/{LIBRARY}/duplicates"),
        None,
    );
    assert_eq!(status, 200, "{body}");
    body["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|cluster| {
            std::iter::once(cluster["canonical"].as_str().unwrap().to_string())
                .chain(
                    cluster["members"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|m| m["doc_id"].as_str().unwrap().to_string()),
                )
                .collect()
        })
        .collect()
}

fn check_notice(server: &ServerProcess) -> Value {
    check(server, &notice(3))
}

#[test]
fn two_servers_share_the_clusters_alerts_and_phrases_of_a_library() {
    let Some(shared) = Shared::start("dedup_shared") else {
        return;
    };
    let a = shared.serve("a", "");
    let b = shared.serve("b", "");
    create_library(&a);
    import(&a, 0, 30);
    send(&a, "copy-3", &copy_of(3, 15));
    send(&a, "notice-1", &notice(1));
    send(&a, "notice-2", &notice(2));

    // A phrase added through A is honoured by the next check through B, and one removed
    // through B by the next check through A.
    assert_eq!(
        passages_of(&check_notice(&b), "notice-1"),
        (vec!["copied".into()], true)
    );
    let (status, phrase) = call(
        &a,
        "POST",
        &format!("/api/v1/libraries/{LIBRARY}/phrases"),
        Some(json!({"text": NOTICE})),
    );
    assert_eq!(status, 201, "{phrase}");
    let (status, listed) = call(
        &b,
        "GET",
        &format!("/api/v1/libraries/{LIBRARY}/phrases"),
        None,
    );
    assert_eq!(status, 200, "{listed}");
    assert_eq!(listed["phrases"], json!([phrase]));
    assert_eq!(
        passages_of(&check_notice(&b), "notice-1"),
        (vec!["boilerplate".into()], false)
    );
    let (status, again) = call(
        &b,
        "POST",
        &format!("/api/v1/libraries/{LIBRARY}/phrases"),
        Some(json!({"text": NOTICE})),
    );
    assert_eq!((status, &again), (200, &phrase));
    let (status, _) = call(
        &b,
        "DELETE",
        &format!(
            "/api/v1/libraries/{LIBRARY}/phrases/{}",
            phrase["id"].as_str().unwrap()
        ),
        None,
    );
    assert_eq!(status, 204);
    assert_eq!(
        passages_of(&check_notice(&a), "notice-1"),
        (vec!["copied".into()], true)
    );

    // The clusters of a job run through A are listed by B.
    let (status, job) = call(
        &a,
        "POST",
        &format!("/api/v1/libraries/{LIBRARY}/dedup"),
        None,
    );
    assert_eq!(status, 202, "{job}");
    let done = finished(&a, job["job"].as_str().unwrap());
    assert_eq!(done["state"], "done", "{done}");
    let by_b = listed_groups(&b);
    assert!(by_b.contains(&set_of(&["d3", "copy-3"])), "{by_b:?}");
    assert_eq!(by_b, listed_groups(&a));

    // A copy that arrives through B raises an alert seen through A, and joins a cluster A
    // lists.
    send(&b, "copy-7", &copy_of(7, 15));
    let alert = wait_for(Duration::from_secs(10), "the alert through A", || {
        let (status, body) = call(&a, "GET", "/api/v1/alerts", None);
        assert_eq!(status, 200, "{body}");
        body["alerts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|alert| alert["doc_id"] == "copy-7")
            .cloned()
    });
    assert_eq!(alert["library"], LIBRARY);
    assert_eq!(alert["matches"][0]["doc_id"], "d7", "{alert}");
    assert!(listed_groups(&a).contains(&set_of(&["d7", "copy-7"])));
    let (status, body) = call(
        &a,
        "GET",
        &format!("/api/v1/libraries/{LIBRARY}/documents/copy-7/duplicates"),
        None,
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["deduplicated"], true);
    assert_eq!(
        shared.sql(&format!(
            "SELECT count(*) FROM dedup_lines WHERE library = '{LIBRARY}' AND log = 'alerts'"
        )),
        "1"
    );
}

#[test]
fn a_dedup_job_running_elsewhere_answers_409_until_it_has_ended() {
    let Some(shared) = Shared::start("dedup_elsewhere") else {
        return;
    };
    let a = shared.serve("a", "");
    let b = shared.serve("b", "");
    create_library(&a);
    import(&a, 0, 12);
    // The test's own process holds the job's claim, as a server running the job does.
    let elsewhere = postgres_catalog(&shared.url, &shared.dir.path().join("test"));
    let claim = claim_dedup(&elsewhere, LIBRARY).unwrap();
    for server in [&a, &b] {
        let (status, body) = call(
            server,
            "POST",
            &format!("/api/v1/libraries/{LIBRARY}/dedup"),
            None,
        );
        assert_eq!(status, 409, "{body}");
        assert_eq!(body["error"]["code"], "job_running_elsewhere");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains("being deduplicated"), "{message}");
    }
    drop(claim);

    // Released, the job runs in the process asked first; the other is refused meanwhile or,
    // once it has ended, runs it again.
    let (status, job) = call(
        &b,
        "POST",
        &format!("/api/v1/libraries/{LIBRARY}/dedup"),
        None,
    );
    assert_eq!(status, 202, "{job}");
    let (status, body) = call(
        &a,
        "POST",
        &format!("/api/v1/libraries/{LIBRARY}/dedup"),
        None,
    );
    let name = job["job"].as_str().unwrap();
    if status == 409 {
        assert_eq!(body["error"]["code"], "job_running_elsewhere");
    } else {
        assert_eq!(status, 202, "{body}");
        assert_eq!(finished(&b, name)["state"], "done");
    }
    assert_eq!(finished(&b, name)["state"], "done");
}
