//! The batch tables, in the report store's database so that a file's report, its summary line
//! and the removal of its bytes are one commit:
//!
//! - `batches`: job id → the batch (who sent it, its settings, its files' names, its state);
//! - `batch_files`: (job id, file number) → the bytes of a file not yet checked;
//! - `batch_items`: (job id, file number) → the summary line of a file checked.

use std::sync::Arc;

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition, WriteTransaction};
use serde::{Deserialize, Serialize};

use super::{BatchFile, BatchItem};
use dupfinder_check::{CheckRequest, ExcludeRequest};
use dupfinder_common::clock::unix_now;

const BATCHES: TableDefinition<&str, &[u8]> = TableDefinition::new("batches");
const FILES: TableDefinition<(&str, u32), &[u8]> = TableDefinition::new("batch_files");
const ITEMS: TableDefinition<(&str, u32), &[u8]> = TableDefinition::new("batch_items");

/// What can go wrong with a batch.
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    #[error("{files} files sent; a batch takes at most {limit} (`[batch] max_files`)")]
    TooManyFiles { files: usize, limit: usize },
    #[error("the files unpack to more than {limit} bytes (`[batch] max_unpacked_bytes`)")]
    TooLarge { limit: u64 },
    #[error("{0}")]
    Invalid(String),
    #[error("no batch `{0}`")]
    NotFound(String),
    #[error("batch store: {0}")]
    Store(String),
}

fn store_error(e: impl std::fmt::Display) -> BatchError {
    BatchError::Store(e.to_string())
}

/// The options every file of a batch is checked with (the `options` part).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchSettings {
    pub libraries: Option<Vec<String>>,
    pub passages: bool,
    pub min_similarity: f64,
    pub lang: Option<String>,
    pub exclude: ExcludeRequest,
    /// Keep each file's answer as a report.
    pub store: bool,
}

impl BatchSettings {
    /// The settings of `request` (its text aside).
    pub fn of(request: &CheckRequest, store: bool) -> BatchSettings {
        BatchSettings {
            libraries: request.libraries.clone(),
            passages: request.passages,
            min_similarity: request.min_similarity,
            lang: request.lang.clone(),
            exclude: request.exclude.clone(),
            store,
        }
    }

    /// The check of one file's `text`.
    pub fn request(&self, text: String) -> CheckRequest {
        CheckRequest {
            text,
            libraries: self.libraries.clone(),
            passages: self.passages,
            min_similarity: self.min_similarity,
            lang: self.lang.clone(),
            exclude: self.exclude.clone(),
        }
    }
}

/// Where a batch is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BatchState {
    /// Files remain to be checked (also after a restart, until it resumes).
    Running,
    Done,
    /// Stopped on request: the files not checked are listed with the error `aborted`.
    Aborted,
}

/// A batch as kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchRecord {
    pub job: String,
    pub created: u64,
    pub submitter: String,
    pub settings: BatchSettings,
    /// The files' names, in the order they were sent.
    pub names: Vec<String>,
    pub state: BatchState,
    pub finished_at: Option<u64>,
}

/// The batches of a data directory.
pub struct BatchStore {
    db: Arc<Database>,
}

impl BatchStore {
    /// Opens the batch tables in `db` (creating them).
    pub fn open(db: Arc<Database>) -> Result<BatchStore, BatchError> {
        let txn = db.begin_write().map_err(store_error)?;
        txn.open_table(BATCHES).map_err(store_error)?;
        txn.open_table(FILES).map_err(store_error)?;
        txn.open_table(ITEMS).map_err(store_error)?;
        txn.commit().map_err(store_error)?;
        Ok(BatchStore { db })
    }

    /// Keeps a new batch of `files` (durable when this returns); answers its record.
    pub fn create(
        &self,
        submitter: String,
        settings: BatchSettings,
        files: Vec<BatchFile>,
    ) -> Result<BatchRecord, BatchError> {
        let mut bytes = [0u8; 8];
        getrandom::fill(&mut bytes).map_err(store_error)?;
        let job = format!(
            "batch-{}",
            bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
        );
        let record = BatchRecord {
            job: job.clone(),
            created: unix_now(),
            submitter,
            settings,
            names: files.iter().map(|f| f.name.clone()).collect(),
            state: BatchState::Running,
            finished_at: None,
        };
        let txn = self.db.begin_write().map_err(store_error)?;
        {
            let mut table = txn.open_table(FILES).map_err(store_error)?;
            for (number, file) in files.iter().enumerate() {
                table
                    .insert((job.as_str(), number as u32), file.bytes.as_slice())
                    .map_err(store_error)?;
            }
        }
        put_record(&txn, &record)?;
        txn.commit().map_err(store_error)?;
        Ok(record)
    }

    /// The batch `job`.
    pub fn get(&self, job: &str) -> Result<BatchRecord, BatchError> {
        let txn = self.db.begin_read().map_err(store_error)?;
        let table = txn.open_table(BATCHES).map_err(store_error)?;
        let stored = table
            .get(job)
            .map_err(store_error)?
            .ok_or_else(|| BatchError::NotFound(job.to_string()))?;
        serde_json::from_slice(stored.value()).map_err(store_error)
    }

    /// The batches a crash or a restart left with files to check.
    pub fn unfinished(&self) -> Result<Vec<BatchRecord>, BatchError> {
        let txn = self.db.begin_read().map_err(store_error)?;
        let table = txn.open_table(BATCHES).map_err(store_error)?;
        let mut found = Vec::new();
        for row in table.iter().map_err(store_error)? {
            let (_, value) = row.map_err(store_error)?;
            let record: BatchRecord = serde_json::from_slice(value.value()).map_err(store_error)?;
            if record.state == BatchState::Running {
                found.push(record);
            }
        }
        Ok(found)
    }

    /// The numbers of the files of `job` not yet checked.
    pub fn pending(&self, job: &str) -> Result<Vec<u32>, BatchError> {
        let txn = self.db.begin_read().map_err(store_error)?;
        let table = txn.open_table(FILES).map_err(store_error)?;
        table
            .range((job, 0)..=(job, u32::MAX))
            .map_err(store_error)?
            .map(|row| row.map(|(key, _)| key.value().1).map_err(store_error))
            .collect()
    }

    /// The bytes of file `number` of `job`, if it is not yet checked.
    pub fn file(&self, job: &str, number: u32) -> Result<Option<Vec<u8>>, BatchError> {
        let txn = self.db.begin_read().map_err(store_error)?;
        let table = txn.open_table(FILES).map_err(store_error)?;
        Ok(table
            .get((job, number))
            .map_err(store_error)?
            .map(|v| v.value().to_vec()))
    }

    /// Records file `number` of `job` as checked, inside `txn` (the commit keeping its
    /// report): its summary line written, its bytes dropped.
    pub fn finish_in(
        &self,
        txn: &WriteTransaction,
        job: &str,
        number: u32,
        item: &BatchItem,
    ) -> Result<(), BatchError> {
        let encoded = serde_json::to_vec(item).map_err(store_error)?;
        txn.open_table(ITEMS)
            .map_err(store_error)?
            .insert((job, number), encoded.as_slice())
            .map_err(store_error)?;
        txn.open_table(FILES)
            .map_err(store_error)?
            .remove((job, number))
            .map_err(store_error)?;
        Ok(())
    }

    /// [`BatchStore::finish_in`] in a commit of its own.
    pub fn finish(&self, job: &str, number: u32, item: &BatchItem) -> Result<(), BatchError> {
        let txn = self.db.begin_write().map_err(store_error)?;
        self.finish_in(&txn, job, number, item)?;
        txn.commit().map_err(store_error)
    }

    /// Sets the state of `job` (`Done` or `Aborted` also set its end).
    pub fn set_state(&self, job: &str, state: BatchState) -> Result<BatchRecord, BatchError> {
        let mut record = self.get(job)?;
        record.state = state;
        if state != BatchState::Running {
            record.finished_at = Some(unix_now());
        }
        let txn = self.db.begin_write().map_err(store_error)?;
        put_record(&txn, &record)?;
        txn.commit().map_err(store_error)?;
        Ok(record)
    }

    /// The summary lines of the checked files of `job`, in the order the files were sent.
    pub fn items(&self, job: &str) -> Result<Vec<BatchItem>, BatchError> {
        let txn = self.db.begin_read().map_err(store_error)?;
        let table = txn.open_table(ITEMS).map_err(store_error)?;
        table
            .range((job, 0)..=(job, u32::MAX))
            .map_err(store_error)?
            .map(|row| {
                let (_, value) = row.map_err(store_error)?;
                serde_json::from_slice(value.value()).map_err(store_error)
            })
            .collect()
    }

    /// How many files of `job` are checked.
    pub fn done(&self, job: &str) -> Result<u64, BatchError> {
        let txn = self.db.begin_read().map_err(store_error)?;
        let table = txn.open_table(ITEMS).map_err(store_error)?;
        Ok(table
            .range((job, 0)..=(job, u32::MAX))
            .map_err(store_error)?
            .count() as u64)
    }
}

fn put_record(txn: &WriteTransaction, record: &BatchRecord) -> Result<(), BatchError> {
    let encoded = serde_json::to_vec(record).map_err(store_error)?;
    txn.open_table(BATCHES)
        .map_err(store_error)?
        .insert(record.job.as_str(), encoded.as_slice())
        .map_err(store_error)?;
    Ok(())
}
