//! The crawl queue through the HTTP API: libraries are crawled one at a time in queue order,
//! their stages and counters are visible, and removing the running one stops it and keeps its
//! documents.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use dupfinder::api::{AppState, router};
use dupfinder::config::CrawlConfig;
use dupfinder::crawl::CrawlService;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::support::send;
use crate::support::sites::{
    FixtureServer, Reply, article_page, crawl_catalog, library, link_page, slug, test_crawl_config,
};

async fn call(
    app: &axum::Router,
    method: &str,
    uri: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    send(app, method, uri, "application/json", body).await
}

/// A slow site of `n` slug articles on one list page.
fn site(n: u64) -> HashMap<String, Reply> {
    let links: Vec<String> = (0..n).map(|i| format!("/article/n/{}", slug(i))).collect();
    let mut pages = HashMap::new();
    pages.insert("/".to_string(), Reply::Html(link_page("Home", &links)));
    for i in 0..n {
        pages.insert(
            format!("/article/n/{}", slug(i)),
            Reply::Html(article_page(i, &format!("Article {i}"), &[])),
        );
    }
    pages
}

/// Polls `GET uri` until `done` holds for the answer.
async fn wait_for(
    app: &axum::Router,
    uri: &str,
    what: &str,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let started = Instant::now();
    loop {
        let (status, body) = call(app, "GET", uri, None).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        if done(&body) {
            return body;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "timed out waiting for {what}: {body}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_libraries_are_crawled_in_order_and_removing_the_running_one_stops_it() {
    let first_site = FixtureServer::start(site(30)).await;
    let second_site = FixtureServer::start(site(12)).await;
    first_site.set_delay(Duration::from_millis(40));
    let (_dir, catalog) = crawl_catalog(CrawlConfig {
        fetchers: 1,
        parsers: 1,
        index_batch: 2,
        ..test_crawl_config()
    });
    library(&catalog, "first", &first_site.url("/"), &["/article/"]);
    library(&catalog, "second", &second_site.url("/"), &["/article/"]);
    let crawl = CrawlService::open(catalog.clone()).unwrap();
    let app = router(AppState::new(
        catalog.clone(),
        crawl.clone(),
        dupfinder::library::Jobs::new(catalog.clone()),
    ));
    let shutdown = CancellationToken::new();
    let queue_task = tokio::spawn(crawl.clone().run_queue(shutdown.clone()));

    for id in ["first", "second"] {
        let (status, body) =
            call(&app, "POST", "/api/v1/queue", Some(json!({"library": id}))).await;
        assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    }
    let queue = wait_for(&app, "/api/v1/queue", "the first crawl to index", |q| {
        q["libraries"][0]["pages_indexed"].as_u64() >= Some(2)
    })
    .await;
    let order: Vec<&str> = queue["libraries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["first", "second"]);
    assert_eq!(queue["size"], 2);
    assert_eq!(queue["running"], "first");
    let stage = queue["libraries"][0]["stage"].as_str().unwrap();
    assert!(
        ["discovering", "analyzing", "crawling"].contains(&stage),
        "{queue}"
    );
    assert_eq!(queue["libraries"][1]["stage"], "queued");
    for key in [
        "pages_found",
        "pages_fetched",
        "pages_parsed",
        "pages_indexed",
        "pages_failed",
    ] {
        assert!(queue["libraries"][0][key].is_u64(), "{key}: {queue}");
    }
    let (_, first_info) = call(&app, "GET", "/api/v1/libraries/first", None).await;
    assert!(
        ["discovering", "analyzing", "crawling", "signing"]
            .contains(&first_info["status"].as_str().unwrap()),
        "{first_info}"
    );

    let (status, _) = call(&app, "DELETE", "/api/v1/queue/first", None).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let first = wait_for(
        &app,
        "/api/v1/libraries/first",
        "the first crawl to stop",
        |l| l["status"] == "stopped",
    )
    .await;
    let kept = first["documents"].as_u64().unwrap();
    assert!(kept >= 2, "indexed documents are kept: {first}");
    assert!(kept < 30, "the crawl stopped early: {first}");
    let requests_at_stop = first_site.requested().len();

    let second = wait_for(&app, "/api/v1/libraries/second", "the second crawl", |l| {
        l["status"] == "done"
    })
    .await;
    assert_eq!(second["documents"], 12);
    assert_eq!(second["crawl"]["pages_indexed"], 12);
    let (_, queue) = call(&app, "GET", "/api/v1/queue", None).await;
    assert_eq!(queue["libraries"], json!([]));
    assert_eq!(
        first_site.requested().len(),
        requests_at_stop,
        "no request after the crawl stopped"
    );
    let (_, first) = call(&app, "GET", "/api/v1/libraries/first", None).await;
    assert_eq!(first["documents"].as_u64(), Some(kept));

    // Queue errors are coded JSON.
    let (status, body) = call(&app, "DELETE", "/api/v1/queue/second", None).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("not_queued"))
    );
    let (status, body) = call(
        &app,
        "POST",
        "/api/v1/queue",
        Some(json!({"library": "nope"})),
    )
    .await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("library_not_found"))
    );
    let (status, body) = call(&app, "POST", "/api/v1/queue", Some(json!({}))).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("missing_field"))
    );
    let (status, body) = call(&app, "DELETE", "/api/v1/queue/Not%20Valid", None).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_library_id"))
    );

    shutdown.cancel();
    queue_task.await.unwrap();
}
