//! The HTTP API through the router, without a socket: the contract of API.md, every bad input
//! answered with its 4xx code, and documents checkable as soon as they are acknowledged.

use axum::body::Body;
use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::support::{
    app, catalog, error_code, json_request, send, send_with_headers, send_with_token,
    synthetic_text,
};

#[tokio::test]
async fn library_lifecycle() {
    let (_dir, catalog) = catalog();
    let app = app(catalog);
    let (status, body) = json_request(
        &app,
        "POST",
        "/api/v1/libraries",
        json!({"id": "acl", "name": "ACL"}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["id"], "acl");
    assert_eq!(body["documents"], 0);
    for key in [
        "name",
        "start_url",
        "clarifications",
        "words",
        "last_indexed",
        "status",
        "stats_generation",
        "drift",
    ] {
        assert!(body.get(key).is_some(), "library lacks `{key}`: {body}");
    }

    let (status, body) =
        json_request(&app, "POST", "/api/v1/libraries", json!({"id": "acl"})).await;
    assert_eq!(
        (status, error_code(&body)),
        (StatusCode::CONFLICT, "library_exists")
    );
    let (status, body) =
        json_request(&app, "POST", "/api/v1/libraries", json!({"id": "Bad Id"})).await;
    assert_eq!(
        (status, error_code(&body)),
        (StatusCode::BAD_REQUEST, "invalid_library_id")
    );
    let (status, body) =
        json_request(&app, "POST", "/api/v1/libraries", json!({"name": "no id"})).await;
    assert_eq!(
        (status, error_code(&body)),
        (StatusCode::BAD_REQUEST, "missing_field")
    );

    let (status, body) = send(&app, "GET", "/api/v1/libraries", "application/json", "").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["libraries"].as_array().unwrap().len(), 1);

    let (status, _) = send(
        &app,
        "DELETE",
        "/api/v1/libraries/acl",
        "application/json",
        "",
    )
    .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, body) = send(&app, "GET", "/api/v1/libraries/acl", "application/json", "").await;
    assert_eq!(
        (status, error_code(&body)),
        (StatusCode::NOT_FOUND, "library_not_found")
    );
    let (status, body) = send(
        &app,
        "GET",
        "/api/v1/libraries/NOT_VALID",
        "application/json",
        "",
    )
    .await;
    assert_eq!(
        (status, error_code(&body)),
        (StatusCode::BAD_REQUEST, "invalid_library_id")
    );
}

#[tokio::test]
async fn router_errors_are_json() {
    let (_dir, catalog) = catalog();
    let app = app(catalog);
    let (status, body) = send(&app, "GET", "/no/such/route", "application/json", "").await;
    assert_eq!(
        (status, error_code(&body)),
        (StatusCode::NOT_FOUND, "not_found")
    );
    let (status, body) = send(&app, "PUT", "/api/v1/check", "application/json", "").await;
    assert_eq!(
        (status, error_code(&body)),
        (StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed")
    );
    let (status, body) = send(&app, "GET", "/healthz", "application/json", "").await;
    assert_eq!((status, body), (StatusCode::OK, json!({"status": "ok"})));
}

#[tokio::test]
async fn bad_documents_get_their_own_codes_and_lose_nothing() {
    let (_dir, catalog) = catalog();
    let app = app(catalog);
    json_request(&app, "POST", "/api/v1/libraries", json!({"id": "lib"})).await;
    let good = synthetic_text(1, 120);
    let (status, body) = json_request(
        &app,
        "POST",
        "/api/v1/libraries/lib/documents",
        json!({"id": "keep", "text": good}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["accepted"], 1);

    let docs = "/api/v1/libraries/lib/documents";
    let cases: Vec<(Body, &str, StatusCode, &str)> = vec![
        (
            Body::from("{\"text\": \"unterminated"),
            "application/json",
            StatusCode::BAD_REQUEST,
            "invalid_json",
        ),
        (
            Body::from(json!({"id": "x", "title": "no text"}).to_string()),
            "application/json",
            StatusCode::BAD_REQUEST,
            "missing_field",
        ),
        (
            Body::from(json!({"text": "   "}).to_string()),
            "application/json",
            StatusCode::UNPROCESSABLE_ENTITY,
            "text_empty",
        ),
        (
            Body::from(json!({"text": "three small words"}).to_string()),
            "application/json",
            StatusCode::UNPROCESSABLE_ENTITY,
            "text_too_short",
        ),
        (
            Body::from(json!({"text": good, "lang": "xx-klingon"}).to_string()),
            "application/json",
            StatusCode::BAD_REQUEST,
            "invalid_lang",
        ),
        (
            Body::from(json!({"text": good, "doi": "ISBN 978-3-16"}).to_string()),
            "application/json",
            StatusCode::BAD_REQUEST,
            "invalid_doi",
        ),
        (
            Body::from(json!({"text": good, "pdf_url": "javascript:alert(1)"}).to_string()),
            "application/json",
            StatusCode::BAD_REQUEST,
            "invalid_pdf_url",
        ),
        (
            Body::from(vec![b'{', b'"', 0xff, 0xfe, b'"', b'}']),
            "application/json",
            StatusCode::BAD_REQUEST,
            "invalid_utf8",
        ),
        (
            Body::from(vec![b'a'; 50 * 1024 * 1024]),
            "application/json",
            StatusCode::PAYLOAD_TOO_LARGE,
            "body_too_large",
        ),
    ];
    for (body, content_type, expected_status, expected_code) in cases {
        let (status, answer) = send(&app, "POST", docs, content_type, body).await;
        assert_eq!(
            (status, error_code(&answer)),
            (expected_status, expected_code),
            "{answer}"
        );
    }
    let (status, answer) = json_request(
        &app,
        "POST",
        "/api/v1/libraries/nolib/documents",
        json!({"text": good}),
    )
    .await;
    assert_eq!(
        (status, error_code(&answer)),
        (StatusCode::NOT_FOUND, "library_not_found")
    );

    // The document accepted before the bad requests is still there.
    let (status, answer) = send(
        &app,
        "GET",
        "/api/v1/libraries/lib/documents/keep",
        "application/json",
        "",
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["text"], good);
    assert_eq!(answer["pdf_url"], Value::Null);
    assert_eq!(answer["doi"], Value::Null);
}

#[tokio::test]
async fn the_full_text_address_and_the_doi_are_stored_and_answered() {
    let (_dir, catalog) = catalog();
    let app = app(catalog);
    json_request(&app, "POST", "/api/v1/libraries", json!({"id": "lib"})).await;
    let text = synthetic_text(7, 150);
    let (status, body) = json_request(
        &app,
        "POST",
        "/api/v1/libraries/lib/documents",
        json!({"id": "p", "title": "Paper", "text": text,
               "pdf_url": "https://journal.example/files/p.pdf",
               "doi": "https://doi.org/10.1234/ABC.7"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, document) = send(&app, "GET", "/api/v1/libraries/lib/documents/p", "", "").await;
    assert_eq!(document["pdf_url"], "https://journal.example/files/p.pdf");
    assert_eq!(document["doi"], "10.1234/abc.7");
    let (_, listing) = send(&app, "GET", "/api/v1/libraries/lib/documents", "", "").await;
    assert_eq!(listing["items"][0]["doi"], "10.1234/abc.7", "{listing}");
    let (_, found) = send(&app, "GET", "/api/v1/libraries/lib/search?q=paper", "", "").await;
    assert_eq!(found["hits"][0]["doi"], "10.1234/abc.7", "{found}");
    let (_, report) = json_request(&app, "POST", "/api/v1/check", json!({"text": text})).await;
    let first = &report["matches"][0];
    assert_eq!(first["doc_id"], "p");
    assert_eq!(first["pdf_url"], "https://journal.example/files/p.pdf");
    assert_eq!(first["doi"], "10.1234/abc.7");
}

#[tokio::test]
async fn json_lines_keep_good_lines_and_report_the_broken_one() {
    let (_dir, catalog) = catalog();
    let app = app(catalog);
    json_request(&app, "POST", "/api/v1/libraries", json!({"id": "lib"})).await;
    let mut body = String::new();
    for i in 0..5 {
        body.push_str(
            &json!({"id": format!("d{i}"), "text": synthetic_text(100 + i, 80)}).to_string(),
        );
        body.push('\n');
        if i == 2 {
            body.push_str("{\"id\": \"broken\", \"text\": \n");
        }
    }
    let (status, answer) = send(
        &app,
        "POST",
        "/api/v1/libraries/lib/documents",
        "application/x-ndjson",
        body,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["accepted"], 5);
    let rejected = answer["rejected"].as_array().unwrap();
    assert_eq!(rejected.len(), 1);
    assert_eq!(rejected[0]["line"], 4);
    assert_eq!(rejected[0]["error"]["code"], "invalid_json");
    let (_, library) = send(&app, "GET", "/api/v1/libraries/lib", "application/json", "").await;
    assert_eq!(library["documents"], 5);
}

#[tokio::test]
async fn acknowledged_document_is_found_by_check_at_once() {
    let (_dir, catalog) = catalog();
    let app = app(catalog);
    json_request(&app, "POST", "/api/v1/libraries", json!({"id": "lib"})).await;
    let mut body = String::new();
    for i in 0..20 {
        body.push_str(&json!({"id": format!("d{i}"), "title": format!("Paper {i}"), "text": synthetic_text(i, 150)}).to_string());
        body.push('\n');
    }
    send(
        &app,
        "POST",
        "/api/v1/libraries/lib/documents",
        "application/x-ndjson",
        body,
    )
    .await;

    // A new document, checked right after its acknowledgement.
    let fresh = synthetic_text(999, 150);
    let (status, _) = json_request(
        &app,
        "POST",
        "/api/v1/libraries/lib/documents",
        json!({"id": "fresh", "text": fresh}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (status, report) =
        json_request(&app, "POST", "/api/v1/check", json!({"text": fresh})).await;
    assert_eq!(status, StatusCode::OK, "{report}");
    assert_eq!(report["verdict"], "duplicate");
    let first = &report["matches"][0];
    assert_eq!(first["doc_id"], "fresh");
    assert_eq!(first["library"], "lib");
    let methods: Vec<&str> = first["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert!(methods.contains(&"signature"), "{methods:?}");
    assert_eq!(first["resemblance"], 1.0);
    assert!(report["signature"].is_u64());
    assert!(report["took_ms"].is_f64());

    // Reformatted (case, whitespace) it is still found by its signature.
    let noisy = fresh.to_uppercase().replace(' ', "   \n ");
    let (_, report) = json_request(
        &app,
        "POST",
        "/api/v1/check",
        json!({"text": noisy, "libraries": ["lib"]}),
    )
    .await;
    assert_eq!(report["matches"][0]["doc_id"], "fresh");

    // An unrelated text matches nothing.
    let (_, report) = json_request(
        &app,
        "POST",
        "/api/v1/check",
        json!({"text": synthetic_text(5555, 150)}),
    )
    .await;
    assert_eq!(report["verdict"], "original", "{report}");
    assert_eq!(report["matches"], json!([]));

    // Bad checks.
    let (status, answer) = json_request(
        &app,
        "POST",
        "/api/v1/check",
        json!({"text": fresh, "libraries": ["nope"]}),
    )
    .await;
    assert_eq!(
        (status, error_code(&answer)),
        (StatusCode::NOT_FOUND, "library_not_found")
    );
    let (status, answer) = json_request(
        &app,
        "POST",
        "/api/v1/check",
        json!({"text": fresh, "min_similarity": 2}),
    )
    .await;
    assert_eq!(
        (status, error_code(&answer)),
        (StatusCode::BAD_REQUEST, "invalid_min_similarity")
    );
    let (status, answer) =
        json_request(&app, "POST", "/api/v1/check", json!({"libraries": ["lib"]})).await;
    assert_eq!(
        (status, error_code(&answer)),
        (StatusCode::BAD_REQUEST, "missing_field")
    );
}

#[tokio::test]
async fn operator_endpoints_need_the_configured_token() {
    let (_dir, catalog) =
        crate::support::catalog_with(|c| c.server.token = Some("s3cret".to_string()));
    let app = app(catalog);
    let create = json!({"id": "lib"});
    let (status, body) =
        send_with_token(&app, "POST", "/api/v1/libraries", None, create.clone()).await;
    assert_eq!(
        (status, error_code(&body)),
        (StatusCode::UNAUTHORIZED, "missing_token")
    );
    let (status, body) = send_with_token(
        &app,
        "POST",
        "/api/v1/libraries",
        Some("guess"),
        create.clone(),
    )
    .await;
    assert_eq!(
        (status, error_code(&body)),
        (StatusCode::UNAUTHORIZED, "invalid_token")
    );
    let (status, _) =
        send_with_token(&app, "POST", "/api/v1/libraries", Some("s3cret"), create).await;
    assert_eq!(status, StatusCode::CREATED);
    let document = json!({"id": "d", "text": synthetic_text(3, 100)});
    let (status, _) = send_with_token(
        &app,
        "POST",
        "/api/v1/libraries/lib/documents",
        None,
        document.clone(),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = send_with_token(
        &app,
        "POST",
        "/api/v1/libraries/lib/documents",
        Some("s3cret"),
        document,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) =
        send_with_token(&app, "DELETE", "/api/v1/libraries/lib", None, Value::Null).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    // Reading and checking stay open unless protect_reads is set.
    let (status, _) =
        send_with_token(&app, "GET", "/api/v1/libraries/lib", None, Value::Null).await;
    assert_eq!(status, StatusCode::OK);
    let (status, report) = send_with_token(
        &app,
        "POST",
        "/api/v1/check",
        None,
        json!({"text": synthetic_text(3, 100)}),
    )
    .await;
    assert_eq!(
        (status, report["verdict"].as_str()),
        (StatusCode::OK, Some("duplicate"))
    );
}

#[tokio::test]
async fn protect_reads_closes_reading_endpoints_but_not_healthz_the_ui_or_openapi() {
    let (_dir, catalog) = crate::support::catalog_with(|c| {
        c.server.token = Some("s3cret".to_string());
        c.server.protect_reads = true;
    });
    let app = app(catalog);
    let (status, _) = send_with_token(&app, "GET", "/api/v1/libraries", None, Value::Null).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = send_with_token(
        &app,
        "GET",
        "/api/v1/libraries",
        Some("s3cret"),
        Value::Null,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    for open in ["/healthz", "/", "/ui/app.js", "/api/v1/openapi.json"] {
        let (status, _) = send_with_token(&app, "GET", open, None, Value::Null).await;
        assert_eq!(status, StatusCode::OK, "{open}");
    }
    let (status, _) = send_with_token(
        &app,
        "GET",
        "/api/v1/libraries/x/documents",
        None,
        Value::Null,
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[test]
fn serving_beyond_loopback_without_a_token_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_dupfinder"))
        .args(["serve", "--listen", "0.0.0.0:0", "--data-dir"])
        .arg(dir.path())
        .env_remove("DUPFINDER_TOKEN")
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("without a token"), "{stderr}");
}

#[tokio::test]
async fn search_validates_its_parameters() {
    let (_dir, catalog) = catalog();
    let app = app(catalog);
    json_request(&app, "POST", "/api/v1/libraries", json!({"id": "lib"})).await;
    let text = synthetic_text(8, 120);
    json_request(
        &app,
        "POST",
        "/api/v1/libraries/lib/documents",
        json!({"id": "d", "title": "Signatures", "text": text}),
    )
    .await;
    let word = text.split(' ').nth(3).unwrap().trim_matches('.');
    let (status, body) = send(
        &app,
        "GET",
        &format!("/api/v1/libraries/lib/search?q={word}"),
        "application/json",
        "",
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["total"], 1);
    assert_eq!(body["hits"][0]["doc_id"], "d");
    for (uri, code) in [
        ("/api/v1/libraries/lib/search", "missing_query"),
        ("/api/v1/libraries/lib/search?q=x&limit=0", "invalid_limit"),
        (
            "/api/v1/libraries/lib/search?q=x&limit=ten",
            "invalid_parameter",
        ),
        ("/api/v1/libraries/lib/search?q=title:(", "invalid_query"),
    ] {
        let (status, body) = send(&app, "GET", uri, "application/json", "").await;
        assert_eq!(
            (status, error_code(&body)),
            (StatusCode::BAD_REQUEST, code),
            "{uri}"
        );
    }
    let (status, body) = send(
        &app,
        "GET",
        "/api/v1/libraries/none/search?q=x",
        "application/json",
        "",
    )
    .await;
    assert_eq!(
        (status, error_code(&body)),
        (StatusCode::NOT_FOUND, "library_not_found")
    );
}

#[tokio::test]
async fn a_deleted_document_is_gone_from_checks_search_and_listing_when_answered() {
    let (_dir, catalog) = catalog();
    let app = app(catalog);
    json_request(&app, "POST", "/api/v1/libraries", json!({"id": "lib"})).await;
    let text = synthetic_text(21, 150);
    for (id, text) in [
        ("keep", synthetic_text(22, 150)),
        ("gone/with/slashes", text.clone()),
    ] {
        let (status, body) = json_request(
            &app,
            "POST",
            "/api/v1/libraries/lib/documents",
            json!({"id": id, "text": text}),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    let (_, found) = json_request(&app, "POST", "/api/v1/check", json!({"text": text})).await;
    assert_eq!(found["matches"][0]["doc_id"], "gone/with/slashes");

    let uri = "/api/v1/libraries/lib/documents/gone/with/slashes";
    let (status, _) = send(&app, "DELETE", uri, "application/json", "").await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, body) = send(&app, "GET", uri, "application/json", "").await;
    assert_eq!(
        (status, error_code(&body)),
        (StatusCode::NOT_FOUND, "document_not_found")
    );
    let (_, answer) = json_request(&app, "POST", "/api/v1/check", json!({"text": text})).await;
    assert_eq!(answer["verdict"], "original", "{answer}");
    let (_, listing) = send(&app, "GET", "/api/v1/libraries/lib/documents", "", "").await;
    assert_eq!(listing["total"], 1, "{listing}");
    let (_, library) = send(&app, "GET", "/api/v1/libraries/lib", "", "").await;
    assert_eq!(library["documents"], 1);
    let (status, body) = send(&app, "DELETE", uri, "application/json", "").await;
    assert_eq!(
        (status, error_code(&body)),
        (StatusCode::NOT_FOUND, "document_not_found")
    );
    let (status, body) = send(
        &app,
        "DELETE",
        "/api/v1/libraries/none/documents/x",
        "application/json",
        "",
    )
    .await;
    assert_eq!(
        (status, error_code(&body)),
        (StatusCode::NOT_FOUND, "library_not_found")
    );
}

#[tokio::test]
async fn a_path_parameter_that_is_not_utf8_answers_the_json_envelope_on_every_route() {
    let (_dir, catalog) = catalog();
    let app = app(catalog);
    let mut answered = 0;
    for route in dupfinder::api::route_paths() {
        if !route.contains('{') {
            continue;
        }
        let uri: String = route
            .split('/')
            .map(|segment| {
                if segment.starts_with('{') {
                    "%FF"
                } else {
                    segment
                }
            })
            .collect::<Vec<_>>()
            .join("/");
        for method in ["GET", "POST", "PATCH", "DELETE"] {
            let (status, body) = send(&app, method, &uri, "application/json", "{}").await;
            assert!(
                body["error"]["code"].is_string(),
                "{method} {uri}: {status} answered {body}"
            );
            if status == StatusCode::BAD_REQUEST {
                assert_eq!(error_code(&body), "invalid_path", "{method} {uri}");
                answered += 1;
            }
        }
    }
    assert!(
        answered >= 10,
        "only {answered} requests reached a path parameter"
    );
    let (status, body) = send(&app, "GET", "/api/v1/reports/%FF", "application/json", "").await;
    assert_eq!(
        (status, error_code(&body)),
        (StatusCode::BAD_REQUEST, "invalid_path")
    );
}

/// What a web page in the operator's browser could send to an open server: a `text/plain`
/// or form body (no CORS preflight), a multipart form, a request from its own origin, and reads
/// through a name that resolves to loopback (DNS rebinding).
#[tokio::test]
async fn an_open_server_refuses_what_other_web_pages_could_send_it() {
    let (_dir, catalog) = catalog();
    let app = app(catalog);
    let library = json!({"id": "lib"}).to_string();
    let admin_key = json!({"name": "intruder", "role": "admin"}).to_string();
    for content_type in [
        "text/plain",
        "text/plain;charset=UTF-8",
        "application/x-www-form-urlencoded",
    ] {
        for (uri, body) in [
            ("/api/v1/libraries", &library),
            ("/api/v1/keys", &admin_key),
        ] {
            let (status, answer) = send_with_headers(
                &app,
                "POST",
                uri,
                &[("host", "127.0.0.1:8080"), ("content-type", content_type)],
                body.clone(),
            )
            .await;
            assert_eq!(
                (status, error_code(&answer)),
                (
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    "unsupported_content_type"
                ),
                "{content_type} to {uri}: {answer}"
            );
        }
    }
    // A body without a content type is refused too.
    let (status, answer) =
        send_with_headers(&app, "POST", "/api/v1/libraries", &[], library.clone()).await;
    assert_eq!(
        (status, error_code(&answer)),
        (
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_content_type"
        ),
        "{answer}"
    );
    // A foreign origin is refused whatever it sends, multipart forms included.
    let text = synthetic_text(3, 120);
    let form = crate::files::multipart(&[("file", Some("m.txt"), text.as_bytes())]);
    for origin in ["http://attacker.example", "null", "http://127.0.0.1:9999"] {
        let (status, answer) = send_with_headers(
            &app,
            "POST",
            "/api/v1/libraries",
            &[
                ("host", "127.0.0.1:8080"),
                ("origin", origin),
                ("content-type", "application/json"),
            ],
            library.clone(),
        )
        .await;
        assert_eq!(
            (status, error_code(&answer)),
            (StatusCode::FORBIDDEN, "foreign_origin"),
            "{origin}: {answer}"
        );
        let (status, answer) = send_with_headers(
            &app,
            "POST",
            "/api/v1/check",
            &[
                ("host", "127.0.0.1:8080"),
                ("origin", origin),
                ("content-type", &crate::files::content_type()),
            ],
            form.clone(),
        )
        .await;
        assert_eq!(
            (status, error_code(&answer)),
            (StatusCode::FORBIDDEN, "foreign_origin"),
            "{origin}: {answer}"
        );
    }
    // Nothing was created.
    let (_, keys) = send(&app, "GET", "/api/v1/keys", "", "").await;
    assert_eq!(keys["keys"], json!([]), "{keys}");
    let (_, libraries) = send(&app, "GET", "/api/v1/libraries", "", "").await;
    assert_eq!(libraries["libraries"], json!([]), "{libraries}");

    // The UI's own requests: same origin, JSON, JSON Lines, multipart, and bodiless POSTs and
    // DELETEs.
    let same = [
        ("host", "localhost:8080"),
        ("origin", "http://localhost:8080"),
    ];
    let with = |content_type: &'static str| {
        let mut headers = same.to_vec();
        headers.push(("content-type", content_type));
        headers
    };
    let (status, answer) = send_with_headers(
        &app,
        "POST",
        "/api/v1/libraries",
        &with("application/json"),
        library.clone(),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    let line = json!({"id": "d1", "text": synthetic_text(4, 120)}).to_string();
    let (status, answer) = send_with_headers(
        &app,
        "POST",
        "/api/v1/libraries/lib/documents",
        &with("application/x-ndjson"),
        line,
    )
    .await;
    assert_eq!(
        (status, &answer["accepted"]),
        (StatusCode::OK, &json!(1)),
        "{answer}"
    );
    let content_type = crate::files::content_type();
    let mut multipart_headers = same.to_vec();
    multipart_headers.push(("content-type", &content_type));
    let (status, answer) =
        send_with_headers(&app, "POST", "/api/v1/check", &multipart_headers, form).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let (status, answer) =
        send_with_headers(&app, "POST", "/api/v1/libraries/lib/reindex", &same, "").await;
    assert_eq!(status, StatusCode::ACCEPTED, "{answer}");
    let (status, answer) = send_with_headers(
        &app,
        "DELETE",
        "/api/v1/libraries/lib/documents/d1",
        &same,
        "",
    )
    .await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{answer}");

    // Reads answer only for the names the server listens on.
    for host in [
        "attacker.example:8080",
        "attacker.example",
        "127.0.0.1.nip.io:8080",
    ] {
        let (status, answer) =
            send_with_headers(&app, "GET", "/api/v1/libraries", &[("host", host)], "").await;
        assert_eq!(
            (status, error_code(&answer)),
            (StatusCode::FORBIDDEN, "host_not_allowed"),
            "{host}: {answer}"
        );
    }
    for host in [
        "127.0.0.1:8080",
        "localhost:8080",
        "LOCALHOST",
        "[::1]:8080",
        "127.0.0.1",
    ] {
        let (status, answer) =
            send_with_headers(&app, "GET", "/api/v1/libraries", &[("host", host)], "").await;
        assert_eq!(status, StatusCode::OK, "{host}: {answer}");
    }
}

#[tokio::test]
async fn allowed_hosts_name_the_reverse_proxys_addresses() {
    let (_dir, catalog) = crate::support::catalog_with(|config| {
        config.server.allowed_hosts = vec!["dupfinder.example.org".to_string()];
    });
    let app = app(catalog);
    let (status, answer) = send_with_headers(
        &app,
        "GET",
        "/api/v1/libraries",
        &[("host", "Dupfinder.Example.Org")],
        "",
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    // A proxy that passes its own upstream address as the host: the page's origin is the
    // public name.
    let (status, answer) = send_with_headers(
        &app,
        "POST",
        "/api/v1/libraries",
        &[
            ("host", "127.0.0.1:8080"),
            ("origin", "https://dupfinder.example.org"),
            ("content-type", "application/json"),
        ],
        json!({"id": "lib"}).to_string(),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    let (status, answer) = send_with_headers(
        &app,
        "GET",
        "/api/v1/libraries",
        &[("host", "other.example.org")],
        "",
    )
    .await;
    assert_eq!(
        (status, error_code(&answer)),
        (StatusCode::FORBIDDEN, "host_not_allowed"),
        "{answer}"
    );
}

#[tokio::test]
async fn with_a_token_the_host_is_checked_and_a_keyed_request_may_be_any_type() {
    let (_dir, catalog) = crate::support::catalog_with(|config| {
        config.server.token = Some("secret-token".to_string());
    });
    let app = app(catalog);
    let (status, answer) = send_with_headers(
        &app,
        "GET",
        "/api/v1/libraries",
        &[("host", "attacker.example:8080")],
        "",
    )
    .await;
    assert_eq!(
        (status, error_code(&answer)),
        (StatusCode::FORBIDDEN, "host_not_allowed"),
        "{answer}"
    );
    // A browser cannot attach a bearer key to another site's request without a preflight the
    // server never approves, so a keyed request is not a forgery (curl's -d sends a form type).
    let (status, answer) = send_with_headers(
        &app,
        "POST",
        "/api/v1/libraries",
        &[
            ("host", "127.0.0.1:8080"),
            ("authorization", "Bearer secret-token"),
            ("content-type", "application/x-www-form-urlencoded"),
        ],
        json!({"id": "lib"}).to_string(),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    // Checks are open to anonymous callers here: those are held to the same rules as on an
    // open server.
    let (status, answer) = send_with_headers(
        &app,
        "POST",
        "/api/v1/check",
        &[("host", "127.0.0.1:8080"), ("content-type", "text/plain")],
        json!({"text": synthetic_text(3, 120)}).to_string(),
    )
    .await;
    assert_eq!(
        (status, error_code(&answer)),
        (
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_content_type"
        ),
        "{answer}"
    );
}
