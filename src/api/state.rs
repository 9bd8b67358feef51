//! What every handler shares.

use std::sync::Arc;

use super::limits::CheckSlots;
use super::metrics::Metrics;
use crate::crawl::CrawlService;
use crate::library::{Catalog, Jobs};

/// The application state behind the router.
#[derive(Clone)]
pub struct AppState {
    pub catalog: Arc<Catalog>,
    pub metrics: Arc<Metrics>,
    pub crawl: Arc<CrawlService>,
    pub jobs: Arc<Jobs>,
    /// Places for checks computed at once.
    pub checks: Arc<CheckSlots>,
}

impl AppState {
    /// The state of a server over `catalog`, with fresh metrics and check places sized by the
    /// catalog's limits.
    pub fn new(catalog: Arc<Catalog>, crawl: Arc<CrawlService>, jobs: Arc<Jobs>) -> Self {
        let checks = Arc::new(CheckSlots::new(&catalog.config().limits));
        AppState {
            catalog,
            metrics: Arc::new(Metrics::default()),
            crawl,
            jobs,
            checks,
        }
    }
}
