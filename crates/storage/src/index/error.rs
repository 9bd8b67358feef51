//! Errors of the index layer.

use std::path::PathBuf;

/// What can go wrong opening, writing or reading a library's indexes.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("index schema `{schema}` is invalid: {reason}")]
    Schema { schema: String, reason: String },
    #[error(
        "the index at {path} was written with a different schema than index_schema/ declares \
         ({reason}); re-import the library into a new data directory"
    )]
    SchemaMismatch { path: PathBuf, reason: String },
    #[error(
        "the index at {path} is locked by another dupfinder process (is a server running on this data directory?)"
    )]
    Locked { path: PathBuf },
    #[error("tantivy error at {path}: {source}")]
    Tantivy {
        path: PathBuf,
        #[source]
        source: tantivy::TantivyError,
    },
    #[error("I/O error at {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("statistics snapshot {path} is corrupt: {reason}")]
    CorruptSnapshot { path: PathBuf, reason: String },
    /// A file the index layer wrote itself (not tantivy's) fails its checks.
    #[error("{path} is damaged: {reason}")]
    CorruptFile { path: PathBuf, reason: String },
    #[error("stored document {doc_id} is corrupt: {reason}")]
    CorruptDocument { doc_id: String, reason: String },
    /// tantivy's index writer stopped: one of its threads failed or panicked, and it takes no
    /// more documents until it is opened again.
    #[error("the index writer at {path} stopped: {reason}")]
    WriterKilled { path: PathBuf, reason: String },
    /// A backend other than tantivy failed (see `storage/`).
    #[error(transparent)]
    Storage(crate::StorageError),
}

impl IndexError {
    /// Whether the library was deleted (by another process) while a statement on it ran.
    pub fn is_no_such_library(&self) -> bool {
        matches!(
            self,
            IndexError::Storage(crate::StorageError::NoSuchLibrary(_))
        )
    }

    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> IndexError {
        let path = path.into();
        move |source| IndexError::Io { path, source }
    }

    pub(crate) fn tantivy(
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(tantivy::TantivyError) -> IndexError {
        let path = path.into();
        move |source| match source {
            tantivy::TantivyError::LockFailure(..) => IndexError::Locked { path },
            tantivy::TantivyError::ErrorInThread(reason) => {
                IndexError::WriterKilled { path, reason }
            }
            source => IndexError::Tantivy { path, source },
        }
    }
}

/// Opens the tantivy index at `path` (creating the directory and the index when missing) with
/// `schema`; an index written with another schema is [`IndexError::SchemaMismatch`].
pub(crate) fn open_or_create(
    path: &std::path::Path,
    schema: tantivy::schema::Schema,
) -> Result<tantivy::Index, IndexError> {
    std::fs::create_dir_all(path).map_err(IndexError::io(path))?;
    let directory = tantivy::directory::MmapDirectory::open(path).map_err(|e| IndexError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    })?;
    super::upgrade::upgrade_schema(path, &directory, &schema)?;
    let mut index = tantivy::Index::open_or_create(directory, schema).map_err(|e| match e {
        tantivy::TantivyError::SchemaError(reason) => IndexError::SchemaMismatch {
            path: path.to_path_buf(),
            reason,
        },
        e => IndexError::tantivy(path)(e),
    })?;
    // Segments written from here on keep their stored fields with zstd; an older segment's
    // blocks are read with the compressor its own footer names, and a merge rewrites them.
    index.settings_mut().docstore_compression = DOCSTORE_COMPRESSION;
    Ok(index)
}

/// How stored fields are compressed: zstd at level 5 keeps a synthetic full paper's stored
/// document (its text and analysis) at ~36.8 KB where level 3, zstd's default, kept ~38.5 KB and
/// lz4, tantivy's default, about half the text; it compresses a paper in ~1 ms on the store's own
/// thread (0.5 ms at level 3; an import of 10,000 papers took no longer), and decompresses a
/// block as fast as level 3 does.
const DOCSTORE_COMPRESSION: tantivy::store::Compressor =
    tantivy::store::Compressor::Zstd(tantivy::store::ZstdCompressor {
        compression_level: Some(5),
    });

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer whose threads died is told by tantivy's error variant, not by its message.
    #[test]
    fn a_failed_writer_thread_is_a_killed_writer() {
        let killed = IndexError::tantivy("/data/lib")(tantivy::TantivyError::ErrorInThread(
            "An index writer was killed.".to_string(),
        ));
        assert!(
            matches!(killed, IndexError::WriterKilled { .. }),
            "{killed}"
        );
        let other = IndexError::tantivy("/data/lib")(tantivy::TantivyError::IndexAlreadyExists);
        assert!(matches!(other, IndexError::Tantivy { .. }), "{other}");
    }
}
