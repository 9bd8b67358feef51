//! What every handler shares.

use std::sync::Arc;

use super::limits::CheckSlots;
use super::metrics::Metrics;
use super::origin::HostPolicy;
use dupfinder_harvest::CrawlService;
use dupfinder_service::library::{Catalog, Jobs};

/// The application state behind the router.
#[derive(Clone)]
pub struct AppState {
    pub catalog: Arc<Catalog>,
    pub metrics: Arc<Metrics>,
    pub crawl: Arc<CrawlService>,
    pub jobs: Arc<Jobs>,
    /// Places for checks computed at once.
    pub checks: Arc<CheckSlots>,
    /// The host names the server answers for.
    pub(super) hosts: Arc<HostPolicy>,
}

impl AppState {
    /// The state of a server over `catalog`, with fresh metrics and check places sized by the
    /// catalog's limits.
    pub fn new(catalog: Arc<Catalog>, crawl: Arc<CrawlService>, jobs: Arc<Jobs>) -> Self {
        let checks = Arc::new(CheckSlots::new(&catalog.config().limits));
        let hosts = Arc::new(HostPolicy::of(&catalog.config().server));
        AppState {
            catalog,
            metrics: Arc::new(Metrics::default()),
            crawl,
            jobs,
            checks,
            hosts,
        }
    }
}
