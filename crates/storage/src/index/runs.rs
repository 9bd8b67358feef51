//! A library's selected shingles kept beside its content index, not in it: immutable files
//! ("runs") of (shingle, document) pairs sorted by shingle, memory-mapped and looked up by
//! binary search. A full paper files ~1,000 selected shingles; as unique terms of a tantivy
//! field they cost ~22 KB a paper (term dictionary and postings) and most of an import's
//! dictionary building, here ~8 KB and a sort.
//!
//! ```text
//! <library dir>/shingles/run-<first>-<last>.keys   (sequence numbers, 16 hex digits each)
//! ```
//!
//! **A run** holds the documents of the commits numbered `first..=last`. Its layout:
//! `"DFSK" version u32 | documents (key u64, content hash u64)… | blocks | block index |
//! footer`, little-endian. A shingle is filed under its key, its hash's top 44 bits
//! ([`KEY_SHIFT`]): two shingles of one key in a library are rare (one lookup in 170,000 at a
//! hundred million keys) and only make a document a candidate that verification then judges,
//! and the gaps between keys take three bytes where whole hashes took six. A block holds up to
//! [`BLOCK_KEYS`] keys in ascending order, each as the varint gap from the block's previous key
//! (the first: from the block's first key, which the index holds), then its documents' places in
//! the document table: one varint `first place << 1 | more`, and when `more` is set the varint
//! count of the others and their varint gaps. The index gives each block's first key, place,
//! length and CRC-32; the footer gives the counts and places and a CRC-32 of the header, the
//! document table, the index and itself. (Version 1, still read, filed whole hashes and wrote
//! each key's count of places before them.)
//!
//! **A document** is named by its key and the content hash of the text its shingles came
//! from. A run is never rewritten, so it keeps naming documents deleted or replaced since: a
//! lookup's documents are live only if the view holds a document of that key *with that
//! content hash* (a replaced text has another hash; the same text again has the same
//! shingles).
//!
//! **Written before the commit**: a commit's staged documents are written as one run, synced,
//! before tantivy's commit publishes them, so every committed document has its shingles in a
//! run. A run whose commit then failed only names documents no view holds.
//!
//! **Merged** after commits, under the write gate, as a log-structured merge: the newest runs
//! of one size tier, [`MERGE_FACTOR`] of them, become one run covering their sequence numbers,
//! keeping only documents live at the merge. The merged run is written before its inputs are
//! removed; a kill in between leaves runs whose numbers another run covers, which are removed
//! when the library is opened.

use std::collections::hash_map::Entry;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use tantivy::directory::{Directory, MmapDirectory, OwnedBytes};

use super::encoding::{read_varint, write_varint};
use super::raw::StoredFields;
use super::schema::field_names;
use super::{IndexError, LibraryIndex, doc_key};
use crate::candidates::shingle_key;

/// The folder of a library's runs.
pub(crate) const RUNS_DIR: &str = "shingles";
const MAGIC: &[u8; 4] = b"DFSK";
const VERSION: u32 = 2;
/// The version that filed whole hashes, read still.
const VERSION_WHOLE: u32 = 1;
/// A shingle's key in a run written now: its hash shifted right this far (44 bits kept).
const KEY_SHIFT: u32 = 20;
const HEADER: usize = 8;
/// Shingles a block holds: a lookup decodes one block.
const BLOCK_KEYS: usize = 64;
/// A block index entry: first key u64, place u64, length u32, CRC-32 u32.
const INDEX_ENTRY: usize = 24;
/// documents, shingles, blocks, documents' place, index's place (u64 each), CRC-32, magic.
const FOOTER: usize = 5 * 8 + 4 + 4;
/// Runs of one size tier merged into one.
pub(crate) const MERGE_FACTOR: usize = 4;
/// A library keeps at most this many runs: past it the newest are merged whatever their size.
const MAX_RUNS: usize = 16;
/// Pairs a rebuild of the runs holds in memory before it writes them as a run (16 bytes each).
const REBUILT_PAIRS: usize = 4 << 20;
/// The size of the smallest tier, in bytes; each tier is [`MERGE_FACTOR`] times the one below.
const TIER_BASE: u64 = 256 * 1024;

/// A document as a run names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct RunDoc {
    /// The document's key ([`doc_key`](super::doc_key) of its id).
    pub key: u64,
    /// The content hash of the text whose shingles the run holds.
    pub content: u64,
}

/// One run file, mapped.
pub(crate) struct Run {
    path: PathBuf,
    first: u64,
    last: u64,
    map: OwnedBytes,
    /// [`VERSION`] or [`VERSION_WHOLE`].
    version: u32,
    documents: usize,
    shingles: u64,
    blocks: usize,
    index_at: usize,
    /// Whether the table names each document once (found when first asked): a merged run's
    /// always does, a commit's unless it staged one text twice.
    unique: OnceLock<bool>,
}

/// A damaged run: its path and what is wrong.
fn damaged(path: &Path, reason: impl Into<String>) -> IndexError {
    IndexError::CorruptFile {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

/// The varint at `*at` of `bytes`, moving `*at` past it; `None` when it runs off the end or
/// past 64 bits.
fn take_varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut rest = bytes.get(*at..)?;
    let value = read_varint(&mut rest)?;
    *at = bytes.len() - rest.len();
    Some(value)
}

/// The file at `path`, mapped (through tantivy's directory, which maps files safely: a run is
/// never written once it was renamed into place).
fn map_file(path: &Path) -> Result<OwnedBytes, IndexError> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(damaged(path, "not a file in a folder"));
    };
    let io = |e: &dyn std::fmt::Display| IndexError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    };
    let directory = MmapDirectory::open(dir).map_err(|e| io(&e))?;
    let slice = directory.open_read(Path::new(name)).map_err(|e| io(&e))?;
    slice.read_bytes().map_err(IndexError::io(path))
}

/// The file name of the run of commits `first..=last`.
fn run_name(first: u64, last: u64) -> String {
    format!("run-{first:016x}-{last:016x}.keys")
}

/// The sequence numbers a run's file name gives.
fn parse_name(name: &str) -> Option<(u64, u64)> {
    let range = name.strip_prefix("run-")?.strip_suffix(".keys")?;
    let (first, last) = range.split_once('-')?;
    let first = u64::from_str_radix(first, 16).ok()?;
    let last = u64::from_str_radix(last, 16).ok()?;
    (first <= last).then_some((first, last))
}

impl Run {
    /// Maps and checks the run at `path` covering commits `first..=last`.
    fn open(path: &Path, first: u64, last: u64) -> Result<Run, IndexError> {
        let map = map_file(path)?;
        let len = map.len();
        if len < HEADER + FOOTER || &map[..4] != MAGIC || &map[len - 4..] != MAGIC {
            return Err(damaged(path, "not a shingle run (no magic number)"));
        }
        let version = u32_at(&map, 4);
        if version != VERSION && version != VERSION_WHOLE {
            return Err(damaged(
                path,
                format!(
                    "shingle run version {version}; this build reads {VERSION_WHOLE} and {VERSION}"
                ),
            ));
        }
        let footer = len - FOOTER;
        let documents = u64_at(&map, footer) as usize;
        let shingles = u64_at(&map, footer + 8);
        let blocks = u64_at(&map, footer + 16) as usize;
        let documents_at = u64_at(&map, footer + 24) as usize;
        let index_at = u64_at(&map, footer + 32) as usize;
        let documents_end = documents
            .checked_mul(16)
            .and_then(|b| b.checked_add(HEADER));
        let index_end = blocks
            .checked_mul(INDEX_ENTRY)
            .and_then(|b| b.checked_add(index_at));
        if documents_at != HEADER
            || documents_end.is_none_or(|end| end > index_at)
            || index_end != Some(footer)
        {
            return Err(damaged(path, "its footer's places do not fit the file"));
        }
        let mut crc = crc32fast::Hasher::new();
        crc.update(&map[..HEADER + 16 * documents]);
        crc.update(&map[index_at..footer + 40]);
        if crc.finalize() != u32_at(&map, footer + 40) {
            return Err(damaged(path, "its table of contents fails its checksum"));
        }
        Ok(Run {
            path: path.to_path_buf(),
            first,
            last,
            map,
            version,
            documents,
            shingles,
            blocks,
            index_at,
            unique: OnceLock::new(),
        })
    }

    /// The document at place `n` of the table.
    fn document(&self, n: usize) -> Option<RunDoc> {
        (n < self.documents).then(|| RunDoc {
            key: u64_at(&self.map, HEADER + 16 * n),
            content: u64_at(&self.map, HEADER + 16 * n + 8),
        })
    }

    /// How far this run shifts a shingle's hash to make its key.
    fn shift(&self) -> u32 {
        match self.version {
            VERSION_WHOLE => 0,
            _ => KEY_SHIFT,
        }
    }

    /// The key a shingle is filed under in a run written now, from a key of this run.
    fn current_key(&self, key: u64) -> u64 {
        key >> (KEY_SHIFT - self.shift())
    }

    fn first_key(&self, block: usize) -> u64 {
        u64_at(&self.map, self.index_at + block * INDEX_ENTRY)
    }

    /// Block `block`'s bytes, checked.
    fn block(&self, block: usize) -> Result<(u64, &[u8]), IndexError> {
        let entry = self.index_at + block * INDEX_ENTRY;
        let at = u64_at(&self.map, entry + 8) as usize;
        let len = u32_at(&self.map, entry + 16) as usize;
        let bytes = at
            .checked_add(len)
            .filter(|end| at >= HEADER + 16 * self.documents && *end <= self.index_at)
            .map(|end| &self.map[at..end])
            .ok_or_else(|| damaged(&self.path, format!("block {block} lies outside the file")))?;
        if crc32fast::hash(bytes) != u32_at(&self.map, entry + 20) {
            return Err(damaged(
                &self.path,
                format!("block {block} fails its checksum"),
            ));
        }
        Ok((self.first_key(block), bytes))
    }

    /// The places in the table of the documents filed under `shingle`'s key, in `places`
    /// (cleared; left empty when there are none).
    fn places(&self, shingle: u64, places: &mut Vec<u32>) -> Result<(), IndexError> {
        places.clear();
        let wanted = shingle >> self.shift();
        // The last block whose first key is not above the one wanted.
        let (mut low, mut high) = (0, self.blocks);
        while low < high {
            let mid = (low + high) / 2;
            if self.first_key(mid) <= wanted {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        let Some(block) = low.checked_sub(1) else {
            return Ok(());
        };
        let mut entries = BlockEntries::new(self, block)?;
        while let Some(key) = entries.next(places)? {
            if key == wanted {
                return Ok(());
            }
            if key > wanted {
                break;
            }
        }
        places.clear();
        Ok(())
    }

    /// Adds the documents at `places` of the table to `out`.
    fn documents_at(&self, places: &[u32], out: &mut Vec<RunDoc>) -> Result<(), IndexError> {
        for &place in places {
            out.push(self.document(place as usize).ok_or_else(|| {
                damaged(
                    &self.path,
                    format!("a document place {place} past the table"),
                )
            })?);
        }
        Ok(())
    }

    /// Whether the table names each document once.
    fn unique(&self) -> bool {
        *self.unique.get_or_init(|| {
            let mut table: Vec<RunDoc> = (0..self.documents)
                .filter_map(|n| self.document(n))
                .collect();
            table.sort_unstable();
            table.windows(2).all(|pair| pair[0] != pair[1])
        })
    }
}

/// The entries of one block, decoded in order.
struct BlockEntries<'a> {
    run: &'a Run,
    block: usize,
    bytes: &'a [u8],
    at: usize,
    /// The shingle decoded last (before the first: the block's first shingle).
    key: u64,
}

impl<'a> BlockEntries<'a> {
    fn new(run: &'a Run, block: usize) -> Result<Self, IndexError> {
        let (first, bytes) = run.block(block)?;
        // The first shingle's gap is from the block's first shingle: zero.
        Ok(BlockEntries {
            run,
            block,
            bytes,
            at: 0,
            key: first,
        })
    }

    /// The next shingle and its documents' places (in `places`), or `None` past the block.
    fn next(&mut self, places: &mut Vec<u32>) -> Result<Option<u64>, IndexError> {
        if self.at >= self.bytes.len() {
            return Ok(None);
        }
        let damaged = || {
            damaged(
                &self.run.path,
                format!("block {} does not decode", self.block),
            )
        };
        let mut varint = || take_varint(self.bytes, &mut self.at).ok_or_else(damaged);
        let gap = varint()?;
        let key = self.key.checked_add(gap).ok_or_else(damaged)?;
        let (first, count) = match self.run.version {
            VERSION_WHOLE => (None, varint()?),
            _ => {
                let head = varint()?;
                let others = match head & 1 {
                    1 => varint()?,
                    _ => 0,
                };
                (Some(head >> 1), others.checked_add(1).ok_or_else(damaged)?)
            }
        };
        let documents = self.run.documents as u64;
        if count == 0 || count > documents {
            return Err(damaged());
        }
        places.clear();
        let mut place = match first {
            Some(first) => first,
            None => varint()?,
        };
        for n in 0..count {
            if n > 0 {
                place = place.checked_add(varint()?).ok_or_else(damaged)?;
            }
            if place >= documents {
                return Err(damaged());
            }
            places.push(place as u32);
        }
        self.key = key;
        Ok(Some(key))
    }
}

/// Every entry of a run in order, block after block: what a merge reads.
struct RunCursor<'a> {
    run: &'a Run,
    block: usize,
    entries: Option<BlockEntries<'a>>,
}

impl<'a> RunCursor<'a> {
    fn new(run: &'a Run) -> Self {
        RunCursor {
            run,
            block: 0,
            entries: None,
        }
    }

    fn next(&mut self, places: &mut Vec<u32>) -> Result<Option<u64>, IndexError> {
        loop {
            if let Some(entries) = &mut self.entries
                && let Some(key) = entries.next(places)?
            {
                return Ok(Some(key));
            }
            if self.block >= self.run.blocks {
                return Ok(None);
            }
            self.entries = Some(BlockEntries::new(self.run, self.block)?);
            self.block += 1;
        }
    }
}

/// Writes a run: the document table first, then shingles in ascending order.
struct RunWriter {
    /// [`VERSION`], or [`VERSION_WHOLE`] in the tests of reading older runs.
    version: u32,
    path: PathBuf,
    tmp: PathBuf,
    out: BufWriter<File>,
    written: u64,
    crc: crc32fast::Hasher,
    documents: u64,
    shingles: u64,
    index: Vec<u8>,
    block: Vec<u8>,
    block_first: u64,
    block_keys: usize,
    previous: u64,
}

impl RunWriter {
    fn create(dir: &Path, first: u64, last: u64, documents: &[RunDoc]) -> std::io::Result<Self> {
        Self::create_version(dir, first, last, documents, VERSION)
    }

    fn create_version(
        dir: &Path,
        first: u64,
        last: u64,
        documents: &[RunDoc],
        version: u32,
    ) -> std::io::Result<Self> {
        let path = dir.join(run_name(first, last));
        let tmp = path.with_extension("keys.tmp");
        let mut writer = RunWriter {
            version,
            out: BufWriter::with_capacity(1 << 20, File::create(&tmp)?),
            path,
            tmp,
            written: 0,
            crc: crc32fast::Hasher::new(),
            documents: documents.len() as u64,
            shingles: 0,
            index: Vec::new(),
            block: Vec::new(),
            block_first: 0,
            block_keys: 0,
            previous: 0,
        };
        let mut head = Vec::with_capacity(HEADER + 16 * documents.len());
        head.extend_from_slice(MAGIC);
        head.extend_from_slice(&version.to_le_bytes());
        for document in documents {
            head.extend_from_slice(&document.key.to_le_bytes());
            head.extend_from_slice(&document.content.to_le_bytes());
        }
        writer.crc.update(&head);
        writer.write(&head)?;
        Ok(writer)
    }

    fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.out.write_all(bytes)?;
        self.written += bytes.len() as u64;
        Ok(())
    }

    /// Files `places` (ascending, distinct, at least one) under `key` (above every key before).
    fn push(&mut self, key: u64, places: &[u32]) -> std::io::Result<()> {
        let Some((&first, others)) = places.split_first() else {
            return Ok(());
        };
        if self.block_keys == BLOCK_KEYS {
            self.end_block()?;
        }
        if self.block_keys == 0 {
            self.block_first = key;
            self.previous = key;
        }
        write_varint(&mut self.block, key - self.previous);
        match self.version {
            VERSION_WHOLE => {
                write_varint(&mut self.block, places.len() as u64);
                write_varint(&mut self.block, u64::from(first));
            }
            _ => {
                let more = u64::from(!others.is_empty());
                write_varint(&mut self.block, u64::from(first) << 1 | more);
                if more == 1 {
                    write_varint(&mut self.block, others.len() as u64);
                }
            }
        }
        let mut previous = first;
        for &place in others {
            write_varint(&mut self.block, u64::from(place - previous));
            previous = place;
        }
        self.previous = key;
        self.block_keys += 1;
        self.shingles += 1;
        Ok(())
    }

    fn end_block(&mut self) -> std::io::Result<()> {
        if self.block_keys == 0 {
            return Ok(());
        }
        self.index
            .extend_from_slice(&self.block_first.to_le_bytes());
        self.index.extend_from_slice(&self.written.to_le_bytes());
        self.index
            .extend_from_slice(&(self.block.len() as u32).to_le_bytes());
        self.index
            .extend_from_slice(&crc32fast::hash(&self.block).to_le_bytes());
        let block = std::mem::take(&mut self.block);
        self.write(&block)?;
        self.block = block;
        self.block.clear();
        self.block_keys = 0;
        Ok(())
    }

    /// Writes the index and footer, syncs the file and renames it into place (the folder is
    /// synced too): the run is whole on disk when this returns.
    fn finish(mut self, first: u64, last: u64) -> Result<Run, IndexError> {
        let path = self.path.clone();
        let done = (|| -> std::io::Result<()> {
            self.end_block()?;
            let index_at = self.written;
            let index = std::mem::take(&mut self.index);
            self.write(&index)?;
            let mut footer = Vec::with_capacity(FOOTER);
            footer.extend_from_slice(&self.documents.to_le_bytes());
            footer.extend_from_slice(&self.shingles.to_le_bytes());
            footer.extend_from_slice(&((index.len() / INDEX_ENTRY) as u64).to_le_bytes());
            footer.extend_from_slice(&(HEADER as u64).to_le_bytes());
            footer.extend_from_slice(&index_at.to_le_bytes());
            self.crc.update(&index);
            self.crc.update(&footer);
            let crc = std::mem::take(&mut self.crc).finalize();
            footer.extend_from_slice(&crc.to_le_bytes());
            footer.extend_from_slice(MAGIC);
            self.write(&footer)?;
            self.out.flush()?;
            self.out.get_ref().sync_all()?;
            std::fs::rename(&self.tmp, &self.path)?;
            if let Some(dir) = self.path.parent() {
                File::open(dir)?.sync_all()?;
            }
            Ok(())
        })();
        if let Err(e) = done {
            let _ = std::fs::remove_file(&self.tmp);
            return Err(IndexError::io(&path)(e));
        }
        Run::open(&path, first, last)
    }
}

/// A library's runs as of one moment, oldest first: what a view looks shingles up in.
#[derive(Default)]
pub(crate) struct RunSet {
    runs: Vec<Arc<Run>>,
}

impl RunSet {
    /// The runs in `dir` (created when missing). Leftovers of an interrupted write or merge
    /// are removed: unfinished files, and runs whose commits a merged run covers.
    pub(crate) fn open(dir: &Path) -> Result<RunSet, IndexError> {
        std::fs::create_dir_all(dir).map_err(IndexError::io(dir))?;
        Self::open_as(dir, true)
    }

    /// The runs in `dir` (none when it is missing), leftovers passed over but not removed: for
    /// reading their keys while the library's index is not open.
    pub(crate) fn read(dir: &Path) -> Result<RunSet, IndexError> {
        match dir.exists() {
            true => Self::open_as(dir, false),
            false => Ok(RunSet::default()),
        }
    }

    fn open_as(dir: &Path, remove_leftovers: bool) -> Result<RunSet, IndexError> {
        let remove = |path: &Path| match remove_leftovers {
            true => std::fs::remove_file(path).map_err(IndexError::io(path)),
            false => Ok(()),
        };
        let mut found = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(IndexError::io(dir))? {
            let entry = entry.map_err(IndexError::io(dir))?;
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.ends_with(".tmp") {
                remove(&entry.path())?;
            } else if let Some((first, last)) = parse_name(&name) {
                found.push((first, last, entry.path()));
            }
        }
        found.sort_by_key(|&(first, last, _)| (first, std::cmp::Reverse(last)));
        let mut runs: Vec<Arc<Run>> = Vec::with_capacity(found.len());
        for (first, last, path) in found {
            if runs.last().is_some_and(|run| run.last >= last) {
                // Its commits are in the run before it, merged from it.
                remove(&path)?;
                continue;
            }
            if runs.last().is_some_and(|run| run.last >= first) {
                return Err(damaged(
                    &path,
                    "its commits overlap another run's without being covered by it",
                ));
            }
            runs.push(Arc::new(Run::open(&path, first, last)?));
        }
        Ok(RunSet { runs })
    }

    /// The number the next run's commit takes.
    pub(crate) fn next_sequence(&self) -> u64 {
        self.runs.last().map_or(1, |run| run.last + 1)
    }

    /// Distinct shingles per run, summed.
    pub(crate) fn shingles(&self) -> u64 {
        self.runs.iter().map(|run| run.shingles).sum()
    }

    /// Calls `each` with every key's [`shingle_key`] (what the candidate map files its shingles
    /// under: their hashes' high half, which a key holds), a batch at a time.
    pub(crate) fn each_map_key(&self, mut each: impl FnMut(&[u32])) -> Result<(), IndexError> {
        const BATCH: usize = 1 << 16;
        let mut batch = Vec::with_capacity(BATCH);
        let mut places = Vec::new();
        for run in &self.runs {
            let mut cursor = RunCursor::new(run);
            while let Some(key) = cursor.next(&mut places)? {
                batch.push(shingle_key(run.current_key(key) << KEY_SHIFT));
                if batch.len() == BATCH {
                    each(&batch);
                    batch.clear();
                }
            }
        }
        if !batch.is_empty() {
            each(&batch);
        }
        Ok(())
    }

    /// Whether there is no run.
    pub(crate) fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// How many runs there are.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.runs.len()
    }

    /// The documents filed under `shingle`, each once however many runs file it: added to `out`
    /// (cleared) when there are at most `at_most` of them; answers how many there are. A
    /// shingle most documents hold is counted, not gathered: when one run alone files it and
    /// names each document once, its count is the run's.
    pub(crate) fn find_distinct(
        &self,
        shingle: u64,
        out: &mut Vec<RunDoc>,
        at_most: usize,
    ) -> Result<usize, IndexError> {
        out.clear();
        let mut places = Vec::new();
        let mut holding: Vec<(&Run, Vec<u32>)> = Vec::new();
        for run in &self.runs {
            run.places(shingle, &mut places)?;
            if !places.is_empty() {
                holding.push((run, std::mem::take(&mut places)));
            }
        }
        if let [(run, places)] = holding.as_slice()
            && run.unique()
        {
            if places.len() <= at_most {
                run.documents_at(places, out)?;
            }
            return Ok(places.len());
        }
        for (run, places) in &holding {
            run.documents_at(places, out)?;
        }
        out.sort_unstable();
        out.dedup();
        let distinct = out.len();
        if distinct > at_most {
            out.clear();
        }
        Ok(distinct)
    }

    /// This set with `run` added as the newest.
    pub(crate) fn with(&self, run: Run) -> RunSet {
        let mut runs = self.runs.clone();
        runs.push(Arc::new(run));
        RunSet { runs }
    }

    /// The runs a merge should take now, as a range of places: the newest runs of one tier
    /// when there are [`MERGE_FACTOR`] of them, or the newest [`MERGE_FACTOR`] when there are
    /// more than [`MAX_RUNS`] runs. `everything` asks for one run of all (after a bulk import).
    pub(crate) fn due(&self, everything: bool) -> Option<std::ops::Range<usize>> {
        let n = self.runs.len();
        if everything {
            return (n > 1).then_some(0..n);
        }
        let tier = |run: &Run| {
            let mut size = run.map.len() as u64 / TIER_BASE;
            let mut tier = 0;
            while size > 0 {
                size /= MERGE_FACTOR as u64;
                tier += 1;
            }
            tier
        };
        let newest = tier(self.runs.last()?);
        let same = self
            .runs
            .iter()
            .rev()
            .take_while(|run| tier(run) <= newest)
            .count();
        if same >= MERGE_FACTOR {
            return Some(n - same..n);
        }
        (n > MAX_RUNS).then(|| n - MERGE_FACTOR..n)
    }

    /// This set with the runs at `range` merged into one, which keeps only the documents
    /// `live` holds; the merged inputs' files are removed.
    pub(crate) fn merge(
        &self,
        dir: &Path,
        range: std::ops::Range<usize>,
        live: &HashSet<RunDoc>,
    ) -> Result<RunSet, IndexError> {
        let inputs = &self.runs[range.clone()];
        let merged = merge_runs(dir, inputs, live)?;
        for input in inputs {
            if let Err(e) = std::fs::remove_file(&input.path) {
                // Removed when the library is next opened: the merged run covers it.
                tracing::warn!(run = %input.path.display(), error = %e, "could not remove a merged shingle run");
            }
        }
        let mut runs = self.runs.clone();
        runs.splice(range, [Arc::new(merged)]);
        Ok(RunSet { runs })
    }
}

/// Writes the run of one commit: `pairs` of (shingle, place in `documents`), in any order and
/// with repeats (the shingles are made keys in place).
pub(crate) fn write_run(
    dir: &Path,
    sequence: u64,
    documents: &[RunDoc],
    pairs: &mut [(u64, u32)],
) -> Result<Run, IndexError> {
    write_run_version(dir, sequence, documents, pairs, VERSION)
}

fn write_run_version(
    dir: &Path,
    sequence: u64,
    documents: &[RunDoc],
    pairs: &mut [(u64, u32)],
    version: u32,
) -> Result<Run, IndexError> {
    if version != VERSION_WHOLE {
        for (shingle, _) in pairs.iter_mut() {
            *shingle >>= KEY_SHIFT;
        }
    }
    pairs.sort_unstable();
    let path = dir.join(run_name(sequence, sequence));
    let mut writer = RunWriter::create_version(dir, sequence, sequence, documents, version)
        .map_err(IndexError::io(&path))?;
    let mut places = Vec::new();
    let mut at = 0;
    while at < pairs.len() {
        let key = pairs[at].0;
        places.clear();
        while at < pairs.len() && pairs[at].0 == key {
            if places.last() != Some(&pairs[at].1) {
                places.push(pairs[at].1);
            }
            at += 1;
        }
        writer.push(key, &places).map_err(IndexError::io(&path))?;
    }
    writer.finish(sequence, sequence)
}

/// One run of `inputs` (consecutive, oldest first) keeping the documents `live` holds.
fn merge_runs(dir: &Path, inputs: &[Arc<Run>], live: &HashSet<RunDoc>) -> Result<Run, IndexError> {
    let first = inputs.first().map_or(1, |run| run.first);
    let last = inputs.last().map_or(first, |run| run.last);
    let path = dir.join(run_name(first, last));
    // Each input's document places mapped to the merged table (None: not live).
    let mut documents = Vec::new();
    let mut placed: HashMap<RunDoc, u32> = HashMap::new();
    let mut places_of: Vec<Vec<Option<u32>>> = Vec::with_capacity(inputs.len());
    for run in inputs {
        let mut map = Vec::with_capacity(run.documents);
        for n in 0..run.documents {
            let document = run.document(n).expect("within the table");
            map.push(
                live.contains(&document)
                    .then(|| match placed.entry(document) {
                        Entry::Occupied(place) => *place.get(),
                        Entry::Vacant(slot) => {
                            documents.push(document);
                            *slot.insert(documents.len() as u32 - 1)
                        }
                    }),
            );
        }
        places_of.push(map);
    }
    let mut writer =
        RunWriter::create(dir, first, last, &documents).map_err(IndexError::io(&path))?;
    let mut cursors: Vec<RunCursor<'_>> = inputs.iter().map(|run| RunCursor::new(run)).collect();
    let mut heads: Vec<Vec<u32>> = vec![Vec::new(); inputs.len()];
    // The next shingle of each input, smallest first.
    let mut heap = BinaryHeap::new();
    // Keys of runs written by older versions are made keys of this one: their order stays,
    // and two that become one are merged below like one key of two runs.
    for (n, cursor) in cursors.iter_mut().enumerate() {
        if let Some(key) = cursor.next(&mut heads[n])? {
            heap.push(std::cmp::Reverse((inputs[n].current_key(key), n)));
        }
    }
    let mut places = Vec::new();
    while let Some(std::cmp::Reverse((smallest, _))) = heap.peek().copied() {
        places.clear();
        while let Some(&std::cmp::Reverse((key, n))) = heap.peek() {
            if key != smallest {
                break;
            }
            heap.pop();
            places.extend(heads[n].iter().filter_map(|&p| places_of[n][p as usize]));
            if let Some(next) = cursors[n].next(&mut heads[n])? {
                heap.push(std::cmp::Reverse((inputs[n].current_key(next), n)));
            }
        }
        places.sort_unstable();
        places.dedup();
        if !places.is_empty() {
            writer
                .push(smallest, &places)
                .map_err(IndexError::io(&path))?;
        }
    }
    writer.finish(first, last)
}

/// The selected shingles of the documents staged since the last commit: the next run.
#[derive(Default)]
pub(crate) struct PendingRun {
    documents: Vec<RunDoc>,
    pairs: Vec<(u64, u32)>,
}

impl PendingRun {
    /// Files `selected` (the document's selected shingles, in any order, repeats allowed).
    pub(crate) fn add(&mut self, document: RunDoc, selected: &[u64]) {
        let place = self.documents.len() as u32;
        self.documents.push(document);
        self.pairs.extend(selected.iter().map(|&s| (s, place)));
    }
}

impl LibraryIndex {
    fn runs_dir(&self) -> PathBuf {
        self.dir.join(RUNS_DIR)
    }

    /// Writes the shingles of the documents staged since the last commit as a run, synced,
    /// and adds it to the library's runs; called before the commit that publishes them.
    pub(super) fn write_pending_run(&self) -> Result<(), IndexError> {
        let mut pending = self.pending.lock();
        if pending.documents.is_empty() {
            return Ok(());
        }
        let current = self.runs.read().clone();
        let PendingRun { documents, pairs } = &mut *pending;
        let run = write_run(&self.runs_dir(), current.next_sequence(), documents, pairs)?;
        *self.runs.write() = Arc::new(current.with(run));
        *pending = PendingRun::default();
        Ok(())
    }

    /// Forgets the shingles of staged documents (their write failed and is discarded).
    pub(super) fn discard_pending_run(&self) {
        *self.pending.lock() = PendingRun::default();
    }

    /// Merges runs while [`RunSet::due`] names some (every run into one with `everything`),
    /// keeping the documents live in the last commit. Called under the write gate after a
    /// commit, so that every document a run names is either committed or never will be.
    pub(super) fn merge_runs(&self, everything: bool) -> Result<(), IndexError> {
        let mut live = None;
        loop {
            let current = self.runs.read().clone();
            let Some(range) = current.due(everything) else {
                return Ok(());
            };
            let live = match &mut live {
                Some(live) => live,
                None => live.insert(self.live_run_docs()?),
            };
            let merged = current.merge(&self.runs_dir(), range, live)?;
            *self.runs.write() = Arc::new(merged);
            if everything {
                return Ok(());
            }
        }
    }

    /// The live documents of the last commit as runs name them.
    fn live_run_docs(&self) -> Result<HashSet<RunDoc>, IndexError> {
        let searcher = self.searcher();
        let path = &self.content_path;
        let mut live = HashSet::with_capacity(searcher.num_docs() as usize);
        for segment in searcher.segment_readers() {
            let fast = segment.fast_fields();
            let keys = fast
                .u64(field_names::DOC_KEY)
                .map_err(IndexError::tantivy(path))?;
            let hashes = fast
                .u64(field_names::CONTENT_HASH)
                .map_err(IndexError::tantivy(path))?;
            for doc in segment.doc_ids_alive() {
                if let (Some(key), Some(content)) = (keys.first(doc), hashes.first(doc)) {
                    live.insert(RunDoc { key, content });
                }
            }
        }
        Ok(live)
    }

    /// Writes the runs again from the stored documents (after damaged runs were removed): every
    /// live document's selected shingles, a run every [`REBUILT_PAIRS`] pairs (so that memory
    /// stays bounded), then merged into one. Writes wait meanwhile.
    pub(super) fn rebuild_runs(&self) -> Result<(), IndexError> {
        let _gate = self.write_gate.lock();
        let s = &self.schema;
        self.each_live_selection(|stored, _, selected| {
            let (Some(id), Some(content)) =
                (stored.first_str(s.doc_id), stored.first_u64(s.content_hash))
            else {
                return Ok(());
            };
            let full = {
                let mut pending = self.pending.lock();
                pending.add(
                    RunDoc {
                        key: doc_key(id),
                        content,
                    },
                    selected,
                );
                pending.pairs.len() >= REBUILT_PAIRS
            };
            match full {
                true => self.write_pending_run(),
                false => Ok(()),
            }
        })?;
        self.write_pending_run()?;
        self.merge_runs(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xorshift(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    /// A shingle of key `key`, its low bits (which the key leaves out) from `low`.
    fn shingle(key: u64, low: u64) -> u64 {
        key << KEY_SHIFT | (low & ((1 << KEY_SHIFT) - 1))
    }

    /// What a brute-force table of (shingle, document) pairs answers for `shingle`: the
    /// documents of every shingle of its key.
    fn oracle(
        pairs: &[(u64, RunDoc)],
        shingle: u64,
        live: Option<&HashSet<RunDoc>>,
    ) -> Vec<RunDoc> {
        let key = shingle >> KEY_SHIFT;
        let mut found: Vec<RunDoc> = pairs
            .iter()
            .filter(|(s, d)| *s >> KEY_SHIFT == key && live.is_none_or(|live| live.contains(d)))
            .map(|(_, d)| *d)
            .collect();
        found.sort();
        found.dedup();
        found
    }

    /// The documents `set` files under `shingle`, sorted; a lookup that may gather none of
    /// them counts as many.
    fn found(set: &RunSet, shingle: u64) -> Vec<RunDoc> {
        let mut out = Vec::new();
        let distinct = set.find_distinct(shingle, &mut out, usize::MAX).unwrap();
        assert_eq!(distinct, out.len());
        let mut counted = vec![RunDoc { key: 0, content: 0 }];
        let at_most = distinct.saturating_sub(1);
        assert_eq!(
            set.find_distinct(shingle, &mut counted, at_most).unwrap(),
            distinct
        );
        assert!(counted.is_empty() || distinct == 0);
        out.sort();
        out
    }

    /// A commit that staged one text twice names its document twice: a lookup counts it once,
    /// and one it may only count says so.
    #[test]
    fn a_document_named_twice_in_a_table_is_found_once() {
        let dir = tempfile::tempdir().unwrap();
        let twice = RunDoc { key: 5, content: 6 };
        let other = RunDoc { key: 7, content: 8 };
        let shared = shingle(1, 1);
        let mut pairs = vec![(shared, 0), (shared, 1), (shared, 2), (shingle(2, 2), 2)];
        write_run(dir.path(), 1, &[twice, twice, other], &mut pairs).unwrap();
        let set = RunSet::open(dir.path()).unwrap();
        assert!(!set.runs[0].unique());
        assert_eq!(found(&set, shared), vec![twice, other]);
        assert_eq!(found(&set, shingle(2, 2)), vec![other]);
        let mut out = Vec::new();
        assert_eq!(set.find_distinct(shared, &mut out, 1).unwrap(), 2);
        assert!(out.is_empty());
    }

    /// Random commits of documents with shingles from a small space of keys (so that shingles
    /// and keys repeat across documents and commits), some documents written again: every lookup
    /// answers what the pairs written answer, before and after merges, and after the set is
    /// opened again.
    #[test]
    fn runs_answer_every_lookup_as_the_pairs_written_do_through_merges_and_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut set = RunSet::open(dir.path()).unwrap();
        let mut written: Vec<(u64, RunDoc)> = Vec::new();
        for commit in 0..40u64 {
            let mut documents = Vec::new();
            let mut pairs = Vec::new();
            for _ in 0..(1 + xorshift(&mut state) % 6) {
                let document = RunDoc {
                    key: xorshift(&mut state) % 30,
                    content: xorshift(&mut state) % 3,
                };
                documents.push(document);
                for _ in 0..(xorshift(&mut state) % 200) {
                    // Shingles anywhere in u64, and a crowded range of keys where they repeat,
                    // each key under a few shingles.
                    let shingle = match xorshift(&mut state) % 2 {
                        0 => xorshift(&mut state),
                        _ => shingle(xorshift(&mut state) % 500, xorshift(&mut state) % 3),
                    };
                    pairs.push((shingle, documents.len() as u32 - 1));
                    written.push((shingle, document));
                }
            }
            let run = write_run(dir.path(), set.next_sequence(), &documents, &mut pairs).unwrap();
            set = set.with(run);
            if commit % 7 == 6 {
                while let Some(range) = set.due(false) {
                    let everyone: HashSet<RunDoc> = written.iter().map(|(_, d)| *d).collect();
                    set = set.merge(dir.path(), range, &everyone).unwrap();
                }
            }
        }
        let probes: Vec<u64> = (0..500)
            .map(|key| shingle(key, 7))
            .chain(written.iter().step_by(17).map(|(s, _)| *s))
            .collect();
        for shingle in &probes {
            assert_eq!(found(&set, *shingle), oracle(&written, *shingle, None));
        }
        let reopened = RunSet::open(dir.path()).unwrap();
        assert_eq!(reopened.len(), set.len());
        // A merge of everything keeping only some documents.
        let live: HashSet<RunDoc> = written
            .iter()
            .map(|(_, d)| *d)
            .filter(|d| d.key % 3 != 0)
            .collect();
        let merged = reopened
            .merge(dir.path(), 0..reopened.len(), &live)
            .unwrap();
        assert_eq!(merged.len(), 1);
        for shingle in &probes {
            assert_eq!(
                found(&merged, *shingle),
                oracle(&written, *shingle, Some(&live))
            );
        }
        let files = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(files, 1, "the merged inputs' files are removed");
    }

    /// A kill between a merged run's rename and the removal of its inputs leaves both: opening
    /// the folder keeps the merged run, removes the inputs and an unfinished file, and answers
    /// as before.
    #[test]
    fn runs_a_merge_covers_are_removed_when_the_folder_is_opened() {
        let dir = tempfile::tempdir().unwrap();
        let doc = |key| RunDoc { key, content: 7 };
        let mut set = RunSet::open(dir.path()).unwrap();
        for n in 0..3u64 {
            let run = write_run(
                dir.path(),
                set.next_sequence(),
                &[doc(n)],
                &mut [(shingle(n * 10, n), 0), (shingle(99, n), 0)],
            )
            .unwrap();
            set = set.with(run);
        }
        // The inputs' files are kept aside and put back after the merge: what a kill leaves.
        let kept: Vec<(PathBuf, Vec<u8>)> = set
            .runs
            .iter()
            .map(|run| (run.path.clone(), std::fs::read(&run.path).unwrap()))
            .collect();
        let live: HashSet<RunDoc> = (0..3).map(doc).collect();
        let merged = set.merge(dir.path(), 0..3, &live).unwrap();
        for (path, bytes) in kept {
            std::fs::write(path, bytes).unwrap();
        }
        std::fs::write(
            dir.path()
                .join("run-0000000000000004-0000000000000004.keys.tmp"),
            b"half",
        )
        .unwrap();
        let reopened = RunSet::open(dir.path()).unwrap();
        assert_eq!(reopened.len(), 1);
        assert_eq!(reopened.next_sequence(), 4);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let (of, nowhere) = (|key| shingle(key, 0), shingle(11, 0));
        assert_eq!(found(&reopened, of(99)), found(&merged, of(99)));
        assert_eq!(found(&reopened, of(99)), vec![doc(0), doc(1), doc(2)]);
        assert_eq!(found(&reopened, of(10)), vec![doc(1)]);
        assert_eq!(found(&reopened, nowhere), vec![]);
    }

    /// A damaged run is refused with its path and what is wrong, never read as other shingles.
    #[test]
    fn runs_a_damaged_run_is_refused_with_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let mut pairs: Vec<(u64, u32)> = (0..1_000)
            .map(|s| (shingle(s * 7919, s), (s % 2) as u32))
            .collect();
        let docs = [RunDoc { key: 1, content: 2 }, RunDoc { key: 3, content: 4 }];
        let run = write_run(dir.path(), 1, &docs, &mut pairs).unwrap();
        let path = run.path.clone();
        drop(run);
        let bytes = std::fs::read(&path).unwrap();
        // A flipped byte in a block: found by the lookup that reads it.
        let mut block = bytes.clone();
        block[HEADER + 16 * 2 + 5] ^= 0x40;
        std::fs::write(&path, &block).unwrap();
        let set = RunSet::open(dir.path()).unwrap();
        let err = set
            .find_distinct(0, &mut Vec::new(), usize::MAX)
            .unwrap_err()
            .to_string();
        assert!(err.contains("checksum") && err.contains("run-"), "{err}");
        drop(set);
        // A flipped byte in the document table, and a cut file: found when it is opened.
        for damage in [
            |b: &mut Vec<u8>| b[HEADER + 3] ^= 1,
            |b: &mut Vec<u8>| b.truncate(b.len() - 10),
        ] {
            let mut damaged = bytes.clone();
            damage(&mut damaged);
            std::fs::write(&path, &damaged).unwrap();
            let err = RunSet::open(dir.path()).err().expect("refused").to_string();
            assert!(err.contains(&path.display().to_string()), "{err}");
        }
    }

    /// Runs of version 1 (whole hashes, each key's count of places first) are read as they
    /// were written, beside runs of this version, and a merge files their shingles under keys.
    #[test]
    fn runs_of_the_version_before_are_read_and_merged_into_this_versions() {
        let dir = tempfile::tempdir().unwrap();
        let doc = |key| RunDoc { key, content: 1 };
        let (a, b, c) = (doc(1), doc(2), doc(3));
        // Shingles of one key but other hashes, in both versions, and a shingle of three places.
        let mut older = [
            (shingle(5, 1), 0),
            (shingle(9, 0), 0),
            (shingle(9, 0), 1),
            (shingle(9, 0), 2),
        ];
        write_run_version(dir.path(), 1, &[a, b, c], &mut older, VERSION_WHOLE).unwrap();
        let mut newer = [(shingle(5, 2), 0), (shingle(9, 3), 1)];
        write_run_version(dir.path(), 2, &[b, c], &mut newer, VERSION).unwrap();
        let set = RunSet::open(dir.path()).unwrap();
        assert_eq!(set.len(), 2);
        // The older run answers by whole hash, the newer by key.
        assert_eq!(found(&set, shingle(5, 1)), vec![a, b]);
        assert_eq!(found(&set, shingle(5, 3)), vec![b]);
        assert_eq!(found(&set, shingle(9, 0)), vec![a, b, c]);
        assert_eq!(found(&set, shingle(9, 4)), vec![c]);
        let live: HashSet<RunDoc> = [a, b, c].into();
        let merged = set.merge(dir.path(), 0..2, &live).unwrap();
        assert_eq!(merged.runs[0].version, VERSION);
        assert_eq!(found(&merged, shingle(5, 3)), vec![a, b]);
        assert_eq!(found(&merged, shingle(9, 4)), vec![a, b, c]);
        assert_eq!(found(&merged, shingle(6, 0)), vec![]);
    }

    /// Sizes: a tier fills with [`MERGE_FACTOR`] runs, and a library never keeps more than
    /// [`MAX_RUNS`].
    #[test]
    fn runs_are_merged_by_tier_and_never_pile_up() {
        let dir = tempfile::tempdir().unwrap();
        let mut set = RunSet::open(dir.path()).unwrap();
        let live: HashSet<RunDoc> = (0..1_000).map(|key| RunDoc { key, content: 0 }).collect();
        let mut most = 0;
        for commit in 0..200u64 {
            let documents = [RunDoc {
                key: commit % 1_000,
                content: 0,
            }];
            let mut pairs: Vec<(u64, u32)> = (0..50)
                .map(|s| (shingle(commit * 1_000 + s, s), 0))
                .collect();
            set = set
                .with(write_run(dir.path(), set.next_sequence(), &documents, &mut pairs).unwrap());
            while let Some(range) = set.due(false) {
                set = set.merge(dir.path(), range, &live).unwrap();
            }
            most = most.max(set.len());
        }
        assert!(most <= MAX_RUNS, "{most} runs");
        assert!(
            set.len() < MERGE_FACTOR + 2,
            "{} runs after 200 commits",
            set.len()
        );
        assert_eq!(
            found(&set, shingle(150_007, 0)),
            vec![RunDoc {
                key: 150,
                content: 0
            }]
        );
    }
}
