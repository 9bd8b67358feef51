//! A library's committed state copied for a backup while the server runs: taken under the
//! rebuild and write gates (no commit, delete or generation switch meanwhile). The files of a
//! tantivy index are hard-linked: tantivy never changes a committed file (a commit writes new
//! files and replaces `meta.json` by a rename), so a link is a copy of the file as it was. Only
//! the segments the linked `meta.json` names are linked: a background merge writes its new
//! segment's files meanwhile, and a link to a file still being written would grow after the
//! backup measured it. Shingle runs are linked too (never changed once in place; no merge of
//! them runs under the write gate). Every other file (snapshots, `CURRENT`, the dedup state,
//! which grows by appends) is copied. A background merge may still finish and remove segment files between the
//! links; the copy is then opened to prove it whole, and taken again if it is not.

use std::collections::HashSet;
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
    // The committed segments, as of the `meta.json` the copy keeps.
    let committed = match tantivy {
        true => {
            std::fs::hard_link(from.join("meta.json"), to.join("meta.json"))?;
            Some(committed_segments(&to.join("meta.json"))?)
        }
        false => None,
    };
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        let target = to.join(&name);
        let kind = entry.file_type()?;
        let uncommitted = || {
            let segment = segment_of(name.to_str().unwrap_or_default());
            committed
                .as_ref()
                .zip(segment)
                .is_some_and(|(committed, segment)| !committed.contains(segment))
        };
        if kind.is_dir() {
            link_tree(&entry.path(), &target)?;
        } else if kind.is_file()
            && !LOCK_FILES.iter().any(|l| name == *l)
            && name != "meta.json"
            && !uncommitted()
        {
            if name.to_string_lossy().ends_with(".tmp") {
                // A run being written: not part of the committed state.
                continue;
            }
            let linked = if tantivy || is_run(&name) {
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

/// The segment ids (32 hexadecimal digits, as the segments' file names spell them) that the
/// tantivy `meta.json` at `path` names.
fn committed_segments(path: &Path) -> std::io::Result<HashSet<String>> {
    let meta: serde_json::Value = serde_json::from_slice(&std::fs::read(path)?)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
    let segments = meta["segments"].as_array().cloned().unwrap_or_default();
    Ok(segments
        .iter()
        .filter_map(|segment| segment["segment_id"].as_str())
        .map(|id| id.replace('-', ""))
        .collect())
}

/// Whether `name` is a library's shingle run, never written once in place (`runs.rs`).
fn is_run(name: &std::ffi::OsStr) -> bool {
    name.to_string_lossy().ends_with(".keys")
}

/// The segment a tantivy file belongs to (`<32 hex digits>.<component>`), if it is a segment's.
fn segment_of(name: &str) -> Option<&str> {
    let (stem, _) = name.split_once('.')?;
    (stem.len() == 32 && stem.bytes().all(|b| b.is_ascii_hexdigit())).then_some(stem)
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

#[cfg(test)]
mod tests {
    use super::super::testing::{open_index, prepared};
    use super::*;

    /// A file of a segment `meta.json` does not name (a merge still writing it) stays out of the
    /// copy; the committed segments are in it, and it opens with every document.
    #[test]
    fn a_segment_still_being_written_is_not_copied() {
        let dir = tempfile::tempdir().unwrap();
        let index = open_index(dir.path());
        let documents: Vec<_> = (0..3)
            .map(|i| {
                prepared(
                    &format!("d{i}"),
                    &format!("документ номер {i} о методе шинглов и сигнатур"),
                )
            })
            .collect();
        index.add(&documents).unwrap();
        let content = dir.path().join("content");
        let writing = "0123456789abcdef0123456789abcdef.term";
        std::fs::write(content.join(writing), b"half a segment").unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let dest = elsewhere.path().join("copy");
        assert_eq!(index.snapshot_to(&dest).unwrap(), 3);
        let copied: Vec<String> = std::fs::read_dir(dest.join("content"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(!copied.iter().any(|name| name == writing), "{copied:?}");
        let committed = committed_segments(&content.join("meta.json")).unwrap();
        assert!(!committed.is_empty());
        for segment in &committed {
            assert!(copied.iter().any(|name| segment_of(name) == Some(segment)));
        }
        assert_eq!(segment_of("meta.json"), None);
        assert_eq!(segment_of(".managed.json"), None);
        assert_eq!(
            segment_of("0123456789abcdef0123456789abcdef.12.del"),
            Some(&writing[..32])
        );
    }

    /// The copy holds the library's shingle runs, linked, and not a run still being written:
    /// opened, it finds each document by its shingles as the library does.
    #[test]
    fn a_copy_keeps_the_shingle_runs() {
        let dir = tempfile::tempdir().unwrap();
        let index = open_index(dir.path());
        let documents: Vec<_> = (0..3)
            .map(|i| {
                prepared(
                    &format!("d{i}"),
                    &format!(
                        "документ {i}: метод шинглов находит заимствования в тексте статьи, \
                         а сигнатуры {i} находят почти дубликаты среди документов библиотеки"
                    ),
                )
            })
            .collect();
        index.add(&documents).unwrap();
        let runs = dir.path().join(super::super::runs::RUNS_DIR);
        std::fs::write(
            runs.join("run-00000000000000ff-00000000000000ff.keys.tmp"),
            b"half",
        )
        .unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let dest = elsewhere.path().join("copy");
        index.snapshot_to(&dest).unwrap();
        let copied: Vec<String> = std::fs::read_dir(dest.join(super::super::runs::RUNS_DIR))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(copied.len(), 1, "{copied:?}");
        assert!(copied[0].ends_with(".keys"), "{copied:?}");
        drop(index);
        let copy = open_index(&dest);
        let view = copy.view();
        for document in &documents {
            let shingles = view.shingle_selection().lookups(&document.shingle_seq);
            let search = view
                .shingle_search(&super::super::ShingleQuery {
                    shingles: &shingles,
                    max_df: u64::MAX,
                    min_hits: 1,
                    limit: 10,
                })
                .unwrap();
            let key = super::super::DocKey(super::super::doc_key(&document.doc_id));
            assert!(
                search.hits.iter().any(|(k, _)| *k == key),
                "{:?}",
                search.hits
            );
        }
    }
}
