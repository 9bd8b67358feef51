//! The libraries of a data directory: their records in the registry (`registry.redb`), one
//! folder of tantivy indexes each under `libraries/`, all opened at start and kept open.
//!
//! Each library lives in its own folder `libraries/<id>.<creation time>` (named in its record),
//! so that a handle still held on a deleted library (a write, a job, a crawl) writes only into
//! that library's old folder, never into a library created again with the same id; such a
//! write is answered [`BackendError::NotFound`], and the old folder is removed (or, if busy, on
//! the next start).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::RwLock;

use crate::candidates::{CandidateMap, CandidateProbe};
use crate::index::{IndexError, IndexOptions, LibraryIndex, PreparedDocument};
use crate::{
    Backend, BackendError, LibraryId, LibraryRecord, LibraryStore, RecordChange, Registry,
    RegistryError, Storage,
};
use dupfinder_common::clock::unix_now;
use dupfinder_text::analysis::Analyzer;

/// The libraries of one data directory, one tantivy index each, opened once per process (an
/// index has one writer).
pub struct TantivyStorage {
    data_dir: PathBuf,
    registry: Registry,
    analyzer: Analyzer,
    options: IndexOptions,
    /// Which libraries may hold a check's candidates.
    candidates: Arc<CandidateMap>,
    /// Every library's open indexes, by id.
    pub(super) indexes: RwLock<HashMap<String, Arc<LibraryIndex>>>,
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

/// A folder name for a library created now: its id and the time, so that it differs from the
/// folder of any earlier library of the same id.
fn new_folder_name(id: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{id}.{nanos:x}")
}

/// Whether `index` is still the open index of library `id` in `indexes` (not deleted, not
/// created anew since it was looked up).
pub(super) fn is_current(
    indexes: &HashMap<String, Arc<LibraryIndex>>,
    id: &str,
    index: &Arc<LibraryIndex>,
) -> bool {
    indexes
        .get(id)
        .is_some_and(|current| Arc::ptr_eq(current, index))
}

impl TantivyStorage {
    /// Opens the data directory `data_dir` (creating it when missing) and every library its
    /// registry declares, and removes the folders no library declares.
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
            indexes: RwLock::new(HashMap::new()),
            stopped_writers: RwLock::new(HashSet::new()),
            writers_to_reset: RwLock::new(HashSet::new()),
        };
        let records = storage.registry.list()?;
        for record in &records {
            let index = storage.open_index(record)?;
            storage
                .indexes
                .write()
                .insert(record.id.clone(), Arc::new(index));
        }
        storage.remove_deleted_folders(&records);
        Ok(storage)
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

    fn open_index(&self, record: &LibraryRecord) -> Result<LibraryIndex, IndexError> {
        LibraryIndex::open_in(
            &self.library_dir(record),
            &self.analyzer,
            &self.options,
            Some((&self.candidates, &record.id)),
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

    /// The open indexes of library `id`.
    pub(super) fn opened(&self, id: &str) -> Result<Arc<LibraryIndex>, BackendError> {
        LibraryId::parse(id).map_err(BackendError::InvalidId)?;
        self.indexes
            .read()
            .get(id)
            .cloned()
            .ok_or_else(|| BackendError::NotFound(id.to_string()))
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
        let mut indexes = self.indexes.write();
        self.registry.insert(&record)?;
        let index = match self.open_index(&record) {
            Ok(index) => index,
            Err(e) => {
                let _ = self.registry.remove(&record.id);
                return Err(e.into());
            }
        };
        indexes.insert(record.id, Arc::new(index));
        Ok(())
    }

    fn open(&self, id: &str) -> Result<Option<Arc<dyn LibraryStore>>, BackendError> {
        let index = self.indexes.read().get(id).cloned();
        Ok(index.map(|index| index as Arc<dyn LibraryStore>))
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
        let mut indexes = self.indexes.write();
        let Some(index) = indexes.remove(id) else {
            return Ok(false);
        };
        self.registry.remove(id)?;
        self.stopped_writers.write().remove(id);
        self.writers_to_reset.write().remove(id);
        drop(indexes);
        index.leave_candidates();
        // Requests, jobs and crawls that still hold the index keep reading their view; a write
        // of theirs fails or lands in this folder, which belongs to no library any more, and is
        // answered `NotFound` (see `writes.rs`).
        let dir = index.dir().to_path_buf();
        drop(index);
        if let Err(e) = std::fs::remove_dir_all(&dir) {
            // The folder is removed on the next start.
            tracing::warn!(dir = %dir.display(), error = %e, "could not remove a deleted library's files");
        }
        Ok(true)
    }

    fn list(&self) -> Result<Vec<String>, BackendError> {
        let mut ids: Vec<String> = self.indexes.read().keys().cloned().collect();
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
        let Ok(index) = self.opened(id) else {
            return Some(0);
        };
        let mut total = 0;
        let mut pending = vec![index.dir().to_path_buf()];
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

    fn candidate_libraries(&self, probe: &CandidateProbe<'_>) -> Option<HashSet<String>> {
        Some(self.candidates.libraries(probe))
    }

    /// One process owns a data directory: its unfinished re-indexes are resumed at start.
    fn shared_by_processes(&self) -> bool {
        false
    }
}
