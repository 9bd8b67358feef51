//! One library's share of the map and the log that keeps it across restarts.
//!
//! The log (`<library dir>/candidates.log`) is a sequence of frames, each
//! `[kind u8][length u32][payload][crc32 u32]` (little-endian):
//! - `HEADER`: the format version, first in every log;
//! - `CONTENT`: one document's content hash and sampled shingles (whole hashes; written before
//!   `SHINGLE_KEYS`, still read);
//! - `SHINGLE_KEYS`: one document's content hash, its language (two ASCII bytes) and its
//!   sampled shingles' map keys (`u32`) (written now only when the keys are read again from the
//!   stored documents, for documents whose shingles may not be in runs);
//! - `IN_RUNS`: one document's content hash and language; its selected shingles are in the
//!   library's shingle runs (`index/runs.rs`), whose keys are read when the log is;
//! - `SETS`: a statistics generation and the signature term sets of one document signed in it;
//! - `COMPLETE`: every document written before this frame has its keys above it.
//!
//! Keys are appended as documents are staged and the log is made durable before the commit that
//! publishes them (content or signatures), so a committed document always has its keys in the
//! log, or its shingles in a run written before that commit too. A torn last frame (a kill
//! mid-append) was never synced, so nothing committed needed it: the log is cut back to its last
//! whole frame. A log without `COMPLETE` (missing, from before
//! this format, or cut short while it was rebuilt) makes the library unknown — named for every
//! query — until its keys are read again from the index.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;

use super::keys::SetKey;
use super::map::{CandidateMap, LibraryNo, language_code, shingle_key};
use crate::index::IndexError;
use crate::index::runs::{RUNS_DIR, RunSet};

const HEADER: u8 = 0;
const CONTENT: u8 = 1;
const SETS: u8 = 2;
const COMPLETE: u8 = 3;
const SHINGLE_KEYS: u8 = 4;
const IN_RUNS: u8 = 5;
/// The language written for a document whose language has no two-letter code.
const ANY_LANGUAGE: [u8; 2] = *b"??";
const VERSION: u32 = 1;
/// A frame longer than this is damage, not data (a document has at most a few hundred
/// thousand shingles).
const MAX_FRAME: u32 = 64 << 20;

/// The file's name in a library's folder.
pub(crate) const LOG_FILE: &str = "candidates.log";

/// A library's keys in the map, and their log.
pub struct CandidateShare {
    map: Arc<CandidateMap>,
    library: LibraryNo,
    log: Mutex<Log>,
}

/// The log file, open only between an append and the sync that follows it: a data directory
/// holds thousands of libraries, and an idle one holds no descriptor.
struct Log {
    path: PathBuf,
    file: Option<BufWriter<File>>,
    /// Frames appended since the last sync.
    dirty: bool,
    /// The file's length at the last sync: what a failed append or sync is cut back to.
    synced: u64,
}

impl Log {
    /// The file, opened for appending when it is closed.
    fn file(&mut self) -> std::io::Result<&mut BufWriter<File>> {
        if self.file.is_none() {
            let file = OpenOptions::new()
                .append(true)
                .create(true)
                .open(&self.path)?;
            self.file = Some(BufWriter::new(file));
        }
        Ok(self.file.as_mut().expect("opened above"))
    }

    fn append(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let appended = self.file().and_then(|file| file.write_all(bytes));
        match appended {
            Ok(()) => {
                self.dirty = true;
                Ok(())
            }
            Err(e) => {
                self.cut_back();
                Err(e)
            }
        }
    }

    /// Flushes and syncs what was appended, then closes the file.
    fn sync(&mut self) -> std::io::Result<()> {
        if !self.dirty {
            return Ok(());
        }
        let synced = self.file().and_then(|file| {
            file.flush()?;
            file.get_ref().sync_data()?;
            file.get_ref().metadata()
        });
        match synced {
            Ok(meta) => {
                self.synced = meta.len();
                self.dirty = false;
                self.file = None;
                Ok(())
            }
            Err(e) => {
                self.cut_back();
                Err(e)
            }
        }
    }

    /// After a failed append or sync the file may end in a torn frame, after which nothing
    /// would be read: cut it back to its last synced length, dropping what was appended since
    /// (it belonged to a write that fails with this error).
    fn cut_back(&mut self) {
        if let Some(file) = self.file.take() {
            // Dropped without flushing what it still buffers.
            drop(file.into_parts());
        }
        self.dirty = false;
        let cut = OpenOptions::new()
            .write(true)
            .open(&self.path)
            .and_then(|file| file.set_len(self.synced));
        if let Err(e) = cut {
            tracing::warn!(log = %self.path.display(), error = %e, "could not cut a candidates log back");
        }
    }
}

impl CandidateShare {
    /// Joins library `id` (in folder `dir`) to `map` and reads its log and its shingle runs
    /// into it. Answers whether the log was complete and the runs readable; when not, the library
    /// stays unknown until [`CandidateShare::rebuilt`].
    pub(crate) fn open(
        map: &Arc<CandidateMap>,
        id: &str,
        dir: &Path,
        generation: u64,
    ) -> Result<(Arc<CandidateShare>, bool), IndexError> {
        let path = dir.join(LOG_FILE);
        let library = map.join(id);
        let runs = RunSet::read(&dir.join(RUNS_DIR));
        let in_runs = runs.as_ref().map_or(0, RunSet::shingles);
        // Whether the log names documents whose shingles only runs hold.
        let mut needs_runs = false;
        let (whole, complete, length) = match File::open(&path) {
            Ok(file) => {
                let length = file.metadata().map_err(IndexError::io(&path))?.len();
                // A key takes four bytes of the log: at most this many are filed, and the map
                // sizes a large library's filter for them at once.
                map.expect_shingle_keys(library, length / 4 + in_runs);
                let (whole, complete) = replay(file, |kind, payload| {
                    needs_runs |= kind == IN_RUNS;
                    apply(map, library, generation, kind, payload)
                })
                .map_err(IndexError::io(&path))?;
                (whole, complete, length)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (0, false, 0),
            Err(e) => return Err(IndexError::io(&path)(e)),
        };
        let runs_read = runs.and_then(|runs| {
            runs.each_map_key(|keys| map.add_shingle_keys(library, keys))?;
            Ok(runs.is_empty())
        });
        let complete = complete
            && match runs_read {
                Ok(false) => true,
                Ok(true) if !needs_runs => true,
                Ok(true) => {
                    tracing::warn!(
                        library = id,
                        "a library's shingle runs are missing; its keys are read from its documents"
                    );
                    false
                }
                Err(e) => {
                    tracing::warn!(library = id, error = %e, "a library's shingle runs are damaged; its keys are read from its documents");
                    false
                }
            };
        if (whole as u64) < length {
            tracing::warn!(log = %path.display(), kept = whole, "a candidates log ends in a torn frame; cut back");
            OpenOptions::new()
                .write(true)
                .open(&path)
                .and_then(|file| file.set_len(whole as u64))
                .map_err(IndexError::io(&path))?;
        }
        let share = Arc::new(CandidateShare {
            map: map.clone(),
            library,
            log: Mutex::new(Log {
                path,
                file: None,
                dirty: false,
                synced: whole as u64,
            }),
        });
        if whole == 0 {
            share.append(HEADER, &VERSION.to_le_bytes())?;
            share.sync()?;
        }
        if complete {
            map.known(library);
        }
        Ok((share, complete))
    }

    /// Files one document's content keys and logs them, its selected shingles' keys included
    /// (for documents whose shingles may not be in the library's runs).
    pub(crate) fn add_content(
        &self,
        content_hash: u64,
        shingles: &[u64],
        language: &str,
    ) -> Result<(), IndexError> {
        self.file_content(content_hash, shingles, language, true)
    }

    /// Files one document's content keys and logs its content hash and language: its selected
    /// shingles are in the run its commit writes, where the log's next reading finds them.
    pub(crate) fn add_content_in_runs(
        &self,
        content_hash: u64,
        shingles: &[u64],
        language: &str,
    ) -> Result<(), IndexError> {
        self.file_content(content_hash, shingles, language, false)
    }

    fn file_content(
        &self,
        content_hash: u64,
        shingles: &[u64],
        language: &str,
        log_keys: bool,
    ) -> Result<(), IndexError> {
        let keys: Vec<u32> = shingles.iter().map(|s| shingle_key(*s)).collect();
        let logged = if log_keys { &keys[..] } else { &[] };
        let mut payload = Vec::with_capacity(10 + 4 * logged.len());
        payload.extend_from_slice(&content_hash.to_le_bytes());
        // "und" and any other code that is not two letters are filed as any language.
        let code = language_code(language);
        payload.extend_from_slice(&code.unwrap_or(ANY_LANGUAGE));
        for key in logged {
            payload.extend_from_slice(&key.to_le_bytes());
        }
        self.append(if log_keys { SHINGLE_KEYS } else { IN_RUNS }, &payload)?;
        self.map
            .add_content(self.library, content_hash, &keys, code);
        Ok(())
    }

    /// For each of `shingles`, whether a document of the library may hold it (never `false`
    /// for one that does); `None` while the library's keys are not all known.
    pub(crate) fn may_hold(&self, shingles: &[u64]) -> Option<Vec<bool>> {
        self.map.library_may_hold(self.library, shingles)
    }

    /// Files the signature term sets of one document signed in `generation` and logs them.
    pub(crate) fn add_sets(&self, generation: u64, sets: &[SetKey]) -> Result<(), IndexError> {
        let mut payload = Vec::with_capacity(8 + sets.len() * 25);
        payload.extend_from_slice(&generation.to_le_bytes());
        for set in sets {
            payload.push(set.hashes().len() as u8);
            for hash in set.hashes() {
                payload.extend_from_slice(&hash.to_le_bytes());
            }
        }
        self.append(SETS, &payload)?;
        self.map.add_sets(self.library, sets);
        Ok(())
    }

    /// Makes what was logged durable; called before a commit publishes the documents.
    pub(crate) fn sync(&self) -> Result<(), IndexError> {
        let mut log = self.log.lock();
        let path = log.path.clone();
        log.sync().map_err(IndexError::io(&path))
    }

    /// Every live document's keys were filed since the share was opened: the log says so and
    /// the library is known from now on.
    pub(crate) fn rebuilt(&self) -> Result<(), IndexError> {
        self.append(COMPLETE, &[])?;
        self.sync()?;
        self.map.known(self.library);
        Ok(())
    }

    /// Rewrites the log without the term sets of generations before `generation` (after a
    /// re-index made it current). The map keeps the old sets until the process ends.
    pub(crate) fn compact(&self, generation: u64) -> Result<(), IndexError> {
        let mut log = self.log.lock();
        let path = log.path.clone();
        log.sync().map_err(IndexError::io(&path))?;
        let mut bytes = Vec::new();
        File::open(&path)
            .and_then(|mut f| f.read_to_end(&mut bytes))
            .map_err(IndexError::io(&path))?;
        let mut kept = Vec::with_capacity(bytes.len());
        replay(&bytes[..], |kind, payload| {
            let current = kind != SETS
                || payload
                    .get(..8)
                    .is_some_and(|g| u64::from_le_bytes(g.try_into().unwrap()) >= generation);
            if current {
                frame(&mut kept, kind, payload);
            }
            true
        })
        .map_err(IndexError::io(&path))?;
        dupfinder_common::durable::write_atomically(&path, &kept).map_err(IndexError::io(&path))?;
        log.synced = kept.len() as u64;
        Ok(())
    }

    /// The library is deleted: the map stops naming it.
    pub(crate) fn leave(&self) {
        self.map.leave(self.library);
    }

    fn append(&self, kind: u8, payload: &[u8]) -> Result<(), IndexError> {
        let mut bytes = Vec::with_capacity(payload.len() + 9);
        frame(&mut bytes, kind, payload);
        let mut log = self.log.lock();
        let path = log.path.clone();
        log.append(&bytes).map_err(IndexError::io(&path))
    }
}

fn frame(out: &mut Vec<u8>, kind: u8, payload: &[u8]) {
    let start = out.len();
    out.push(kind);
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(payload);
    let crc = crc32fast::hash(&out[start..]);
    out.extend_from_slice(&crc.to_le_bytes());
}

/// Calls `each` with every whole frame `log` gives until it answers `false` or a frame is torn
/// or damaged. Answers the length of the whole frames read and whether a `COMPLETE` frame was
/// among them. Reads one frame at a time: a large library's log is hundreds of megabytes.
fn replay(
    log: impl Read,
    mut each: impl FnMut(u8, &[u8]) -> bool,
) -> std::io::Result<(usize, bool)> {
    let mut log = std::io::BufReader::with_capacity(1 << 20, log);
    let mut at = 0;
    let mut complete = false;
    let mut frame = Vec::new();
    loop {
        frame.resize(5, 0);
        if !read_whole(&mut log, &mut frame)? {
            break;
        }
        let kind = frame[0];
        let len = u32::from_le_bytes(frame[1..5].try_into().unwrap());
        if len > MAX_FRAME {
            break;
        }
        frame.resize(5 + len as usize + 4, 0);
        if !read_whole(&mut log, &mut frame[5..])? {
            break;
        }
        let end = 5 + len as usize;
        let crc = u32::from_le_bytes(frame[end..].try_into().unwrap());
        if crc32fast::hash(&frame[..end]) != crc || !each(kind, &frame[5..end]) {
            break;
        }
        complete |= kind == COMPLETE;
        at += frame.len();
    }
    Ok((at, complete))
}

/// Fills `buf` from `from`; `false` when the input ends first.
fn read_whole(from: &mut impl Read, buf: &mut [u8]) -> std::io::Result<bool> {
    match from.read_exact(buf) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(false),
        Err(e) => Err(e),
    }
}

/// Files one frame's keys; term sets of generations before `generation` are left out (a later
/// one may be a re-index under way, which can go live).
fn apply(
    map: &CandidateMap,
    library: LibraryNo,
    generation: u64,
    kind: u8,
    payload: &[u8],
) -> bool {
    match kind {
        HEADER | COMPLETE => true,
        CONTENT => {
            let words: Vec<u64> = payload
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                .collect();
            if let Some((hash, shingles)) = words.split_first() {
                let keys: Vec<u32> = shingles.iter().map(|s| shingle_key(*s)).collect();
                map.add_content(library, *hash, &keys, None);
            }
            true
        }
        SHINGLE_KEYS | IN_RUNS => {
            let Some((hash, rest)) = payload.split_at_checked(8) else {
                return false;
            };
            let Some((code, keys)) = rest.split_at_checked(2) else {
                return false;
            };
            if !keys.len().is_multiple_of(4) {
                return false;
            }
            let keys: Vec<u32> = keys
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                .collect();
            let code: [u8; 2] = code.try_into().unwrap();
            let hash = u64::from_le_bytes(hash.try_into().unwrap());
            map.add_content(library, hash, &keys, (code != ANY_LANGUAGE).then_some(code));
            true
        }
        SETS => {
            let Some(signed_in) = payload.get(..8) else {
                return false;
            };
            if u64::from_le_bytes(signed_in.try_into().unwrap()) < generation {
                return true;
            }
            let mut sets = Vec::new();
            let mut rest = &payload[8..];
            while let Some((&len, tail)) = rest.split_first() {
                let bytes = usize::from(len) * 4;
                let Some(hashes) = tail.get(..bytes) else {
                    return false;
                };
                let hashes: Vec<u32> = hashes
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                    .collect();
                let Some(set) = SetKey::from_hashes(&hashes) else {
                    return false;
                };
                sets.push(set);
                rest = &tail[bytes..];
            }
            map.add_sets(library, &sets);
            true
        }
        // A kind this version does not know: the rest is not read.
        _ => false,
    }
}
