//! How a document's analysis is kept in its stored fields: `term_counts` (each distinct term
//! with its count) and `term_seq` (each token's term and byte range), and the little-endian
//! shingles of documents written before the term sequence.
//!
//! Both fields are written in their second version and read in either. A second-version value
//! starts with [`MARK`] and [`VERSION`]: a first-version term sequence starting with a zero holds
//! no token and ends there, and first-version term counts starting with a zero would name an
//! empty term counted twice, which no analysis gives.
//!
//! The second version keeps each part of a value in its own run of numbers, the numbers small
//! where text makes them alike, so that the store's compression finds what repeats: on 10,000
//! synthetic full papers a paper's stored document went from ~47 KB to ~38.5 KB (benches/
//! RESULTS.md, "Full papers: the analysis kept in fewer bytes").

use dupfinder_text::analysis::{Token, shingle_sequence};
use rustc_hash::FxHashMap;

use super::document::TermCounts;
use super::woven::{Spellings, WOVEN, parse as parse_woven};

/// The first byte of a value in the second version.
const MARK: u8 = 0;
/// The second byte of a value in the second version.
const VERSION: u8 = 2;

/// Encodes term counts (sorted by term) for the `term_counts` stored field. After [`MARK`] and
/// [`VERSION`]: the number of terms; for each term the bytes it shares with the term before and
/// the number of its own bytes after them; all those own bytes one after another; each count.
/// Sorted terms share long beginnings (`signatur`, `signature`), so most of a term is a byte or
/// two of prefix length.
pub(crate) fn encode_term_counts(counts: &[(String, u32)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(counts.iter().map(|(t, _)| t.len() + 3).sum::<usize>() + 4);
    out.extend_from_slice(&[MARK, VERSION]);
    write_varint(&mut out, counts.len() as u64);
    let shared: Vec<usize> = std::iter::once(0)
        .chain(counts.windows(2).map(|pair| {
            let (a, b) = (pair[0].0.as_bytes(), pair[1].0.as_bytes());
            a.iter().zip(b).take_while(|(x, y)| x == y).count()
        }))
        .take(counts.len())
        .collect();
    for ((term, _), &shared) in counts.iter().zip(&shared) {
        write_varint(&mut out, shared as u64);
        write_varint(&mut out, (term.len() - shared) as u64);
    }
    for ((term, _), &shared) in counts.iter().zip(&shared) {
        out.extend_from_slice(&term.as_bytes()[shared..]);
    }
    for (_, count) in counts {
        write_varint(&mut out, u64::from(*count));
    }
    out
}

/// Decodes what [`encode_term_counts`] wrote (either version) into one buffer of terms.
pub(crate) fn decode_compact_counts(bytes: &[u8]) -> Option<TermCounts> {
    match bytes {
        [MARK, VERSION, rest @ ..] => decode_counts_v2(rest),
        _ => {
            let mut counts = TermCounts::with_capacity(bytes.len(), bytes.len() / 8);
            each_term_count_v1(bytes, |term, count| counts.push(term, count))?;
            Some(counts)
        }
    }
}

/// Decodes what [`encode_term_counts`] wrote (either version).
pub(crate) fn decode_term_counts(bytes: &[u8]) -> Option<Vec<(String, u32)>> {
    Some(decode_compact_counts(bytes)?.to_pairs())
}

/// The second version, each term built in one buffer from the one before it, the buffer checked
/// for UTF-8 once.
fn decode_counts_v2(mut bytes: &[u8]) -> Option<TermCounts> {
    let n = usize::try_from(read_varint(&mut bytes)?).ok()?;
    // Every term takes three bytes at least: a number beyond that is damage.
    if n > bytes.len() / 3 {
        return None;
    }
    let mut lengths = Vec::with_capacity(n);
    for _ in 0..n {
        let shared = usize::try_from(read_varint(&mut bytes)?).ok()?;
        let own = usize::try_from(read_varint(&mut bytes)?).ok()?;
        lengths.push((shared, own));
    }
    let own_bytes = lengths
        .iter()
        .try_fold(0usize, |sum, &(_, own)| sum.checked_add(own))?;
    if own_bytes > bytes.len() {
        return None;
    }
    let (mut suffixes, mut counts) = bytes.split_at(own_bytes);
    let mut terms: Vec<u8> = Vec::with_capacity(own_bytes * 2);
    let mut entries = Vec::with_capacity(n);
    let mut previous = 0..0;
    for (shared, own) in lengths {
        if shared > previous.len() {
            return None;
        }
        let start = terms.len();
        terms.extend_from_within(previous.start..previous.start + shared);
        let (suffix, rest) = suffixes.split_at(own);
        terms.extend_from_slice(suffix);
        suffixes = rest;
        previous = start..terms.len();
        let count = u32::try_from(read_varint(&mut counts)?).ok()?;
        entries.push((terms.len() as u32, count));
    }
    if !counts.is_empty() {
        return None;
    }
    TermCounts::from_parts(String::from_utf8(terms).ok()?, entries)
}

/// The first version: for each term its byte length, its bytes and its count.
fn each_term_count_v1(mut bytes: &[u8], mut each: impl FnMut(&str, u32)) -> Option<()> {
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

/// Encodes a document's tokens for the `term_seq` stored field. After [`MARK`] and [`VERSION`],
/// the number of tokens and three runs of numbers, one for each token:
/// - its term's rank among the document's terms by count, most counted first (ties in term
///   order), so that the frequent words of a text are its small numbers;
/// - the bytes from the end of the token before to its start (zigzag-signed: CJK bigrams
///   overlap), mostly a space;
/// - its length in bytes less its term's (zigzag-signed), mostly an ending the stemmer took off.
///
/// A full paper's ~5,000 tokens take about 3.7 bytes each before compression. They give back
/// both what verification compares (the shingles) and where each token is (the passages'
/// offsets), so that a source is never analyzed again.
pub(crate) fn encode_term_sequence(tokens: &[Token], counts: &[(String, u32)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(tokens.len() * 4 + 8);
    let places = write_ranks_and_gaps(&mut out, VERSION, tokens, counts);
    for (token, &place) in tokens.iter().zip(&places) {
        let term_len = counts.get(place as usize).map_or(0, |(term, _)| term.len());
        write_varint(
            &mut out,
            zigzag(token.end as i64 - token.start as i64 - term_len as i64),
        );
    }
    out
}

/// Writes what the second and third versions of a term sequence begin with: [`MARK`],
/// `version`, the number of tokens, each token's term's rank among the document's terms by
/// count (most counted first, ties in term order: the frequent words of a text are its small
/// numbers), then the bytes from the end of each token before to its start (zigzag-signed: CJK
/// bigrams overlap), mostly a space. Returns each token's term's place in `counts`.
pub(super) fn write_ranks_and_gaps(
    out: &mut Vec<u8>,
    version: u8,
    tokens: &[Token],
    counts: &[(String, u32)],
) -> Vec<u32> {
    let by_rank = ranked_places(&counts.iter().map(|(_, count)| *count).collect::<Vec<_>>());
    let mut rank_of = vec![0u32; counts.len()];
    for (rank, &place) in by_rank.iter().enumerate() {
        rank_of[place as usize] = rank as u32;
    }
    // Every term of the text is in its own counts. A full paper's ~5,000 tokens find their
    // terms by hash: bisecting ~1,500 terms compared strings for a twentieth of an import.
    let place_of: FxHashMap<&str, u32> = counts
        .iter()
        .enumerate()
        .map(|(place, (term, _))| (term.as_str(), place as u32))
        .collect();
    let places: Vec<u32> = tokens
        .iter()
        .map(|token| {
            place_of
                .get(token.term.as_str())
                .copied()
                .unwrap_or_default()
        })
        .collect();
    out.extend_from_slice(&[MARK, version]);
    write_varint(out, tokens.len() as u64);
    for &place in &places {
        write_varint(
            out,
            rank_of
                .get(place as usize)
                .copied()
                .unwrap_or_default()
                .into(),
        );
    }
    let mut end = 0i64;
    for token in tokens {
        write_varint(out, zigzag(token.start as i64 - end));
        end = token.end as i64;
    }
    places
}

/// Reads back what [`write_ranks_and_gaps`] wrote after the version: the number of tokens, each
/// token's term's place in `counts`, and the run of gaps (left unread, `bytes` moved past it).
pub(super) fn read_ranks_and_gaps<'a>(
    bytes: &mut &'a [u8],
    counts: &TermCounts,
) -> Option<(Vec<u32>, &'a [u8])> {
    let n = token_count(bytes)?;
    let by_rank = ranked_places(&counts.counts().collect::<Vec<_>>());
    let mut places = Vec::with_capacity(n);
    for _ in 0..n {
        let rank = usize::try_from(read_varint(bytes)?).ok()?;
        places.push(*by_rank.get(rank)?);
    }
    let gaps = *bytes;
    for _ in 0..n {
        read_varint(bytes)?;
    }
    Some((places, &gaps[..gaps.len() - bytes.len()]))
}

/// Each term's place (in term order), most counted first, ties in term order: a counting sort,
/// since a check ranks the terms of every source it reads.
fn ranked_places(counts: &[u32]) -> Vec<u32> {
    let Some(&most) = counts.iter().max() else {
        return Vec::new();
    };
    let most = most as usize;
    if most > 4 * counts.len() + 1024 {
        // A few terms counted very often (never in an analysed text): sort them.
        let mut keyed: Vec<u64> = counts
            .iter()
            .enumerate()
            .map(|(place, &count)| u64::from(u32::MAX - count) << 32 | place as u64)
            .collect();
        keyed.sort_unstable();
        return keyed.into_iter().map(|key| key as u32).collect();
    }
    // The first rank of each count: the number of terms counted more.
    let mut first = vec![0u32; most + 1];
    for &count in counts {
        first[count as usize] += 1;
    }
    let mut ranked = 0;
    for slot in first.iter_mut().rev() {
        let with_count = *slot;
        *slot = ranked;
        ranked += with_count;
    }
    let mut by_rank = vec![0u32; counts.len()];
    for (place, &count) in counts.iter().enumerate() {
        let rank = &mut first[count as usize];
        by_rank[*rank as usize] = place as u32;
        *rank += 1;
    }
    by_rank
}

/// A stored document's tokens as [`encode_term_sequence`] kept them (either version): the
/// shingles hashed from the terms three by three (exactly as the analysis hashed them), and
/// each token's byte range in the text. `None` when the bytes do not decode or name a term
/// `counts` lacks.
pub(crate) fn decode_term_sequence(bytes: &[u8], counts: &TermCounts) -> Option<DecodedSequence> {
    let (places, tokens, spellings) = match bytes {
        [MARK, VERSION, rest @ ..] => with_no_text(decode_tokens_v2(rest, counts)?),
        [MARK, WOVEN, rest @ ..] => {
            let woven = parse_woven(rest, counts)?;
            (woven.places, woven.tokens, Some(woven.spellings))
        }
        _ => with_no_text(decode_tokens_v1(bytes)?),
    };
    let shingles = shingle_sequence(
        places
            .iter()
            .map(|&place| counts.get(place as usize).map(|(term, _)| term))
            .collect::<Option<Vec<_>>>()?,
    );
    Some(DecodedSequence {
        shingles,
        tokens,
        places,
        spellings,
    })
}

fn with_no_text(
    (places, tokens): (Vec<u32>, Vec<Token>),
) -> (Vec<u32>, Vec<Token>, Option<Spellings>) {
    (places, tokens, None)
}

/// The text a term sequence carries: `Some` for the third version (whose documents keep no text
/// field), `Some(None)` for the versions before it, `None` when a third-version value does not
/// decode.
pub(crate) fn woven_text(bytes: &[u8], counts: &TermCounts) -> Option<Option<String>> {
    match bytes {
        [MARK, WOVEN, rest @ ..] => {
            let woven = parse_woven(rest, counts)?;
            let text = woven.spellings.text(&woven.tokens, counts)?;
            Some(Some(text))
        }
        _ => Some(None),
    }
}

/// The number of tokens a term sequence announces, when its bytes can hold them: every token
/// takes three bytes at least, and a number beyond that is damage.
pub(super) fn token_count(bytes: &mut &[u8]) -> Option<usize> {
    let n = usize::try_from(read_varint(bytes)?).ok()?;
    (n <= bytes.len() / 3).then_some(n)
}

/// A token with its byte range and position, its term left empty.
pub(super) fn ranged(position: usize, start: i64, end: i64) -> Option<Token> {
    let (start, end) = (usize::try_from(start).ok()?, usize::try_from(end).ok()?);
    (start <= end).then(|| Token {
        term: String::new(),
        position: position as u32,
        start,
        end,
    })
}

fn decode_tokens_v2(mut bytes: &[u8], counts: &TermCounts) -> Option<(Vec<u32>, Vec<Token>)> {
    let (places, mut gaps) = read_ranks_and_gaps(&mut bytes, counts)?;
    let mut end = 0i64;
    let mut tokens = Vec::with_capacity(places.len());
    for (position, &place) in places.iter().enumerate() {
        let start = end.checked_add(unzigzag(read_varint(&mut gaps)?))?;
        let term_len = counts.term_len(place as usize)? as i64;
        end = start
            .checked_add(term_len)?
            .checked_add(unzigzag(read_varint(&mut bytes)?))?;
        tokens.push(ranged(position, start, end)?);
    }
    bytes.is_empty().then_some((places, tokens))
}

/// The first version: each token's term as its place in the counts, then each token's start
/// from the start of the one before (zigzag-signed), then each token's length.
fn decode_tokens_v1(mut bytes: &[u8]) -> Option<(Vec<u32>, Vec<Token>)> {
    let n = token_count(&mut bytes)?;
    let mut places = Vec::with_capacity(n);
    for _ in 0..n {
        places.push(u32::try_from(read_varint(&mut bytes)?).ok()?);
    }
    let mut starts = Vec::with_capacity(n);
    let mut start = 0i64;
    for _ in 0..n {
        start = start.checked_add(unzigzag(read_varint(&mut bytes)?))?;
        starts.push(start);
    }
    let mut tokens = Vec::with_capacity(n);
    for (position, start) in starts.into_iter().enumerate() {
        let end = start.checked_add(i64::try_from(read_varint(&mut bytes)?).ok()?)?;
        tokens.push(ranged(position, start, end)?);
    }
    bytes.is_empty().then_some((places, tokens))
}

/// Each token's term as its place in `counts`, read from a term sequence of any version and
/// nothing else of it: what a phrase's order is checked against. `None` when the bytes do not
/// decode.
pub(crate) fn term_places(bytes: &[u8], counts: &TermCounts) -> Option<Vec<u32>> {
    match bytes {
        [MARK, VERSION | WOVEN, rest @ ..] => {
            let mut rest = rest;
            read_ranks_and_gaps(&mut rest, counts).map(|(places, _)| places)
        }
        _ => decode_tokens_v1(bytes).map(|(places, _)| places),
    }
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
    /// What spells the document's text, when the sequence carries it (the third version).
    pub(crate) spellings: Option<Spellings>,
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

/// Appends `value` as a LEB128 varint: seven bits a byte, low first, the high bit set on every
/// byte but the last.
pub(crate) fn write_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// A signed number as an unsigned one, small magnitudes small: 0, -1, 1, -2 … as 0, 1, 2, 3 ….
pub(super) fn zigzag(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

pub(super) fn unzigzag(value: u64) -> i64 {
    ((value >> 1) as i64) ^ -((value & 1) as i64)
}

/// Reads a LEB128 varint off the front of `bytes`; `None` when it runs off the end or past 64
/// bits.
pub(crate) fn read_varint(bytes: &mut &[u8]) -> Option<u64> {
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
    use crate::index::document::{DocumentMeta, StoredDocument, StoredForCheck};
    use proptest::prelude::*;

    /// Term counts as the first version wrote them.
    fn term_counts_v1(counts: &[(String, u32)]) -> Vec<u8> {
        let mut out = Vec::new();
        for (term, count) in counts {
            write_varint(&mut out, term.len() as u64);
            out.extend_from_slice(term.as_bytes());
            write_varint(&mut out, u64::from(*count));
        }
        out
    }

    /// A term sequence as the first version wrote it.
    fn term_sequence_v1(tokens: &[Token], counts: &[(String, u32)]) -> Vec<u8> {
        let mut out = Vec::new();
        write_varint(&mut out, tokens.len() as u64);
        for token in tokens {
            let place = counts
                .binary_search_by(|(t, _)| t.as_str().cmp(&token.term))
                .unwrap();
            write_varint(&mut out, place as u64);
        }
        let mut start = 0i64;
        for token in tokens {
            write_varint(&mut out, zigzag(token.start as i64 - start));
            start = token.start as i64;
        }
        for token in tokens {
            write_varint(&mut out, (token.end - token.start) as u64);
        }
        out
    }

    fn check_counts(encoded: &[u8], counts: &[(String, u32)]) -> Result<(), TestCaseError> {
        prop_assert_eq!(decode_term_counts(encoded), Some(counts.to_vec()));
        let compact = decode_compact_counts(encoded).unwrap();
        prop_assert_eq!(compact.to_pairs(), counts.to_vec());
        prop_assert_eq!(compact.len(), counts.len());
        for (place, (term, count)) in counts.iter().enumerate() {
            prop_assert_eq!(compact.get(place), Some((term.as_str(), *count)));
        }
        prop_assert_eq!(compact.get(counts.len()), None);
        prop_assert_eq!(TermCounts::from(counts), compact);
        Ok(())
    }

    proptest! {
        #[test]
        fn term_counts_round_trip(mut counts in proptest::collection::vec(("\\PC{0,20}", any::<u32>()), 0..50)) {
            check_counts(&encode_term_counts(&counts), &counts)?;
            // Sorted, as the analysis gives them: terms share their beginnings.
            counts.sort();
            check_counts(&encode_term_counts(&counts), &counts)?;
        }

        #[test]
        fn first_version_term_counts_are_read(counts in proptest::collection::vec(("\\PC{0,20}", any::<u32>()), 0..50)) {
            let encoded = term_counts_v1(&counts);
            // An empty term counted twice would read as the second version; no analysis gives it.
            prop_assume!(!encoded.starts_with(&[MARK, VERSION]));
            check_counts(&encoded, &counts)?;
        }
    }

    fn analysed(text: &str) -> dupfinder_text::analysis::AnalyzedText {
        let limits = dupfinder_text::analysis::TextLimits {
            max_bytes: 1 << 20,
            min_words: 1,
        };
        dupfinder_text::analysis::analyze_text(
            &crate::index::default_analyzer(),
            text,
            None,
            limits,
        )
        .unwrap()
    }

    const TEXTS: [&str; 4] = [
        "Метод шинглов сравнивает тексты по последовательностям из трёх слов, а метод \
         сигнатур — по наиболее значимым словам документа. Метод шинглов устойчив.",
        "Shingles of three words compare texts; signatures compare their most telling \
         words, and the shingles of a copied run are shared by both texts.",
        "  «Кавычки», числа 3,14 и e-mail: a@b.ru; переносы сло-\nва и ﬁ лигатуры.",
        "本研究探讨了稻田养鸭模式对水稻产量和土壤质量的影响。Mixed 文本 and 漢字.",
    ];

    /// Verification hashes a stored document's shingles from its term sequence and places its
    /// passages by the token ranges kept with it: they must be the very shingles and ranges the
    /// analysis gave, or copied passages would be missed or misplaced. Both versions.
    #[test]
    fn the_term_sequence_gives_back_the_analysed_shingles_and_token_ranges() {
        for text in TEXTS {
            let analyzed = analysed(text);
            let counts = TermCounts::from(&analyzed.term_counts[..]);
            for bytes in [
                encode_term_sequence(&analyzed.tokens, &analyzed.term_counts),
                term_sequence_v1(&analyzed.tokens, &analyzed.term_counts),
            ] {
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
                assert_eq!(decoded.shingles, analyzed.shingles);
                let ranges = |tokens: &[Token]| -> Vec<(usize, usize)> {
                    tokens.iter().map(|t| (t.start, t.end)).collect()
                };
                assert_eq!(ranges(&decoded.tokens), ranges(&analyzed.tokens), "{text}");
            }
        }
    }

    /// The second version's ranks put a text's most counted term first.
    #[test]
    fn a_term_is_kept_as_its_rank_by_count() {
        let counts = [
            ("a".to_string(), 1),
            ("b".to_string(), 3),
            ("c".to_string(), 1),
        ];
        assert_eq!(ranked_places(&[1, 3, 1]), [1, 0, 2]);
        // The counting sort and the sort for very large counts agree.
        let large = [1, 5000, 2, 1, 5000, 7];
        assert_eq!(ranked_places(&large), [1, 4, 5, 2, 0, 3]);
        assert_eq!(ranked_places(&[1, 50, 2, 1, 50, 7]), [1, 4, 5, 2, 0, 3]);
        let token = |term: &str, start, end| Token {
            term: term.to_string(),
            position: 0,
            start,
            end,
        };
        // "bb a, bbb": b's rank 0, a's 1; gaps 0, 1, 2; lengths less the terms' 1, 0, 2.
        let tokens = [token("b", 0, 2), token("a", 3, 4), token("b", 6, 9)];
        let bytes = encode_term_sequence(&tokens, &counts);
        assert_eq!(bytes, [MARK, VERSION, 3, 0, 1, 0, 0, 2, 4, 2, 0, 4]);
        let decoded = decode_term_sequence(&bytes, &TermCounts::from(&counts[..])).unwrap();
        assert_eq!(decoded.places, [1, 0, 1]);
    }

    #[test]
    fn a_damaged_term_sequence_is_rejected() {
        let counts = TermCounts::from_pairs([("a", 1), ("b", 1)]);
        // First version: three tokens, the last naming a third term.
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
        // Second version: a rank past the terms; a token ending before it starts.
        assert_eq!(
            decode_term_sequence(&[MARK, VERSION, 1, 2, 0, 0], &counts),
            None
        );
        assert_eq!(
            decode_term_sequence(&[MARK, VERSION, 1, 0, 0, 3], &counts),
            None
        );
        // Every second-version sequence cut short is rejected (but a lone zero: no token).
        let analyzed = analysed(TEXTS[0]);
        let counts = TermCounts::from(&analyzed.term_counts[..]);
        let bytes = encode_term_sequence(&analyzed.tokens, &analyzed.term_counts);
        for cut in 2..bytes.len() {
            assert_eq!(decode_term_sequence(&bytes[..cut], &counts), None, "{cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(decode_term_sequence(&longer, &counts), None);
    }

    #[test]
    fn damaged_term_counts_are_rejected() {
        let counts = [("сигнатура".to_string(), 300), ("сигнатуры".to_string(), 2)];
        for encoded in [term_counts_v1(&counts[..1]), encode_term_counts(&counts)] {
            for cut in 1..encoded.len() {
                assert_eq!(decode_term_counts(&encoded[..cut]), None, "{cut}");
                assert_eq!(decode_compact_counts(&encoded[..cut]), None, "{cut}");
            }
        }
        // A term sharing more bytes than the one before has; a term cut inside a letter.
        assert_eq!(decode_term_counts(&[MARK, VERSION, 1, 1, 1, b'a', 1]), None);
        assert_eq!(decode_term_counts(&[MARK, VERSION, 1, 0, 1, 0xd1, 1]), None);
    }
}
