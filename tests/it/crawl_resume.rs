//! Resuming: `dupfinder crawl` is killed (SIGKILL) in the middle of a crawl and started again;
//! the fixture server's request log proves that no page parsed before the kill is fetched
//! again. A second crawl of the finished site fetches only what is new (and walks the list
//! pages to find it), never an article it already has.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use dupfinder::crawl::{CrawlStore, PageState};

use crate::support::sites::{FixtureServer, Reply, article_page, link_page, slug};

pub(crate) const ARTICLES: u64 = 80;
const PER_PAGE: u64 = 10;

pub(crate) fn article_path(i: u64) -> String {
    format!("/article/n/{}", slug(i))
}

fn list_page(page: u64, articles: &[u64], more: bool) -> Reply {
    let mut links: Vec<String> = articles.iter().map(|i| article_path(*i)).collect();
    if more {
        links.push(format!("/archive?page={}", page + 1));
    }
    Reply::Html(link_page(&format!("Archive, page {page}"), &links))
}

pub(crate) fn site() -> HashMap<String, Reply> {
    let mut pages = HashMap::new();
    pages.insert(
        "/".to_string(),
        Reply::Html(link_page("Journal", &["/archive?page=1".to_string()])),
    );
    let lists = ARTICLES / PER_PAGE;
    for page in 1..=lists {
        let ids: Vec<u64> = ((page - 1) * PER_PAGE..page * PER_PAGE).collect();
        pages.insert(
            format!("/archive?page={page}"),
            list_page(page, &ids, page < lists),
        );
    }
    for i in 0..ARTICLES {
        pages.insert(
            article_path(i),
            Reply::Html(article_page(i, &format!("Article {i}"), &[])),
        );
    }
    pages
}

fn crawl_command(data: &Path, config: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_dupfinder"));
    command
        .arg("crawl")
        .arg("--data-dir")
        .arg(data)
        .arg("--config")
        .arg(config)
        .env("DUPFINDER_CRAWL_ALLOW_PRIVATE_NETWORKS", "true")
        .env("DUPFINDER_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    command
}

/// Documents in the committed segments of library `id`'s content index under `libraries` (0
/// before its first commit), read from its `meta.json` without opening the index. The
/// library's folder is `<id>.<creation time>`.
pub(crate) fn committed_documents(libraries: &Path, id: &str) -> u64 {
    let prefix = format!("{id}.");
    let Some(folder) = std::fs::read_dir(libraries).ok().and_then(|entries| {
        entries
            .flatten()
            .find(|e| e.file_name().to_string_lossy().starts_with(&prefix))
    }) else {
        return 0;
    };
    let Ok(meta) = std::fs::read_to_string(folder.path().join("content/meta.json")) else {
        return 0;
    };
    let meta: serde_json::Value = serde_json::from_str(&meta).unwrap_or_default();
    meta["segments"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|segment| segment["max_doc"].as_u64())
        .sum()
}

/// Runs a crawl to the end and returns its JSON report.
async fn crawl_to_the_end(data: &Path, config: &Path) -> serde_json::Value {
    let mut command = crawl_command(data, config);
    command.args(["--library", "resume"]);
    let output = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    assert!(output.status.success(), "crawl failed: {output:?}");
    serde_json::from_slice(&output.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_crawl_resumes_without_refetching_and_a_recrawl_fetches_only_new_pages() {
    let server = FixtureServer::start(site()).await;
    server.set_delay(Duration::from_millis(25));
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let config = dir.path().join("dupfinder.toml");
    std::fs::write(
        &config,
        "[storage]\nwriter_memory_mb = 15\n\n[crawl]\nrequests_per_second = 1000.0\n\
         fetchers = 2\nparsers = 1\nindex_batch = 4\nretry_backoff_ms = 10\n",
    )
    .unwrap();

    // First run: killed once some articles are parsed.
    let mut child = crawl_command(&data, &config)
        .args(["--library", "resume", "--start-url"])
        .arg(server.url("/"))
        .args(["--clarification", "/article/n/"])
        .spawn()
        .unwrap();
    let started = Instant::now();
    // Killed once articles are being fetched and two batches are committed (read from the index's
    // own meta.json: on a loaded machine the first commit can lag far behind the fetches).
    while server
        .requested()
        .iter()
        .filter(|p| p.starts_with("/article/"))
        .count()
        < 30
        || committed_documents(&data.join("libraries"), "resume") < 8
    {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the crawl did not start"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before_kill = server.requested().len();

    // What the crawl had parsed when it died.
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
    assert!(
        parsed_articles >= 1,
        "articles indexed before the kill: {parsed:?}"
    );
    assert!(
        parsed_articles < ARTICLES as usize,
        "the crawl was killed before its end"
    );

    // Second run: resumes and finishes.
    let report = crawl_to_the_end(&data, &config).await;
    assert_eq!(report["outcome"], "done", "{report}");
    let after: Vec<String> = server.requested()[before_kill..].to_vec();
    for path in &after {
        assert!(
            !parsed.contains(&server.url(path)),
            "{path} was parsed before the kill and fetched again"
        );
    }
    let all_articles: BTreeSet<String> = (0..ARTICLES)
        .map(|i| server.url(&article_path(i)))
        .collect();
    let indexed = report["status"]["pages_indexed"].as_u64().unwrap();
    assert_eq!(
        report["status"]["run"], 1,
        "a resumed crawl is the same run"
    );
    assert!(indexed > 0, "{report}");
    let stats = Command::new(env!("CARGO_BIN_EXE_dupfinder"))
        .args(["stats", "--library", "resume", "--data-dir"])
        .arg(&data)
        .stderr(Stdio::null())
        .output()
        .unwrap();
    let stats: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(stats["documents"], ARTICLES, "{stats}");
    assert_eq!(stats["status"], "done");
    assert_eq!(stats["crawl"]["mode"], "recursive");

    // Three new articles appear on the first archive page.
    let mut first_page: Vec<u64> = (0..PER_PAGE).collect();
    for i in ARTICLES..ARTICLES + 3 {
        server.set(
            &article_path(i),
            Reply::Html(article_page(i, &format!("Article {i}"), &[])),
        );
        first_page.insert(0, i);
    }
    server.set("/archive?page=1", list_page(1, &first_page, true));
    server.clear_log();
    let report = crawl_to_the_end(&data, &config).await;
    assert_eq!(report["status"]["run"], 2);
    assert_eq!(report["status"]["pages_indexed"], 3);
    let requested: BTreeSet<String> = server.requested().into_iter().collect();
    for path in &requested {
        let url = server.url(path);
        assert!(
            !all_articles.contains(&url),
            "the re-crawl fetched the known article {path}"
        );
    }
    for i in ARTICLES..ARTICLES + 3 {
        assert!(
            requested.contains(&article_path(i)),
            "new article {i} fetched"
        );
    }
    assert!(
        requested.contains("/archive?page=1"),
        "known lists are walked for new links"
    );
}
