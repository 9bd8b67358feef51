//! Crash consistency against a real server process: SIGKILL during a JSON Lines import, then
//! restart: every document whose request was answered 2xx is there.

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
    server.child.kill().unwrap(); // SIGKILL
    server.child.wait().unwrap();
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
    let text = synthetic_text(0, 200);
    let body = serde_json::json!({"text": text}).to_string();
    let report = http(
        server.addr,
        "POST",
        "/api/v1/check",
        "application/json",
        body.as_bytes(),
    )
    .unwrap();
    let report: serde_json::Value = serde_json::from_str(&report.body).unwrap();
    assert_eq!(report["matches"][0]["doc_id"], "b0-0", "{report}");
    server.child.kill().unwrap();
    server.child.wait().unwrap();
}
