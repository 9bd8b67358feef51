//! One library's indexes on disk: the content index, the statistics snapshot of the current
//! generation and the signature index of that generation. This file declares the type and its
//! locks; its behaviour lives one concept per file: `open.rs` (opening and repair), `write.rs`
//! (writes and the write gate), `view.rs` (the read view of a check), `stored.rs` (stored
//! documents), `rebuild.rs` (a new generation and the switch to it).
//!
//! ```text
//! <library dir>/content/             tantivy: documents (text, metadata, term counts, hash)
//! <library dir>/stats/gen-N.stats    the snapshot of generation N (checksummed)
//! <library dir>/signatures/gen-N/    tantivy: signatures computed against snapshot N
//! <library dir>/CURRENT              the current generation number
//! <library dir>/SHINGLES             the library's shingle selection ("winnow 8"; absent: "mod 4")
//! <library dir>/shingles/            the selected shingles of documents, in runs (`runs.rs`)
//! ```

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use parking_lot::{Mutex, RwLock};
use tantivy::{Index, IndexReader, IndexWriter, Searcher, TantivyDocument};

use super::browse::TitleOrder;
use super::runs::{PendingRun, RunSet};
use super::signatures::SignatureIndex;
use super::{ContentSchema, IndexError};
use crate::candidates::CandidateShare;
use dupfinder_signature::RobustScheme;
use dupfinder_text::analysis::ShingleSelection;

/// Options for opening a library's indexes.
#[derive(Debug, Clone)]
pub struct IndexOptions {
    /// Memory budget of the content index writer, in bytes.
    pub writer_memory: usize,
    /// The robust signature variants to compute.
    pub robust: RobustScheme,
}

impl Default for IndexOptions {
    fn default() -> Self {
        IndexOptions {
            writer_memory: 64_000_000,
            robust: RobustScheme::default(),
        }
    }
}

/// Counts describing a library's index.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IndexSummary {
    /// Live documents.
    pub documents: u64,
    /// Analyzed tokens in the content index.
    pub words: u64,
    /// Generation of the current statistics snapshot (0: never built).
    pub generation: u64,
    /// Documents in the current snapshot.
    pub snapshot_documents: u64,
    /// Documents added or replaced since the snapshot, relative to its size.
    pub drift: f64,
}

/// A library's content index, statistics snapshot and signatures.
///
/// **Lock order.** A thread that holds several of these locks took them in this order, and
/// releases a later one before it takes an earlier one again:
/// `rebuild_gate` → `write_gate` → `writer` → `signatures` (write) → a signature index's own
/// writer lock; `pending` and `runs` are leaf locks. Readers take none of them but a momentary `signatures` read to clone the
/// current `Arc`: a check never waits for a write. `title_order` is a leaf lock (nothing is
/// taken while it is held). The locks are parking_lot's, which a panic does not poison.
pub struct LibraryIndex {
    pub(super) dir: PathBuf,
    pub(super) content_path: PathBuf,
    pub(super) schema: ContentSchema,
    pub(super) index: Index,
    pub(super) reader: IndexReader,
    /// Opened by the first write and closed once the library has been idle a while
    /// ([`LibraryIndex::close_idle_writers`]): a writer holds threads and memory, and a data
    /// directory holds thousands of libraries.
    pub(super) writer: Mutex<Option<IndexWriter<TantivyDocument>>>,
    /// When the library was last written (a leaf lock).
    pub(super) last_write: Mutex<Instant>,
    pub(super) writer_memory: usize,
    /// The current generation: swapped whole by a re-index, cloned by every check.
    pub(super) signatures: RwLock<Arc<SignatureIndex>>,
    /// Serializes writers: ingest batches, deletes and the switch of a re-index.
    pub(super) write_gate: Mutex<()>,
    pub(super) changed_since_snapshot: AtomicU64,
    /// Documents written but not committed yet (see [`LibraryIndex::stage`]).
    pub(super) staged: AtomicU64,
    /// Whether documents were written without signatures since the current generation was
    /// signed whole (a bulk import's, see [`LibraryIndex::stage`]): while so, commits leave the
    /// signatures' record of the content they reflect where it was, so that a crash is
    /// repaired by re-signing when the library is opened again.
    pub(super) unsigned: AtomicBool,
    /// Serializes re-indexes of this library.
    pub(super) rebuild_gate: Mutex<()>,
    pub(super) robust: RobustScheme,
    /// Which shingles the library indexes and a check looks up, fixed when it was created.
    pub(super) shingle_selection: ShingleSelection,
    /// Title order per segment, for listings sorted by title.
    pub(super) title_order: TitleOrder,
    /// This library's keys in the candidate map spanning libraries, when there is one.
    pub(super) candidates: Option<Arc<CandidateShare>>,
    /// The selected shingles of committed documents (`runs.rs`): swapped whole by a commit or
    /// a merge, cloned by every view.
    pub(super) runs: RwLock<Arc<RunSet>>,
    /// The selected shingles of documents staged since the last commit.
    pub(super) pending: Mutex<PendingRun>,
}

impl LibraryIndex {
    /// The signatures (and snapshot) checks use right now.
    pub fn signatures(&self) -> Arc<SignatureIndex> {
        self.signatures.read().clone()
    }

    /// A searcher over the content index as of the last commit.
    pub fn searcher(&self) -> Searcher {
        self.reader.searcher()
    }

    /// The tantivy content index (for query parsing).
    pub(crate) fn tantivy_index(&self) -> &Index {
        &self.index
    }

    /// The content schema with its fields.
    pub fn schema(&self) -> &ContentSchema {
        &self.schema
    }

    pub(super) fn content_opstamp(&self) -> Result<u64, IndexError> {
        Ok(self
            .index
            .load_metas()
            .map_err(IndexError::tantivy(&self.content_path))?
            .opstamp)
    }

    /// Counts describing the index now.
    pub fn summary(&self) -> IndexSummary {
        let searcher = self.searcher();
        let words = searcher
            .segment_readers()
            .iter()
            .flat_map(|s| {
                self.schema
                    .analysed_fields()
                    .map(|field| s.inverted_index(field).ok())
            })
            .flatten()
            .map(|i| i.total_num_tokens())
            .sum();
        let signatures = self.signatures();
        let snapshot_documents = signatures.snapshot().docs();
        let changed = self.changed_since_snapshot.load(Ordering::Relaxed);
        IndexSummary {
            documents: searcher.num_docs(),
            words,
            generation: signatures.generation(),
            snapshot_documents,
            drift: changed as f64 / snapshot_documents.max(1) as f64,
        }
    }

    /// Closes the writers of a library nobody wrote for `idle` (their merges finish first);
    /// the next write opens them again. Answers whether it closed them. A library being
    /// written, re-indexed or holding staged documents is left alone.
    pub fn close_idle_writers(&self, idle: Duration) -> Result<bool, IndexError> {
        if self.last_write.lock().elapsed() < idle {
            return Ok(false);
        }
        let Some(_rebuild) = self.rebuild_gate.try_lock() else {
            return Ok(false);
        };
        let Some(_gate) = self.write_gate.try_lock() else {
            return Ok(false);
        };
        if self.staged.load(Ordering::Relaxed) > 0 {
            return Ok(false);
        }
        let Some(writer) = self.writer.lock().take() else {
            return Ok(false);
        };
        writer
            .wait_merging_threads()
            .map_err(IndexError::tantivy(&self.content_path))?;
        self.reader
            .reload()
            .map_err(IndexError::tantivy(&self.content_path))?;
        self.signatures().close_writer()?;
        Ok(true)
    }

    /// Whether the content writer is open.
    pub fn has_writer(&self) -> bool {
        self.writer.lock().is_some()
    }

    /// Notes a write, for [`LibraryIndex::close_idle_writers`].
    pub(super) fn wrote(&self) {
        *self.last_write.lock() = Instant::now();
    }

    /// Which shingles the library indexes and a check looks up.
    pub fn shingle_selection(&self) -> ShingleSelection {
        self.shingle_selection
    }

    /// Where the library's files are.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}
