//! API keys with roles: every role against every class of endpoint (read, check, write, admin),
//! keys limited to libraries, revocation taking effect at once, and the audit log of writes.

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::support::{app, catalog_with, send, send_with_headers, send_with_token, synthetic_text};

const ADMIN: &str = "the-configured-token";

/// A router whose reads are protected too, with a library `lib` holding one document.
async fn protected() -> (tempfile::TempDir, axum::Router) {
    with_token(true).await
}

/// A router with a token (reads and checks open unless `protect_reads`), libraries `lib` and
/// `other`, each holding one document of the same text.
async fn with_token(protect_reads: bool) -> (tempfile::TempDir, axum::Router) {
    let (dir, catalog) = catalog_with(|config| {
        config.server.token = Some(ADMIN.to_string());
        config.server.protect_reads = protect_reads;
    });
    let app = app(catalog);
    for (uri, body) in [
        ("/api/v1/libraries", json!({"id": "lib"})),
        ("/api/v1/libraries", json!({"id": "other"})),
        (
            "/api/v1/libraries/lib/documents",
            json!({"id": "d1", "text": synthetic_text(3, 120)}),
        ),
        (
            "/api/v1/libraries/other/documents",
            json!({"id": "o1", "text": synthetic_text(3, 120)}),
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

/// The libraries that held a candidate for a check.
fn checked(answer: &Value) -> Vec<&str> {
    answer["generations"]
        .as_object()
        .unwrap_or_else(|| panic!("{answer}"))
        .keys()
        .map(String::as_str)
        .collect()
}

#[tokio::test]
async fn a_revoked_or_made_up_key_is_refused_where_anonymous_callers_are_served() {
    // Reads and checks are open to anonymous callers here.
    let (_dir, app) = with_token(false).await;
    let key = create_key(
        &app,
        json!({"name": "lib-checker", "role": "checker", "libraries": ["lib"]}),
    )
    .await;
    let check = json!({"text": synthetic_text(3, 120)});
    let (status, answer) =
        send_with_token(&app, "POST", "/api/v1/check", Some(&key), check.clone()).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["libraries_checked"], 1, "{answer}");
    assert_eq!(checked(&answer), ["lib"]);
    let (status, _) = send_with_token(
        &app,
        "DELETE",
        "/api/v1/keys/lib-checker",
        Some(ADMIN),
        Value::Null,
    )
    .await;
    assert_eq!(status, StatusCode::NO_CONTENT);

    let requests = [
        ("POST", "/api/v1/check", check.clone()),
        ("GET", "/api/v1/libraries", Value::Null),
        ("GET", "/api/v1/libraries/other/documents", Value::Null),
        ("GET", "/api/v1/libraries/other/search?q=paper", Value::Null),
        ("GET", "/api/v1/jobs", Value::Null),
        ("GET", "/metrics", Value::Null),
    ];
    for (method, uri, body) in requests {
        for presented in [key.as_str(), "dfk_made_up", ""] {
            let (status, answer) =
                send_with_token(&app, method, uri, Some(presented), body.clone()).await;
            assert_eq!(
                (status, &answer["error"]["code"]),
                (StatusCode::UNAUTHORIZED, &json!("invalid_token")),
                "{method} {uri} with `{presented}`: {answer}"
            );
        }
    }
    // A header that is not a bearer credential at all is refused alike.
    let (status, answer) = send_with_headers(
        &app,
        "GET",
        "/api/v1/libraries",
        &[("authorization", "Basic dXNlcjpwYXNz")],
        "",
    )
    .await;
    assert_eq!(
        (status, &answer["error"]["code"]),
        (StatusCode::UNAUTHORIZED, &json!("invalid_token")),
        "{answer}"
    );
    // Without a credential the same requests are served, against every library.
    let (status, answer) = send_with_token(&app, "POST", "/api/v1/check", None, check).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["libraries_checked"], 2, "{answer}");
    assert_eq!(checked(&answer), ["lib", "other"]);
    // The routes that hold no data answer whatever is presented: the UI's page and files, the
    // health check and the API's description.
    for uri in ["/healthz", "/", "/api/v1/openapi.json", "/ui/app.js"] {
        let (status, _) = send_with_token(&app, "GET", uri, Some("dfk_made_up"), Value::Null).await;
        assert_eq!(status, StatusCode::OK, "{uri}");
    }
}

#[tokio::test]
async fn an_open_server_refuses_a_key_it_does_not_know() {
    let (_dir, catalog) = catalog_with(|_| {});
    let app = app(catalog);
    let (status, answer) = send_with_token(
        &app,
        "POST",
        "/api/v1/libraries",
        Some("dfk_stale"),
        json!({"id": "lib"}),
    )
    .await;
    assert_eq!(
        (status, &answer["error"]["code"]),
        (StatusCode::UNAUTHORIZED, &json!("invalid_token")),
        "{answer}"
    );
    let (status, answer) = send_with_token(
        &app,
        "GET",
        "/api/v1/libraries",
        Some("dfk_stale"),
        Value::Null,
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{answer}");
    let (status, answer) =
        send_with_token(&app, "GET", "/api/v1/libraries", None, Value::Null).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["libraries"], json!([]));
}

/// The ids of a listing's items under `field`.
fn ids<'a>(answer: &'a Value, list: &str, field: &str) -> Vec<&'a str> {
    answer[list]
        .as_array()
        .unwrap_or_else(|| panic!("no `{list}` in {answer}"))
        .iter()
        .map(|item| item[field].as_str().unwrap())
        .collect()
}

/// A check by the configured token against `libraries`; answers the report's id.
async fn report_on(app: &axum::Router, libraries: &[&str]) -> String {
    let (status, answer) = send_with_token(
        app,
        "POST",
        "/api/v1/check",
        Some(ADMIN),
        json!({"text": synthetic_text(3, 120), "libraries": libraries}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    answer["report_id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn a_key_limited_to_a_library_sees_and_changes_nothing_of_another() {
    let (_dir, app) = with_token(false).await;
    let on_lib = report_on(&app, &["lib"]).await;
    let on_other = report_on(&app, &["other"]).await;
    let on_both = report_on(&app, &["lib", "other"]).await;
    let key = create_key(
        &app,
        json!({"name": "lib-operator", "role": "operator", "libraries": ["lib"]}),
    )
    .await;
    let key = Some(key.as_str());

    // Reports: the list holds only those whose libraries are all the key's.
    let (status, list) = send_with_token(&app, "GET", "/api/v1/reports", key, Value::Null).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(ids(&list, "reports", "report_id"), [on_lib.as_str()]);
    assert_eq!(list["total"], 1, "{list}");
    let (status, answer) = send_with_token(
        &app,
        "GET",
        "/api/v1/reports?library=other",
        key,
        Value::Null,
    )
    .await;
    assert_eq!(
        (status, &answer["error"]["code"]),
        (StatusCode::FORBIDDEN, &json!("forbidden")),
        "{answer}"
    );
    let (status, _) = send_with_token(
        &app,
        "GET",
        &format!("/api/v1/reports/{on_lib}"),
        key,
        Value::Null,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    for id in [&on_other, &on_both] {
        let decision = json!({"decision": "duplicate"});
        for (method, uri, body) in [
            ("GET", format!("/api/v1/reports/{id}"), Value::Null),
            ("GET", format!("/api/v1/reports/{id}/pdf"), Value::Null),
            ("PATCH", format!("/api/v1/reports/{id}"), decision),
            ("DELETE", format!("/api/v1/reports/{id}"), Value::Null),
        ] {
            let (status, answer) = send_with_token(&app, method, &uri, key, body).await;
            assert_eq!(
                (status, &answer["error"]["code"]),
                (StatusCode::NOT_FOUND, &json!("report_not_found")),
                "{method} {uri}: {answer}"
            );
        }
        // Untouched.
        let (status, report) = send_with_token(
            &app,
            "GET",
            &format!("/api/v1/reports/{id}"),
            Some(ADMIN),
            Value::Null,
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{report}");
        assert_eq!(report["decision"], "not_checked", "{report}");
    }

    // Libraries: the list names the key's alone.
    let (status, list) = send_with_token(&app, "GET", "/api/v1/libraries", key, Value::Null).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(ids(&list, "libraries", "id"), ["lib"]);

    // Jobs: another library's job is not listed, not shown, not stopped.
    let (status, job) = send_with_token(
        &app,
        "POST",
        "/api/v1/libraries/other/dedup",
        Some(ADMIN),
        Value::Null,
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{job}");
    let job = job["job"].as_str().unwrap().to_string();
    let (status, own) = send_with_token(
        &app,
        "POST",
        "/api/v1/libraries/lib/dedup",
        key,
        Value::Null,
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{own}");
    let (status, list) = send_with_token(&app, "GET", "/api/v1/jobs", key, Value::Null).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(ids(&list, "jobs", "job"), [own["job"].as_str().unwrap()]);
    for method in ["GET", "DELETE"] {
        let (status, answer) = send_with_token(
            &app,
            method,
            &format!("/api/v1/jobs/{job}"),
            key,
            Value::Null,
        )
        .await;
        assert_eq!(
            (status, &answer["error"]["code"]),
            (StatusCode::NOT_FOUND, &json!("job_not_found")),
            "{method}: {answer}"
        );
    }

    // A batch checked against another library: its summary is not the key's either.
    let text = synthetic_text(3, 120);
    let body = crate::files::multipart(&[
        ("file", Some("a.txt"), text.as_bytes()),
        ("file", Some("b.txt"), text.as_bytes()),
        ("options", None, br#"{"libraries": ["other"]}"#),
    ]);
    let bearer = format!("Bearer {ADMIN}");
    let (status, batch) = send_with_headers(
        &app,
        "POST",
        "/api/v1/check",
        &[
            ("content-type", &crate::files::content_type()),
            ("authorization", &bearer),
        ],
        body,
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{batch}");
    let batch = batch["job"].as_str().unwrap();
    let (status, answer) = send_with_token(
        &app,
        "GET",
        &format!("/api/v1/jobs/{batch}/reports"),
        key,
        Value::Null,
    )
    .await;
    assert_eq!(
        (status, &answer["error"]["code"]),
        (StatusCode::NOT_FOUND, &json!("job_not_found")),
        "{answer}"
    );

    // Alerts naming another library, and the metrics of every library, are refused.
    for uri in ["/api/v1/alerts?library=other", "/metrics"] {
        let (status, answer) = send_with_token(&app, "GET", uri, key, Value::Null).await;
        assert_eq!(
            (status, &answer["error"]["code"]),
            (StatusCode::FORBIDDEN, &json!("forbidden")),
            "{uri}: {answer}"
        );
    }

    // An admin key limited to a library is not an admin of the server: keys, the audit log,
    // backups and webhooks span every library.
    let limited_admin = create_key(
        &app,
        json!({"name": "lib-admin", "role": "admin", "libraries": ["lib"]}),
    )
    .await;
    for (method, uri, body) in [
        (
            "POST",
            "/api/v1/keys",
            json!({"name": "escalated", "role": "admin"}),
        ),
        ("GET", "/api/v1/keys", Value::Null),
        ("GET", "/api/v1/audit", Value::Null),
        ("POST", "/api/v1/backup", Value::Null),
        ("GET", "/api/v1/webhooks", Value::Null),
    ] {
        let (status, answer) = send_with_token(&app, method, uri, Some(&limited_admin), body).await;
        assert_eq!(
            (status, &answer["error"]["code"]),
            (StatusCode::FORBIDDEN, &json!("forbidden")),
            "{method} {uri}: {answer}"
        );
    }
}

#[tokio::test]
async fn an_open_server_refuses_a_non_admin_key_until_an_admin_key_exists() {
    let (_dir, catalog) = catalog_with(|_| {});
    let app = app(catalog);
    for body in [
        json!({"name": "portal", "role": "checker"}),
        json!({"name": "lib-admin", "role": "admin", "libraries": ["lib"]}),
    ] {
        let (status, answer) = send_with_token(&app, "POST", "/api/v1/keys", None, body).await;
        assert_eq!(
            (status, &answer["error"]["code"]),
            (StatusCode::CONFLICT, &json!("admin_key_required")),
            "{answer}"
        );
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains("\"role\": \"admin\""),
            "the message says what to do: {answer}"
        );
    }
    // Still open: nothing was created.
    let (status, answer) = send_with_token(&app, "GET", "/api/v1/keys", None, Value::Null).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["keys"], json!([]));

    let (status, admin) = send_with_token(
        &app,
        "POST",
        "/api/v1/keys",
        None,
        json!({"name": "admin", "role": "admin"}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{admin}");
    let admin = admin["key"].as_str().unwrap().to_string();
    let (status, answer) = send_with_token(
        &app,
        "POST",
        "/api/v1/keys",
        Some(&admin),
        json!({"name": "portal", "role": "checker"}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    // Revoking the last admin key while other keys remain would lock the operator out too.
    let (status, answer) = send_with_token(
        &app,
        "DELETE",
        "/api/v1/keys/admin",
        Some(&admin),
        Value::Null,
    )
    .await;
    assert_eq!(
        (status, &answer["error"]["code"]),
        (StatusCode::CONFLICT, &json!("admin_key_required")),
        "{answer}"
    );
    let (status, _) = send_with_token(
        &app,
        "DELETE",
        "/api/v1/keys/portal",
        Some(&admin),
        Value::Null,
    )
    .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, _) = send_with_token(
        &app,
        "DELETE",
        "/api/v1/keys/admin",
        Some(&admin),
        Value::Null,
    )
    .await;
    assert_eq!(
        status,
        StatusCode::NO_CONTENT,
        "the last key may go: the server is open again"
    );
}

#[tokio::test]
async fn a_server_with_a_token_creates_any_key_first() {
    let (_dir, app) = with_token(false).await;
    let (status, answer) = send_with_token(
        &app,
        "POST",
        "/api/v1/keys",
        Some(ADMIN),
        json!({"name": "portal", "role": "checker"}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
}

#[test]
fn the_command_line_warns_when_a_non_admin_key_comes_before_any_admin_key() {
    let dir = tempfile::tempdir().unwrap();
    let create = |name: &str, role: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_dupfinder"))
            .args(["--data-dir", dir.path().to_str().unwrap(), "keys", "create"])
            .args(["--name", name, "--role", role])
            .output()
            .unwrap()
    };
    let first = create("portal", "checker");
    assert!(first.status.success(), "{first:?}");
    let warning = String::from_utf8_lossy(&first.stderr);
    assert!(
        warning.contains("no admin key") && warning.contains("--role admin"),
        "{warning}"
    );
    let admin = create("admin", "admin");
    assert!(admin.status.success(), "{admin:?}");
    let second = create("harvester", "operator");
    assert!(second.status.success(), "{second:?}");
    assert!(
        !String::from_utf8_lossy(&second.stderr).contains("no admin key"),
        "{second:?}"
    );
}
