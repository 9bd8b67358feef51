//! Writes to the libraries of a data directory, each failure sorted (a fault of the data
//! directory, a stopped writer, anything else) so that no caller repeats that, and what a failed
//! write leaves behind: after a storage fault the library's writers are put back to their last
//! commit before its next write; after any other failure they take no more writes until an
//! operator reopens them or the process restarts. Nothing is acknowledged from a writer after a
//! failed write.

use std::sync::Arc;

use super::libraries::{TantivyStorage, is_current};
use crate::index::{IndexError, LibraryIndex, PreparedDocument};
use crate::{BackendError, RegistryError, StorageFault};

impl TantivyStorage {
    /// [`crate::Storage::write`]: the documents written and committed; the first documents of a
    /// library also make its first statistics snapshot.
    pub(super) fn add_documents(
        &self,
        id: &str,
        documents: &[PreparedDocument],
    ) -> Result<(), BackendError> {
        let index = self.opened(id)?;
        self.ready_to_write(id, &index)?;
        let added = index.add(documents);
        let signed = match &added {
            Ok(()) if index.signatures().generation() == 0 => {
                index.rebuild_statistics(|_| {}).map(drop)
            }
            _ => Ok(()),
        };
        {
            // Under the lock of the open indexes, so that a delete cannot come between the
            // question and the stop.
            let slots = self.indexes.by_id.read();
            if !is_current(&slots, id, &index) {
                // Deleted (and perhaps created again) while this wrote into the old folder.
                return Err(BackendError::NotFound(id.to_string()));
            }
            if let Err(e) = added {
                return Err(self.after_failed_write(id, e));
            }
        }
        signed?;
        Ok(())
    }

    /// [`crate::Storage::delete_document`]: when this returns, the document is gone from
    /// checks, search and listings.
    pub(super) fn remove_document(&self, id: &str, doc_id: &str) -> Result<bool, BackendError> {
        let index = self.opened(id)?;
        self.ready_to_write(id, &index)?;
        let deleted = index.delete(doc_id);
        {
            let slots = self.indexes.by_id.read();
            if !is_current(&slots, id, &index) {
                return Err(BackendError::NotFound(id.to_string()));
            }
        }
        deleted.map_err(|e| self.after_failed_write(id, e))
    }

    /// [`crate::Storage::write_failed`]: a fault of the data directory (found in the error, or
    /// by probing the directory when the index library reported it as text) as
    /// [`BackendError::Fault`]; a killed index writer ([`IndexError::WriterKilled`]) as
    /// [`BackendError::WriterStopped`]; anything else as it is.
    pub(super) fn sort_failure(&self, id: &str, error: BackendError) -> BackendError {
        let fault = |fault, error: &dyn std::fmt::Display| {
            tracing::error!(library = id, %error, ?fault, "storage fault");
            BackendError::Fault {
                fault,
                reason: error.to_string(),
            }
        };
        match error {
            BackendError::InvalidId(_)
            | BackendError::NotFound(_)
            | BackendError::Fault { .. }
            | BackendError::Registry(RegistryError::Exists(_)) => error,
            error => {
                if let Some(found) = StorageFault::of(&error) {
                    return fault(found, &error);
                }
                if let Err(probe) = self.probe()
                    && let Some(found) = StorageFault::of(&probe)
                {
                    return fault(found, &error);
                }
                if matches!(error, BackendError::Index(IndexError::WriterKilled { .. })) {
                    tracing::error!(library = id, %error, "index writer stopped");
                    return BackendError::WriterStopped(id.to_string());
                }
                error
            }
        }
    }

    /// Whether the data directory can take a write now: creates, fills (1 MiB), syncs and
    /// removes a probe file. Used after a write failed, to tell a full or read-only data
    /// directory from other failures when the index library reports its I/O errors as text.
    fn probe(&self) -> Result<(), std::io::Error> {
        use std::io::Write;
        let path = self.data_dir().join(".storage-probe");
        let written = std::fs::File::create(&path).and_then(|mut file| {
            file.write_all(&[0u8; 1 << 20])?;
            file.sync_all()
        });
        let _ = std::fs::remove_file(&path);
        written
    }

    /// Whether library `id` takes a write now: a stopped writer refuses it; after a storage
    /// fault the writers are first put back to their last commit, and when that fails too (the
    /// fault persists) the write fails the same way and the next one tries again.
    fn ready_to_write(&self, id: &str, index: &LibraryIndex) -> Result<(), BackendError> {
        if self.stopped_writers.read().contains(id) {
            return Err(BackendError::WriterStopped(id.to_string()));
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
    fn after_failed_write(&self, id: &str, error: IndexError) -> BackendError {
        let error = self.sort_failure(id, error.into());
        if let BackendError::Fault { fault, .. } = &error {
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

    /// [`crate::Storage::reopen_writer`]: fails (and the library stays as it was) when the
    /// writers cannot be opened.
    pub(super) fn reset_writers(&self, id: &str) -> Result<(), BackendError> {
        let index: Arc<LibraryIndex> = self.opened(id)?;
        index
            .reset_writers()
            .map_err(|e| self.sort_failure(id, e.into()))?;
        self.stopped_writers.write().remove(id);
        self.writers_to_reset.write().remove(id);
        tracing::info!(library = id, "index writers reopened at the last commit");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Storage;
    use crate::index::{IndexOptions, default_analyzer};
    use crate::ingest::{DocumentInput, IdValue, prepare};
    use dupfinder_text::analysis::TextLimits;

    fn document(id: &str, seed: usize) -> PreparedDocument {
        let text = (0..60)
            .map(|i| format!("word{}x{}", (seed * 7919 + i * 104_729) % 5003, i % 11))
            .collect::<Vec<_>>()
            .join(" ");
        let input = DocumentInput {
            id: Some(IdValue::Text(id.to_string())),
            text: Some(text),
            lang: Some("en".to_string()),
            ..Default::default()
        };
        let limits = TextLimits {
            max_bytes: 5_000_000,
            min_words: 10,
        };
        prepare(&default_analyzer(), limits, input).unwrap()
    }

    /// A library stopped by a failed write refuses writes until its writer is reopened, then
    /// takes them again; one marked for a reset after a storage fault resets on its next
    /// write and takes it. Both keep what was written before.
    #[test]
    fn a_stopped_writer_is_reopened_and_a_faulted_one_reset_without_restart() {
        let dir = tempfile::tempdir().unwrap();
        let options = IndexOptions {
            writer_memory: 15_000_000,
            ..Default::default()
        };
        let storage = TantivyStorage::open(dir.path(), default_analyzer(), options).unwrap();
        storage.create("lib").unwrap();
        storage.write("lib", &[document("a", 1)]).unwrap();

        storage.stopped_writers.write().insert("lib".to_string());
        let refused = storage.write("lib", &[document("b", 2)]).unwrap_err();
        assert!(
            matches!(refused, BackendError::WriterStopped(_)),
            "{refused:?}"
        );
        storage.reopen_writer("lib").unwrap();
        storage.write("lib", &[document("b", 2)]).unwrap();

        storage.writers_to_reset.write().insert("lib".to_string());
        storage.write("lib", &[document("c", 3)]).unwrap();
        assert!(storage.writers_to_reset.read().is_empty());
        assert!(storage.delete_document("lib", "a").unwrap());
        let index = storage.index("lib").unwrap();
        let view = index.view();
        for (id, present) in [("a", false), ("b", true), ("c", true)] {
            assert_eq!(view.document(id).unwrap().is_some(), present, "{id}");
        }
        assert!(matches!(
            storage.reopen_writer("missing"),
            Err(BackendError::NotFound(_))
        ));
    }
}
