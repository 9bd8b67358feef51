//! Why finding duplicates failed.

use std::path::PathBuf;

use crate::library::LibraryError;
use dupfinder_check::CheckError;
use dupfinder_storage::index::IndexError;

/// What can go wrong in the dedup job and in keeping clusters current.
#[derive(Debug, thiserror::Error)]
pub enum DedupError {
    #[error(transparent)]
    Library(#[from] LibraryError),
    #[error(transparent)]
    Check(#[from] CheckError),
    #[error("I/O error at {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("damaged dedup state at {at}: {reason}")]
    Corrupt { at: String, reason: String },
}

impl From<IndexError> for DedupError {
    fn from(e: IndexError) -> Self {
        DedupError::Library(e.into())
    }
}

impl DedupError {
    pub(super) fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> DedupError + '_ {
        move |source| DedupError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
