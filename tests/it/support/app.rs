//! The application router over a catalog, and requests sent to it without a socket
//! (`Router::oneshot`).

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

use dupfinder::api::{AppState, router};
use dupfinder::crawl::CrawlService;
use dupfinder::library::{Catalog, Jobs};

/// The application router over `catalog`.
pub(crate) fn app(catalog: Arc<Catalog>) -> axum::Router {
    let crawl = CrawlService::open(catalog.clone()).unwrap();
    let jobs = Jobs::new(catalog.clone());
    router(AppState::new(catalog, crawl, jobs))
}

pub(crate) async fn send(
    app: &axum::Router,
    method: &str,
    uri: &str,
    content_type: &str,
    body: impl Into<Body>,
) -> (StatusCode, Value) {
    send_with_headers(app, method, uri, &[("content-type", content_type)], body).await
}

pub(crate) async fn json_request(
    app: &axum::Router,
    method: &str,
    uri: &str,
    body: Value,
) -> (StatusCode, Value) {
    send(app, method, uri, "application/json", body.to_string()).await
}

pub(crate) fn error_code(body: &Value) -> &str {
    body["error"]["code"]
        .as_str()
        .unwrap_or_else(|| panic!("not an error body: {body}"))
}

/// Sends a JSON body with an optional bearer token.
pub(crate) async fn send_with_token(
    app: &axum::Router,
    method: &str,
    uri: &str,
    token: Option<&str>,
    body: Value,
) -> (StatusCode, Value) {
    let mut request = Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", "application/json");
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    let response = app
        .clone()
        .oneshot(request.body(Body::from(body.to_string())).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

/// Sends `body` with the given headers (`host`, `origin`, `content-type`, `authorization` …);
/// answers the status and the body as JSON (a string when it is not JSON, null when empty).
pub(crate) async fn send_with_headers(
    app: &axum::Router,
    method: &str,
    uri: &str,
    headers: &[(&str, &str)],
    body: impl Into<Body>,
) -> (StatusCode, Value) {
    let mut request = Request::builder().method(method).uri(uri);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = app
        .clone()
        .oneshot(request.body(body.into()).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let value = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).to_string()))
    };
    (status, value)
}
