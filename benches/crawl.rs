//! Crawler figures (not a test): pages per second against a local fixture site answering with
//! no delay, and the memory and disk a 100,000-URL frontier takes.
//!
//! ```sh
//! cargo bench --bench crawl -- frontier 100000     # memory of a 100,000-URL frontier
//! cargo bench --bench crawl -- throughput 3000     # a 3,000-article site, end to end
//! ```
//! Each figure runs in its own process so that one does not inflate the other's memory.

#[path = "common/memory.rs"]
mod memory;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use axum::extract::State;
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use dupfinder::config::{Config, CrawlConfig};
use dupfinder::crawl::{Clarifications, CrawlService, CrawlStore, Frontier, JobRecord, Site};
use dupfinder::library::{Catalog, NewLibrary};
use tokio_util::sync::CancellationToken;
use url::Url;

use memory::memory_mb;

fn frontier(urls: usize) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crawl.redb");
    let (rss_before, _) = memory_mb();
    let store = Arc::new(CrawlStore::open(&path).unwrap());
    let start = Url::parse("https://journal.example.org/").unwrap();
    let frontier = Frontier::new(
        store,
        JobRecord::new("bench"),
        Site::of(&start),
        Clarifications::new(&["/article/".to_string()]),
        50,
    )
    .unwrap();
    let started = Instant::now();
    let batch = 1_000;
    for first in (0..urls).step_by(batch) {
        let links: Vec<Url> = (first..(first + batch).min(urls))
            .map(|i| {
                Url::parse(&format!(
                    "https://journal.example.org/article/n/near-duplicate-detection-in-digital-libraries-{i}"
                ))
                .unwrap()
            })
            .collect();
        frontier.add_articles(&links).unwrap();
    }
    frontier.update_job(true, |_| {}).unwrap();
    let added = started.elapsed();
    let (rss_full, peak_full) = memory_mb();
    let file_mb = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0) as f64 / 1e6;
    let started = Instant::now();
    let mut reserved = 0;
    loop {
        let pages = frontier.reserve(32).unwrap();
        if pages.is_empty() {
            break;
        }
        reserved += pages.len();
    }
    let drained = started.elapsed();
    let (rss_end, peak_end) = memory_mb();
    println!(
        "frontier: {urls} URLs added in {:.2}s ({:.0} URLs/s), reserved in {:.2}s ({reserved} pages)",
        added.as_secs_f64(),
        urls as f64 / added.as_secs_f64(),
        drained.as_secs_f64()
    );
    println!(
        "frontier: RSS before {rss_before:.1} MB, with {urls} URLs {rss_full:.1} MB (peak {peak_full:.1} MB), \
         after draining {rss_end:.1} MB (peak {peak_end:.1} MB); crawl.redb {file_mb:.1} MB"
    );
}

fn words(seed: u64, n: usize) -> String {
    const SYLLABLES: [&str; 16] = [
        "ka", "lo", "mir", "sen", "tal", "vor", "pe", "dun", "gra", "hel", "ix", "jo", "ber",
        "cos", "fin", "ulm",
    ];
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
    let mut out = String::new();
    for i in 0..n {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let r = state % 3000;
        let id = r * r / 3000;
        if i > 0 {
            out.push(' ');
        }
        let mut k = id + 5;
        for _ in 0..3 {
            out.push_str(SYLLABLES[(k % 16) as usize]);
            k /= 16;
        }
    }
    out
}

fn slug(i: u64) -> String {
    const PARTS: [&str; 10] = [
        "fuzzy",
        "duplicate",
        "signature",
        "corpus",
        "lexicon",
        "shingle",
        "ranking",
        "archive",
        "thesis",
        "library",
    ];
    let mut out = Vec::new();
    let mut rest = i;
    for _ in 0..4 {
        out.push(PARTS[(rest % 10) as usize]);
        rest /= 10;
    }
    out.join("-")
}

async fn serve(State(pages): State<Arc<HashMap<String, String>>>, uri: Uri) -> Response {
    let path = uri.path_and_query().map_or("/", |p| p.as_str());
    match pages.get(path) {
        Some(body) => ([(header::CONTENT_TYPE, "text/html")], body.clone()).into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

async fn throughput(articles: u64) {
    let per_list = 50;
    let lists = articles.div_ceil(per_list);
    let mut pages = HashMap::new();
    pages.insert(
        "/".to_string(),
        "<html><body><a href=\"/archive?page=1\">archive</a></body></html>".to_string(),
    );
    for page in 1..=lists {
        let mut links: String = (((page - 1) * per_list)..(page * per_list).min(articles))
            .map(|i| format!("<li><a href=\"/article/n/{}\">a</a></li>", slug(i)))
            .collect();
        if page < lists {
            links.push_str(&format!("<a href=\"/archive?page={}\">next</a>", page + 1));
        }
        pages.insert(
            format!("/archive?page={page}"),
            format!("<html><body><ul>{links}</ul></body></html>"),
        );
    }
    for i in 0..articles {
        pages.insert(
            format!("/article/n/{}", slug(i)),
            format!(
                "<html lang=\"en\"><head><meta name=\"citation_title\" content=\"Article {i}\"></head>\
                 <body><nav>menu</nav><article><p>{}</p></article><footer>f</footer></body></html>",
                words(i, 600)
            ),
        );
    }
    let total_pages = pages.len();
    let app = axum::Router::new()
        .fallback(serve)
        .with_state(Arc::new(pages));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });

    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::default();
    config.storage.data_dir = dir.path().to_path_buf();
    config.crawl = CrawlConfig {
        requests_per_second: 1e9,
        allow_private_networks: true,
        fetchers: 8,
        parsers: 2,
        index_batch: 256,
        ..CrawlConfig::default()
    };
    let catalog = Arc::new(Catalog::open(&config).unwrap());
    catalog
        .create(NewLibrary {
            id: "bench".to_string(),
            start_url: Some(format!("http://{addr}/")),
            clarifications: vec!["/article/n/".to_string()],
            ..Default::default()
        })
        .unwrap();
    let service = CrawlService::open(catalog.clone()).unwrap();
    let started = Instant::now();
    let report = service
        .crawl("bench", CancellationToken::new())
        .await
        .unwrap();
    let seconds = started.elapsed().as_secs_f64();
    let s = &report.status;
    let (rss, peak) = memory_mb();
    println!(
        "throughput: {} pages ({} articles) fetched, parsed and {} indexed in {seconds:.2}s: \
         {:.0} pages/s, {:.0} articles/s (RSS {rss:.0} MB, peak {peak:.0} MB; site of {total_pages} pages)",
        s.counters.pages_fetched,
        articles,
        s.counters.pages_indexed,
        s.counters.pages_fetched as f64 / seconds,
        s.counters.pages_indexed as f64 / seconds,
    );
    assert_eq!(s.counters.pages_indexed, articles);
}

fn main() {
    // `cargo bench` passes `--bench`; the first other argument picks the figure.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let figure = args.first().map(String::as_str).unwrap_or("all");
    let size = |default: u64| args.get(1).and_then(|n| n.parse().ok()).unwrap_or(default);
    match figure {
        "frontier" => frontier(size(100_000) as usize),
        "throughput" => {
            let runtime = tokio::runtime::Runtime::new().unwrap();
            runtime.block_on(throughput(size(3_000)));
        }
        _ => {
            frontier(100_000);
            let runtime = tokio::runtime::Runtime::new().unwrap();
            runtime.block_on(throughput(3_000));
        }
    }
}
