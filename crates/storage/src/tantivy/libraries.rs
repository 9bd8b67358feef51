//! The libraries of a data directory: their records in the registry (`registry.redb`), one
//! folder of tantivy indexes each under `libraries/`, opened when first needed and closed again
//! when idle, so that thousands of libraries cost only those in use.
//!
//! Each library lives in its own folder `libraries/<id>.<creation time>` (named in its record),
//! so that a handle still held on a deleted library (a write, a job, a crawl) writes only into
//! that library's old folder, never into a library created again with the same id; such a
//! write is answered [`BackendError::NotFound`], and the old folder is removed (or, if busy, on
//! the next start).
//!
//! **One open index per library.** A library's [`Slot`] holds its open [`LibraryIndex`] or
//! none; it is opened under the slot's lock and closed only while nobody else holds it, so no
//! two `LibraryIndex`es ever share a folder (tantivy allows one writer per index). Its keys in
//! the candidate map are read from their log at start and kept while the index is closed.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use parking_lot::{Mutex, RwLock};

use crate::candidates::{CandidateMap, CandidateProbe, CandidateShare};
use crate::index::{
    IndexError, IndexOptions, LibraryIndex, PreparedDocument, current_generation, prepare_schema,
};
use crate::{
    Backend, BackendError, LibraryId, LibraryRecord, LibraryStore, RecordChange, Registry,
    RegistryError, Storage,
};
use dupfinder_common::clock::unix_now;
use dupfinder_text::analysis::Analyzer;

/// The libraries of one data directory, each opened at most once per process (an index has one
/// writer).
pub struct TantivyStorage {
    data_dir: PathBuf,
    registry: Registry,
    analyzer: Analyzer,
    options: IndexOptions,
    /// Which libraries may hold a check's candidates.
    candidates: Arc<CandidateMap>,
    /// Every library's slot, by id.
    pub(super) indexes: Arc<Slots>,
    /// Libraries whose index writer failed a write for a cause other than a storage fault
    /// (damage, or a cause not known): they refuse writes until an operator reopens the writer
    /// ([`Storage::reopen_writer`]) or the process restarts.
    pub(super) stopped_writers: RwLock<HashSet<String>>,
    /// Libraries whose last write failed with a storage fault (full, read-only, short of
    /// descriptors or memory): after a failed commit a writer's state is unknown (a later commit
    /// has been seen to answer `Ok` without the documents), so their next write first puts the
    /// writers back to the last commit ([`LibraryIndex::reset_writers`]).
    pub(super) writers_to_reset: RwLock<HashSet<String>>,
}

/// Every library's slot, by id, and how many are open.
#[derive(Default)]
pub(super) struct Slots {
    pub(super) by_id: RwLock<HashMap<String, Arc<Slot>>>,
    open: AtomicUsize,
}

/// One library: its folder, its keys in the candidate map, and its indexes while open.
pub(super) struct Slot {
    dir: PathBuf,
    candidates: Arc<CandidateShare>,
    index: Mutex<Option<Arc<LibraryIndex>>>,
    /// When the library was last handed out (a leaf lock).
    used: Mutex<Instant>,
}

impl Slot {
    /// Whether `index` is this slot's open index.
    fn holds(&self, index: &Arc<LibraryIndex>) -> bool {
        self.index
            .lock()
            .as_ref()
            .is_some_and(|open| Arc::ptr_eq(open, index))
    }
}

/// At most this many libraries stay open; past it, the least recently used that nobody holds
/// are closed as others open.
const MAX_OPEN: usize = 1024;

/// A library nobody used for this long is closed; its writers close after a shorter while.
const IDLE_INDEX: Duration = Duration::from_secs(120);
const IDLE_WRITERS: Duration = Duration::from_secs(30);

/// Closes idle writers and idle libraries every few seconds while the storage is open.
fn close_idle(slots: Weak<Slots>) {
    let sweep = move || {
        loop {
            std::thread::sleep(IDLE_WRITERS / 3);
            let Some(slots) = slots.upgrade() else {
                return;
            };
            slots.close_idle();
        }
    };
    if let Err(e) = std::thread::Builder::new()
        .name("idle-libraries".to_string())
        .spawn(sweep)
    {
        tracing::warn!(error = %e, "could not start closing idle libraries; they stay open");
    }
}

impl Slots {
    fn get(&self, id: &str) -> Option<Arc<Slot>> {
        self.by_id.read().get(id).cloned()
    }

    /// The slot's index, opened now when it is closed.
    fn index(
        &self,
        slot: &Slot,
        open: impl FnOnce(&Slot) -> Result<LibraryIndex, IndexError>,
    ) -> Result<Arc<LibraryIndex>, IndexError> {
        *slot.used.lock() = Instant::now();
        let mut index = slot.index.lock();
        if let Some(index) = index.as_ref() {
            return Ok(index.clone());
        }
        let opened = Arc::new(open(slot)?);
        *index = Some(opened.clone());
        drop(index);
        if self.open.fetch_add(1, Ordering::Relaxed) + 1 > MAX_OPEN {
            self.close_least_used();
        }
        Ok(opened)
    }

    /// Closes `slot`'s index if nobody holds it (its writers close first, their merges done).
    fn close(&self, slot: &Slot) -> bool {
        let mut index = slot.index.lock();
        let Some(open) = index.as_ref() else {
            return false;
        };
        if Arc::strong_count(open) > 1 {
            return false;
        }
        match open.close_idle_writers(Duration::ZERO) {
            Ok(_) if !open.has_writer() => {}
            // Being written: it stays.
            Ok(_) => return false,
            Err(e) => {
                tracing::warn!(dir = %slot.dir.display(), error = %e, "could not close a library's writers");
                return false;
            }
        }
        *index = None;
        self.open.fetch_sub(1, Ordering::Relaxed);
        true
    }

    /// Closes the least recently used libraries nobody holds until at most seven eighths of
    /// [`MAX_OPEN`] are open: one pass over the slots then serves the next many openings.
    fn close_least_used(&self) {
        let mut open: Vec<(Instant, Arc<Slot>)> = self
            .by_id
            .read()
            .values()
            .filter(|slot| slot.index.lock().is_some())
            .map(|slot| (*slot.used.lock(), slot.clone()))
            .collect();
        open.sort_by_key(|(used, _)| *used);
        let mut excess = self
            .open
            .load(Ordering::Relaxed)
            .saturating_sub(MAX_OPEN / 8 * 7);
        for (_, slot) in open {
            if excess == 0 {
                break;
            }
            if self.close(&slot) {
                excess -= 1;
            }
        }
    }

    /// Closes the writers of libraries idle for [`IDLE_WRITERS`] and the libraries idle for
    /// [`IDLE_INDEX`].
    fn close_idle(&self) {
        let slots: Vec<Arc<Slot>> = self.by_id.read().values().cloned().collect();
        for slot in slots {
            let idle = slot.used.lock().elapsed();
            if idle >= IDLE_INDEX {
                self.close(&slot);
                continue;
            }
            let open = slot.index.lock().clone();
            if let Some(index) = open
                && let Err(e) = index.close_idle_writers(IDLE_WRITERS)
            {
                tracing::warn!(dir = %slot.dir.display(), error = %e, "could not close an idle library's writers");
            }
        }
    }
}

/// A folder name for a library created now: its id and the time, so that it differs from the
/// folder of any earlier library of the same id.
fn new_folder_name(id: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{id}.{nanos:x}")
}

/// Whether `index` is still the open index of library `id` in `slots` (not deleted, not
/// created anew since it was looked up).
pub(super) fn is_current(
    slots: &HashMap<String, Arc<Slot>>,
    id: &str,
    index: &Arc<LibraryIndex>,
) -> bool {
    slots.get(id).is_some_and(|slot| slot.holds(index))
}

impl TantivyStorage {
    /// Opens the data directory `data_dir` (creating it when missing): every library its
    /// registry declares gets a slot and its keys in the candidate map (read from their log, or
    /// from the index for a library whose log is missing), and the folders no library declares
    /// are removed. Indexes open when first used.
    pub fn open(
        data_dir: &Path,
        analyzer: Analyzer,
        options: IndexOptions,
    ) -> Result<TantivyStorage, BackendError> {
        std::fs::create_dir_all(data_dir.join("libraries")).map_err(IndexError::io(data_dir))?;
        let storage = TantivyStorage {
            data_dir: data_dir.to_path_buf(),
            registry: Registry::open(&data_dir.join("registry.redb"))?,
            analyzer,
            options,
            candidates: Arc::new(CandidateMap::new()),
            indexes: Arc::new(Slots::default()),
            stopped_writers: RwLock::new(HashSet::new()),
            writers_to_reset: RwLock::new(HashSet::new()),
        };
        let records = storage.registry.list()?;
        for record in &records {
            storage.add_slot(record)?;
        }
        storage.remove_deleted_folders(&records);
        close_idle(Arc::downgrade(&storage.indexes));
        Ok(storage)
    }

    /// Gives library `record` its slot, its keys read into the candidate map.
    fn add_slot(&self, record: &LibraryRecord) -> Result<Arc<Slot>, IndexError> {
        let dir = self.library_dir(record);
        std::fs::create_dir_all(&dir).map_err(IndexError::io(&dir))?;
        prepare_schema(&dir)?;
        let generation = current_generation(&dir)?;
        let (candidates, complete) =
            CandidateShare::open(&self.candidates, &record.id, &dir, generation)?;
        let slot = Arc::new(Slot {
            dir,
            candidates,
            index: Mutex::new(None),
            used: Mutex::new(Instant::now()),
        });
        if !complete {
            // A library written before the map existed: its keys are read from its index once.
            let index = self.indexes.index(&slot, |slot| self.open_index(slot))?;
            index.rebuild_candidates()?;
        }
        self.indexes
            .by_id
            .write()
            .insert(record.id.clone(), slot.clone());
        Ok(slot)
    }

    /// The data directory.
    pub(super) fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// The folder of the library `record` declares.
    fn library_dir(&self, record: &LibraryRecord) -> PathBuf {
        let name = record.dir.as_deref().unwrap_or(&record.id);
        self.data_dir.join("libraries").join(name)
    }

    fn open_index(&self, slot: &Slot) -> Result<LibraryIndex, IndexError> {
        LibraryIndex::open_in(
            &slot.dir,
            &self.analyzer,
            &self.options,
            Some(slot.candidates.clone()),
        )
    }

    /// Removes the folders no library declares: those of libraries deleted while their files
    /// were still in use.
    fn remove_deleted_folders(&self, records: &[LibraryRecord]) {
        let kept: HashSet<PathBuf> = records.iter().map(|r| self.library_dir(r)).collect();
        let Ok(entries) = std::fs::read_dir(self.data_dir.join("libraries")) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir()
                && !kept.contains(&path)
                && let Err(e) = std::fs::remove_dir_all(&path)
            {
                tracing::warn!(dir = %path.display(), error = %e, "could not remove a deleted library's files");
            }
        }
    }

    /// The open indexes of library `id`, opened now if they are closed.
    pub(super) fn opened(&self, id: &str) -> Result<Arc<LibraryIndex>, BackendError> {
        LibraryId::parse(id).map_err(BackendError::InvalidId)?;
        let slot = self
            .indexes
            .get(id)
            .ok_or_else(|| BackendError::NotFound(id.to_string()))?;
        Ok(self.indexes.index(&slot, |slot| self.open_index(slot))?)
    }

    /// Libraries open now, for the figures of a benchmark.
    pub fn open_libraries(&self) -> usize {
        self.indexes.open.load(Ordering::Relaxed)
    }
}

impl Storage for TantivyStorage {
    fn backend(&self) -> Backend {
        Backend::Tantivy
    }

    fn create(&self, id: &str) -> Result<Arc<dyn LibraryStore>, BackendError> {
        LibraryId::parse(id).map_err(BackendError::InvalidId)?;
        match self.register(LibraryRecord::of_id(id, unix_now())) {
            Ok(()) | Err(BackendError::Registry(RegistryError::Exists(_))) => {}
            Err(e) => return Err(e),
        }
        let index: Arc<dyn LibraryStore> = self.opened(id)?;
        Ok(index)
    }

    /// The record's folder is named anew (whatever `record.dir` says).
    fn register(&self, record: LibraryRecord) -> Result<(), BackendError> {
        let record = LibraryRecord {
            dir: Some(new_folder_name(&record.id)),
            ..record
        };
        self.registry.insert(&record)?;
        let opened = self
            .add_slot(&record)
            .and_then(|slot| self.indexes.index(&slot, |slot| self.open_index(slot)));
        if let Err(e) = opened {
            self.indexes.by_id.write().remove(&record.id);
            let _ = self.registry.remove(&record.id);
            return Err(e.into());
        }
        Ok(())
    }

    fn open(&self, id: &str) -> Result<Option<Arc<dyn LibraryStore>>, BackendError> {
        let Some(slot) = self.indexes.get(id) else {
            return Ok(None);
        };
        let index = self.indexes.index(&slot, |slot| self.open_index(slot))?;
        Ok(Some(index as Arc<dyn LibraryStore>))
    }

    fn record(&self, id: &str) -> Result<Option<LibraryRecord>, BackendError> {
        Ok(self.registry.get(id)?)
    }

    fn records(&self) -> Result<Vec<LibraryRecord>, BackendError> {
        Ok(self.registry.list()?)
    }

    fn change_record(
        &self,
        id: &str,
        change: &mut dyn FnMut(&mut LibraryRecord),
    ) -> Result<RecordChange, BackendError> {
        LibraryId::parse(id).map_err(BackendError::InvalidId)?;
        Ok(self.registry.modify(id, change)?)
    }

    fn touch(&self, id: &str) -> Result<(), BackendError> {
        let now = unix_now();
        self.registry
            .modify(id, &mut |record| record.last_indexed = Some(now))?;
        Ok(())
    }

    fn delete(&self, id: &str) -> Result<bool, BackendError> {
        let mut slots = self.indexes.by_id.write();
        let Some(slot) = slots.remove(id) else {
            return Ok(false);
        };
        self.registry.remove(id)?;
        self.stopped_writers.write().remove(id);
        self.writers_to_reset.write().remove(id);
        drop(slots);
        slot.candidates.leave();
        // Requests, jobs and crawls that still hold the index keep reading their view; a write
        // of theirs fails or lands in this folder, which belongs to no library any more, and is
        // answered `NotFound` (see `writes.rs`).
        if slot.index.lock().take().is_some() {
            self.indexes.open.fetch_sub(1, Ordering::Relaxed);
        }
        let dir = slot.dir.clone();
        drop(slot);
        if let Err(e) = std::fs::remove_dir_all(&dir) {
            // The folder is removed on the next start.
            tracing::warn!(dir = %dir.display(), error = %e, "could not remove a deleted library's files");
        }
        Ok(true)
    }

    fn list(&self) -> Result<Vec<String>, BackendError> {
        let mut ids: Vec<String> = self.indexes.by_id.read().keys().cloned().collect();
        ids.sort();
        Ok(ids)
    }

    fn write(&self, id: &str, documents: &[PreparedDocument]) -> Result<(), BackendError> {
        self.add_documents(id, documents)
    }

    fn delete_document(&self, id: &str, doc_id: &str) -> Result<bool, BackendError> {
        self.remove_document(id, doc_id)
    }

    fn write_failed(&self, id: &str, error: BackendError) -> BackendError {
        self.sort_failure(id, error)
    }

    fn reopen_writer(&self, id: &str) -> Result<(), BackendError> {
        self.reset_writers(id)
    }

    fn index(&self, id: &str) -> Result<Arc<LibraryIndex>, BackendError> {
        self.opened(id)
    }

    fn disk_bytes(&self, id: &str) -> Option<u64> {
        let Some(slot) = self.indexes.get(id) else {
            return Some(0);
        };
        let mut total = 0;
        let mut pending = vec![slot.dir.clone()];
        while let Some(dir) = pending.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                match entry.metadata() {
                    Ok(meta) if meta.is_dir() => pending.push(entry.path()),
                    Ok(meta) => total += meta.len(),
                    Err(_) => {}
                }
            }
        }
        Some(total)
    }

    /// The libraries are files of the data directory: a backup of it holds them.
    fn backup_possible(&self, _what: &str) -> Result<(), BackendError> {
        Ok(())
    }

    fn snapshot_to(&self, dest: &Path) -> Result<Vec<(String, u64)>, BackendError> {
        let libraries_dir = dest.join("libraries");
        std::fs::create_dir_all(&libraries_dir).map_err(IndexError::io(&libraries_dir))?;
        let registry_copy = dest.join("registry.redb");
        self.registry.copy_to(&registry_copy)?;
        let mut copied = Vec::new();
        let mut deleted = Vec::new();
        let copied_registry = Registry::open(&registry_copy)?;
        for record in copied_registry.list()? {
            match self.opened(&record.id) {
                Ok(index) => {
                    // The copy keeps the library's own folder name, which its record names.
                    let folder = index.dir().file_name().unwrap_or_default().to_owned();
                    let documents = index.snapshot_to(&libraries_dir.join(folder))?;
                    copied.push((record.id, documents));
                }
                Err(BackendError::NotFound(_)) => deleted.push(record.id),
                Err(e) => return Err(e),
            }
        }
        // Deleted while the copy was taken: the copy holds neither record nor files.
        for id in deleted {
            copied_registry.remove(&id)?;
        }
        Ok(copied)
    }

    fn is_open(&self, id: &str) -> bool {
        self.indexes
            .get(id)
            .is_some_and(|slot| slot.index.lock().is_some())
    }

    fn candidate_libraries(&self, probe: &CandidateProbe<'_>) -> Option<HashSet<String>> {
        Some(self.candidates.libraries(probe))
    }

    fn libraries_holding_language(&self, language: &str) -> Option<HashSet<String>> {
        Some(self.candidates.libraries_holding(language))
    }

    /// One process owns a data directory: its unfinished re-indexes are resumed at start.
    fn shared_by_processes(&self) -> bool {
        false
    }
}
