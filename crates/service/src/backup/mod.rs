//! Backups: one `.tar.gz` file holding a consistent copy of a data directory — the registry,
//! the keys and audit log, the crawl state and every library's indexes — taken while the
//! server runs, and restored into a new data directory.
//!
//! ```text
//! dupfinder-backup.json    the manifest: format, time, version, libraries and their documents,
//!                          every file with its size
//! registry.redb            the stores, each copied as of one commit
//! keys.redb
//! crawl.redb
//! libraries/<id>/…         each library's committed state (see LibraryIndex::snapshot_to)
//! ```

mod error;
mod manifest;
mod restore;
mod staging;
mod write;

pub use error::BackupError;
pub use manifest::{FORMAT, LibraryCopy, MANIFEST, Manifest};
pub use restore::restore;
pub use write::{CrawlState, write_backup};
