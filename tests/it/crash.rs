//! Crash consistency against a real server process: SIGKILL during a JSON Lines import, then
//! restart: every document whose request was answered 2xx is there. SIGKILL during a re-index,
//! then restart: the index opens on one whole generation and the re-index resumes.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support::{http, start_server, synthetic_text};

#[test]
fn sigkill_during_json_lines_import_loses_no_acknowledged_document() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = start_server(dir.path(), &[]);
    let created = http(
        server.addr,
        "POST",
        "/api/v1/libraries",
        "application/json",
        br#"{"id":"crash"}"#,
    )
    .unwrap();
    assert_eq!(created.status, 201, "{}", created.body);

    let acknowledged: Arc<Mutex<Vec<String>>> = Arc::default();
    let batches_done = Arc::new(AtomicUsize::new(0));
    let addr = server.addr;
    let client = {
        let acknowledged = acknowledged.clone();
        let batches_done = batches_done.clone();
        std::thread::spawn(move || {
            for batch in 0..10_000u64 {
                let ids: Vec<String> = (0..25).map(|i| format!("b{batch}-{i}")).collect();
                let body: String = ids
                    .iter()
                    .enumerate()
                    .map(|(i, id)| {
                        let text = synthetic_text(batch * 100 + i as u64, 200);
                        format!("{}\n", serde_json::json!({"id": id, "text": text}))
                    })
                    .collect();
                match http(
                    addr,
                    "POST",
                    "/api/v1/libraries/crash/documents",
                    "application/x-ndjson",
                    body.as_bytes(),
                ) {
                    Ok(response) if response.status == 200 => {
                        acknowledged.lock().unwrap().extend(ids);
                        batches_done.fetch_add(1, Ordering::SeqCst);
                    }
                    // The server was killed mid-request: nothing was acknowledged for this batch.
                    _ => return,
                }
            }
        })
    };
    let deadline = Instant::now() + Duration::from_secs(120);
    while batches_done.load(Ordering::SeqCst) < 6 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    server.kill(); // SIGKILL
    client.join().unwrap();
    let acknowledged = acknowledged.lock().unwrap().clone();
    assert!(
        acknowledged.len() >= 150,
        "only {} documents acknowledged before the kill",
        acknowledged.len()
    );

    let mut server = start_server(dir.path(), &[]);
    for id in &acknowledged {
        let response = http(
            server.addr,
            "GET",
            &format!("/api/v1/libraries/crash/documents/{id}"),
            "application/json",
            b"",
        )
        .unwrap();
        assert_eq!(
            response.status, 200,
            "acknowledged document {id} lost: {}",
            response.body
        );
    }
    // And they are still checkable by signature after the restart.
    let report = check_over_http(server.addr, &synthetic_text(0, 200));
    assert_eq!(report["matches"][0]["doc_id"], "b0-0", "{report}");
    server.kill();
}

/// The answer of `POST /api/v1/check` for `text`.
fn check_over_http(addr: std::net::SocketAddr, text: &str) -> serde_json::Value {
    let body = serde_json::json!({"text": text}).to_string();
    let response = http(
        addr,
        "POST",
        "/api/v1/check",
        "application/json",
        body.as_bytes(),
    )
    .unwrap();
    assert_eq!(response.status, 200, "{}", response.body);
    serde_json::from_str(&response.body).unwrap()
}

fn get_json(addr: std::net::SocketAddr, path: &str) -> serde_json::Value {
    let response = http(addr, "GET", path, "application/json", b"").unwrap();
    assert_eq!(response.status, 200, "{path}: {}", response.body);
    serde_json::from_str(&response.body).unwrap()
}

#[test]
fn sigkill_during_a_reindex_keeps_one_generation_and_the_reindex_resumes() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut config = dupfinder::config::Config::default();
        config.storage.data_dir = dir.path().join("data");
        let catalog = dupfinder::library::Catalog::open(&config).unwrap();
        crate::reindex::add_synthetic(&catalog, "lib", 0, 600);
    }
    // Slow enough to be killed midway, committing every 50 documents.
    let config = dir.path().join("dupfinder.toml");
    std::fs::write(
        &config,
        "[reindex]\nmax_docs_per_second = 300\ncommit_every = 50\nauto_drift = 0.0\n",
    )
    .unwrap();
    let env = [("DUPFINDER_CONFIG", config.to_str().unwrap())];
    let data = dir.path().join("data");
    let mut server = start_server(&data, &env);
    let started = http(
        server.addr,
        "POST",
        "/api/v1/libraries/lib/reindex",
        "",
        b"",
    )
    .unwrap();
    assert_eq!(started.status, 202, "{}", started.body);
    let job: serde_json::Value = serde_json::from_str(&started.body).unwrap();
    let path = format!("/api/v1/jobs/{}", job["job"].as_str().unwrap());
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let status = get_json(server.addr, &path);
        assert!(
            matches!(status["state"].as_str(), Some("queued" | "running")),
            "{status}"
        );
        if status["done"].as_u64().unwrap() >= 120 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the re-index made no progress: {status}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    server.kill(); // SIGKILL

    // On its own, the library opens on generation 1, whole: every document signed against it.
    {
        let mut config = dupfinder::config::Config::default();
        config.storage.data_dir = data.clone();
        let catalog = dupfinder::library::Catalog::open(&config).unwrap();
        let index = catalog.index("lib").unwrap();
        assert_eq!(index.signatures().generation(), 1);
        assert!(index.has_unfinished_rebuild());
        let ids: Vec<String> = (0..600).map(|n| format!("d{n}")).collect();
        crate::reindex::assert_signed_consistently(&catalog, &index, &ids);
    }

    // The restarted server resumes the re-index from its last commit and finishes it.
    let mut server = start_server(&data, &env);
    let deadline = Instant::now() + Duration::from_secs(60);
    let resumed = loop {
        let jobs = get_json(server.addr, "/api/v1/jobs");
        let job = jobs["jobs"][0].clone();
        assert_eq!(job["trigger"], "resume", "{jobs}");
        if job["state"] == "done" {
            break job;
        }
        assert!(
            Instant::now() < deadline,
            "the resumed re-index did not finish: {job}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(resumed["generation"], 2);
    assert_eq!(resumed["done"], 600);
    let library = get_json(server.addr, "/api/v1/libraries/lib");
    assert_eq!(library["stats_generation"], 2, "{library}");
    let report = check_over_http(server.addr, &synthetic_text(42, 40 + (42 * 13) % 120));
    assert_eq!(report["matches"][0]["doc_id"], "d42", "{report}");
    assert!(
        report["matches"][0]["methods"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!("signature")),
        "{report}"
    );
    server.kill();
}
