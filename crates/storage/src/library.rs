//! One library of a backend: its writes, reads and re-indexing.

use std::sync::Arc;

use super::kept::Kept;
use super::view::ReadView;
use crate::index::{
    DocumentPage, IndexError, IndexSummary, PreparedDocument, RebuildControl, RebuildOutcome,
    SearchError, SearchResults, SortKey, SortOrder,
};

/// One library of a backend.
pub trait LibraryStore: Send + Sync {
    /// A read view pinned to the current generation and the documents committed now.
    fn view(&self) -> Result<Box<dyn ReadView + '_>, IndexError>;

    /// Where the state kept with the library lives: its boilerplate phrases, its dedup job's
    /// checkpoint, edges, clusters and alerts (see [`Kept`]).
    fn kept(&self) -> Kept;

    /// Writes documents durably, each signed against the current generation; a document whose
    /// id exists replaces it (upsert by id).
    fn write(&self, documents: &[PreparedDocument]) -> Result<(), IndexError>;

    /// Writes documents like [`LibraryStore::write`], but they may become durable and visible
    /// only at the next [`LibraryStore::commit_staged`]: a bulk import writes its batches so.
    /// A backend whose every write is one transaction writes them at once.
    fn stage(&self, documents: &[PreparedDocument]) -> Result<(), IndexError> {
        self.write(documents)
    }

    /// Makes what [`LibraryStore::stage`] wrote durable and visible.
    fn commit_staged(&self) -> Result<(), IndexError> {
        Ok(())
    }

    /// Compacts the library after a bulk import, before it is re-indexed (on tantivy: one
    /// segment, which the re-index then reads once); a backend with nothing to compact does
    /// nothing.
    fn compact(&self) -> Result<(), IndexError> {
        Ok(())
    }

    /// Deletes the document `doc_id`; whether it was there.
    fn delete(&self, doc_id: &str) -> Result<bool, IndexError>;

    /// Counts describing the library now.
    fn summary(&self) -> Result<IndexSummary, IndexError>;

    /// A page of live documents in the order asked for.
    fn browse(
        &self,
        sort: SortKey,
        order: SortOrder,
        limit: usize,
        offset: usize,
    ) -> Result<DocumentPage, IndexError>;

    /// Searches the library's documents (the query language of [`crate::index::search`]);
    /// `limit` hits from `offset`, best first.
    fn search(
        &self,
        query: &str,
        limit: usize,
        offset: usize,
    ) -> Result<SearchResults, SearchError>;

    /// Re-indexes: counts statistics over live documents, signs every document into a new
    /// generation and switches to it atomically; an interrupted re-index is resumed. Waits while
    /// another re-index of the library runs.
    ///
    /// Each backend implements this one protocol in its own code (`index/rebuild.rs`,
    /// `postgres/library.rs`), not one function over the seam: how the signing pass walks and
    /// resumes, what marks the writes made meanwhile, how the new generation is published and
    /// where a cancel takes effect all differ, each for a reason of the backend; ARCHITECTURE.md
    /// ("One re-index protocol, two implementations") says which.
    fn reindex(
        &self,
        control: &RebuildControl<'_>,
        progress: &mut dyn FnMut(u64),
    ) -> Result<RebuildOutcome, IndexError>;

    /// The right to re-index the library, or `None` at once when a re-index of it holds that
    /// right elsewhere (another process on a shared database). The server's jobs re-index
    /// through a claim, so that a job runs once however many processes serve the library.
    fn claim_reindex(self: Arc<Self>) -> Result<Option<Box<dyn ReindexClaim>>, IndexError>;

    /// Whether a re-index of the library was left unfinished, and why.
    fn unfinished_reindex(&self) -> Result<UnfinishedReindex, IndexError>;
}

/// The right to re-index one library, held until it is dropped: no other claim on the library
/// is granted meanwhile.
pub trait ReindexClaim: Send {
    /// Re-indexes, as [`LibraryStore::reindex`] does, without waiting for anyone.
    fn reindex(
        &mut self,
        control: &RebuildControl<'_>,
        progress: &mut dyn FnMut(u64),
    ) -> Result<RebuildOutcome, IndexError>;

    /// Marks the library's unfinished generation as paused by an operator (`true`), or takes
    /// the mark away (`false`). A backend that keeps no such mark ignores it.
    fn set_paused(&mut self, paused: bool) -> Result<(), IndexError>;
}

/// What is left of a library's last re-index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnfinishedReindex {
    /// Nothing: the last re-index finished, or none was started.
    None,
    /// A generation was left half signed by a stop or a crash: the next re-index resumes it.
    Interrupted,
    /// A generation was left half signed by an operator's abort: resume sweeps leave it alone.
    Paused,
}
