//! Hostile pages against a real crawl: elements nested 100,000 deep, a body that never ends
//! (trickling, or as fast as it can), a page past the size limit. Each fails alone with its
//! reason, in bounded time and memory, and the crawl goes on to index the good pages.

use std::collections::{BTreeSet, HashMap};
use std::time::{Duration, Instant};

use dupfinder::config::CrawlConfig;
use dupfinder::crawl::{CrawlService, Outcome};

use crate::support::sites::{
    FixtureServer, Reply, article_page, crawl, crawl_catalog, doc_ids, library, link_page,
    test_crawl_config,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn html_bombs_fail_alone_in_bounded_time() {
    let mut pages = HashMap::new();
    let paths = [
        "/article/good-one",
        "/article/deep",
        "/article/trickle",
        "/article/firehose",
        "/article/huge",
        "/article/good-two",
    ];
    let links: Vec<String> = paths.iter().map(|p| p.to_string()).collect();
    pages.insert("/".to_string(), Reply::Html(link_page("Home", &links)));
    pages.insert(
        "/article/good-one".into(),
        Reply::Html(article_page(1, "One", &[])),
    );
    pages.insert(
        "/article/good-two".into(),
        Reply::Html(article_page(2, "Two", &[])),
    );
    let depth = 100_000;
    pages.insert(
        "/article/deep".into(),
        Reply::Html(format!(
            "<html><body>{}<p>bottom</p>{}</body></html>",
            "<div>".repeat(depth),
            "</div>".repeat(depth)
        )),
    );
    pages.insert(
        "/article/trickle".into(),
        Reply::Endless {
            chunk: 16,
            every: Duration::from_millis(50),
        },
    );
    pages.insert(
        "/article/firehose".into(),
        Reply::Endless {
            chunk: 64 * 1024,
            every: Duration::ZERO,
        },
    );
    pages.insert("/article/huge".into(), Reply::Huge(3 * 1024 * 1024));
    let server = FixtureServer::start(pages).await;
    let (_dir, catalog) = crawl_catalog(CrawlConfig {
        timeout_ms: 1_500,
        retries: 0,
        max_page_bytes: 2 * 1024 * 1024,
        ..test_crawl_config()
    });
    library(&catalog, "bombs", &server.url("/"), &["/article/"]);
    let service = CrawlService::open(catalog.clone()).unwrap();

    let started = Instant::now();
    let report = crawl(&service, "bombs").await;
    let took = started.elapsed();
    assert_eq!(report.outcome, Outcome::Done);
    // The trickle is cut by the whole-request timeout; nothing else waits for anything.
    assert!(took < Duration::from_secs(30), "the crawl took {took:?}");
    let expected: BTreeSet<String> = ["/article/good-one", "/article/good-two"]
        .iter()
        .map(|p| server.url(p))
        .collect();
    assert_eq!(doc_ids(&catalog, "bombs"), expected);
    for (path, code) in [
        ("/article/deep", "too_deep"),
        ("/article/trickle", "timeout"),
        ("/article/firehose", "too_large"),
        ("/article/huge", "too_large"),
    ] {
        let page = service
            .store()
            .page("bombs", &server.url(path))
            .unwrap()
            .unwrap();
        let state = format!("{page:?}");
        let failure = page
            .failure
            .unwrap_or_else(|| panic!("{path} did not fail: {state}"));
        assert_eq!(failure.code, code, "{path}: {}", failure.message);
    }
    assert_eq!(
        report.status.counters.pages_failed, 4,
        "{:?}",
        report.status
    );
}
