//! The batches: a [`BatchStore`], kept in tables of `<data>/reports.redb` ([`EmbeddedBatches`])
//! or, with `[storage] backend = "postgres"`, in the database (`store_pg.rs`), beside the
//! reports in either case, so that a file's report, its summary line and the removal of its
//! bytes are one commit.
//!
//! In `reports.redb`:
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

pub(super) fn store_error(e: impl std::fmt::Display) -> BatchError {
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
            cross_language: true,
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

/// A batch's file checked: its summary line, written in the commit that drops its bytes.
#[derive(Debug, Clone, Copy)]
pub struct BatchLine<'a> {
    pub job: &'a str,
    pub number: u32,
    pub item: &'a BatchItem,
}

/// The batches, wherever they are kept.
pub trait BatchStore: Send + Sync {
    /// Keeps a new batch of `files` (durable when this returns); answers its record.
    fn create(
        &self,
        submitter: String,
        settings: BatchSettings,
        files: Vec<BatchFile>,
    ) -> Result<BatchRecord, BatchError>;

    /// The batch `job`.
    fn get(&self, job: &str) -> Result<BatchRecord, BatchError>;

    /// The batches still running: with files to check (a crash or a restart left them), or
    /// being checked (by another process, on a shared database).
    fn unfinished(&self) -> Result<Vec<BatchRecord>, BatchError>;

    /// Takes the first file of `job` not yet checked that no process holds, with its bytes:
    /// held by this process for `[batch] lease_secs` (a process killed while checking it lets
    /// another take it then). `None`: every file left is checked or held.
    fn claim(&self, job: &str) -> Result<Option<(u32, Vec<u8>)>, BatchError>;

    /// Lets another process take file `number` of `job` at once (this one stops).
    fn release(&self, job: &str, number: u32) -> Result<(), BatchError>;

    /// Records `line` in a commit of its own: its summary line written, its bytes dropped.
    fn finish(&self, line: BatchLine<'_>) -> Result<(), BatchError>;

    /// Sets the state of `job` (`Done` or `Aborted` also set its end).
    fn set_state(&self, job: &str, state: BatchState) -> Result<BatchRecord, BatchError>;

    /// The summary lines of the checked files of `job`, in the order the files were sent.
    fn items(&self, job: &str) -> Result<Vec<BatchItem>, BatchError>;

    /// How many files of `job` are checked.
    fn done(&self, job: &str) -> Result<u64, BatchError>;

    /// How many files of `job` are not yet checked (held by a process or not).
    fn remaining(&self, job: &str) -> Result<u64, BatchError>;

    /// Whether `job` has a file no process holds.
    fn claimable(&self, job: &str) -> Result<bool, BatchError>;

    /// Whether file `number` of `job` has its line (recorded by this process or another).
    fn recorded(&self, job: &str, number: u32) -> Result<bool, BatchError>;
}

/// A new batch's record, with a random job id.
pub(super) fn new_record(
    submitter: String,
    settings: BatchSettings,
    files: &[BatchFile],
) -> Result<BatchRecord, BatchError> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(store_error)?;
    let job = format!(
        "batch-{}",
        bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
    );
    Ok(BatchRecord {
        job,
        created: unix_now(),
        submitter,
        settings,
        names: files.iter().map(|f| f.name.clone()).collect(),
        state: BatchState::Running,
        finished_at: None,
    })
}

/// `record` in state `state` (`Done` or `Aborted` also set its end).
pub(super) fn with_state(mut record: BatchRecord, state: BatchState) -> BatchRecord {
    record.state = state;
    if state != BatchState::Running {
        record.finished_at = Some(unix_now());
    }
    record
}

/// Records `line` inside `txn` (the commit keeping the file's report): its summary line
/// written, its bytes dropped.
pub(crate) fn finish_in(txn: &WriteTransaction, line: &BatchLine<'_>) -> Result<(), BatchError> {
    let encoded = serde_json::to_vec(line.item).map_err(store_error)?;
    let key = (line.job, line.number);
    txn.open_table(ITEMS)
        .map_err(store_error)?
        .insert(key, encoded.as_slice())
        .map_err(store_error)?;
    txn.open_table(FILES)
        .map_err(store_error)?
        .remove(key)
        .map_err(store_error)?;
    Ok(())
}

/// The batches of a data directory.
pub struct EmbeddedBatches {
    db: Arc<Database>,
}

impl EmbeddedBatches {
    /// Opens the batch tables in `db` (creating them).
    pub fn open(db: Arc<Database>) -> Result<EmbeddedBatches, BatchError> {
        let txn = db.begin_write().map_err(store_error)?;
        txn.open_table(BATCHES).map_err(store_error)?;
        txn.open_table(FILES).map_err(store_error)?;
        txn.open_table(ITEMS).map_err(store_error)?;
        txn.commit().map_err(store_error)?;
        Ok(EmbeddedBatches { db })
    }

    fn count(
        &self,
        table: TableDefinition<(&str, u32), &[u8]>,
        job: &str,
    ) -> Result<u64, BatchError> {
        let txn = self.db.begin_read().map_err(store_error)?;
        let table = txn.open_table(table).map_err(store_error)?;
        Ok(table
            .range((job, 0)..=(job, u32::MAX))
            .map_err(store_error)?
            .count() as u64)
    }
}

/// One process checks a data directory's batches: a file is held by its running batch alone.
impl BatchStore for EmbeddedBatches {
    fn create(
        &self,
        submitter: String,
        settings: BatchSettings,
        files: Vec<BatchFile>,
    ) -> Result<BatchRecord, BatchError> {
        let record = new_record(submitter, settings, &files)?;
        let job = record.job.clone();
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

    fn get(&self, job: &str) -> Result<BatchRecord, BatchError> {
        let txn = self.db.begin_read().map_err(store_error)?;
        let table = txn.open_table(BATCHES).map_err(store_error)?;
        let stored = table
            .get(job)
            .map_err(store_error)?
            .ok_or_else(|| BatchError::NotFound(job.to_string()))?;
        serde_json::from_slice(stored.value()).map_err(store_error)
    }

    fn unfinished(&self) -> Result<Vec<BatchRecord>, BatchError> {
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

    fn claim(&self, job: &str) -> Result<Option<(u32, Vec<u8>)>, BatchError> {
        let txn = self.db.begin_read().map_err(store_error)?;
        let table = txn.open_table(FILES).map_err(store_error)?;
        let mut rows = table
            .range((job, 0)..=(job, u32::MAX))
            .map_err(store_error)?;
        match rows.next() {
            Some(row) => {
                let (key, bytes) = row.map_err(store_error)?;
                Ok(Some((key.value().1, bytes.value().to_vec())))
            }
            None => Ok(None),
        }
    }

    fn release(&self, _job: &str, _number: u32) -> Result<(), BatchError> {
        Ok(())
    }

    fn finish(&self, line: BatchLine<'_>) -> Result<(), BatchError> {
        let txn = self.db.begin_write().map_err(store_error)?;
        finish_in(&txn, &line)?;
        txn.commit().map_err(store_error)
    }

    fn set_state(&self, job: &str, state: BatchState) -> Result<BatchRecord, BatchError> {
        let record = with_state(self.get(job)?, state);
        let txn = self.db.begin_write().map_err(store_error)?;
        put_record(&txn, &record)?;
        txn.commit().map_err(store_error)?;
        Ok(record)
    }

    fn items(&self, job: &str) -> Result<Vec<BatchItem>, BatchError> {
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

    fn done(&self, job: &str) -> Result<u64, BatchError> {
        self.count(ITEMS, job)
    }

    fn remaining(&self, job: &str) -> Result<u64, BatchError> {
        self.count(FILES, job)
    }

    fn claimable(&self, job: &str) -> Result<bool, BatchError> {
        Ok(self.remaining(job)? > 0)
    }

    fn recorded(&self, job: &str, number: u32) -> Result<bool, BatchError> {
        let txn = self.db.begin_read().map_err(store_error)?;
        let table = txn.open_table(ITEMS).map_err(store_error)?;
        Ok(table.get((job, number)).map_err(store_error)?.is_some())
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
