//! Fetching one URL politely and safely: http(s) only, public addresses only (unless allowed;
//! checked at every redirect hop and by the resolver), robots.txt, the per-host pace, retries
//! with exponential backoff after timeouts, connection errors and 5xx, `429`/`503` with
//! `Retry-After`, a redirect limit with loop detection, and a body size limit enforced while
//! streaming. Every failure is a [`FetchError`] with a stable code.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use reqwest::StatusCode;
use reqwest::header::{CONTENT_LENGTH, CONTENT_TYPE, LOCATION, RETRY_AFTER};
use url::{Position, Url};

use super::pattern::normalize;
use super::politeness::{Politeness, authority};
use super::robots::Robots;
use dupfinder_common::error_code::ErrorCode;
use dupfinder_common::outbound::{CheckedResolver, NonPublicAddress, literal_non_public};
use dupfinder_service::config::CrawlConfig;

/// What a fetch is for; it decides the checks applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FetchKind {
    /// A web page: robots.txt applies and the answer must be HTML.
    Page,
    /// A sitemap or an OAI-PMH response: robots.txt applies, any content type, a larger limit.
    Data,
    /// robots.txt itself.
    Robots,
    /// An article's full text (PDF, DOCX, ODT): robots.txt applies, any content type, the
    /// full-text size limit.
    FullText,
}

/// Sitemaps may be 50 MB uncompressed (sitemaps.org); data answers get at least that much.
const MIN_DATA_BYTES: usize = 50 * 1024 * 1024;

/// A successful answer.
#[derive(Debug, Clone)]
pub struct Fetched {
    /// The URL that answered, after redirects.
    pub url: Url,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
}

/// Why a URL could not be fetched.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("{url}: only http and https are crawled")]
    UnsupportedScheme { url: String },
    #[error("{url}: {source}")]
    NonPublicAddress {
        url: String,
        #[source]
        source: NonPublicAddress,
    },
    #[error("{url}: disallowed by robots.txt")]
    RobotsDisallowed { url: String },
    #[error("{url}: not found (HTTP {status})")]
    NotFound { url: String, status: u16 },
    #[error("{url}: HTTP {status}")]
    Status { url: String, status: u16 },
    #[error("{url}: server error HTTP {status} after {attempts} attempts")]
    ServerError {
        url: String,
        status: u16,
        attempts: u32,
    },
    #[error("{url}: rate limited (HTTP {status}); asked to wait {wait_secs} s")]
    RateLimited {
        url: String,
        status: u16,
        wait_secs: u64,
    },
    #[error("{url}: timed out after {attempts} attempts")]
    Timeout { url: String, attempts: u32 },
    #[error("{url}: {source}")]
    Network {
        url: String,
        #[source]
        source: reqwest::Error,
    },
    #[error("{url}: larger than {limit} bytes")]
    TooLarge { url: String, limit: usize },
    #[error("{url}: not HTML ({content_type})")]
    NotHtml { url: String, content_type: String },
    #[error("{url}: redirect loop")]
    RedirectLoop { url: String },
    #[error("{url}: more than {limit} redirects")]
    TooManyRedirects { url: String, limit: usize },
    #[error("{url}: redirect without a valid Location")]
    BadRedirect { url: String },
    #[error("cannot build the HTTP client: {0}")]
    Client(#[source] reqwest::Error),
}

impl FetchError {
    /// The stable code of this failure, as recorded for the page.
    pub fn code(&self) -> ErrorCode {
        match self {
            FetchError::UnsupportedScheme { .. } => ErrorCode::UnsupportedScheme,
            FetchError::NonPublicAddress { .. } => ErrorCode::PrivateAddress,
            FetchError::RobotsDisallowed { .. } => ErrorCode::RobotsDisallowed,
            FetchError::NotFound { .. } => ErrorCode::NotFound,
            FetchError::Status { .. } => ErrorCode::HttpStatus,
            FetchError::ServerError { .. } => ErrorCode::ServerError,
            FetchError::RateLimited { .. } => ErrorCode::RateLimited,
            FetchError::Timeout { .. } => ErrorCode::Timeout,
            FetchError::Network { .. } => ErrorCode::Network,
            FetchError::TooLarge { .. } => ErrorCode::TooLarge,
            FetchError::NotHtml { .. } => ErrorCode::NotHtml,
            FetchError::RedirectLoop { .. } => ErrorCode::RedirectLoop,
            FetchError::TooManyRedirects { .. } => ErrorCode::TooManyRedirects,
            FetchError::BadRedirect { .. } => ErrorCode::BadRedirect,
            FetchError::Client(_) => ErrorCode::Client,
        }
    }

    /// Whether a later crawl may succeed where this one failed.
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            FetchError::ServerError { .. }
                | FetchError::RateLimited { .. }
                | FetchError::Timeout { .. }
                | FetchError::Network { .. }
        )
    }
}

/// The crawler's HTTP client with its politeness state.
pub struct Fetcher {
    client: reqwest::Client,
    config: CrawlConfig,
    politeness: Politeness,
    /// The product token robots.txt groups are matched against.
    agent: String,
}

impl Fetcher {
    pub fn new(config: &CrawlConfig) -> Result<Fetcher, FetchError> {
        let client = reqwest::Client::builder()
            .user_agent(config.user_agent.clone())
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_millis(config.timeout_ms.max(1)))
            .connect_timeout(Duration::from_millis(config.connect_timeout_ms.max(1)))
            // A proxy would resolve names itself, out of reach of the address check.
            .no_proxy()
            .dns_resolver(Arc::new(CheckedResolver {
                allow_private: config.allow_private_networks,
            }))
            .pool_max_idle_per_host(config.fetchers.max(1))
            .build()
            .map_err(FetchError::Client)?;
        let agent = config
            .user_agent
            .split(['/', ' '])
            .next()
            .unwrap_or("dupfinder")
            .to_ascii_lowercase();
        Ok(Fetcher {
            client,
            config: config.clone(),
            politeness: Politeness::new(config.requests_per_second),
            agent,
        })
    }

    /// Fetches `url`, following redirects.
    pub async fn fetch(&self, url: &Url, kind: FetchKind) -> Result<Fetched, FetchError> {
        let mut current = url.clone();
        let mut visited = HashSet::from([current.as_str().to_string()]);
        for _ in 0..=self.config.max_redirects {
            self.check_target(&current, kind).await?;
            let response = self.send(&current).await?;
            let status = response.status();
            if status.is_redirection() {
                let next = response
                    .headers()
                    .get(LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|location| current.join(location.trim()).ok())
                    .and_then(normalize)
                    .ok_or_else(|| FetchError::BadRedirect {
                        url: current.to_string(),
                    })?;
                if !visited.insert(next.as_str().to_string()) {
                    return Err(FetchError::RedirectLoop {
                        url: url.to_string(),
                    });
                }
                current = next;
                continue;
            }
            let code = status.as_u16();
            if status == StatusCode::NOT_FOUND || status == StatusCode::GONE {
                return Err(FetchError::NotFound {
                    url: current.to_string(),
                    status: code,
                });
            }
            if !status.is_success() {
                return Err(FetchError::Status {
                    url: current.to_string(),
                    status: code,
                });
            }
            return self.read_body(current, response, kind).await;
        }
        Err(FetchError::TooManyRedirects {
            url: url.to_string(),
            limit: self.config.max_redirects,
        })
    }

    /// The scheme, a literal address and robots.txt, before anything is sent to `url`.
    async fn check_target(&self, url: &Url, kind: FetchKind) -> Result<(), FetchError> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(FetchError::UnsupportedScheme {
                url: url.to_string(),
            });
        }
        if let Some(refused) = literal_non_public(url, self.config.allow_private_networks) {
            return Err(FetchError::NonPublicAddress {
                url: url.to_string(),
                source: refused,
            });
        }
        if kind != FetchKind::Robots {
            let robots = self.robots(url).await?;
            if !robots.allows(&url[Position::BeforePath..]) {
                return Err(FetchError::RobotsDisallowed {
                    url: url.to_string(),
                });
            }
        }
        Ok(())
    }

    /// The robots.txt of `url`'s host, read once: a 4xx means no rules; an unreachable file or
    /// a 5xx means the whole site is off limits (RFC 9309). Boxed, because reading robots.txt
    /// is a fetch inside a fetch.
    pub fn robots<'a>(&'a self, url: &'a Url) -> BoxFuture<'a, Result<Arc<Robots>, FetchError>> {
        Box::pin(async move {
            let host = authority(url);
            let cell = self.politeness.robots_cell(&host);
            let robots = cell
                .get_or_try_init(|| async {
                    let mut robots_url = url.clone();
                    robots_url.set_path("/robots.txt");
                    robots_url.set_query(None);
                    let robots = match self.fetch(&robots_url, FetchKind::Robots).await {
                        Ok(fetched) => Robots::parse(&fetched.text(), &self.agent),
                        Err(FetchError::NotFound { .. }) => Robots::allow_all(),
                        Err(FetchError::Status { status, .. }) if (400..500).contains(&status) => {
                            Robots::allow_all()
                        }
                        Err(
                            e @ (FetchError::NonPublicAddress { .. }
                            | FetchError::UnsupportedScheme { .. }),
                        ) => return Err(e),
                        Err(e) => {
                            tracing::warn!(error = %e, "robots.txt unreachable: the site is skipped");
                            Robots::disallow_all()
                        }
                    };
                    if let Some(delay) = robots.crawl_delay {
                        self.politeness.set_crawl_delay(&host, delay);
                    }
                    Ok(Arc::new(robots))
                })
                .await?;
            Ok(robots.clone())
        })
    }

    fn backoff(&self, attempt: u32) -> Duration {
        Duration::from_millis(
            self.config
                .retry_backoff_ms
                .saturating_mul(1u64 << attempt.min(16)),
        )
    }

    /// Sends a GET at the host's pace, retrying what may succeed later.
    async fn send(&self, url: &Url) -> Result<reqwest::Response, FetchError> {
        let host = authority(url);
        let mut attempt = 0u32;
        loop {
            self.politeness.wait_turn(&host).await;
            let result = self.client.get(url.clone()).send().await;
            let retries_left = attempt < self.config.retries;
            match result {
                Ok(response) => {
                    let status = response.status();
                    let rate_limited = status == StatusCode::TOO_MANY_REQUESTS
                        || (status == StatusCode::SERVICE_UNAVAILABLE
                            && response.headers().contains_key(RETRY_AFTER));
                    if rate_limited {
                        let wait = retry_after(response.headers()).unwrap_or(self.backoff(attempt));
                        if !retries_left || wait.as_secs() > self.config.max_retry_after_secs {
                            return Err(FetchError::RateLimited {
                                url: url.to_string(),
                                status: status.as_u16(),
                                wait_secs: wait.as_secs(),
                            });
                        }
                        self.politeness.hold(&host, wait);
                    } else if status.is_server_error() {
                        if !retries_left {
                            return Err(FetchError::ServerError {
                                url: url.to_string(),
                                status: status.as_u16(),
                                attempts: attempt + 1,
                            });
                        }
                        self.politeness.hold(&host, self.backoff(attempt));
                    } else {
                        return Ok(response);
                    }
                }
                Err(error) => {
                    if let Some(refused) = find_source::<NonPublicAddress>(&error) {
                        return Err(FetchError::NonPublicAddress {
                            url: url.to_string(),
                            source: NonPublicAddress {
                                host: refused.host.clone(),
                                ip: refused.ip,
                            },
                        });
                    }
                    let transient = error.is_timeout() || error.is_connect() || error.is_request();
                    if !transient || !retries_left {
                        return Err(if error.is_timeout() {
                            FetchError::Timeout {
                                url: url.to_string(),
                                attempts: attempt + 1,
                            }
                        } else {
                            FetchError::Network {
                                url: url.to_string(),
                                source: error,
                            }
                        });
                    }
                    self.politeness.hold(&host, self.backoff(attempt));
                }
            }
            attempt += 1;
        }
    }

    /// Reads the body, giving up as soon as it passes the size limit.
    async fn read_body(
        &self,
        url: Url,
        mut response: reqwest::Response,
        kind: FetchKind,
    ) -> Result<Fetched, FetchError> {
        let limit = match kind {
            FetchKind::Data => self.config.max_page_bytes.max(MIN_DATA_BYTES),
            FetchKind::Page | FetchKind::Robots => self.config.max_page_bytes,
            FetchKind::FullText => self.config.max_full_text_bytes,
        };
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim().to_ascii_lowercase());
        if kind == FetchKind::Page
            && let Some(ct) = &content_type
            && !is_html(ct)
        {
            return Err(FetchError::NotHtml {
                url: url.to_string(),
                content_type: ct.clone(),
            });
        }
        let declared = response
            .headers()
            .get(CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|length| length > limit as u64) {
            return Err(FetchError::TooLarge {
                url: url.to_string(),
                limit,
            });
        }
        let mut body = Vec::with_capacity(declared.unwrap_or(16 * 1024).min(1 << 20) as usize);
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    if body.len() + chunk.len() > limit {
                        return Err(FetchError::TooLarge {
                            url: url.to_string(),
                            limit,
                        });
                    }
                    body.extend_from_slice(&chunk);
                }
                Ok(None) => break,
                Err(error) if error.is_timeout() => {
                    return Err(FetchError::Timeout {
                        url: url.to_string(),
                        attempts: 1,
                    });
                }
                Err(error) => {
                    return Err(FetchError::Network {
                        url: url.to_string(),
                        source: error,
                    });
                }
            }
        }
        if kind == FetchKind::Page && content_type.is_none() && !looks_like_html(&body) {
            return Err(FetchError::NotHtml {
                url: url.to_string(),
                content_type: "none".to_string(),
            });
        }
        Ok(Fetched {
            url,
            content_type,
            body,
        })
    }
}

fn is_html(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or_default().trim();
    matches!(essence, "text/html" | "application/xhtml+xml" | "")
}

fn looks_like_html(body: &[u8]) -> bool {
    let head = String::from_utf8_lossy(&body[..body.len().min(512)]).to_ascii_lowercase();
    head.trim_start().starts_with('<') || head.contains("<html")
}

/// `Retry-After` as seconds or as an HTTP date.
fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(
        when.duration_since(std::time::SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

/// The first error of type `E` in `error`'s source chain.
fn find_source<'a, E: std::error::Error + 'static>(
    error: &'a (dyn std::error::Error + 'static),
) -> Option<&'a E> {
    let mut current = Some(error);
    while let Some(e) = current {
        if let Some(found) = e.downcast_ref::<E>() {
            return Some(found);
        }
        current = e.source();
    }
    None
}

impl Fetched {
    /// The body as text, decoded by the charset of the `Content-Type`, else of a `<meta>` tag
    /// or a byte-order mark, else as UTF-8 (invalid bytes replaced).
    pub fn text(&self) -> String {
        let label = self
            .content_type
            .as_deref()
            .and_then(charset_of)
            .or_else(|| sniff_meta_charset(&self.body));
        let encoding = label
            .and_then(|l| encoding_rs::Encoding::for_label(l.as_bytes()))
            .unwrap_or(encoding_rs::UTF_8);
        let (text, _, _) = encoding.decode(&self.body);
        text.into_owned()
    }
}

fn charset_of(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|param| {
        let (key, value) = param.split_once('=')?;
        (key.trim().eq_ignore_ascii_case("charset"))
            .then(|| value.trim().trim_matches(['"', '\'']).to_string())
    })
}

/// `<meta charset="…">` or `<meta http-equiv="Content-Type" content="…; charset=…">` in the
/// first kilobytes.
fn sniff_meta_charset(body: &[u8]) -> Option<String> {
    let head = String::from_utf8_lossy(&body[..body.len().min(4096)]).to_ascii_lowercase();
    let at = head.find("charset=")?;
    let rest = head[at + "charset=".len()..].trim_start_matches(['"', '\'']);
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| rest[..end].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charsets_from_header_meta_or_default() {
        let page = |ct: Option<&str>, body: &[u8]| Fetched {
            url: Url::parse("http://x.org/").unwrap(),
            content_type: ct.map(str::to_string),
            body: body.to_vec(),
        };
        // "Привет" in windows-1251.
        let cp1251 = [0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2];
        assert_eq!(
            page(Some("text/html; charset=windows-1251"), &cp1251).text(),
            "Привет"
        );
        let mut with_meta = b"<meta charset=\"windows-1251\"><p>".to_vec();
        with_meta.extend_from_slice(&cp1251);
        assert!(
            page(Some("text/html"), &with_meta)
                .text()
                .ends_with("Привет")
        );
        assert_eq!(page(None, "ёж".as_bytes()).text(), "ёж");
    }

    #[test]
    fn html_content_types() {
        assert!(is_html("text/html; charset=utf-8"));
        assert!(is_html("application/xhtml+xml"));
        assert!(!is_html("application/pdf"));
        assert!(!is_html("image/png"));
    }

    #[test]
    fn retry_after_in_seconds_or_as_a_date() {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert(RETRY_AFTER, "7".parse().unwrap());
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(7)));
        headers.insert(
            RETRY_AFTER,
            "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap(),
        );
        assert_eq!(retry_after(&headers), Some(Duration::ZERO));
    }
}
