//! Resuming a crawl driven through the server's queue: `dupfinder serve` is killed (SIGKILL)
//! while crawling a library queued with `POST /api/v1/queue`, and started again. The queue
//! resumes the crawl by itself; the fixture server's request log proves that no page parsed
//! before the kill is fetched again, and every article ends up in the library.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use dupfinder::crawl::{CrawlStore, PageState};
use serde_json::{Value, json};

use crate::crawl_resume::{ARTICLES, site};
use crate::support::sites::FixtureServer;
use crate::support::{call_json, start_server};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_while_crawling_resumes_the_queued_crawl_without_refetching() {
    let site_server = FixtureServer::start(site()).await;
    site_server.set_delay(Duration::from_millis(25));
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let config = dir.path().join("dupfinder.toml");
    std::fs::write(
        &config,
        "[storage]\nwriter_memory_mb = 15\n\n[crawl]\nrequests_per_second = 1000.0\n\
         fetchers = 2\nparsers = 1\nindex_batch = 4\nretry_backoff_ms = 10\n",
    )
    .unwrap();
    let config = config.to_str().unwrap().to_string();
    let env = [
        ("DUPFINDER_CONFIG", config.as_str()),
        ("DUPFINDER_CRAWL_ALLOW_PRIVATE_NETWORKS", "true"),
    ];

    let mut server = start_server(&data, &env);
    let library = json!({
        "id": "resume",
        "start_url": site_server.url("/"),
        "clarifications": ["/article/n/"],
    });
    let (status, body) = call_json(&server, "POST", "/api/v1/libraries", &library);
    assert_eq!(status, 201, "{body}");
    let (status, body) = call_json(
        &server,
        "POST",
        "/api/v1/queue",
        &json!({"library": "resume"}),
    );
    assert_eq!(status, 202, "{body}");

    let started = Instant::now();
    // Killed once articles are being fetched and two batches are committed: on a loaded machine
    // the first commit can lag far behind the fetches.
    while site_server
        .requested()
        .iter()
        .filter(|p| p.starts_with("/article/"))
        .count()
        < 30
        || crate::crawl_resume::committed_documents(&data.join("libraries"), "resume") < 8
    {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the queued crawl did not start"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    server.kill();
    let before_kill = site_server.requested().len();

    let parsed: BTreeSet<String> = {
        let store = CrawlStore::open(&data.join("crawl.redb")).unwrap();
        store
            .pages("resume")
            .unwrap()
            .into_iter()
            .filter(|(_, page)| {
                page.state == PageState::Indexed
                    || (page.state == PageState::LinksCollected && !page.article)
            })
            .map(|(url, _)| url)
            .collect()
    };
    let parsed_articles = parsed.iter().filter(|u| u.contains("/article/")).count();
    assert!(parsed_articles >= 1, "nothing indexed before the kill");
    assert!(
        parsed_articles < ARTICLES as usize,
        "the crawl was killed before its end"
    );

    // Restarted: the crawl is still queued and resumes by itself.
    let server = start_server(&data, &env);
    let started = Instant::now();
    let library = loop {
        let (status, library) = call_json(&server, "GET", "/api/v1/libraries/resume", &Value::Null);
        assert_eq!(status, 200, "{library}");
        if library["status"] == "done" {
            break library;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the resumed crawl did not finish: {library}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(library["documents"], ARTICLES, "{library}");
    assert_eq!(
        library["crawl"]["run"], 1,
        "a resumed crawl is the same run"
    );
    for path in &site_server.requested()[before_kill..] {
        assert!(
            !parsed.contains(&site_server.url(path)),
            "{path} was parsed before the kill and fetched again"
        );
    }
    let (_, queue) = call_json(&server, "GET", "/api/v1/queue", &Value::Null);
    assert_eq!(queue["size"], 0, "{queue}");
}
