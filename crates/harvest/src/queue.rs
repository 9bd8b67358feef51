//! The crawl service: the persistent queue of libraries, crawled one at a time in queue order,
//! and what the API and the CLI see of it (queue entries, each library's crawl status).

use std::sync::Arc;

use parking_lot::Mutex;
use std::time::Duration;

use serde::Serialize;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;
use url::Url;

use super::error::CrawlError;
use super::fetch::Fetcher;
use super::frontier::Frontier;
use super::job::{Counters, CrawlMode, JobRecord, ModeName, Outcome, Stage};
use super::pattern::{Clarifications, Site};
use super::store::CrawlStore;
use super::worker::{self, CrawlContext, has_sources};
use dupfinder_common::clock::unix_now;
use dupfinder_common::outbound::check_host;
use dupfinder_service::config::CrawlConfig;
use dupfinder_service::library::{Catalog, LibraryId, LibraryInfo, LibraryRecord};

/// Where a library's crawl is, as the API names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CrawlState {
    /// Waiting in the queue.
    Queued,
    Discovering,
    Analyzing,
    Crawling,
    Signing,
    Done,
    /// Removed from the queue or interrupted; it resumes when queued again.
    Stopped,
    Failed,
}

impl CrawlState {
    pub fn as_str(self) -> &'static str {
        match self {
            CrawlState::Queued => "queued",
            CrawlState::Discovering => "discovering",
            CrawlState::Analyzing => "analyzing",
            CrawlState::Crawling => "crawling",
            CrawlState::Signing => "signing",
            CrawlState::Done => "done",
            CrawlState::Stopped => "stopped",
            CrawlState::Failed => "failed",
        }
    }
}

impl From<Stage> for CrawlState {
    fn from(stage: Stage) -> Self {
        match stage {
            Stage::Discovering => CrawlState::Discovering,
            Stage::Analyzing => CrawlState::Analyzing,
            Stage::Crawling => CrawlState::Crawling,
            Stage::Signing => CrawlState::Signing,
            Stage::Done => CrawlState::Done,
        }
    }
}

impl std::fmt::Display for CrawlState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A library's crawl as the API shows it.
#[derive(Debug, Clone, Serialize)]
pub struct CrawlStatus {
    /// `queued`, `discovering`, `analyzing`, `crawling`, `signing` while in the queue; then
    /// `done`, `stopped` (removed from the queue or interrupted) or `failed`.
    pub status: CrawlState,
    /// `queued` while waiting in the queue, else the stage the crawl is at (or stopped at).
    pub stage: CrawlState,
    /// Position in the queue (0: first), when queued.
    pub queue_position: Option<usize>,
    pub run: u32,
    /// `recursive`, `enumerate` or `sources`, once analysis has decided.
    pub mode: Option<ModeName>,
    /// For id enumeration: the last id processed; a later crawl continues after it.
    pub last_id: Option<u64>,
    /// Pages found, fetched, parsed, indexed and failed (with reasons), as the job counts them.
    #[serde(flatten)]
    pub counters: Counters,
    /// Why the last crawl failed.
    pub error: Option<String>,
    pub started_at: Option<u64>,
    pub finished_at: Option<u64>,
}

/// One entry of the queue.
#[derive(Debug, Clone, Serialize)]
pub struct QueueEntry {
    pub id: String,
    #[serde(flatten)]
    pub status: CrawlStatus,
}

/// The outcome of one crawl.
#[derive(Debug, Clone, Serialize)]
pub struct CrawlReport {
    pub library: String,
    pub outcome: Outcome,
    pub status: CrawlStatus,
}

struct Running {
    library: String,
    frontier: Arc<Frontier>,
    cancel: CancellationToken,
}

/// The crawl queue and the crawler of one data directory.
pub struct CrawlService {
    catalog: Arc<Catalog>,
    store: Arc<CrawlStore>,
    config: CrawlConfig,
    running: Mutex<Option<Running>>,
    wake: Notify,
}

/// Clears the running crawl when the crawl ends, however it ends.
struct RunningGuard<'a>(&'a CrawlService);

impl Drop for RunningGuard<'_> {
    fn drop(&mut self) {
        *self.0.running.lock() = None;
    }
}

fn status_of(job: Option<&JobRecord>, queue_position: Option<usize>, running: bool) -> CrawlStatus {
    let default = JobRecord::new("");
    let job = job.unwrap_or(&default);
    let status = match (queue_position, running, &job.outcome) {
        (_, true, _) => job.stage.into(),
        (Some(_), false, _) => CrawlState::Queued,
        (None, false, Some(Outcome::Done)) => CrawlState::Done,
        (None, false, Some(Outcome::Failed { .. })) => CrawlState::Failed,
        (None, false, _) => CrawlState::Stopped,
    };
    let last_id = match &job.mode {
        Some(CrawlMode::Enumerate(range)) => Some(range.last_id()),
        _ => None,
    };
    CrawlStatus {
        status,
        stage: if status == CrawlState::Queued {
            CrawlState::Queued
        } else {
            job.stage.into()
        },
        queue_position,
        run: job.run,
        mode: job.mode.as_ref().map(CrawlMode::name),
        last_id,
        counters: job.counters.clone(),
        error: match &job.outcome {
            Some(Outcome::Failed { reason }) => Some(reason.clone()),
            _ => None,
        },
        started_at: job.started_at,
        finished_at: job.finished_at,
    }
}

impl CrawlService {
    /// A library as the API (and `dupfinder stats`) shows it: its figures, and while it is
    /// queued or after it was crawled, `status` from its crawl (`queued`, a stage, `done`,
    /// `stopped`, `failed`) with the crawl's counters under `crawl`.
    pub fn describe(&self, info: LibraryInfo) -> Result<serde_json::Value, CrawlError> {
        let status = self.status(&info.id)?;
        let mut value = serde_json::json!(info);
        if let (Some(status), Some(object)) = (status, value.as_object_mut()) {
            object.insert("status".to_string(), serde_json::json!(status.status));
            object.insert("crawl".to_string(), serde_json::json!(status));
        }
        Ok(value)
    }

    /// Opens the crawl store of the catalog's data directory. Crawl state of libraries that no
    /// longer exist is dropped.
    pub fn open(catalog: Arc<Catalog>) -> Result<Arc<CrawlService>, CrawlError> {
        let store = CrawlStore::open(&catalog.data_dir().join("crawl.redb"))?;
        let known = catalog.ids()?;
        let mut ids = store.queue()?;
        ids.extend(store.libraries()?);
        for id in ids {
            if !known.contains(&id) {
                store.remove_library(&id)?;
            }
        }
        Ok(Arc::new(CrawlService {
            config: catalog.config().crawl.clone(),
            catalog,
            store: Arc::new(store),
            running: Mutex::new(None),
            wake: Notify::new(),
        }))
    }

    /// The crawl store (for inspection: pages and their states).
    pub fn store(&self) -> &CrawlStore {
        &self.store
    }

    fn running_library(&self) -> Option<(String, Arc<Frontier>)> {
        self.running
            .lock()
            .as_ref()
            .map(|r| (r.library.clone(), r.frontier.clone()))
    }

    /// Checks that a library can be crawled: it is not paused, and it declares something to
    /// crawl, over http(s), on hosts that are public (unless private networks are allowed).
    pub async fn check_crawlable(&self, record: &LibraryRecord) -> Result<(), CrawlError> {
        if record.paused {
            return Err(CrawlError::Paused(record.id.clone()));
        }
        let urls: Vec<&String> = [&record.start_url, &record.sitemap_url, &record.oai_url]
            .into_iter()
            .flatten()
            .collect();
        if urls.is_empty() {
            return Err(CrawlError::NotCrawlable {
                id: record.id.clone(),
            });
        }
        for url in urls {
            let parsed = Url::parse(url)
                .ok()
                .filter(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
                .ok_or_else(|| CrawlError::InvalidUrl {
                    id: record.id.clone(),
                    url: url.clone(),
                })?;
            let host = parsed.host_str().unwrap_or_default();
            check_host(host, self.config.allow_private_networks)
                .await
                .map_err(|source| CrawlError::PrivateAddress {
                    id: record.id.clone(),
                    source,
                })?;
        }
        Ok(())
    }

    /// The catalog crawled into.
    pub(super) fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The ids in the queue, the running crawl's first.
    pub(super) fn queued_ids(&self) -> Result<Vec<String>, CrawlError> {
        Ok(self.store.queue()?)
    }

    /// When the library's last crawl finished, if it ever did.
    pub(super) fn finished_at(&self, id: &str) -> Result<Option<u64>, CrawlError> {
        Ok(self.store.job(id)?.and_then(|job| job.finished_at))
    }

    /// Appends a library to the queue (a library already queued keeps its place); returns its
    /// position.
    pub async fn enqueue(&self, id: &str) -> Result<usize, CrawlError> {
        let record = self.catalog.record(id)?;
        self.check_crawlable(&record).await?;
        self.store.enqueue(id)?;
        self.wake.notify_one();
        Ok(self
            .store
            .queue()?
            .iter()
            .position(|queued| queued == id)
            .unwrap_or(0))
    }

    /// Removes a library from the queue, stopping its crawl if it is running. What was indexed
    /// stays; queued again, the crawl resumes.
    pub fn dequeue(&self, id: &str) -> Result<(), CrawlError> {
        LibraryId::parse(id).map_err(|m| {
            CrawlError::Library(dupfinder_storage::BackendError::InvalidId(m).into())
        })?;
        let was_queued = self.store.dequeue(id)?;
        let running = self.running.lock();
        match running.as_ref() {
            Some(r) if r.library == id => {
                r.cancel.cancel();
                Ok(())
            }
            _ if was_queued => Ok(()),
            _ => Err(CrawlError::NotQueued(id.to_string())),
        }
    }

    /// Forgets a deleted library: stops its crawl and drops its crawl state.
    pub async fn forget(&self, id: &str) -> Result<(), CrawlError> {
        let cancelled = {
            let running = self.running.lock();
            match running.as_ref() {
                Some(r) if r.library == id => {
                    r.cancel.cancel();
                    true
                }
                _ => false,
            }
        };
        if cancelled {
            for _ in 0..600 {
                if self.running_library().is_none_or(|(lib, _)| lib != id) {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
        self.store.remove_library(id)?;
        Ok(())
    }

    /// The queue in order, with each library's stage and counters.
    pub fn queue(&self) -> Result<Vec<QueueEntry>, CrawlError> {
        let running = self.running_library();
        self.store
            .queue()?
            .into_iter()
            .enumerate()
            .map(|(position, id)| {
                let (job, is_running) = match &running {
                    Some((lib, frontier)) if *lib == id => (Some(frontier.job()), true),
                    _ => (self.store.job(&id)?, false),
                };
                Ok(QueueEntry {
                    status: status_of(job.as_ref(), Some(position), is_running),
                    id,
                })
            })
            .collect()
    }

    /// A library's crawl status; `None` when it was never queued or crawled.
    pub fn status(&self, id: &str) -> Result<Option<CrawlStatus>, CrawlError> {
        let position = self.store.queue()?.iter().position(|q| q == id);
        let (job, running) = match self.running_library() {
            Some((lib, frontier)) if lib == id => (Some(frontier.job()), true),
            _ => (self.store.job(id)?, false),
        };
        if job.is_none() && position.is_none() {
            return Ok(None);
        }
        Ok(Some(status_of(job.as_ref(), position, running)))
    }

    /// Crawls one library now, whether or not it is queued, until it is done, fails, or
    /// `cancel` fires (then it stops where it is and resumes next time). A library that is done
    /// or failed leaves the queue.
    pub async fn crawl(
        &self,
        id: &str,
        cancel: CancellationToken,
    ) -> Result<CrawlReport, CrawlError> {
        let record = self.catalog.record(id)?;
        self.check_crawlable(&record).await?;
        let site_url = [&record.start_url, &record.sitemap_url, &record.oai_url]
            .into_iter()
            .flatten()
            .find_map(|u| Url::parse(u).ok())
            .ok_or_else(|| CrawlError::NotCrawlable { id: id.to_string() })?;
        if record.start_url.is_none() && !has_sources(&record) {
            return Err(CrawlError::NotCrawlable { id: id.to_string() });
        }
        let job = self.store.job(id)?.unwrap_or_else(|| JobRecord::new(id));
        let frontier = Arc::new(Frontier::new(
            self.store.clone(),
            job,
            Site::of(&site_url),
            Clarifications::new(&record.clarifications),
            self.config.max_depth,
        )?);
        {
            let mut running = self.running.lock();
            if let Some(r) = running.as_ref() {
                return Err(CrawlError::Busy(r.library.clone()));
            }
            *running = Some(Running {
                library: id.to_string(),
                frontier: frontier.clone(),
                cancel: cancel.clone(),
            });
        }
        let guard = RunningGuard(self);
        let ctx = Arc::new(CrawlContext {
            catalog: self.catalog.clone(),
            library: record,
            frontier: frontier.clone(),
            fetcher: Arc::new(Fetcher::new(&self.config)?),
            config: self.config.clone(),
            cancel,
            fatal: Mutex::new(None),
        });
        let span = tracing::info_span!("crawl", library = %id);
        let result = worker::run(&ctx).instrument(span).await;
        let outcome = match &result {
            Ok(outcome) => outcome.clone(),
            Err(e) => Outcome::Failed {
                reason: e.to_string(),
            },
        };
        let job = frontier.finish(outcome.clone(), unix_now())?;
        drop(guard);
        let position = self.store.queue()?.iter().position(|q| q == id);
        tracing::info!(library = %id, outcome = ?outcome, "crawl ended");
        result?;
        Ok(CrawlReport {
            library: id.to_string(),
            outcome,
            status: status_of(Some(&job), position, false),
        })
    }

    /// Crawls queued libraries one at a time, in order, until `shutdown` fires. A library
    /// leaves the queue when its crawl is done or failed; one interrupted by the shutdown stays
    /// and resumes on the next start.
    pub async fn run_queue(self: Arc<Self>, shutdown: CancellationToken) {
        loop {
            if shutdown.is_cancelled() {
                return;
            }
            let front = match self.store.queue() {
                Ok(queue) => queue.into_iter().next(),
                Err(e) => {
                    tracing::error!(error = %e, "cannot read the crawl queue");
                    tokio::select! {
                        _ = tokio::time::sleep(Duration::from_secs(5)) => continue,
                        _ = shutdown.cancelled() => return,
                    }
                }
            };
            let Some(id) = front else {
                tokio::select! {
                    _ = self.wake.notified() => continue,
                    _ = shutdown.cancelled() => return,
                }
            };
            // A crawl that ends done or failed leaves the queue itself; one stopped by the
            // shutdown stays queued.
            let result = self.crawl(&id, shutdown.child_token()).await;
            if shutdown.is_cancelled() {
                return;
            }
            if let Err(e) = result {
                tracing::warn!(library = %id, error = %e, "crawl failed");
                // A crawl refused before it started still shows why, and leaves the queue.
                if let Err(e) = self.record_refusal(&id, &e) {
                    tracing::error!(library = %id, error = %e, "cannot record the failure");
                }
                if let Err(e) = self.store.dequeue(&id) {
                    tracing::error!(library = %id, error = %e, "cannot update the crawl queue");
                }
            }
        }
    }

    /// Records a crawl that failed before it started (its library was refused).
    fn record_refusal(&self, id: &str, error: &CrawlError) -> Result<(), CrawlError> {
        if self.catalog.store(id).is_err() {
            return Ok(());
        }
        let mut job = self.store.job(id)?.unwrap_or_else(|| JobRecord::new(id));
        job.outcome = Some(Outcome::Failed {
            reason: error.to_string(),
        });
        job.finished_at = Some(unix_now());
        self.store.put_job(&job, true)?;
        Ok(())
    }
}
