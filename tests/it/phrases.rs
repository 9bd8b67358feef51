//! A library's own boilerplate phrases: a template two documents share (too few for the
//! library statistics to call it boilerplate) is counted as copying until an operator lists
//! it; then the next check reads it as `boilerplate`, and removing it counts it again.

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::support::{app, catalog, error_code, json_request, synthetic_text};

/// A correction notice's template, as a journal prints it on every notice.
pub(crate) const NOTICE: &str = "The originally published, uncorrected article and the republished, \
corrected article are provided here for reference. The editors apologise for the error and \
thank the readers who drew attention to it in the weeks after publication of the issue.";

pub(crate) fn notice(seed: u64) -> String {
    format!(
        "Correction notice {seed}. {} {NOTICE} {}",
        synthetic_text(seed, 40),
        synthetic_text(seed + 100, 40)
    )
}

/// The kinds of the passages of the match with `doc_id`, and whether the match counts.
pub(crate) fn passages_of(answer: &Value, doc_id: &str) -> (Vec<String>, bool) {
    let found = answer["matches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["doc_id"] == doc_id)
        .unwrap_or_else(|| panic!("no match with {doc_id}: {answer}"));
    let kinds = found["passages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kind"].as_str().unwrap().to_string())
        .collect();
    (kinds, found["counted"].as_bool().unwrap())
}

#[tokio::test]
async fn a_listed_phrase_is_boilerplate_from_the_next_check_until_it_is_removed() {
    let (_dir, catalog) = catalog();
    let app = app(catalog);
    let (status, _) = json_request(&app, "POST", "/api/v1/libraries", json!({"id": "j"})).await;
    assert_eq!(status, StatusCode::CREATED);
    for seed in [1, 2] {
        let (status, body) = json_request(
            &app,
            "POST",
            "/api/v1/libraries/j/documents",
            json!({"id": format!("notice-{seed}"), "text": notice(seed)}),
        )
        .await;
        assert!(status.is_success(), "{body}");
    }
    let check = || async {
        let (status, answer) = json_request(
            &app,
            "POST",
            "/api/v1/check",
            json!({"text": notice(3), "passages": true, "store": false}),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{answer}");
        answer
    };

    let before = check().await;
    assert_eq!(
        passages_of(&before, "notice-1"),
        (vec!["copied".into()], true)
    );
    assert_eq!(before["verdict"], "partial");

    let (status, phrase) = json_request(
        &app,
        "POST",
        "/api/v1/libraries/j/phrases",
        json!({"text": NOTICE}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{phrase}");
    let id = phrase["id"].as_str().unwrap().to_string();
    let (status, again) = json_request(
        &app,
        "POST",
        "/api/v1/libraries/j/phrases",
        json!({"text": NOTICE}),
    )
    .await;
    assert_eq!((status, &again), (StatusCode::OK, &phrase));
    let (status, listed) =
        json_request(&app, "GET", "/api/v1/libraries/j/phrases", json!(null)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(listed["phrases"], json!([phrase]));

    let listed_check = check().await;
    assert_eq!(
        passages_of(&listed_check, "notice-1"),
        (vec!["boilerplate".into()], false)
    );
    assert_eq!(listed_check["verdict"], "original");
    assert_eq!(listed_check["similarity_index"], 0.0);

    let (status, _) = json_request(
        &app,
        "DELETE",
        &format!("/api/v1/libraries/j/phrases/{id}"),
        json!(null),
    )
    .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let after = check().await;
    assert_eq!(
        passages_of(&after, "notice-1"),
        (vec!["copied".into()], true)
    );

    let (status, body) = json_request(
        &app,
        "DELETE",
        &format!("/api/v1/libraries/j/phrases/{id}"),
        json!(null),
    )
    .await;
    assert_eq!(
        (status, error_code(&body)),
        (StatusCode::NOT_FOUND, "phrase_not_found")
    );
}

#[tokio::test]
async fn bad_phrases_are_refused_with_their_codes() {
    let (_dir, catalog) = catalog();
    let app = app(catalog);
    json_request(&app, "POST", "/api/v1/libraries", json!({"id": "j"})).await;
    for (body, status, code) in [
        (
            json!({"text": "  "}),
            StatusCode::BAD_REQUEST,
            "invalid_phrase",
        ),
        (
            json!({"text": "of the journal"}),
            StatusCode::BAD_REQUEST,
            "invalid_phrase",
        ),
        (
            json!({"phrase": NOTICE}),
            StatusCode::BAD_REQUEST,
            "invalid_json",
        ),
    ] {
        let (got, answer) = json_request(&app, "POST", "/api/v1/libraries/j/phrases", body).await;
        assert_eq!((got, error_code(&answer)), (status, code), "{answer}");
    }
    let (got, answer) = json_request(
        &app,
        "POST",
        "/api/v1/libraries/none/phrases",
        json!({"text": NOTICE}),
    )
    .await;
    assert_eq!(
        (got, error_code(&answer)),
        (StatusCode::NOT_FOUND, "library_not_found")
    );
}

/// The CLI on a data directory: add, list, remove, and a refused phrase's exit code.
#[test]
fn the_cli_adds_lists_and_removes_phrases() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus.jsonl");
    std::fs::write(
        &corpus,
        format!("{}\n", json!({"id": "n1", "text": notice(1)})),
    )
    .unwrap();
    let run = |args: &[&str]| {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_dupfinder"))
            .arg("--data-dir")
            .arg(dir.path().join("data"))
            .args(args)
            .output()
            .unwrap();
        let stdout = String::from_utf8(output.stdout).unwrap();
        (
            output.status.code(),
            stdout,
            String::from_utf8(output.stderr).unwrap(),
        )
    };
    let (code, _, stderr) = run(&["import", "--library", "j", corpus.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    let (code, added, stderr) = run(&["phrases", "add", "--library", "j", NOTICE]);
    assert_eq!(code, Some(0), "{stderr}");
    let added: Value = serde_json::from_str(&added).unwrap();
    let (_, listed, _) = run(&["phrases", "list", "--library", "j"]);
    let listed: Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(listed["phrases"], json!([added]));
    let (code, _, stderr) = run(&["phrases", "add", "--library", "j", "of the"]);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("at least 3 are needed"), "{stderr}");
    let id = added["id"].as_str().unwrap();
    let (code, _, stderr) = run(&["phrases", "remove", "--library", "j", id]);
    assert_eq!(code, Some(0), "{stderr}");
    let (_, listed, _) = run(&["phrases", "list", "--library", "j"]);
    assert_eq!(
        serde_json::from_str::<Value>(&listed).unwrap()["phrases"],
        json!([])
    );
}
