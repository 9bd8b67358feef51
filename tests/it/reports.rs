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
        // As the page writes it: `62.9 %` or `62,9 %`, a no-break space before `%`.
        let index = dupfinder::reports::numbers::percent(index, 1, lang).replace('\u{a0}', " ");
        for (reader, text) in pdf_texts(&path) {
            let text = text.replace('\u{a0}', " ");
            assert!(text.contains(&index), "{reader}: {index} in:\n{text}");
            assert!(text.contains(id), "{reader}: the report id in:\n{text}");
            for m in answer["matches"].as_array().unwrap() {
                let source = format!("ru · {}", m["doc_id"].as_str().unwrap());
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

/// A manuscript that quotes (with a citation) the first two sentences of `ru-01` and, after a
/// sentence of its own, copies the fourth and fifth without marks (a sentence apart in the
/// source, so quotation and copy are passages of their own).
fn quoting_manuscript() -> String {
    let source = corpus().into_iter().find(|d| d["id"] == "ru-01").unwrap();
    let sentences: Vec<&str> = source["text"].as_str().unwrap().split(". ").collect();
    let quoted = sentences[..2].join(". ");
    let copied = sentences[3..5].join(". ");
    format!(
        "Введение. Вопросы надзора за сотрудниками обсуждаются давно, но единого подхода нет. \
         Как отмечается в работе [1], «{quoted}». Мы же исходим из того, что контроль должен \
         быть соразмерным и прозрачным для работников. {copied}. Мы предлагаем собственную \
         методику оценки соразмерности, опирающуюся на анкетирование кадровых служб сорока \
         предприятий Поволжья и на интервью с юристами."
    )
}

fn figure(value: &Value) -> f64 {
    value
        .as_f64()
        .unwrap_or_else(|| panic!("not a number: {value}"))
}

/// The matches' shares add up to the similarity index.
fn assert_adds_up(report: &Value) {
    let sum: f64 = report["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| figure(&m["share"]))
        .sum();
    let index = figure(&report["similarity_index"]);
    assert!((sum - index).abs() <= 0.0005, "{sum} ≠ {index}: {report}");
}

#[tokio::test]
async fn a_reports_exclusions_are_applied_again_without_a_new_check() {
    let (_dir, catalog) = catalog_with(|_| {});
    let app = app(catalog);
    library_with_corpus(&app, None).await;
    let (status, answer) = json_request(
        &app,
        "POST",
        "/api/v1/check",
        json!({"text": quoting_manuscript(), "passages": true}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let id = answer["report_id"].as_str().unwrap().to_string();
    let kinds: Vec<&str> = answer["matches"][0]["passages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"quoted") && kinds.contains(&"copied"),
        "{kinds:?}"
    );
    assert_adds_up(&answer);
    let url = |query: &str| format!("/api/v1/reports/{id}?{query}");

    // The exclusions the check applied: the figures as the check answered them.
    let (status, same) = json_request(
        &app,
        "GET",
        &url("exclude=quotes,bibliography,front_matter,boilerplate&small_matches=0"),
        Value::Null,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{same}");
    for field in ["similarity_index", "shares", "verdict", "exclusions"] {
        assert_eq!(same[field], answer[field], "{field}");
    }
    for (a, b) in same["matches"]
        .as_array()
        .unwrap()
        .iter()
        .zip(answer["matches"].as_array().unwrap())
    {
        assert_eq!(a["share"], b["share"]);
        assert_eq!(a["verdict"], b["verdict"]);
        assert_eq!(a["counted"], b["counted"]);
    }

    // Quotations counted: the index grows by the quoted words, and still adds up.
    let (_, with_quotes) = json_request(&app, "GET", &url("exclude="), Value::Null).await;
    assert!(
        figure(&with_quotes["similarity_index"]) > figure(&answer["similarity_index"]) + 0.05,
        "{} vs {}",
        with_quotes["similarity_index"],
        answer["similarity_index"]
    );
    assert_eq!(with_quotes["exclusions"]["quotes"], false);
    assert_eq!(with_quotes["shares"]["quoted"], answer["shares"]["quoted"]);
    assert_adds_up(&with_quotes);

    // Every passage small: no word counts, the passages stay listed. (The verdict is the
    // check's rules on what remains, as in a check with these exclusions.)
    let (_, nothing) = json_request(&app, "GET", &url("small_matches=1000"), Value::Null).await;
    assert_eq!(nothing["similarity_index"], 0.0);
    assert_eq!(nothing["exclusions"]["quotes"], true, "the rest as checked");
    let passages = nothing["matches"][0]["passages"].as_array().unwrap();
    assert_eq!(passages.len(), kinds.len());
    assert!(passages.iter().all(|p| p["kind"] != "copied"), "{nothing}");
    assert!(figure(&nothing["shares"]["small"]) > 0.0);
    assert_adds_up(&nothing);

    // Sources left out: every match listed, none counted, the verdict original.
    let sources: Vec<String> = answer["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            format!(
                "{}/{}",
                m["library"].as_str().unwrap(),
                m["doc_id"].as_str().unwrap()
            )
        })
        .collect();
    let (_, without) = json_request(
        &app,
        "GET",
        &url(&format!("sources={}", sources.join(","))),
        Value::Null,
    )
    .await;
    assert!(
        without["matches"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["counted"] == false)
    );
    assert_eq!(without["similarity_index"], 0.0);
    assert_eq!(without["verdict"], "original");
    assert_adds_up(&without);

    // The stored report is not changed by a look under other exclusions.
    let (_, stored) =
        json_request(&app, "GET", &format!("/api/v1/reports/{id}"), Value::Null).await;
    assert_eq!(stored["similarity_index"], answer["similarity_index"]);

    for bad in ["exclude=quotes,citations", "small_matches=many"] {
        let (status, error) = json_request(&app, "GET", &url(bad), Value::Null).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
        assert_eq!(error["error"]["code"], "invalid_parameter");
    }

    // A report checked without passages has nothing to give kinds to.
    let (_, bare) = json_request(
        &app,
        "POST",
        "/api/v1/check",
        json!({"text": quoting_manuscript()}),
    )
    .await;
    let bare_id = bare["report_id"].as_str().unwrap();
    let (status, error) = json_request(
        &app,
        "GET",
        &format!("/api/v1/reports/{bare_id}?exclude="),
        Value::Null,
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error["error"]["code"], "report_without_passages");
    let (status, _) = json_request(
        &app,
        "GET",
        &format!("/api/v1/reports/{bare_id}"),
        Value::Null,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn every_decision_change_is_kept_with_who_and_when_and_the_list_filters_by_decision() {
    const ADMIN: &str = "reports-admin";
    let (_dir, catalog) = catalog_with(|config| config.server.token = Some(ADMIN.into()));
    let app = app(catalog);
    library_with_corpus(&app, Some(ADMIN)).await;
    let (_, key) = send_with_token(
        &app,
        "POST",
        "/api/v1/keys",
        Some(ADMIN),
        json!({"name": "editor-anna", "role": "checker"}),
    )
    .await;
    let editor = key["key"].as_str().unwrap().to_string();
    let mut ids = Vec::new();
    for _ in 0..3 {
        let (_, answer) = send_with_token(
            &app,
            "POST",
            "/api/v1/check",
            Some(&editor),
            json!({"text": manuscript(), "passages": true}),
        )
        .await;
        ids.push(answer["report_id"].as_str().unwrap().to_string());
    }
    let patch = |id: &str, body: Value| {
        let app = app.clone();
        let editor = editor.clone();
        let uri = format!("/api/v1/reports/{id}");
        async move { send_with_token(&app, "PATCH", &uri, Some(&editor), body).await }
    };
    let (status, _) = patch(&ids[0], json!({"decision": "candidate"})).await;
    assert_eq!(status, StatusCode::OK);
    let (_, _) = patch(&ids[0], json!({"note": "сверить с ru-01"})).await;
    let (status, last) = patch(&ids[0], json!({"decision": "duplicate", "note": "копия"})).await;
    assert_eq!(status, StatusCode::OK, "{last}");
    let history = last["history"].as_array().unwrap();
    assert_eq!(history.len(), 3, "{last}");
    let decisions: Vec<&str> = history
        .iter()
        .map(|c| c["decision"].as_str().unwrap())
        .collect();
    // A note alone keeps the decision and is still a change of its own.
    assert_eq!(decisions, ["candidate", "candidate", "duplicate"]);
    assert_eq!(history[1]["note"], "сверить с ru-01");
    assert!(history.iter().all(|c| c["by"] == "editor-anna"), "{last}");
    let times: Vec<u64> = history.iter().map(|c| c["at"].as_u64().unwrap()).collect();
    assert!(
        times.iter().all(|t| *t > 1_600_000_000) && times.is_sorted(),
        "{times:?}"
    );
    assert_eq!(last["decision"], "duplicate");
    assert_eq!(last["note"], "копия");
    let (_, _) = patch(&ids[1], json!({"decision": "unique"})).await;

    let list = |query: &'static str| {
        let app = app.clone();
        async move {
            send_with_token(
                &app,
                "GET",
                &format!("/api/v1/reports?{query}"),
                Some(ADMIN),
                Value::Null,
            )
            .await
            .1
        }
    };
    let ids_of = |page: &Value| -> Vec<String> {
        page["reports"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["report_id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(ids_of(&list("decision=duplicate").await), [ids[0].clone()]);
    assert_eq!(ids_of(&list("decision=unique").await), [ids[1].clone()]);
    assert_eq!(
        ids_of(&list("decision=not_checked").await),
        [ids[2].clone()]
    );
    assert_eq!(list("decision=candidate").await["total"], 0);
    let page = list("decision=duplicate&verdict=partial&library=ru").await;
    assert_eq!(page["total"], 1);
    assert!(
        figure(&page["reports"][0]["similarity_index"]) > 0.0,
        "{page}"
    );
    assert_eq!(list("decision=duplicate&library=other").await["total"], 0);
}
