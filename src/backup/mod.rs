//! Backups: one `.tar.gz` file holding a consistent copy of a data directory — the registry,
//! the keys and audit log, the crawl state and every library's indexes — taken while the
//! server runs, and restored into a new data directory.
//!
//! ```text
//! dupfinder-backup.json    the manifest: format, time, version, libraries and their documents
//! registry.redb            the stores, each copied as of one commit
//! keys.redb
//! crawl.redb
//! libraries/<id>/…         each library's committed state (see LibraryIndex::snapshot_to)
//! ```

mod redb_copy;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::clock::unix_now;
use crate::crawl::CrawlStore;
use crate::library::{Catalog, LibraryError};

pub(crate) use redb_copy::{copy_database, copy_table};

/// The manifest's name, the archive's first entry.
pub const MANIFEST: &str = "dupfinder-backup.json";
/// The archive layout this build writes and reads.
pub const FORMAT: u32 = 1;

/// What a backup holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: u32,
    /// Seconds since the Unix epoch when the copy was taken.
    pub created: u64,
    /// The dupfinder version that wrote it.
    pub version: String,
    pub libraries: Vec<LibraryCopy>,
}

/// One library in a backup.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LibraryCopy {
    pub id: String,
    pub documents: u64,
}

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
}

fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> BackupError {
    let context = context.into();
    move |source| BackupError::Io { context, source }
}

/// A directory removed when dropped, whatever happened meanwhile.
struct Staging(PathBuf);

impl Drop for Staging {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_dir_all(&self.0)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(path = %self.0.display(), error = %e, "could not remove a backup's staging copy");
        }
    }
}

/// Writes a backup of the catalog's data directory (and the crawl state, when given) to `out`
/// as a gzip-compressed tar archive. The copy is staged inside the data directory, as hard
/// links where it can be, and removed afterwards.
pub fn write_backup(
    catalog: &Catalog,
    crawl: Option<&CrawlStore>,
    out: impl Write,
) -> Result<Manifest, BackupError> {
    let staging = Staging(catalog.data_dir().join(format!(
        ".backup-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    )));
    let created = unix_now();
    let libraries = catalog.snapshot_to(&staging.0)?;
    if let Some(crawl) = crawl {
        crawl
            .copy_to(&staging.0.join("crawl.redb"))
            .map_err(|e| BackupError::Crawl(e.to_string()))?;
    }
    let manifest = Manifest {
        format: FORMAT,
        created,
        version: env!("CARGO_PKG_VERSION").to_string(),
        libraries: libraries
            .into_iter()
            .map(|(id, documents)| LibraryCopy { id, documents })
            .collect(),
    };
    let gzip = flate2::write::GzEncoder::new(out, flate2::Compression::fast());
    let mut archive = tar::Builder::new(gzip);
    archive.follow_symlinks(false);
    archive.sparse(false);
    let manifest_json = serde_json::to_vec_pretty(&manifest).expect("a manifest serializes");
    let mut header = tar::Header::new_gnu();
    header.set_size(manifest_json.len() as u64);
    header.set_mode(0o644);
    header.set_mtime(created);
    header.set_cksum();
    archive
        .append_data(&mut header, MANIFEST, manifest_json.as_slice())
        .map_err(io("writing the backup"))?;
    archive
        .append_dir_all(".", &staging.0)
        .map_err(io("writing the backup"))?;
    archive
        .into_inner()
        .and_then(|gzip| gzip.finish())
        .and_then(|mut out| out.flush())
        .map_err(io("writing the backup"))?;
    Ok(manifest)
}

/// Unpacks the backup read from `archive` (named `name` in messages) into `data_dir`, which
/// must be missing or empty. Only regular files and directories below `data_dir` are
/// written; anything else in the archive refuses the restore.
pub fn restore(archive: impl Read, name: &str, data_dir: &Path) -> Result<Manifest, BackupError> {
    let unpacked = unpack(archive, name, data_dir);
    if matches!(unpacked, Err(ref e) if !matches!(e, BackupError::TargetNotEmpty(_))) {
        // The directory was empty before: a damaged or truncated backup leaves nothing behind
        // that a server could mistake for a data directory.
        if let Ok(entries) = std::fs::read_dir(data_dir) {
            for entry in entries.flatten() {
                let path = entry.path();
                let _ = if path.is_dir() {
                    std::fs::remove_dir_all(&path)
                } else {
                    std::fs::remove_file(&path)
                };
            }
        }
    }
    unpacked
}

fn unpack(archive: impl Read, name: &str, data_dir: &Path) -> Result<Manifest, BackupError> {
    if data_dir.exists() {
        let mut entries =
            std::fs::read_dir(data_dir).map_err(io(format!("reading {}", data_dir.display())))?;
        if entries.next().is_some() {
            return Err(BackupError::TargetNotEmpty(data_dir.to_path_buf()));
        }
    }
    std::fs::create_dir_all(data_dir).map_err(io(format!("creating {}", data_dir.display())))?;
    let not_a_backup = |reason: String| BackupError::NotABackup(name.to_string(), reason);
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(archive));
    let mut entries = archive.entries().map_err(|e| not_a_backup(e.to_string()))?;
    let manifest: Manifest = {
        let mut first = entries
            .next()
            .ok_or_else(|| not_a_backup("the archive is empty".into()))?
            .map_err(|e| not_a_backup(e.to_string()))?;
        let path = first.path().map_err(|e| not_a_backup(e.to_string()))?;
        if path != Path::new(MANIFEST) {
            return Err(not_a_backup(format!(
                "its first entry is {}, not {MANIFEST}",
                path.display()
            )));
        }
        let mut json = Vec::new();
        first
            .by_ref()
            .take(1 << 20)
            .read_to_end(&mut json)
            .map_err(|e| not_a_backup(e.to_string()))?;
        serde_json::from_slice(&json).map_err(|e| not_a_backup(format!("its manifest: {e}")))?
    };
    if manifest.format != FORMAT {
        return Err(not_a_backup(format!(
            "format {} (this build reads format {FORMAT})",
            manifest.format
        )));
    }
    for entry in entries {
        let mut entry = entry.map_err(|e| not_a_backup(e.to_string()))?;
        let kind = entry.header().entry_type();
        if !(kind.is_file() || kind.is_dir()) {
            return Err(not_a_backup(format!(
                "it holds a {kind:?} entry, which no backup has"
            )));
        }
        let unpacked = entry
            .unpack_in(data_dir)
            .map_err(io(format!("restoring into {}", data_dir.display())))?;
        if !unpacked {
            return Err(not_a_backup(
                "an entry's path leads outside the data directory".into(),
            ));
        }
    }
    Ok(manifest)
}
