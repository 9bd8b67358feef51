//! Stored documents read back from the content index.

use tantivy::schema::Term;
use tantivy::{DocAddress, Searcher, TantivyDocument};

use super::document::TermCounts;
use super::encoding::{
    DecodedSequence, decode_compact_counts, decode_shingles, decode_term_counts,
    decode_term_sequence, woven_text,
};
use super::postings::live_docs;
use super::raw::{RawDocument, StoredFields, alive_documents};
use super::{DocumentMeta, IndexError, LibraryIndex, StoredDocument, StoredForCheck};

impl LibraryIndex {
    /// The live document `doc_id`.
    pub fn document(&self, doc_id: &str) -> Result<Option<StoredDocument>, IndexError> {
        self.view().document(doc_id)
    }

    /// Whether the live document `doc_id` exists.
    pub fn contains(&self, doc_id: &str) -> Result<bool, IndexError> {
        let term = Term::from_field_text(self.schema.doc_id, doc_id);
        Ok(!live_docs(&self.searcher(), &term, 1, &self.content_path)?.is_empty())
    }

    /// Reads a stored document at an address of `searcher` (inside `index/` only: addresses
    /// mean nothing outside the searcher that found them).
    pub(super) fn stored(
        &self,
        searcher: &Searcher,
        address: DocAddress,
    ) -> Result<StoredDocument, IndexError> {
        self.to_stored(&self.doc_at(searcher, address)?)
    }

    /// What describes the stored document at an address of `searcher`, its text left empty
    /// when its term sequence carries it (a page of summaries has no use for it).
    pub(super) fn described(
        &self,
        searcher: &Searcher,
        address: DocAddress,
    ) -> Result<StoredDocument, IndexError> {
        Ok(self.to_described(&self.doc_at(searcher, address)?))
    }

    fn doc_at(
        &self,
        searcher: &Searcher,
        address: DocAddress,
    ) -> Result<TantivyDocument, IndexError> {
        searcher
            .doc(address)
            .map_err(IndexError::tantivy(&self.content_path))
    }

    pub(super) fn stored_doc_id<'d>(&self, doc: &'d impl StoredFields) -> &'d str {
        doc.first_str(self.schema.doc_id).unwrap_or_default()
    }

    pub(super) fn decode_counts(
        &self,
        doc: &impl StoredFields,
    ) -> Result<Vec<(String, u32)>, IndexError> {
        let bytes = doc.first_bytes(self.schema.term_counts).unwrap_or_default();
        decode_term_counts(bytes).ok_or_else(|| self.corrupt(doc, "undecodable term counts"))
    }

    fn corrupt(&self, doc: &impl StoredFields, reason: &str) -> IndexError {
        IndexError::CorruptDocument {
            doc_id: self.stored_doc_id(doc).to_string(),
            reason: reason.to_string(),
        }
    }

    /// What verification reads of a stored document: its fields, its term counts in one buffer
    /// and its shingles and tokens from its term sequence.
    pub(super) fn for_check(&self, doc: &impl StoredFields) -> Result<StoredForCheck, IndexError> {
        let document = self.to_described(doc);
        let counts = self.compact_counts(doc);
        let empty = TermCounts::default();
        let (shingles, tokens) = self
            .stored_shingles(doc, counts.as_ref().unwrap_or(&empty))
            .ok_or_else(|| self.corrupt(doc, "undecodable shingle sequence"))?;
        let stored = StoredForCheck::new(document, shingles, counts);
        Ok(match tokens {
            Some(decoded) => stored
                .with_tokens(decoded.tokens, decoded.places)
                .with_spellings(decoded.spellings),
            None => stored,
        })
    }

    /// The stored term counts in one buffer of terms (`None` if they are corrupt): what a check
    /// reads of each source.
    pub(super) fn compact_counts(&self, doc: &impl StoredFields) -> Option<TermCounts> {
        decode_compact_counts(doc.first_bytes(self.schema.term_counts).unwrap_or_default())
    }

    /// A stored document's shingles in text order, and its tokens when it keeps them: decoded
    /// from its term sequence and `counts` (its decoded term counts), or read as a document
    /// written before the term sequence keeps them (shingles only). `None` when the stored bytes
    /// are corrupt.
    pub(super) fn stored_shingles(
        &self,
        doc: &impl StoredFields,
        counts: &TermCounts,
    ) -> Option<(Vec<u64>, Option<DecodedSequence>)> {
        let bytes = |field| doc.first_bytes(field);
        match bytes(self.schema.term_seq) {
            Some(sequence) => {
                let mut decoded = decode_term_sequence(sequence, counts)?;
                let shingles = std::mem::take(&mut decoded.shingles);
                Some((shingles, Some(decoded)))
            }
            None => decode_shingles(bytes(self.schema.shingle_seq).unwrap_or_default())
                .map(|shingles| (shingles, None)),
        }
    }

    /// Calls `each` with every live document of the last commit, its decoded term counts and
    /// its selected shingles (those the library's selection picks from its stored sequence): what
    /// rebuilding the candidate map and the shingle runs reads.
    pub(super) fn each_live_selection(
        &self,
        mut each: impl FnMut(&RawDocument, &[(String, u32)], &[u64]) -> Result<(), IndexError>,
    ) -> Result<(), IndexError> {
        let searcher = self.searcher();
        let path = self.content_path.as_path();
        for segment in searcher.segment_readers() {
            for document in alive_documents(segment, path)? {
                let (_, stored) = document?;
                let counts = self.decode_counts(&stored)?;
                let sequence = self
                    .stored_shingles(&stored, &TermCounts::from(&counts[..]))
                    .map(|(shingles, _)| shingles)
                    .unwrap_or_default();
                each(&stored, &counts, &self.shingle_selection.select(&sequence))?;
            }
        }
        Ok(())
    }

    /// The stored document with its text, read from its term sequence (the third version
    /// carries it) or its text field (documents written before).
    pub(super) fn to_stored(&self, doc: &impl StoredFields) -> Result<StoredDocument, IndexError> {
        let counts = self.compact_counts(doc).unwrap_or_default();
        self.with_text(doc, &counts)
    }

    fn with_text(
        &self,
        doc: &impl StoredFields,
        counts: &TermCounts,
    ) -> Result<StoredDocument, IndexError> {
        let mut document = self.to_described(doc);
        if let Some(sequence) = doc.first_bytes(self.schema.term_seq) {
            match woven_text(sequence, counts) {
                Some(Some(text)) => document.text = text,
                Some(None) => {}
                None => return Err(self.corrupt(doc, "undecodable text in the term sequence")),
            }
        }
        Ok(document)
    }

    /// The stored document as its fields describe it, its text as its text field has it (empty
    /// for a document whose term sequence carries it).
    pub(super) fn to_described(&self, doc: &impl StoredFields) -> StoredDocument {
        let s = &self.schema;
        let text = |field| doc.first_str(field).map(str::to_string);
        let number = |field| doc.first_u64(field);
        StoredDocument {
            meta: DocumentMeta {
                doc_id: text(s.doc_id).unwrap_or_default(),
                url: text(s.url),
                title: text(s.title),
                authors: doc
                    .all_str(s.authors)
                    .into_iter()
                    .map(str::to_string)
                    .collect(),
                lang: text(s.lang).unwrap_or_default(),
                year: number(s.year),
                pdf_url: text(s.pdf_url),
                doi: text(s.doi),
            },
            words: number(s.words).unwrap_or(0),
            content_hash: number(s.content_hash).unwrap_or(0),
            added_at: number(s.added_at).unwrap_or(0),
            text: text(s.text).unwrap_or_default(),
        }
    }
}
