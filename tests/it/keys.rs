//! API keys with roles: every role against every class of endpoint (read, check, write, admin),
//! keys limited to libraries, revocation taking effect at once, and the audit log of writes.

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::support::{app, catalog_with, send, send_with_token, synthetic_text};

const ADMIN: &str = "the-configured-token";

/// A router whose reads are protected too, with a library `lib` holding one document.
async fn protected() -> (tempfile::TempDir, axum::Router) {
    let (dir, catalog) = catalog_with(|config| {
        config.server.token = Some(ADMIN.to_string());
        config.server.protect_reads = true;
    });
    let app = app(catalog);
    for (uri, body) in [
        ("/api/v1/libraries", json!({"id": "lib"})),
        ("/api/v1/libraries", json!({"id": "other"})),
        (
            "/api/v1/libraries/lib/documents",
            json!({"id": "d1", "text": synthetic_text(3, 120)}),
        ),
    ] {
        let (status, body) = send_with_token(&app, "POST", uri, Some(ADMIN), body).await;
        assert!(status.is_success(), "{uri}: {status} {body}");
    }
    (dir, app)
}

async fn create_key(app: &axum::Router, body: Value) -> String {
    let (status, answer) = send_with_token(app, "POST", "/api/v1/keys", Some(ADMIN), body).await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    assert!(answer.get("hash").is_none(), "{answer}");
    answer["key"].as_str().unwrap().to_string()
}

/// One request of each class, answered for `key`: read, check, write, admin.
async fn classes(app: &axum::Router, key: Option<&str>, n: usize) -> [StatusCode; 4] {
    let read = send_with_token(app, "GET", "/api/v1/libraries", key, Value::Null).await;
    let check = send_with_token(
        app,
        "POST",
        "/api/v1/check",
        key,
        json!({"text": synthetic_text(3, 120), "libraries": ["lib"]}),
    )
    .await;
    let write = send_with_token(
        app,
        "POST",
        "/api/v1/libraries",
        key,
        json!({"id": format!("new-{n}")}),
    )
    .await;
    let admin = send_with_token(app, "GET", "/api/v1/keys", key, Value::Null).await;
    [read.0, check.0, write.0, admin.0]
}

#[tokio::test]
async fn each_role_may_do_what_it_says_and_no_more() {
    let (_dir, app) = protected().await;
    use StatusCode as S;
    let cases = [
        ("admin", [S::OK, S::OK, S::CREATED, S::OK]),
        ("operator", [S::OK, S::OK, S::CREATED, S::FORBIDDEN]),
        ("checker", [S::OK, S::OK, S::FORBIDDEN, S::FORBIDDEN]),
        ("reader", [S::OK, S::FORBIDDEN, S::FORBIDDEN, S::FORBIDDEN]),
    ];
    for (n, (role, expected)) in cases.into_iter().enumerate() {
        let key = create_key(&app, json!({"name": format!("{role}-key"), "role": role})).await;
        assert_eq!(classes(&app, Some(&key), n).await, expected, "{role}");
        // A backup holds every library and every key: an admin's alone.
        let (status, _) =
            send_with_token(&app, "POST", "/api/v1/backup", Some(&key), Value::Null).await;
        let allowed = if role == "admin" { S::OK } else { S::FORBIDDEN };
        assert_eq!(status, allowed, "{role} backup");
    }
    let unauthorized = [S::UNAUTHORIZED; 4];
    assert_eq!(classes(&app, None, 10).await, unauthorized, "no key");
    assert_eq!(
        classes(&app, Some("dfk_wrong"), 11).await,
        unauthorized,
        "a wrong key"
    );
    let (_, body) =
        send_with_token(&app, "GET", "/api/v1/keys", Some("dfk_wrong"), Value::Null).await;
    assert_eq!(body["error"]["code"], "invalid_token");
    let (_, body) = send_with_token(&app, "GET", "/api/v1/keys", None, Value::Null).await;
    assert_eq!(body["error"]["code"], "missing_token");

    // The configured token is an admin key; the scheme is matched in any case.
    let (status, _) = send(
        &app,
        "GET",
        "/api/v1/keys",
        "application/json",
        axum::body::Body::empty(),
    )
    .await;
    assert_eq!(status, S::UNAUTHORIZED);
    let request = axum::http::Request::builder()
        .uri("/api/v1/keys")
        .header("authorization", format!("bearer {ADMIN}"))
        .body(axum::body::Body::empty())
        .unwrap();
    let response = tower::ServiceExt::oneshot(app.clone(), request)
        .await
        .unwrap();
    assert_eq!(response.status(), S::OK);
}

#[tokio::test]
async fn a_key_limited_to_libraries_touches_only_those() {
    let (_dir, app) = protected().await;
    let key = create_key(
        &app,
        json!({"name": "lib-operator", "role": "operator", "libraries": ["lib"]}),
    )
    .await;
    let document = json!({"id": "d2", "text": synthetic_text(4, 120)});
    let (status, body) = send_with_token(
        &app,
        "POST",
        "/api/v1/libraries/lib/documents",
        Some(&key),
        document.clone(),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = send_with_token(
        &app,
        "POST",
        "/api/v1/libraries/other/documents",
        Some(&key),
        document,
    )
    .await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (StatusCode::FORBIDDEN, &json!("forbidden"))
    );
    let (status, _) = send_with_token(
        &app,
        "POST",
        "/api/v1/check",
        Some(&key),
        json!({"text": synthetic_text(3, 120), "libraries": ["other"]}),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // Without `libraries`, the check runs against the key's libraries only.
    let (status, body) = send_with_token(
        &app,
        "POST",
        "/api/v1/check",
        Some(&key),
        json!({"text": synthetic_text(3, 120)}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["generations"].as_object().unwrap().len(), 1, "{body}");
    assert_eq!(body["matches"][0]["doc_id"], "d1", "{body}");
}

#[tokio::test]
async fn a_revoked_key_is_refused_at_once_and_writes_are_audited() {
    let (_dir, app) = protected().await;
    let key = create_key(&app, json!({"name": "portal", "role": "operator"})).await;
    let (status, _) = send_with_token(
        &app,
        "DELETE",
        "/api/v1/libraries/other",
        Some(&key),
        Value::Null,
    )
    .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, _) = send_with_token(
        &app,
        "DELETE",
        "/api/v1/keys/portal",
        Some(ADMIN),
        Value::Null,
    )
    .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, body) =
        send_with_token(&app, "GET", "/api/v1/libraries", Some(&key), Value::Null).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (StatusCode::UNAUTHORIZED, &json!("invalid_token"))
    );
    let (status, body) = send_with_token(
        &app,
        "DELETE",
        "/api/v1/keys/portal",
        Some(ADMIN),
        Value::Null,
    )
    .await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (StatusCode::NOT_FOUND, &json!("key_not_found"))
    );

    let (status, log) = send_with_token(
        &app,
        "GET",
        "/api/v1/audit?limit=10",
        Some(ADMIN),
        Value::Null,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{log}");
    let entries = log["entries"].as_array().unwrap();
    let by_portal = entries
        .iter()
        .find(|e| e["key"] == "portal")
        .unwrap_or_else(|| panic!("{log}"));
    assert_eq!(by_portal["target"], "/api/v1/libraries/other");
    assert!(
        by_portal["action"].as_str().unwrap().starts_with("DELETE "),
        "{log}"
    );
    assert_eq!(by_portal["status"], 204);
    // Newest first: the second revocation (refused) is the latest write.
    assert_eq!(entries[0]["target"], "/api/v1/keys/portal");
    assert_eq!(entries[0]["status"], 404);
    assert_eq!(entries[0]["key"], "token");
    // Reads are not audited.
    assert!(
        entries
            .iter()
            .all(|e| !e["action"].as_str().unwrap().starts_with("GET"))
    );
}
