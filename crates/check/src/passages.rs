//! Copied passages: chains of shingles two texts share, tolerant of edited words, mapped back to
//! code point offsets in both texts.

use std::collections::HashSet;

use serde::Serialize;

use dupfinder_text::analysis::{SHINGLE_WORDS, Span, Token};

/// One copied passage, in both texts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PassageMatch {
    pub query: Span,
    pub doc: Span,
    /// Analyzed words (terms) of the query in the passage.
    pub words: usize,
    /// Shingles the two texts share in the passage.
    pub shared_shingles: usize,
    /// What the passage is (copied, quoted, bibliography, …).
    pub kind: super::PassageKind,
    /// For a quoted passage: whether a citation stands next to the quotation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cited: Option<bool>,
    /// A passage aligned across languages: the query translates the document's text.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub translated: bool,
}

/// Bytes between two checkpoints of [`CharOffsets`].
const CHECKPOINT_BYTES: usize = 256;

/// Converts byte offsets of one text into code point offsets. The code points before every
/// [`CHECKPOINT_BYTES`]-th byte are counted once, in one pass over the text, so that each
/// offset costs at most one checkpoint's bytes whatever its position: a long text with many
/// passages stays linear.
pub(super) struct CharOffsets<'a> {
    text: &'a str,
    /// `before[k]`: the code points that start in the first `k * CHECKPOINT_BYTES` bytes.
    before: Vec<usize>,
    /// Bytes of text examined so far, for tests that bound the work.
    #[cfg(test)]
    examined: std::cell::Cell<usize>,
}

/// Code points that start in `bytes` (every byte but UTF-8 continuation bytes).
fn code_points(bytes: &[u8]) -> usize {
    bytes.iter().filter(|b| (**b & 0xc0) != 0x80).count()
}

impl<'a> CharOffsets<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        let mut before = Vec::with_capacity(text.len() / CHECKPOINT_BYTES + 1);
        before.push(0);
        let mut count = 0;
        for chunk in text.as_bytes().chunks(CHECKPOINT_BYTES) {
            count += code_points(chunk);
            before.push(count);
        }
        CharOffsets {
            text,
            before,
            #[cfg(test)]
            examined: std::cell::Cell::new(text.len()),
        }
    }

    /// The code point offset of byte offset `byte`; an offset inside a character counts as
    /// the start of that character.
    pub(super) fn of(&self, byte: usize) -> usize {
        let mut byte = byte.min(self.text.len());
        while !self.text.is_char_boundary(byte) {
            byte -= 1;
        }
        let checkpoint = byte / CHECKPOINT_BYTES;
        let from = checkpoint * CHECKPOINT_BYTES;
        #[cfg(test)]
        self.examined.set(self.examined.get() + (byte - from));
        self.before[checkpoint] + code_points(&self.text.as_bytes()[from..byte])
    }
}

/// A chain of shared shingles along one diagonal of the query × document grid: a copied
/// passage in shingle positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Chain {
    /// (query position, document position) of the first and last shared shingle.
    pub(super) first: (usize, usize),
    pub(super) last: (usize, usize),
    /// Shared shingles in the chain.
    pub(super) matched: usize,
    /// Whether the chain holds a shingle the query's lookup selected that is not library
    /// boilerplate: the evidence the verdict was based on.
    supported: bool,
}

impl Chain {
    /// The query tokens the passage covers.
    pub(super) fn query_tokens(&self) -> std::ops::Range<usize> {
        self.first.0..self.last.0 + SHINGLE_WORDS
    }
}

/// The query's shingles indexed by hash, made once for all the sources a check compares it
/// with: a source's shingles are then looked up in text order, never sorted.
pub(super) struct QueryShingles<'a> {
    shingles: &'a [u64],
    /// Every shingle with its position, sorted: the positions of a hash are one contiguous run.
    by_hash: Vec<(u64, u32)>,
    /// A bit per low 16 bits of a hash the query holds: most of a source's shingles are not the
    /// query's, and one look tells most of them apart before a binary search.
    held: Vec<u64>,
}

/// The most source positions a query position is aligned with: a shingle a text repeats more
/// often than this (a repeated line, a table of numbers) adds nothing to a passage.
const MAX_ALIGNED: u8 = 16;

impl<'a> QueryShingles<'a> {
    pub(super) fn new(shingles: &'a [u64]) -> Self {
        let mut by_hash: Vec<(u64, u32)> = shingles.iter().copied().zip(0..).collect();
        by_hash.sort_unstable();
        let mut held = vec![0u64; 1 << 10];
        for &hash in shingles {
            let (word, mask) = Self::bit(hash);
            held[word] |= mask;
        }
        QueryShingles {
            shingles,
            by_hash,
            held,
        }
    }

    fn bit(hash: u64) -> (usize, u64) {
        ((hash >> 6) as usize & ((1 << 10) - 1), 1u64 << (hash & 63))
    }

    /// The (query position, source position) pairs of equal shingles, sorted: each query
    /// position with the first [`MAX_ALIGNED`] source positions of its shingle.
    fn aligned(&self, doc: &[u64]) -> Vec<(usize, usize)> {
        // How many source occurrences each query hash (the start of its run) has been paired
        // with: the i-th occurrence pairs with every query position of the run.
        let mut occurrences = vec![0u8; self.by_hash.len()];
        let mut pairs = Vec::new();
        for (d, &hash) in doc.iter().enumerate() {
            let (word, mask) = Self::bit(hash);
            if self.held[word] & mask == 0 {
                continue;
            }
            let from = self.by_hash.partition_point(|&(h, _)| h < hash);
            let run = self.by_hash[from..].partition_point(|&(h, _)| h == hash);
            if run == 0 || occurrences[from] >= MAX_ALIGNED {
                continue;
            }
            occurrences[from] += 1;
            pairs.extend(
                self.by_hash[from..from + run]
                    .iter()
                    .map(|&(_, q)| (q as usize, d)),
            );
        }
        pairs.sort_unstable();
        pairs
    }
}

/// Finds the passages two texts share, on all their shingles (not only the sample), given as
/// the shingle starting at each token position: chains of shared shingles where both texts
/// advance by at most `max_gap` positions between links, so an edited word or two does not
/// break a passage. Chains shorter than `min_shingles`, and chains holding none of the query's
/// `selected` shingles (sorted) but library boilerplate (`frequent` ones), are not passages.
/// Under winnowing a chain of [`WINNOW_WINDOW`](dupfinder_text::analysis::WINNOW_WINDOW)
/// consecutive shared shingles always holds a selected one.
pub(super) fn chains(
    query: &QueryShingles<'_>,
    doc: &[u64],
    selected: &[u64],
    frequent: &HashSet<u64>,
    max_gap: usize,
    min_shingles: usize,
) -> Vec<Chain> {
    let pairs = query.aligned(doc);
    let mut open: Vec<Chain> = Vec::new();
    let mut done: Vec<Chain> = Vec::new();
    // The pairs of one query position at a time, in query order.
    for ds in pairs.chunk_by(|a, b| a.0 == b.0) {
        let q = ds[0].0;
        let hash = &query.shingles[q];
        let evidence = selected.binary_search(hash).is_ok() && !frequent.contains(hash);
        // Chains that can no longer be extended are finished.
        let mut i = 0;
        while i < open.len() {
            if q > open[i].last.0 + max_gap {
                done.push(open.swap_remove(i));
            } else {
                i += 1;
            }
        }
        for &(_, d) in ds {
            let best = open
                .iter_mut()
                .filter(|c| c.last.0 < q && c.last.1 < d && d <= c.last.1 + max_gap)
                .min_by_key(|c| (q - c.last.0) + (d - c.last.1));
            match best {
                Some(chain) => {
                    chain.last = (q, d);
                    chain.matched += 1;
                    chain.supported |= evidence;
                }
                None => open.push(Chain {
                    first: (q, d),
                    last: (q, d),
                    matched: 1,
                    supported: evidence,
                }),
            }
        }
    }
    done.extend(open);
    done.retain(|c| c.matched >= min_shingles && c.supported);
    consolidate(done, max_gap)
}

/// One passage per copied case. Text the source repeats gives the query's words a chain on
/// each occurrence: of chains that cover mostly the same query words, the longest (the
/// occurrence that extends into the longest consistent alignment) is kept. Then neighbours in
/// both texts whose gap is small next to their length (words edited more densely than
/// `max_gap` bridges) become one passage. Chains come back in query order.
fn consolidate(mut chains: Vec<Chain>, max_gap: usize) -> Vec<Chain> {
    chains.sort_by_key(|c| (std::cmp::Reverse(c.matched), c.first));
    let mut kept: Vec<Chain> = Vec::with_capacity(chains.len());
    for chain in chains {
        let span = chain.first.0..chain.last.0 + 1;
        let overlap: usize = kept
            .iter()
            .map(|k| {
                let (start, end) = (span.start.max(k.first.0), span.end.min(k.last.0 + 1));
                end.saturating_sub(start)
            })
            .sum();
        if overlap * 2 <= span.len() {
            kept.push(chain);
        }
    }
    kept.sort_by_key(|c| c.first);
    let mut merged: Vec<Chain> = Vec::with_capacity(kept.len());
    for chain in kept {
        match merged.last_mut() {
            Some(last) if bridges(last, &chain, max_gap) => {
                last.last = chain.last;
                last.matched += chain.matched;
                last.supported |= chain.supported;
            }
            _ => merged.push(chain),
        }
    }
    merged
}

/// Whether `next` continues `previous` in both texts after a gap short next to the two
/// chains (at most an eighth of their shared shingles, and never less than `max_gap`) and on
/// about the same diagonal (the texts' offsets drift by at most `max_gap`).
fn bridges(previous: &Chain, next: &Chain, max_gap: usize) -> bool {
    let (q_gap, d_gap) = (
        next.first.0.checked_sub(previous.last.0),
        next.first.1.checked_sub(previous.last.1),
    );
    let (Some(q_gap), Some(d_gap)) = (q_gap, d_gap) else {
        return false;
    };
    let allowed = max_gap.max((previous.matched + next.matched) / 8);
    q_gap > 0
        && d_gap > 0
        && q_gap <= allowed
        && d_gap <= allowed
        && q_gap.abs_diff(d_gap) <= max_gap
}

/// One side of an alignment: the text and its tokens (with byte offsets).
pub(super) struct Side<'a> {
    pub(super) text: &'a str,
    pub(super) tokens: &'a [Token],
}

/// The chains as passages with code point offsets in both texts. A passage begins and ends at
/// the words analysis keeps, and then takes in the words it drops (stop words, one-letter words,
/// numbers) that stand next to it alike in both texts: a copy of "В докладе" is marked from
/// "В", not from "докладе".
pub(super) fn passages(chains: &[Chain], query: &Side<'_>, doc: &Side<'_>) -> Vec<PassageMatch> {
    let (query_chars, doc_chars) = (CharOffsets::new(query.text), CharOffsets::new(doc.text));
    chains
        .iter()
        .filter(|c| c.last.0 < query.tokens.len() && c.last.1 < doc.tokens.len())
        .map(|c| {
            let q_end = (c.last.0 + SHINGLE_WORDS - 1).min(query.tokens.len() - 1);
            let d_end = (c.last.1 + SHINGLE_WORDS - 1).min(doc.tokens.len() - 1);
            let (q_start, d_start) = widen_back(
                (
                    query.text,
                    query.floor(c.first.0),
                    query.tokens[c.first.0].start,
                ),
                (doc.text, doc.floor(c.first.1), doc.tokens[c.first.1].start),
            );
            let (q_stop, d_stop) = widen_forward(
                (query.text, query.tokens[q_end].end, query.ceiling(q_end)),
                (doc.text, doc.tokens[d_end].end, doc.ceiling(d_end)),
            );
            PassageMatch {
                query: Span {
                    start: query_chars.of(q_start),
                    end: query_chars.of(q_stop),
                },
                doc: Span {
                    start: doc_chars.of(d_start),
                    end: doc_chars.of(d_stop),
                },
                words: q_end + 1 - c.first.0,
                shared_shingles: c.matched,
                kind: super::PassageKind::Copied,
                translated: false,
                cited: None,
            }
        })
        .collect()
}

impl Side<'_> {
    /// Where the text before token `i` begins: the end of the token before it.
    fn floor(&self, i: usize) -> usize {
        i.checked_sub(1).map_or(0, |before| self.tokens[before].end)
    }

    /// Where the text after token `i` ends: the start of the token after it.
    fn ceiling(&self, i: usize) -> usize {
        self.tokens.get(i + 1).map_or(self.text.len(), |t| t.start)
    }
}

/// A side's text, and the bytes `from..to` of it between two kept tokens.
type Gap<'a> = (&'a str, usize, usize);

/// The last word of `gap` and where it starts, when only white space follows it.
fn last_word(gap: &str) -> Option<(usize, &str)> {
    let trimmed = gap.trim_end();
    if trimmed.len() == gap.len() {
        return None;
    }
    let start = trimmed
        .char_indices()
        .rev()
        .find(|(_, c)| !c.is_alphanumeric())
        .map_or(0, |(i, c)| i + c.len_utf8());
    (start < trimmed.len()).then(|| (start, &trimmed[start..]))
}

/// The first word of `gap` and where it ends, when only white space precedes it.
fn first_word(gap: &str) -> Option<(usize, &str)> {
    let trimmed = gap.trim_start();
    if trimmed.len() == gap.len() {
        return None;
    }
    let end = trimmed
        .find(|c: char| !c.is_alphanumeric())
        .unwrap_or(trimmed.len());
    let skipped = gap.len() - trimmed.len();
    (end > 0).then(|| (skipped + end, &trimmed[..end]))
}

fn same_word(a: &str, b: &str) -> bool {
    a.chars()
        .flat_map(char::to_lowercase)
        .eq(b.chars().flat_map(char::to_lowercase))
}

/// The passage's starts moved back over the dropped words before them that both texts share.
fn widen_back(
    (q_text, q_floor, q_start): Gap<'_>,
    (d_text, d_floor, d_start): Gap<'_>,
) -> (usize, usize) {
    let (mut q, mut d) = (q_start, d_start);
    while let (Some((qs, qw)), Some((ds, dw))) = (
        last_word(&q_text[q_floor..q]),
        last_word(&d_text[d_floor..d]),
    ) {
        if !same_word(qw, dw) {
            break;
        }
        (q, d) = (q_floor + qs, d_floor + ds);
    }
    (q, d)
}

/// The passage's ends moved forward over the dropped words after them that both texts share.
fn widen_forward(
    (q_text, q_end, q_ceiling): Gap<'_>,
    (d_text, d_end, d_ceiling): Gap<'_>,
) -> (usize, usize) {
    let (mut q, mut d) = (q_end, d_end);
    while let (Some((qe, qw)), Some((de, dw))) = (
        first_word(&q_text[q..q_ceiling]),
        first_word(&d_text[d..d_ceiling]),
    ) {
        if !same_word(qw, dw) {
            break;
        }
        (q, d) = (q + qe, d + de);
    }
    (q, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shingle hashes `from..to`.
    fn shingles(range: std::ops::Range<u64>) -> Vec<u64> {
        range.collect()
    }

    /// Each query position paired with the first source positions of its shingle, in order,
    /// whatever the texts repeat: random texts over a few hashes (so runs longer than
    /// `MAX_ALIGNED` on both sides) and over many (hashes that collide in the bit filter).
    #[test]
    fn a_query_position_is_paired_with_the_first_source_positions_of_its_shingle() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |below: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) % below
        };
        for round in 0..200 {
            let alphabet = [3, 40, 1 << 20, 1 << 40][round % 4];
            let (q_len, d_len) = (next(300) as usize, next(300) as usize);
            let query: Vec<u64> = (0..q_len).map(|_| next(alphabet)).collect();
            let doc: Vec<u64> = (0..d_len).map(|_| next(alphabet)).collect();
            let expected: Vec<(usize, usize)> = query
                .iter()
                .enumerate()
                .flat_map(|(q, h)| {
                    doc.iter()
                        .enumerate()
                        .filter(move |(_, d)| *d == h)
                        .take(MAX_ALIGNED as usize)
                        .map(move |(d, _)| (q, d))
                })
                .collect();
            assert_eq!(
                QueryShingles::new(&query).aligned(&doc),
                expected,
                "round {round}"
            );
        }
    }

    /// Every shingle of `query` selected: each one counts as evidence.
    fn every(query: &[u64]) -> Vec<u64> {
        let mut all = query.to_vec();
        all.sort_unstable();
        all.dedup();
        all
    }

    fn query_spans(chains: &[Chain]) -> Vec<(usize, usize)> {
        chains.iter().map(|c| (c.first.0, c.last.0)).collect()
    }

    /// A source that repeats a sentence gave the query's copy of it a second chain on the
    /// other occurrence: two detections of one copied case.
    #[test]
    fn text_the_source_repeats_is_aligned_once_to_the_occurrence_of_the_longest_alignment() {
        let query = shingles(1..41);
        // The source: 10..20 on its own, unrelated text, then the whole copy 1..41.
        let mut doc = shingles(10..20);
        doc.extend(shingles(500..530));
        doc.extend(shingles(1..41));
        let found = chains(
            &QueryShingles::new(&query),
            &doc,
            &every(&query),
            &HashSet::new(),
            6,
            5,
        );
        assert_eq!(query_spans(&found), [(0, 39)]);
        assert_eq!(found[0].first.1, 40, "aligned to the long occurrence");
        assert_eq!(found[0].matched, 40);
    }

    /// Words edited more densely than the gap bridges split one copied case in two.
    #[test]
    fn a_dense_edit_inside_a_long_copy_does_not_split_it() {
        let mut query = shingles(1..101);
        let mut doc = shingles(1..101);
        // Ten edited shingles in the middle of each side (different on the two sides).
        for (i, h) in (45..55).enumerate() {
            query[h] = 900 + i as u64;
            doc[h] = 950 + i as u64;
        }
        let found = chains(
            &QueryShingles::new(&query),
            &doc,
            &every(&query),
            &HashSet::new(),
            6,
            5,
        );
        assert_eq!(query_spans(&found), [(0, 99)]);
        assert_eq!(found[0].matched, 90);
    }

    /// Two short copies far apart, or copied out of order, stay two passages.
    #[test]
    fn separate_copies_stay_separate() {
        let mut query = shingles(1..11);
        query.extend(shingles(600..640));
        query.extend(shingles(21..31));
        let mut doc = shingles(21..31);
        doc.extend(shingles(700..705));
        doc.extend(shingles(1..11));
        let found = chains(
            &QueryShingles::new(&query),
            &doc,
            &every(&query),
            &HashSet::new(),
            6,
            5,
        );
        assert_eq!(query_spans(&found), [(0, 9), (50, 59)]);
    }

    /// Highlights began a word late: "В |докладе", "8 |декабря" — the stop word or number
    /// before the first kept word was left out although both texts have it.
    #[test]
    fn a_passage_takes_in_the_dropped_words_both_texts_share_at_its_ends() {
        let query = "Итак. В докладе 8 декабря был отчёт, а потом";
        let doc = "Раньше: в докладе 8 декабря был отчёт, и потом";
        let q = query.find("докладе").unwrap();
        let d = doc.find("докладе").unwrap();
        let (qs, ds) = widen_back(
            (query, query.find('.').unwrap(), q),
            (doc, doc.find(':').unwrap(), d),
        );
        assert_eq!(&query[qs..q], "В ");
        assert_eq!(&doc[ds..d], "в ");
        // A word only one text has stops the widening.
        let other = "Раньше: на докладе";
        let (qs, _) = widen_back((query, 0, q), (other, 0, other.find("докладе").unwrap()));
        assert_eq!(qs, q);
        // Forward: "а" and "и" differ, so the end stays; shared trailing words are taken in.
        let qe = query.find("отчёт").unwrap() + "отчёт".len();
        let de = doc.find("отчёт").unwrap() + "отчёт".len();
        assert_eq!(
            widen_forward((query, qe, query.len()), (doc, de, doc.len())),
            (qe, de)
        );
        let (a, b) = ("слова и 5", "слова и 5");
        assert_eq!(
            widen_forward((a, 10, a.len()), (b, 10, b.len())),
            (a.len(), b.len())
        );
    }

    #[test]
    fn char_offsets_count_code_points() {
        let text = "ёж и 𝔸 ok";
        let offsets = CharOffsets::new(text);
        let ok = text.find("ok").unwrap();
        assert_eq!(offsets.of(ok), 7);
        // Inside the two-byte `ё`: the character's start.
        assert_eq!(offsets.of(1), 0);
        assert_eq!(offsets.of(10_000), text.chars().count());
        assert_eq!(text.chars().skip(7).take(2).collect::<String>(), "ok");
    }

    #[test]
    fn char_offsets_agree_with_counting_from_the_start_at_every_byte() {
        let text = "ёж и 𝔸 ok,中文 and ascii; ".repeat(40);
        let offsets = CharOffsets::new(&text);
        for byte in 0..=text.len() + 3 {
            let mut boundary = byte.min(text.len());
            while !text.is_char_boundary(boundary) {
                boundary -= 1;
            }
            assert_eq!(offsets.of(byte), text[..boundary].chars().count(), "{byte}");
        }
    }

    /// Locating a passage's ends must not count characters from the start of the text each
    /// time: a long text with a passage in every repetition cost time growing with the square
    /// of its length.
    #[test]
    fn char_offsets_of_every_word_of_a_long_text_examine_each_byte_a_bounded_number_of_times() {
        let sentence = "Съешь же ещё этих мягких французских булок, да выпей чаю. ";
        let text = sentence.repeat(4_000);
        let offsets = CharOffsets::new(&text);
        let mut calls = 0;
        for (expected, (byte, c)) in text.char_indices().enumerate() {
            if c == ' ' {
                assert_eq!(offsets.of(byte), expected);
                calls += 1;
            }
        }
        assert!(calls > 30_000, "{calls}");
        let examined = offsets.examined.get();
        assert!(
            examined <= 4 * text.len() + calls * 512,
            "{examined} bytes examined for {calls} offsets in a text of {} bytes",
            text.len()
        );
    }
}
