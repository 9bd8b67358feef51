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

use rayon::prelude::*;
use tantivy::columnar::Column;
use tantivy::schema::{IndexRecordOption, Term};
use tantivy::store::StoreReader;
use tantivy::{DocAddress, DocSet, Searcher, TERMINATED};

use super::postings::live_docs;
use super::raw::RawDocument;
use super::runs::{RunDoc, RunSet};
use super::schema::field_names;
use super::{DocKey, IndexError, LibraryIndex, SignatureIndex, StoredDocument, StoredForCheck};
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
    /// The selected shingles of the documents of `content` (and maybe of later commits).
    runs: Arc<RunSet>,
    /// Fast-field columns of `content`'s segments opened so far, by segment ordinal and field.
    columns: RefCell<HashMap<(u32, &'static str), Column<u64>>>,
}

/// Selected shingles a library indexes from which its shingle search asks the candidate map
/// first: 10,000 full papers index ~9 million (~900 a paper), 58,000 abstracts under 2 million.
const ASK_THE_MAP_FROM_TERMS: u64 = 5_000_000;

/// Each of `shingles` once, in the order first met.
fn distinct(shingles: &[u64]) -> Vec<u64> {
    let mut seen = HashSet::with_capacity(shingles.len());
    shingles
        .iter()
        .copied()
        .filter(|s| seen.insert(*s))
        .collect()
}

/// Decompressed blocks each segment's store keeps while a view reads it: a check reads a few
/// dozen documents, rarely one twice.
const STORE_BLOCKS: usize = 4;

/// Stored bytes of a document from which a check's reads are spread over the cores: a full
/// paper's (~80 KB) are, an abstract's (~2 KB) are not.
const SPREAD_FROM_BYTES: usize = 16 * 1024;

impl LibraryIndex {
    /// A consistent view of the library as of now: the last committed content and the current
    /// signature generation. Commits and generation switches after this do not affect it.
    pub fn view(&self) -> LibraryView<'_> {
        let signatures = self.signatures();
        let signed = signatures.searcher();
        // The searcher and the runs are taken together, so that a merge cannot drop documents
        // deleted after the searcher was taken: runs are written before their commit (every
        // document of the searcher has its run) and merged only while `runs` is held for
        // writing (no merge between the two).
        let runs = self.runs.read();
        let content = self.searcher();
        LibraryView {
            index: self,
            content,
            signatures,
            signed,
            located: RefCell::new(HashMap::new()),
            stores: RefCell::new(HashMap::new()),
            runs: runs.clone(),
            columns: RefCell::new(HashMap::new()),
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
    ///
    /// In a library indexing [`ASK_THE_MAP_FROM_TERMS`] selected shingles or more, a shingle the
    /// candidate map says no document of the library ever held is not looked up in the term
    /// dictionary: it is held by no document, so it counts as usable and nothing else. A novel
    /// full paper's ~2,000 lookups are mostly such shingles, and each costs a walk through a
    /// dictionary of ~100 million at 100,000 papers; the map answers from memory. A smaller
    /// dictionary stays in the cache and answers faster than the map; without the map, or
    /// while it does not know all the library's keys, every shingle is looked up.
    pub fn shingle_search(&self, query: &ShingleQuery<'_>) -> Result<ShingleSearch, IndexError> {
        let sampled = distinct(query.shingles);
        let held = match self.shingle_terms()? >= ASK_THE_MAP_FROM_TERMS {
            true => self
                .index
                .candidates
                .as_ref()
                .and_then(|share| share.may_hold(&sampled)),
            false => None,
        };
        self.search_shingles(query, &sampled, held.as_deref())
    }

    /// The selected shingles the library's runs and segments index, counted per run and per
    /// segment.
    fn shingle_terms(&self) -> Result<u64, IndexError> {
        let field = self.index.schema.shingles;
        let mut terms = self.runs.shingles();
        for segment in self.content.segment_readers() {
            let inverted = segment
                .inverted_index(field)
                .map_err(IndexError::tantivy(&self.index.content_path))?;
            terms += inverted.terms().num_terms() as u64;
        }
        Ok(terms)
    }

    /// [`shingle_search`](Self::shingle_search) of the distinct `sampled` shingles, passing over
    /// those `held` says no document holds. Shingles are looked up in the runs and, for
    /// documents written before the runs, in the segments' `shingles` field.
    fn search_shingles(
        &self,
        query: &ShingleQuery<'_>,
        sampled: &[u64],
        held: Option<&[bool]>,
    ) -> Result<ShingleSearch, IndexError> {
        let &ShingleQuery {
            max_df,
            min_hits,
            limit,
            ..
        } = query;
        let path = &self.index.content_path;
        let field = self.index.schema.shingles;
        let segments = self.content.segment_readers();
        let mut inverted = Vec::with_capacity(segments.len());
        for (ord, segment) in segments.iter().enumerate() {
            let index = segment
                .inverted_index(field)
                .map_err(IndexError::tantivy(path))?;
            // Segments written since the runs hold no shingle terms.
            if index.terms().num_terms() > 0 {
                inverted.push((ord as u32, segment, index));
            }
        }
        let mut hits: HashMap<DocAddress, ShingleHits> = HashMap::new();
        let mut run_hits: HashMap<RunDoc, u32> = HashMap::new();
        let mut usable = 0usize;
        let mut frequent = HashSet::new();
        let mut doc_freq = HashMap::new();
        let mut in_runs = Vec::new();
        for (i, shingle) in sampled.iter().enumerate() {
            if held.is_some_and(|held| !held[i]) {
                usable += 1;
                continue;
            }
            // A document filed by several runs (written again with the same text) once; the
            // documents of a shingle already too frequent in the runs only counted.
            let filed = self.runs.find_distinct(
                *shingle,
                &mut in_runs,
                usize::try_from(max_df).unwrap_or(usize::MAX),
            )?;
            let term = Term::from_field_u64(field, *shingle);
            let mut infos = Vec::with_capacity(inverted.len());
            let mut df = filed as u64;
            for (_, _, index) in &inverted {
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
            for document in &in_runs {
                *run_hits.entry(*document).or_default() += 1;
            }
            for (n, info) in infos.iter().enumerate() {
                let Some(info) = info else { continue };
                let (ord, segment, index) = &inverted[n];
                let mut postings = index
                    .read_postings_from_terminfo(info, IndexRecordOption::Basic)
                    .map_err(IndexError::io(path))?;
                let mut doc = postings.doc();
                while doc != TERMINATED {
                    if !segment.is_deleted(doc) {
                        hits.entry(DocAddress::new(*ord, doc)).or_default().distinct += 1;
                    }
                    doc = postings.advance();
                }
            }
        }
        let mut found: Vec<(DocAddress, ShingleHits)> = hits
            .into_iter()
            .filter(|(_, h)| h.distinct >= min_hits)
            .collect();
        self.resolve_run_hits(run_hits, min_hits, limit, &mut found)?;
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

    /// Adds to `found` the documents of `run_hits` with `min_hits` or more that are live in this
    /// view with the text the runs filed (`runs.rs`), resolving them most hits first and only
    /// as far as the `limit`-th answer's count: a document the segments' field counted too (it
    /// was written before the runs and again since, with the same text) keeps the larger count,
    /// as both count the same shingles.
    fn resolve_run_hits(
        &self,
        run_hits: HashMap<RunDoc, u32>,
        min_hits: u32,
        limit: usize,
        found: &mut Vec<(DocAddress, ShingleHits)>,
    ) -> Result<(), IndexError> {
        let mut candidates: Vec<(RunDoc, u32)> = run_hits
            .into_iter()
            .filter(|(_, hits)| *hits >= min_hits)
            .collect();
        if candidates.is_empty() {
            return Ok(());
        }
        candidates.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        // The counts of the answers so far, to know when the rest cannot make the cut.
        let mut counts: Vec<u32> = found.iter().map(|(_, h)| h.distinct).collect();
        counts.sort_unstable_by(|a, b| b.cmp(a));
        let mut at: HashMap<DocAddress, usize> = found
            .iter()
            .enumerate()
            .map(|(n, (address, _))| (*address, n))
            .collect();
        for (document, hits) in candidates {
            // The count an answer needs to be among the first `limit`, once there are that many.
            let cut = counts.get(limit.saturating_sub(1)).filter(|_| limit > 0);
            if cut.is_some_and(|cut| hits < *cut) {
                break;
            }
            let Some(address) = self.locate(DocKey(document.key))? else {
                continue;
            };
            if self.content_hash_at(address)? != Some(document.content) {
                continue;
            }
            match at.get(&address) {
                Some(&n) => found[n].1.distinct = found[n].1.distinct.max(hits),
                None => {
                    at.insert(address, found.len());
                    found.push((address, ShingleHits { distinct: hits }));
                    let place = counts.partition_point(|c| *c >= hits);
                    counts.insert(place, hits);
                }
            }
        }
        Ok(())
    }

    /// The content hash of the document at `address` of this view's searcher.
    fn content_hash_at(&self, address: DocAddress) -> Result<Option<u64>, IndexError> {
        self.fast_u64_at(address, field_names::CONTENT_HASH)
    }

    /// The fast field `name` of the document at `address`, its column opened once per segment
    /// for the view's life (a search reads it for each of its hits).
    fn fast_u64_at(
        &self,
        address: DocAddress,
        name: &'static str,
    ) -> Result<Option<u64>, IndexError> {
        let mut columns = self.columns.borrow_mut();
        let column = match columns.entry((address.segment_ord, name)) {
            Entry::Occupied(open) => open.into_mut(),
            Entry::Vacant(slot) => slot.insert(
                self.content
                    .segment_reader(address.segment_ord)
                    .fast_fields()
                    .u64(name)
                    .map_err(IndexError::tantivy(&self.index.content_path))?,
            ),
        };
        Ok(column.first(address.doc_id))
    }

    /// The stored document `key`, if it is live in this view.
    pub fn stored(&self, key: DocKey) -> Result<Option<StoredDocument>, IndexError> {
        self.read(key)?
            .map(|doc| self.index.to_stored(&doc))
            .transpose()
    }

    /// The stored document `key` with its term counts and shingle sequence, in one store
    /// access, if it is live in this view.
    pub fn stored_for_check(&self, key: DocKey) -> Result<Option<StoredForCheck>, IndexError> {
        self.read(key)?
            .map(|doc| self.index.for_check(&doc))
            .transpose()
    }

    /// [`stored_for_check`](Self::stored_for_check) for each of `keys`, in their order. When the
    /// first of them is a full paper ([`SPREAD_FROM_BYTES`]), the others are read and decoded on
    /// rayon's threads, each thread with its own readers of the segments' stores: a check
    /// verifies dozens of full papers of ~80 KB, and reading and decoding them was a third of its
    /// time. Abstracts are read here, one after another: for them, handing work to other threads
    /// costs more than it saves.
    pub fn stored_for_check_each(
        &self,
        keys: &[DocKey],
    ) -> Result<Vec<Option<StoredForCheck>>, IndexError> {
        let mut read = Vec::with_capacity(keys.len());
        let mut rest = keys.iter();
        for key in rest.by_ref() {
            let Some(doc) = self.read(*key)? else {
                read.push(None);
                continue;
            };
            read.push(Some(self.index.for_check(&doc)?));
            if doc.len() < SPREAD_FROM_BYTES {
                for key in rest.by_ref() {
                    read.push(self.stored_for_check(*key)?);
                }
            }
            break;
        }
        let rest: Vec<DocKey> = rest.copied().collect();
        let addresses = rest
            .iter()
            .map(|key| self.locate(*key))
            .collect::<Result<Vec<_>, _>>()?;
        let (index, content) = (self.index, &self.content);
        let spread: Vec<Option<StoredForCheck>> = addresses
            .par_iter()
            .zip(&rest)
            .map_init(HashMap::new, |stores, (address, key)| {
                address
                    .map(|address| {
                        let doc = read_at(index, content, stores, address, *key)?;
                        index.for_check(&doc)
                    })
                    .transpose()
            })
            .collect::<Result<_, _>>()?;
        read.extend(spread);
        Ok(read)
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
        // Every document is written with its key.
        let key = DocKey(
            self.fast_u64_at(address, field_names::DOC_KEY)?
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
        let mut stores = self.stores.borrow_mut();
        read_at(self.index, &self.content, &mut stores, address, key).map(Some)
    }
}

/// The document at `address` of `content` (the document `key`), read through `stores` (the
/// segments' store readers opened so far, by segment ordinal).
fn read_at(
    index: &LibraryIndex,
    content: &Searcher,
    stores: &mut HashMap<u32, StoreReader>,
    address: DocAddress,
    key: DocKey,
) -> Result<RawDocument, IndexError> {
    let path = &index.content_path;
    let store = match stores.entry(address.segment_ord) {
        Entry::Occupied(open) => open.into_mut(),
        Entry::Vacant(slot) => slot.insert(
            content
                .segment_reader(address.segment_ord)
                .get_store_reader(STORE_BLOCKS)
                .map_err(IndexError::io(path))?,
        ),
    };
    let bytes = store
        .get_document_bytes(address.doc_id)
        .map_err(IndexError::tantivy(path))?;
    RawDocument::parse(bytes).ok_or_else(|| IndexError::CorruptDocument {
        doc_id: format!("{:016x}", key.0),
        reason: "undecodable stored document".to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::super::TermCounts;
    use super::super::testing::{damage_a_run, open_index, prepared};
    use super::super::{PreparedDocument, doc_key};
    use super::*;

    /// Writes `documents` as the library did before the runs: their selected shingles as terms
    /// of the content index's `shingles` field, no run.
    fn add_in_the_old_layout(index: &LibraryIndex, documents: &[PreparedDocument]) {
        let mut guard = index.writer.lock();
        let writer = index.content_writer(&mut guard).unwrap();
        for document in documents {
            let mut doc = index.content_document(document);
            for shingle in index.shingle_selection.select(&document.shingle_seq) {
                doc.add_u64(index.schema.shingles, shingle);
            }
            writer.delete_term(Term::from_field_text(index.schema.doc_id, &document.doc_id));
            writer.add_document(doc).unwrap();
        }
        writer.commit().unwrap();
        drop(guard);
        index.reader.reload().unwrap();
    }

    /// Commits, deletions, texts written again (the same and another), documents of the layout
    /// before the runs, merges of the runs and of the segments, and a reopening: every shingle
    /// search answers what counting each live document's selected shingles answers.
    #[test]
    fn a_shingle_search_counts_each_live_documents_shingles_once_whatever_was_written_before() {
        let dir = tempfile::tempdir().unwrap();
        let vocabulary: Vec<String> = (0..30).map(|i| format!("word{i}")).collect();
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |below: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % below as u64) as usize
        };
        let text = |next: &mut dyn FnMut(usize) -> usize, n: usize| -> String {
            (0..n)
                .map(|_| vocabulary[next(vocabulary.len())].as_str())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let mut live: HashMap<String, PreparedDocument> = HashMap::new();
        let mut queries: Vec<Vec<u64>> = Vec::new();
        let check = |index: &LibraryIndex,
                     live: &HashMap<String, PreparedDocument>,
                     queries: &[Vec<u64>],
                     when: &str| {
            let view = index.view();
            let selection = view.shingle_selection();
            for (q, shingles) in queries.iter().enumerate() {
                let query = ShingleQuery {
                    shingles,
                    max_df: u64::MAX,
                    min_hits: 1,
                    limit: 10_000,
                };
                let sampled: HashSet<u64> = shingles.iter().copied().collect();
                let mut expected: Vec<(DocKey, u32)> = live
                    .values()
                    .map(|d| {
                        let held: HashSet<u64> =
                            selection.select(&d.shingle_seq).into_iter().collect();
                        (
                            doc_key(&d.doc_id),
                            held.intersection(&sampled).count() as u32,
                        )
                    })
                    .filter(|(_, hits)| *hits > 0)
                    .map(|(key, hits)| (DocKey(key), hits))
                    .collect();
                expected.sort();
                let search = view.shingle_search(&query).unwrap();
                let mut got: Vec<(DocKey, u32)> =
                    search.hits.iter().map(|(k, h)| (*k, h.distinct)).collect();
                got.sort();
                assert_eq!(got, expected, "{when}, query {q}");
                // Most hits first, and a limit keeps the first of that order.
                let limited = view
                    .shingle_search(&ShingleQuery { limit: 3, ..query })
                    .unwrap();
                let counts: Vec<u32> = search.hits.iter().map(|(_, h)| h.distinct).collect();
                let first: Vec<u32> = limited.hits.iter().map(|(_, h)| h.distinct).collect();
                assert_eq!(first, counts[..counts.len().min(3)], "{when}, query {q}");
            }
        };
        let index = open_index(dir.path());
        let selection = index.shingle_selection;
        let mut round = 0;
        for commit in 0..12 {
            let documents: Vec<PreparedDocument> = (0..6)
                .map(|i| {
                    // Ids repeat across commits: some texts are written again.
                    let id = format!("d{}", (commit * 6 + i) % 40);
                    let again = live.get(&id).filter(|_| next(3) == 0);
                    let body = again.map_or_else(|| text(&mut next, 60), |d| d.text.clone());
                    prepared(&id, &body)
                })
                .collect();
            if commit < 3 {
                add_in_the_old_layout(&index, &documents);
            } else {
                index.add(&documents).unwrap();
            }
            for document in documents {
                queries.push(selection.lookups(&document.shingle_seq[10..40]));
                live.insert(document.doc_id.clone(), document);
            }
            if commit % 4 == 3 {
                let gone = format!("d{}", next(40));
                if live.remove(&gone).is_some() {
                    assert!(index.delete(&gone).unwrap());
                }
            }
            round += 1;
            check(&index, &live, &queries, &format!("after commit {round}"));
        }
        index.optimize().unwrap();
        check(&index, &live, &queries, "after merging everything");
        let runs = dir.path().join(super::super::runs::RUNS_DIR);
        assert_eq!(std::fs::read_dir(&runs).unwrap().count(), 1, "one run");
        drop(index);
        let index = open_index(dir.path());
        check(&index, &live, &queries, "reopened");
        // A damaged run: removed and written again from the stored documents when opened.
        drop(index);
        damage_a_run(&runs, |_| 12);
        let index = open_index(dir.path());
        check(&index, &live, &queries, "its runs written again");
    }

    /// What a read for a check gives, in a form to compare: the id, the shingles, the term
    /// counts and the tokens' byte ranges.
    type Summary = (String, Vec<u64>, Vec<(String, u32)>, Vec<(usize, usize)>);

    fn summary(stored: &StoredForCheck) -> Summary {
        let ranges = stored.tokens.as_deref().unwrap_or_default();
        (
            stored.meta().doc_id.clone(),
            stored.shingles.clone(),
            stored
                .term_counts()
                .map(TermCounts::to_pairs)
                .unwrap_or_default(),
            ranges.iter().map(|t| (t.start, t.end)).collect(),
        )
    }

    /// Reads spread over threads (a full paper first) and reads one after another (an abstract
    /// first) answer what reading each key alone answers, in the keys' order, over two segments,
    /// a deleted document and keys never written.
    #[test]
    fn many_reads_at_once_answer_what_each_read_alone_does() {
        let dir = tempfile::tempdir().unwrap();
        let index = open_index(dir.path());
        let words = [
            "shingle",
            "signature",
            "метод",
            "library",
            "paper",
            "copy",
            "словарь",
            "term",
            "verification",
            "passage",
            "источник",
            "index",
        ];
        let text = |i: usize, n: usize| -> String {
            (0..n)
                .map(|j| words[(i * 7 + j * j + j / 3) % words.len()])
                .collect::<Vec<_>>()
                .join(" ")
        };
        for part in 0..2 {
            let documents: Vec<_> = (0..8)
                .map(|i| {
                    let i = part * 8 + i;
                    // Every third document is a full paper, past the spreading threshold.
                    let n = if i % 3 == 0 { 6_000 } else { 60 };
                    prepared(&format!("d{i}"), &text(i, n))
                })
                .collect();
            index.add(&documents).unwrap();
        }
        assert!(index.delete("d6").unwrap());
        let view = index.view();
        assert!(view.read(DocKey::of("d0")).unwrap().unwrap().len() >= SPREAD_FROM_BYTES);
        assert!(view.read(DocKey::of("d1")).unwrap().unwrap().len() < SPREAD_FROM_BYTES);
        let keys: Vec<DocKey> = (0..16)
            .map(|i| format!("d{i}"))
            .chain(["never".to_string()])
            .map(|id| DocKey::of(&id))
            .collect();
        let alone: Vec<_> = keys
            .iter()
            .map(|key| view.stored_for_check(*key).unwrap().as_ref().map(summary))
            .collect();
        for first in [0, 1, 6, 16] {
            let mut order: Vec<usize> = (0..keys.len()).collect();
            order.swap(0, first);
            let asked: Vec<DocKey> = order.iter().map(|&i| keys[i]).collect();
            let read = view.stored_for_check_each(&asked).unwrap();
            let read: Vec<_> = read.iter().map(|d| d.as_ref().map(summary)).collect();
            let expected: Vec<_> = order.iter().map(|&i| alone[i].clone()).collect();
            assert_eq!(read, expected, "first asked: {first}");
        }
        assert!(alone[6].is_none() && alone[16].is_none());
        assert!(
            alone[0]
                .as_ref()
                .is_some_and(|(_, s, _, r)| s.len() > 3_000 && !r.is_empty())
        );
    }
}

#[cfg(test)]
mod shingle_tests {
    use std::sync::Arc;

    use super::super::testing::{damage_a_run, prepared};
    use super::super::{IndexOptions, default_analyzer};
    use super::*;
    use crate::candidates::{CandidateMap, CandidateShare};

    /// A shingle search that passes over the shingles the candidate map says no document holds
    /// answers what looking every one up answers, over writes in several commits, deletions and
    /// queries mixing shingles of live, deleted and never-written documents; while the map does
    /// not know the library's keys, nothing is passed over.
    #[test]
    fn passing_over_what_the_map_rules_out_changes_no_answer() {
        let dir = tempfile::tempdir().unwrap();
        let map = Arc::new(CandidateMap::new());
        let (share, _) = CandidateShare::open(&map, "lib", dir.path(), 0).unwrap();
        let index = LibraryIndex::open_in(
            dir.path(),
            &default_analyzer(),
            &IndexOptions::default(),
            Some(share.clone()),
        )
        .unwrap();
        // An empty library's keys are all known once read (as a data directory does for a
        // library it creates).
        assert!(share.may_hold(&[1]).is_none());
        index.rebuild_candidates().unwrap();
        let vocabulary: Vec<String> = (0..40).map(|i| format!("слово{i}")).collect();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |below: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % below as u64) as usize
        };
        let mut text = |n: usize| -> String {
            (0..n)
                .map(|_| vocabulary[next(vocabulary.len())].as_str())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let mut written = Vec::new();
        for commit in 0..3 {
            let documents: Vec<_> = (0..10)
                .map(|i| prepared(&format!("d{commit}-{i}"), &text(80)))
                .collect();
            index.add(&documents).unwrap();
            written.extend(documents);
        }
        for gone in ["d0-1", "d1-4", "d2-7"] {
            assert!(index.delete(gone).unwrap());
        }
        let never: Vec<_> = (0..5)
            .map(|i| prepared(&format!("n{i}"), &text(80)))
            .collect();
        let view = index.view();
        let selection = view.shingle_selection();
        let mut passed_over = 0;
        for (q, source) in written.iter().chain(&never).enumerate() {
            // A query of part of one text and part of another.
            let other = &written[(q * 7) % written.len()];
            let mut shingles = selection.lookups(&source.shingle_seq[..40]);
            shingles.extend(selection.lookups(&other.shingle_seq[30..]));
            for max_df in [1, 3, u64::MAX] {
                let query = ShingleQuery {
                    shingles: &shingles,
                    max_df,
                    min_hits: 1,
                    limit: 100,
                };
                let sampled = distinct(&shingles);
                let held = share.may_hold(&sampled).unwrap();
                passed_over += held.iter().filter(|h| !**h).count();
                let filtered = view.search_shingles(&query, &sampled, Some(&held)).unwrap();
                let every = view.search_shingles(&query, &sampled, None).unwrap();
                assert_eq!(filtered.usable, every.usable);
                assert_eq!(filtered.frequent, every.frequent);
                assert_eq!(filtered.doc_freq, every.doc_freq);
                let keys = |s: &ShingleSearch| -> Vec<(DocKey, u32)> {
                    s.hits.iter().map(|(k, h)| (*k, h.distinct)).collect()
                };
                assert_eq!(keys(&filtered), keys(&every), "query {q}, max_df {max_df}");
                assert_eq!(keys(&view.shingle_search(&query).unwrap()), keys(&every));
            }
        }
        assert!(passed_over > 0, "the map ruled nothing out");
        // A library whose keys are not known yet: nothing is ruled out.
        let fresh = CandidateMap::new();
        let unknown = fresh.join("lib");
        assert!(fresh.library_may_hold(unknown, &[1, 2, 3]).is_none());
    }

    /// The log keeps a written document's content hash and language, not its shingles' keys: a
    /// map that reads the log again takes them from the library's runs, and holds every
    /// shingle of every live document. Runs missing or damaged leave the library unknown (named
    /// for every query) until its keys are read again from its documents.
    #[test]
    fn a_map_read_again_takes_the_shingles_from_the_runs() {
        let dir = tempfile::tempdir().unwrap();
        let (share, _) =
            CandidateShare::open(&Arc::new(CandidateMap::new()), "lib", dir.path(), 0).unwrap();
        let index = LibraryIndex::open_in(
            dir.path(),
            &default_analyzer(),
            &IndexOptions::default(),
            Some(share),
        )
        .unwrap();
        index.rebuild_candidates().unwrap();
        let mut written = Vec::new();
        for commit in 0..3 {
            let documents: Vec<_> = (0..8)
                .map(|i| {
                    let words: Vec<String> = (0..60)
                        .map(|w| format!("слово{}", (w * 7 + i * 13 + commit * 31) % 97))
                        .collect();
                    prepared(&format!("d{commit}-{i}"), &words.join(" "))
                })
                .collect();
            index.add(&documents).unwrap();
            written.extend(documents);
        }
        assert!(index.delete("d1-3").unwrap());
        let selection = index.view().shingle_selection();
        drop(index);
        let log = std::fs::read(dir.path().join("candidates.log")).unwrap();

        let reopen = || {
            let map = Arc::new(CandidateMap::new());
            let (share, complete) = CandidateShare::open(&map, "lib", dir.path(), 0).unwrap();
            (share, complete)
        };
        let (share, complete) = reopen();
        assert!(complete);
        for document in written.iter().filter(|d| d.doc_id != "d1-3") {
            let selected = distinct(&selection.select(&document.shingle_seq));
            assert!(!selected.is_empty());
            let held = share.may_hold(&selected).unwrap();
            assert!(held.iter().all(|h| *h), "{} not held", document.doc_id);
            // Not from the log: it holds no key of the document's.
            for shingle in &selected {
                let key = crate::candidates::shingle_key(*shingle);
                assert!(
                    !log.windows(4).any(|w| w == key.to_le_bytes()),
                    "{} has a key in the log",
                    document.doc_id
                );
            }
        }

        let runs = dir.path().join(super::super::runs::RUNS_DIR);
        let aside = dir.path().join("runs-aside");
        std::fs::rename(&runs, &aside).unwrap();
        let (share, complete) = reopen();
        assert!(!complete, "runs missing, yet the keys are called complete");
        assert!(share.may_hold(&[1]).is_none());
        std::fs::rename(&aside, &runs).unwrap();

        damage_a_run(&runs, |len| len / 2);
        let (_, complete) = reopen();
        assert!(!complete, "a damaged run, yet the keys are called complete");
    }
}
