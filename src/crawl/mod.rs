//! Harvesting library sites: how pages become articles.
//!
//! A library is crawled from a persistent queue, one at a time, through stages: link discovery
//! from the start page (or its sitemaps / OAI-PMH endpoint), pattern analysis of the article
//! URLs (a numeric id means the ids are enumerated, otherwise the site is crawled recursively),
//! crawling, and finally a refresh of the library's statistics and signatures.
//!
//! - [`queue`](CrawlService): the queue and the service the API and the CLI use.
//! - `worker`: one crawl, stage by stage, with its fetch / parse / index pipeline.
//! - [`Frontier`] and [`CrawlStore`]: pages and their states, persisted in `<data>/crawl.redb`.
//! - [`Fetcher`]: polite, safe HTTP (robots.txt, per-host pace, retries, limits, public
//!   addresses only); [`Robots`]; [`address`](is_non_public).
//! - [`extract`]: article metadata, text and links of an HTML page.
//! - [`IdPattern`], [`Clarifications`]: URL patterns.
//! - [`parse_sitemap`], [`parse_list_records`]: sitemaps and OAI-PMH.

mod address;
mod error;
mod extract;
mod fetch;
mod frontier;
mod job;
mod oai;
mod pattern;
mod politeness;
mod queue;
mod robots;
mod sitemap;
mod sources;
mod store;
mod worker;

pub use address::{NonPublicAddress, check_host, is_non_public};
pub use error::CrawlError;
pub use extract::{ExtractError, ExtractedPage, MAX_NESTING, extract};
pub use fetch::{FetchError, FetchKind, Fetched, Fetcher};
pub use frontier::{Frontier, Reserved};
pub use job::{Counters, CrawlMode, IdRange, JobRecord, OaiProgress, Outcome, Stage};
pub use oai::{
    OaiError, OaiPage, OaiRecord, at_granularity, identify_url, list_records_url,
    parse_granularity, parse_list_records,
};
pub use pattern::{Clarifications, IdPattern, Site, normalize};
pub use queue::{CrawlReport, CrawlService, CrawlStatus, QueueEntry};
pub use robots::Robots;
pub use sitemap::{Sitemap, SitemapEntry, SitemapError, parse_sitemap};
pub use store::{CrawlStore, Failure, PageRecord, PageState, StoreError};
