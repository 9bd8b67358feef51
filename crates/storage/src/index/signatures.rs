//! A library's signature index: one small tantivy index per statistics generation, holding each
//! document's signatures as indexed fast fields.
//!
//! Keeping signatures apart from the content index makes re-signing cheap (a new small index is
//! written; documents are not rewritten) and makes the switch to a new generation one atomic
//! pointer swap. The signature index is derived data: its commit payload records the content
//! index opstamp it reflects, and a mismatch on open (a crash between the two commits) is
//! repaired by re-signing.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;

use tantivy::indexer::{LogMergePolicy, NoMergePolicy};
use tantivy::schema::{Term, Value};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, Searcher, TantivyDocument};

use super::error::open_or_create;
use super::postings::live_docs;
use super::schema::field_names;
use super::{IndexError, SignatureSchema, doc_key};
use crate::candidates::{CandidateShare, SetKey, set_keys};
use dupfinder_signature::{
    RobustScheme, StatsSnapshot, robust_signatures_of, seed_signature_of, top_terms, weigh_terms,
};

/// Signatures are small, but a re-index writes one per document: a larger budget means fewer
/// segments to merge.
const WRITER_MEMORY: usize = 64_000_000;

/// What a signature commit records about itself.
#[derive(serde::Serialize, serde::Deserialize)]
struct CommitPayload {
    /// The content index opstamp these signatures reflect.
    content_opstamp: u64,
    /// The robust variants computed.
    robust: RobustScheme,
    /// Present while the generation is still being built by a re-index: a partial commit that
    /// a resumed re-index continues from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    building: Option<Building>,
}

/// Where an unfinished re-index stands.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Building {
    /// When the re-index took its snapshot (seconds since the Unix epoch). Documents added or
    /// replaced since then are signed again before the generation goes live.
    pub(crate) started_at: u64,
}

/// The signatures of one generation, with the snapshot they were computed against.
pub struct SignatureIndex {
    generation: u64,
    snapshot: Arc<StatsSnapshot>,
    scheme: RobustScheme,
    schema: SignatureSchema,
    path: PathBuf,
    index: Index,
    reader: IndexReader,
    /// Opened by the first write, closed when the library is idle.
    writer: Mutex<Option<IndexWriter<TantivyDocument>>>,
    /// Set by [`SignatureIndex::pause_merges`], for a writer opened after it.
    merges_paused: std::sync::atomic::AtomicBool,
    /// Where the term sets of the signatures staged here are filed, across libraries.
    candidates: Option<Arc<CandidateShare>>,
}

/// A document signed in one generation ([`SignatureIndex::sign`]), ready to stage.
pub(crate) struct Signed {
    doc_id: String,
    /// `None` for a document too short to have a signature.
    signatures: Option<Signatures>,
}

struct Signatures {
    seed: u32,
    robust: Vec<u64>,
    /// The term sets the candidate map files (none without a map).
    sets: Vec<SetKey>,
}

impl SignatureIndex {
    /// Opens (or creates) the signature index of `snapshot`'s generation at `path`.
    pub(crate) fn open(
        path: &Path,
        snapshot: Arc<StatsSnapshot>,
        scheme: RobustScheme,
        candidates: Option<Arc<CandidateShare>>,
    ) -> Result<Self, IndexError> {
        let schema = SignatureSchema::load()?;
        let index = open_or_create(path, schema.schema.clone())?;
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(IndexError::tantivy(path))?;
        Ok(SignatureIndex {
            generation: snapshot.generation(),
            snapshot,
            scheme,
            schema,
            path: path.to_path_buf(),
            index,
            reader,
            writer: Mutex::new(None),
            merges_paused: Default::default(),
            candidates,
        })
    }

    /// Runs `write` with the writer, opening it when there is none.
    fn with_writer<R>(
        &self,
        write: impl FnOnce(&mut IndexWriter<TantivyDocument>) -> Result<R, IndexError>,
    ) -> Result<R, IndexError> {
        let mut guard = self.writer.lock();
        if guard.is_none() {
            let writer = self
                .index
                .writer_with_num_threads(1, WRITER_MEMORY)
                .map_err(IndexError::tantivy(&self.path))?;
            if self
                .merges_paused
                .load(std::sync::atomic::Ordering::Relaxed)
            {
                writer.set_merge_policy(Box::new(NoMergePolicy));
            }
            *guard = Some(writer);
        }
        write(guard.as_mut().expect("opened above"))
    }

    /// Closes the writer once its merges finished (see [`LibraryIndex::close_idle_writers`]).
    ///
    /// [`LibraryIndex::close_idle_writers`]: super::LibraryIndex::close_idle_writers
    pub(crate) fn close_writer(&self) -> Result<(), IndexError> {
        let Some(writer) = self.writer.lock().take() else {
            return Ok(());
        };
        writer
            .wait_merging_threads()
            .map_err(IndexError::tantivy(&self.path))?;
        self.reader
            .reload()
            .map_err(IndexError::tantivy(&self.path))
    }

    /// The statistics generation of these signatures.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The snapshot every signature here was computed against.
    pub fn snapshot(&self) -> &Arc<StatsSnapshot> {
        &self.snapshot
    }

    /// The robust variants signed here.
    pub fn scheme(&self) -> RobustScheme {
        self.scheme
    }

    fn payload(&self) -> Result<Option<CommitPayload>, IndexError> {
        let metas = self
            .index
            .load_metas()
            .map_err(IndexError::tantivy(&self.path))?;
        Ok(metas.payload.and_then(|p| serde_json::from_str(&p).ok()))
    }

    /// The content opstamp these signatures reflect, from the last commit's payload.
    pub(crate) fn synced_opstamp(&self) -> Result<Option<u64>, IndexError> {
        Ok(self.payload()?.map(|p| p.content_opstamp))
    }

    /// The robust scheme the committed signatures were computed with.
    pub(crate) fn scheme_on_disk(&self) -> Result<Option<RobustScheme>, IndexError> {
        Ok(self.payload()?.map(|p| p.robust))
    }

    /// Stages the signatures of one document, replacing any earlier ones for the same id.
    pub(crate) fn stage(
        &self,
        doc_id: &str,
        term_counts: &[(String, u32)],
    ) -> Result<(), IndexError> {
        self.stage_with(doc_id, term_counts, true)
    }

    /// Stages the signatures of a document known not to be signed yet (a full re-sign into an
    /// empty index): no delete to apply, which saves a term lookup per document.
    pub(crate) fn stage_new(&self, signed: Signed) -> Result<(), IndexError> {
        self.stage_signed(signed, false)
    }

    /// What a document's term counts give in this generation: its signatures and the term
    /// sets the candidate map files. Reads nothing but the snapshot, so that many documents can
    /// be signed at once and staged in turn.
    pub(crate) fn sign(&self, doc_id: &str, term_counts: &[(String, u32)]) -> Signed {
        let ordered = top_terms(weigh_terms(term_counts, &self.snapshot), usize::MAX);
        let signatures = seed_signature_of(&ordered).map(|seed| Signatures {
            seed,
            robust: robust_signatures_of(&ordered, self.scheme),
            sets: match &self.candidates {
                Some(_) => set_keys(&ordered, self.scheme),
                None => Vec::new(),
            },
        });
        Signed {
            doc_id: doc_id.to_string(),
            signatures,
        }
    }

    /// Stages a document's signatures and files their term sets in the candidate map, which
    /// the next commit makes durable first.
    fn stage_with(
        &self,
        doc_id: &str,
        term_counts: &[(String, u32)],
        replace: bool,
    ) -> Result<(), IndexError> {
        self.stage_signed(self.sign(doc_id, term_counts), replace)
    }

    /// Stages what [`sign`](Self::sign) gave, replacing any earlier signatures of the
    /// document when `replace`.
    fn stage_signed(&self, signed: Signed, replace: bool) -> Result<(), IndexError> {
        let Signed { doc_id, signatures } = signed;
        let Some(Signatures { seed, robust, sets }) = signatures else {
            // No signature; an earlier version's goes all the same.
            return self.with_writer(|writer| {
                if replace {
                    writer.delete_term(Term::from_field_text(self.schema.doc_id, &doc_id));
                }
                Ok(())
            });
        };
        if let Some(candidates) = &self.candidates {
            candidates.add_sets(self.generation, &sets)?;
        }
        let mut document = TantivyDocument::new();
        document.add_text(self.schema.doc_id, &doc_id);
        document.add_u64(self.schema.doc_key, doc_key(&doc_id));
        document.add_u64(self.schema.seed, u64::from(seed));
        for robust in robust {
            document.add_u64(self.schema.robust, robust);
        }
        document.add_u64(self.schema.generation, self.generation);
        self.with_writer(|writer| {
            if replace {
                writer.delete_term(Term::from_field_text(self.schema.doc_id, &doc_id));
            }
            // Adding only fails once the writer has died, which the commit reports.
            let _ = writer.add_document(document);
            Ok(())
        })
    }

    /// Files the term sets of a document's signatures in this generation, without staging the
    /// signatures (they are in the index already).
    pub(crate) fn file_term_sets(&self, term_counts: &[(String, u32)]) -> Result<(), IndexError> {
        let Some(candidates) = &self.candidates else {
            return Ok(());
        };
        let ordered = top_terms(weigh_terms(term_counts, &self.snapshot), usize::MAX);
        candidates.add_sets(self.generation, &set_keys(&ordered, self.scheme))
    }

    /// Stages the removal of a document's signatures.
    pub(crate) fn stage_delete(&self, doc_id: &str) -> Result<(), IndexError> {
        self.with_writer(|writer| {
            writer.delete_term(Term::from_field_text(self.schema.doc_id, doc_id));
            Ok(())
        })
    }

    /// An unfinished re-index's state, when the last commit was a partial one.
    pub(crate) fn building(&self) -> Result<Option<Building>, IndexError> {
        Ok(self.payload()?.and_then(|p| p.building))
    }

    /// Commits what was staged, recording the content opstamp it reflects, and makes it visible.
    pub(crate) fn commit(&self, content_opstamp: u64) -> Result<(), IndexError> {
        self.commit_with(content_opstamp, None)
    }

    /// Commits a re-index's progress so far; the generation stays unfinished.
    pub(crate) fn commit_partial(
        &self,
        content_opstamp: u64,
        building: Building,
    ) -> Result<(), IndexError> {
        self.commit_with(content_opstamp, Some(building))
    }

    fn commit_with(
        &self,
        content_opstamp: u64,
        building: Option<Building>,
    ) -> Result<(), IndexError> {
        if let Some(candidates) = &self.candidates {
            candidates.sync()?;
        }
        self.with_writer(|writer| {
            let mut prepared = writer
                .prepare_commit()
                .map_err(IndexError::tantivy(&self.path))?;
            let payload = CommitPayload {
                content_opstamp,
                robust: self.scheme,
                building,
            };
            prepared.set_payload(&serde_json::to_string(&payload).expect("payload serializes"));
            prepared.commit().map_err(IndexError::tantivy(&self.path))
        })?;
        self.reader
            .reload()
            .map_err(IndexError::tantivy(&self.path))
    }

    /// Discards what was staged since the last commit (after a failed write).
    pub(crate) fn rollback(&self) -> Result<(), IndexError> {
        match self.writer.lock().as_mut() {
            Some(writer) => writer
                .rollback()
                .map(drop)
                .map_err(IndexError::tantivy(&self.path)),
            // Nothing was staged since the writer was opened last.
            None => Ok(()),
        }
    }

    /// Stops background merges: a re-index writes many segments that [`merge_into_one`] then
    /// merges once, instead of merging and re-merging them as they come.
    ///
    /// [`merge_into_one`]: SignatureIndex::merge_into_one
    pub(crate) fn pause_merges(&self) {
        self.merges_paused
            .store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(writer) = self.writer.lock().as_ref() {
            writer.set_merge_policy(Box::new(NoMergePolicy));
        }
    }

    /// Merges every committed segment into one, so that each lookup of a check reads one term
    /// dictionary, then lets background merges resume for the writes to come.
    pub(crate) fn merge_into_one(&self) -> Result<(), IndexError> {
        self.merges_paused
            .store(false, std::sync::atomic::Ordering::Relaxed);
        self.with_writer(|writer| {
            let segments = self
                .index
                .searchable_segment_ids()
                .map_err(IndexError::tantivy(&self.path))?;
            if segments.len() > 1 {
                writer
                    .merge(&segments)
                    .wait()
                    .map_err(IndexError::tantivy(&self.path))?;
                let _ = writer.garbage_collect_files().wait();
            }
            writer.set_merge_policy(Box::new(LogMergePolicy::default()));
            Ok(())
        })?;
        self.reader
            .reload()
            .map_err(IndexError::tantivy(&self.path))
    }

    /// Removes every staged and committed signature (before a full re-sign).
    pub(crate) fn clear(&self) -> Result<(), IndexError> {
        self.with_writer(|writer| {
            writer
                .delete_all_documents()
                .map(drop)
                .map_err(IndexError::tantivy(&self.path))
        })
    }

    /// A searcher over the signatures as last committed.
    pub(crate) fn searcher(&self) -> Searcher {
        self.reader.searcher()
    }

    /// Keys ([`doc_key`]) of the documents whose seed signature is `seed` in `searcher` (one
    /// of [`SignatureIndex::searcher`]), at most `limit`.
    pub(crate) fn with_seed_in(
        &self,
        searcher: &Searcher,
        seed: u32,
        limit: usize,
    ) -> Result<Vec<u64>, IndexError> {
        let term = Term::from_field_u64(self.schema.seed, u64::from(seed));
        self.with_value(searcher, term, limit)
    }

    /// Keys of the documents having `signature` among their robust signatures in `searcher`.
    pub(crate) fn with_robust_in(
        &self,
        searcher: &Searcher,
        signature: u64,
        limit: usize,
    ) -> Result<Vec<u64>, IndexError> {
        let term = Term::from_field_u64(self.schema.robust, signature);
        self.with_value(searcher, term, limit)
    }

    fn with_value(
        &self,
        searcher: &Searcher,
        term: Term,
        limit: usize,
    ) -> Result<Vec<u64>, IndexError> {
        let mut keys = Vec::new();
        for address in live_docs(searcher, &term, limit, &self.path)? {
            // Keys come from a numeric column: no document store block to inflate.
            let column = searcher
                .segment_reader(address.segment_ord)
                .fast_fields()
                .u64(field_names::DOC_KEY)
                .map_err(IndexError::tantivy(&self.path))?;
            keys.extend(column.first(address.doc_id));
        }
        Ok(keys)
    }

    /// The stored seed signature of document `doc_id`, if it is signed.
    pub fn seed_of(&self, doc_id: &str) -> Result<Option<u32>, IndexError> {
        let searcher = self.reader.searcher();
        let term = Term::from_field_text(self.schema.doc_id, doc_id);
        let Some(address) = live_docs(&searcher, &term, 1, &self.path)?
            .into_iter()
            .next()
        else {
            return Ok(None);
        };
        let stored: TantivyDocument = searcher
            .doc(address)
            .map_err(IndexError::tantivy(&self.path))?;
        Ok(stored
            .get_first(self.schema.seed)
            .and_then(|v| v.as_u64())
            .and_then(|v| u32::try_from(v).ok()))
    }

    /// Keys ([`doc_key`]) of every signed document, as committed.
    pub(crate) fn signed_keys(&self) -> Result<HashSet<u64>, IndexError> {
        let searcher = self.reader.searcher();
        let mut keys = HashSet::with_capacity(searcher.num_docs() as usize);
        for segment in searcher.segment_readers() {
            let column = segment
                .fast_fields()
                .u64(field_names::DOC_KEY)
                .map_err(IndexError::tantivy(&self.path))?;
            for doc in segment.doc_ids_alive() {
                keys.extend(column.first(doc));
            }
        }
        Ok(keys)
    }

    /// Stages the removal of every signed document whose key is not in `live`; returns how many.
    pub(crate) fn stage_delete_missing(&self, live: &HashSet<u64>) -> Result<u64, IndexError> {
        let searcher = self.reader.searcher();
        let mut removed = 0;
        for (ord, segment) in searcher.segment_readers().iter().enumerate() {
            let column = segment
                .fast_fields()
                .u64(field_names::DOC_KEY)
                .map_err(IndexError::tantivy(&self.path))?;
            for doc in segment.doc_ids_alive() {
                if column.first(doc).is_none_or(|key| live.contains(&key)) {
                    continue;
                }
                let stored: TantivyDocument = searcher
                    .doc(tantivy::DocAddress::new(ord as u32, doc))
                    .map_err(IndexError::tantivy(&self.path))?;
                if let Some(doc_id) = stored
                    .get_first(self.schema.doc_id)
                    .and_then(|v| v.as_str())
                {
                    self.stage_delete(doc_id)?;
                    removed += 1;
                }
            }
        }
        Ok(removed)
    }

    /// Live signed documents.
    pub fn len(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// Whether no document is signed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
