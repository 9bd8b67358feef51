//! The dedup job: every live document of a library checked against the library (the check's
//! own candidate generation and verification, never all pairs), its matches appended to
//! `edges.jsonl`, then the clusters built from the edges. Documents go in the order of their
//! keys; a checkpoint every `dedup.checkpoint_every` documents records the last key done and
//! the length of the edges file, so an aborted or killed job resumes from there.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use super::DedupError;
use super::clusters::{ClusterSet, Link};
use super::store::{Checkpoint, DedupStore, EdgeRecord, EdgeVerdict, Sync, append_lines};
use crate::check::check_stored;
use crate::clock::unix_now;
use crate::index::{DocKey, LibraryIndex};
use crate::library::Catalog;

/// Documents handed to a checking thread at a time.
const CHUNK: usize = 64;

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

/// Whether a dedup job of the library `index` was stopped before it finished.
pub fn has_unfinished(index: &LibraryIndex) -> bool {
    DedupStore::of(index)
        .checkpoint()
        .is_ok_and(|c| c.is_some())
}

/// Finds the duplicates inside `library`, resuming an unfinished run; `progress` is told the
/// documents done and the total as they go.
pub fn run_dedup(
    catalog: &Catalog,
    library: &str,
    control: &DedupControl<'_>,
    progress: impl Fn(u64, u64),
) -> Result<DedupOutcome, DedupError> {
    let index = catalog.index(library)?;
    let store = DedupStore::of(&index);
    let settings = &catalog.config().dedup;
    let lock = store.lock();
    let checkpoint = {
        let _guard = lock.lock();
        match store.checkpoint()? {
            Some(checkpoint) => {
                tracing::info!(library, done = checkpoint.done, "resuming a dedup job");
                checkpoint
            }
            None => {
                // A fresh run: what arrivals found so far is found again by this run.
                store.open_cut(&store.arrivals_path(), 0)?;
                let checkpoint = Checkpoint {
                    last_key: None,
                    done: 0,
                    edges_bytes: 0,
                    started_at: unix_now(),
                };
                store.save_checkpoint(&checkpoint)?;
                checkpoint
            }
        }
    };
    let edges_path = store.edges_path();
    let edges_file = store.open_cut(&edges_path, checkpoint.edges_bytes)?;
    let mut keys = index.view().keys()?;
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
        store: &store,
        file: edges_file,
        path: edges_path.clone(),
        checkpoint,
        since_checkpoint: 0,
        every: settings.checkpoint_every.max(1),
        edges: 0,
    };
    let outcome = std::thread::scope(|scope| -> Result<Option<()>, DedupError> {
        for _ in 0..threads {
            let sender = sender.clone();
            let (chunks, next, stop, index) = (&chunks, &next, &stop, &index);
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
                    let found = check_chunk(catalog, library, index, chunk);
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
    drop(state);

    let mut cache = lock.lock();
    let set = build_clusters(catalog, &index, &store)?;
    let clusters = set.clusters.len();
    store.save_clusters(&mut cache, set)?;
    store.clear_checkpoint()?;
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
    index: &LibraryIndex,
    chunk: &[DocKey],
) -> Result<Vec<EdgeRecord>, DedupError> {
    let view = index.view();
    let mut edges = Vec::new();
    for key in chunk {
        let checked = match check_stored(catalog, library, &view, *key) {
            Ok(Some(checked)) => checked,
            Ok(None) => continue,
            // A stored text the current limits refuse (they were changed since it was
            // ingested) cannot be checked; it is no reason to stop the job.
            Err(crate::check::CheckError::Text(e)) => {
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
    file: std::fs::File,
    path: std::path::PathBuf,
    checkpoint: Checkpoint,
    since_checkpoint: u64,
    every: u64,
    edges: u64,
}

impl Written<'_> {
    fn write(&mut self, edges: &[EdgeRecord], chunk: &[DocKey]) -> Result<(), DedupError> {
        let file = self.file.try_clone().map_err(DedupError::io(&self.path))?;
        append_lines(file, &self.path, edges, Sync::Now)?;
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
        self.checkpoint.edges_bytes = self
            .file
            .metadata()
            .map_err(DedupError::io(&self.path))?
            .len();
        self.since_checkpoint = 0;
        self.store.save_checkpoint(&self.checkpoint)
    }
}

/// The clusters of every edge found by the job and by arrivals since it started, one link per
/// pair (the stronger verdict, the higher similarity), live documents only.
pub(super) fn build_clusters(
    catalog: &Catalog,
    index: &LibraryIndex,
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
    store.read_edges(&store.edges_path(), &mut add)?;
    store.read_edges(&store.arrivals_path(), &mut add)?;
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
    let view = index.view();
    let lookup = |doc: &str| view.document(doc).ok().flatten();
    Ok(ClusterSet::build(
        links,
        catalog.config().dedup.canonical,
        &lookup,
    ))
}
