//! Checking a batch's files, one after the other, each as a check of one file would be:
//! extracted through the process's extraction places under `[extract]`'s bounds and time,
//! checked with the batch's settings, kept as a report. A file that fails becomes a line with
//! the error it would get alone; the batch goes on. A file whose extraction the server's stop
//! cut short is left for the batch to resume.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::{BatchError, BatchItem, BatchLine, BatchRecord, BatchState};
use crate::library::{self, Catalog, FileCheckError};
use crate::reports::Report;
use dupfinder_check::CancelFlag;
use dupfinder_common::error_code::ErrorCode;
use dupfinder_text::extract::ExtractError;

/// How a running batch is followed and stopped.
pub struct BatchControl<'a> {
    /// Set to stop before the next file, listing the files left as `aborted`.
    pub cancel: &'a AtomicBool,
    /// Set when the server stops: the files left stay for the batch to resume at the next
    /// start.
    pub stopping: &'a AtomicBool,
    /// Files checked so far.
    pub done: &'a AtomicU64,
}

/// Checks the files of batch `job` not yet checked; answers the state it ended in.
pub fn run_batch(
    catalog: &Catalog,
    job: &str,
    control: &BatchControl<'_>,
) -> Result<BatchState, BatchError> {
    let batches = catalog.batches();
    let record = batches.get(job)?;
    if record.state == BatchState::Done {
        return Ok(record.state);
    }
    control.done.store(batches.done(job)?, Ordering::Relaxed);
    let mut aborted = false;
    loop {
        if control.stopping.load(Ordering::Relaxed) {
            return Ok(BatchState::Running);
        }
        let Some((number, bytes)) = batches.claim(job)? else {
            break;
        };
        let name = record
            .names
            .get(number as usize)
            .cloned()
            .unwrap_or_else(|| format!("file{}", number + 1));
        // Aborted here, or through any process (the batch store says so).
        if control.cancel.load(Ordering::Relaxed) || batches.get(job)?.state == BatchState::Aborted
        {
            aborted = true;
            let item = BatchItem::failed(
                name,
                ErrorCode::Aborted,
                "the batch was aborted before this file",
            );
            finish(batches, job, number, &item)?;
            continue;
        }
        match check_file(catalog, &record, number, name, &bytes) {
            Ok(true) => {}
            Ok(false) => {
                // The server is stopping: the file stays for the batch to resume.
                batches.release(job, number)?;
                return Ok(BatchState::Running);
            }
            // Its lease passed while it was checked here, and another process recorded it
            // first: its line and report are that process's, and nothing was kept here.
            Err(error) if batches.recorded(job, number)? => {
                tracing::warn!(job, number, %error, "a batch's file was recorded by another server process");
            }
            Err(error) => return Err(error),
        }
        // Other server processes may check files of the batch too (on a shared database).
        control.done.store(batches.done(job)?, Ordering::Relaxed);
    }
    if batches.remaining(job)? > 0 {
        // Another server process holds the files left: the batch ends there.
        return Ok(BatchState::Running);
    }
    let state = if aborted {
        BatchState::Aborted
    } else {
        BatchState::Done
    };
    Ok(batches.set_state(job, state)?.state)
}

/// Checks one file and records its line (with its report, in one commit); `false` when its
/// extraction was stopped because the server is stopping (nothing recorded).
fn check_file(
    catalog: &Catalog,
    record: &BatchRecord,
    number: u32,
    name: String,
    bytes: &[u8],
) -> Result<bool, BatchError> {
    let job = record.job.as_str();
    let batches = catalog.batches();
    let request = record.settings.request(String::new());
    let checked = match library::check_file(catalog, &name, bytes, request, &CancelFlag::new()) {
        Ok(checked) => checked,
        Err(FileCheckError::Extract(ExtractError::Cancelled)) => return Ok(false),
        // A file that cannot be read or checked is a line of the summary with its code; the
        // line names the file, the message needs not. The server's own failures are logged.
        Err(error) => {
            let message = match error.code() {
                ErrorCode::Internal => {
                    tracing::error!(job, file = %name, %error, "a batch's file was not checked");
                    "internal error; the details are in the server log".to_string()
                }
                _ => error.to_string(),
            };
            let item = BatchItem::failed(name, error.code(), message);
            return finish(batches, job, number, &item);
        }
    };
    let mut item = BatchItem::checked(name.clone(), &checked);
    if !record.settings.store {
        return finish(batches, job, number, &item);
    }
    let answer = checked
        .answer()
        .map_err(|e| BatchError::Store(e.to_string()))?;
    let id = catalog
        .reports()
        .new_id()
        .map_err(|e| BatchError::Store(e.to_string()))?;
    item.report_id = Some(id.clone());
    let mut report = Report::of_check(
        id,
        &checked.request,
        answer,
        record.submitter.clone(),
        Some(name),
    );
    let line = BatchLine {
        job,
        number,
        item: &item,
    };
    catalog
        .keep_report_with(&mut report, Some(line))
        .map_err(|e| BatchError::Store(e.to_string()))?;
    Ok(true)
}

/// Records the line of file `number` of `job` without a report; `true`: go on.
fn finish(
    batches: &dyn crate::batch::BatchStore,
    job: &str,
    number: u32,
    item: &BatchItem,
) -> Result<bool, BatchError> {
    batches.finish(BatchLine { job, number, item })?;
    Ok(true)
}
