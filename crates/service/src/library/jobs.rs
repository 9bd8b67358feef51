//! Background jobs of the server: re-indexing a library, started by an operator, by drift, or to
//! resume one a crash interrupted; finding the duplicates inside a library (dedup). Jobs run one at a time on their own thread; each can be
//! followed (`done` of `total` documents) and aborted, and an aborted or interrupted re-index
//! resumes from its last commit the next time one is started for the library.
//!
//! A re-index runs under its library's claim ([`dupfinder_storage::ReindexClaim`]), a dedup job
//! under its own ([`crate::dedup::DedupClaim`]): on a database several processes serve, a job
//! runs in one of them, and another asked for it answers [`LibraryError::JobRunningElsewhere`].
//! A dedup job left unfinished is resumed from its checkpoint at the next start. There a resume sweep (every
//! `[reindex] resume_interval_secs`) takes over a generation left unfinished by a process that
//! stopped or was killed; one an operator aborted is paused, and left alone until an operator
//! asks for a re-index again.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use parking_lot::Mutex;
use std::time::Duration;

use serde::Serialize;

use super::catalog::{Catalog, LibraryError};
use crate::config::ReindexConfig;
use dupfinder_common::clock::unix_now;
use dupfinder_storage::index::{RebuildControl, RebuildOutcome};
use dupfinder_storage::{LibraryStore, ReindexClaim, UnfinishedReindex};

/// Finished jobs kept for `GET /api/v1/jobs` beyond the running ones.
const KEPT_FINISHED: usize = 100;

/// Where a job is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    /// Waiting for another job to finish.
    Queued,
    Running,
    Done,
    Failed,
    /// Stopped on request; a re-index resumes from here next time.
    Aborted,
}

impl JobState {
    fn finished(self) -> bool {
        matches!(self, JobState::Done | JobState::Failed | JobState::Aborted)
    }
}

/// Why a job was started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum JobTrigger {
    /// An operator asked for it.
    Request,
    /// The library's drift passed `reindex.auto_drift`.
    Drift,
    /// An unfinished re-index was found when the server started.
    Resume,
}

/// What a job does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum JobKind {
    /// Count the statistics again and re-sign every document into a new generation.
    Reindex,
    /// Check every document against its library and cluster the duplicates.
    Dedup,
    /// Check each file of a batch and keep a report per file.
    Batch,
}

impl JobKind {
    fn name(self) -> &'static str {
        match self {
            JobKind::Reindex => "reindex",
            JobKind::Dedup => "dedup",
            JobKind::Batch => "batch",
        }
    }

    /// What a library undergoes in this job, for messages.
    pub(super) fn doing(self) -> &'static str {
        match self {
            JobKind::Reindex => "re-indexed",
            JobKind::Dedup => "deduplicated",
            JobKind::Batch => "checked",
        }
    }
}

/// A job as the API shows it.
#[derive(Debug, Clone, Serialize)]
pub struct JobStatus {
    pub job: String,
    pub kind: JobKind,
    /// The library a re-index or a dedup job works on (none for a batch).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub library: String,
    pub state: JobState,
    pub trigger: JobTrigger,
    /// Documents signed into the new generation (those of a resumed run included).
    pub done: u64,
    /// Live documents when the job started.
    pub total: u64,
    /// Seconds since the Unix epoch.
    pub created_at: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<u64>,
    /// The statistics generation the job built (or was building when aborted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generation: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

struct Job {
    status: Mutex<JobStatus>,
    done: AtomicU64,
    cancel: AtomicBool,
    /// Set with `cancel` by an operator's abort (not by a shutdown or a deletion): the
    /// unfinished generation is then marked paused.
    pause: AtomicBool,
}

impl Job {
    fn status(&self) -> JobStatus {
        let mut status = self.status.lock().clone();
        status.done = self.done.load(Ordering::Relaxed);
        status
    }

    fn update(&self, change: impl FnOnce(&mut JobStatus)) {
        change(&mut self.status.lock());
    }
}

/// The server's jobs.
pub struct Jobs {
    catalog: Arc<Catalog>,
    table: Mutex<BTreeMap<u64, Arc<Job>>>,
    next: AtomicU64,
    /// Held by the running job: jobs run one at a time.
    runner: Arc<Mutex<()>>,
    /// Held by the running batch: batches run one at a time, beside the other jobs.
    batch_runner: Arc<Mutex<()>>,
    /// Set when the server stops: a batch then leaves its files for the next start instead of
    /// listing them as aborted.
    stopping: Arc<AtomicBool>,
    /// Set after the first drift sweep: later ones look only at the libraries open since (a
    /// closed library was not written, so its drift stands).
    drift_swept: AtomicBool,
}

impl Jobs {
    /// No jobs yet.
    pub fn new(catalog: Arc<Catalog>) -> Arc<Jobs> {
        Arc::new(Jobs {
            catalog,
            table: Mutex::new(BTreeMap::new()),
            next: AtomicU64::new(1),
            runner: Arc::new(Mutex::new(())),
            batch_runner: Arc::new(Mutex::new(())),
            stopping: Arc::new(AtomicBool::new(false)),
            drift_swept: AtomicBool::new(false),
        })
    }

    fn settings(&self) -> &ReindexConfig {
        &self.catalog.config().reindex
    }

    /// Starts re-indexing `library`, or returns the re-index of it already queued or running.
    pub fn start_reindex(
        &self,
        library: &str,
        trigger: JobTrigger,
    ) -> Result<JobStatus, LibraryError> {
        self.start(JobKind::Reindex, library, trigger)
    }

    /// Starts finding the duplicates inside `library` (resuming an unfinished run), or returns
    /// the dedup job of it already queued or running.
    pub fn start_dedup(
        &self,
        library: &str,
        trigger: JobTrigger,
    ) -> Result<JobStatus, LibraryError> {
        self.start(JobKind::Dedup, library, trigger)
    }

    fn start(
        &self,
        kind: JobKind,
        library: &str,
        trigger: JobTrigger,
    ) -> Result<JobStatus, LibraryError> {
        let store = self.catalog.store(library)?;
        let mut table = self.table.lock();
        if let Some(job) = table.values().find(|job| {
            let status = job.status.lock();
            status.library == library && status.kind == kind && !status.state.finished()
        }) {
            return Ok(job.status());
        }
        let claim = match kind {
            JobKind::Reindex => {
                let Some(mut claim) = store.clone().claim_reindex()? else {
                    return Err(LibraryError::JobRunningElsewhere {
                        library: library.to_string(),
                        job: kind,
                    });
                };
                if trigger == JobTrigger::Request {
                    // An operator asking again resumes a generation paused by an abort.
                    claim.set_paused(false)?;
                }
                Claim::Reindex(claim)
            }
            JobKind::Dedup => Claim::Dedup(crate::dedup::claim_dedup(&self.catalog, library)?),
            JobKind::Batch => unreachable!("batches start with `start_batch`"),
        };
        let number = self.next.fetch_add(1, Ordering::Relaxed);
        let job = Arc::new(Job {
            status: Mutex::new(JobStatus {
                job: format!("{}-{number}", kind.name()),
                kind,
                library: library.to_string(),
                state: JobState::Queued,
                trigger,
                done: 0,
                total: store.summary()?.documents,
                created_at: unix_now(),
                finished_at: None,
                generation: None,
                error: None,
            }),
            done: AtomicU64::new(0),
            cancel: AtomicBool::new(false),
            pause: AtomicBool::new(false),
        });
        table.insert(number, job.clone());
        forget_old(&mut table);
        drop(table);

        let dir = self.catalog.data_dir().to_path_buf();
        let control_settings = self.settings().clone();
        let runner = self.runner.clone();
        let catalog = self.catalog.clone();
        let status = job.status();
        tracing::info!(job = %status.job, library, ?trigger, "job queued");
        std::thread::Builder::new()
            .name(format!("{}-{library}", kind.name()))
            .spawn(move || {
                let _turn = runner.lock();
                match claim {
                    Claim::Reindex(claim) => {
                        run_reindex(&job, store.as_ref(), claim, &control_settings)
                    }
                    Claim::Dedup(claim) => run_dedup(&job, &catalog, &claim),
                }
            })
            .map_err(|source| LibraryError::Io { path: dir, source })?;
        Ok(status)
    }

    /// Starts checking the files of the batch `job` (kept in the batch store) that are not
    /// checked yet.
    pub fn start_batch(&self, job: &str, trigger: JobTrigger) -> Result<JobStatus, LibraryError> {
        let batch = self.catalog.batches().get(job)?;
        let done = self.catalog.batches().done(job)?;
        let mut table = self.table.lock();
        if let Some(existing) = table.values().find(|j| {
            let status = j.status.lock();
            status.job == job && !status.state.finished()
        }) {
            return Ok(existing.status());
        }
        // A batch this process stopped working on (other processes held its files) starts
        // again under a new entry.
        table.retain(|_, j| j.status.lock().job != job);
        let number = self.next.fetch_add(1, Ordering::Relaxed);
        let entry = Arc::new(Job {
            status: Mutex::new(JobStatus {
                job: job.to_string(),
                kind: JobKind::Batch,
                library: String::new(),
                state: JobState::Queued,
                trigger,
                done,
                total: batch.names.len() as u64,
                created_at: batch.created,
                finished_at: None,
                generation: None,
                error: None,
            }),
            done: AtomicU64::new(done),
            cancel: AtomicBool::new(false),
            pause: AtomicBool::new(false),
        });
        table.insert(number, entry.clone());
        forget_old(&mut table);
        drop(table);
        let runner = self.batch_runner.clone();
        let catalog = self.catalog.clone();
        let stopping = self.stopping.clone();
        let status = entry.status();
        tracing::info!(job, files = status.total, ?trigger, "batch queued");
        std::thread::Builder::new()
            .name("batch".to_string())
            .spawn(move || {
                let _turn = runner.lock();
                run_batch(&entry, &catalog, &stopping);
            })
            .map_err(|source| LibraryError::Io {
                path: self.catalog.data_dir().to_path_buf(),
                source,
            })?;
        Ok(status)
    }

    /// The job `job`, if it is known. A batch is known after a restart too, and through every
    /// process serving a shared database: once this process's run of it ended, the batch
    /// store says where it is.
    pub fn get(&self, job: &str) -> Option<JobStatus> {
        let local = self.find(job).map(|found| found.status());
        if let Some(status) = &local {
            let ended_here = status.kind == JobKind::Batch
                && status.state.finished()
                && status.state != JobState::Failed;
            if !ended_here {
                return local;
            }
        }
        let batch = self.catalog.batches().get(job).ok()?;
        let done = self.catalog.batches().done(job).ok()?;
        Some(JobStatus {
            job: batch.job,
            kind: JobKind::Batch,
            library: String::new(),
            state: match batch.state {
                crate::batch::BatchState::Running => JobState::Queued,
                crate::batch::BatchState::Done => JobState::Done,
                crate::batch::BatchState::Aborted => JobState::Aborted,
            },
            trigger: local.map_or(JobTrigger::Request, |status| status.trigger),
            done,
            total: batch.names.len() as u64,
            created_at: batch.created,
            finished_at: batch.finished_at,
            generation: None,
            error: None,
        })
    }

    /// Every known job, the newest first.
    pub fn list(&self) -> Vec<JobStatus> {
        let table = self.table.lock();
        table.values().rev().map(|job| job.status()).collect()
    }

    /// Asks job `job` to stop; returns its status, or `None` when it is unknown. A finished job
    /// is left as it is. A re-index stopped so is paused: no resume sweep takes it up again. A
    /// running batch is marked aborted in the batch store, so that every process checking it
    /// (on a shared database) lists the files it has left as aborted.
    pub fn abort(&self, job: &str) -> Option<JobStatus> {
        let found = self.find(job);
        if let Some(found) = &found {
            found.pause.store(true, Ordering::Relaxed);
            found.cancel.store(true, Ordering::Relaxed);
        }
        let batches = self.catalog.batches();
        if let Ok(batch) = batches.get(job)
            && batch.state == crate::batch::BatchState::Running
            && let Err(e) = batches.set_state(job, crate::batch::BatchState::Aborted)
        {
            tracing::error!(job, error = %e, "a batch could not be marked aborted");
        }
        match found {
            Some(found) => Some(found.status()),
            None => self.get(job),
        }
    }

    /// Aborts every job of library `library` and waits (up to a minute) until none of them
    /// runs: a library about to be deleted. A queued one aborts when its turn comes, without
    /// touching the library.
    pub fn stop_library(&self, library: &str) {
        let jobs: Vec<Arc<Job>> = self
            .table
            .lock()
            .values()
            .filter(|job| job.status.lock().library == library)
            .cloned()
            .collect();
        Self::stop_and_wait(&jobs, |state| state == JobState::Running);
    }

    /// Cancels `jobs` and waits (up to a minute) while any of them is in a state `busy` says.
    fn stop_and_wait(jobs: &[Arc<Job>], busy: impl Fn(JobState) -> bool) {
        for job in jobs {
            job.cancel.store(true, Ordering::Relaxed);
        }
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while jobs.iter().any(|job| busy(job.status().state))
            && std::time::Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn find(&self, job: &str) -> Option<Arc<Job>> {
        self.table
            .lock()
            .values()
            .find(|found| found.status.lock().job == job)
            .cloned()
    }

    /// Aborts every job and waits (up to a minute) until they have stopped.
    pub fn stop_all(&self) {
        self.stopping.store(true, Ordering::Relaxed);
        let jobs: Vec<Arc<Job>> = self.table.lock().values().cloned().collect();
        Self::stop_and_wait(&jobs, |state| !state.finished());
    }

    /// Starts a re-index of every library that a crash left half re-indexed, and goes on with
    /// every batch that still has files to check.
    pub fn resume_unfinished(&self) {
        match self.catalog.batches().unfinished() {
            Ok(batches) => {
                for batch in batches {
                    if let Err(e) = self.start_batch(&batch.job, JobTrigger::Resume) {
                        tracing::warn!(job = %batch.job, error = %e, "could not resume a batch");
                    }
                }
            }
            Err(e) => tracing::error!(error = %e, "the unfinished batches could not be read"),
        }
        self.resume_interrupted_reindexes();
        for id in self.library_ids() {
            let unfinished_dedup = self
                .catalog
                .store(&id)
                .is_ok_and(|store| crate::dedup::has_unfinished(store.as_ref()));
            if !unfinished_dedup {
                continue;
            }
            match self.start_dedup(&id, JobTrigger::Resume) {
                // Another process on the same database runs (or resumed) it.
                Ok(_) | Err(LibraryError::JobRunningElsewhere { .. }) => {}
                Err(e) => tracing::warn!(library = %id, error = %e, "could not resume a dedup job"),
            }
        }
    }

    /// Every library's id for a background sweep: none when they cannot be listed now (the
    /// failure is logged; the next sweep tries again).
    fn library_ids(&self) -> Vec<String> {
        self.catalog.ids().unwrap_or_else(|e| {
            tracing::error!(error = %e, "the libraries could not be listed");
            Vec::new()
        })
    }

    /// Starts a re-index of every library whose last one was interrupted (not paused by an
    /// operator) and which no process re-indexes now: the resume sweep.
    pub fn resume_interrupted_reindexes(&self) {
        for id in self.library_ids() {
            let interrupted = self
                .catalog
                .store(&id)
                .and_then(|store| Ok(store.unfinished_reindex()?))
                .is_ok_and(|unfinished| unfinished == UnfinishedReindex::Interrupted);
            if !interrupted {
                continue;
            }
            match self.start_reindex(&id, JobTrigger::Resume) {
                Ok(_) | Err(LibraryError::JobRunningElsewhere { .. }) => {}
                Err(e) if e.is_not_found() => {}
                Err(e) => tracing::warn!(library = %id, error = %e, "could not resume a re-index"),
            }
        }
    }

    /// Starts a re-index of every library whose drift passed `reindex.auto_drift` (not one
    /// whose re-index an operator paused).
    pub fn reindex_drifted(&self) {
        let settings = self.settings();
        if settings.auto_drift <= 0.0 {
            return;
        }
        let every = !self.drift_swept.swap(true, Ordering::Relaxed);
        for id in self.library_ids() {
            if !every && !self.catalog.storage().is_open(&id) {
                continue;
            }
            let Ok(store) = self.catalog.store(&id) else {
                continue;
            };
            let (Ok(summary), Ok(unfinished)) = (store.summary(), store.unfinished_reindex())
            else {
                continue;
            };
            if summary.documents >= settings.auto_min_documents
                && summary.drift > settings.auto_drift
                && unfinished != UnfinishedReindex::Paused
            {
                match self.start_reindex(&id, JobTrigger::Drift) {
                    Ok(_) | Err(LibraryError::JobRunningElsewhere { .. }) => {}
                    Err(e) => {
                        tracing::warn!(library = %id, error = %e, "could not start a re-index")
                    }
                }
            }
        }
    }

    /// Goes on with every running batch that has a file no process holds and that this
    /// process does not run now: on a shared database, one another process left when it was
    /// killed (or one it checks, whose files the two then share).
    pub fn resume_batches(&self) {
        let batches = match self.catalog.batches().unfinished() {
            Ok(batches) => batches,
            Err(e) => {
                tracing::error!(error = %e, "the unfinished batches could not be read");
                return;
            }
        };
        for batch in batches {
            let running_here = self
                .find(&batch.job)
                .is_some_and(|job| !job.status().state.finished());
            if running_here
                || !self
                    .catalog
                    .batches()
                    .claimable(&batch.job)
                    .unwrap_or(false)
            {
                continue;
            }
            if let Err(e) = self.start_batch(&batch.job, JobTrigger::Resume) {
                tracing::warn!(job = %batch.job, error = %e, "could not resume a batch");
            }
        }
    }

    /// Runs the resume sweep every `reindex.resume_interval_secs` until the process ends: on a
    /// shared database, a re-index or a batch another process left unfinished is taken over.
    pub async fn watch_unfinished(self: Arc<Self>) {
        let seconds = self.settings().resume_interval_secs;
        self.sweep_every(seconds, |jobs: &Jobs| {
            jobs.resume_interrupted_reindexes();
            jobs.resume_batches();
        })
        .await
    }

    /// Looks at the libraries' drift every `reindex.check_interval_secs` until the process ends.
    pub async fn watch_drift(self: Arc<Self>) {
        let seconds = self.settings().check_interval_secs;
        self.sweep_every(seconds, Jobs::reindex_drifted).await
    }

    /// Runs `sweep` on the blocking pool every `seconds` (at least one), the first time after
    /// one period, until the process ends.
    async fn sweep_every(self: Arc<Self>, seconds: u64, sweep: fn(&Jobs)) {
        let mut ticks = tokio::time::interval(Duration::from_secs(seconds.max(1)));
        ticks.tick().await;
        loop {
            ticks.tick().await;
            let jobs = self.clone();
            let _ = tokio::task::spawn_blocking(move || sweep(&jobs)).await;
        }
    }
}

fn run_reindex(
    job: &Job,
    store: &dyn LibraryStore,
    mut claim: Box<dyn ReindexClaim>,
    settings: &ReindexConfig,
) {
    let library = job.status().library;
    // An operator's abort pauses what is left unfinished, whether the job ran or was queued
    // behind another (a resumed generation it was about to take up).
    let pause_if_asked = |claim: &mut Box<dyn ReindexClaim>| {
        if job.pause.load(Ordering::Relaxed)
            && let Err(e) = claim.set_paused(true)
        {
            tracing::error!(%library, error = %e, "could not mark the aborted re-index paused");
        }
    };
    if job.cancel.load(Ordering::Relaxed) {
        pause_if_asked(&mut claim);
        drop(claim);
        job.update(|s| {
            s.state = JobState::Aborted;
            s.finished_at = Some(unix_now());
        });
        return;
    }
    job.update(|s| {
        s.state = JobState::Running;
        if let Ok(summary) = store.summary() {
            s.total = summary.documents;
        }
    });
    let control = RebuildControl {
        cancel: Some(&job.cancel),
        max_docs_per_second: settings.max_docs_per_second,
        commit_every: settings.commit_every,
    };
    let outcome = claim.reindex(&control, &mut |done| {
        job.done.store(done, Ordering::Relaxed)
    });
    if matches!(outcome, Ok(RebuildOutcome::Cancelled { .. })) {
        pause_if_asked(&mut claim);
    }
    // The claim goes before the job says it has finished: whoever sees it finished may claim.
    drop(claim);
    job.update(|s| {
        s.finished_at = Some(unix_now());
        match outcome {
            Ok(RebuildOutcome::Finished { generation }) => {
                s.state = JobState::Done;
                s.generation = Some(generation);
                tracing::info!(job = %s.job, %library, generation, "re-index done");
            }
            Ok(RebuildOutcome::Cancelled { generation, signed }) => {
                s.state = JobState::Aborted;
                s.generation = Some(generation);
                tracing::info!(job = %s.job, %library, generation, signed, "re-index aborted");
            }
            Err(e) => {
                s.state = JobState::Failed;
                tracing::error!(job = %s.job, %library, error = %e, "re-index failed");
                s.error = Some(e.to_string());
            }
        }
    });
}

/// The right a job runs under, taken before it is queued so that a job running elsewhere is
/// refused at once.
enum Claim {
    Reindex(Box<dyn ReindexClaim>),
    Dedup(crate::dedup::DedupClaim),
}

fn run_dedup(job: &Job, catalog: &Catalog, claim: &crate::dedup::DedupClaim) {
    let library = job.status().library;
    if job.cancel.load(Ordering::Relaxed) {
        job.update(|s| {
            s.state = JobState::Aborted;
            s.finished_at = Some(unix_now());
        });
        return;
    }
    job.update(|s| s.state = JobState::Running);
    let control = crate::dedup::DedupControl {
        cancel: Some(&job.cancel),
    };
    let outcome = crate::dedup::run_claimed(catalog, claim, &control, |done, total| {
        job.done.store(done, Ordering::Relaxed);
        job.update(|s| s.total = total);
    });
    job.update(|s| {
        s.finished_at = Some(unix_now());
        match outcome {
            Ok(crate::dedup::DedupOutcome::Finished { .. }) => s.state = JobState::Done,
            Ok(crate::dedup::DedupOutcome::Cancelled { .. }) => s.state = JobState::Aborted,
            Err(e) => {
                s.state = JobState::Failed;
                tracing::error!(job = %s.job, %library, error = %e, "dedup job failed");
                s.error = Some(e.to_string());
            }
        }
    });
}

fn run_batch(job: &Job, catalog: &Catalog, stopping: &AtomicBool) {
    let name = job.status().job;
    job.update(|s| s.state = JobState::Running);
    let control = crate::batch::BatchControl {
        cancel: &job.cancel,
        stopping,
        done: &job.done,
    };
    let outcome = crate::batch::run_batch(catalog, &name, &control);
    job.update(|s| {
        s.finished_at = Some(unix_now());
        match outcome {
            Ok(crate::batch::BatchState::Aborted | crate::batch::BatchState::Running) => {
                s.state = JobState::Aborted;
            }
            Ok(_) => {
                s.state = JobState::Done;
                tracing::info!(job = %s.job, files = s.total, "batch done");
            }
            Err(e) => {
                s.state = JobState::Failed;
                tracing::error!(job = %s.job, error = %e, "batch failed");
                s.error = Some(e.to_string());
            }
        }
    });
}

/// Drops the oldest finished jobs beyond [`KEPT_FINISHED`].
fn forget_old(table: &mut BTreeMap<u64, Arc<Job>>) {
    let finished: Vec<u64> = table
        .iter()
        .filter(|(_, job)| job.status.lock().state.finished())
        .map(|(number, _)| *number)
        .collect();
    let excess = finished.len().saturating_sub(KEPT_FINISHED);
    for number in finished.into_iter().take(excess) {
        table.remove(&number);
    }
}
