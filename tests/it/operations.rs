//! What operators watch: the metrics a scrape finds (documents by path, per-library gauges,
//! jobs, build information) and one log line per request.

use serde_json::json;

use crate::support::{app, catalog, http, json_request, send, start_server, synthetic_text};

#[tokio::test]
async fn a_scrape_finds_the_documents_by_path_and_the_library_gauges() {
    let (_dir, catalog) = catalog();
    let app = app(catalog);
    json_request(&app, "POST", "/api/v1/libraries", json!({"id": "lib"})).await;
    let body: String = (0..3)
        .map(|i| {
            format!(
                "{}\n",
                json!({"id": format!("d{i}"), "text": synthetic_text(i, 80)})
            )
        })
        .collect();
    let (status, _) = send(
        &app,
        "POST",
        "/api/v1/libraries/lib/documents",
        "application/x-ndjson",
        body,
    )
    .await;
    assert!(status.is_success());
    let (status, text) = send(&app, "GET", "/metrics", "", "").await;
    assert!(status.is_success());
    let text = text.as_str().unwrap().to_string();
    for line in [
        "dupfinder_documents_ingested_total{path=\"api\"} 3",
        "dupfinder_documents_ingested_total{path=\"crawl\"} 0",
        "dupfinder_library_documents{library=\"lib\"} 3",
        "dupfinder_library_generation{library=\"lib\"} 1",
        "dupfinder_build_info{version=\"",
        "# TYPE dupfinder_library_disk_bytes gauge",
        "# TYPE dupfinder_jobs gauge",
    ] {
        assert!(text.contains(line), "missing `{line}` in:\n{text}");
    }
    let bytes: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("dupfinder_library_disk_bytes{library=\"lib\"} "))
        .unwrap()
        .parse()
        .unwrap();
    assert!(bytes > 10_000, "{bytes}");
    let words: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix("dupfinder_library_words{library=\"lib\"} "))
        .unwrap()
        .parse()
        .unwrap();
    assert!(words > 100.0, "{words}");
}

#[test]
fn every_request_is_logged_once_as_json_with_its_id() {
    let dir = tempfile::tempdir().unwrap();
    let server = start_server(
        dir.path(),
        &[
            ("DUPFINDER_LOG_FORMAT", "json"),
            ("DUPFINDER_LOG", "info,tantivy=warn"),
        ],
    );
    let created = http(
        server.addr,
        "POST",
        "/api/v1/libraries",
        "application/json",
        br#"{"id":"logged"}"#,
    )
    .unwrap();
    assert_eq!(created.status, 201);
    let missing = http(server.addr, "GET", "/api/v1/libraries/none", "", b"").unwrap();
    assert_eq!(missing.status, 404);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let lines = loop {
        let lines: Vec<serde_json::Value> = server
            .log
            .lock()
            .unwrap()
            .iter()
            .filter_map(|l| serde_json::from_str(l).ok())
            .filter(|l: &serde_json::Value| l["target"] == "dupfinder::request")
            .collect();
        if lines.len() >= 2 || std::time::Instant::now() > deadline {
            break lines;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert_eq!(lines.len(), 2, "{lines:?}");
    let fields = &lines[1]["fields"];
    assert_eq!(fields["method"], "GET");
    assert_eq!(fields["route"], "/api/v1/libraries/{id}");
    assert_eq!(fields["status"], 404);
    assert_eq!(fields["key"], "-");
    assert!(fields["ms"].as_f64().is_some(), "{fields}");
    assert_ne!(lines[0]["fields"]["request_id"], fields["request_id"]);
    // No colour codes in a log that is not a terminal.
    assert!(
        server
            .log
            .lock()
            .unwrap()
            .iter()
            .all(|l| !l.contains('\u{1b}'))
    );
}
