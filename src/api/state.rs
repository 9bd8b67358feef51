//! What every handler shares.

use std::sync::Arc;

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
}
