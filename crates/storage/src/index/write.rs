//! Writing a library: documents staged and committed under the write gate, signed against the
//! current generation as they are written; deletes; merging into one segment.

use std::sync::atomic::Ordering;

use parking_lot::MutexGuard;
use tantivy::schema::Term;
use tantivy::{IndexWriter, TantivyDocument};

use super::encoding::{encode_term_counts, encode_term_sequence};
use super::runs::RunDoc;
use super::signatures::SignatureIndex;
use super::tokenizer::analysed_text;
use super::woven::encode_woven;
use super::{IndexError, LibraryIndex, PreparedDocument, doc_key};

/// The fewest tokens of a long text: a full paper (thousands of tokens) rather than an abstract
/// (a few hundred). A long text is kept differently in two ways:
/// - its text is woven into its term sequence ([`super::woven`]) rather than kept in the `text`
///   field. A full paper fills a block of the store on its own, and its text compressed alone
///   repeats its analysis: woven, its data directory is a quarter smaller. Abstracts share
///   blocks, whose compression already finds what their texts repeat: woven, they were no smaller
///   (24.5 MB against 23.6 for 10,240 ACL abstracts in one library, 36.1 against 37.5 in a
///   hundred), and an exact copy's check paid ~0.1 ms more to spell its source;
/// - its words are counted in `body_terms`, without the positions `body` keeps (~8 KB a full
///   paper); a phrase search verifies their order in the term sequence (`phrase.rs`) and marks
///   it with `text_kind` so that a search tells the two layouts apart.
pub const LONG_TEXT_TOKENS: usize = 2_048;

/// The value of `text_kind` that marks a long text (one whose words are in `body_terms`).
pub const LONG_TEXT: &str = "long";

impl LibraryIndex {
    /// Writes documents durably: when this returns `Ok`, they are committed to disk, signed
    /// against the current snapshot and visible to checks and searches. A document whose id
    /// already exists replaces the old version.
    pub fn add(&self, documents: &[PreparedDocument]) -> Result<(), IndexError> {
        let _gate = self.write_gate.lock();
        let signatures = self.signatures();
        let guard = self.stage_documents(Some(&signatures), documents)?;
        let staged = self.staged.swap(0, Ordering::Relaxed);
        self.commit(guard, &signatures, staged)
    }

    /// Writes documents like [`LibraryIndex::add`] but leaves them uncommitted and unsigned:
    /// they become durable and visible with the next commit ([`LibraryIndex::add`] or
    /// [`LibraryIndex::commit_staged`]), and signed by the next re-index. A bulk import writes
    /// this way, committing every few batches (fewer, larger segments) and re-indexing at its
    /// end: signing each document against the statistics of the moment as well would sign it
    /// twice. Until that re-index, the signatures record that they lag the content, so a crash
    /// in between is repaired when the library is opened again.
    pub fn stage(&self, documents: &[PreparedDocument]) -> Result<(), IndexError> {
        let _gate = self.write_gate.lock();
        self.unsigned.store(true, Ordering::Relaxed);
        self.stage_documents(None, documents).map(drop)
    }

    /// Commits what [`LibraryIndex::stage`] wrote.
    pub fn commit_staged(&self) -> Result<(), IndexError> {
        let _gate = self.write_gate.lock();
        let signatures = self.signatures();
        let guard = self.writer.lock();
        let staged = self.staged.swap(0, Ordering::Relaxed);
        self.commit(guard, &signatures, staged)
    }

    /// Writes `documents` into the content index and the pending run, and their signatures
    /// into `signatures` unless there are none to write them into (see [`LibraryIndex::stage`]).
    fn stage_documents(
        &self,
        signatures: Option<&SignatureIndex>,
        documents: &[PreparedDocument],
    ) -> Result<MutexGuard<'_, Option<IndexWriter<TantivyDocument>>>, IndexError> {
        let mut guard = self.writer.lock();
        let writer = self.content_writer(&mut guard)?;
        for document in documents {
            let selected = self.shingle_selection.select(&document.shingle_seq);
            writer.delete_term(Term::from_field_text(self.schema.doc_id, &document.doc_id));
            writer
                .add_document(self.content_document(document))
                .map_err(IndexError::tantivy(&self.content_path))?;
            if let Some(candidates) = &self.candidates {
                candidates.add_content_in_runs(
                    document.content_hash,
                    &selected,
                    document.lang.code(),
                )?;
            }
            self.pending.lock().add(
                RunDoc {
                    key: doc_key(&document.doc_id),
                    content: document.content_hash,
                },
                &selected,
            );
            if let Some(signatures) = signatures {
                signatures.stage(&document.doc_id, &document.term_counts)?;
            }
        }
        self.staged
            .fetch_add(documents.len() as u64, Ordering::Relaxed);
        Ok(guard)
    }

    /// Commits the content index (durable from here on), makes it visible, then commits the
    /// signatures staged with it, recording the content opstamp they reflect — or, while
    /// documents written without signatures are waiting for a re-index, the one they reflected
    /// before.
    fn commit(
        &self,
        mut guard: MutexGuard<'_, Option<IndexWriter<TantivyDocument>>>,
        signatures: &SignatureIndex,
        changed: u64,
    ) -> Result<(), IndexError> {
        let path = &self.content_path;
        if let Some(candidates) = &self.candidates {
            candidates.sync()?;
        }
        self.write_pending_run()?;
        let writer = self.content_writer(&mut guard)?;
        let opstamp = writer.commit().map_err(IndexError::tantivy(path))?;
        drop(guard);
        self.reader.reload().map_err(IndexError::tantivy(path))?;
        let reflected = if self.unsigned.load(Ordering::Relaxed) {
            signatures.synced_opstamp()?.unwrap_or(0)
        } else {
            opstamp
        };
        signatures.commit(reflected)?;
        if let Err(e) = self.merge_runs(false) {
            // The documents are committed; the runs stay as they were and merge later.
            tracing::warn!(library = %self.dir.display(), error = %e, "could not merge shingle runs");
        }
        self.changed_since_snapshot
            .fetch_add(changed, Ordering::Relaxed);
        Ok(())
    }

    /// Puts both writers back to the last commit after a failed write: what was staged since is
    /// discarded, the content writer is opened afresh, and the signatures are re-signed when
    /// they lag the content (the content commit went through, the signatures' did not). A
    /// writer whose write failed is in an unknown state (a later commit has been seen to answer
    /// `Ok` without the documents), so a library's next write waits for this. When the content
    /// writer cannot be opened (the fault persists), the library has none until a later call
    /// succeeds; writes meanwhile fail with that error.
    pub fn reset_writers(&self) -> Result<(), IndexError> {
        let _gate = self.write_gate.lock();
        let path = &self.content_path;
        {
            let mut guard = self.writer.lock();
            // Dropped first: it holds the index's writer lock, which the fresh one takes.
            drop(guard.take());
            self.staged.store(0, Ordering::Relaxed);
            self.discard_pending_run();
            let writer = self
                .index
                .writer_with_num_threads(1, self.writer_memory)
                .map_err(IndexError::tantivy(path))?;
            *guard = Some(writer);
        }
        self.signatures().rollback()?;
        self.reader.reload().map_err(IndexError::tantivy(path))?;
        self.repair_signatures()?;
        // Signed whole now, and what was staged unsigned is gone with the old writer.
        self.unsigned.store(false, Ordering::Relaxed);
        self.count_changes_since_snapshot();
        Ok(())
    }

    /// The content writer, opened when the library has none (never written since it was opened,
    /// idle, or [`LibraryIndex::reset_writers`] could not open one).
    pub(super) fn content_writer<'a>(
        &self,
        guard: &'a mut MutexGuard<'_, Option<IndexWriter<TantivyDocument>>>,
    ) -> Result<&'a mut IndexWriter<TantivyDocument>, IndexError> {
        self.wrote();
        if guard.is_none() {
            let writer = self
                .index
                .writer_with_num_threads(1, self.writer_memory)
                .map_err(IndexError::tantivy(&self.content_path))?;
            **guard = Some(writer);
        }
        Ok(guard.as_mut().expect("opened above"))
    }

    /// Merges the content index into one segment, so that every term lookup of a check touches
    /// one term dictionary instead of one per segment. Worth it after a bulk import.
    pub fn optimize(&self) -> Result<(), IndexError> {
        let _gate = self.write_gate.lock();
        let path = &self.content_path;
        let segments = self
            .index
            .searchable_segment_ids()
            .map_err(IndexError::tantivy(path))?;
        if segments.len() > 1 {
            let mut guard = self.writer.lock();
            // Background merges may hold some of the segments: let them finish first, which
            // consumes the writer; a fresh one then merges everything that is left.
            if let Some(old) = guard.take() {
                old.wait_merging_threads()
                    .map_err(IndexError::tantivy(path))?;
            }
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
        self.reader.reload().map_err(IndexError::tantivy(path))?;
        self.merge_runs(true)
    }

    /// Removes a document; returns whether it existed.
    pub fn delete(&self, doc_id: &str) -> Result<bool, IndexError> {
        let _gate = self.write_gate.lock();
        if !self.contains(doc_id)? {
            return Ok(false);
        }
        let signatures = self.signatures();
        let mut guard = self.writer.lock();
        let writer = self.content_writer(&mut guard)?;
        writer.delete_term(Term::from_field_text(self.schema.doc_id, doc_id));
        signatures.stage_delete(doc_id)?;
        self.commit(guard, &signatures, 1)?;
        Ok(true)
    }

    /// The content index's document for `document`. Its selected shingles go to the library's
    /// runs (`runs.rs`), not to the `shingles` field, which only documents written before the
    /// runs hold.
    pub(super) fn content_document(&self, document: &PreparedDocument) -> TantivyDocument {
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
        if document.tokens.len() >= LONG_TEXT_TOKENS {
            doc.add_text(s.body_terms, analysed_text(&document.tokens));
            doc.add_text(s.text_kind, LONG_TEXT);
        } else {
            doc.add_text(s.body, analysed_text(&document.tokens));
        }
        doc.add_text(s.lang, document.lang.code());
        if let Some(year) = document.year {
            doc.add_u64(s.year, year);
        }
        doc.add_u64(s.words, document.words);
        doc.add_u64(s.content_hash, document.content_hash);
        doc.add_bytes(s.term_counts, &encode_term_counts(&document.term_counts));
        // A long text woven into the term sequence; kept beside the second version's when it
        // is short, or when the tokens do not give it back (never seen: a safeguard).
        let (tokens, counts) = (&document.tokens, &document.term_counts);
        let woven = (tokens.len() >= LONG_TEXT_TOKENS)
            .then(|| encode_woven(tokens, counts, &document.text))
            .flatten();
        match woven {
            Some(woven) => doc.add_bytes(s.term_seq, &woven),
            None => {
                doc.add_text(s.text, &document.text);
                doc.add_bytes(s.term_seq, &encode_term_sequence(tokens, counts));
            }
        }
        doc.add_u64(s.added_at, dupfinder_common::clock::unix_now());
        if let Some(pdf_url) = &document.pdf_url {
            doc.add_text(s.pdf_url, pdf_url);
        }
        if let Some(doi) = &document.doi {
            doc.add_text(s.doi, doi);
        }
        doc
    }
}

#[cfg(test)]
mod tests {
    use super::super::encoding::encode_shingles;
    use super::super::raw::StoredFields;
    use super::super::testing::{open_index, prepared};
    use super::super::{DocKey, TermCounts};
    use super::*;

    /// A document written before `term_seq` keeps its shingles in `shingle_seq`: verification
    /// reads them as they are, and its passages analyze the text (no token ranges are kept).
    #[test]
    fn a_document_kept_with_its_shingle_sequence_is_read_as_before() {
        let dir = tempfile::tempdir().unwrap();
        let index = open_index(dir.path());
        let prepared = prepared(
            "old",
            "Метод шинглов сравнивает тексты по последовательностям из трёх слов, а метод \
             сигнатур — по наиболее значимым словам документа.",
        );
        // As an older release wrote it: every field but `term_seq`, its text in `text`, and
        // `shingle_seq`.
        let written = index.content_document(&prepared);
        let mut old = TantivyDocument::new();
        for (field, value) in written.field_values() {
            if field != index.schema.term_seq {
                old.add_field_value(field, value);
            }
        }
        old.add_text(index.schema.text, &prepared.text);
        old.add_bytes(
            index.schema.shingle_seq,
            &encode_shingles(&prepared.shingle_seq),
        );
        {
            let mut guard = index.writer.lock();
            let writer = index.content_writer(&mut guard).unwrap();
            writer.add_document(old).unwrap();
            writer.commit().unwrap();
        }
        index.reader.reload().unwrap();
        let view = index.view();
        let stored = view.stored_for_check(DocKey::of("old")).unwrap().unwrap();
        assert_eq!(stored.shingles, prepared.shingle_seq);
        assert!(stored.tokens.is_none());
        assert_eq!(
            stored.term_counts().map(TermCounts::to_pairs),
            Some(prepared.term_counts.clone())
        );
        assert!(stored.text().unwrap().starts_with("Метод шинглов"));
    }

    /// A long document written now keeps its text in its term sequence, not in the `text`
    /// field, and every way of reading it gives the text back byte for byte: the stored
    /// document, a check's source (built when asked for), a search hit's snippet. A short one
    /// keeps its `text` field.
    #[test]
    fn a_text_woven_into_the_term_sequence_is_read_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let index = open_index(dir.path());
        let part = "  Метод шинглов: «Сравнение» ТЕКСТОВ по 3 словам.\n\nShingles of Three \
                    words — the METHOD's core; сло-\nва, ﬁ, 漢字文本.  ";
        let text = part.repeat(200);
        let long = prepared("woven", &text);
        assert!(long.tokens.len() >= LONG_TEXT_TOKENS);
        index.add(&[long.clone(), prepared("short", part)]).unwrap();
        assert!(
            index
                .content_document(&long)
                .get_first(index.schema.text)
                .is_none()
        );
        let short = index.content_document(&prepared("short", part));
        assert_eq!(short.first_str(index.schema.text), Some(part));
        let view = index.view();
        for (id, text) in [("woven", text.as_str()), ("short", part)] {
            assert_eq!(view.document(id).unwrap().unwrap().text, text);
            let stored = view.stored_for_check(DocKey::of(id)).unwrap().unwrap();
            assert_eq!(stored.text().unwrap(), text);
        }
        let hits = index.search("\"сравнение текстов\"", 10, 0).unwrap();
        assert_eq!(hits.total, 2);
        for hit in &hits.hits {
            assert!(hit.snippet.contains("<b>Сравнение</b>"), "{}", hit.snippet);
        }
    }
}
