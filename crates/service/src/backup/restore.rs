//! Restoring a backup into a new data directory: unpacked beside it, bounded by the manifest,
//! checked, and only then moved into place.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use super::error::{BackupError, io};
use super::manifest::{FORMAT, MANIFEST, Manifest, archive_name};
use super::staging::Staging;

/// Restores the backup read from `archive` (named `name` in messages) into `data_dir`, which
/// must be missing or empty. The archive is unpacked into a fresh directory beside
/// `data_dir`, checked there by `check` (the caller opens it as a server would), and only
/// then renamed into place; any failure removes the fresh directory, so a damaged, truncated
/// or refused backup leaves nothing a server could mistake for a data directory (a restore
/// killed midway leaves a `.<name>.restore-…` directory beside it, never `data_dir`). Only
/// regular files and directories below the fresh directory are written, each file only if the
/// manifest lists it, and no larger than the manifest says.
pub fn restore(
    archive: impl Read,
    name: &str,
    data_dir: &Path,
    check: impl FnOnce(&Path, &Manifest) -> Result<(), BackupError>,
) -> Result<Manifest, BackupError> {
    if data_dir.exists() {
        let mut entries =
            std::fs::read_dir(data_dir).map_err(io(format!("reading {}", data_dir.display())))?;
        if entries.next().is_some() {
            return Err(BackupError::TargetNotEmpty(data_dir.to_path_buf()));
        }
    }
    let Some(dir_name) = data_dir.file_name() else {
        return Err(BackupError::NotWhole(format!(
            "{} names no directory of its own to restore into",
            data_dir.display()
        )));
    };
    let parent = match data_dir.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(parent).map_err(io(format!("creating {}", parent.display())))?;
    let staging = Staging(parent.join(format!(
        ".{}.restore-{}-{}",
        dir_name.to_string_lossy(),
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    )));
    std::fs::create_dir(&staging.0).map_err(io(format!("creating {}", staging.0.display())))?;
    let manifest = unpack(archive, name, &staging.0)?;
    check(&staging.0, &manifest)?;
    if data_dir.exists() {
        // Empty, as seen above: renaming over it needs it gone.
        std::fs::remove_dir(data_dir).map_err(io(format!("replacing {}", data_dir.display())))?;
    }
    std::fs::rename(&staging.0, data_dir).map_err(io(format!(
        "moving the restored copy to {}",
        data_dir.display()
    )))?;
    Ok(manifest)
}

/// Unpacks the archive into `dir`, a fresh directory.
fn unpack(archive: impl Read, name: &str, dir: &Path) -> Result<Manifest, BackupError> {
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
            .take(64 << 20)
            .read_to_end(&mut json)
            .map_err(|e| not_a_backup(e.to_string()))?;
        serde_json::from_slice(&json).map_err(|e| not_a_backup(format!("its manifest: {e}")))?
    };
    if manifest.format == 1 {
        return Err(not_a_backup(format!(
            "it is of format 1, written by dupfinder {} before backups listed their files' sizes: \
             restore it with that version, then take a new backup",
            manifest.version
        )));
    }
    if manifest.format != FORMAT {
        return Err(not_a_backup(format!(
            "format {} (this build reads format {FORMAT})",
            manifest.format
        )));
    }
    let mut unpacked = BTreeMap::new();
    for entry in entries {
        let mut entry = entry.map_err(|e| not_a_backup(e.to_string()))?;
        let kind = entry.header().entry_type();
        if !(kind.is_file() || kind.is_dir()) {
            return Err(not_a_backup(format!(
                "it holds a {kind:?} entry, which no backup has"
            )));
        }
        let path = archive_name(&entry.path().map_err(|e| not_a_backup(e.to_string()))?);
        if kind.is_file() {
            let size = entry
                .header()
                .size()
                .map_err(|e| not_a_backup(e.to_string()))?;
            let Some(&listed) = manifest.files.get(&path) else {
                return Err(not_a_backup(format!(
                    "it holds {path}, which its manifest does not list"
                )));
            };
            if size > listed {
                return Err(not_a_backup(format!(
                    "{path} is {size} bytes, larger than its manifest says ({listed})"
                )));
            }
            if size < listed || unpacked.insert(path.clone(), size).is_some() {
                return Err(not_a_backup(format!(
                    "{path} is not as its manifest lists it"
                )));
            }
        }
        // `tar` writes exactly the header's size, checked above against the manifest.
        let inside = entry
            .unpack_in(dir)
            .map_err(io(format!("restoring into {}", dir.display())))?;
        if !inside {
            return Err(not_a_backup(
                "an entry's path leads outside the data directory".into(),
            ));
        }
    }
    if let Some(missing) = manifest
        .files
        .keys()
        .find(|path| !unpacked.contains_key(*path))
    {
        return Err(not_a_backup(format!(
            "it ends before {missing}, which its manifest lists"
        )));
    }
    Ok(manifest)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A gzip-compressed tar archive of `entries` (name, bytes), the manifest first.
    fn archive(manifest: &serde_json::Value, entries: &[(&str, &[u8])]) -> Vec<u8> {
        let gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        let mut tar = tar::Builder::new(gzip);
        let mut append = |name: &str, bytes: &[u8]| {
            let mut header = tar::Header::new_gnu();
            header.set_size(bytes.len() as u64);
            header.set_mode(0o644);
            header.set_cksum();
            tar.append_data(&mut header, name, bytes).unwrap();
        };
        append(MANIFEST, &serde_json::to_vec(manifest).unwrap());
        for (name, bytes) in entries {
            append(name, bytes);
        }
        tar.into_inner().unwrap().finish().unwrap()
    }

    fn manifest(files: serde_json::Value) -> serde_json::Value {
        serde_json::json!({
            "format": FORMAT, "created": 0, "version": "test", "libraries": [], "files": files
        })
    }

    #[test]
    fn an_entry_larger_than_the_manifest_says_is_refused_before_it_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("restored");
        let big = vec![0u8; 8 << 20];
        let bytes = archive(
            &manifest(serde_json::json!({ "registry.redb": 16 })),
            &[("registry.redb", &big)],
        );
        let error = restore(bytes.as_slice(), "bomb.tar.gz", &target, |_, _| Ok(())).unwrap_err();
        assert!(
            error.to_string().contains("larger than its manifest says"),
            "{error}"
        );
        assert!(!target.exists(), "a refused restore left {target:?} behind");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn an_entry_the_manifest_does_not_list_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("restored");
        let bytes = archive(
            &manifest(serde_json::json!({ "registry.redb": 4 })),
            &[("registry.redb", b"redb"), ("extra.bin", b"more")],
        );
        let error = restore(bytes.as_slice(), "odd.tar.gz", &target, |_, _| Ok(())).unwrap_err();
        assert!(error.to_string().contains("extra.bin"), "{error}");
        assert!(!target.exists());
    }

    #[test]
    fn a_truncated_archive_leaves_no_data_directory_behind() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("restored");
        let payload: Vec<u8> = (0..200_000u32).flat_map(|i| i.to_le_bytes()).collect();
        let whole = archive(
            &manifest(serde_json::json!({ "registry.redb": payload.len() })),
            &[("registry.redb", &payload)],
        );
        let cut = &whole[..whole.len() / 2];
        assert!(restore(cut, "cut.tar.gz", &target, |_, _| Ok(())).is_err());
        assert!(!target.exists(), "a failed restore left {target:?} behind");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_restore_whose_check_fails_leaves_nothing_and_one_that_passes_is_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("restored");
        let bytes = archive(
            &manifest(serde_json::json!({ "registry.redb": 4 })),
            &[("registry.redb", b"redb")],
        );
        let error = restore(bytes.as_slice(), "b.tar.gz", &target, |_, _| {
            Err(BackupError::NotABackup(
                "b".into(),
                "the check said no".into(),
            ))
        })
        .unwrap_err();
        assert!(error.to_string().contains("the check said no"));
        assert!(!target.exists());
        // An empty directory made for the restore is taken.
        std::fs::create_dir(&target).unwrap();
        restore(bytes.as_slice(), "b.tar.gz", &target, |staged, _| {
            assert_ne!(staged, target.as_path(), "checked where it was unpacked");
            assert_eq!(
                std::fs::read(staged.join("registry.redb")).unwrap(),
                b"redb"
            );
            Ok(())
        })
        .unwrap();
        assert_eq!(
            std::fs::read(target.join("registry.redb")).unwrap(),
            b"redb"
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
