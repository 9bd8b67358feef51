//! Configuration: built-in defaults, overridden by a TOML file (`config/dupfinder.toml` documents
//! every key), overridden by `DUPFINDER_*` environment variables and command-line flags (merged
//! in `main.rs`). No file is needed: the defaults run a loopback server on `./data`.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use serde::Deserialize;

pub use dupfinder_check::CheckConfig;
use dupfinder_signature::RobustScheme;
pub use dupfinder_storage::{PostgresConfig, StorageConfig};

/// The whole configuration.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    pub server: ServerConfig,
    pub storage: StorageConfig,
    pub limits: Limits,
    pub signatures: SignatureConfig,
    pub check: CheckConfig,
    pub crawl: CrawlConfig,
    pub reindex: ReindexConfig,
    pub reports: ReportsConfig,
    /// Reading files: bounds on pages, decompressed bytes and time.
    pub extract: dupfinder_text::extract::ExtractLimits,
    pub dedup: crate::dedup::DedupConfig,
    /// Checks of many files in one request.
    pub batch: crate::batch::BatchConfig,
    /// Delivering events to portals.
    pub webhooks: crate::webhooks::WebhooksConfig,
}

/// Which signatures are stored and looked up.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SignatureConfig {
    /// The robust variants beside the seed signature. Changing it re-signs every library on
    /// the next start.
    pub robust: RobustKind,
    /// How many randomized lexicons (`lexicons` and `both`).
    pub lexicons: u32,
}

/// The robust signature variants, as configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RobustKind {
    None,
    Top7,
    Lexicons,
    Both,
}

impl Default for SignatureConfig {
    fn default() -> Self {
        SignatureConfig {
            robust: RobustKind::Both,
            lexicons: 10,
        }
    }
}

impl SignatureConfig {
    /// The scheme this configuration selects.
    pub fn scheme(&self) -> RobustScheme {
        match self.robust {
            RobustKind::None => RobustScheme::None,
            RobustKind::Top7 => RobustScheme::Top7,
            RobustKind::Lexicons => RobustScheme::Lexicons {
                lexicons: self.lexicons,
            },
            RobustKind::Both => RobustScheme::Both {
                lexicons: self.lexicons,
            },
        }
    }
}

/// The HTTP server.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServerConfig {
    /// Address to listen on.
    pub listen: SocketAddr,
    /// Bearer token operator endpoints require (env `DUPFINDER_TOKEN`). Without one the server
    /// only binds to loopback.
    pub token: Option<String>,
    /// Whether reading endpoints (searches, checks, document views) need the token too.
    pub protect_reads: bool,
    /// Host names the server answers for besides the loopback names and its listen address
    /// (env `DUPFINDER_ALLOWED_HOSTS`, comma-separated): the names a reverse proxy passes on, or
    /// that browsers reach it by. A request for any other `Host` is refused, so that a web page
    /// cannot reach the server through a name of its own resolving to it (DNS rebinding).
    pub allowed_hosts: Vec<String>,
    /// How long a client may take to send a request's headers, in milliseconds; past it the
    /// connection is closed, so that half-sent headers cannot hold connection places.
    pub header_read_timeout_ms: u64,
}

impl ServerConfig {
    /// The first of `allowed_hosts` that is not a host name or an address alone (with a
    /// scheme, a port or a path, say).
    pub fn invalid_allowed_host(&self) -> Option<&str> {
        self.allowed_hosts.iter().map(String::as_str).find(|host| {
            let bare = host.trim_start_matches('[').trim_end_matches(']');
            let name = !bare.is_empty()
                && bare
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
            !(name || bare.parse::<std::net::IpAddr>().is_ok())
        })
    }
}

/// Input limits.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// A document or checked text needs at least this many terms after analysis.
    pub min_words: usize,
    /// The largest accepted text, in bytes.
    pub max_text_bytes: usize,
    /// The largest accepted request body, in bytes.
    pub max_body_bytes: usize,
    /// The deepest nesting of JSON arrays and objects accepted in a body or a JSON Lines line.
    pub max_json_depth: usize,
    /// The most non-blank lines one JSON Lines request may carry.
    pub max_json_lines: usize,
    /// The most libraries (non-blank lines) one registry import may declare.
    pub max_registry_lines: usize,
    /// The largest registry import body, in bytes.
    pub max_registry_bytes: usize,
    /// The most libraries one check may name in `libraries`.
    pub max_libraries_per_check: usize,
    /// The longest search query (`q`), in bytes.
    pub max_query_bytes: usize,
    /// How long a client may take to send a request body, in milliseconds.
    pub body_timeout_ms: u64,
    /// How long a reading request (check, search, listing) may take to answer, in milliseconds.
    pub request_timeout_ms: u64,
    /// The most checks computed at once; 0 means one per CPU core.
    pub max_concurrent_checks: usize,
    /// The most checks waiting for one of those places; a check beyond them is refused at once
    /// (`503 busy`).
    pub max_waiting_checks: usize,
    /// The most client connections the server holds open at once; further ones wait, not
    /// accepted, until one closes.
    pub max_connections: usize,
}

impl Limits {
    /// The bounds on a document's or a checked text's text.
    pub fn text(&self) -> dupfinder_text::analysis::TextLimits {
        dupfinder_text::analysis::TextLimits {
            max_bytes: self.max_text_bytes,
            min_words: self.min_words,
        }
    }
}

/// Harvesting library sites: politeness, safety limits and worker counts.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CrawlConfig {
    /// Requests per second to one host; a larger robots.txt `Crawl-delay` wins.
    pub requests_per_second: f64,
    /// Allow requests to private, loopback and link-local addresses
    /// (env `DUPFINDER_CRAWL_ALLOW_PRIVATE_NETWORKS`).
    pub allow_private_networks: bool,
    /// The `User-Agent` header; robots.txt groups for `dupfinder` apply to it.
    pub user_agent: String,
    /// Concurrent page fetches.
    pub fetchers: usize,
    /// Workers that extract, analyze and record fetched pages.
    pub parsers: usize,
    /// Documents written to the index per commit.
    pub index_batch: usize,
    /// Whole-request timeout (connect, headers and body), in milliseconds.
    pub timeout_ms: u64,
    /// Connection timeout, in milliseconds.
    pub connect_timeout_ms: u64,
    /// Retries of a request that timed out, failed to connect, or got a 5xx or 429.
    pub retries: u32,
    /// Backoff before the first retry, in milliseconds; it doubles with every retry.
    pub retry_backoff_ms: u64,
    /// A `Retry-After` longer than this (seconds) fails the page instead of waiting.
    pub max_retry_after_secs: u64,
    /// Pages larger than this (bytes) are abandoned while streaming.
    pub max_page_bytes: usize,
    /// Whether an article's full text (`citation_pdf_url`, or a link to a PDF, DOCX or ODT
    /// file) is fetched and indexed in place of its landing page's text.
    pub full_texts: bool,
    /// Full-text files larger than this (bytes) are abandoned while streaming; the article
    /// keeps its landing page's text.
    pub max_full_text_bytes: usize,
    /// Redirects followed per request.
    pub max_redirects: usize,
    /// Link discovery stops once this many article URLs are known.
    pub discovery_articles: usize,
    /// Link discovery gives up after fetching this many pages.
    pub discovery_max_pages: usize,
    /// Id enumeration probes past the highest (and below the lowest) id found until this many
    /// ids in a row are missing.
    pub id_probe_misses: u64,
    /// Links are followed at most this many hops from the start page.
    pub max_depth: u32,
}

impl Default for CrawlConfig {
    fn default() -> Self {
        CrawlConfig {
            requests_per_second: 2.0,
            allow_private_networks: false,
            user_agent: concat!(
                "dupfinder/",
                env!("CARGO_PKG_VERSION"),
                " (near-duplicate detection for scientific libraries)"
            )
            .to_string(),
            fetchers: 4,
            parsers: 2,
            index_batch: 64,
            timeout_ms: 30_000,
            connect_timeout_ms: 10_000,
            retries: 2,
            retry_backoff_ms: 1_000,
            max_retry_after_secs: 120,
            max_page_bytes: 10 * 1024 * 1024,
            full_texts: true,
            max_full_text_bytes: 50 * 1024 * 1024,
            max_redirects: 5,
            discovery_articles: 10,
            discovery_max_pages: 500,
            id_probe_misses: 50,
            max_depth: 10_000,
        }
    }
}

/// Stored reports.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReportsConfig {
    /// Reports older than this many days are deleted (0: kept for ever).
    pub keep_days: u64,
}

/// Re-indexing: new statistics, every document re-signed.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReindexConfig {
    /// The server re-indexes a library on its own once the documents added, replaced or
    /// deleted since its snapshot exceed this share of the snapshot's documents (0: never).
    pub auto_drift: f64,
    /// A library needs at least this many documents to be re-indexed on its own.
    pub auto_min_documents: u64,
    /// How often the server looks at the libraries' drift, in seconds.
    pub check_interval_secs: u64,
    /// With PostgreSQL: how often the server looks for a re-index another process left
    /// unfinished (stopped or killed) and takes it over, in seconds.
    pub resume_interval_secs: u64,
    /// Documents signed per second at most (0: as fast as it can), to leave room for checks.
    pub max_docs_per_second: u32,
    /// Documents signed between two commits of an unfinished generation: what a resume after a
    /// crash repeats at most.
    pub commit_every: u64,
}

impl Default for ReindexConfig {
    fn default() -> Self {
        ReindexConfig {
            auto_drift: 0.2,
            auto_min_documents: 100,
            check_interval_secs: 60,
            resume_interval_secs: 10,
            max_docs_per_second: 0,
            commit_every: 100_000,
        }
    }
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            token: None,
            protect_reads: false,
            allowed_hosts: Vec::new(),
            header_read_timeout_ms: 10_000,
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            min_words: 10,
            max_text_bytes: 5_000_000,
            max_body_bytes: 32 * 1024 * 1024,
            max_json_depth: 32,
            max_json_lines: 100_000,
            max_registry_lines: 10_000,
            max_registry_bytes: 8 * 1024 * 1024,
            max_libraries_per_check: 64,
            max_query_bytes: 2_000,
            body_timeout_ms: 60_000,
            request_timeout_ms: 30_000,
            max_concurrent_checks: 0,
            max_waiting_checks: 64,
            max_connections: 1024,
        }
    }
}

/// A configuration file that could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read the configuration file {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the configuration file {path} is invalid: {reason}")]
    Invalid { path: PathBuf, reason: String },
}

impl Config {
    /// Reads a TOML configuration file; keys it does not set keep their defaults.
    pub fn from_file(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        toml::from_str(&text).map_err(|e| ConfigError::Invalid {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_default_file_matches_built_in_defaults() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../config/dupfinder.toml");
        let file = Config::from_file(&path).unwrap();
        let built_in = Config::default();
        assert_eq!(file.server.listen, built_in.server.listen);
        assert_eq!(file.server.token, built_in.server.token);
        assert_eq!(file.server.protect_reads, built_in.server.protect_reads);
        assert_eq!(file.server.allowed_hosts, built_in.server.allowed_hosts);
        assert_eq!(file.storage.data_dir, built_in.storage.data_dir);
        assert_eq!(
            file.storage.writer_memory_mb,
            built_in.storage.writer_memory_mb
        );
        assert_eq!(
            format!("{:?}", file.limits),
            format!("{:?}", built_in.limits)
        );
        assert_eq!(format!("{:?}", file.check), format!("{:?}", built_in.check));
        assert_eq!(file.signatures.scheme(), built_in.signatures.scheme());
        assert_eq!(format!("{:?}", file.crawl), format!("{:?}", built_in.crawl));
        assert_eq!(file.batch, built_in.batch);
        assert_eq!(file.webhooks, built_in.webhooks);
    }

    #[test]
    fn allowed_hosts_are_names_or_addresses_alone() {
        let server = |hosts: &[&str]| ServerConfig {
            allowed_hosts: hosts.iter().map(|h| h.to_string()).collect(),
            ..ServerConfig::default()
        };
        let good = server(&["dupfinder.example.org", "10.0.0.5", "[2001:db8::1]", "::1"]);
        assert_eq!(good.invalid_allowed_host(), None);
        for bad in [
            "https://dupfinder.example.org",
            "example.org:443",
            "",
            "a b",
            "x/y",
        ] {
            assert_eq!(server(&[bad]).invalid_allowed_host(), Some(bad));
        }
    }

    #[test]
    fn unknown_keys_are_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.toml");
        std::fs::write(&path, "[server]\nlisten_addr = \"127.0.0.1:1\"\n").unwrap();
        let err = Config::from_file(&path).unwrap_err();
        assert!(err.to_string().contains("listen_addr"), "{err}");
    }
}
