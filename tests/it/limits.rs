//! Every limit of `[limits]` through the router: each exceeded limit is answered with its own
//! status and stable code, and nothing accepted alongside is lost.

use std::time::Duration;

use axum::body::Body;
use axum::http::StatusCode;
use serde_json::json;

use crate::support::{app, catalog_with, synthetic_text};
use crate::support::{error_code, send};

async fn library_with_one_document(app: &axum::Router) {
    let (status, body) = send(
        app,
        "POST",
        "/api/v1/libraries",
        "application/json",
        json!({"id": "lib"}).to_string(),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let document = json!({"id": "d1", "text": synthetic_text(1, 120)});
    let (status, body) = send(
        app,
        "POST",
        "/api/v1/libraries/lib/documents",
        "application/json",
        document.to_string(),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

fn nested(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

#[tokio::test]
async fn json_nested_too_deep_is_json_too_deep_everywhere() {
    let (_dir, catalog) = catalog_with(|c| c.limits.max_json_depth = 8);
    let app = app(catalog);
    library_with_one_document(&app).await;
    // A million levels: refused before any recursive parser sees it.
    let check = format!(r#"{{"text":"t","libraries":{}}}"#, nested(1_000_000));
    let (status, body) = send(&app, "POST", "/api/v1/check", "application/json", check).await;
    assert_eq!(
        (status, error_code(&body)),
        (StatusCode::BAD_REQUEST, "json_too_deep")
    );
    // Within the limit, the same shape is just the wrong type.
    let check = format!(r#"{{"text":"t","libraries":{}}}"#, nested(7));
    let (status, body) = send(&app, "POST", "/api/v1/check", "application/json", check).await;
    assert_eq!(
        (status, error_code(&body)),
        (StatusCode::BAD_REQUEST, "invalid_json")
    );
    let document = format!(r#"{{"text":"t","extra":{}}}"#, nested(100_000));
    let (status, body) = send(
        &app,
        "POST",
        "/api/v1/libraries/lib/documents",
        "application/json",
        document,
    )
    .await;
    assert_eq!(
        (status, error_code(&body)),
        (StatusCode::BAD_REQUEST, "json_too_deep")
    );
    // In JSON Lines only the deep line is rejected; its neighbour is accepted.
    let lines = format!(
        "{}\n{}\n",
        json!({"id": "d2", "text": synthetic_text(2, 120), "x": [[[[[[[[[[1]]]]]]]]]]}),
        json!({"id": "d3", "text": synthetic_text(3, 120)})
    );
    let (status, body) = send(
        &app,
        "POST",
        "/api/v1/libraries/lib/documents",
        "application/x-ndjson",
        lines,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["accepted"], 1, "{body}");
    assert_eq!(body["rejected"][0]["line"], 1, "{body}");
    assert_eq!(
        body["rejected"][0]["error"]["code"], "json_too_deep",
        "{body}"
    );
}

#[tokio::test]
async fn naming_too_many_libraries_is_too_many_libraries() {
    let (_dir, catalog) = catalog_with(|c| c.limits.max_libraries_per_check = 3);
    let app = app(catalog);
    library_with_one_document(&app).await;
    let text = synthetic_text(1, 120);
    let (status, body) = send(
        &app,
        "POST",
        "/api/v1/check",
        "application/json",
        json!({"text": text, "libraries": ["lib", "lib", "lib", "lib"]}).to_string(),
    )
    .await;
    assert_eq!(
        (status, error_code(&body)),
        (StatusCode::BAD_REQUEST, "too_many_libraries")
    );
    let (status, body) = send(
        &app,
        "POST",
        "/api/v1/check",
        "application/json",
        json!({"text": text, "libraries": ["lib", "lib", "lib"]}).to_string(),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["verdict"], "duplicate", "{body}");
}

#[tokio::test]
async fn a_long_search_query_is_query_too_long() {
    let (_dir, catalog) = catalog_with(|c| c.limits.max_query_bytes = 20);
    let app = app(catalog);
    library_with_one_document(&app).await;
    let uri = format!("/api/v1/libraries/lib/search?q={}", "a".repeat(21));
    let (status, body) = send(&app, "GET", &uri, "application/json", "").await;
    assert_eq!(
        (status, error_code(&body)),
        (StatusCode::BAD_REQUEST, "query_too_long")
    );
    let uri = format!("/api/v1/libraries/lib/search?q={}", "a".repeat(20));
    let (status, body) = send(&app, "GET", &uri, "application/json", "").await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test]
async fn too_many_json_lines_is_too_many_lines_and_stores_nothing() {
    let (_dir, catalog) = catalog_with(|c| c.limits.max_json_lines = 2);
    let app = app(catalog);
    library_with_one_document(&app).await;
    let lines: String = (10..13)
        .map(|i| {
            format!(
                "{}\n\n",
                json!({"id": format!("d{i}"), "text": synthetic_text(i, 80)})
            )
        })
        .collect();
    let (status, body) = send(
        &app,
        "POST",
        "/api/v1/libraries/lib/documents",
        "application/x-ndjson",
        lines,
    )
    .await;
    assert_eq!(
        (status, error_code(&body)),
        (StatusCode::PAYLOAD_TOO_LARGE, "too_many_lines")
    );
    let (_, body) = send(&app, "GET", "/api/v1/libraries/lib", "application/json", "").await;
    assert_eq!(body["documents"], 1, "{body}");
}

#[tokio::test]
async fn a_body_that_never_arrives_is_body_timeout() {
    let (_dir, catalog) = catalog_with(|c| c.limits.body_timeout_ms = 200);
    let app = app(catalog);
    library_with_one_document(&app).await;
    // A body that sends one chunk and then nothing, ever.
    let first = futures_util::stream::iter([Ok::<_, std::io::Error>(
        axum::body::Bytes::from_static(b"{\"text\":"),
    )]);
    let stalled = futures_util::StreamExt::chain(first, futures_util::stream::pending());
    let started = std::time::Instant::now();
    let (status, body) = send(
        &app,
        "POST",
        "/api/v1/check",
        "application/json",
        Body::from_stream(stalled),
    )
    .await;
    assert_eq!(
        (status, error_code(&body)),
        (StatusCode::REQUEST_TIMEOUT, "body_timeout")
    );
    assert!(started.elapsed() >= Duration::from_millis(200));
}

#[tokio::test]
async fn a_slow_check_is_timeout_but_a_slow_write_is_not_cut_off() {
    let (_dir, catalog) = catalog_with(|c| c.limits.request_timeout_ms = 1);
    let app = app(catalog);
    library_with_one_document(&app).await;
    // Analyzing 100 000 words takes far longer than a millisecond.
    let text = synthetic_text(7, 100_000);
    let (status, body) = send(
        &app,
        "POST",
        "/api/v1/check",
        "application/json",
        json!({ "text": text }).to_string(),
    )
    .await;
    assert_eq!(
        (status, error_code(&body)),
        (StatusCode::SERVICE_UNAVAILABLE, "timeout")
    );
    // The same text as a document: a write runs to its end and is acknowledged.
    let (status, body) = send(
        &app,
        "POST",
        "/api/v1/libraries/lib/documents",
        "application/json",
        json!({"id": "big", "text": text}).to_string(),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["accepted"], 1, "{body}");
}
