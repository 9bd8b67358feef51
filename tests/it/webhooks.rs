//! Webhooks against a real receiver on loopback: every event signed so the receiver verifies
//! it, a delivery retried until the receiver accepts it (500, 500, 200) with every attempt in
//! the delivery log, `duplicate.found` for an arrival that copies a document of a watched
//! library, and no event lost when the server process is killed with deliveries pending.

use std::collections::BTreeSet;
use std::net::SocketAddr;

use dupfinder::dedup::{DedupControl, run_dedup};
use dupfinder::library::{Catalog, DocumentInput, IdValue};
use serde_json::{Value, json};

use crate::reindex::add_synthetic;
use crate::support::{
    WebhookReceiver, catalog_with, http, serve_in_process, start_server, synthetic_text,
};

const SECRET: &str = "the portal's shared secret";

/// Retries fast, and loopback receivers allowed.
fn webhook_config(config: &mut dupfinder::config::Config) {
    config.webhooks.allow_private_networks = true;
    config.webhooks.initial_backoff_ms = 50;
    config.webhooks.max_backoff_ms = 200;
}

async fn call(addr: SocketAddr, method: &str, path: &str, body: Value) -> (u16, Value) {
    let client = reqwest::Client::new();
    let response = client
        .request(
            reqwest::Method::from_bytes(method.as_bytes()).unwrap(),
            format!("http://{addr}{path}"),
        )
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

async fn register(addr: SocketAddr, url: &str, events: &[&str]) -> String {
    let (status, hook) = call(
        addr,
        "POST",
        "/api/v1/webhooks",
        json!({"url": url, "secret": SECRET, "events": events}),
    )
    .await;
    assert_eq!(status, 201, "{hook}");
    assert!(
        hook.get("secret").is_none(),
        "the secret is never shown: {hook}"
    );
    hook["id"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signed_report_event_is_delivered_after_the_receiver_failed_twice() {
    let (_dir, catalog) = catalog_with(webhook_config);
    add_synthetic(&catalog, "lib", 0, 20);
    let receiver =
        WebhookReceiver::start("127.0.0.1:0".parse().unwrap(), SECRET, &[500, 500]).await;
    let addr = serve_in_process(catalog.clone()).await;
    let hook = register(addr, &receiver.url(), &["report.completed"]).await;

    // A copy of d4 with an added sentence: a report with a match.
    let text = format!("{} An added closing sentence.", synthetic_text(4, 92));
    let (status, answer) = call(
        addr,
        "POST",
        "/api/v1/check",
        json!({"text": text, "passages": true}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    let report_id = answer["report_id"].as_str().unwrap().to_string();

    let received = receiver
        .wait_for(|r| r.iter().any(|r| r.answered == 200))
        .await;
    assert_eq!(
        received.iter().map(|r| r.answered).collect::<Vec<_>>(),
        [500, 500, 200],
        "{received:#?}"
    );
    for attempt in &received {
        assert!(attempt.signature_valid, "signature verified: {attempt:?}");
        assert_eq!(attempt.event, "report.completed");
        assert_eq!(
            attempt.delivery, received[0].delivery,
            "one event id on every attempt"
        );
        assert_eq!(
            attempt.body, received[0].body,
            "the same body on every attempt"
        );
        assert_eq!(attempt.timestamp, attempt.body["created"].to_string());
    }
    let event = &received[0].body;
    assert_eq!(event["id"], received[0].delivery.as_str());
    assert_eq!(event["event"], "report.completed");
    assert_eq!(event["data"]["report_id"], report_id.as_str());
    assert_eq!(event["data"]["verdict"], answer["verdict"]);
    assert_eq!(
        event["data"]["similarity_index"],
        answer["similarity_index"]
    );
    assert_eq!(event["data"]["libraries"], json!(["lib"]));

    // The log shows the three attempts (recorded just after the receiver answered).
    let mut log = Value::Null;
    for _ in 0..600 {
        let (status, answer) = call(
            addr,
            "GET",
            &format!("/api/v1/webhooks/{hook}/deliveries"),
            Value::Null,
        )
        .await;
        assert_eq!(status, 200, "{answer}");
        log = answer;
        if log["deliveries"][0]["state"] != "pending" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let delivery = &log["deliveries"][0];
    assert_eq!(delivery["state"], "delivered", "{log}");
    assert_eq!(delivery["attempts"], 3);
    assert_eq!(delivery["last_status"], 200);
    assert_eq!(delivery["event_id"], received[0].delivery.as_str());

    // A receiver with another secret refuses the same body.
    assert!(!dupfinder::webhooks::verify(
        "another secret entirely",
        received[0].body.to_string().as_bytes(),
        &dupfinder::webhooks::signature(SECRET, received[0].body.to_string().as_bytes()),
    ));

    let (status, _) = call(
        addr,
        "DELETE",
        &format!("/api/v1/webhooks/{hook}"),
        Value::Null,
    )
    .await;
    assert_eq!(status, 204);
    let (status, listed) = call(addr, "GET", "/api/v1/webhooks", Value::Null).await;
    assert_eq!(
        (status, listed["webhooks"].as_array().unwrap().len()),
        (200, 0)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhooks_refuse_bad_urls_events_and_secrets() {
    let (_dir, catalog) = catalog_with(|_| {});
    let addr = serve_in_process(catalog).await;
    for (body, code) in [
        (
            json!({"url": "http://127.0.0.1:9/hook", "secret": SECRET, "events": ["report.completed"]}),
            "private_address",
        ),
        (
            json!({"url": "ftp://portal.example/hook", "secret": SECRET, "events": ["report.completed"]}),
            "invalid_webhook_url",
        ),
        (
            json!({"url": "https://portal.example/hook", "secret": SECRET, "events": ["report.deleted"]}),
            "invalid_event",
        ),
        (
            json!({"url": "https://portal.example/hook", "secret": "short", "events": ["duplicate.found"]}),
            "invalid_secret",
        ),
    ] {
        let (status, answer) = call(addr, "POST", "/api/v1/webhooks", body).await;
        assert!((400..500).contains(&status), "{answer}");
        assert_eq!(answer["error"]["code"], code, "{answer}");
    }
    let (status, answer) = call(
        addr,
        "GET",
        "/api/v1/webhooks/wh_none/deliveries",
        Value::Null,
    )
    .await;
    assert_eq!(
        (status, answer["error"]["code"].as_str()),
        (404, Some("webhook_not_found"))
    );
}

fn ingest(catalog: &Catalog, library: &str, id: &str, text: String) {
    let input = DocumentInput {
        id: Some(IdValue::Text(id.to_string())),
        text: Some(text),
        ..Default::default()
    };
    let report = catalog.ingest(library, vec![(1, Ok(input))]).unwrap();
    assert_eq!(report.accepted, 1, "{report:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn duplicate_found_is_delivered_for_an_arrival_that_copies_a_library_document() {
    let (_dir, catalog) = catalog_with(webhook_config);
    add_synthetic(&catalog, "lib", 0, 30);
    // The library is watched once it was deduplicated.
    run_dedup(&catalog, "lib", &DedupControl::default(), |_, _| {}).unwrap();
    let receiver = WebhookReceiver::start("127.0.0.1:0".parse().unwrap(), SECRET, &[]).await;
    let addr = serve_in_process(catalog.clone()).await;
    register(addr, &receiver.url(), &["duplicate.found"]).await;

    let copy: String = synthetic_text(11, 40 + 143 % 120)
        .split(' ')
        .enumerate()
        .map(|(i, w)| {
            if i % 16 == 15 {
                format!("zq{i}")
            } else {
                w.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    let worker = catalog.clone();
    tokio::task::spawn_blocking(move || {
        ingest(&worker, "lib", "arrived-11", copy);
        ingest(&worker, "lib", "fresh", synthetic_text(77_777, 90));
    })
    .await
    .unwrap();

    let received = receiver.wait_for(|r| !r.is_empty()).await;
    let event = &received[0];
    assert!(event.signature_valid);
    assert_eq!(event.event, "duplicate.found");
    let alert = &event.body["data"];
    assert_eq!(alert["library"], "lib");
    assert_eq!(alert["doc_id"], "arrived-11");
    assert_eq!(alert["matches"][0]["doc_id"], "d11", "{alert}");
    assert_eq!(alert["matches"][0]["verdict"], "duplicate");
    // Only the copy raised an event (the report of nothing else was asked for).
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(receiver.received().len(), 1, "{:#?}", receiver.received());
}

/// A port nothing listens on now (bound, then released).
fn free_port() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_event_is_lost_when_the_server_is_killed_with_deliveries_pending() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let config = dir.path().join("dupfinder.toml");
    std::fs::write(
        &config,
        "[webhooks]\nallow_private_networks = true\ninitial_backoff_ms = 100\nmax_backoff_ms = 300\nmax_attempts = 1000\n",
    )
    .unwrap();
    let env = [("DUPFINDER_CONFIG", config.to_str().unwrap())];
    let receiver_addr = free_port();
    let url = format!("http://{receiver_addr}/hook");

    let mut server = start_server(&data, &env);
    let addr = server.addr;
    let report_ids = tokio::task::spawn_blocking(move || {
        let post = |path: &str, content_type: &str, body: &[u8]| {
            let response = http(addr, "POST", path, content_type, body).unwrap();
            assert!(response.status < 300, "{path}: {}", response.body);
            serde_json::from_str::<Value>(&response.body).unwrap_or(Value::Null)
        };
        post("/api/v1/libraries", "application/json", br#"{"id":"lib"}"#);
        let lines: String = (0..10)
            .map(|n| {
                format!(
                    "{}\n",
                    json!({"id": format!("d{n}"), "text": synthetic_text(n, 120)})
                )
            })
            .collect();
        post(
            "/api/v1/libraries/lib/documents",
            "application/x-ndjson",
            lines.as_bytes(),
        );
        let hook = json!({"url": url, "secret": SECRET, "events": ["report.completed"]});
        post(
            "/api/v1/webhooks",
            "application/json",
            hook.to_string().as_bytes(),
        );
        (0..5)
            .map(|n| {
                let text = format!("{} Checked manuscript number {n}.", synthetic_text(n, 120));
                let answer = post(
                    "/api/v1/check",
                    "application/json",
                    json!({"text": text}).to_string().as_bytes(),
                );
                answer["report_id"].as_str().unwrap().to_string()
            })
            .collect::<BTreeSet<String>>()
    })
    .await
    .unwrap();
    assert_eq!(report_ids.len(), 5);
    // The receiver is down: every delivery is pending (some tried and refused) when the
    // process is killed.
    server.kill();

    let receiver = WebhookReceiver::start(receiver_addr, SECRET, &[]).await;
    let _restarted = start_server(&data, &env);
    let received = receiver
        .wait_for(|r| {
            let ids: BTreeSet<String> = r
                .iter()
                .filter(|r| r.answered == 200)
                .filter_map(|r| r.body["data"]["report_id"].as_str().map(str::to_string))
                .collect();
            ids == report_ids
        })
        .await;
    assert!(received.iter().all(|r| r.signature_valid));
}
