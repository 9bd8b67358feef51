//! Taking a backup: the data directory's committed state staged and written as one archive.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use super::error::{BackupError, io};
use super::manifest::{FORMAT, LibraryCopy, MANIFEST, Manifest, archive_name};
use super::staging::Staging;
use crate::library::Catalog;
use dupfinder_common::clock::unix_now;

/// The crawl state, kept by the harvesting crate above this one: a backup copies it through
/// this.
pub trait CrawlState {
    /// Writes a consistent copy of the crawl state's committed data to `dest`.
    fn copy_state_to(&self, dest: &Path) -> Result<(), String>;
}

/// Writes a backup of the catalog's data directory (and the crawl state, when given) to `out`
/// as a gzip-compressed tar archive. The copy is staged inside the data directory, as hard
/// links where it can be, and removed afterwards.
pub fn write_backup(
    catalog: &Catalog,
    crawl: Option<&dyn CrawlState>,
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
            .copy_state_to(&staging.0.join("crawl.redb"))
            .map_err(BackupError::Crawl)?;
    }
    let mut files = BTreeMap::new();
    list_files(&staging.0, &staging.0, &mut files).map_err(io("listing the backup's files"))?;
    let manifest = Manifest {
        format: FORMAT,
        created,
        version: env!("CARGO_PKG_VERSION").to_string(),
        libraries: libraries
            .into_iter()
            .map(|(id, documents)| LibraryCopy { id, documents })
            .collect(),
        files,
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

/// Every regular file below `dir`, by its path relative to `root` (`/` between names), with
/// its size.
fn list_files(root: &Path, dir: &Path, files: &mut BTreeMap<String, u64>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_dir() {
            list_files(root, &entry.path(), files)?;
        } else if kind.is_file() {
            let path = entry.path();
            let relative = path.strip_prefix(root).unwrap_or(&path);
            files.insert(archive_name(relative), entry.metadata()?.len());
        }
    }
    Ok(())
}
