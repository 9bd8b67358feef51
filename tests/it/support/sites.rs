//! Fixture sites for the crawler: a real HTTP server on 127.0.0.1:0 (axum) that serves
//! generated pages, logs every request it receives with its arrival time, and can be changed
//! while it runs (new articles for a second crawl). Helpers to crawl a library and to read back
//! what was indexed.

use std::collections::{BTreeSet, HashMap};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use dupfinder::config::{Config, CrawlConfig};
use dupfinder::crawl::{CrawlReport, CrawlService};
use dupfinder::library::{Catalog, NewLibrary};
use tokio_util::sync::CancellationToken;

use super::synthetic_text;

/// What the server answers for one path (with its query).
#[derive(Clone)]
pub(crate) enum Reply {
    Html(String),
    Bytes {
        content_type: &'static str,
        body: Vec<u8>,
    },
    Status(u16),
    Redirect(String),
    /// Answers after a delay.
    Slow(Duration, String),
    /// An HTML page of this many bytes, streamed without a Content-Length.
    Huge(usize),
    /// `429 Too Many Requests` with `Retry-After` the first time, the page afterwards.
    RateLimitedOnce(u64, String),
    /// An HTML body that never ends: `chunk` bytes every `every`, forever.
    Endless {
        chunk: usize,
        every: Duration,
    },
}

/// A request the server received.
#[derive(Debug, Clone)]
pub(crate) struct Hit {
    pub(crate) path: String,
    pub(crate) at: Instant,
}

#[derive(Default)]
struct SiteState {
    pages: Mutex<HashMap<String, Reply>>,
    log: Mutex<Vec<Hit>>,
    served: Mutex<HashMap<String, usize>>,
    /// Added before every answer (a slow site).
    delay: Mutex<Duration>,
}

/// A running fixture site.
pub(crate) struct FixtureServer {
    pub(crate) addr: SocketAddr,
    state: Arc<SiteState>,
}

async fn serve_page(State(state): State<Arc<SiteState>>, uri: Uri) -> Response {
    let path = uri
        .path_and_query()
        .map(|p| p.as_str().to_string())
        .unwrap_or_else(|| uri.path().to_string());
    state.log.lock().unwrap().push(Hit {
        path: path.clone(),
        at: Instant::now(),
    });
    let served = {
        let mut served = state.served.lock().unwrap();
        let count = served.entry(path.clone()).or_default();
        *count += 1;
        *count
    };
    let delay = *state.delay.lock().unwrap();
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    let reply = state.pages.lock().unwrap().get(&path).cloned();
    let html =
        |body: String| ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response();
    match reply {
        None => (StatusCode::NOT_FOUND, "no such page").into_response(),
        Some(Reply::Html(body)) => html(body),
        Some(Reply::Bytes { content_type, body }) => {
            ([(header::CONTENT_TYPE, content_type)], body).into_response()
        }
        Some(Reply::Status(code)) => StatusCode::from_u16(code)
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
            .into_response(),
        Some(Reply::Redirect(to)) => {
            let mut response = StatusCode::FOUND.into_response();
            response
                .headers_mut()
                .insert(header::LOCATION, HeaderValue::from_str(&to).unwrap());
            response
        }
        Some(Reply::Slow(wait, body)) => {
            tokio::time::sleep(wait).await;
            html(body)
        }
        Some(Reply::Huge(bytes)) => {
            let chunk = axum::body::Bytes::from(vec![b'a'; 64 * 1024]);
            let chunks = bytes.div_ceil(chunk.len());
            let stream = futures_util::stream::iter(
                (0..chunks).map(move |_| Ok::<_, std::io::Error>(chunk.clone())),
            );
            let mut response = Body::from_stream(stream).into_response();
            response
                .headers_mut()
                .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html"));
            response
        }
        Some(Reply::Endless { chunk, every }) => {
            let chunk = axum::body::Bytes::from(vec![b'a'; chunk]);
            let stream = futures_util::stream::unfold((), move |()| {
                let chunk = chunk.clone();
                async move {
                    if !every.is_zero() {
                        tokio::time::sleep(every).await;
                    }
                    Some((Ok::<_, std::io::Error>(chunk), ()))
                }
            });
            let mut response = Body::from_stream(stream).into_response();
            response
                .headers_mut()
                .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html"));
            response
        }
        Some(Reply::RateLimitedOnce(seconds, body)) => {
            if served == 1 {
                let mut response = StatusCode::TOO_MANY_REQUESTS.into_response();
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
                response
            } else {
                html(body)
            }
        }
    }
}

impl FixtureServer {
    /// Starts serving `pages` on a fresh loopback port.
    pub(crate) async fn start(pages: HashMap<String, Reply>) -> FixtureServer {
        let state = Arc::new(SiteState {
            pages: Mutex::new(pages),
            ..SiteState::default()
        });
        let app = axum::Router::new()
            .fallback(serve_page)
            .with_state(state.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        FixtureServer { addr, state }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub(crate) fn set(&self, path: &str, reply: Reply) {
        self.state
            .pages
            .lock()
            .unwrap()
            .insert(path.to_string(), reply);
    }

    pub(crate) fn set_delay(&self, delay: Duration) {
        *self.state.delay.lock().unwrap() = delay;
    }

    /// Every request so far, in arrival order.
    pub(crate) fn hits(&self) -> Vec<Hit> {
        self.state.log.lock().unwrap().clone()
    }

    /// The paths requested so far.
    pub(crate) fn requested(&self) -> Vec<String> {
        self.hits().into_iter().map(|h| h.path).collect()
    }

    pub(crate) fn clear_log(&self) {
        self.state.log.lock().unwrap().clear();
    }
}

/// A crawl configuration for tests: loopback allowed, fast pace, short backoffs.
pub(crate) fn test_crawl_config() -> CrawlConfig {
    CrawlConfig {
        requests_per_second: 1000.0,
        allow_private_networks: true,
        fetchers: 4,
        parsers: 2,
        index_batch: 16,
        timeout_ms: 5_000,
        connect_timeout_ms: 2_000,
        retries: 1,
        retry_backoff_ms: 10,
        max_retry_after_secs: 5,
        id_probe_misses: 5,
        ..CrawlConfig::default()
    }
}

/// A catalog on a fresh temporary directory with `crawl` as its crawl configuration.
pub(crate) fn crawl_catalog(crawl: CrawlConfig) -> (tempfile::TempDir, Arc<Catalog>) {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::default();
    config.storage.data_dir = dir.path().to_path_buf();
    config.storage.writer_memory_mb = 15;
    config.crawl = crawl;
    (dir, Arc::new(Catalog::open(&config).unwrap()))
}

/// Declares a library that starts at `start_url`.
pub(crate) fn library(catalog: &Catalog, id: &str, start_url: &str, clarifications: &[&str]) {
    catalog
        .create(NewLibrary {
            id: id.to_string(),
            start_url: Some(start_url.to_string()),
            clarifications: clarifications.iter().map(|c| c.to_string()).collect(),
            ..Default::default()
        })
        .unwrap();
}

/// Crawls `id` to the end.
pub(crate) async fn crawl(service: &CrawlService, id: &str) -> CrawlReport {
    service
        .crawl(id, CancellationToken::new())
        .await
        .unwrap_or_else(|e| panic!("crawl of {id}: {e}"))
}

/// The ids of every live document of a library.
pub(crate) fn doc_ids(catalog: &Catalog, id: &str) -> BTreeSet<String> {
    let index = catalog.index(id).unwrap();
    let view = index.view();
    view.keys()
        .unwrap()
        .into_iter()
        .map(|key| view.stored(key).unwrap().unwrap().meta.doc_id)
        .collect()
}

/// An article page: citation tags, navigation, the body, comments and a footer, and `links`.
pub(crate) fn article_page(seed: u64, title: &str, links: &[String]) -> String {
    let links: String = links
        .iter()
        .map(|l| format!("<li><a href=\"{l}\">related</a></li>"))
        .collect();
    format!(
        r#"<!doctype html><html lang="en"><head><title>Fixture library | {title}</title>
<meta name="citation_title" content="{title}">
<meta name="citation_author" content="Author {seed}">
<meta name="citation_publication_date" content="2021/05/0{d}">
<meta name="citation_doi" content="10.9999/fixture.{seed}">
</head><body>
<nav><a href="/">Home</a> navmenuword navmenuword</nav>
<article><h1>{title}</h1><p>{text}</p></article>
<aside><ul>{links}</ul></aside>
<div class="comments"><p>commentword commentword a reader disagrees with everything written above.</p></div>
<footer>footerword copyright of the fixture library</footer>
</body></html>"#,
        d = seed % 9 + 1,
        text = synthetic_text(seed, 150),
    )
}

/// A page that only links: a list, a profile, a news item or a tag.
pub(crate) fn link_page(title: &str, links: &[String]) -> String {
    let links: String = links
        .iter()
        .map(|l| format!("<li><a href=\"{l}\">{l}</a></li>"))
        .collect();
    format!(
        "<!doctype html><html lang=\"en\"><head><title>{title}</title></head><body>\
         <h1>{title}</h1><p>Some words about this page that are not an article at all.</p>\
         <ul>{links}</ul></body></html>"
    )
}

/// A slug made of letters only (no digits, so that it carries no numeric id).
pub(crate) fn slug(n: u64) -> String {
    const PARTS: [&str; 12] = [
        "fuzzy",
        "duplicate",
        "signature",
        "corpus",
        "lexicon",
        "shingle",
        "stemming",
        "ranking",
        "retrieval",
        "library",
        "archive",
        "thesis",
    ];
    let mut words = Vec::new();
    let mut rest = n;
    for _ in 0..3 {
        words.push(PARTS[(rest % 12) as usize]);
        rest /= 12;
    }
    words.join("-")
}
