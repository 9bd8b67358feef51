//! The dedup job: every live document of a library checked against the library (the check's
//! own candidate generation and verification, never all pairs), its matches appended to the
//! edge log, then the clusters built from the edges. Documents go in the order of their keys; a
//! checkpoint every `dedup.checkpoint_every` documents records the last key done and the mark of
//! the edge log, so an aborted or killed job resumes from there.
//!
//! The job reads the library through the storage seam, so it runs on either backend. It runs
//! under a claim (see [`claim_dedup`]): on a shared database, once across every process.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use super::DedupError;
use super::clusters::{ClusterSet, Link};
use super::store::{Checkpoint, DedupStore, EdgeRecord, EdgeVerdict, Log, Sync};
use crate::library::{Catalog, JobKind, LibraryError};
use dupfinder_check::check_stored;
use dupfinder_common::clock::unix_now;
use dupfinder_storage::index::{DocKey, StoredDocument};
use dupfinder_storage::{Held, LibraryStore};

/// Documents handed to a checking thread at a time.
const CHUNK: usize = 64;
/// Documents read in one go to build the clusters.
const LOOKUP_BATCH: usize = 500;

/// How a job may be stopped.
#[derive(Default)]
pub struct DedupControl<'a> {
    /// Set to stop at the next chunk; what was checked is kept for the next run.
    pub cancel: Option<&'a AtomicBool>,
}

/// How a job ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DedupOutcome {
    Finished {
        documents: u64,
        edges: u64,
        clusters: usize,
    },
    /// Stopped on request after `done` documents; the next run resumes.
    Cancelled { done: u64 },
}

/// Whether a dedup job of the library `store` was stopped before it finished.
pub fn has_unfinished(store: &dyn LibraryStore) -> bool {
    DedupStore::of(store)
        .checkpoint()
        .is_ok_and(|c| c.is_some())
}

/// The right to run the dedup job of one library, held until dropped.
pub struct DedupClaim {
    library: String,
    store: Arc<dyn LibraryStore>,
    dedup: DedupStore,
    _held: Held,
}

/// Claims the right to run the dedup job of `library`: refused with
/// [`LibraryError::JobRunningElsewhere`] while another process serving the same database runs
/// it.
pub fn claim_dedup(catalog: &Catalog, library: &str) -> Result<DedupClaim, LibraryError> {
    let store = catalog.store(library)?;
    let dedup = DedupStore::of(store.as_ref());
    let Some(held) = dedup.claim_job()? else {
        return Err(LibraryError::JobRunningElsewhere {
            library: library.to_string(),
            job: JobKind::Dedup,
        });
    };
    Ok(DedupClaim {
        library: library.to_string(),
        store,
        dedup,
        _held: held,
    })
}

/// Finds the duplicates inside `library`, resuming an unfinished run; `progress` is told the
/// documents done and the total as they go.
pub fn run_dedup(
    catalog: &Catalog,
    library: &str,
    control: &DedupControl<'_>,
    progress: impl Fn(u64, u64),
) -> Result<DedupOutcome, DedupError> {
    let claim = claim_dedup(catalog, library)?;
    run_claimed(catalog, &claim, control, progress)
}

/// [`run_dedup`] under a claim taken before.
pub fn run_claimed(
    catalog: &Catalog,
    claim: &DedupClaim,
    control: &DedupControl<'_>,
    progress: impl Fn(u64, u64),
) -> Result<DedupOutcome, DedupError> {
    let (library, store, dedup) = (claim.library.as_str(), &claim.store, &claim.dedup);
    let settings = &catalog.config().dedup;
    let lock = dedup.lock();
    let checkpoint = {
        let _guard = lock.lock();
        let _shared = dedup.hold()?;
        match dedup.checkpoint()? {
            Some(checkpoint) => {
                tracing::info!(library, done = checkpoint.done, "resuming a dedup job");
                checkpoint
            }
            None => {
                // A fresh run: what arrivals found so far is found again by this run.
                dedup.cut(Log::Arrivals, 0)?;
                let checkpoint = Checkpoint {
                    last_key: None,
                    done: 0,
                    edges_mark: 0,
                    started_at: unix_now(),
                };
                dedup.save_checkpoint(&checkpoint)?;
                checkpoint
            }
        }
    };
    dedup.cut(Log::Edges, checkpoint.edges_mark)?;
    let mut keys = store.view()?.keys()?;
    keys.sort_unstable();
    if let Some(last) = checkpoint.last_key {
        keys.retain(|k| k.0 > last);
    }
    let total = checkpoint.done + keys.len() as u64;
    progress(checkpoint.done, total);

    let threads = match settings.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    let chunks: Vec<&[DocKey]> = keys.chunks(CHUNK).collect();
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let cancelled = || control.cancel.is_some_and(|c| c.load(Ordering::Relaxed));
    let (sender, receiver) =
        mpsc::sync_channel::<(usize, Result<Vec<EdgeRecord>, DedupError>)>(threads * 4);
    let mut state = Written {
        store: dedup,
        checkpoint,
        since_checkpoint: 0,
        every: settings.checkpoint_every.max(1),
        edges: 0,
    };
    let outcome = std::thread::scope(|scope| -> Result<Option<()>, DedupError> {
        for _ in 0..threads {
            let sender = sender.clone();
            let (chunks, next, stop) = (&chunks, &next, &stop);
            let store = store.as_ref();
            scope.spawn(move || {
                // Each thread reads through its own view: a view is not shared across threads.
                loop {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let number = next.fetch_add(1, Ordering::Relaxed);
                    let Some(chunk) = chunks.get(number) else {
                        return;
                    };
                    let found = check_chunk(catalog, library, store, chunk);
                    if sender.send((number, found)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(sender);
        // Chunks are written in order, so the checkpoint's last key covers every key before it.
        let mut pending: BTreeMap<usize, Vec<EdgeRecord>> = BTreeMap::new();
        let mut expected = 0usize;
        let mut failure = None;
        for (number, found) in receiver.iter() {
            match found {
                Ok(edges) => {
                    pending.insert(number, edges);
                }
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
            while let Some(edges) = pending.remove(&expected) {
                if let Err(e) = state.write(&edges, chunks[expected]) {
                    failure = Some(e);
                    break;
                }
                expected += 1;
                progress(state.checkpoint.done, total);
                if cancelled() {
                    break;
                }
            }
            if failure.is_some() || cancelled() {
                break;
            }
        }
        // The threads stop at their next chunk; a thread waiting to send learns the receiver
        // is gone.
        stop.store(true, Ordering::Relaxed);
        drop(receiver);
        if let Some(e) = failure {
            state.save()?;
            return Err(e);
        }
        if expected < chunks.len() {
            state.save()?;
            return Ok(None);
        }
        Ok(Some(()))
    })?;
    if outcome.is_none() {
        tracing::info!(library, done = state.checkpoint.done, "dedup job stopped");
        return Ok(DedupOutcome::Cancelled {
            done: state.checkpoint.done,
        });
    }
    state.save()?;
    let documents = state.checkpoint.done;
    let edges = state.edges;

    let mut cache = lock.lock();
    let _shared = dedup.hold()?;
    let set = build_clusters(catalog, store.as_ref(), dedup)?;
    let clusters = set.clusters.len();
    dedup.save_clusters(&mut cache, set)?;
    dedup.clear_checkpoint()?;
    tracing::info!(library, documents, clusters, "dedup job done");
    Ok(DedupOutcome::Finished {
        documents,
        edges,
        clusters,
    })
}

/// The edges found by checking each document of `chunk`.
fn check_chunk(
    catalog: &Catalog,
    library: &str,
    store: &dyn LibraryStore,
    chunk: &[DocKey],
) -> Result<Vec<EdgeRecord>, DedupError> {
    let view = store.view()?;
    let mut edges = Vec::new();
    for key in chunk {
        let checked = match check_stored(&catalog.checker(), library, view.as_ref(), *key) {
            Ok(Some(checked)) => checked,
            Ok(None) => continue,
            // A stored text the current limits refuse (they were changed since it was
            // ingested) cannot be checked; it is no reason to stop the job.
            Err(dupfinder_check::CheckError::Text(e)) => {
                tracing::warn!(library, key = key.0, error = %e, "document skipped by dedup");
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        let settings = &catalog.config().dedup;
        edges.extend(checked.matches.iter().filter_map(|found| {
            EdgeRecord::of(&checked.doc_id, checked.title.as_deref(), found, settings)
        }));
    }
    Ok(edges)
}

/// The job's writes and its checkpoint.
struct Written<'a> {
    store: &'a DedupStore,
    checkpoint: Checkpoint,
    since_checkpoint: u64,
    every: u64,
    edges: u64,
}

impl Written<'_> {
    fn write(&mut self, edges: &[EdgeRecord], chunk: &[DocKey]) -> Result<(), DedupError> {
        self.store.append(Log::Edges, edges, Sync::Now)?;
        self.edges += edges.len() as u64;
        self.checkpoint.done += chunk.len() as u64;
        self.checkpoint.last_key = chunk.last().map(|k| k.0).or(self.checkpoint.last_key);
        self.since_checkpoint += chunk.len() as u64;
        if self.since_checkpoint >= self.every {
            self.save()?;
        }
        Ok(())
    }

    fn save(&mut self) -> Result<(), DedupError> {
        self.checkpoint.edges_mark = self.store.mark(Log::Edges)?;
        self.since_checkpoint = 0;
        self.store.save_checkpoint(&self.checkpoint)
    }
}

/// The clusters of every edge found by the job and by arrivals since it started, one link per
/// pair (the stronger verdict, the higher similarity), live documents only.
pub(super) fn build_clusters(
    catalog: &Catalog,
    library: &dyn LibraryStore,
    store: &DedupStore,
) -> Result<ClusterSet, DedupError> {
    let mut pairs: HashMap<(String, String), (EdgeVerdict, f64, bool)> = HashMap::new();
    let mut add = |edge: EdgeRecord| {
        let link = Link::of(&edge);
        let entry =
            pairs
                .entry((link.a, link.b))
                .or_insert((edge.verdict, edge.similarity, edge.strong));
        entry.0 = entry.0.max(edge.verdict);
        entry.1 = entry.1.max(edge.similarity);
        entry.2 |= edge.strong;
    };
    store.read_log(Log::Edges, &mut add)?;
    store.read_log(Log::Arrivals, &mut add)?;
    let links: Vec<Link> = pairs
        .into_iter()
        .map(|((a, b), (verdict, similarity, strong))| Link {
            a,
            b,
            verdict,
            similarity,
            strong,
        })
        .collect();
    let documents = read_documents(library, &links)?;
    let lookup = |doc: &str| documents.get(doc).cloned();
    Ok(ClusterSet::build(
        links,
        catalog.config().dedup.canonical,
        &lookup,
    ))
}

/// The live documents at either end of `links`, read in batches: one round trip per batch on a
/// database rather than one per document.
fn read_documents(
    library: &dyn LibraryStore,
    links: &[Link],
) -> Result<HashMap<String, StoredDocument>, DedupError> {
    let mut ids: Vec<&str> = links
        .iter()
        .flat_map(|link| [link.a.as_str(), link.b.as_str()])
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let view = library.view()?;
    let mut documents = HashMap::with_capacity(ids.len());
    for batch in ids.chunks(LOOKUP_BATCH) {
        let keys: Vec<DocKey> = batch.iter().map(|id| DocKey::of(id)).collect();
        for (id, found) in batch.iter().zip(view.stored_each(&keys)?) {
            if let Some(document) = found {
                documents.insert(id.to_string(), document);
            }
        }
    }
    Ok(documents)
}
