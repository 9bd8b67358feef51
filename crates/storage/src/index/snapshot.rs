//! A library's committed state copied for a backup while the server runs: taken under the
//! rebuild and write gates (no commit, delete or generation switch meanwhile). The files of a
//! tantivy index are hard-linked: tantivy never changes a committed file (a commit writes new
//! files and replaces `meta.json` by a rename), so a link is a copy of the file as it was. Every
//! other file (snapshots, `CURRENT`, the dedup state, which grows by appends) is copied. A
//! background merge may still finish and remove segment files between the links; the copy is
//! then opened to prove it whole, and taken again if it is not.

use std::path::Path;

use super::{IndexError, LibraryIndex};

/// Attempts before a snapshot that keeps meeting a finishing merge gives up.
const ATTEMPTS: usize = 5;

/// tantivy's lock files: they belong to the running writer, not to the data.
const LOCK_FILES: &[&str] = &[".tantivy-writer.lock", ".tantivy-meta.lock"];

impl LibraryIndex {
    /// Copies the library's committed documents, statistics and signatures into `dest` (which
    /// must not exist); answers how many documents the copy holds. Writers wait meanwhile;
    /// checks and searches do not.
    pub fn snapshot_to(&self, dest: &Path) -> Result<u64, IndexError> {
        let _rebuild = self.rebuild_gate.lock();
        let _gate = self.write_gate.lock();
        let mut last = None;
        for _ in 0..ATTEMPTS {
            if dest.exists() {
                std::fs::remove_dir_all(dest).map_err(IndexError::io(dest))?;
            }
            link_tree(&self.dir, dest).map_err(IndexError::io(dest))?;
            match open_every_index(dest) {
                Ok(()) => return documents_in(&dest.join("content")),
                Err(e) => {
                    tracing::debug!(error = %e, "a merge finished during the snapshot; again");
                    last = Some(e);
                }
            }
        }
        Err(last.expect("at least one attempt"))
    }
}

/// Recreates `from`'s directories under `to`: the files of tantivy indexes hard-linked (copied
/// where the file system refuses a link), every other file copied.
fn link_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    let tantivy = from.join("meta.json").is_file();
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        let target = to.join(&name);
        let kind = entry.file_type()?;
        if kind.is_dir() {
            link_tree(&entry.path(), &target)?;
        } else if kind.is_file() && !LOCK_FILES.iter().any(|l| name == *l) {
            let linked = if tantivy {
                std::fs::hard_link(entry.path(), &target)
            } else {
                Err(std::io::Error::other("copied, not linked"))
            };
            match linked {
                Ok(()) => {}
                // Removed since it was listed: a merged-away segment or a replaced file.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(_) => {
                    if let Err(e) = std::fs::copy(entry.path(), &target)
                        && e.kind() != std::io::ErrorKind::NotFound
                    {
                        return Err(e);
                    }
                }
            }
        }
    }
    Ok(())
}

/// The live documents of the tantivy index at `dir`.
fn documents_in(dir: &Path) -> Result<u64, IndexError> {
    let index = tantivy::Index::open_in_dir(dir).map_err(IndexError::tantivy(dir))?;
    let reader = index.reader().map_err(IndexError::tantivy(dir))?;
    Ok(reader.searcher().num_docs())
}

/// Opens every tantivy index under `dir` with all its segments: an error names a file missing.
fn open_every_index(dir: &Path) -> Result<(), IndexError> {
    if dir.join("meta.json").is_file() {
        return documents_in(dir).map(drop);
    }
    for entry in std::fs::read_dir(dir).map_err(IndexError::io(dir))? {
        let entry = entry.map_err(IndexError::io(dir))?;
        if entry.file_type().map_err(IndexError::io(dir))?.is_dir() {
            open_every_index(&entry.path())?;
        }
    }
    Ok(())
}
