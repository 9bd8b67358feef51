//! The catalog's writes: documents ingested and deleted through the storage, each failure
//! passed through [`Storage::write_failed`](dupfinder_storage::Storage::write_failed), which sorts
//! it (a fault of where the backend keeps the library, a stopped writer, anything else) so that
//! no caller repeats that; and the arrivals and deletions told to the library's clusters.

use super::{Catalog, IngestReport, LibraryError, RejectedLine, RejectedReason};
use dupfinder_storage::BackendError;
use dupfinder_storage::index::PreparedDocument;
use dupfinder_storage::ingest::{DocumentError, DocumentInput, prepare};

impl Catalog {
    /// Removes document `doc_id` of library `id`; returns whether it existed. When this returns,
    /// the document is gone from checks, search and listings.
    pub fn delete_document(&self, id: &str, doc_id: &str) -> Result<bool, LibraryError> {
        let deleted = self.storage.delete_document(id, doc_id)?;
        if deleted {
            self.touch(id)?;
            self.leave_clusters(id, doc_id);
        }
        Ok(deleted)
    }

    /// Takes the deleted document `doc_id` out of the clusters of library `id`: a failure only
    /// leaves the clusters behind until the next dedup job, and fails no delete.
    fn leave_clusters(&self, id: &str, doc_id: &str) {
        if let Err(e) = crate::dedup::removed(self, id, doc_id) {
            tracing::error!(library = id, doc_id, error = %e, "could not update the clusters");
        }
    }

    /// Checks the documents `doc_ids` just written to library `id` against it: that only keeps
    /// its clusters current, so its failure fails no ingest.
    fn check_arrivals(&self, id: &str, doc_ids: &[String]) {
        if let Err(e) = crate::dedup::arrived(self, id, doc_ids) {
            tracing::error!(library = id, error = %e, "could not check arriving documents");
        }
    }

    /// Validates and analyzes documents, writes the good ones durably, and reports the others by
    /// line. The first documents of a library also build its first statistics snapshot, so that
    /// signatures are meaningful from the start.
    pub fn ingest(
        &self,
        id: &str,
        lines: Vec<(usize, Result<DocumentInput, DocumentError>)>,
    ) -> Result<IngestReport, LibraryError> {
        let mut prepared: Vec<PreparedDocument> = Vec::with_capacity(lines.len());
        let mut rejected = Vec::new();
        for (line, input) in lines {
            match input.and_then(|input| prepare(&self.analyzer, self.config.limits.text(), input))
            {
                Ok(document) => prepared.push(document),
                Err(e) => rejected.push(RejectedLine {
                    line,
                    error: RejectedReason::from(&e),
                }),
            }
        }
        self.ingest_prepared(id, prepared, rejected)
    }

    /// Writes documents that are already prepared; `rejected` is passed through to the report.
    pub fn ingest_prepared(
        &self,
        id: &str,
        prepared: Vec<PreparedDocument>,
        rejected: Vec<RejectedLine>,
    ) -> Result<IngestReport, LibraryError> {
        self.write_prepared(id, prepared, rejected)
            .map_err(|e| self.storage.write_failed(id, e).into())
    }

    fn write_prepared(
        &self,
        id: &str,
        prepared: Vec<PreparedDocument>,
        rejected: Vec<RejectedLine>,
    ) -> Result<IngestReport, BackendError> {
        let mut report = IngestReport {
            accepted: 0,
            rejected,
        };
        if prepared.is_empty() {
            self.storage.library(id)?;
            return Ok(report);
        }
        self.storage.write(id, &prepared)?;
        report.accepted = prepared.len();
        self.storage.touch(id)?;
        let doc_ids: Vec<String> = prepared.into_iter().map(|d| d.doc_id).collect();
        self.check_arrivals(id, &doc_ids);
        Ok(report)
    }

    /// Reopens the writers of library `id` at their last commit, whatever stopped them, so that
    /// it takes writes again without a restart. Fails (and the library stays as it was) when
    /// the writers cannot be opened; a backend without writers of its own answers
    /// [`BackendError::Unsupported`].
    pub fn reopen_writer(&self, id: &str) -> Result<(), LibraryError> {
        Ok(self.storage.reopen_writer(id)?)
    }

    /// Records that library `id` was just written to.
    pub fn touch(&self, id: &str) -> Result<(), LibraryError> {
        Ok(self.storage.touch(id)?)
    }
}
