//! The embedded backend: the seam implemented by the existing tantivy types, delegating to
//! them, so the default keeps its behaviour and speed exactly. [`TantivyStorage`] keeps the
//! libraries of a data directory — their records in a redb registry, one folder of indexes each
//! under `libraries/`, opened once per process (an index has one writer) — and hands its
//! `LibraryIndex`es out as [`LibraryStore`]s (`tantivy/libraries.rs`); its writes, and what a
//! failed one leaves behind, are in `tantivy/writes.rs`.

use std::borrow::Cow;
use std::sync::Arc;

use super::{Kept, LibraryStore, ReadView, ReindexClaim, UnfinishedReindex};
use crate::index::{
    DocKey, DocumentPage, IndexError, IndexSummary, LibraryIndex, LibraryView, PreparedDocument,
    RebuildControl, RebuildOutcome, SearchError, SearchResults, ShingleQuery, ShingleSearch,
    SortKey, SortOrder, StoredDocument, StoredForCheck,
};
use dupfinder_signature::{RobustScheme, StatsSnapshot};
use dupfinder_text::analysis::ShingleSelection;

mod libraries;
mod writes;

pub use libraries::TantivyStorage;

impl ReadView for LibraryView<'_> {
    fn generation(&self) -> u64 {
        LibraryView::generation(self)
    }

    fn scheme(&self) -> RobustScheme {
        LibraryView::scheme(self)
    }

    fn shingle_selection(&self) -> ShingleSelection {
        LibraryView::shingle_selection(self)
    }

    /// The whole snapshot is in memory already: lending it costs nothing.
    fn statistics(&self, _terms: &[(String, u32)]) -> Result<Cow<'_, StatsSnapshot>, IndexError> {
        Ok(Cow::Borrowed(self.snapshot()))
    }

    fn with_content_hash(&self, hash: u64, limit: usize) -> Result<Vec<DocKey>, IndexError> {
        LibraryView::with_content_hash(self, hash, limit)
    }

    fn with_seed(&self, seed: u32, limit: usize) -> Result<Vec<DocKey>, IndexError> {
        LibraryView::with_seed(self, seed, limit)
    }

    fn with_robust(&self, signature: u64, limit: usize) -> Result<Vec<DocKey>, IndexError> {
        LibraryView::with_robust(self, signature, limit)
    }

    fn shingle_search(&self, query: &ShingleQuery<'_>) -> Result<ShingleSearch, IndexError> {
        LibraryView::shingle_search(self, query)
    }

    fn term_search(
        &self,
        terms: &[String],
        lang: &str,
        limit: usize,
    ) -> Result<Option<Vec<DocKey>>, IndexError> {
        LibraryView::term_search(self, terms, lang, limit).map(Some)
    }

    fn stored(&self, key: DocKey) -> Result<Option<StoredDocument>, IndexError> {
        LibraryView::stored(self, key)
    }

    fn stored_term_counts(&self, key: DocKey) -> Result<Option<Vec<(String, u32)>>, IndexError> {
        LibraryView::stored_term_counts(self, key)
    }

    fn stored_for_check(&self, key: DocKey) -> Result<Option<StoredForCheck>, IndexError> {
        LibraryView::stored_for_check(self, key)
    }

    fn stored_for_check_each(
        &self,
        keys: &[DocKey],
    ) -> Result<Vec<Option<StoredForCheck>>, IndexError> {
        LibraryView::stored_for_check_each(self, keys)
    }

    fn keys(&self) -> Result<Vec<DocKey>, IndexError> {
        LibraryView::keys(self)
    }
}

impl LibraryStore for LibraryIndex {
    fn view(&self) -> Result<Box<dyn ReadView + '_>, IndexError> {
        Ok(Box::new(LibraryIndex::view(self)))
    }

    fn kept(&self) -> Kept {
        Kept::Folder(self.dir().to_path_buf())
    }

    fn write(&self, documents: &[PreparedDocument]) -> Result<(), IndexError> {
        self.add(documents)
    }

    fn stage(&self, documents: &[PreparedDocument]) -> Result<(), IndexError> {
        LibraryIndex::stage(self, documents)
    }

    fn commit_staged(&self) -> Result<(), IndexError> {
        LibraryIndex::commit_staged(self)
    }

    fn compact(&self) -> Result<(), IndexError> {
        self.optimize()
    }

    fn search(
        &self,
        query: &str,
        limit: usize,
        offset: usize,
    ) -> Result<SearchResults, SearchError> {
        LibraryIndex::search(self, query, limit, offset)
    }

    fn delete(&self, doc_id: &str) -> Result<bool, IndexError> {
        LibraryIndex::delete(self, doc_id)
    }

    fn summary(&self) -> Result<IndexSummary, IndexError> {
        Ok(LibraryIndex::summary(self))
    }

    fn browse(
        &self,
        sort: SortKey,
        order: SortOrder,
        limit: usize,
        offset: usize,
    ) -> Result<DocumentPage, IndexError> {
        LibraryIndex::browse(self, sort, order, limit, offset)
    }

    fn reindex(
        &self,
        control: &RebuildControl<'_>,
        progress: &mut dyn FnMut(u64),
    ) -> Result<RebuildOutcome, IndexError> {
        self.rebuild(control, progress)
    }

    /// One process owns a data directory, and its jobs start one re-index per library: the
    /// claim is always granted (the index's own lock still serializes re-indexes).
    fn claim_reindex(self: Arc<Self>) -> Result<Option<Box<dyn ReindexClaim>>, IndexError> {
        Ok(Some(Box::new(TantivyClaim(self))))
    }

    /// An index keeps no pause mark: an unfinished generation is always resumable.
    fn unfinished_reindex(&self) -> Result<UnfinishedReindex, IndexError> {
        Ok(if self.has_unfinished_rebuild() {
            UnfinishedReindex::Interrupted
        } else {
            UnfinishedReindex::None
        })
    }
}

/// The right to re-index a library of the data directory.
struct TantivyClaim(Arc<LibraryIndex>);

impl ReindexClaim for TantivyClaim {
    fn reindex(
        &mut self,
        control: &RebuildControl<'_>,
        progress: &mut dyn FnMut(u64),
    ) -> Result<RebuildOutcome, IndexError> {
        self.0.rebuild(control, progress)
    }

    fn set_paused(&mut self, _paused: bool) -> Result<(), IndexError> {
        Ok(())
    }
}
