//! The library registry: which libraries exist and how they were declared, kept in an embedded
//! transactional store (redb) so it survives restarts and crashes. The embedded backend keeps
//! its libraries' records here; PostgreSQL keeps the same [`LibraryRecord`] as JSON in the
//! database (`postgres/registry.rs`).

use std::path::{Path, PathBuf};

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use serde::{Deserialize, Serialize};

const LIBRARIES: TableDefinition<&str, &[u8]> = TableDefinition::new("libraries");

/// How a library was declared, and what happened to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LibraryRecord {
    pub id: String,
    pub name: String,
    pub start_url: Option<String>,
    pub clarifications: Vec<String>,
    /// A sitemap (or sitemap index) listing the library's articles.
    #[serde(default)]
    pub sitemap_url: Option<String>,
    /// Use the sitemaps the site's robots.txt names (else `/sitemap.xml`).
    #[serde(default)]
    pub use_sitemaps: bool,
    /// The base URL of the library's OAI-PMH endpoint.
    #[serde(default)]
    pub oai_url: Option<String>,
    /// The OAI-PMH set to harvest (default: every record).
    #[serde(default)]
    pub oai_set: Option<String>,
    /// Seconds since the Unix epoch.
    pub created_at: u64,
    /// When documents were last written, seconds since the Unix epoch.
    pub last_indexed: Option<u64>,
    /// The library's folder under `libraries/`, named anew each time a library is created so
    /// that a handle still held on a deleted library can never write into a library created
    /// again with the same id. `None`: the id itself (libraries created before this field).
    #[serde(default)]
    pub dir: Option<String>,
    /// How often the library is to be harvested again. Kept and shown; the crawler does not
    /// act on it yet.
    #[serde(default)]
    pub schedule: Option<Schedule>,
    /// Paused by an operator: its crawl is not started.
    #[serde(default)]
    pub paused: bool,
}

/// How often a library is to be harvested again: every `every_hours` hours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Schedule {
    pub every_hours: u32,
}

impl Schedule {
    /// The longest interval a schedule may name: a year.
    pub const MAX_HOURS: u32 = 24 * 366;
}

/// What a change of a library's record came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordChange {
    /// There is no such library.
    NotFound,
    /// The change left the record as it was; nothing was written.
    Unchanged,
    /// The changed record was written.
    Changed,
}

impl LibraryRecord {
    /// The record of a library declared by its id alone, created at `created_at` (seconds
    /// since the Unix epoch).
    pub fn of_id(id: &str, created_at: u64) -> LibraryRecord {
        LibraryRecord {
            id: id.to_string(),
            name: id.to_string(),
            start_url: None,
            clarifications: Vec::new(),
            sitemap_url: None,
            use_sitemaps: false,
            oai_url: None,
            oai_set: None,
            created_at,
            last_indexed: None,
            dir: None,
            schedule: None,
            paused: false,
        }
    }
}

/// What can go wrong with the registry.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error("the data directory {path} is in use by another dupfinder process (a running server?)")]
    InUse { path: PathBuf },
    #[error("registry store {path}: {reason}")]
    Store { path: PathBuf, reason: String },
    #[error("library `{0}` already exists")]
    Exists(String),
}

/// The persistent registry of libraries.
pub struct Registry {
    path: PathBuf,
    db: Database,
}

impl Registry {
    /// Opens (or creates) the registry at `path`.
    pub fn open(path: &Path) -> Result<Registry, RegistryError> {
        let db = Database::create(path).map_err(|e| match e {
            redb::DatabaseError::DatabaseAlreadyOpen => RegistryError::InUse {
                path: path.to_path_buf(),
            },
            e => RegistryError::Store {
                path: path.to_path_buf(),
                reason: e.to_string(),
            },
        })?;
        let registry = Registry {
            path: path.to_path_buf(),
            db,
        };
        // Create the table so that reads never meet a missing table.
        let txn = registry.db.begin_write().map_err(|e| registry.store(e))?;
        txn.open_table(LIBRARIES).map_err(|e| registry.store(e))?;
        txn.commit().map_err(|e| registry.store(e))?;
        Ok(registry)
    }

    /// Copies the registry, as of its last commit, into a new database at `dest`.
    pub fn copy_to(&self, dest: &Path) -> Result<(), RegistryError> {
        dupfinder_common::durable::copy_database(&self.db, dest, |from, to| {
            dupfinder_common::durable::copy_table(from, to, LIBRARIES)
        })
        .map_err(|e| self.store(e))
    }

    fn store(&self, e: impl std::fmt::Display) -> RegistryError {
        RegistryError::Store {
            path: self.path.clone(),
            reason: e.to_string(),
        }
    }

    /// Adds a new library; fails if the id is taken.
    pub fn insert(&self, record: &LibraryRecord) -> Result<(), RegistryError> {
        let txn = self.db.begin_write().map_err(|e| self.store(e))?;
        {
            let mut table = txn.open_table(LIBRARIES).map_err(|e| self.store(e))?;
            if table
                .get(record.id.as_str())
                .map_err(|e| self.store(e))?
                .is_some()
            {
                return Err(RegistryError::Exists(record.id.clone()));
            }
            let bytes = serde_json::to_vec(record).map_err(|e| self.store(e))?;
            table
                .insert(record.id.as_str(), bytes.as_slice())
                .map_err(|e| self.store(e))?;
        }
        txn.commit().map_err(|e| self.store(e))
    }

    /// Changes library `id`'s record by `change` in one write transaction, so that a change
    /// made meanwhile by another thread (a write stamping `last_indexed`, a declaration
    /// updated) is never lost; the record is written only when it changed.
    pub fn modify(
        &self,
        id: &str,
        change: &mut dyn FnMut(&mut LibraryRecord),
    ) -> Result<RecordChange, RegistryError> {
        let txn = self.db.begin_write().map_err(|e| self.store(e))?;
        {
            let mut table = txn.open_table(LIBRARIES).map_err(|e| self.store(e))?;
            let before: LibraryRecord = match table.get(id).map_err(|e| self.store(e))? {
                Some(value) => serde_json::from_slice(value.value()).map_err(|e| self.store(e))?,
                None => return Ok(RecordChange::NotFound),
            };
            let mut after = before.clone();
            change(&mut after);
            if after == before {
                return Ok(RecordChange::Unchanged);
            }
            let bytes = serde_json::to_vec(&after).map_err(|e| self.store(e))?;
            table
                .insert(id, bytes.as_slice())
                .map_err(|e| self.store(e))?;
        }
        txn.commit().map_err(|e| self.store(e))?;
        Ok(RecordChange::Changed)
    }

    /// Removes a library's record; returns whether it existed.
    pub fn remove(&self, id: &str) -> Result<bool, RegistryError> {
        let txn = self.db.begin_write().map_err(|e| self.store(e))?;
        let existed = {
            let mut table = txn.open_table(LIBRARIES).map_err(|e| self.store(e))?;
            table.remove(id).map_err(|e| self.store(e))?.is_some()
        };
        txn.commit().map_err(|e| self.store(e))?;
        Ok(existed)
    }

    /// A library's record.
    pub fn get(&self, id: &str) -> Result<Option<LibraryRecord>, RegistryError> {
        let txn = self.db.begin_read().map_err(|e| self.store(e))?;
        let table = txn.open_table(LIBRARIES).map_err(|e| self.store(e))?;
        let Some(value) = table.get(id).map_err(|e| self.store(e))? else {
            return Ok(None);
        };
        serde_json::from_slice(value.value())
            .map(Some)
            .map_err(|e| self.store(e))
    }

    /// Every library, ordered by id.
    pub fn list(&self) -> Result<Vec<LibraryRecord>, RegistryError> {
        let txn = self.db.begin_read().map_err(|e| self.store(e))?;
        let table = txn.open_table(LIBRARIES).map_err(|e| self.store(e))?;
        let mut records = Vec::new();
        for entry in table.iter().map_err(|e| self.store(e))? {
            let (_, value) = entry.map_err(|e| self.store(e))?;
            records.push(serde_json::from_slice(value.value()).map_err(|e| self.store(e))?);
        }
        Ok(records)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str) -> LibraryRecord {
        LibraryRecord {
            name: id.to_uppercase(),
            clarifications: vec!["post".to_string()],
            ..LibraryRecord::of_id(id, 1)
        }
    }

    #[test]
    fn records_survive_reopening_and_ids_are_unique() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("registry.redb");
        {
            let registry = Registry::open(&path).unwrap();
            registry.insert(&record("ru")).unwrap();
            registry.insert(&record("acl")).unwrap();
            assert!(matches!(
                registry.insert(&record("ru")),
                Err(RegistryError::Exists(_))
            ));
        }
        let registry = Registry::open(&path).unwrap();
        let ids: Vec<String> = registry.list().unwrap().into_iter().map(|r| r.id).collect();
        assert_eq!(ids, ["acl", "ru"]);
        assert!(registry.remove("acl").unwrap());
        assert!(!registry.remove("acl").unwrap());
        assert_eq!(registry.get("ru").unwrap(), Some(record("ru")));
    }

    #[test]
    fn a_record_is_changed_in_place_and_written_only_when_it_changed() {
        let dir = tempfile::tempdir().unwrap();
        let registry = Registry::open(&dir.path().join("registry.redb")).unwrap();
        registry.insert(&record("ru")).unwrap();
        let pause = &mut |r: &mut LibraryRecord| r.paused = true;
        assert_eq!(registry.modify("ru", pause).unwrap(), RecordChange::Changed);
        assert_eq!(
            registry.modify("ru", pause).unwrap(),
            RecordChange::Unchanged
        );
        assert_eq!(
            registry.modify("acl", pause).unwrap(),
            RecordChange::NotFound
        );
        assert!(registry.get("ru").unwrap().unwrap().paused);
    }

    /// Records written before `schedule` and `paused` existed read with neither.
    #[test]
    fn a_record_written_before_schedules_reads_unscheduled_and_running() {
        let dir = tempfile::tempdir().unwrap();
        let registry = Registry::open(&dir.path().join("registry.redb")).unwrap();
        let old = r#"{"id":"old","name":"Old","start_url":"https://old.example/",
            "clarifications":["/a/"],"sitemap_url":null,"use_sitemaps":false,"oai_url":null,
            "oai_set":null,"created_at":5,"last_indexed":7,"dir":"old.1"}"#;
        let txn = registry.db.begin_write().unwrap();
        txn.open_table(LIBRARIES)
            .unwrap()
            .insert("old", old.as_bytes())
            .unwrap();
        txn.commit().unwrap();
        let read = registry.get("old").unwrap().unwrap();
        assert_eq!((read.schedule, read.paused), (None, false));
        assert_eq!((read.name.as_str(), read.last_indexed), ("Old", Some(7)));
        assert_eq!(registry.list().unwrap(), [read]);
    }
}
