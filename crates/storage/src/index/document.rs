//! Documents on their way into the index, and as they come back out.

use serde::Serialize;

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
    /// Distinct sampled shingle hashes, sorted: what the shingle index holds.
    pub shingles: Vec<u64>,
    /// Every shingle in text order (element `i` starts at token `i`).
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
    pub document: StoredDocument,
    /// Every shingle in text order.
    pub shingles: Vec<u64>,
    /// The encoded term counts, decoded only when the bag of words is needed.
    encoded_term_counts: Vec<u8>,
}

impl StoredForCheck {
    pub(crate) fn new(
        document: StoredDocument,
        shingles: Vec<u64>,
        encoded_term_counts: Vec<u8>,
    ) -> Self {
        StoredForCheck {
            document,
            shingles,
            encoded_term_counts,
        }
    }

    /// The document's term counts (`None` if the stored bytes are corrupt).
    pub fn term_counts(&self) -> Option<Vec<(String, u32)>> {
        decode_term_counts(&self.encoded_term_counts)
    }
}

/// Encodes a shingle sequence as little-endian u64s.
pub(crate) fn encode_shingles(shingles: &[u64]) -> Vec<u8> {
    shingles.iter().flat_map(|h| h.to_le_bytes()).collect()
}

/// Decodes what [`encode_shingles`] wrote.
pub(crate) fn decode_shingles(bytes: &[u8]) -> Option<Vec<u64>> {
    if !bytes.len().is_multiple_of(8) {
        return None;
    }
    Some(
        bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("chunks of eight")))
            .collect(),
    )
}

/// Encodes term counts compactly for the `term_counts` stored field: for each term its byte
/// length as a LEB128 varint, its bytes, and its count as a varint.
pub(crate) fn encode_term_counts(counts: &[(String, u32)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(counts.len() * 10);
    for (term, count) in counts {
        write_varint(&mut out, term.len() as u64);
        out.extend_from_slice(term.as_bytes());
        write_varint(&mut out, u64::from(*count));
    }
    out
}

/// Decodes what [`encode_term_counts`] wrote.
pub(crate) fn decode_term_counts(mut bytes: &[u8]) -> Option<Vec<(String, u32)>> {
    let mut counts = Vec::new();
    while !bytes.is_empty() {
        let len = usize::try_from(read_varint(&mut bytes)?).ok()?;
        if bytes.len() < len {
            return None;
        }
        let (term, rest) = bytes.split_at(len);
        bytes = rest;
        let count = u32::try_from(read_varint(&mut bytes)?).ok()?;
        counts.push((std::str::from_utf8(term).ok()?.to_string(), count));
    }
    Some(counts)
}

fn write_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn read_varint(bytes: &mut &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = bytes.split_first()?;
        *bytes = rest;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn term_counts_round_trip(counts in proptest::collection::vec(("\\PC{0,20}", any::<u32>()), 0..50)) {
            let encoded = encode_term_counts(&counts);
            prop_assert_eq!(decode_term_counts(&encoded), Some(counts));
        }
    }

    #[test]
    fn truncated_term_counts_are_rejected() {
        let encoded = encode_term_counts(&[("сигнатура".to_string(), 300)]);
        assert_eq!(decode_term_counts(&encoded[..encoded.len() - 1]), None);
        assert_eq!(decode_term_counts(&encoded[..3]), None);
    }
}
