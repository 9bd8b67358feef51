//! Harvesting library sites: how pages become articles.
//!
//! - [`Frontier`] and [`CrawlStore`]: pages and their states, persisted in `<data>/crawl.redb`.
//! - [`Fetcher`]: polite, safe HTTP (robots.txt, per-host pace, retries, limits, public
//!   addresses only); [`Robots`]; [`address`](is_non_public).
//! - [`extract`]: article metadata, text and links of an HTML page.
//! - [`IdPattern`], [`Clarifications`]: URL patterns.
//! - [`parse_sitemap`], [`parse_list_records`]: sitemaps and OAI-PMH.

mod address;
mod extract;
mod fetch;
mod frontier;
mod job;
mod oai;
mod pattern;
mod politeness;
mod robots;
mod sitemap;
mod store;

pub use address::{NonPublicAddress, check_host, is_non_public};
pub use extract::{ExtractedPage, extract};
pub use fetch::{FetchError, FetchKind, Fetched, Fetcher};
pub use frontier::Frontier;
pub use job::{Counters, CrawlMode, IdRange, JobRecord, OaiProgress, Outcome, Stage};
pub use oai::{
    OaiError, OaiPage, OaiRecord, at_granularity, identify_url, list_records_url,
    parse_granularity, parse_list_records,
};
pub use pattern::{Clarifications, IdPattern, Site, normalize};
pub use robots::Robots;
pub use sitemap::{Sitemap, SitemapEntry, SitemapError, parse_sitemap};
pub use store::{CrawlStore, Failure, PageRecord, PageState, StoreError};
