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
//!   addresses only).
//! - [`extract`]: article metadata, text and links of an HTML page.
//! - `pattern`: URL patterns ([`Clarifications`], numeric ids).
//! - `sitemap`, `oai`: sitemaps and OAI-PMH.

mod error;
mod fetch;
mod frontier;
mod job;
mod oai;
mod pattern;
mod politeness;
mod queue;
mod robots;
mod schedule;
mod sitemap;
mod sources;
mod store;
mod worker;

pub use error::CrawlError;
pub use fetch::{FetchError, FetchKind, Fetched, Fetcher};
pub use frontier::Frontier;
pub use job::{CrawlMode, JobRecord, ModeName, Outcome, Stage};
pub use oai::{OaiError, OaiPage, OaiRecord, list_records_url, parse_list_records};
pub use pattern::{Clarifications, IdPattern, Site};
pub use queue::{CrawlReport, CrawlService, CrawlState, CrawlStatus, QueueEntry};
pub use sitemap::{Sitemap, SitemapEntry, SitemapError, parse_sitemap};
pub use store::{CrawlStore, PageState};
