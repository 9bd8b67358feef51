//! Errors that stop a crawl or refuse one. Failures of single pages are not errors: they are
//! recorded with the page (see [`super::Failure`]) and the crawl goes on.

use super::fetch::FetchError;
use super::store::StoreError;
use dupfinder_common::outbound::NonPublicAddress;
use dupfinder_service::library::LibraryError;

/// Why a library cannot be crawled, or why its crawl stopped.
#[derive(Debug, thiserror::Error)]
pub enum CrawlError {
    #[error(transparent)]
    Library(#[from] LibraryError),
    #[error(
        "library `{id}` has nothing to crawl: declare a start_url, a sitemap_url (or use_sitemaps) or an oai_url"
    )]
    NotCrawlable { id: String },
    #[error("library `{id}`: `{url}` is not an http(s) URL")]
    InvalidUrl { id: String, url: String },
    #[error(
        "library `{id}`: {source}; private networks are crawled only with crawl.allow_private_networks (DUPFINDER_CRAWL_ALLOW_PRIVATE_NETWORKS=true)"
    )]
    PrivateAddress {
        id: String,
        #[source]
        source: NonPublicAddress,
    },
    #[error("library `{0}` is not in the crawl queue")]
    NotQueued(String),
    #[error("library `{0}` is already being crawled")]
    Busy(String),
    #[error(
        "library `{0}` is paused; declare it with \"paused\": false (dupfinder libraries import, or POST /api/v1/libraries as JSON Lines) to crawl it"
    )]
    Paused(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Client(#[from] FetchError),
    #[error("library `{id}`: indexing failed: {source}")]
    Index {
        id: String,
        #[source]
        source: LibraryError,
    },
    #[error("library `{id}`: a crawl worker failed: {reason}")]
    Worker { id: String, reason: String },
}
