//! The manifest: what a backup holds, the archive's first entry, and how it names the files
//! of a data directory.

use std::collections::BTreeMap;
use std::path::{Component, Path};

use serde::{Deserialize, Serialize};

/// The manifest's name, the archive's first entry.
pub const MANIFEST: &str = "dupfinder-backup.json";
/// The archive layout this build writes and reads: 2 lists every file with its size in the
/// manifest (format 1 did not, so its entries could not be bounded and it is not read).
pub const FORMAT: u32 = 2;

/// What a backup holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: u32,
    /// Seconds since the Unix epoch when the copy was taken.
    pub created: u64,
    /// The dupfinder version that wrote it.
    pub version: String,
    pub libraries: Vec<LibraryCopy>,
    /// Every file of the archive but the manifest (its path inside the data directory, `/`
    /// between names) and its size in bytes: a restore writes these and no more.
    #[serde(default)]
    pub files: BTreeMap<String, u64>,
}

/// One library in a backup.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LibraryCopy {
    pub id: String,
    pub documents: u64,
}

/// A path as the manifest names it: its normal components joined by `/` (tar drops `./`).
pub(super) fn archive_name(path: &Path) -> String {
    path.components()
        .filter_map(|component| match component {
            Component::Normal(name) => Some(name.to_string_lossy()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("/")
}
