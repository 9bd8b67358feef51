//! The read view: one consistent read of a library, through which every lookup and stored read
//! of a check goes.

use std::borrow::Cow;

use crate::index::{
    DocKey, IndexError, ShingleQuery, ShingleSearch, StoredDocument, StoredForCheck, TermCounts,
};
use dupfinder_signature::{RobustScheme, StatsSnapshot};
use dupfinder_text::analysis::ShingleSelection;

/// One consistent read of a library: a statistics generation and the documents as of one
/// moment. Writes and generation switches after the view was taken do not change what it reads.
pub trait ReadView {
    /// The statistics generation the view's signatures were computed against.
    fn generation(&self) -> u64;

    /// The robust signature variants of the view's generation.
    fn scheme(&self) -> RobustScheme;

    /// Which shingles the library indexes, and so which of a query's shingles a check looks up
    /// and counts as evidence.
    fn shingle_selection(&self) -> ShingleSelection;

    /// The statistics of the view's generation: `N`, and `df` and `cf` of at least the terms of
    /// `terms` (a backend may answer with every term it has at hand).
    fn statistics(&self, terms: &[(String, u32)]) -> Result<Cow<'_, StatsSnapshot>, IndexError>;

    /// Live documents whose content hash is `hash`.
    fn with_content_hash(&self, hash: u64, limit: usize) -> Result<Vec<DocKey>, IndexError>;

    /// Live documents whose seed signature is `seed`.
    fn with_seed(&self, seed: u32, limit: usize) -> Result<Vec<DocKey>, IndexError>;

    /// Live documents having `signature` among their robust signatures.
    fn with_robust(&self, signature: u64, limit: usize) -> Result<Vec<DocKey>, IndexError>;

    /// [`ReadView::with_robust`] for each of `signatures`, in their order. A backend where a
    /// lookup is a round trip answers them all in one.
    fn with_robust_each(
        &self,
        signatures: &[u64],
        limit: usize,
    ) -> Result<Vec<Vec<DocKey>>, IndexError> {
        signatures
            .iter()
            .map(|signature| self.with_robust(*signature, limit))
            .collect()
    }

    /// Which live documents share selected shingles with a query ([`ShingleQuery`]).
    fn shingle_search(&self, query: &ShingleQuery<'_>) -> Result<ShingleSearch, IndexError>;

    /// Live documents in language `lang` holding any of `terms` (analyzer terms), the best BM25
    /// score first, at most `limit`; `None` from a backend that has no term search.
    fn term_search(
        &self,
        _terms: &[String],
        _lang: &str,
        _limit: usize,
    ) -> Result<Option<Vec<DocKey>>, IndexError> {
        Ok(None)
    }

    /// The stored document `key`, if it is live in this view.
    fn stored(&self, key: DocKey) -> Result<Option<StoredDocument>, IndexError>;

    /// The stored document `key` with what verification needs, if it is live in this view.
    fn stored_for_check(&self, key: DocKey) -> Result<Option<StoredForCheck>, IndexError>;

    /// The term counts of the stored document `key` (each distinct term once, sorted by term,
    /// with its count; empty if the stored bytes are corrupt), if it is live in this view: what a
    /// bag-of-words test needs, without the text, its shingles and its token ranges.
    fn stored_term_counts(&self, key: DocKey) -> Result<Option<Vec<(String, u32)>>, IndexError> {
        Ok(self.stored_for_check(key)?.map(|stored| {
            stored
                .term_counts()
                .map(TermCounts::to_pairs)
                .unwrap_or_default()
        }))
    }

    /// [`ReadView::stored_for_check`] for each of `keys`, in their order. A backend where a read
    /// is a round trip answers them all in one: a check verifies dozens of candidates.
    fn stored_for_check_each(
        &self,
        keys: &[DocKey],
    ) -> Result<Vec<Option<StoredForCheck>>, IndexError> {
        keys.iter().map(|key| self.stored_for_check(*key)).collect()
    }

    /// [`ReadView::stored`] for each of `keys`, in their order. A backend where a read is a
    /// round trip answers them all in one: building clusters looks up every member.
    fn stored_each(&self, keys: &[DocKey]) -> Result<Vec<Option<StoredDocument>>, IndexError> {
        keys.iter().map(|key| self.stored(*key)).collect()
    }

    /// The live document `doc_id`.
    fn document(&self, doc_id: &str) -> Result<Option<StoredDocument>, IndexError> {
        self.stored(DocKey::of(doc_id))
    }

    /// Keys of every live document.
    fn keys(&self) -> Result<Vec<DocKey>, IndexError>;
}
