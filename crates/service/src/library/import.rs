//! Bulk import of corpus files: JSON Lines, plain or gzip-compressed (`.jsonl`, `.jsonl.gz`).
//!
//! Lines are parsed and analyzed on one thread while the previous batch is written on another;
//! every [`COMMIT_EVERY`] documents (or [`COMMIT_TEXT_BYTES`] of text) are committed together (fewer, larger segments to merge), so
//! an interrupted import keeps every group it committed. When the file is done the library's
//! statistics are rebuilt and every document is re-signed.

use std::path::Path;
use std::sync::{Arc, mpsc};
use std::time::Instant;

use serde::Serialize;

use super::catalog::{Catalog, LibraryError, NewLibrary, RejectedLine, RejectedReason};
use super::corpus::CorpusReader;
use dupfinder_common::error_code::ErrorCode;
use dupfinder_storage::index::{PreparedDocument, RebuildControl, RebuildOutcome};
use dupfinder_storage::ingest::prepare;
use dupfinder_storage::{BackendError, LibraryStore};

const BATCH: usize = 2_000;
/// Bytes of text in one batch at most, whatever its document count: a prepared document holds
/// about ten times its text (tokens, terms, shingles), and up to four batches are in flight
/// (read, two queued, written), so a batch of full papers stays at tens of megabytes instead
/// of the gigabytes 2,000 of them would take.
const BATCH_TEXT_BYTES: usize = 8 << 20;
/// Documents per commit.
const COMMIT_EVERY: usize = 20_000;
/// Bytes of text per commit at most. The index writer queues what it is given until its one
/// indexing thread takes it (up to 10,000 documents, each holding its text and its tokens:
/// ~400 KB for a full paper), and analysis outruns indexing, so without a commit to wait on
/// an import of full papers held gigabytes in that queue.
const COMMIT_TEXT_BYTES: usize = 16 << 20;
/// Rejected lines kept in the summary; the rest are only counted.
const MAX_REJECTIONS_KEPT: usize = 1_000;

/// What an import did.
#[derive(Debug, Clone, Serialize)]
pub struct ImportSummary {
    pub library: String,
    pub accepted: usize,
    /// Every rejected line.
    pub rejected_lines: usize,
    /// The first [`MAX_REJECTIONS_KEPT`] rejected lines, with why.
    pub rejected: Vec<RejectedLine>,
    /// Bytes of JSON read (uncompressed).
    pub bytes: u64,
    pub import_seconds: f64,
    pub signing_seconds: f64,
    pub stats_generation: u64,
}

/// Callbacks for progress reporting: bytes of the input file consumed, then documents signed.
pub trait ImportProgress {
    fn read(&self, _compressed_bytes: u64) {}
    fn signing(&self, _documents: u64) {}
}

impl ImportProgress for () {}

/// Where an import writes: a library through the seam, its batches staged and committed in
/// groups (on tantivy; on PostgreSQL each batch is written in one transaction).
pub(super) struct ImportTarget(Arc<dyn LibraryStore>);

impl ImportTarget {
    /// Library `id`, created with default settings when missing.
    pub(super) fn open(catalog: &Catalog, id: &str) -> Result<ImportTarget, LibraryError> {
        match catalog.store(id) {
            Err(LibraryError::Backend(BackendError::NotFound(_))) => {
                let created = catalog.create(NewLibrary {
                    id: id.to_string(),
                    ..Default::default()
                });
                // Created meanwhile by another request: imported into all the same.
                if let Err(e) = created
                    && e.code() != ErrorCode::LibraryExists
                {
                    return Err(e);
                }
                Ok(ImportTarget(catalog.store(id)?))
            }
            other => Ok(ImportTarget(other?)),
        }
    }

    /// Whether the library was deduplicated, so that what arrives is checked against it (when
    /// that cannot be told, it is checked).
    fn checks_arrivals(&self) -> bool {
        crate::dedup::DedupStore::of(self.0.as_ref())
            .active()
            .unwrap_or(true)
    }

    /// Writes a batch, staged for the next commit.
    pub(super) fn stage(&self, batch: &[PreparedDocument]) -> Result<(), LibraryError> {
        Ok(self.0.stage(batch)?)
    }

    /// Makes what was staged durable.
    pub(super) fn commit(&self) -> Result<(), LibraryError> {
        Ok(self.0.commit_staged()?)
    }

    /// After an import's last commit: counts the documents it brought and, when it brought
    /// any, compacts the library, counts new statistics and re-signs every document; answers
    /// the statistics generation the library is at.
    pub(super) fn sign(
        &self,
        catalog: &Catalog,
        id: &str,
        accepted: usize,
        progress: &dyn ImportProgressSync,
    ) -> Result<u64, LibraryError> {
        catalog.count_ingested(super::IngestPath::Import, accepted as u64);
        if accepted == 0 {
            return Ok(self.0.summary()?.generation);
        }
        self.0.compact()?;
        // Waits while another process re-indexes the library, then signs what this import
        // wrote since.
        let generation = match self.0.reindex(&RebuildControl::default(), &mut |done| {
            progress.signing(done)
        })? {
            RebuildOutcome::Finished { generation } => generation,
            RebuildOutcome::Cancelled { .. } => unreachable!("nothing can cancel this re-index"),
        };
        catalog.touch(id)?;
        Ok(generation)
    }
}

pub fn import_file(
    catalog: &Catalog,
    id: &str,
    path: &Path,
    progress: &dyn ImportProgressSync,
) -> Result<ImportSummary, LibraryError> {
    let target = ImportTarget::open(catalog, id)?;
    let io_error = |source| LibraryError::Io {
        path: path.to_path_buf(),
        source,
    };
    // A line is JSON around a text: escapes (`\uXXXX`) make it at most six times the text's
    // bytes, and the other fields are small. A longer line is rejected while it is read.
    let max_line = catalog
        .config()
        .limits
        .max_text_bytes
        .saturating_mul(6)
        .saturating_add(1 << 20);
    let mut reader = CorpusReader::open(path)
        .map_err(io_error)?
        .with_max_line_bytes(max_line);
    let consumed = reader.consumed();

    let started = Instant::now();
    let analyzer = catalog.analyzer().clone();
    let limits = catalog.config().limits.clone();
    let mut summary = ImportSummary {
        library: id.to_string(),
        accepted: 0,
        rejected_lines: 0,
        rejected: Vec::new(),
        bytes: 0,
        import_seconds: 0.0,
        signing_seconds: 0.0,
        stats_generation: 0,
    };
    // A deduplicated library checks what arrives; the ids are kept only then.
    let checks_arrivals = target.checks_arrivals();
    let mut arrived: Vec<String> = Vec::new();
    let (sender, receiver) = mpsc::sync_channel(2);
    let prepare_result = std::thread::scope(|scope| -> Result<(), LibraryError> {
        let preparer = scope.spawn(move || -> std::io::Result<u64> {
            let mut batch = Vec::with_capacity(BATCH);
            let mut text_bytes = 0;
            let mut rejected = Vec::new();
            for line in &mut reader {
                let (number, input) = line?;
                match input.and_then(|input| prepare(&analyzer, limits.text(), input)) {
                    Ok(document) => {
                        text_bytes += document.text.len();
                        batch.push(document);
                    }
                    Err(e) => rejected.push(RejectedLine {
                        line: number,
                        error: RejectedReason::from(&e),
                    }),
                }
                if batch.len() == BATCH || text_bytes >= BATCH_TEXT_BYTES || rejected.len() == BATCH
                {
                    text_bytes = 0;
                    let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
                    if sender.send((full, std::mem::take(&mut rejected))).is_err() {
                        return Ok(reader.bytes());
                    }
                }
            }
            let _ = sender.send((batch, rejected));
            Ok(reader.bytes())
        });
        let mut uncommitted = 0;
        let mut uncommitted_bytes = 0;
        for (batch, rejected) in receiver {
            summary.rejected_lines += rejected.len();
            let room = MAX_REJECTIONS_KEPT.saturating_sub(summary.rejected.len());
            summary.rejected.extend(rejected.into_iter().take(room));
            if !batch.is_empty() {
                if checks_arrivals {
                    arrived.extend(batch.iter().map(|d| d.doc_id.clone()));
                }
                target.stage(&batch)?;
                uncommitted += batch.len();
                uncommitted_bytes += batch.iter().map(|d| d.text.len()).sum::<usize>();
                if uncommitted >= COMMIT_EVERY || uncommitted_bytes >= COMMIT_TEXT_BYTES {
                    target.commit()?;
                    summary.accepted += uncommitted;
                    uncommitted = 0;
                    uncommitted_bytes = 0;
                }
            }
            progress.read(consumed.load(std::sync::atomic::Ordering::Relaxed));
        }
        target.commit()?;
        summary.accepted += uncommitted;
        summary.bytes = preparer
            .join()
            .expect("import reader panicked")
            .map_err(io_error)?;
        Ok(())
    });
    if let Err(e) = prepare_result {
        // What was committed before the failure was written unsigned: signed now, so that it is
        // found by its signatures as well (a crash instead is repaired when the library opens).
        if summary.accepted > 0
            && let Err(sign_error) = target.sign(catalog, id, summary.accepted, progress)
        {
            tracing::error!(library = id, error = %sign_error, "could not sign what a failed import wrote");
        }
        return Err(e);
    }
    summary.import_seconds = started.elapsed().as_secs_f64();

    let signing = Instant::now();
    summary.stats_generation = target.sign(catalog, id, summary.accepted, progress)?;
    summary.signing_seconds = signing.elapsed().as_secs_f64();
    if let Err(e) = crate::dedup::arrived(catalog, id, &arrived) {
        tracing::error!(library = id, error = %e, "could not check imported documents");
    }
    Ok(summary)
}

/// [`ImportProgress`] that can be shared with the reader thread.
pub trait ImportProgressSync: ImportProgress + Sync {}

impl<T: ImportProgress + Sync> ImportProgressSync for T {}
