//! Duplicates inside a library: the dedup job's clusters survive a restart, an aborted job
//! resumes where it stopped, a deleted or replaced document leaves its cluster, and a copy that
//! arrives later (imported, sent or crawled) raises an alert and joins the cluster.

use std::collections::BTreeSet;
use std::sync::atomic::AtomicBool;

use axum::http::StatusCode;
use dupfinder::dedup::{ClusterSet, DedupControl, DedupOutcome, DedupStore, run_dedup};
use dupfinder::library::{Catalog, DocumentInput, IdValue, Jobs};
use serde_json::{Value, json};

use crate::reindex::add_synthetic;
use crate::support::{app, catalog, json_request, synthetic_text};

/// The text of synthetic document `n` of [`add_synthetic`] with every `every`-th word replaced.
pub(crate) fn edited(n: u64, every: usize, tag: &str) -> String {
    synthetic_text(n, 40 + (n as usize * 13) % 120)
        .split(' ')
        .enumerate()
        .map(|(i, w)| {
            if i % every == every - 1 {
                format!("{tag}q{i}")
            } else {
                w.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub(crate) fn ingest(catalog: &Catalog, library: &str, id: &str, text: String) {
    let input = DocumentInput {
        id: Some(IdValue::Text(id.to_string())),
        text: Some(text),
        ..Default::default()
    };
    let report = catalog.ingest(library, vec![(1, Ok(input))]).unwrap();
    assert_eq!(report.accepted, 1, "{report:?}");
}

/// A library of `n` synthetic documents with planted copies: `d3` has two edited copies, `d7`
/// one.
pub(crate) fn planted(catalog: &Catalog, n: u64) {
    add_synthetic(catalog, "lib", 0, n);
    ingest(catalog, "lib", "copy-3a", edited(3, 15, "alpha"));
    ingest(catalog, "lib", "copy-3b", edited(3, 17, "beta"));
    ingest(catalog, "lib", "copy-7", edited(7, 20, "gamma"));
}

/// Every cluster as the set of its documents.
pub(crate) fn groups(set: &ClusterSet) -> BTreeSet<BTreeSet<String>> {
    set.clusters
        .iter()
        .map(|c| {
            std::iter::once(c.canonical.clone())
                .chain(c.members.iter().map(|m| m.doc_id.clone()))
                .collect()
        })
        .collect()
}

pub(crate) fn set_of(ids: &[&str]) -> BTreeSet<String> {
    ids.iter().map(|s| s.to_string()).collect()
}

pub(crate) fn clusters(catalog: &Catalog) -> ClusterSet {
    DedupStore::of(catalog.store("lib").unwrap().as_ref())
        .clusters()
        .unwrap()
        .expect("the library was deduplicated")
}

pub(crate) fn expected_groups() -> BTreeSet<BTreeSet<String>> {
    BTreeSet::from([
        set_of(&["d3", "copy-3a", "copy-3b"]),
        set_of(&["d7", "copy-7"]),
    ])
}

pub(crate) fn finish(catalog: &Catalog) -> DedupOutcome {
    run_dedup(catalog, "lib", &DedupControl::default(), |_, _| {}).unwrap()
}

#[tokio::test]
async fn clusters_survive_a_restart_and_are_listed_over_http() {
    let (dir, catalog) = catalog();
    planted(&catalog, 40);
    let server = app(catalog.clone());
    let (status, job) =
        json_request(&server, "POST", "/api/v1/libraries/lib/dedup", json!({})).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{job}");
    assert_eq!(job["kind"], "dedup");
    let uri = format!("/api/v1/jobs/{}", job["job"].as_str().unwrap());
    let mut state = Value::Null;
    for _ in 0..600 {
        let (_, job) = json_request(&server, "GET", &uri, json!({})).await;
        state = job["state"].clone();
        if state != "queued" && state != "running" {
            assert_eq!(job["done"], 43, "{job}");
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(state, "done");
    assert_eq!(groups(&clusters(&catalog)), expected_groups());

    // A new process on the same data directory.
    let config = catalog.config().clone();
    drop(server);
    // The job's thread lets go of the catalog as it ends; the data directory is opened once.
    for _ in 0..600 {
        if std::sync::Arc::strong_count(&catalog) == 1 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(std::sync::Arc::strong_count(&catalog), 1);
    drop(catalog);
    let catalog = std::sync::Arc::new(Catalog::open(&config).unwrap());
    assert_eq!(groups(&clusters(&catalog)), expected_groups());
    let app = app(catalog.clone());
    let (status, page) = json_request(
        &app,
        "GET",
        "/api/v1/libraries/lib/duplicates?limit=1&offset=0",
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert_eq!(page["total"], 2);
    let first = &page["clusters"][0];
    assert_eq!(first["size"], 3, "the largest first: {page}");
    assert_eq!(first["members"].as_array().unwrap().len(), 2);
    assert_eq!(first["members"][0]["verdict"], "duplicate");
    // The related pairs are listed beside their count (the page once gave the count alone).
    let related = page["related"].as_u64().unwrap() as usize;
    let pairs = page["related_pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), related.min(100), "{page}");
    assert!(
        pairs
            .iter()
            .all(|p| p["a"].is_string() && p["b"].is_string())
    );
    let (_, mine) = json_request(
        &app,
        "GET",
        "/api/v1/libraries/lib/documents/copy-7/duplicates",
        json!({}),
    )
    .await;
    assert_eq!(mine["cluster"]["size"], 2, "{mine}");
    let (status, lonely) = json_request(
        &app,
        "GET",
        "/api/v1/libraries/lib/documents/d11/duplicates",
        json!({}),
    )
    .await;
    assert_eq!((status, &lonely["cluster"]), (StatusCode::OK, &Value::Null));
    let (status, missing) = json_request(
        &app,
        "GET",
        "/api/v1/libraries/lib/documents/nope/duplicates",
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(missing["error"]["code"], "document_not_found");
    let (status, bad) = json_request(
        &app,
        "GET",
        "/api/v1/libraries/lib/duplicates?limit=0",
        json!({}),
    )
    .await;
    assert_eq!(
        (status, bad["error"]["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_limit"))
    );
    drop(dir);
}

#[test]
fn an_aborted_job_resumes_where_it_stopped() {
    let (_dir, catalog) = catalog();
    planted(&catalog, 300);
    // Stopped as soon as the first chunk of documents is written.
    let cancel = AtomicBool::new(false);
    let control = DedupControl {
        cancel: Some(&cancel),
    };
    let outcome = run_dedup(&catalog, "lib", &control, |done, _| {
        if done > 0 {
            cancel.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    })
    .unwrap();
    let DedupOutcome::Cancelled { done } = outcome else {
        panic!("not stopped: {outcome:?}");
    };
    assert_eq!(done, 64, "one chunk");
    let index = catalog.index("lib").unwrap();
    assert!(dupfinder::dedup::has_unfinished(&*index));
    assert!(DedupStore::of(&*index).clusters().unwrap().is_none());

    // The resumed run checks only what is left, and finds what a whole run finds.
    let first_seen = std::cell::Cell::new(None);
    let resumed = run_dedup(&catalog, "lib", &DedupControl::default(), |done, _| {
        if first_seen.get().is_none() {
            first_seen.set(Some(done));
        }
    })
    .unwrap();
    assert_eq!(
        first_seen.get(),
        Some(done),
        "the resumed run starts from the checkpoint"
    );
    let DedupOutcome::Finished {
        documents, edges, ..
    } = resumed
    else {
        panic!("not finished: {resumed:?}");
    };
    assert_eq!(documents, 303);
    assert!(!dupfinder::dedup::has_unfinished(&*index));
    assert_eq!(groups(&clusters(&catalog)), expected_groups());

    let (_fresh_dir, fresh) = crate::support::catalog();
    planted(&fresh, 300);
    let DedupOutcome::Finished {
        edges: fresh_edges, ..
    } = finish(&fresh)
    else {
        panic!("not finished");
    };
    assert_eq!(edges, fresh_edges, "no document's edges written twice");
}

#[test]
fn an_unfinished_job_is_resumed_when_the_server_starts() {
    let (_dir, catalog) = catalog();
    planted(&catalog, 200);
    let cancel = AtomicBool::new(true);
    let control = DedupControl {
        cancel: Some(&cancel),
    };
    run_dedup(&catalog, "lib", &control, |_, _| {}).unwrap();
    let jobs = Jobs::new(catalog.clone());
    jobs.resume_unfinished();
    let listed = jobs.list();
    assert_eq!(listed.len(), 1);
    assert_eq!(
        serde_json::to_value(&listed[0]).unwrap()["trigger"],
        "resume"
    );
    for _ in 0..1200 {
        if jobs.list()[0].state == dupfinder::library::JobState::Done {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(jobs.list()[0].state, dupfinder::library::JobState::Done);
    assert_eq!(groups(&clusters(&catalog)), expected_groups());
}

#[test]
fn a_deleted_or_replaced_document_leaves_its_cluster() {
    let (_dir, catalog) = catalog();
    planted(&catalog, 40);
    finish(&catalog);
    assert!(catalog.delete_document("lib", "d3").unwrap());
    let after_delete = groups(&clusters(&catalog));
    assert_eq!(
        after_delete,
        BTreeSet::from([set_of(&["copy-3a", "copy-3b"]), set_of(&["d7", "copy-7"])]),
        "the two copies still duplicate each other"
    );
    // `copy-7` replaced by an unrelated text: `d7` is alone.
    ingest(&catalog, "lib", "copy-7", synthetic_text(9_999, 120));
    let after_replace = groups(&clusters(&catalog));
    assert_eq!(
        after_replace,
        BTreeSet::from([set_of(&["copy-3a", "copy-3b"])])
    );
    // And replaced by a copy again: it is back.
    ingest(&catalog, "lib", "copy-7", edited(7, 25, "delta"));
    assert!(groups(&clusters(&catalog)).contains(&set_of(&["d7", "copy-7"])));
    // What a restart reads — the clusters of the job with the change log replayed — is what
    // was kept in memory.
    let store = DedupStore::of(catalog.store("lib").unwrap().as_ref());
    assert_eq!(
        store.clusters_on_disk().unwrap(),
        store.clusters().unwrap(),
        "the change log replays to the same clusters"
    );
}

#[tokio::test]
async fn an_imported_copy_raises_an_alert_and_joins_the_cluster() {
    let (dir, catalog) = catalog();
    planted(&catalog, 40);
    // A library never deduplicated checks nothing on arrival.
    add_synthetic(&catalog, "other", 0, 10);
    ingest(&catalog, "other", "copy-5", edited(5, 15, "eps"));
    finish(&catalog);

    let file = dir.path().join("arrivals.jsonl");
    let lines = [
        json!({"id": "imported-11", "text": edited(11, 16, "zeta")}),
        json!({"id": "fresh", "text": synthetic_text(77_777, 90)}),
    ];
    std::fs::write(
        &file,
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
    dupfinder::library::import_file(&catalog, "lib", &file, &()).unwrap();

    let app = app(catalog.clone());
    let (status, body) = json_request(&app, "GET", "/api/v1/alerts", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["total"], 1, "{body}");
    let alert = &body["alerts"][0];
    assert_eq!(alert["library"], "lib");
    assert_eq!(alert["doc_id"], "imported-11");
    assert_eq!(alert["matches"][0]["doc_id"], "d11");
    assert_eq!(alert["matches"][0]["verdict"], "duplicate");
    assert!(alert["cluster"].is_string(), "{alert}");
    assert!(
        groups(&clusters(&catalog)).contains(&set_of(&["d11", "imported-11"])),
        "the arrival formed a cluster"
    );

    // Sent over HTTP: a copy of d3 joins its cluster.
    let (status, report) = json_request(
        &app,
        "POST",
        "/api/v1/libraries/lib/documents",
        json!({"id": "sent-3", "text": edited(3, 19, "eta")}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{report}");
    assert!(groups(&clusters(&catalog)).contains(&set_of(&["d3", "copy-3a", "copy-3b", "sent-3"])));
    let (_, body) =
        json_request(&app, "GET", "/api/v1/alerts?library=lib&limit=1", json!({})).await;
    assert_eq!(body["total"], 2);
    assert_eq!(body["alerts"][0]["doc_id"], "sent-3", "the newest first");
    let (status, body) =
        json_request(&app, "GET", "/api/v1/alerts?library=missing", json!({})).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
}

/// A crawled library, deduplicated once; the site then publishes a copy of one of its articles
/// under a new id and title: the next crawl indexes it, and the arrival raises an alert naming
/// the original and joins it in a cluster.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crawled_copy_raises_an_alert() {
    use crate::support::sites::{
        FixtureServer, Reply, article_page, crawl, crawl_catalog, library, link_page,
        test_crawl_config,
    };
    use dupfinder::crawl::CrawlService;

    let ids: Vec<u64> = (2000..2012).collect();
    let mut pages = std::collections::HashMap::new();
    pages.insert(
        "/robots.txt".to_string(),
        Reply::Html("User-agent: *\nDisallow:\n".to_string()),
    );
    let links: Vec<String> = ids.iter().map(|id| format!("/post/{id}/")).collect();
    pages.insert("/".to_string(), Reply::Html(link_page("Home", &links)));
    for &id in &ids {
        pages.insert(
            format!("/post/{id}/"),
            Reply::Html(article_page(id, &format!("Article number {id}"), &[])),
        );
    }
    let server = FixtureServer::start(pages).await;
    let (_dir, catalog) = crawl_catalog(test_crawl_config());
    library(&catalog, "site", &server.url("/"), &["/post/"]);
    let service = CrawlService::open(catalog.clone()).unwrap();
    crawl(&service, "site").await;
    let checked = {
        let catalog = catalog.clone();
        tokio::task::spawn_blocking(move || {
            run_dedup(&catalog, "site", &DedupControl::default(), |_, _| {}).unwrap()
        })
        .await
        .unwrap()
    };
    assert!(
        matches!(checked, DedupOutcome::Finished { .. }),
        "{checked:?}"
    );

    // The text of article 2005 (its body is made from its seed) under another id and title.
    server.set(
        "/post/2012/",
        Reply::Html(article_page(2005, "A paper with a new title", &[])),
    );
    crawl(&service, "site").await;

    // Read as `GET /api/v1/alerts` reads them (the crawl service holds the crawl store, so no
    // second application is opened on this catalog).
    let alerts = dupfinder::dedup::alerts(&catalog, Some("site")).unwrap();
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    let alert = serde_json::to_value(&alerts[0]).unwrap();
    assert_eq!(alert["doc_id"], server.url("/post/2012/"));
    assert_eq!(alert["matches"][0]["doc_id"], server.url("/post/2005/"));
    assert_eq!(alert["matches"][0]["verdict"], "duplicate");
    assert!(alert["cluster"].is_string(), "{alert}");
}
