//! Search with field filters and the listing of a library's documents, through the router.

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::support::{app, catalog, corpus};
use crate::support::{error_code, json_request, send};

/// A library of the fixture corpus in which document `i` has year `2000 + i`; en-08 is by
/// Amina Okafor, the others by Jan Novak, and every one by a common coauthor.
async fn library() -> (tempfile::TempDir, axum::Router, Vec<Value>) {
    let (dir, catalog) = catalog();
    let app = app(catalog);
    json_request(&app, "POST", "/api/v1/libraries", json!({"id": "fx"})).await;
    let documents: Vec<Value> = corpus()
        .into_iter()
        .enumerate()
        .map(|(i, d)| {
            let id = d["id"].as_str().unwrap();
            json!({
                "id": id,
                "title": d["title"],
                "text": d["text"],
                "lang": d["lang"],
                "year": 2000 + i,
                "authors": [
                    if id == "en-08" { "Amina Okafor" } else { "Jan Novak" },
                    "Common Coauthor",
                ],
            })
        })
        .collect();
    let lines: String = documents.iter().map(|d| format!("{d}\n")).collect();
    let (status, body) = send(
        &app,
        "POST",
        "/api/v1/libraries/fx/documents",
        "application/x-ndjson",
        lines,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["accepted"], documents.len(), "{body}");
    (dir, app, documents)
}

async fn search(app: &axum::Router, query: &str) -> Value {
    let uri = format!(
        "/api/v1/libraries/fx/search?limit=100&q={}",
        url::form_urlencoded::byte_serialize(query.as_bytes()).collect::<String>()
    );
    let (status, body) = send(app, "GET", &uri, "application/json", "").await;
    assert_eq!(status, StatusCode::OK, "{query}: {body}");
    body
}

fn ids(results: &Value) -> Vec<&str> {
    results["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["doc_id"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn field_filters_select_by_author_language_and_year() {
    let (_dir, app, documents) = library().await;
    let found = search(&app, "author:okafor").await;
    assert_eq!(ids(&found), ["en-08"]);
    assert_eq!(found["hits"][0]["authors"][0], "Amina Okafor");
    assert_eq!(
        ids(&search(&app, "author:\"amina okafor\"").await),
        ["en-08"]
    );
    assert_eq!(search(&app, "author:\"okafor amina\"").await["total"], 0);
    assert_eq!(found["hits"][0]["year"], 2007);
    // A filter alone still gets a snippet: the text's opening words.
    let snippet = found["hits"][0]["snippet"].as_str().unwrap();
    assert!(
        snippet.starts_with(&documents[7]["text"].as_str().unwrap()[..20]),
        "{snippet}"
    );

    let french = search(&app, "lang:fr").await;
    assert_eq!(french["total"], 4);
    assert_eq!(search(&app, "lang:fra").await["total"], 4);

    let years = search(&app, "year:2000..2002").await;
    let mut years = ids(&years);
    years.sort();
    assert_eq!(years, ["en-01", "en-02", "en-03"]);
    assert_eq!(search(&app, "year:..2001").await["total"], 2);
    let total = documents.len() as u64;
    assert_eq!(search(&app, "author:novak").await["total"], total - 1);
    assert_eq!(search(&app, "year:2002..").await["total"], total - 2);
    assert_eq!(search(&app, "year:2003").await["total"], 1);

    // Filters combine with words and with each other (AND), and can be negated.
    assert_eq!(
        ids(&search(&app, "glacier year:2000..2010").await),
        ["en-08"]
    );
    assert_eq!(search(&app, "glacier year:2011..").await["total"], 0);
    assert_eq!(
        search(&app, "author:\"common coauthor\" -lang:en").await["total"],
        total - 26
    );
    assert_eq!(ids(&search(&app, "title:glacier lang:en").await), ["en-08"]);
}

#[tokio::test]
async fn bad_queries_are_refused_with_a_code_that_says_why() {
    let (_dir, app, _) = library().await;
    for (query, code) in [
        ("shingles:123", "unknown_field"),
        ("content_hash:1", "unknown_field"),
        ("year:recent", "invalid_query"),
        ("year:2020..2010", "invalid_query"),
        ("lang:klingon", "invalid_query"),
        ("\"unclosed phrase", "invalid_query"),
    ] {
        let uri = format!(
            "/api/v1/libraries/fx/search?q={}",
            url::form_urlencoded::byte_serialize(query.as_bytes()).collect::<String>()
        );
        let (status, body) = send(&app, "GET", &uri, "application/json", "").await;
        assert_eq!(
            (status, error_code(&body)),
            (StatusCode::BAD_REQUEST, code),
            "{query}: {body}"
        );
    }
}

async fn list(app: &axum::Router, params: &str) -> Value {
    let uri = format!("/api/v1/libraries/fx/documents?{params}");
    let (status, body) = send(app, "GET", &uri, "application/json", "").await;
    assert_eq!(status, StatusCode::OK, "{params}: {body}");
    body
}

fn item_ids(page: &Value) -> Vec<String> {
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["doc_id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn listing_sorts_pages_and_leaves_out_the_text() {
    let (_dir, app, documents) = library().await;
    let total = documents.len();

    let page = list(&app, "sort=title&limit=100").await;
    assert_eq!(page["total"], total);
    assert!(
        page["items"][0].get("text").is_none(),
        "{}",
        page["items"][0]
    );
    assert!(page["items"][0]["words"].as_u64().unwrap() > 10);
    let mut by_title: Vec<(String, String)> = documents
        .iter()
        .map(|d| {
            (
                d["title"].as_str().unwrap().to_lowercase(),
                d["id"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    by_title.sort();
    let expected: Vec<String> = by_title.iter().map(|(_, id)| id.clone()).collect();
    assert_eq!(item_ids(&page), expected);
    let descending = list(&app, "sort=title&order=desc&limit=100").await;
    let mut reversed = expected.clone();
    reversed.reverse();
    assert_eq!(item_ids(&descending), reversed);

    // Years are 2000 + position: the default order for years is newest first.
    let newest = list(&app, "sort=year&limit=3").await;
    assert_eq!(
        newest["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["year"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        [
            2000 + total as u64 - 1,
            2000 + total as u64 - 2,
            2000 + total as u64 - 3
        ]
    );
    let oldest = list(&app, "sort=year&order=asc&limit=2&offset=1").await;
    assert_eq!(item_ids(&oldest), ["en-02", "en-03"]);
    let by_id = list(&app, "sort=doc_id&limit=2").await;
    assert_eq!(item_ids(&by_id), ["de-01", "de-02"]);

    // Pages of the default order tile the whole library.
    let mut seen = Vec::new();
    for offset in (0..total).step_by(7) {
        seen.extend(item_ids(
            &list(&app, &format!("limit=7&offset={offset}")).await,
        ));
    }
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), total);
    assert!(
        list(&app, "offset=1000").await["items"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn a_replaced_document_is_listed_once_under_its_new_title() {
    let (_dir, app, documents) = library().await;
    // Fill the title order before the replacement, so a stale one would show.
    list(&app, "sort=title&limit=100").await;
    let mut replaced = documents[0].clone();
    replaced["title"] = json!("Zzz renamed last");
    let (status, _) = json_request(&app, "POST", "/api/v1/libraries/fx/documents", replaced).await;
    assert_eq!(status, StatusCode::OK);
    let page = list(&app, "sort=title&limit=100").await;
    assert_eq!(page["total"], documents.len());
    let ids = item_ids(&page);
    assert_eq!(ids.iter().filter(|id| *id == "en-01").count(), 1);
    let titles: Vec<&str> = page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["title"].as_str().unwrap())
        .collect();
    // Latin titles sort before CJK and Cyrillic ones; the renamed one is the last Latin title.
    let renamed = titles
        .iter()
        .position(|t| *t == "Zzz renamed last")
        .unwrap();
    assert!(
        titles[renamed + 1..]
            .iter()
            .all(|t| !t.chars().next().unwrap().is_ascii()),
        "{titles:?}"
    );
}

#[tokio::test]
async fn listing_validates_its_parameters() {
    let (_dir, catalog) = catalog();
    let app = app(catalog);
    json_request(&app, "POST", "/api/v1/libraries", json!({"id": "fx"})).await;
    let empty = list(&app, "").await;
    assert_eq!(empty, json!({"total": 0, "items": []}));
    for (params, status, code) in [
        ("sort=size", StatusCode::BAD_REQUEST, "invalid_sort"),
        ("order=up", StatusCode::BAD_REQUEST, "invalid_order"),
        ("limit=0", StatusCode::BAD_REQUEST, "invalid_limit"),
        ("limit=101", StatusCode::BAD_REQUEST, "invalid_limit"),
        ("limit=many", StatusCode::BAD_REQUEST, "invalid_parameter"),
        ("offset=-1", StatusCode::BAD_REQUEST, "invalid_parameter"),
        ("offset=10000001", StatusCode::BAD_REQUEST, "invalid_offset"),
    ] {
        let uri = format!("/api/v1/libraries/fx/documents?{params}");
        let (got, body) = send(&app, "GET", &uri, "application/json", "").await;
        assert_eq!((got, error_code(&body)), (status, code), "{params}");
    }
    let (status, body) = send(
        &app,
        "GET",
        "/api/v1/libraries/none/documents",
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
async fn a_query_of_stop_words_finds_nothing_and_excluded_words_alone_are_refused() {
    let (_dir, app, _) = library().await;
    let found = search(&app, "the of and").await;
    assert_eq!(found["total"], 0, "{found}");
    assert_eq!(found["hits"], json!([]));

    let (status, body) = send(
        &app,
        "GET",
        "/api/v1/libraries/fx/search?q=-glacier",
        "",
        "",
    )
    .await;
    assert_eq!(
        (status, error_code(&body)),
        (StatusCode::BAD_REQUEST, "invalid_query")
    );
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("only excluded words"),
        "{body}"
    );
}
