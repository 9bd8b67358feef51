//! The OpenAPI document against the router: every route is documented, every documented
//! operation is routed, and the document is served. Also the web UI's files.

use std::collections::BTreeSet;

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::support::{app, catalog, synthetic_text};
use crate::support::{json_request, send};

const METHODS: [&str; 6] = ["get", "post", "put", "patch", "delete", "head"];

/// `(method, path)` of every route, asked of the router itself: each path of its route table is
/// sent every method, with placeholders filled by names that exist nowhere; a method the path
/// does not route answers the router's own 405, any other answer comes from a handler.
/// `{*rest}` is written `{rest}`, as OpenAPI spells it.
async fn routed() -> BTreeSet<(String, String)> {
    let (_dir, catalog) = catalog();
    let app = app(catalog);
    let mut routes = BTreeSet::new();
    for path in dupfinder::api::route_paths() {
        let uri = path
            .replace("{*doc_id}", "none")
            .replace("{file}", "app.js")
            .replace(['{', '}'], "");
        for method in METHODS.iter().filter(|m| **m != "head") {
            let (_, body) =
                send(&app, &method.to_uppercase(), &uri, "application/json", "{}").await;
            if body["error"]["code"] != "method_not_allowed" {
                routes.insert((method.to_string(), path.replace("{*", "{")));
            }
        }
    }
    assert!(routes.len() > 10, "too few routes found: {routes:?}");
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

#[tokio::test]
async fn every_route_is_documented_and_every_documented_operation_is_routed() {
    let document: Value = serde_json::from_str(dupfinder::api::OPENAPI).unwrap();
    assert!(document["openapi"].as_str().unwrap().starts_with("3.1"));
    let routed = routed().await;
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

/// The error codes the document lists are the API's table of codes.
#[test]
fn the_documented_error_codes_are_the_apis() {
    let document: Value = serde_json::from_str(dupfinder::api::OPENAPI).unwrap();
    let listed: BTreeSet<&str> = document["components"]["schemas"]["Error"]["properties"]["error"]
        ["properties"]["code"]["enum"]
        .as_array()
        .expect("the Error schema lists its codes")
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    let table: BTreeSet<&str> = dupfinder::api::ErrorCode::ANSWERED
        .iter()
        .map(|c| c.as_str())
        .collect();
    assert_eq!(listed, table);
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
