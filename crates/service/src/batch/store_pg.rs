//! The batches in the database (`batches`, `batch_files`, `batch_items`), shared by every
//! server process: a batch sent to one is followed, and its lines read, through any other.
//!
//! Every process serving the database may check a batch's files: each takes one file at a time
//! with `FOR UPDATE SKIP LOCKED` and holds it for `[batch] lease_secs`. The file's line, its
//! report and the removal of its bytes are one transaction, which fails (and keeps nothing)
//! when the file was recorded meanwhile by a process that took it after the lease passed; so a
//! file is reported once, and a process killed in the middle of a file leaves it to be taken
//! again once its lease has passed.

use dupfinder_storage::postgres::PgDatabase;

use super::store::{BatchLine, new_record, with_state};
use super::{BatchError, BatchFile, BatchItem, BatchRecord, BatchSettings, BatchState, BatchStore};
use crate::pg::{Client, DbFail, millis_now, run};

/// The batches of a PostgreSQL database.
pub struct PgBatches {
    db: PgDatabase,
    /// How long a claimed file is held, in milliseconds.
    lease_ms: i64,
}

fn fail(e: DbFail) -> BatchError {
    BatchError::Store(e.to_string())
}

fn state_name(state: BatchState) -> &'static str {
    match state {
        BatchState::Running => "running",
        BatchState::Done => "done",
        BatchState::Aborted => "aborted",
    }
}

/// Records `line` inside `tx` (the transaction keeping the file's report); fails when the file
/// was recorded already (by a process that took it over), so that the transaction keeps nothing.
pub(crate) async fn finish_in_pg(
    tx: &tokio_postgres::Transaction<'_>,
    line: &BatchLine<'_>,
) -> Result<(), DbFail> {
    let number = line.number as i32;
    let dropped = tx
        .execute(
            "DELETE FROM batch_files WHERE job = $1 AND number = $2",
            &[&line.job, &number],
        )
        .await?;
    if dropped == 0 {
        return Err(DbFail(format!(
            "file {} of batch `{}` was recorded already by another server process",
            line.number + 1,
            line.job
        )));
    }
    let item = serde_json::to_string(line.item)?;
    tx.execute(
        "INSERT INTO batch_items (job, number, item) VALUES ($1, $2, $3)",
        &[&line.job, &number, &item],
    )
    .await?;
    Ok(())
}

impl PgBatches {
    pub fn new(db: PgDatabase, lease_secs: u64) -> PgBatches {
        PgBatches {
            db,
            lease_ms: lease_secs.max(1).saturating_mul(1000).min(i64::MAX as u64) as i64,
        }
    }

    fn count(&self, sql: &str, job: &str) -> Result<u64, BatchError> {
        run(&self.db, async |client| {
            let count: i64 = client.query_one(sql, &[&job]).await?.get(0);
            Ok(count as u64)
        })
        .map_err(fail)
    }
}

impl BatchStore for PgBatches {
    fn create(
        &self,
        submitter: String,
        settings: BatchSettings,
        files: Vec<BatchFile>,
    ) -> Result<BatchRecord, BatchError> {
        let record = new_record(submitter, settings, &files)?;
        let encoded = serde_json::to_string(&record).map_err(|e| fail(e.into()))?;
        let job = record.job.as_str();
        run(&self.db, async |client: &mut Client| {
            let tx = client.transaction().await?;
            tx.execute(
                "INSERT INTO batches (job, state, record) VALUES ($1, 'running', $2)",
                &[&job, &encoded],
            )
            .await?;
            let insert = tx
                .prepare("INSERT INTO batch_files (job, number, bytes) VALUES ($1, $2, $3)")
                .await?;
            for (number, file) in files.iter().enumerate() {
                tx.execute(&insert, &[&job, &(number as i32), &file.bytes])
                    .await?;
            }
            Ok(tx.commit().await?)
        })
        .map_err(fail)?;
        Ok(record)
    }

    fn get(&self, job: &str) -> Result<BatchRecord, BatchError> {
        let found = run(&self.db, async |client| {
            let row = client
                .query_opt("SELECT record FROM batches WHERE job = $1", &[&job])
                .await?;
            match row {
                Some(row) => Ok(Some(serde_json::from_str(row.get::<_, &str>(0))?)),
                None => Ok(None),
            }
        })
        .map_err(fail)?;
        found.ok_or_else(|| BatchError::NotFound(job.to_string()))
    }

    fn unfinished(&self) -> Result<Vec<BatchRecord>, BatchError> {
        run(&self.db, async |client| {
            let rows = client
                .query(
                    "SELECT record FROM batches WHERE state = 'running' ORDER BY job",
                    &[],
                )
                .await?;
            let mut found = Vec::new();
            for row in rows {
                found.push(serde_json::from_str(row.get::<_, &str>(0))?);
            }
            Ok(found)
        })
        .map_err(fail)
    }

    fn claim(&self, job: &str) -> Result<Option<(u32, Vec<u8>)>, BatchError> {
        let now = millis_now();
        let until = now.saturating_add(self.lease_ms);
        run(&self.db, async |client| {
            let row = client
                .query_opt(
                    "UPDATE batch_files f SET lease_until = $3
                     FROM (SELECT job, number FROM batch_files
                           WHERE job = $1 AND lease_until < $2
                           ORDER BY number LIMIT 1 FOR UPDATE SKIP LOCKED) c
                     WHERE f.job = c.job AND f.number = c.number
                     RETURNING f.number, f.bytes",
                    &[&job, &now, &until],
                )
                .await?;
            Ok(row.map(|row| (row.get::<_, i32>(0) as u32, row.get::<_, Vec<u8>>(1))))
        })
        .map_err(fail)
    }

    fn release(&self, job: &str, number: u32) -> Result<(), BatchError> {
        let number = number as i32;
        run(&self.db, async |client| {
            client
                .execute(
                    "UPDATE batch_files SET lease_until = 0 WHERE job = $1 AND number = $2",
                    &[&job, &number],
                )
                .await?;
            Ok(())
        })
        .map_err(fail)
    }

    fn finish(&self, line: BatchLine<'_>) -> Result<(), BatchError> {
        run(&self.db, async |client: &mut Client| {
            let tx = client.transaction().await?;
            finish_in_pg(&tx, &line).await?;
            Ok(tx.commit().await?)
        })
        .map_err(fail)
    }

    /// A batch that ended stays as it ended (two processes may both see its last file go).
    fn set_state(&self, job: &str, state: BatchState) -> Result<BatchRecord, BatchError> {
        let changed = run(&self.db, async |client: &mut Client| {
            let tx = client.transaction().await?;
            let Some(row) = tx
                .query_opt(
                    "SELECT record FROM batches WHERE job = $1 FOR UPDATE",
                    &[&job],
                )
                .await?
            else {
                return Ok(None);
            };
            let record: BatchRecord = serde_json::from_str(row.get::<_, &str>(0))?;
            if record.state != BatchState::Running {
                return Ok(Some(record));
            }
            let record = with_state(record, state);
            let encoded = serde_json::to_string(&record)?;
            tx.execute(
                "UPDATE batches SET state = $2, record = $3 WHERE job = $1",
                &[&job, &state_name(state), &encoded],
            )
            .await?;
            tx.commit().await?;
            Ok(Some(record))
        })
        .map_err(fail)?;
        changed.ok_or_else(|| BatchError::NotFound(job.to_string()))
    }

    fn items(&self, job: &str) -> Result<Vec<BatchItem>, BatchError> {
        run(&self.db, async |client| {
            let rows = client
                .query(
                    "SELECT item FROM batch_items WHERE job = $1 ORDER BY number",
                    &[&job],
                )
                .await?;
            let mut items = Vec::new();
            for row in rows {
                items.push(serde_json::from_str(row.get::<_, &str>(0))?);
            }
            Ok(items)
        })
        .map_err(fail)
    }

    fn done(&self, job: &str) -> Result<u64, BatchError> {
        self.count("SELECT count(*) FROM batch_items WHERE job = $1", job)
    }

    fn remaining(&self, job: &str) -> Result<u64, BatchError> {
        self.count("SELECT count(*) FROM batch_files WHERE job = $1", job)
    }

    fn recorded(&self, job: &str, number: u32) -> Result<bool, BatchError> {
        let number = number as i32;
        run(&self.db, async |client| {
            let row = client
                .query_opt(
                    "SELECT 1 FROM batch_items WHERE job = $1 AND number = $2",
                    &[&job, &number],
                )
                .await?;
            Ok(row.is_some())
        })
        .map_err(fail)
    }

    fn claimable(&self, job: &str) -> Result<bool, BatchError> {
        let now = millis_now();
        run(&self.db, async |client| {
            let row = client
                .query_opt(
                    "SELECT 1 FROM batch_files WHERE job = $1 AND lease_until < $2 LIMIT 1",
                    &[&job, &now],
                )
                .await?;
            Ok(row.is_some())
        })
        .map_err(fail)
    }
}
