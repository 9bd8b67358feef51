//! Opening a library's indexes: the content index, the current generation's snapshot and
//! signature index, and the repairs a crash or a damaged file calls for.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use parking_lot::{Mutex, RwLock};
use tantivy::ReloadPolicy;

use super::browse::TitleOrder;
use super::error::open_or_create;
use super::runs::{PendingRun, RUNS_DIR, RunSet};
use super::signatures::SignatureIndex;
use super::stats::{load_snapshot, snapshot_path};
use super::tokenizer::{AnalyzerTokenizer, TOKENIZER_NAME};
use super::{ContentSchema, IndexError, IndexOptions, LibraryIndex};
use crate::candidates::CandidateShare;
use dupfinder_signature::StatsSnapshot;
use dupfinder_text::analysis::{Analyzer, ShingleSelection};

impl LibraryIndex {
    /// Opens the library's indexes under `dir`, creating them when missing, and repairs a
    /// signature index that lags behind the content index.
    pub fn open(
        dir: &Path,
        analyzer: &Analyzer,
        options: &IndexOptions,
    ) -> Result<Self, IndexError> {
        Self::open_in(dir, analyzer, options, None)
    }

    /// Opens the library like [`LibraryIndex::open`], keeping its keys in `candidates`, its
    /// share of the candidate map spanning the libraries of a data directory.
    pub fn open_in(
        dir: &Path,
        analyzer: &Analyzer,
        options: &IndexOptions,
        candidates: Option<Arc<CandidateShare>>,
    ) -> Result<Self, IndexError> {
        let schema = ContentSchema::load()?;
        let content_path = dir.join("content");
        std::fs::create_dir_all(dir.join("stats")).map_err(IndexError::io(dir))?;
        let shingle_selection = shingle_selection(dir)?;
        let index = open_or_create(&content_path, schema.schema.clone())?;
        index
            .tokenizers()
            .register(TOKENIZER_NAME, AnalyzerTokenizer::new(analyzer.clone()));
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(IndexError::tantivy(&content_path))?;

        let (runs, runs_damaged) = open_runs(dir)?;
        let generation = read_current(dir)?;
        let mut damaged = false;
        let snapshot = match generation {
            0 => StatsSnapshot::empty(),
            g => match load_snapshot(&snapshot_path(&dir.join("stats"), g)) {
                Ok(snapshot) => snapshot,
                Err(e @ (IndexError::CorruptSnapshot { .. } | IndexError::Io { .. })) => {
                    // Derived data: counted again from the content index, every document
                    // re-signed against it, as the next generation.
                    tracing::warn!(error = %e, "the statistics snapshot is unusable; re-indexing");
                    damaged = true;
                    StatsSnapshot::new(g, 0, HashMap::new())
                }
                Err(e) => return Err(e),
            },
        };
        let signatures = SignatureIndex::open(
            &signature_path(dir, generation),
            Arc::new(snapshot),
            options.robust,
            candidates.clone(),
        )?;
        let library = LibraryIndex {
            dir: dir.to_path_buf(),
            content_path,
            schema,
            index,
            reader,
            writer: Mutex::new(None),
            last_write: Mutex::new(Instant::now()),
            writer_memory: options.writer_memory,
            signatures: RwLock::new(Arc::new(signatures)),
            write_gate: Mutex::new(()),
            changed_since_snapshot: AtomicU64::new(0),
            staged: AtomicU64::new(0),
            unsigned: AtomicBool::new(false),
            rebuild_gate: Mutex::new(()),
            robust: options.robust,
            shingle_selection,
            title_order: TitleOrder::default(),
            candidates,
            runs: RwLock::new(Arc::new(runs)),
            pending: Mutex::new(PendingRun::default()),
        };
        if runs_damaged {
            library.rebuild_runs()?;
        }
        if damaged {
            library.rebuild_statistics(|_| {})?;
        } else {
            library.repair_signatures()?;
        }
        library.count_changes_since_snapshot();
        Ok(library)
    }

    /// Re-signs every document when the signature index does not reflect the content index's
    /// last commit (the process died between the two commits).
    pub(super) fn repair_signatures(&self) -> Result<(), IndexError> {
        let signatures = self.signatures();
        let content_opstamp = self.content_opstamp()?;
        if signatures.synced_opstamp()? == Some(content_opstamp)
            && signatures.scheme_on_disk()? == Some(self.robust)
        {
            return Ok(());
        }
        if content_opstamp == 0 && signatures.is_empty() {
            return Ok(());
        }
        tracing::warn!(dir = %self.dir.display(), "signature index lags the content index; re-signing");
        signatures.clear()?;
        self.sign_live(&signatures, &HashSet::new(), |_| Ok(true))?;
        signatures.commit(content_opstamp)
    }

    pub(super) fn count_changes_since_snapshot(&self) {
        let snapshot = self.signatures().snapshot().clone();
        let now = self.reader.searcher().num_docs();
        let changed = now.abs_diff(snapshot.docs());
        self.changed_since_snapshot
            .store(changed, Ordering::Relaxed);
    }
}

/// The library's shingle runs; answers whether they were damaged, in which case they were
/// removed and the set is empty until [`LibraryIndex::rebuild_runs`] writes them again from the
/// stored documents (they are derived data).
fn open_runs(dir: &Path) -> Result<(RunSet, bool), IndexError> {
    let runs_dir = dir.join(RUNS_DIR);
    match RunSet::open(&runs_dir) {
        Ok(runs) => Ok((runs, false)),
        Err(e @ IndexError::CorruptFile { .. }) => {
            tracing::warn!(error = %e, "shingle runs are damaged; writing them again from the stored documents");
            std::fs::remove_dir_all(&runs_dir).map_err(IndexError::io(&runs_dir))?;
            Ok((RunSet::open(&runs_dir)?, true))
        }
        Err(e) => Err(e),
    }
}

pub(super) fn signature_path(dir: &Path, generation: u64) -> PathBuf {
    dir.join("signatures").join(format!("gen-{generation}"))
}

/// Brings the schema of the library in `dir` up to date, or refuses it when it is no older
/// version of ours ([`IndexError::SchemaMismatch`]), without opening the library: a data
/// directory's libraries are looked at this way at start and opened when first used.
pub fn prepare_schema(dir: &Path) -> Result<(), IndexError> {
    let schema = ContentSchema::load()?;
    shingle_selection(dir)?;
    open_or_create(&dir.join("content"), schema.schema).map(drop)
}

/// The file naming the library's shingle selection.
const SHINGLES_FILE: &str = "SHINGLES";

/// The shingle selection of the library in `dir`, from its `SHINGLES` file. A library without
/// one was created before the file existed, with the `mod 4` sample, when it has a content
/// index; otherwise it is new and takes [`ShingleSelection::NEW`]. Either is written down before
/// the content index is created, so a library never changes its selection.
fn shingle_selection(dir: &Path) -> Result<ShingleSelection, IndexError> {
    let path = dir.join(SHINGLES_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            ShingleSelection::from_marker(&text).ok_or_else(|| IndexError::SchemaMismatch {
                path: path.clone(),
                reason: format!("unknown shingle selection {:?}", text.trim()),
            })
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let selection = if dir.join("content").join("meta.json").exists() {
                ShingleSelection::Modulo
            } else {
                ShingleSelection::NEW
            };
            std::fs::create_dir_all(dir).map_err(IndexError::io(dir))?;
            let marker = format!("{}\n", selection.marker());
            dupfinder_common::durable::write_atomically(&path, marker.as_bytes())
                .map_err(IndexError::io(&path))?;
            Ok(selection)
        }
        Err(e) => Err(IndexError::io(&path)(e)),
    }
}

/// The current statistics generation of the library in `dir`, without opening it.
pub fn current_generation(dir: &Path) -> Result<u64, IndexError> {
    read_current(dir)
}

pub(super) fn read_current(dir: &Path) -> Result<u64, IndexError> {
    let path = dir.join("CURRENT");
    match std::fs::read_to_string(&path) {
        Ok(text) => text
            .trim()
            .parse()
            .map_err(|_| IndexError::CorruptSnapshot {
                path: path.clone(),
                reason: format!("CURRENT holds {:?}, not a generation number", text.trim()),
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(0),
        Err(e) => Err(IndexError::io(&path)(e)),
    }
}

pub(super) fn write_current(dir: &Path, generation: u64) -> Result<(), IndexError> {
    let path = dir.join("CURRENT");
    dupfinder_common::durable::write_atomically(&path, format!("{generation}\n").as_bytes())
        .map_err(IndexError::io(&path))
}
