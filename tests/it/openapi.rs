//! The OpenAPI document against the router: every route is documented, every documented
//! operation is routed, and the document is served. Also the web UI's files.

use std::collections::BTreeSet;

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::api::{json_request, send};
use crate::support::{app, catalog, synthetic_text};

const METHODS: [&str; 6] = ["get", "post", "put", "patch", "delete", "head"];

/// `(method, path)` of every route the router declares, read from its source: axum cannot list
/// its routes, and the source is what a new route is added to. `{*rest}` is written `{rest}`,
/// as OpenAPI spells it.
fn routed() -> BTreeSet<(String, String)> {
    let source = include_str!("../../src/api/routes.rs");
    let mut routes = BTreeSet::new();
    for (start, _) in source.match_indices(".route(") {
        let call = &source[start + ".route(".len()..];
        let mut depth = 1;
        let end = call
            .char_indices()
            .find(|&(_, c)| {
                depth += match c {
                    '(' => 1,
                    ')' => -1,
                    _ => 0,
                };
                depth == 0
            })
            .map(|(i, _)| i)
            .expect("a closed .route( call");
        let call = &call[..end];
        let path = call.split('"').nth(1).expect("a path literal");
        let path = path.replace("{*", "{");
        for method in METHODS {
            let called = call.match_indices(&format!("{method}(")).any(|(i, _)| {
                i == 0
                    || !call.as_bytes()[i - 1].is_ascii_alphanumeric()
                        && call.as_bytes()[i - 1] != b'_'
            });
            if called {
                routes.insert((method.to_string(), path.clone()));
            }
        }
    }
    assert!(
        routes.len() > 10,
        "the route parser found too few: {routes:?}"
    );
    routes
}

fn documented(document: &Value) -> BTreeSet<(String, String)> {
    let mut operations = BTreeSet::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().unwrap() {
            if METHODS.contains(&method.as_str()) {
                assert!(
                    operation["responses"]
                        .as_object()
                        .is_some_and(|r| !r.is_empty()),
                    "{method} {path} documents no response"
                );
                assert!(
                    operation["operationId"].is_string(),
                    "{method} {path} has no operationId"
                );
                operations.insert((method.clone(), path.clone()));
            }
        }
    }
    operations
}

#[test]
fn every_route_is_documented_and_every_documented_operation_is_routed() {
    let document: Value = serde_json::from_str(dupfinder::api::OPENAPI).unwrap();
    assert!(document["openapi"].as_str().unwrap().starts_with("3.1"));
    let routed = routed();
    let documented = documented(&document);
    let undocumented: Vec<_> = routed.difference(&documented).collect();
    assert!(
        undocumented.is_empty(),
        "routes missing from openapi.json: {undocumented:?}"
    );
    let unrouted: Vec<_> = documented.difference(&routed).collect();
    assert!(
        unrouted.is_empty(),
        "documented but not routed: {unrouted:?}"
    );
}

/// Every `$ref` points at a schema the document defines.
#[test]
fn every_reference_resolves() {
    let document: Value = serde_json::from_str(dupfinder::api::OPENAPI).unwrap();
    fn walk(value: &Value, document: &Value) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(target)) = map.get("$ref") {
                    let pointer = target.trim_start_matches('#');
                    assert!(
                        document.pointer(pointer).is_some(),
                        "dangling $ref {target}"
                    );
                }
                map.values().for_each(|v| walk(v, document));
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, document)),
            _ => {}
        }
    }
    walk(&document, &document);
}

/// The router answers every documented operation with the handler's own answer, never the
/// 404/405 of an unknown route or method.
#[tokio::test]
async fn every_documented_operation_reaches_a_handler() {
    let (_dir, catalog) = catalog();
    let app = app(catalog);
    json_request(&app, "POST", "/api/v1/libraries", json!({"id": "lib"})).await;
    json_request(
        &app,
        "POST",
        "/api/v1/libraries/lib/documents",
        json!({"id": "d1", "text": synthetic_text(5, 80)}),
    )
    .await;
    let document: Value = serde_json::from_str(dupfinder::api::OPENAPI).unwrap();
    let mut operations: Vec<_> = documented(&document).into_iter().collect();
    // Deleting the library last keeps it for the others.
    operations.sort_by_key(|(method, _)| method == "delete");
    for (method, path) in operations {
        let uri = path
            .replace("{id}", "lib")
            .replace("{doc_id}", "d1")
            .replace("{file}", "app.js");
        let (status, body) =
            send(&app, &method.to_uppercase(), &uri, "application/json", "{}").await;
        let code = body["error"]["code"].as_str().unwrap_or_default();
        assert!(
            !matches!(code, "not_found" | "method_not_allowed"),
            "{method} {uri}: {status} {body}"
        );
        assert_ne!(status, StatusCode::METHOD_NOT_ALLOWED, "{method} {uri}");
    }
}

#[tokio::test]
async fn the_document_and_the_ui_are_served() {
    let (_dir, catalog) = catalog();
    let app = app(catalog);
    let (status, body) = send(&app, "GET", "/api/v1/openapi.json", "", "").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        body,
        serde_json::from_str::<Value>(dupfinder::api::OPENAPI).unwrap()
    );

    let (status, page) = send(&app, "GET", "/", "", "").await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.as_str().unwrap().contains("<!doctype html>"), "{page}");
    for name in dupfinder::web::asset_names() {
        let (status, _) = send(&app, "GET", &format!("/ui/{name}"), "", "").await;
        assert_eq!(status, StatusCode::OK, "{name}");
    }
    let (status, body) = send(&app, "GET", "/ui/missing.js", "", "").await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (StatusCode::NOT_FOUND, &json!("not_found"))
    );
}
