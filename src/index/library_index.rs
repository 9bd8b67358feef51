//! One library's indexes on disk: the content index, the statistics snapshot of the current
//! generation and the signature index of that generation.
//!
//! ```text
//! <library dir>/content/             tantivy: documents (text, metadata, term counts, hash)
//! <library dir>/stats/gen-N.stats    the snapshot of generation N (checksummed)
//! <library dir>/signatures/gen-N/    tantivy: signatures computed against snapshot N
//! <library dir>/CURRENT              the current generation number
//! ```

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use tantivy::directory::MmapDirectory;
use tantivy::schema::{IndexRecordOption, Term, Value};
use tantivy::tokenizer::PreTokenizedString;
use tantivy::{
    DocAddress, DocSet, Index, IndexReader, IndexWriter, ReloadPolicy, Searcher, TERMINATED,
    TantivyDocument,
};

use super::browse::TitleOrder;
use super::document::{decode_shingles, decode_term_counts, encode_shingles, encode_term_counts};
use super::postings::live_docs;
use super::signatures::SignatureIndex;
use super::stats::{load_snapshot, snapshot_path};
use super::tokenizer::{AnalyzerTokenizer, TOKENIZER_NAME, to_tantivy_tokens};
use super::{ContentSchema, IndexError, PreparedDocument, StoredDocument, StoredForCheck, doc_key};
use crate::analysis::{Analyzer, is_sampled};
use crate::signature::{RobustScheme, StatsSnapshot};

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

/// What one document shares with a query's shingles.
#[derive(Debug, Clone, Default)]
pub struct ShingleHits {
    /// Distinct sampled query shingles found in the document.
    pub distinct: u32,
}

/// The result of a shingle search.
#[derive(Debug, Clone, Default)]
pub struct ShingleSearch {
    /// Distinct query shingles that were looked up (not too frequent in the library).
    pub usable: usize,
    /// Distinct query shingles ignored as library boilerplate.
    pub frequent: HashSet<u64>,
    /// Documents with enough hits, most hits first.
    pub hits: Vec<(DocAddress, ShingleHits)>,
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
pub struct LibraryIndex {
    pub(super) dir: PathBuf,
    pub(super) content_path: PathBuf,
    pub(super) schema: ContentSchema,
    index: Index,
    reader: IndexReader,
    /// Always `Some`, except for the moment [`LibraryIndex::optimize`] replaces it.
    writer: Mutex<Option<IndexWriter<TantivyDocument>>>,
    writer_memory: usize,
    pub(super) signatures: RwLock<Arc<SignatureIndex>>,
    /// Serializes writers: ingest batches and re-indexing.
    pub(super) write_gate: Mutex<()>,
    pub(super) changed_since_snapshot: AtomicU64,
    /// Documents written but not committed yet (see [`LibraryIndex::stage`]).
    staged: AtomicU64,
    /// Serializes re-indexes of this library.
    pub(super) rebuild_gate: Mutex<()>,
    pub(super) robust: RobustScheme,
    /// Title order per segment, for listings sorted by title.
    pub(super) title_order: TitleOrder,
}

impl LibraryIndex {
    /// Opens the library's indexes under `dir`, creating them when missing, and repairs a
    /// signature index that lags behind the content index.
    pub fn open(
        dir: &Path,
        analyzer: &Analyzer,
        options: &IndexOptions,
    ) -> Result<Self, IndexError> {
        let schema = ContentSchema::load()?;
        let content_path = dir.join("content");
        std::fs::create_dir_all(&content_path).map_err(IndexError::io(&content_path))?;
        std::fs::create_dir_all(dir.join("stats")).map_err(IndexError::io(dir))?;
        let directory = MmapDirectory::open(&content_path).map_err(|e| IndexError::Io {
            path: content_path.clone(),
            source: std::io::Error::other(e.to_string()),
        })?;
        let index =
            Index::open_or_create(directory, schema.schema.clone()).map_err(|e| match e {
                tantivy::TantivyError::SchemaError(reason) => IndexError::SchemaMismatch {
                    path: content_path.clone(),
                    reason,
                },
                e => IndexError::tantivy(&content_path)(e),
            })?;
        index
            .tokenizers()
            .register(TOKENIZER_NAME, AnalyzerTokenizer::new(analyzer.clone()));
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(IndexError::tantivy(&content_path))?;
        let writer = index
            .writer_with_num_threads(1, options.writer_memory)
            .map_err(IndexError::tantivy(&content_path))?;

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
        )?;
        let library = LibraryIndex {
            dir: dir.to_path_buf(),
            content_path,
            schema,
            index,
            reader,
            writer: Mutex::new(Some(writer)),
            writer_memory: options.writer_memory,
            signatures: RwLock::new(Arc::new(signatures)),
            write_gate: Mutex::new(()),
            changed_since_snapshot: AtomicU64::new(0),
            staged: AtomicU64::new(0),
            rebuild_gate: Mutex::new(()),
            robust: options.robust,
            title_order: TitleOrder::default(),
        };
        if damaged {
            library.rebuild_statistics(|_| {})?;
        } else {
            library.repair_signatures()?;
        }
        library.count_changes_since_snapshot();
        Ok(library)
    }

    pub(super) fn content_opstamp(&self) -> Result<u64, IndexError> {
        Ok(self
            .index
            .load_metas()
            .map_err(IndexError::tantivy(&self.content_path))?
            .opstamp)
    }

    /// Re-signs every document when the signature index does not reflect the content index's
    /// last commit (the process died between the two commits).
    fn repair_signatures(&self) -> Result<(), IndexError> {
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

    fn count_changes_since_snapshot(&self) {
        let snapshot = self.signatures().snapshot().clone();
        let now = self.reader.searcher().num_docs();
        let changed = now.abs_diff(snapshot.docs());
        self.changed_since_snapshot
            .store(changed, Ordering::Relaxed);
    }

    /// The signatures (and snapshot) checks use right now.
    pub fn signatures(&self) -> Arc<SignatureIndex> {
        self.signatures
            .read()
            .expect("signature lock poisoned")
            .clone()
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

    /// Writes documents durably: when this returns `Ok`, they are committed to disk, signed
    /// against the current snapshot and visible to checks and searches. A document whose id
    /// already exists replaces the old version.
    pub fn add(&self, documents: &[PreparedDocument]) -> Result<(), IndexError> {
        let _gate = self.write_gate.lock().expect("write gate poisoned");
        let signatures = self.signatures();
        let guard = self.stage_documents(&signatures, documents)?;
        let staged = self.staged.swap(0, Ordering::Relaxed);
        self.commit(guard, &signatures, staged)
    }

    /// Writes documents like [`LibraryIndex::add`] but leaves them uncommitted: they become
    /// durable and visible with the next commit ([`LibraryIndex::add`] or
    /// [`LibraryIndex::commit_staged`]). A bulk import commits every few batches this way, so
    /// that it writes fewer, larger segments.
    pub fn stage(&self, documents: &[PreparedDocument]) -> Result<(), IndexError> {
        let _gate = self.write_gate.lock().expect("write gate poisoned");
        let signatures = self.signatures();
        self.stage_documents(&signatures, documents).map(drop)
    }

    /// Commits what [`LibraryIndex::stage`] wrote.
    pub fn commit_staged(&self) -> Result<(), IndexError> {
        let _gate = self.write_gate.lock().expect("write gate poisoned");
        let signatures = self.signatures();
        let guard = self.writer.lock().expect("content writer lock poisoned");
        let staged = self.staged.swap(0, Ordering::Relaxed);
        self.commit(guard, &signatures, staged)
    }

    fn stage_documents(
        &self,
        signatures: &SignatureIndex,
        documents: &[PreparedDocument],
    ) -> Result<MutexGuard<'_, Option<IndexWriter<TantivyDocument>>>, IndexError> {
        let mut guard = self.writer.lock().expect("content writer lock poisoned");
        let writer = guard.as_mut().expect("the content writer is present");
        for document in documents {
            writer.delete_term(Term::from_field_text(self.schema.doc_id, &document.doc_id));
            writer
                .add_document(self.content_document(document))
                .map_err(IndexError::tantivy(&self.content_path))?;
            signatures.stage(&document.doc_id, &document.term_counts);
        }
        self.staged
            .fetch_add(documents.len() as u64, Ordering::Relaxed);
        Ok(guard)
    }

    /// Commits the content index (durable from here on), makes it visible, then commits the
    /// signatures staged with it, recording the content opstamp they reflect.
    fn commit(
        &self,
        mut guard: MutexGuard<'_, Option<IndexWriter<TantivyDocument>>>,
        signatures: &SignatureIndex,
        changed: u64,
    ) -> Result<(), IndexError> {
        let path = &self.content_path;
        let writer = guard.as_mut().expect("the content writer is present");
        let opstamp = writer.commit().map_err(IndexError::tantivy(path))?;
        drop(guard);
        self.reader.reload().map_err(IndexError::tantivy(path))?;
        signatures.commit(opstamp)?;
        self.changed_since_snapshot
            .fetch_add(changed, Ordering::Relaxed);
        Ok(())
    }

    /// Merges the content index into one segment, so that every term lookup of a check touches
    /// one term dictionary instead of one per segment. Worth it after a bulk import.
    pub fn optimize(&self) -> Result<(), IndexError> {
        let _gate = self.write_gate.lock().expect("write gate poisoned");
        let path = &self.content_path;
        let segments = self
            .index
            .searchable_segment_ids()
            .map_err(IndexError::tantivy(path))?;
        if segments.len() > 1 {
            let mut guard = self.writer.lock().expect("content writer lock poisoned");
            // Background merges may hold some of the segments: let them finish first, which
            // consumes the writer; a fresh one then merges everything that is left.
            let old = guard.take().expect("the content writer is present");
            old.wait_merging_threads()
                .map_err(IndexError::tantivy(path))?;
            let mut writer = self
                .index
                .writer_with_num_threads(1, self.writer_memory)
                .map_err(IndexError::tantivy(path))?;
            let segments = self
                .index
                .searchable_segment_ids()
                .map_err(IndexError::tantivy(path))?;
            let merged = if segments.len() > 1 {
                writer.merge(&segments).wait().map(|_| ())
            } else {
                Ok(())
            };
            // Reclaims the merged segments' files now rather than at the next commit.
            let _ = writer.garbage_collect_files().wait();
            *guard = Some(writer);
            merged.map_err(IndexError::tantivy(path))?;
        }
        self.reader.reload().map_err(IndexError::tantivy(path))
    }

    /// Removes a document; returns whether it existed.
    pub fn delete(&self, doc_id: &str) -> Result<bool, IndexError> {
        let _gate = self.write_gate.lock().expect("write gate poisoned");
        if self.document_address(doc_id)?.is_none() {
            return Ok(false);
        }
        let signatures = self.signatures();
        let mut guard = self.writer.lock().expect("content writer lock poisoned");
        let writer = guard.as_mut().expect("the content writer is present");
        writer.delete_term(Term::from_field_text(self.schema.doc_id, doc_id));
        signatures.stage_delete(doc_id);
        self.commit(guard, &signatures, 1)?;
        Ok(true)
    }

    fn content_document(&self, document: &PreparedDocument) -> TantivyDocument {
        let s = &self.schema;
        let mut doc = TantivyDocument::new();
        doc.add_text(s.doc_id, &document.doc_id);
        doc.add_u64(s.doc_key, doc_key(&document.doc_id));
        if let Some(url) = &document.url {
            doc.add_text(s.url, url);
        }
        if let Some(title) = &document.title {
            doc.add_text(s.title, title);
        }
        for author in &document.authors {
            doc.add_text(s.authors, author);
        }
        doc.add_pre_tokenized_text(
            s.body,
            PreTokenizedString {
                // The field is not stored, so tantivy needs only the tokens.
                text: String::new(),
                tokens: to_tantivy_tokens(&document.tokens),
            },
        );
        doc.add_text(s.text, &document.text);
        doc.add_text(s.lang, document.lang.code());
        if let Some(year) = document.year {
            doc.add_u64(s.year, year);
        }
        doc.add_u64(s.words, document.words);
        doc.add_u64(s.content_hash, document.content_hash);
        for shingle in &document.shingles {
            doc.add_u64(s.shingles, *shingle);
        }
        doc.add_bytes(s.shingle_seq, &encode_shingles(&document.shingle_seq));
        doc.add_bytes(s.term_counts, &encode_term_counts(&document.term_counts));
        doc.add_u64(s.added_at, unix_now());
        doc
    }

    /// Where the live document `doc_id` is, if it exists.
    pub fn document_address(&self, doc_id: &str) -> Result<Option<DocAddress>, IndexError> {
        self.address(&self.searcher(), doc_id)
    }

    /// Where the live document `doc_id` is in `searcher`'s view, if it exists there.
    pub fn address(
        &self,
        searcher: &Searcher,
        doc_id: &str,
    ) -> Result<Option<DocAddress>, IndexError> {
        let term = Term::from_field_text(self.schema.doc_id, doc_id);
        Ok(self.postings(searcher, &term, 1)?.into_iter().next())
    }

    /// The live document `doc_id`.
    pub fn document(&self, doc_id: &str) -> Result<Option<StoredDocument>, IndexError> {
        let searcher = self.searcher();
        let term = Term::from_field_text(self.schema.doc_id, doc_id);
        match self.postings(&searcher, &term, 1)?.into_iter().next() {
            Some(address) => Ok(Some(self.stored(&searcher, address)?)),
            None => Ok(None),
        }
    }

    /// Where the live document with key `key` ([`doc_key`]) is in `searcher`'s view.
    pub fn address_by_key(
        &self,
        searcher: &Searcher,
        key: u64,
    ) -> Result<Option<DocAddress>, IndexError> {
        let term = Term::from_field_u64(self.schema.doc_key, key);
        Ok(self.postings(searcher, &term, 1)?.into_iter().next())
    }

    /// Live documents whose content hash is `hash`.
    pub fn with_content_hash(
        &self,
        hash: u64,
        limit: usize,
    ) -> Result<Vec<DocAddress>, IndexError> {
        let term = Term::from_field_u64(self.schema.content_hash, hash);
        self.postings(&self.searcher(), &term, limit)
    }

    /// Shingle search: which live documents share sampled shingles with a query. `shingles`
    /// are the query's shingles; only the sampled ones are looked up, as only those are
    /// indexed. Shingles held by
    /// more than `max_df` documents (templates, licences, common phrases) are ignored, so they
    /// are never reported as copying; `usable` counts the distinct shingles that were not.
    pub fn shingle_search(
        &self,
        searcher: &Searcher,
        shingles: &[u64],
        max_df: u64,
        min_hits: u32,
        limit: usize,
    ) -> Result<ShingleSearch, IndexError> {
        let sampled: HashSet<u64> = shingles
            .iter()
            .copied()
            .filter(|h| is_sampled(*h))
            .collect();
        let field = self.schema.shingles;
        let mut inverted = Vec::with_capacity(searcher.segment_readers().len());
        for segment in searcher.segment_readers() {
            inverted.push(
                segment
                    .inverted_index(field)
                    .map_err(IndexError::tantivy(&self.content_path))?,
            );
        }
        let mut hits: HashMap<DocAddress, ShingleHits> = HashMap::new();
        let mut usable = 0usize;
        let mut frequent = HashSet::new();
        for shingle in &sampled {
            let term = Term::from_field_u64(field, *shingle);
            let mut infos = Vec::with_capacity(inverted.len());
            let mut df = 0u64;
            for index in &inverted {
                let info = index
                    .get_term_info(&term)
                    .map_err(IndexError::io(&self.content_path))?;
                df += info.as_ref().map_or(0, |i| u64::from(i.doc_freq));
                infos.push(info);
            }
            if df > max_df {
                frequent.insert(*shingle);
                continue;
            }
            usable += 1;
            for (ord, info) in infos.iter().enumerate() {
                let Some(info) = info else { continue };
                let segment = &searcher.segment_readers()[ord];
                let mut postings = inverted[ord]
                    .read_postings_from_terminfo(info, IndexRecordOption::Basic)
                    .map_err(IndexError::io(&self.content_path))?;
                let mut doc = postings.doc();
                while doc != TERMINATED {
                    if !segment.is_deleted(doc) {
                        let entry = hits.entry(DocAddress::new(ord as u32, doc)).or_default();
                        entry.distinct += 1;
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
        Ok(ShingleSearch {
            usable,
            frequent,
            hits: found,
        })
    }

    /// Live documents containing `term`, without scoring: the cheapest lookup there is.
    fn postings(
        &self,
        searcher: &Searcher,
        term: &Term,
        limit: usize,
    ) -> Result<Vec<DocAddress>, IndexError> {
        live_docs(searcher, term, limit, &self.content_path)
    }

    /// Reads a stored document.
    pub fn stored(
        &self,
        searcher: &Searcher,
        address: DocAddress,
    ) -> Result<StoredDocument, IndexError> {
        let doc: TantivyDocument = searcher
            .doc(address)
            .map_err(IndexError::tantivy(&self.content_path))?;
        Ok(self.to_stored(&doc))
    }

    /// Reads a stored document with its term counts and shingle sequence, in one store access.
    pub fn stored_for_check(
        &self,
        searcher: &Searcher,
        address: DocAddress,
    ) -> Result<StoredForCheck, IndexError> {
        let doc: TantivyDocument = searcher
            .doc(address)
            .map_err(IndexError::tantivy(&self.content_path))?;
        let bytes = |field| {
            doc.get_first(field)
                .and_then(|v| v.as_bytes())
                .unwrap_or_default()
        };
        let document = self.to_stored(&doc);
        let shingles = decode_shingles(bytes(self.schema.shingle_seq)).ok_or_else(|| {
            IndexError::CorruptDocument {
                doc_id: document.doc_id.clone(),
                reason: "undecodable shingle sequence".to_string(),
            }
        })?;
        let counts = bytes(self.schema.term_counts).to_vec();
        Ok(StoredForCheck::new(document, shingles, counts))
    }

    pub(super) fn stored_doc_id<'d>(&self, doc: &'d TantivyDocument) -> &'d str {
        doc.get_first(self.schema.doc_id)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
    }

    pub(super) fn decode_counts(
        &self,
        doc: &TantivyDocument,
    ) -> Result<Vec<(String, u32)>, IndexError> {
        let bytes = doc
            .get_first(self.schema.term_counts)
            .and_then(|v| v.as_bytes())
            .unwrap_or_default();
        decode_term_counts(bytes).ok_or_else(|| IndexError::CorruptDocument {
            doc_id: doc
                .get_first(self.schema.doc_id)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_string(),
            reason: "undecodable term counts".to_string(),
        })
    }

    fn to_stored(&self, doc: &TantivyDocument) -> StoredDocument {
        let s = &self.schema;
        let text = |field| {
            doc.get_first(field)
                .and_then(|v| v.as_str())
                .map(str::to_string)
        };
        let number = |field| doc.get_first(field).and_then(|v| v.as_u64());
        StoredDocument {
            doc_id: text(s.doc_id).unwrap_or_default(),
            url: text(s.url),
            title: text(s.title),
            authors: doc
                .get_all(s.authors)
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            lang: text(s.lang).unwrap_or_default(),
            year: number(s.year),
            words: number(s.words).unwrap_or(0),
            content_hash: number(s.content_hash).unwrap_or(0),
            added_at: number(s.added_at).unwrap_or(0),
            text: text(s.text).unwrap_or_default(),
        }
    }

    /// Stages the signatures of every live document whose key is not in `skip` into
    /// `signatures`, calling `after_each` with the number staged so far; stops when it answers
    /// `false`. Returns whether every document was staged.
    pub(super) fn sign_live(
        &self,
        signatures: &SignatureIndex,
        skip: &HashSet<u64>,
        mut after_each: impl FnMut(u64) -> Result<bool, IndexError>,
    ) -> Result<bool, IndexError> {
        let searcher = self.searcher();
        let path = self.content_path.as_path();
        let mut done = 0u64;
        for segment in searcher.segment_readers() {
            let keys = segment
                .fast_fields()
                .u64("doc_key")
                .map_err(IndexError::tantivy(path))?;
            let store = segment.get_store_reader(64).map_err(IndexError::io(path))?;
            let documents = store.iter::<TantivyDocument>(segment.alive_bitset());
            for (doc, stored) in segment.doc_ids_alive().zip(documents) {
                if keys.first(doc).is_some_and(|key| skip.contains(&key)) {
                    continue;
                }
                let stored = stored.map_err(IndexError::tantivy(path))?;
                signatures.stage_new(self.stored_doc_id(&stored), &self.decode_counts(&stored)?);
                done += 1;
                if !after_each(done)? {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// Counts describing the index now.
    pub fn summary(&self) -> IndexSummary {
        let searcher = self.searcher();
        let words = searcher
            .segment_readers()
            .iter()
            .filter_map(|s| s.inverted_index(self.schema.body).ok())
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

    /// Where the library's files are.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

pub(super) fn signature_path(dir: &Path, generation: u64) -> PathBuf {
    dir.join("signatures").join(format!("gen-{generation}"))
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
    let tmp = dir.join("CURRENT.tmp");
    let write = || -> std::io::Result<()> {
        std::fs::write(&tmp, format!("{generation}\n"))?;
        std::fs::File::open(&tmp)?.sync_all()?;
        std::fs::rename(&tmp, &path)?;
        std::fs::File::open(dir)?.sync_all()
    };
    write().map_err(IndexError::io(&path))
}

pub(super) fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}
