//! One consistent read of a library: a content searcher and a signature generation (with its
//! own searcher) taken together, through which every lookup and stored read of a check goes.
//!
//! tantivy numbers segments per searcher, so a `DocAddress` found through one searcher means
//! nothing in another: a commit landing between two lookups would make a read return another
//! document. Outside `index/`, documents are therefore named by their [`DocKey`], and the view
//! resolves keys to addresses in its own searcher only.

use std::cell::RefCell;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use tantivy::schema::{IndexRecordOption, Term};
use tantivy::store::StoreReader;
use tantivy::{DocAddress, DocSet, Searcher, TERMINATED};

use super::postings::live_docs;
use super::raw::RawDocument;
use super::schema::field_names;
use super::{
    DocKey, IndexError, LibraryIndex, SignatureIndex, StoredDocument, StoredForCheck, TermCounts,
};
use dupfinder_signature::{RobustScheme, StatsSnapshot};
use dupfinder_text::analysis::ShingleSelection;

mod terms;

pub use terms::MAX_SEARCH_TERMS;

/// What one document shares with a query's shingles.
#[derive(Debug, Clone, Default)]
pub struct ShingleHits {
    /// Distinct selected query shingles found in the document.
    pub distinct: u32,
}

/// A shingle search: which live documents share selected shingles with a query.
#[derive(Debug, Clone, Copy)]
pub struct ShingleQuery<'a> {
    /// The shingles to look up: those the library's [`ShingleSelection`] picks from the query
    /// (only selected shingles are indexed).
    pub shingles: &'a [u64],
    /// Shingles held by more than this many documents (templates, licences, common phrases)
    /// are ignored, so they are never reported as copying.
    pub max_df: u64,
    /// The distinct shingles a document must share to be reported.
    pub min_hits: u32,
    /// The documents reported at the most.
    pub limit: usize,
}

/// The result of a shingle search.
#[derive(Debug, Clone, Default)]
pub struct ShingleSearch {
    /// Distinct query shingles that were looked up (not too frequent in the library).
    pub usable: usize,
    /// Distinct query shingles ignored as library boilerplate.
    pub frequent: HashSet<u64>,
    /// How many live or deleted documents hold each selected query shingle that any holds:
    /// what tells a passage the library repeats from one it holds once. Exact up to
    /// `max_df + 1`; a backend may stop counting there (the shingle is then frequent anyway).
    pub doc_freq: HashMap<u64, u64>,
    /// Documents with enough hits, most hits first.
    pub hits: Vec<(DocKey, ShingleHits)>,
}

/// A library as of one moment: what a check reads from start to end.
pub struct LibraryView<'a> {
    index: &'a LibraryIndex,
    content: Searcher,
    signatures: Arc<SignatureIndex>,
    signed: Searcher,
    /// Addresses in `content` of the keys looked up so far.
    located: RefCell<HashMap<DocKey, Option<DocAddress>>>,
    /// The document stores of `content`'s segments read so far, by segment ordinal.
    stores: RefCell<HashMap<u32, StoreReader>>,
}

/// Decompressed blocks each segment's store keeps while a view reads it: a check reads a few
/// dozen documents, rarely one twice.
const STORE_BLOCKS: usize = 4;

impl LibraryIndex {
    /// A consistent view of the library as of now: the last committed content and the current
    /// signature generation. Commits and generation switches after this do not affect it.
    pub fn view(&self) -> LibraryView<'_> {
        let signatures = self.signatures();
        let signed = signatures.searcher();
        LibraryView {
            index: self,
            content: self.searcher(),
            signatures,
            signed,
            located: RefCell::new(HashMap::new()),
            stores: RefCell::new(HashMap::new()),
        }
    }
}

impl LibraryView<'_> {
    /// The statistics snapshot the view's signatures were computed against.
    pub fn snapshot(&self) -> &StatsSnapshot {
        self.signatures.snapshot()
    }

    /// The statistics generation of the view.
    pub fn generation(&self) -> u64 {
        self.signatures.generation()
    }

    /// The robust signature variants of the view's generation.
    pub fn scheme(&self) -> RobustScheme {
        self.signatures.scheme()
    }

    /// Live documents whose content hash is `hash`.
    pub fn with_content_hash(&self, hash: u64, limit: usize) -> Result<Vec<DocKey>, IndexError> {
        let term = Term::from_field_u64(self.index.schema.content_hash, hash);
        let addresses = live_docs(&self.content, &term, limit, &self.index.content_path)?;
        addresses
            .into_iter()
            .map(|address| self.key_of(address))
            .collect()
    }

    /// Live documents whose seed signature is `seed`.
    pub fn with_seed(&self, seed: u32, limit: usize) -> Result<Vec<DocKey>, IndexError> {
        let keys = self.signatures.with_seed_in(&self.signed, seed, limit)?;
        self.live(keys)
    }

    /// Live documents having `signature` among their robust signatures.
    pub fn with_robust(&self, signature: u64, limit: usize) -> Result<Vec<DocKey>, IndexError> {
        let keys = self
            .signatures
            .with_robust_in(&self.signed, signature, limit)?;
        self.live(keys)
    }

    /// Which shingles the library indexes and a check looks up.
    pub fn shingle_selection(&self) -> ShingleSelection {
        self.index.shingle_selection
    }

    /// Shingle search ([`ShingleQuery`]); the answer's `usable` counts the distinct shingles
    /// that were not too frequent to look up.
    pub fn shingle_search(&self, query: &ShingleQuery<'_>) -> Result<ShingleSearch, IndexError> {
        let &ShingleQuery {
            shingles,
            max_df,
            min_hits,
            limit,
        } = query;
        let path = &self.index.content_path;
        let sampled: HashSet<u64> = shingles.iter().copied().collect();
        let field = self.index.schema.shingles;
        let segments = self.content.segment_readers();
        let mut inverted = Vec::with_capacity(segments.len());
        for segment in segments {
            inverted.push(
                segment
                    .inverted_index(field)
                    .map_err(IndexError::tantivy(path))?,
            );
        }
        let mut hits: HashMap<DocAddress, ShingleHits> = HashMap::new();
        let mut usable = 0usize;
        let mut frequent = HashSet::new();
        let mut doc_freq = HashMap::new();
        for shingle in &sampled {
            let term = Term::from_field_u64(field, *shingle);
            let mut infos = Vec::with_capacity(inverted.len());
            let mut df = 0u64;
            for index in &inverted {
                let info = index.get_term_info(&term).map_err(IndexError::io(path))?;
                df += info.as_ref().map_or(0, |i| u64::from(i.doc_freq));
                infos.push(info);
            }
            if df > 0 {
                doc_freq.insert(*shingle, df);
            }
            if df > max_df {
                frequent.insert(*shingle);
                continue;
            }
            usable += 1;
            for (ord, info) in infos.iter().enumerate() {
                let Some(info) = info else { continue };
                let mut postings = inverted[ord]
                    .read_postings_from_terminfo(info, IndexRecordOption::Basic)
                    .map_err(IndexError::io(path))?;
                let mut doc = postings.doc();
                while doc != TERMINATED {
                    if !segments[ord].is_deleted(doc) {
                        hits.entry(DocAddress::new(ord as u32, doc))
                            .or_default()
                            .distinct += 1;
                    }
                    doc = postings.advance();
                }
            }
        }
        let mut found: Vec<(DocAddress, ShingleHits)> = hits
            .into_iter()
            .filter(|(_, h)| h.distinct >= min_hits)
            .collect();
        found.sort_by(|a, b| b.1.distinct.cmp(&a.1.distinct).then(a.0.cmp(&b.0)));
        found.truncate(limit);
        let hits = found
            .into_iter()
            .map(|(address, hits)| Ok((self.key_of(address)?, hits)))
            .collect::<Result<_, IndexError>>()?;
        Ok(ShingleSearch {
            usable,
            frequent,
            doc_freq,
            hits,
        })
    }

    /// The stored document `key`, if it is live in this view.
    pub fn stored(&self, key: DocKey) -> Result<Option<StoredDocument>, IndexError> {
        Ok(self.read(key)?.map(|doc| self.index.to_stored(&doc)))
    }

    /// The stored document `key` with its term counts and shingle sequence, in one store
    /// access, if it is live in this view.
    pub fn stored_for_check(&self, key: DocKey) -> Result<Option<StoredForCheck>, IndexError> {
        let Some(doc) = self.read(key)? else {
            return Ok(None);
        };
        let document = self.index.to_stored(&doc);
        let counts = self.index.compact_counts(&doc);
        let empty = TermCounts::default();
        let (shingles, tokens) = self
            .index
            .stored_shingles(&doc, counts.as_ref().unwrap_or(&empty))
            .ok_or_else(|| IndexError::CorruptDocument {
                doc_id: document.meta.doc_id.clone(),
                reason: "undecodable shingle sequence".to_string(),
            })?;
        let stored = StoredForCheck::new(document, shingles, counts);
        Ok(Some(match tokens {
            Some(decoded) => stored.with_tokens(decoded.tokens, decoded.places),
            None => stored,
        }))
    }

    /// The term counts of the stored document `key` (empty if they are corrupt), if it is live
    /// in this view: its stored fields read, only the counts decoded.
    pub fn stored_term_counts(
        &self,
        key: DocKey,
    ) -> Result<Option<Vec<(String, u32)>>, IndexError> {
        Ok(self
            .read(key)?
            .map(|doc| self.index.decode_counts(&doc).unwrap_or_default()))
    }

    /// The live document `doc_id`.
    pub fn document(&self, doc_id: &str) -> Result<Option<StoredDocument>, IndexError> {
        self.stored(DocKey::of(doc_id))
    }

    /// Keys of every live document, in index order.
    pub fn keys(&self) -> Result<Vec<DocKey>, IndexError> {
        let mut keys = Vec::with_capacity(self.content.num_docs() as usize);
        for segment in self.content.segment_readers() {
            let column = segment
                .fast_fields()
                .u64(field_names::DOC_KEY)
                .map_err(IndexError::tantivy(&self.index.content_path))?;
            for doc in segment.doc_ids_alive() {
                keys.extend(column.first(doc).map(DocKey));
            }
        }
        Ok(keys)
    }

    /// The keys among `keys` that are live in this view.
    fn live(&self, keys: Vec<u64>) -> Result<Vec<DocKey>, IndexError> {
        let mut live = Vec::with_capacity(keys.len());
        for key in keys.into_iter().map(DocKey) {
            if self.locate(key)?.is_some() {
                live.push(key);
            }
        }
        Ok(live)
    }

    /// The key of the document at `address` (an address of this view's searcher).
    fn key_of(&self, address: DocAddress) -> Result<DocKey, IndexError> {
        let column = self
            .content
            .segment_reader(address.segment_ord)
            .fast_fields()
            .u64(field_names::DOC_KEY)
            .map_err(IndexError::tantivy(&self.index.content_path))?;
        // Every document is written with its key.
        let key =
            DocKey(
                column
                    .first(address.doc_id)
                    .ok_or_else(|| IndexError::CorruptDocument {
                        doc_id: format!("{address:?}"),
                        reason: "no document key".to_string(),
                    })?,
            );
        self.located.borrow_mut().insert(key, Some(address));
        Ok(key)
    }

    /// Where `key` is in this view's searcher, if it is live there.
    fn locate(&self, key: DocKey) -> Result<Option<DocAddress>, IndexError> {
        if let Some(address) = self.located.borrow().get(&key) {
            return Ok(*address);
        }
        let term = Term::from_field_u64(self.index.schema.doc_key, key.0);
        let address = live_docs(&self.content, &term, 1, &self.index.content_path)?
            .into_iter()
            .next();
        self.located.borrow_mut().insert(key, address);
        Ok(address)
    }

    /// The stored document `key`, if it is live in this view: its bytes read from the store and
    /// taken apart in place (`raw.rs`).
    fn read(&self, key: DocKey) -> Result<Option<RawDocument>, IndexError> {
        let Some(address) = self.locate(key)? else {
            return Ok(None);
        };
        let path = &self.index.content_path;
        let mut stores = self.stores.borrow_mut();
        let store = match stores.entry(address.segment_ord) {
            Entry::Occupied(open) => open.into_mut(),
            Entry::Vacant(slot) => slot.insert(
                self.content
                    .segment_reader(address.segment_ord)
                    .get_store_reader(STORE_BLOCKS)
                    .map_err(IndexError::io(path))?,
            ),
        };
        let bytes = store
            .get_document_bytes(address.doc_id)
            .map_err(IndexError::tantivy(path))?;
        RawDocument::parse(bytes)
            .map(Some)
            .ok_or_else(|| IndexError::CorruptDocument {
                doc_id: format!("{:016x}", key.0),
                reason: "undecodable stored document".to_string(),
            })
    }
}
