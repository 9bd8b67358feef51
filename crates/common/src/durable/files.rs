//! Small files replaced whole and durably, and appends synced soon rather than at once.

use std::collections::HashSet;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Once, OnceLock};

use parking_lot::Mutex;
use std::time::Duration;

/// How long an append left to [`sync_soon`] may stay in the kernel's cache before it is synced.
pub(crate) const SYNC_SOON: Duration = Duration::from_secs(1);

/// Writes `bytes` beside `path`, syncs them, renames the copy over `path` and syncs the folder:
/// a reader (or a restart after a crash) sees the old file or the new one, never half of one.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    let mut file = File::create(&tmp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    std::fs::rename(&tmp, path)?;
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        File::open(parent)?.sync_all()?;
    }
    Ok(())
}

/// Has the file at `path`, just appended to, synced by a background thread within
/// [`SYNC_SOON`], together with whatever else was appended meanwhile. For records a write can
/// afford to lose to a power cut but not to a kill: a killed process loses nothing (the data is
/// the kernel's once written), a power cut at most the last [`SYNC_SOON`], and the write that
/// made them waits for no disk flush (one costs milliseconds on some disks).
pub fn sync_soon(path: &Path) {
    static FLUSHER: Once = Once::new();
    pending().lock().insert(path.to_path_buf());
    FLUSHER.call_once(|| {
        let started = std::thread::Builder::new()
            .name("sync-soon".into())
            .spawn(|| {
                loop {
                    std::thread::sleep(SYNC_SOON);
                    sync_pending();
                }
            });
        if let Err(e) = started {
            tracing::error!(error = %e, "no thread to sync appended files; the kernel will");
        }
    });
}

fn pending() -> &'static Mutex<HashSet<PathBuf>> {
    static PENDING: OnceLock<Mutex<HashSet<PathBuf>>> = OnceLock::new();
    PENDING.get_or_init(Default::default)
}

/// Syncs every file handed to [`sync_soon`] since the last call, and the folders holding them
/// (a file the append created is only there for good once its folder is synced). A file
/// deleted meanwhile (its library deleted) is skipped.
fn sync_pending() {
    let paths = std::mem::take(&mut *pending().lock());
    let folders: HashSet<&Path> = paths.iter().filter_map(|p| p.parent()).collect();
    let files = paths.iter().map(PathBuf::as_path);
    for path in files.chain(folders) {
        match File::open(path).and_then(|file| file.sync_data()) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => tracing::error!(path = %path.display(), error = %e, "could not sync"),
            Ok(()) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_to_sync_soon_are_synced_once_and_deleted_ones_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let kept = dir.path().join("kept.jsonl");
        let gone = dir.path().join("gone.jsonl");
        std::fs::write(&kept, b"{}\n").unwrap();
        std::fs::write(&gone, b"{}\n").unwrap();
        sync_soon(&kept);
        sync_soon(&gone);
        std::fs::remove_file(&gone).unwrap();
        // The flusher may have taken them already; either way none is left after this.
        sync_pending();
        let pending = pending().lock();
        assert!(!pending.contains(&kept) && !pending.contains(&gone));
        assert_eq!(std::fs::read(&kept).unwrap(), b"{}\n");
    }

    #[test]
    fn a_file_is_replaced_whole_and_no_temporary_copy_remains() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("list.json");
        write_atomically(&path, b"first").unwrap();
        write_atomically(&path, b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["list.json"]);
    }
}
