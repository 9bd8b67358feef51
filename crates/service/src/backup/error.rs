//! What can go wrong taking or restoring a backup.

use std::path::PathBuf;

use crate::library::LibraryError;

/// What can go wrong taking or restoring a backup.
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error(transparent)]
    Library(#[from] LibraryError),
    #[error("crawl state: {0}")]
    Crawl(String),
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{0} is not a dupfinder backup: {1}")]
    NotABackup(String, String),
    #[error("{0} is not empty: restore into a new data directory")]
    TargetNotEmpty(PathBuf),
    #[error("the restored copy is not whole: {0}")]
    NotWhole(String),
}

pub(super) fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> BackupError {
    let context = context.into();
    move |source| BackupError::Io { context, source }
}
