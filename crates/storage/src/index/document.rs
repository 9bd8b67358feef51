//! Documents on their way into the index, and as they come back out.

use serde::Serialize;

pub use dupfinder_text::analysis::content_hash;
use dupfinder_text::analysis::{Language, Token, shingle_sequence};

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
    pub document: StoredDocument,
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
            shingles,
            tokens: None,
            places: None,
            term_counts,
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

    fn push(&mut self, term: &str, count: u32) {
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

/// Encodes shingle hashes as little-endian u64s (the `shingle_seq` of documents written before
/// `term_seq`, and PostgreSQL's column).
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

/// Encodes a document's tokens for the `term_seq` stored field, in three runs of LEB128
/// varints after their count: each token's term as its place in `counts` (sorted by term, as
/// [`PreparedDocument::term_counts`]), then each token's start in bytes from the start of the
/// one before (zigzag-signed: CJK bigrams overlap), then each token's length. A full paper's ~4,000 tokens take about four bytes
/// each before compression, against eight for each shingle alone, and give back both what
/// verification compares (the shingles) and where each token is (the passages' offsets), so a
/// source is never analyzed again.
pub(crate) fn encode_term_sequence(tokens: &[Token], counts: &[(String, u32)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(tokens.len() * 4 + 4);
    write_varint(&mut out, tokens.len() as u64);
    for token in tokens {
        // Every term of the text is in its own counts.
        let place = counts
            .binary_search_by(|(t, _)| t.as_str().cmp(&token.term))
            .unwrap_or_default();
        write_varint(&mut out, place as u64);
    }
    let mut start = 0i64;
    for token in tokens {
        write_varint(&mut out, zigzag(token.start as i64 - start));
        start = token.start as i64;
    }
    for token in tokens {
        write_varint(&mut out, token.end.saturating_sub(token.start) as u64);
    }
    out
}

/// A stored document's tokens as [`encode_term_sequence`] kept them: the shingles hashed from
/// the terms three by three (exactly as the analysis hashed them), and each token's byte
/// range in the text. `None` when the bytes do not decode or name a term `counts` lacks.
pub(crate) fn decode_term_sequence(
    mut bytes: &[u8],
    counts: &TermCounts,
) -> Option<DecodedSequence> {
    let n = usize::try_from(read_varint(&mut bytes)?).ok()?;
    // Every token takes three bytes at least: a count beyond that is damage.
    if n > bytes.len() / 3 {
        return None;
    }
    let mut terms: Vec<&str> = Vec::with_capacity(n);
    let mut places = Vec::with_capacity(n);
    for _ in 0..n {
        let place = u32::try_from(read_varint(&mut bytes)?).ok()?;
        terms.push(counts.get(place as usize)?.0);
        places.push(place);
    }
    let mut starts = Vec::with_capacity(n);
    let mut start = 0i64;
    for _ in 0..n {
        start = start.checked_add(unzigzag(read_varint(&mut bytes)?))?;
        starts.push(usize::try_from(start).ok()?);
    }
    let mut tokens = Vec::with_capacity(n);
    for (position, start) in starts.into_iter().enumerate() {
        let end = start.checked_add(usize::try_from(read_varint(&mut bytes)?).ok()?)?;
        tokens.push(Token {
            term: String::new(),
            position: position as u32,
            start,
            end,
        });
    }
    if !bytes.is_empty() {
        return None;
    }
    let shingles = shingle_sequence(terms);
    Some(DecodedSequence {
        shingles,
        tokens,
        places,
    })
}

/// What a term sequence gives back.
#[derive(Debug, PartialEq)]
pub(crate) struct DecodedSequence {
    /// Every shingle in text order.
    pub(crate) shingles: Vec<u64>,
    /// Each token's byte range (terms left empty).
    pub(crate) tokens: Vec<Token>,
    /// Each token's term as its place in the term counts.
    pub(crate) places: Vec<u32>,
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

/// Decodes what [`encode_term_counts`] wrote into one buffer of terms.
pub(crate) fn decode_compact_counts(bytes: &[u8]) -> Option<TermCounts> {
    let mut counts = TermCounts {
        // The terms take most of the bytes.
        terms: String::with_capacity(bytes.len()),
        entries: Vec::with_capacity(bytes.len() / 8),
    };
    each_term_count(bytes, |term, count| counts.push(term, count))?;
    Some(counts)
}

/// Decodes what [`encode_term_counts`] wrote.
pub(crate) fn decode_term_counts(bytes: &[u8]) -> Option<Vec<(String, u32)>> {
    let mut counts = Vec::new();
    each_term_count(bytes, |term, count| counts.push((term.to_string(), count)))?;
    Some(counts)
}

/// Calls `each` with every term and count [`encode_term_counts`] wrote, in order; `None` when
/// the bytes do not decode.
fn each_term_count(mut bytes: &[u8], mut each: impl FnMut(&str, u32)) -> Option<()> {
    while !bytes.is_empty() {
        let len = usize::try_from(read_varint(&mut bytes)?).ok()?;
        if bytes.len() < len {
            return None;
        }
        let (term, rest) = bytes.split_at(len);
        bytes = rest;
        let count = u32::try_from(read_varint(&mut bytes)?).ok()?;
        each(std::str::from_utf8(term).ok()?, count);
    }
    Some(())
}

fn write_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// A signed number as an unsigned one, small magnitudes small: 0, -1, 1, -2 … as 0, 1, 2, 3 ….
fn zigzag(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

fn unzigzag(value: u64) -> i64 {
    ((value >> 1) as i64) ^ -((value & 1) as i64)
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
            prop_assert_eq!(decode_term_counts(&encoded), Some(counts.clone()));
            let compact = decode_compact_counts(&encoded).unwrap();
            prop_assert_eq!(compact.to_pairs(), counts.clone());
            prop_assert_eq!(compact.len(), counts.len());
            for (place, (term, count)) in counts.iter().enumerate() {
                prop_assert_eq!(compact.get(place), Some((term.as_str(), *count)));
            }
            prop_assert_eq!(compact.get(counts.len()), None);
            prop_assert_eq!(TermCounts::from(&counts[..]), compact);
        }
    }

    /// Verification hashes a stored document's shingles from its term sequence and places its
    /// passages by the token ranges kept with it: they must be the very shingles and ranges the
    /// analysis gave, or copied passages would be missed or misplaced.
    #[test]
    fn the_term_sequence_gives_back_the_analysed_shingles_and_token_ranges() {
        let analyzer = crate::index::default_analyzer();
        for text in [
            "Метод шинглов сравнивает тексты по последовательностям из трёх слов, а метод \
             сигнатур — по наиболее значимым словам документа. Метод шинглов устойчив.",
            "Shingles of three words compare texts; signatures compare their most telling \
             words, and the shingles of a copied run are shared by both texts.",
            "  «Кавычки», числа 3,14 и e-mail: a@b.ru; переносы сло-\nва и ﬁ лигатуры.",
            "本研究探讨了稻田养鸭模式对水稻产量和土壤质量的影响。Mixed 文本 and 漢字.",
        ] {
            let limits = dupfinder_text::analysis::TextLimits {
                max_bytes: 1 << 20,
                min_words: 1,
            };
            let analyzed =
                dupfinder_text::analysis::analyze_text(&analyzer, text, None, limits).unwrap();
            let bytes = encode_term_sequence(&analyzed.tokens, &analyzed.term_counts);
            let counts = TermCounts::from(&analyzed.term_counts[..]);
            let decoded = decode_term_sequence(&bytes, &counts).unwrap();
            // The cross-language check reads a source's terms back from the same bytes.
            let stored = StoredForCheck::new(
                StoredDocument {
                    meta: DocumentMeta {
                        doc_id: "d".to_string(),
                        url: None,
                        title: None,
                        authors: Vec::new(),
                        lang: "ru".to_string(),
                        year: None,
                        pdf_url: None,
                        doi: None,
                    },
                    words: 0,
                    content_hash: 0,
                    added_at: 0,
                    text: text.to_string(),
                },
                decoded.shingles.clone(),
                Some(counts.clone()),
            )
            .with_tokens(decoded.tokens.clone(), decoded.places.clone());
            assert_eq!(stored.analysed_tokens(), Some(analyzed.tokens.clone()));
            let (shingles, tokens) = (decoded.shingles, decoded.tokens);
            assert_eq!(shingles, analyzed.shingles);
            let ranges = |tokens: &[Token]| -> Vec<(usize, usize)> {
                tokens.iter().map(|t| (t.start, t.end)).collect()
            };
            assert_eq!(ranges(&tokens), ranges(&analyzed.tokens), "{text}");
        }
    }

    #[test]
    fn a_damaged_term_sequence_is_rejected() {
        let counts = TermCounts::from_pairs([("a", 1), ("b", 1)]);
        // Three tokens, the last naming a third term.
        assert_eq!(
            decode_term_sequence(&[3, 0, 1, 2, 0, 1, 1, 1, 1, 1], &counts),
            None
        );
        // Cut short, and with bytes left over.
        assert_eq!(decode_term_sequence(&[2, 0, 1, 0, 1, 1], &counts), None);
        assert_eq!(decode_term_sequence(&[1, 0, 0, 1, 9], &counts), None);
        assert_eq!(decode_term_sequence(&[0x80], &counts), None);
        // Starts 0 and 3 (zigzag 0 and 6), lengths 1 and 1.
        let decoded = decode_term_sequence(&[2, 0, 1, 0, 6, 1, 1], &counts).unwrap();
        assert!(decoded.shingles.is_empty());
        assert_eq!(decoded.places, [0, 1]);
        assert_eq!(
            decoded
                .tokens
                .iter()
                .map(|t| (t.start, t.end))
                .collect::<Vec<_>>(),
            [(0, 1), (3, 4)]
        );
    }

    #[test]
    fn truncated_term_counts_are_rejected() {
        let encoded = encode_term_counts(&[("сигнатура".to_string(), 300)]);
        assert_eq!(decode_term_counts(&encoded[..encoded.len() - 1]), None);
        assert_eq!(decode_term_counts(&encoded[..3]), None);
        assert_eq!(decode_compact_counts(&encoded[..encoded.len() - 1]), None);
        assert_eq!(decode_compact_counts(&encoded[..3]), None);
    }
}
