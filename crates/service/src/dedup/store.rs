//! A library's dedup state: the edges a job found and those arrivals found, both logs of JSON
//! lines appended as they come; the job's checkpoint; the clusters (a document replaced whole,
//! with a log of the changes since); the alerts (a log). One code path over two places (see
//! [`Kept`]): on tantivy, files of the library's `dedup/` directory (`edges.jsonl`,
//! `clusters.json`, …); on PostgreSQL, rows of `dedup_documents` and `dedup_lines`, so that
//! every process serving the database sees the same clusters and alerts.
//!
//! One lock per library in each process serializes the job's start and finish, arrivals and
//! deletions; on a database an advisory lock does the same across processes, and another keeps
//! a job from running twice.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::DedupConfig;
use super::DedupError;
use super::clusters::{Change, ClusterSet};
use crate::library::Catalog;
use dupfinder_check::{MatchReport, Verdict};
use dupfinder_storage::index::IndexError;
use dupfinder_storage::{Held, Kept, KeptLock, KeptRows, LibraryStore};

/// The verdict of an edge: only matches are edges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EdgeVerdict {
    Partial,
    Duplicate,
}

impl EdgeVerdict {
    /// The edge verdict of a check verdict; an original is no edge.
    pub fn of(verdict: Verdict) -> Option<EdgeVerdict> {
        match verdict {
            Verdict::Duplicate => Some(EdgeVerdict::Duplicate),
            Verdict::Partial => Some(EdgeVerdict::Partial),
            Verdict::Original => None,
        }
    }
}

/// One match found by checking document `a`: `b` and how similar.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EdgeRecord {
    pub a: String,
    pub b: String,
    pub verdict: EdgeVerdict,
    pub similarity: f64,
    /// A `duplicate` strong enough to join clusters (see [`DedupConfig`]); other matches only
    /// relate two documents.
    #[serde(default)]
    pub strong: bool,
}

impl EdgeRecord {
    /// The edge of a match found by checking `doc_id` (titled `title`); `None` when the match
    /// is no edge. Two editions of a series (titles the same but for their numbers) are only
    /// related, however close their texts: a shared task's yearly overview reuses last year's.
    pub fn of(
        doc_id: &str,
        title: Option<&str>,
        found: &MatchReport,
        settings: &DedupConfig,
    ) -> Option<EdgeRecord> {
        let verdict = EdgeVerdict::of(found.verdict)?;
        let editions = match (title, found.title.as_deref()) {
            (Some(a), Some(b)) => settings.editions_apart && editions_of_a_series(a, b),
            _ => false,
        };
        Some(EdgeRecord {
            a: doc_id.to_string(),
            b: found.doc_id.clone(),
            verdict,
            similarity: found.similarity(),
            strong: verdict == EdgeVerdict::Duplicate
                && settings.joins_clusters(found)
                && !editions,
        })
    }
}

/// Whether two titles name editions of one series: their numbers (years, edition numbers,
/// ordinals) differ, and the words of the shorter one, numbers and function words left out, are
/// nearly all in the other ("Findings of the 2022 Conference on Machine Translation (WMT22)"
/// and "… 2023 … (WMT23): LLMs Are Here", "Overview of the 3rd Workshop on Asian Translation"
/// and "… the 4th …", "The First … Shared Task (SR'18)" and "The Second … (SR'19)").
fn editions_of_a_series(a: &str, b: &str) -> bool {
    let (a, b) = (TitleWords::of(a), TitleWords::of(b));
    let (shorter, longer) = if a.words.len() <= b.words.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    if shorter.words.len() < 3
        || a.numbers.is_empty()
        || b.numbers.is_empty()
        || a.numbers == b.numbers
    {
        return false;
    }
    let shared = shorter.words.intersection(&longer.words).count();
    shared * 5 >= shorter.words.len() * 4
}

/// A title's words and its numbers, lower-cased; runs of letters and runs of digits are words
/// of their own (`WMT22` is `wmt` and `22`).
struct TitleWords {
    words: std::collections::BTreeSet<String>,
    numbers: std::collections::BTreeSet<String>,
}

/// Words that number an edition.
const ORDINALS: [&str; 24] = [
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
    "eleventh", "twelfth", "st", "nd", "rd", "th", "ii", "iii", "iv", "vi", "vii", "viii", "ix",
    "xi",
];

/// Words too common in titles to tell two apart.
const FUNCTION_WORDS: [&str; 14] = [
    "the", "of", "for", "and", "on", "in", "at", "a", "an", "to", "with", "by", "и", "в",
];

impl TitleWords {
    fn of(title: &str) -> TitleWords {
        let mut words = std::collections::BTreeSet::new();
        let mut numbers = std::collections::BTreeSet::new();
        let lower = title.to_lowercase();
        let mut run = String::new();
        let mut flush = |run: &mut String| {
            if run.is_empty() {
                return;
            }
            let word = std::mem::take(run);
            if word.chars().all(|c| c.is_numeric()) || ORDINALS.contains(&word.as_str()) {
                numbers.insert(word);
            } else if !FUNCTION_WORDS.contains(&word.as_str()) {
                words.insert(word);
            }
        };
        let mut digits = false;
        for c in lower.chars() {
            if c.is_alphanumeric() {
                if !run.is_empty() && c.is_numeric() != digits {
                    flush(&mut run);
                }
                digits = c.is_numeric();
                run.push(c);
            } else {
                flush(&mut run);
            }
        }
        flush(&mut run);
        TitleWords { words, numbers }
    }
}

/// A document that arrived with matches already in its library.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Alert {
    pub library: String,
    pub doc_id: String,
    /// Seconds since the Unix epoch.
    pub time: u64,
    /// The cluster the document is in now, if it is a duplicate.
    pub cluster: Option<String>,
    pub matches: Vec<AlertMatch>,
}

/// One match of an arriving document.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AlertMatch {
    pub doc_id: String,
    pub verdict: EdgeVerdict,
    pub similarity: f64,
}

/// Where a dedup job stopped: every document key up to `last_key` is checked and its edges are
/// those of the edge log up to the mark `edges_mark` (see [`DedupStore::mark`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Checkpoint {
    pub(super) last_key: Option<u64>,
    pub(super) done: u64,
    /// Read from a checkpoint of an earlier release, where the mark was always bytes.
    #[serde(alias = "edges_bytes")]
    pub(super) edges_mark: u64,
    pub(super) started_at: u64,
}

/// Changes appended before the change log is folded into the clusters document.
const COMPACT_AFTER: usize = 1_000;

/// The clusters as last read or written, with the stamp of the state they reflect: checked
/// against the store at every access, so a library deleted and made again (or clusters changed
/// by another process) are read anew.
#[derive(Default)]
pub(super) struct Cache {
    set: Option<ClusterSet>,
    stamp: Option<Stamp>,
    changes: usize,
}

/// What the clusters were read from: lengths and modification times of `clusters.json` and
/// `changes.jsonl`, or the versions of their rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stamp {
    Files {
        base: Option<(u64, std::time::SystemTime)>,
        changes: Option<(u64, std::time::SystemTime)>,
    },
    Rows(Option<i64>, Option<i64>),
}

/// A JSON document of the store, replaced whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Doc {
    /// Where a running job stopped; there while a job is unfinished.
    Checkpoint,
    /// The last job's clusters, without the changes logged since.
    Clusters,
}

impl Doc {
    fn name(self) -> &'static str {
        match self {
            Doc::Checkpoint => "checkpoint",
            Doc::Clusters => "clusters",
        }
    }
}

/// A log of the store: JSON lines appended as they come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Log {
    /// The edges the job found.
    Edges,
    /// The edges documents arriving during a job found.
    Arrivals,
    /// Cluster changes since the clusters document was written.
    Changes,
    /// Arrivals with matches.
    Alerts,
}

impl Log {
    fn name(self) -> &'static str {
        match self {
            Log::Edges => "edges",
            Log::Arrivals => "arrivals",
            Log::Changes => "changes",
            Log::Alerts => "alerts",
        }
    }
}

/// Where a store's documents and logs are.
#[derive(Clone)]
enum Place {
    /// The library's `dedup/` directory: `<doc>.json` and `<log>.jsonl` files.
    Folder(PathBuf),
    /// The library's rows of the database.
    Rows(Arc<dyn KeptRows>),
}

/// The dedup state of one library.
#[derive(Clone)]
pub struct DedupStore {
    place: Place,
}

impl DedupStore {
    /// The store of the library `store`.
    pub fn of(store: &dyn LibraryStore) -> DedupStore {
        let place = match store.kept() {
            Kept::Folder(dir) => Place::Folder(dir.join("dedup")),
            Kept::Rows(rows) => Place::Rows(rows),
        };
        DedupStore { place }
    }

    /// The lock every change of this store's clusters is made under in this process, with the
    /// clusters. On a database, take [`DedupStore::hold`] too, after it.
    pub(super) fn lock(&self) -> Arc<Mutex<Cache>> {
        static LOCKS: OnceLock<Mutex<HashMap<String, Arc<Mutex<Cache>>>>> = OnceLock::new();
        let key = match &self.place {
            Place::Folder(dir) => dir.display().to_string(),
            Place::Rows(rows) => rows.place(),
        };
        LOCKS
            .get_or_init(Default::default)
            .lock()
            .entry(key)
            .or_default()
            .clone()
    }

    /// The lock of cluster changes across every process serving the library's database, held
    /// until dropped; nothing for a folder, which is this process's own.
    pub(super) fn hold(&self) -> Result<Option<Held>, DedupError> {
        match &self.place {
            Place::Folder(_) => Ok(None),
            Place::Rows(rows) => Ok(rows.hold(KeptLock::DedupState, true)?),
        }
    }

    /// The right to run the library's dedup job, held until dropped; `None` when a job of the
    /// library runs in another process on the same database. In one process the job table
    /// keeps a job from running twice.
    pub(super) fn claim_job(&self) -> Result<Option<Held>, IndexError> {
        match &self.place {
            Place::Folder(_) => Ok(Some(Box::new(()))),
            Place::Rows(rows) => rows.hold(KeptLock::DedupJob, false),
        }
    }

    /// Where `name` is, for error messages.
    fn at(&self, name: &str) -> String {
        match &self.place {
            Place::Folder(dir) => dir.join(name).display().to_string(),
            Place::Rows(rows) => format!("{} {name}", rows.place()),
        }
    }

    fn ensure_dir(dir: &Path) -> Result<(), DedupError> {
        std::fs::create_dir_all(dir).map_err(DedupError::io(dir))
    }

    fn doc_path(dir: &Path, doc: Doc) -> PathBuf {
        dir.join(format!("{}.json", doc.name()))
    }

    fn log_path(dir: &Path, log: Log) -> PathBuf {
        dir.join(format!("{}.jsonl", log.name()))
    }

    fn read_doc<T: DeserializeOwned>(&self, doc: Doc) -> Result<Option<T>, DedupError> {
        match &self.place {
            Place::Folder(dir) => read_json(&Self::doc_path(dir, doc)),
            Place::Rows(rows) => rows
                .document(doc.name())?
                .map(|json| {
                    serde_json::from_str(&json).map_err(|e| DedupError::Corrupt {
                        at: self.at(doc.name()),
                        reason: e.to_string(),
                    })
                })
                .transpose(),
        }
    }

    /// Replaces the document `doc` with `value` (atomically and durably) and empties the logs
    /// `emptied`.
    fn write_doc<T: Serialize>(
        &self,
        doc: Doc,
        value: &T,
        emptied: &[Log],
    ) -> Result<(), DedupError> {
        match &self.place {
            Place::Folder(dir) => {
                Self::ensure_dir(dir)?;
                write_atomically(&Self::doc_path(dir, doc), value)?;
                for log in emptied {
                    remove_if_there(&Self::log_path(dir, *log))?;
                }
                Ok(())
            }
            Place::Rows(rows) => {
                let json = serde_json::to_string(value).map_err(|e| DedupError::Corrupt {
                    at: self.at(doc.name()),
                    reason: e.to_string(),
                })?;
                let emptied: Vec<&str> = emptied.iter().map(|log| log.name()).collect();
                Ok(rows.put_document(doc.name(), &json, &emptied)?)
            }
        }
    }

    fn remove_doc(&self, doc: Doc) -> Result<(), DedupError> {
        match &self.place {
            Place::Folder(dir) => remove_if_there(&Self::doc_path(dir, doc)),
            Place::Rows(rows) => Ok(rows.remove_document(doc.name())?),
        }
    }

    /// Whether the document `doc` is there.
    fn has_doc(&self, doc: Doc) -> Result<bool, DedupError> {
        match &self.place {
            Place::Folder(dir) => Ok(Self::doc_path(dir, doc).exists()),
            Place::Rows(rows) => Ok(rows.stamp(doc.name(), "")?.0.is_some()),
        }
    }

    /// Appends `items` to `log`; in a folder they reach the disk as `sync` says, in the
    /// database they are committed when this returns.
    pub(super) fn append<T: Serialize>(
        &self,
        log: Log,
        items: &[T],
        sync: Sync,
    ) -> Result<(), DedupError> {
        match &self.place {
            Place::Folder(dir) => {
                Self::ensure_dir(dir)?;
                append_to(&Self::log_path(dir, log), items, sync)
            }
            Place::Rows(rows) => {
                let lines = items
                    .iter()
                    .map(serde_json::to_string)
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| DedupError::Corrupt {
                        at: self.at(log.name()),
                        reason: e.to_string(),
                    })?;
                Ok(rows.append(log.name(), &lines)?)
            }
        }
    }

    /// Every line of `log`, in the order appended; `visit` sees each.
    pub(super) fn read_log<T: DeserializeOwned>(
        &self,
        log: Log,
        mut visit: impl FnMut(T),
    ) -> Result<(), DedupError> {
        match &self.place {
            Place::Folder(dir) => read_lines(&Self::log_path(dir, log), visit),
            Place::Rows(rows) => {
                let mut failure = None;
                rows.lines(log.name(), &mut |line| {
                    if failure.is_some() {
                        return;
                    }
                    match serde_json::from_str(&line) {
                        Ok(item) => visit(item),
                        Err(e) => failure = Some(e.to_string()),
                    }
                })?;
                match failure {
                    Some(reason) => Err(DedupError::Corrupt {
                        at: self.at(log.name()),
                        reason,
                    }),
                    None => Ok(()),
                }
            }
        }
    }

    /// A mark of `log` as it is now, which [`DedupStore::cut`] goes back to: its length in
    /// bytes in a folder, its last line's number in the database.
    pub(super) fn mark(&self, log: Log) -> Result<u64, DedupError> {
        match &self.place {
            Place::Folder(dir) => {
                let path = Self::log_path(dir, log);
                match std::fs::metadata(&path) {
                    Ok(meta) => Ok(meta.len()),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(0),
                    Err(e) => Err(DedupError::io(&path)(e)),
                }
            }
            Place::Rows(rows) => Ok(rows.mark(log.name())?),
        }
    }

    /// Cuts `log` back to `mark` (what a checkpoint vouches for); `0` empties it.
    pub(super) fn cut(&self, log: Log, mark: u64) -> Result<(), DedupError> {
        match &self.place {
            Place::Folder(dir) => {
                Self::ensure_dir(dir)?;
                let path = Self::log_path(dir, log);
                let file = OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&path)
                    .map_err(DedupError::io(&path))?;
                file.set_len(mark).map_err(DedupError::io(&path))
            }
            Place::Rows(rows) => Ok(rows.cut(log.name(), mark)?),
        }
    }

    fn stamp(&self) -> Result<Stamp, DedupError> {
        match &self.place {
            Place::Folder(dir) => {
                let of = |path: PathBuf| {
                    std::fs::metadata(path)
                        .ok()
                        .and_then(|m| Some((m.len(), m.modified().ok()?)))
                };
                Ok(Stamp::Files {
                    base: of(Self::doc_path(dir, Doc::Clusters)),
                    changes: of(Self::log_path(dir, Log::Changes)),
                })
            }
            Place::Rows(rows) => {
                let (base, changes) = rows.stamp(Doc::Clusters.name(), Log::Changes.name())?;
                Ok(Stamp::Rows(base, changes))
            }
        }
    }

    /// The clusters as the store holds them: the clusters document with the change log
    /// replayed.
    pub fn clusters_on_disk(&self) -> Result<Option<ClusterSet>, DedupError> {
        Ok(self.read_set()?.0)
    }

    fn read_set(&self) -> Result<(Option<ClusterSet>, usize), DedupError> {
        let Some(mut set) = self.read_doc::<ClusterSet>(Doc::Clusters)? else {
            return Ok((None, 0));
        };
        let mut changes = 0;
        self.read_log(Log::Changes, |change: Change| {
            set.apply(&change);
            changes += 1;
        })?;
        Ok((Some(set), changes))
    }

    /// The current clusters in `cache` (read when the store changed since).
    pub(super) fn current<'c>(
        &self,
        cache: &'c mut Cache,
    ) -> Result<Option<&'c mut ClusterSet>, DedupError> {
        // The stamp before the clusters: a change made between the two is read again next time.
        let stamp = self.stamp()?;
        if cache.stamp != Some(stamp) {
            let (set, changes) = self.read_set()?;
            *cache = Cache {
                set,
                stamp: Some(stamp),
                changes,
            };
        }
        Ok(cache.set.as_mut())
    }

    /// Appends `changes` (already made to the cached clusters) to the change log, and folds
    /// the log into the clusters document once it is long.
    pub(super) fn record(&self, cache: &mut Cache, changes: &[Change]) -> Result<(), DedupError> {
        if changes.is_empty() {
            return Ok(());
        }
        self.append(Log::Changes, changes, Sync::Soon)?;
        cache.changes += changes.len();
        cache.stamp = Some(self.stamp()?);
        if cache.changes >= COMPACT_AFTER
            && let Some(set) = cache.set.take()
        {
            self.save_clusters(cache, set)?;
        }
        Ok(())
    }

    /// Whether the library was deduplicated once or is being deduplicated.
    pub fn active(&self) -> Result<bool, DedupError> {
        Ok(self.has_doc(Doc::Clusters)? || self.has_doc(Doc::Checkpoint)?)
    }

    /// The clusters of the last finished job, kept current since; `None` before the first.
    pub fn clusters(&self) -> Result<Option<ClusterSet>, DedupError> {
        let state = self.lock();
        let mut cache = state.lock();
        Ok(self.current(&mut cache)?.cloned())
    }

    /// Writes `set` as the clusters document and empties the change log.
    pub(super) fn save_clusters(
        &self,
        cache: &mut Cache,
        set: ClusterSet,
    ) -> Result<(), DedupError> {
        self.write_doc(Doc::Clusters, &set, &[Log::Changes])?;
        *cache = Cache {
            set: Some(set),
            stamp: Some(self.stamp()?),
            changes: 0,
        };
        Ok(())
    }

    /// Whether a dedup job is under way (its checkpoint is there).
    pub(super) fn job_running(&self) -> Result<bool, DedupError> {
        self.has_doc(Doc::Checkpoint)
    }

    pub(super) fn checkpoint(&self) -> Result<Option<Checkpoint>, DedupError> {
        self.read_doc(Doc::Checkpoint)
    }

    pub(super) fn save_checkpoint(&self, checkpoint: &Checkpoint) -> Result<(), DedupError> {
        self.write_doc(Doc::Checkpoint, checkpoint, &[])
    }

    pub(super) fn clear_checkpoint(&self) -> Result<(), DedupError> {
        self.remove_doc(Doc::Checkpoint)
    }

    pub(super) fn add_alert(&self, alert: &Alert) -> Result<(), DedupError> {
        self.append(Log::Alerts, std::slice::from_ref(alert), Sync::Soon)
    }

    /// Every alert of this library, oldest first.
    pub fn alerts(&self) -> Result<Vec<Alert>, DedupError> {
        let mut alerts = Vec::new();
        self.read_log(Log::Alerts, |alert| alerts.push(alert))?;
        Ok(alerts)
    }
}

/// The alerts of every library (or of `library`), newest first.
pub fn alerts(catalog: &Catalog, library: Option<&str>) -> Result<Vec<Alert>, DedupError> {
    let ids = match library {
        Some(id) => vec![id.to_string()],
        None => catalog.ids()?,
    };
    let mut all = Vec::new();
    for id in ids {
        let store = match catalog.store(&id) {
            Ok(store) => store,
            // Deleted (by another process) since it was listed.
            Err(e) if library.is_none() && e.is_not_found() => continue,
            Err(e) => return Err(e.into()),
        };
        all.extend(DedupStore::of(store.as_ref()).alerts()?);
    }
    // Stable: alerts of one second keep their file order, reversed.
    all.reverse();
    all.sort_by_key(|alert| std::cmp::Reverse(alert.time));
    Ok(all)
}

/// When an append to a file reaches the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sync {
    /// Before the append returns: what a job's checkpoint vouches for.
    Now,
    /// Within a second (`durable`'s `SYNC_SOON`): an arrival's alert and cluster change, which a
    /// kill never loses and a power cut loses only for the last second (the next job finds
    /// those duplicates again), so that an ingest does not wait for a disk flush.
    Soon,
}

/// Appends `items` to the JSON Lines file at `path`, creating it.
fn append_to<T: Serialize>(path: &Path, items: &[T], sync: Sync) -> Result<(), DedupError> {
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(DedupError::io(path))?;
    let mut out = BufWriter::new(file);
    for item in items {
        serde_json::to_writer(&mut out, item).map_err(|e| DedupError::Io {
            path: path.to_path_buf(),
            source: e.into(),
        })?;
        out.write_all(b"\n").map_err(DedupError::io(path))?;
    }
    out.flush().map_err(DedupError::io(path))?;
    match sync {
        Sync::Now => out.get_ref().sync_data().map_err(DedupError::io(path)),
        Sync::Soon => {
            dupfinder_common::durable::sync_soon(path);
            Ok(())
        }
    }
}

/// Removes the file at `path`, if it is there.
fn remove_if_there(path: &Path) -> Result<(), DedupError> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(DedupError::io(path)(e)),
        _ => Ok(()),
    }
}

/// Reads a JSON Lines file; a missing file has no lines. A last line cut short by a kill is
/// ignored (its document is checked again on resume); a damaged line elsewhere is an error.
fn read_lines<T: DeserializeOwned>(
    path: &Path,
    mut visit: impl FnMut(T),
) -> Result<(), DedupError> {
    let file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(DedupError::io(path)(e)),
    };
    let mut lines = BufReader::new(file).lines().peekable();
    let mut number = 0usize;
    while let Some(line) = lines.next() {
        number += 1;
        let line = line.map_err(DedupError::io(path))?;
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str(&line) {
            Ok(item) => visit(item),
            Err(_) if lines.peek().is_none() => break,
            Err(e) => {
                return Err(DedupError::Corrupt {
                    at: path.display().to_string(),
                    reason: format!("line {number}: {e}"),
                });
            }
        }
    }
    Ok(())
}

fn read_json<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, DedupError> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(DedupError::io(path)(e)),
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| DedupError::Corrupt {
            at: path.display().to_string(),
            reason: e.to_string(),
        })
}

/// Writes `value` beside `path`, syncs it, and renames it over `path`: a reader sees the old
/// file or the new one, never half of one.
fn write_atomically<T: Serialize>(path: &Path, value: &T) -> Result<(), DedupError> {
    let bytes = serde_json::to_vec(value).map_err(|e| DedupError::Corrupt {
        at: path.display().to_string(),
        reason: e.to_string(),
    })?;
    dupfinder_common::durable::write_atomically(path, &bytes).map_err(DedupError::io(path))
}

#[cfg(test)]
mod tests {
    use super::editions_of_a_series;

    #[test]
    fn titles_the_same_but_for_their_numbers_are_editions_of_a_series() {
        for (a, b) in [
            (
                "Findings of the 2022 Conference on Machine Translation (WMT22)",
                "Findings of the 2023 Conference on Machine Translation (WMT23)",
            ),
            (
                "Overview of the 7th Workshop on Asian Translation",
                "Overview of the 8th Workshop on Asian Translation",
            ),
            (
                "Итоги конкурса 2019 года по поиску заимствований",
                "Итоги конкурса 2020 года по поиску заимствований",
            ),
        ] {
            assert!(editions_of_a_series(a, b), "{a} / {b}");
        }
        for (a, b) in [
            // The same title: a version of one work, not another edition.
            (
                "Neural Parsing of Legal Texts",
                "Neural parsing of legal texts.",
            ),
            // Other words: not a series (a retitled copy stays a duplicate).
            (
                "Neural Parsing of Legal Texts 2",
                "Dependency Grammars for Contracts in Court 3",
            ),
            // No numbers, or the same ones: a retitled copy, not another edition.
            (
                "Neural Parsing of Legal Texts",
                "Neural Parsing of Legal Texts Revisited",
            ),
            (
                "Neural Parsing of Legal Texts in 2020",
                "Neural Parsing of Legal Texts, 2020",
            ),
            // Too short to mean anything.
            ("Intro 1", "Intro 2"),
        ] {
            assert!(!editions_of_a_series(a, b), "{a} / {b}");
        }
    }
}
