//! The catalog's writes: documents ingested and deleted, each failure sorted (a fault of the
//! data directory, a stopped writer, anything else) so that no caller repeats that, and the
//! writers reopened after a failure. With PostgreSQL a write goes through the storage seam and
//! the database answers for it.

use super::{Catalog, IngestReport, LibraryError, RejectedLine, RejectedReason};
use crate::clock::unix_now;
use crate::index::{IndexError, LibraryIndex, PreparedDocument, RebuildControl};
use crate::library::RegistryError;
use crate::library::StorageFault;
use crate::storage::ingest::{DocumentError, DocumentInput, prepare};

impl Catalog {
    /// What a failed write answers: a fault of the data directory (found in the error, or by
    /// probing the directory when the index library reported it as text) as
    /// [`LibraryError::Storage`]; a killed index writer ([`IndexError::WriterKilled`]) as
    /// [`LibraryError::WriterStopped`];
    /// anything else as it is. Every write of the catalog passes its failure through here.
    pub(super) fn write_failed(&self, id: &str, error: LibraryError) -> LibraryError {
        if self.postgres.is_some() {
            // The data directory holds no library: its faults say nothing about the write.
            return error;
        }
        let storage = |fault, error: &dyn std::fmt::Display| {
            tracing::error!(library = id, %error, ?fault, "storage fault");
            LibraryError::Storage {
                fault,
                reason: error.to_string(),
            }
        };
        match error {
            LibraryError::InvalidId(_)
            | LibraryError::NotFound(_)
            | LibraryError::Storage { .. }
            | LibraryError::Registry(RegistryError::Exists(_)) => error,
            error => {
                if let Some(fault) = StorageFault::of(&error) {
                    return storage(fault, &error);
                }
                if let Err(probe) = self.probe_storage()
                    && let Some(fault) = StorageFault::of(&probe)
                {
                    return storage(fault, &error);
                }
                if matches!(error, LibraryError::Index(IndexError::WriterKilled { .. })) {
                    tracing::error!(library = id, %error, "index writer stopped");
                    return LibraryError::WriterStopped(id.to_string());
                }
                error
            }
        }
    }

    /// Removes document `doc_id` of library `id`; returns whether it existed. When this returns,
    /// the document is gone from checks, search and listings.
    pub fn delete_document(&self, id: &str, doc_id: &str) -> Result<bool, LibraryError> {
        if self.postgres.is_some() {
            let deleted = self.store(id)?.delete(doc_id)?;
            if deleted {
                self.touch(id)?;
                self.leave_clusters(id, doc_id);
            }
            return Ok(deleted);
        }
        let index = self.index(id)?;
        self.ready_to_write(id, &index)?;
        let deleted = index.delete(doc_id);
        {
            let indexes = self.indexes.read();
            if !self.is_current(&indexes, id, &index) {
                return Err(LibraryError::NotFound(id.to_string()));
            }
        }
        let deleted = deleted.map_err(|e| self.after_failed_write(id, e))?;
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
            .map_err(|e| self.write_failed(id, e))
    }

    fn write_prepared(
        &self,
        id: &str,
        prepared: Vec<PreparedDocument>,
        rejected: Vec<RejectedLine>,
    ) -> Result<IngestReport, LibraryError> {
        let mut report = IngestReport {
            accepted: 0,
            rejected,
        };
        if self.postgres.is_some() {
            return self.write_through_store(id, prepared, report);
        }
        let index = self.index(id)?;
        if prepared.is_empty() {
            return Ok(report);
        }
        self.ready_to_write(id, &index)?;
        let added = index.add(&prepared);
        // The first documents of a library also make its first statistics snapshot.
        let signed = match &added {
            Ok(()) if index.signatures().generation() == 0 => {
                index.rebuild_statistics(|_| {}).map(drop)
            }
            _ => Ok(()),
        };
        {
            // Under the catalog's lock, so that a delete cannot come between the question and
            // the stop.
            let indexes = self.indexes.read();
            if !self.is_current(&indexes, id, &index) {
                // Deleted (and perhaps created again) while this wrote into the old folder.
                return Err(LibraryError::NotFound(id.to_string()));
            }
            if let Err(e) = added {
                return Err(self.after_failed_write(id, e));
            }
        }
        signed?;
        report.accepted = prepared.len();
        self.touch(id)?;
        let doc_ids: Vec<String> = prepared.into_iter().map(|d| d.doc_id).collect();
        self.check_arrivals(id, &doc_ids);
        Ok(report)
    }

    /// Writes documents through the storage seam (PostgreSQL), counting them in `report`: the
    /// first documents of a library also make its first statistics snapshot, unless another
    /// process is making it already.
    fn write_through_store(
        &self,
        id: &str,
        prepared: Vec<PreparedDocument>,
        mut report: IngestReport,
    ) -> Result<IngestReport, LibraryError> {
        let store = self.store(id)?;
        if prepared.is_empty() {
            return Ok(report);
        }
        store.write(&prepared)?;
        // A view's generation is one indexed row; the summary would count the documents.
        let first = store.view()?.generation() == 0;
        if first && let Some(mut claim) = store.clone().claim_reindex()? {
            claim.reindex(&RebuildControl::default(), &mut |_| {})?;
        }
        report.accepted = prepared.len();
        self.touch(id)?;
        let doc_ids: Vec<String> = prepared.into_iter().map(|d| d.doc_id).collect();
        self.check_arrivals(id, &doc_ids);
        Ok(report)
    }

    /// Whether library `id` takes a write now: a stopped writer refuses it; after a storage
    /// fault the writers are first put back to their last commit, and when that fails too (the
    /// fault persists) the write fails the same way and the next one tries again.
    fn ready_to_write(&self, id: &str, index: &LibraryIndex) -> Result<(), LibraryError> {
        if self.stopped_writers.read().contains(id) {
            return Err(LibraryError::WriterStopped(id.to_string()));
        }
        if self.writers_to_reset.read().contains(id) {
            if let Err(e) = index.reset_writers() {
                return Err(self.after_failed_write(id, e));
            }
            self.writers_to_reset.write().remove(id);
            tracing::info!(
                library = id,
                "index writers reset to the last commit; writes resume"
            );
        }
        Ok(())
    }

    /// What a failed write of library `id` leaves behind: after a storage fault its writers are
    /// reset before the next write; after any other failure they stop taking writes until an
    /// operator reopens them.
    fn after_failed_write(&self, id: &str, error: IndexError) -> LibraryError {
        let error = self.write_failed(id, error.into());
        if let LibraryError::Storage { fault, .. } = &error {
            tracing::warn!(
                library = id,
                ?fault,
                "write failed; the writers are reset before the next one"
            );
            self.writers_to_reset.write().insert(id.to_string());
        } else {
            tracing::error!(library = id, %error, "write failed; the library takes no more writes until its writer is reopened");
            self.stopped_writers.write().insert(id.to_string());
        }
        error
    }

    /// Reopens the writers of library `id` at their last commit, whatever stopped them, so that
    /// it takes writes again without a restart. Fails (and the library stays as it was) when
    /// the writers cannot be opened.
    pub fn reopen_writer(&self, id: &str) -> Result<(), LibraryError> {
        self.require_tantivy("reopening a library's index writers")?;
        let index = self.index(id)?;
        index
            .reset_writers()
            .map_err(|e| self.write_failed(id, e.into()))?;
        self.stopped_writers.write().remove(id);
        self.writers_to_reset.write().remove(id);
        tracing::info!(library = id, "index writers reopened at the last commit");
        Ok(())
    }

    /// Records that library `id` was just written to.
    pub fn touch(&self, id: &str) -> Result<(), LibraryError> {
        if let Some(postgres) = &self.postgres {
            postgres.set_last_indexed(id, unix_now())?;
            return Ok(());
        }
        if let Some(mut record) = self.registry.get(id)? {
            record.last_indexed = Some(unix_now());
            self.registry.update(&record)?;
        }
        Ok(())
    }
}
