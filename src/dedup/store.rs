//! The files of a library's `dedup/` directory: the edges a job found (`edges.jsonl`) and those
//! arrivals found (`arrivals.jsonl`), both JSON Lines appended as they come; the job's
//! checkpoint; the clusters (`clusters.json`, replaced atomically); the alerts
//! (`alerts.jsonl`). One lock per directory serializes the job's start and finish, arrivals and
//! deletions.

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
use crate::check::{MatchReport, Verdict};
use crate::index::LibraryIndex;
use crate::library::Catalog;

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
/// in the first `edges_bytes` bytes of `edges.jsonl`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Checkpoint {
    pub(super) last_key: Option<u64>,
    pub(super) done: u64,
    pub(super) edges_bytes: u64,
    pub(super) started_at: u64,
}

/// Changes appended before the change log is folded into `clusters.json`.
const COMPACT_AFTER: usize = 1_000;

/// The clusters as last read or written, with the files' state they reflect: checked against
/// the files at every access, so a library deleted and made again (or files changed by another
/// process) are read anew.
#[derive(Default)]
pub(super) struct Cache {
    set: Option<ClusterSet>,
    stamp: Option<Stamp>,
    changes: usize,
}

/// Lengths and modification times of `clusters.json` and `changes.jsonl`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    base: Option<(u64, std::time::SystemTime)>,
    changes: Option<(u64, std::time::SystemTime)>,
}

/// The `dedup/` directory of one library.
#[derive(Debug, Clone)]
pub struct DedupStore {
    dir: PathBuf,
}

impl DedupStore {
    /// The store of the library `index`.
    pub fn of(index: &LibraryIndex) -> DedupStore {
        DedupStore {
            dir: index.dir().join("dedup"),
        }
    }

    /// The lock every change of this store's clusters is made under, with the clusters.
    pub(super) fn lock(&self) -> Arc<Mutex<Cache>> {
        static LOCKS: OnceLock<Mutex<HashMap<PathBuf, Arc<Mutex<Cache>>>>> = OnceLock::new();
        LOCKS
            .get_or_init(Default::default)
            .lock()
            .entry(self.dir.clone())
            .or_default()
            .clone()
    }

    fn ensure_dir(&self) -> Result<(), DedupError> {
        std::fs::create_dir_all(&self.dir).map_err(DedupError::io(&self.dir))
    }

    pub(super) fn edges_path(&self) -> PathBuf {
        self.dir.join("edges.jsonl")
    }

    pub(super) fn arrivals_path(&self) -> PathBuf {
        self.dir.join("arrivals.jsonl")
    }

    fn checkpoint_path(&self) -> PathBuf {
        self.dir.join("checkpoint.json")
    }

    fn clusters_path(&self) -> PathBuf {
        self.dir.join("clusters.json")
    }

    fn changes_path(&self) -> PathBuf {
        self.dir.join("changes.jsonl")
    }

    fn stamp(&self) -> Stamp {
        let of = |path: PathBuf| {
            std::fs::metadata(path)
                .ok()
                .and_then(|m| Some((m.len(), m.modified().ok()?)))
        };
        Stamp {
            base: of(self.clusters_path()),
            changes: of(self.changes_path()),
        }
    }

    /// The clusters as the files hold them: `clusters.json` with the change log replayed.
    pub fn clusters_on_disk(&self) -> Result<Option<ClusterSet>, DedupError> {
        Ok(self.read_set()?.0)
    }

    fn read_set(&self) -> Result<(Option<ClusterSet>, usize), DedupError> {
        let Some(mut set) = read_json::<ClusterSet>(&self.clusters_path())? else {
            return Ok((None, 0));
        };
        let mut changes = 0;
        read_lines(&self.changes_path(), |change: Change| {
            set.apply(&change);
            changes += 1;
        })?;
        Ok((Some(set), changes))
    }

    /// The current clusters in `cache` (read when the files changed since).
    pub(super) fn current<'c>(
        &self,
        cache: &'c mut Cache,
    ) -> Result<Option<&'c mut ClusterSet>, DedupError> {
        let stamp = self.stamp();
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
    /// the log into `clusters.json` once it is long.
    pub(super) fn record(&self, cache: &mut Cache, changes: &[Change]) -> Result<(), DedupError> {
        if changes.is_empty() {
            return Ok(());
        }
        append_to(&self.changes_path(), changes, Sync::Soon)?;
        cache.changes += changes.len();
        cache.stamp = Some(self.stamp());
        if cache.changes >= COMPACT_AFTER
            && let Some(set) = cache.set.take()
        {
            self.save_clusters(cache, set)?;
        }
        Ok(())
    }

    fn alerts_path(&self) -> PathBuf {
        self.dir.join("alerts.jsonl")
    }

    /// Whether the library was deduplicated once or is being deduplicated.
    pub fn active(&self) -> bool {
        self.clusters_path().exists() || self.checkpoint_path().exists()
    }

    /// The clusters of the last finished job, kept current since; `None` before the first.
    pub fn clusters(&self) -> Result<Option<ClusterSet>, DedupError> {
        let state = self.lock();
        let mut cache = state.lock();
        Ok(self.current(&mut cache)?.cloned())
    }

    /// Writes `set` as `clusters.json` and empties the change log.
    pub(super) fn save_clusters(
        &self,
        cache: &mut Cache,
        set: ClusterSet,
    ) -> Result<(), DedupError> {
        self.ensure_dir()?;
        write_atomically(&self.clusters_path(), &set)?;
        let changes = self.changes_path();
        match std::fs::remove_file(&changes) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(DedupError::io(&changes)(e));
            }
            _ => {}
        }
        *cache = Cache {
            set: Some(set),
            stamp: Some(self.stamp()),
            changes: 0,
        };
        Ok(())
    }

    /// Whether a dedup job is under way (its checkpoint is there).
    pub(super) fn job_running(&self) -> bool {
        self.checkpoint_path().exists()
    }

    pub(super) fn checkpoint(&self) -> Result<Option<Checkpoint>, DedupError> {
        read_json(&self.checkpoint_path())
    }

    pub(super) fn save_checkpoint(&self, checkpoint: &Checkpoint) -> Result<(), DedupError> {
        self.ensure_dir()?;
        write_atomically(&self.checkpoint_path(), checkpoint)
    }

    pub(super) fn clear_checkpoint(&self) -> Result<(), DedupError> {
        let path = self.checkpoint_path();
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(DedupError::io(&path)(e)),
            _ => Ok(()),
        }
    }

    /// Opens `path` for appending, cut to `len` bytes first (what a checkpoint vouches for).
    pub(super) fn open_cut(&self, path: &Path, len: u64) -> Result<File, DedupError> {
        self.ensure_dir()?;
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(DedupError::io(path))?;
        file.set_len(len).map_err(DedupError::io(path))?;
        Ok(file)
    }

    /// Appends edges to `path` (durably).
    pub(super) fn append(&self, path: &Path, edges: &[EdgeRecord]) -> Result<(), DedupError> {
        self.ensure_dir()?;
        append_to(path, edges, Sync::Now)
    }

    /// Every edge of `path`, in file order; `visit` sees each.
    pub(super) fn read_edges(
        &self,
        path: &Path,
        visit: impl FnMut(EdgeRecord),
    ) -> Result<(), DedupError> {
        read_lines(path, visit)
    }

    pub(super) fn add_alert(&self, alert: &Alert) -> Result<(), DedupError> {
        self.ensure_dir()?;
        append_to(&self.alerts_path(), std::slice::from_ref(alert), Sync::Soon)
    }

    /// Every alert of this library, oldest first.
    pub fn alerts(&self) -> Result<Vec<Alert>, DedupError> {
        let mut alerts = Vec::new();
        read_lines(&self.alerts_path(), |alert| alerts.push(alert))?;
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
        let index = catalog.index(&id)?;
        all.extend(DedupStore::of(&index).alerts()?);
    }
    // Stable: alerts of one second keep their file order, reversed.
    all.reverse();
    all.sort_by_key(|alert| std::cmp::Reverse(alert.time));
    Ok(all)
}

/// When an append reaches the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sync {
    /// Before the append returns: what a job's checkpoint vouches for.
    Now,
    /// Within [`crate::durable::SYNC_SOON`]: an arrival's alert and cluster change, which a
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
    append_lines(file, path, items, sync)
}

pub(super) fn append_lines<T: Serialize>(
    file: File,
    path: &Path,
    items: &[T],
    sync: Sync,
) -> Result<(), DedupError> {
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
            crate::durable::sync_soon(path);
            Ok(())
        }
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
                    path: path.to_path_buf(),
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
            path: path.to_path_buf(),
            reason: e.to_string(),
        })
}

/// Writes `value` beside `path`, syncs it, and renames it over `path`: a reader sees the old
/// file or the new one, never half of one.
fn write_atomically<T: Serialize>(path: &Path, value: &T) -> Result<(), DedupError> {
    let bytes = serde_json::to_vec(value).map_err(|e| DedupError::Corrupt {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    crate::durable::write_atomically(path, &bytes).map_err(DedupError::io(path))
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
