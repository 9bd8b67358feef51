//! Scheduled re-harvests: a library declared with `schedule: {"every_hours": N}` is queued again
//! N hours after its last crawl finished (at once when it was never crawled). The crawl that
//! follows is incremental as every re-crawl is: OAI-PMH asks for records changed `from` the
//! last harvest, sitemaps are read again for changed `lastmod`, pages known unchanged are not
//! fetched again. A paused library is not queued; the queue shows what the schedule queued.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::error::CrawlError;
use super::queue::CrawlService;
use dupfinder_common::clock::unix_now;

/// How often the schedules are looked at.
const LOOK_EVERY: Duration = Duration::from_secs(60);

impl CrawlService {
    /// Queues every library whose schedule is due at `now` (seconds since the Unix epoch): not
    /// paused, not queued or crawling already, and never crawled or last finished at least its
    /// interval before `now`. Answers the libraries queued.
    pub async fn queue_due(&self, now: u64) -> Result<Vec<String>, CrawlError> {
        let queued: std::collections::HashSet<String> = self.queued_ids()?.into_iter().collect();
        let mut due = Vec::new();
        let records = self
            .catalog()
            .storage()
            .records()
            .map_err(|e| CrawlError::Library(e.into()))?;
        for record in records {
            let Some(schedule) = record.schedule else {
                continue;
            };
            if record.paused || queued.contains(&record.id) {
                continue;
            }
            let finished = self.finished_at(&record.id)?;
            let interval = u64::from(schedule.every_hours) * 3600;
            if finished.is_some_and(|at| at.saturating_add(interval) > now) {
                continue;
            }
            match self.enqueue(&record.id).await {
                Ok(_) => due.push(record.id),
                Err(e) => {
                    tracing::warn!(library = %record.id, error = %e, "a scheduled re-harvest could not be queued")
                }
            }
        }
        if !due.is_empty() {
            tracing::info!(libraries = due.len(), "scheduled re-harvests queued");
        }
        Ok(due)
    }

    /// Looks at the schedules every minute until `shutdown`.
    pub async fn queue_due_forever(self: Arc<Self>, shutdown: CancellationToken) {
        loop {
            if let Err(e) = self.queue_due(unix_now()).await {
                tracing::warn!(error = %e, "the schedules could not be read");
            }
            tokio::select! {
                _ = tokio::time::sleep(LOOK_EVERY) => {}
                _ = shutdown.cancelled() => return,
            }
        }
    }
}
