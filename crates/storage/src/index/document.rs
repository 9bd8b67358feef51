//! Documents on their way into the index, and as they come back out.

use std::sync::OnceLock;

use serde::Serialize;

use super::IndexError;
use super::woven::Spellings;

pub use dupfinder_text::analysis::content_hash;
use dupfinder_text::analysis::{Language, Token};

/// A document that has been validated and analyzed, ready to be written. Preparing is the
/// expensive part of ingest and needs no lock, so it runs before the writer is taken.
#[derive(Debug, Clone)]
pub struct PreparedDocument {
    pub doc_id: String,
    pub url: Option<String>,
    pub title: Option<String>,
    pub authors: Vec<String>,
    pub text: String,
    pub lang: Language,
    pub year: Option<u64>,
    /// Where the full text can be read.
    pub pdf_url: Option<String>,
    /// The DOI, normalized (`10.xxxx/...`).
    pub doi: Option<String>,
    /// Words in the text before stop words and short words were dropped.
    pub words: u64,
    pub content_hash: u64,
    /// Each distinct term once, sorted by term, with its count.
    pub term_counts: Vec<(String, u32)>,
    /// Every shingle in text order (element `i` starts at token `i`); the library's
    /// [`ShingleSelection`](dupfinder_text::analysis::ShingleSelection) picks from them what its
    /// shingle index holds.
    pub shingle_seq: Vec<u64>,
    pub tokens: Vec<Token>,
}

/// What names and describes a stored document, as every answer that shows one carries it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DocumentMeta {
    pub doc_id: String,
    pub url: Option<String>,
    pub title: Option<String>,
    pub authors: Vec<String>,
    pub lang: String,
    pub year: Option<u64>,
    /// Where the full text can be read (absent in libraries indexed before it was stored).
    pub pdf_url: Option<String>,
    /// The DOI, `10.xxxx/...`.
    pub doi: Option<String>,
}

/// A document read back from a library's content index.
#[derive(Debug, Clone, Serialize)]
pub struct StoredDocument {
    #[serde(flatten)]
    pub meta: DocumentMeta,
    pub words: u64,
    pub content_hash: u64,
    pub added_at: u64,
    pub text: String,
}

/// The key the signature index refers to a document by: a 64-bit hash of its id.
pub fn doc_key(doc_id: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(doc_id.as_bytes())
}

/// A document's stable name inside a library, whatever the segments: the hash of its id
/// ([`doc_key`]). Outside `index/`, candidates are named by their key, never by an address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DocKey(pub u64);

impl DocKey {
    /// The key of the document `doc_id`.
    pub fn of(doc_id: &str) -> Self {
        DocKey(doc_key(doc_id))
    }
}

/// A stored document with what verification needs.
#[derive(Debug, Clone)]
pub struct StoredForCheck {
    /// The document, its text empty while `spellings` carries it.
    document: StoredDocument,
    /// What spells the document's text with its tokens, when its term sequence carries the
    /// text (the third version): the text is built when first asked for, since most sources a
    /// check reads show no passage.
    spellings: Option<Spellings>,
    /// The text built from `spellings`.
    text: OnceLock<String>,
    /// Every shingle in text order.
    pub shingles: Vec<u64>,
    /// Each token's byte range in the text (its term left empty), when the document keeps them:
    /// where its passages lie without analyzing it again.
    pub tokens: Option<Vec<Token>>,
    /// Each token's term as its place in the term counts, kept with `tokens`.
    places: Option<Vec<u32>>,
    /// Each distinct term once, sorted by term, with its count (`None` if the stored bytes are
    /// corrupt).
    term_counts: Option<TermCounts>,
}

impl StoredForCheck {
    pub(crate) fn new(
        document: StoredDocument,
        shingles: Vec<u64>,
        term_counts: Option<TermCounts>,
    ) -> Self {
        StoredForCheck {
            document,
            spellings: None,
            text: OnceLock::new(),
            shingles,
            tokens: None,
            places: None,
            term_counts,
        }
    }

    /// Keeps what spells the document's text with its tokens, when its term sequence carries
    /// the text.
    pub(crate) fn with_spellings(mut self, spellings: Option<Spellings>) -> Self {
        self.spellings = spellings;
        self
    }

    /// What names and describes the document.
    pub fn meta(&self) -> &DocumentMeta {
        &self.document.meta
    }

    /// The document's text.
    pub fn text(&self) -> Result<&str, IndexError> {
        let Some(spellings) = &self.spellings else {
            return Ok(&self.document.text);
        };
        if let Some(text) = self.text.get() {
            return Ok(text);
        }
        let tokens = self.tokens.as_deref().unwrap_or_default();
        let counts = self.term_counts.as_ref().ok_or_else(|| self.corrupt())?;
        let text = spellings
            .text(tokens, counts)
            .ok_or_else(|| self.corrupt())?;
        Ok(self.text.get_or_init(|| text))
    }

    fn corrupt(&self) -> IndexError {
        IndexError::CorruptDocument {
            doc_id: self.document.meta.doc_id.clone(),
            reason: "undecodable text in the term sequence".to_string(),
        }
    }

    /// The document's term counts (`None` if the stored bytes are corrupt).
    pub fn term_counts(&self) -> Option<&TermCounts> {
        self.term_counts.as_ref()
    }

    /// Keeps the tokens decoded from the term sequence: their byte ranges, and their terms as
    /// places in the term counts.
    pub(crate) fn with_tokens(mut self, tokens: Vec<Token>, places: Vec<u32>) -> Self {
        self.tokens = Some(tokens);
        self.places = Some(places);
        self
    }

    /// Each token's byte range (its term left empty) and its term's place in
    /// [`term_counts`](Self::term_counts), when the document keeps them.
    pub fn token_places(&self) -> Option<(&[Token], &[u32])> {
        Some((self.tokens.as_deref()?, self.places.as_deref()?))
    }

    /// The tokens as the analysis gave them, terms and byte ranges, when the document keeps
    /// them (`None` for a document written before the term sequence).
    pub fn analysed_tokens(&self) -> Option<Vec<Token>> {
        let (tokens, places, counts) = (
            self.tokens.as_ref()?,
            self.places.as_ref()?,
            self.term_counts.as_ref()?,
        );
        tokens
            .iter()
            .zip(places)
            .map(|(token, &place)| {
                Some(Token {
                    term: counts.get(place as usize)?.0.to_string(),
                    ..token.clone()
                })
            })
            .collect()
    }
}

/// A document's term counts as verification reads them: each distinct term once, sorted by
/// term, with its count, the terms in one buffer. A full paper has ~1,500 distinct terms, and a
/// check reads dozens of sources: a `String` for each term was a twelfth of the check.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TermCounts {
    /// Every term, one after another.
    terms: String,
    /// Each term's end in `terms` and its count.
    entries: Vec<(u32, u32)>,
}

impl TermCounts {
    /// Term counts from pairs sorted by term.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, u32)>) -> Self {
        let mut counts = TermCounts::default();
        for (term, count) in pairs {
            counts.push(term, count);
        }
        counts
    }

    /// Room for `bytes` of terms and `terms` terms.
    pub(crate) fn with_capacity(bytes: usize, terms: usize) -> Self {
        TermCounts {
            terms: String::with_capacity(bytes),
            entries: Vec::with_capacity(terms),
        }
    }

    /// Term counts from their terms one after another and each one's end and count; `None`
    /// when an end is not a letter's end in `terms` or ends go back.
    pub(crate) fn from_parts(terms: String, entries: Vec<(u32, u32)>) -> Option<Self> {
        let mut start = 0;
        for &(end, _) in &entries {
            if end < start || !terms.is_char_boundary(end as usize) {
                return None;
            }
            start = end;
        }
        (start as usize == terms.len()).then_some(TermCounts { terms, entries })
    }

    /// Each term's count, in term order.
    pub(crate) fn counts(&self) -> impl ExactSizeIterator<Item = u32> + '_ {
        self.entries.iter().map(|&(_, count)| count)
    }

    /// Adds `term` after the terms so far (which it follows in term order).
    pub(crate) fn push(&mut self, term: &str, count: u32) {
        self.terms.push_str(term);
        self.entries.push((self.terms.len() as u32, count));
    }

    /// How many distinct terms.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The term at `place` (in term order) and its count.
    pub fn get(&self, place: usize) -> Option<(&str, u32)> {
        let &(end, count) = self.entries.get(place)?;
        let start = match place {
            0 => 0,
            _ => self.entries[place - 1].0,
        };
        Some((&self.terms[start as usize..end as usize], count))
    }

    /// The first place whose term fails `before`, which every term holds up to some place and
    /// none after it (as a slice's `partition_point`): terms are in term order.
    pub(crate) fn partition_point(&self, before: impl Fn(&str) -> bool) -> usize {
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let middle = (low + high) / 2;
            match self.get(middle).is_some_and(|(term, _)| before(term)) {
                true => low = middle + 1,
                false => high = middle,
            }
        }
        low
    }

    /// The byte length of the term at `place`.
    pub(crate) fn term_len(&self, place: usize) -> Option<usize> {
        let end = self.entries.get(place)?.0;
        let start = match place {
            0 => 0,
            _ => self.entries[place - 1].0,
        };
        Some((end - start) as usize)
    }

    /// Each term and its count, in term order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, u32)> + Clone + '_ {
        (0..self.entries.len()).map(|place| self.get(place).expect("a place below the length"))
    }

    /// The pairs, each term its own string.
    pub fn to_pairs(&self) -> Vec<(String, u32)> {
        self.iter()
            .map(|(term, count)| (term.to_string(), count))
            .collect()
    }
}

impl From<&[(String, u32)]> for TermCounts {
    fn from(pairs: &[(String, u32)]) -> Self {
        TermCounts::from_pairs(pairs.iter().map(|(term, count)| (term.as_str(), *count)))
    }
}
