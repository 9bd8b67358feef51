//! Stored reports: every check kept unless asked not to, listed newest first with filters and
//! pages, decided with a trail, kept across a restart, limited to a checker's own, and printed
//! as a PDF whose text carries the index, the sources and the Cyrillic intact.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use crate::support::{app, catalog_with, corpus, json_request, send_with_token};

/// A manuscript that copies the first half of `ru-01` and goes on in its own words.
fn manuscript() -> String {
    let source = corpus().into_iter().find(|d| d["id"] == "ru-01").unwrap();
    let text = source["text"].as_str().unwrap();
    let copied: String = text.split(". ").take(3).collect::<Vec<_>>().join(". ");
    format!(
        "Введение. Вопросы надзора за сотрудниками обсуждаются давно, но единого подхода нет. \
         {copied}. Мы предлагаем собственную методику оценки соразмерности, опирающуюся на \
         анкетирование кадровых служб сорока предприятий Поволжья и на интервью с юристами."
    )
}

async fn library_with_corpus(app: &axum::Router, token: Option<&str>) {
    let (status, _) =
        send_with_token(app, "POST", "/api/v1/libraries", token, json!({"id": "ru"})).await;
    assert_eq!(status, StatusCode::CREATED);
    for document in corpus() {
        let (status, body) = send_with_token(
            app,
            "POST",
            "/api/v1/libraries/ru/documents",
            token,
            document,
        )
        .await;
        assert!(status.is_success(), "{body}");
    }
}

async fn raw_get(app: &axum::Router, uri: &str) -> (StatusCode, Vec<u8>) {
    let response = app
        .clone()
        .oneshot(Request::get(uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = response.status();
    (
        status,
        response
            .into_body()
            .collect()
            .await
            .unwrap()
            .to_bytes()
            .to_vec(),
    )
}

#[tokio::test]
async fn a_check_is_kept_listed_decided_and_survives_a_restart() {
    let (dir, catalog) = catalog_with(|_| {});
    let app = app(catalog);
    library_with_corpus(&app, None).await;
    let text = manuscript();
    let (status, answer) = json_request(
        &app,
        "POST",
        "/api/v1/check",
        json!({"text": text, "passages": true}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["verdict"], "partial", "{answer}");
    let id = answer["report_id"].as_str().unwrap().to_string();
    assert_eq!(id.len(), 24);

    // Not kept when asked not to.
    let (_, unkept) = json_request(
        &app,
        "POST",
        "/api/v1/check",
        json!({"text": text, "store": false}),
    )
    .await;
    assert!(unkept.get("report_id").is_none(), "{unkept}");
    // An original one, for the filters.
    let other = corpus().into_iter().find(|d| d["id"] == "en-03").unwrap()["text"]
        .as_str()
        .unwrap()
        .replace("salt", "grain");
    let (_, second) = json_request(&app, "POST", "/api/v1/check", json!({"text": other})).await;

    let (status, report) =
        json_request(&app, "GET", &format!("/api/v1/reports/{id}"), Value::Null).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(report["text"], text);
    assert_eq!(report["matches"], answer["matches"]);
    assert_eq!(report["decision"], "not_checked");
    assert_eq!(report["settings"]["passages"], true);
    assert_eq!(report["submitter"], "-");

    let (_, page) = json_request(&app, "GET", "/api/v1/reports?limit=1", Value::Null).await;
    assert_eq!(page["total"], 2);
    assert_eq!(page["reports"][0]["report_id"], second["report_id"]);
    let (_, page) =
        json_request(&app, "GET", "/api/v1/reports?limit=1&offset=1", Value::Null).await;
    assert_eq!(page["reports"][0]["report_id"], id.as_str());
    let (_, partial) = json_request(
        &app,
        "GET",
        "/api/v1/reports?verdict=partial&library=ru",
        Value::Null,
    )
    .await;
    assert_eq!(partial["total"], 1, "{partial}");
    let (status, bad) =
        json_request(&app, "GET", "/api/v1/reports?decision=maybe", Value::Null).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(bad["error"]["code"], "invalid_decision");

    let (status, decided) = json_request(
        &app,
        "PATCH",
        &format!("/api/v1/reports/{id}"),
        json!({"decision": "duplicate", "note": "три абзаца из ru-01 без ссылки"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{decided}");
    assert_eq!(decided["history"][0]["decision"], "duplicate");
    let (_, duplicates) = json_request(
        &app,
        "GET",
        "/api/v1/reports?decision=duplicate",
        Value::Null,
    )
    .await;
    assert_eq!(duplicates["total"], 1);

    // A restart: the same data directory opened again.
    drop(app);
    let config = {
        let mut config = dupfinder::config::Config::default();
        config.storage.data_dir = dir.path().to_path_buf();
        config.storage.writer_memory_mb = 15;
        config
    };
    let reopened = crate::support::app(std::sync::Arc::new(
        dupfinder::library::Catalog::open(&config).unwrap(),
    ));
    let (status, again) = json_request(
        &reopened,
        "GET",
        &format!("/api/v1/reports/{id}"),
        Value::Null,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(again["decision"], "duplicate");
    assert_eq!(again["note"], "три абзаца из ru-01 без ссылки");
    assert_eq!(again["text"], text);

    let (status, _) = json_request(
        &reopened,
        "DELETE",
        &format!("/api/v1/reports/{id}"),
        Value::Null,
    )
    .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, gone) = json_request(
        &reopened,
        "GET",
        &format!("/api/v1/reports/{id}"),
        Value::Null,
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(gone["error"]["code"], "report_not_found");
}

#[tokio::test]
async fn a_checker_sees_its_own_reports_and_a_reader_none() {
    const ADMIN: &str = "reports-admin";
    let (_dir, catalog) = catalog_with(|config| config.server.token = Some(ADMIN.into()));
    let app = app(catalog);
    library_with_corpus(&app, Some(ADMIN)).await;
    let mut keys = Vec::new();
    for (name, role) in [
        ("portal-a", "checker"),
        ("portal-b", "checker"),
        ("shelf", "reader"),
    ] {
        let (_, key) = send_with_token(
            &app,
            "POST",
            "/api/v1/keys",
            Some(ADMIN),
            json!({"name": name, "role": role}),
        )
        .await;
        keys.push(key["key"].as_str().unwrap().to_string());
    }
    let (_, a) = send_with_token(
        &app,
        "POST",
        "/api/v1/check",
        Some(&keys[0]),
        json!({"text": manuscript()}),
    )
    .await;
    let a_id = a["report_id"].as_str().unwrap();
    let (_, list) =
        send_with_token(&app, "GET", "/api/v1/reports", Some(&keys[0]), Value::Null).await;
    assert_eq!(list["total"], 1);
    assert_eq!(list["reports"][0]["submitter"], "portal-a");
    let (_, list) =
        send_with_token(&app, "GET", "/api/v1/reports", Some(&keys[1]), Value::Null).await;
    assert_eq!(list["total"], 0, "another checker's reports are not listed");
    let (status, _) = send_with_token(
        &app,
        "GET",
        &format!("/api/v1/reports/{a_id}"),
        Some(&keys[1]),
        Value::Null,
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) =
        send_with_token(&app, "GET", "/api/v1/reports", Some(&keys[2]), Value::Null).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _) = send_with_token(&app, "GET", "/api/v1/reports", None, Value::Null).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "reports hold manuscripts");
    let (_, list) = send_with_token(&app, "GET", "/api/v1/reports", Some(ADMIN), Value::Null).await;
    assert_eq!(list["total"], 1);
}

#[tokio::test]
async fn the_pdf_report_carries_the_index_the_sources_and_the_cyrillic_text() {
    let (dir, catalog) = catalog_with(|_| {});
    let app = app(catalog);
    library_with_corpus(&app, None).await;
    let (_, answer) = json_request(
        &app,
        "POST",
        "/api/v1/check",
        json!({"text": manuscript(), "passages": true}),
    )
    .await;
    let id = answer["report_id"].as_str().unwrap();
    for lang in ["en", "ru"] {
        let (status, pdf) = raw_get(&app, &format!("/api/v1/reports/{id}/pdf?lang={lang}")).await;
        assert_eq!(status, StatusCode::OK);
        assert!(pdf.starts_with(b"%PDF-"));
        let path = dir.path().join(format!("report-{lang}.pdf"));
        std::fs::write(&path, &pdf).unwrap();
        let index = answer["similarity_index"]
            .as_f64()
            .or(answer["query_coverage"].as_f64())
            .unwrap();
        let index = format!("{:.1} %", index * 100.0);
        for (reader, text) in pdf_texts(&path) {
            assert!(text.contains(&index), "{reader}: {index} in:\n{text}");
            assert!(text.contains(id), "{reader}: the report id in:\n{text}");
            for m in answer["matches"].as_array().unwrap() {
                let source = format!("ru/{}", m["doc_id"].as_str().unwrap());
                assert!(text.contains(&source), "{reader}: {source} in:\n{text}");
            }
            let words: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                words.contains("Статья посвящена проблеме защиты персональных данных работников"),
                "{reader}: the Cyrillic text in:\n{text}"
            );
            let title = if lang == "ru" {
                "Индекс сходства"
            } else {
                "Similarity index"
            };
            assert!(text.contains(title), "{reader}: {text}");
        }
    }
    let (status, _) = raw_get(&app, &format!("/api/v1/reports/{id}/pdf?lang=de")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

/// The text of a PDF as two readers see it: the project's own extractor (pdf-extract) always,
/// and poppler's `pdftotext` where it is installed (`.ci/run` installs poppler-utils), the
/// reader most editors' tools are built on.
fn pdf_texts(path: &std::path::Path) -> Vec<(&'static str, String)> {
    let bytes = std::fs::read(path).unwrap();
    let ours = dupfinder::extract::extract(&bytes, &Default::default())
        .expect("the report PDF reads back")
        .text;
    let mut texts = vec![("dupfinder's extractor", ours)];
    match std::process::Command::new("pdftotext")
        .args(["-layout"])
        .arg(path)
        .arg("-")
        .output()
    {
        Ok(output) => {
            assert!(output.status.success(), "pdftotext failed: {output:?}");
            texts.push(("pdftotext", String::from_utf8(output.stdout).unwrap()));
        }
        Err(_) => eprintln!("pdftotext is not installed: the report is read by one reader only"),
    }
    texts
}
