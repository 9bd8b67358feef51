//! The third version of a term sequence: the text woven into it, so that a document's text is
//! not stored a second time beside its analysis.
//!
//! Written for long texts (`LONG_TEXT_TOKENS` in `write.rs`: full papers). A stored full paper
//! kept its text (~17.8 KB compressed on the synthetic papers of the scale
//! bench) and, in its term sequence, each token's term and byte range (~9.7 KB): the words twice.
//! Every token's bytes in the text are its term's bytes but for an ending the stemmer took off
//! and a capital letter, so the third version keeps, for each token, which of its term's
//! spellings it is (mostly the first), each spelling once as the term's bytes it shares, the
//! bytes of its own and a capitalization, and the text between the tokens (stop words, spaces,
//! punctuation) as it is. The text comes back byte for byte: a value is only written when it was
//! read back equal to the text it carries (otherwise the document keeps the second version and
//! its text field), and read back it is checked as UTF-8.
//!
//! The layout after the mark and the version: the number of tokens, their ranks and gaps as in
//! the second version; the length in bytes of the run that follows, each token's spelling as its
//! place among its term's spellings (in the order the text first uses them: mostly 0); for each
//! term, in term order, the number of its spellings beyond the first; for each spelling, in term
//! order, the bytes it shares with its term times four plus its capitals, and the number of its
//! own bytes; all those own bytes; then the text between the tokens and after the last, one run
//! of bytes. The spellings in term order let a text be spelled reading the term counts one
//! after another, and most terms have one spelling: their counts of more are zeros that the
//! store's compression takes to nothing. On the scale bench's 10,000 synthetic full papers the
//! data directory went from 56,787 to 41,932 bytes a paper (benches/RESULTS.md, "Full papers:
//! the text woven into the term sequence").

use dupfinder_text::analysis::Token;

use super::document::TermCounts;
use super::encoding::{
    ranged, read_ranks_and_gaps, read_varint, unzigzag, write_ranks_and_gaps, write_varint,
};

/// The second byte of a value in the third version.
pub(super) const WOVEN: u8 = 3;

/// How a spelling's letters are capitalized, given its bytes in lower case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Capitals {
    /// As they are.
    AsIs = 0,
    /// The first letter upper case.
    First = 1,
    /// Every letter upper case.
    All = 2,
}

impl Capitals {
    fn from_code(code: u64) -> Option<Self> {
        match code {
            0 => Some(Capitals::AsIs),
            1 => Some(Capitals::First),
            2 => Some(Capitals::All),
            _ => None,
        }
    }

    /// Capitalizes `word` where it lies (upper case keeps a letter's length in bytes); `None`
    /// when it is not UTF-8.
    fn apply_in_place(self, word: &mut [u8]) -> Option<()> {
        if self == Capitals::AsIs {
            return Some(());
        }
        let mut at = 0;
        while let Some(&lead) = word.get(at) {
            let len = match lead {
                0..0x80 => 1,
                0xc0..0xe0 => 2,
                0xe0..0xf0 => 3,
                _ => 4,
            };
            let letter = word.get_mut(at..at + len)?;
            let c = std::str::from_utf8(letter).ok()?.chars().next()?;
            upper(c).encode_utf8(letter);
            at += len;
            if self == Capitals::First {
                break;
            }
        }
        Some(())
    }
}

/// Upper case for the Latin and Cyrillic letters of our texts, by fixed tables rather than the
/// standard library's Unicode data, whose changes would change what stored bytes read as. Each
/// pair is the same number of bytes in UTF-8, so a spelling's length is known uncapitalized.
fn upper(c: char) -> char {
    let shift = match c {
        'a'..='z' | 'а'..='я' => 0x20,
        'ѐ'..='џ' => 0x50,
        _ => 0,
    };
    char::from_u32(c as u32 - shift).unwrap_or(c)
}

/// The inverse of [`upper`].
fn lower(c: char) -> char {
    let shift = match c {
        'A'..='Z' | 'А'..='Я' => 0x20,
        'Ѐ'..='Џ' => 0x50,
        _ => 0,
    };
    char::from_u32(c as u32 + shift).unwrap_or(c)
}

/// Keeps the spelling `surface` of `term` in the fewest own bytes: appends its own bytes to
/// `own` and returns its capitals and the number of bytes it shares with the term.
fn spell(surface: &str, term: &str, own: &mut Vec<u8>) -> (Capitals, usize) {
    // Shared whole letters: own bytes are never a letter's tail.
    let shared_with = |lowered: &str| {
        let mut shared = lowered
            .bytes()
            .zip(term.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        while !lowered.is_char_boundary(shared) {
            shared -= 1;
        }
        shared
    };
    if surface.chars().all(|c| lower(c) == c) {
        // Nothing to lower (most spellings): as it is.
        let shared = shared_with(surface);
        own.extend_from_slice(&surface.as_bytes()[shared..]);
        return (Capitals::AsIs, shared);
    }
    let mut chars = surface.chars();
    let first: String = chars.next().map(lower).into_iter().chain(chars).collect();
    let all: String = surface.chars().map(lower).collect();
    let mut best = (Capitals::AsIs, shared_with(surface), surface);
    let mut back = Vec::with_capacity(surface.len());
    for (capitals, lowered) in [(Capitals::First, &first), (Capitals::All, &all)] {
        let shared = shared_with(lowered);
        back.clear();
        back.extend_from_slice(lowered.as_bytes());
        if shared > best.1
            && capitals.apply_in_place(&mut back).is_some()
            && back == surface.as_bytes()
        {
            best = (capitals, shared, lowered.as_str());
        }
    }
    let (capitals, shared, lowered) = best;
    own.extend_from_slice(&lowered.as_bytes()[shared..]);
    (capitals, shared)
}

/// Encodes a document's tokens and its text as the third version, or `None` when the tokens'
/// ranges are not ranges of `text` or the value would not give the text back.
pub(super) fn encode_woven(
    tokens: &[Token],
    counts: &[(String, u32)],
    text: &str,
) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 2 + tokens.len() * 3 + 16);
    let places = write_ranks_and_gaps(&mut out, WOVEN, tokens, counts);
    // Each term's spellings in the order the text first uses them.
    let mut spellings_of: Vec<Vec<&str>> = vec![Vec::new(); counts.len()];
    let mut variants = Vec::with_capacity(tokens.len());
    for (token, &place) in tokens.iter().zip(&places) {
        let surface = text.get(token.start..token.end)?;
        let spellings = spellings_of.get_mut(place as usize)?;
        let variant = match spellings.iter().position(|s| *s == surface) {
            Some(variant) => variant,
            None => {
                spellings.push(surface);
                spellings.len() - 1
            }
        };
        write_varint(&mut variants, variant as u64);
    }
    write_varint(&mut out, variants.len() as u64);
    out.extend_from_slice(&variants);
    // Each term's spellings beyond its first (every term of the counts is some token's).
    for spellings in &spellings_of {
        write_varint(&mut out, spellings.len().checked_sub(1)? as u64);
    }
    let mut own_bytes = Vec::new();
    for (spellings, (term, _)) in spellings_of.iter().zip(counts) {
        for surface in spellings {
            let before = own_bytes.len();
            let (capitals, shared) = spell(surface, term, &mut own_bytes);
            write_varint(&mut out, (shared as u64) << 2 | capitals as u64);
            write_varint(&mut out, (own_bytes.len() - before) as u64);
        }
    }
    out.extend_from_slice(&own_bytes);
    let mut written = 0;
    for token in tokens {
        if token.start >= written {
            out.extend_from_slice(text.get(written..token.start)?.as_bytes());
        }
        written = written.max(token.end);
    }
    out.extend_from_slice(text.get(written..)?.as_bytes());
    let counts = TermCounts::from(counts);
    let woven = parse(&out[2..], &counts)?;
    let back = woven.spellings.text(&woven.tokens, &counts)?;
    (back == text).then_some(out)
}

/// The bytes [`Spellings::text`] copies at a time.
const CHUNK: usize = 16;

/// Copies `len` bytes of `from` at `start` to `to` at `at`, a [`CHUNK`] at a time: `from` must
/// hold a chunk past the piece's end, `to` is lengthened to hold one.
fn copy_chunks(to: &mut Vec<u8>, at: usize, from: &[u8], start: usize, len: usize) {
    if to.len() < at + len + CHUNK {
        to.resize(at + len + CHUNK, 0);
    }
    let mut done = 0;
    while done < len {
        to[at + done..at + done + CHUNK].copy_from_slice(&from[start + done..start + done + CHUNK]);
        done += CHUNK;
    }
}

/// A third-version value taken apart.
pub(super) struct Woven {
    /// Each token's term as its place in the term counts.
    pub(super) places: Vec<u32>,
    /// Each token's byte range in the text.
    pub(super) tokens: Vec<Token>,
    /// What spells the text around and of the tokens.
    pub(super) spellings: Spellings,
}

/// What a third-version value keeps of its text besides the tokens' terms and ranges: each
/// token's spelling, the spellings, and the text between the tokens. A check keeps it with a
/// source it reads and builds the text only for a source it shows passages of.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Spellings {
    /// Where each term's spellings begin in `kept`, in term order, and their end.
    first: Vec<u32>,
    /// Each token's spelling, as its place in `kept`.
    spelling_of: Vec<u32>,
    /// Each spelling, in term order and each term's in the order the text first uses them: its
    /// capitals, the bytes it shares with its term, and the end of its own bytes in `own`.
    kept: Vec<(Capitals, u32, u32)>,
    own: Vec<u8>,
    /// The text between the tokens and after the last.
    between: Vec<u8>,
}

/// Takes apart a third-version value (`bytes` after the mark and the version); `None` when
/// the bytes do not decode, name a term `counts` lacks or a spelling longer than its term
/// allows.
pub(super) fn parse(mut bytes: &[u8], counts: &TermCounts) -> Option<Woven> {
    let (places, mut gaps) = read_ranks_and_gaps(&mut bytes, counts)?;
    let n = places.len();
    let variants_len = usize::try_from(read_varint(&mut bytes)?).ok()?;
    let (mut variants, rest) = bytes.split_at_checked(variants_len)?;
    bytes = rest;
    // Where each term's spellings begin among all of them, in term order.
    let mut first = Vec::with_capacity(counts.len() + 1);
    let mut m = 0u32;
    for _ in 0..counts.len() {
        first.push(m);
        let more = u32::try_from(read_varint(&mut bytes)?).ok()?;
        m = m.checked_add(more)?.checked_add(1)?;
        // Every spelling is some token's: more than the tokens is damage.
        if m as usize > n {
            return None;
        }
    }
    first.push(m);
    let mut kept = Vec::with_capacity(m as usize);
    let mut lengths = Vec::with_capacity(m as usize);
    let mut own_len = 0u32;
    for place in 0..counts.len() {
        let term_len = counts.term_len(place)?;
        for _ in first[place]..first[place + 1] {
            let packed = read_varint(&mut bytes)?;
            let capitals = Capitals::from_code(packed & 3)?;
            let shared = u32::try_from(packed >> 2).ok()?;
            let own = u32::try_from(read_varint(&mut bytes)?).ok()?;
            if shared as usize > term_len {
                return None;
            }
            own_len = own_len.checked_add(own)?;
            kept.push((capitals, shared, own_len));
            lengths.push(shared.checked_add(own)?);
        }
    }
    let (own, between) = bytes.split_at_checked(own_len as usize)?;
    let mut spelling_of = Vec::with_capacity(n);
    let mut tokens = Vec::with_capacity(n);
    let mut end = 0i64;
    for (position, &place) in places.iter().enumerate() {
        let place = place as usize;
        let variant = u32::try_from(read_varint(&mut variants)?).ok()?;
        let at = first[place].checked_add(variant)?;
        if at >= first[place + 1] {
            return None;
        }
        let start = end.checked_add(unzigzag(read_varint(&mut gaps)?))?;
        end = start.checked_add(i64::from(lengths[at as usize]))?;
        tokens.push(ranged(position, start, end)?);
        spelling_of.push(at);
    }
    variants.is_empty().then(|| Woven {
        places,
        tokens,
        spellings: Spellings {
            first,
            spelling_of,
            kept,
            own: own.to_vec(),
            between: between.to_vec(),
        },
    })
}

impl Spellings {
    /// The text of the tokens `tokens` (their terms' places `places` in `counts`) spelled as
    /// kept; `None` when the bytes do not make UTF-8 or run short.
    pub(crate) fn text(&self, tokens: &[Token], counts: &TermCounts) -> Option<String> {
        // Each spelling once, in term order (the terms read one after another: a source's
        // term counts are no longer in the cache when its passages are placed), then each
        // token's copied.
        let mut spelled = Vec::with_capacity(self.own.len() * 2);
        let mut ends = Vec::with_capacity(self.kept.len());
        let mut own_begin = 0;
        for (place, (term, _)) in counts.iter().enumerate() {
            let spellings = *self.first.get(place)? as usize..*self.first.get(place + 1)? as usize;
            for &(capitals, shared, own_end) in self.kept.get(spellings)? {
                let start = spelled.len();
                spelled.extend_from_slice(term.as_bytes().get(..shared as usize)?);
                spelled.extend_from_slice(self.own.get(own_begin as usize..own_end as usize)?);
                own_begin = own_end;
                capitals.apply_in_place(&mut spelled[start..])?;
                ends.push(spelled.len());
            }
        }
        // A full paper is ~5,000 short words and gaps: each is copied as a whole chunk of
        // `CHUNK` bytes (a fixed-size move, not a call), the buffers padded so that the chunk
        // past a piece's end is there to read and write, and cut to the text's length after.
        spelled.extend_from_slice(&[0; CHUNK]);
        let mut between = Vec::with_capacity(self.between.len() + CHUNK);
        between.extend_from_slice(&self.between);
        between.extend_from_slice(&[0; CHUNK]);
        // Tokens lie in text order: the last one's end is the text's but for what follows it
        // (a pass over the tokens for the largest end would read them all twice).
        let last_end = tokens.last().map_or(0, |t| t.end);
        let mut text = vec![0u8; last_end + self.between.len() + CHUNK];
        let (mut written, mut read) = (0, 0);
        for (token, &spelling) in tokens.iter().zip(&self.spelling_of) {
            let spelling = spelling as usize;
            let end = *ends.get(spelling)?;
            let word = spelling.checked_sub(1).map_or(0, |before| ends[before])..end;
            if token.start >= written {
                let gap = token.start - written;
                if read + gap > self.between.len() {
                    return None;
                }
                copy_chunks(&mut text, written, &between, read, gap);
                read += gap;
                copy_chunks(&mut text, token.start, &spelled, word.start, word.len());
            } else if token.end > written {
                // Overlapping a token before it (CJK bigrams).
                let overlap = written - token.start;
                copy_chunks(
                    &mut text,
                    written,
                    &spelled,
                    word.start + overlap,
                    word.len().checked_sub(overlap)?,
                );
            }
            written = written.max(token.end);
        }
        let tail = self.between.len() - read;
        copy_chunks(&mut text, written, &between, read, tail);
        text.truncate(written + tail);
        String::from_utf8(text).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::encoding::{decode_term_sequence, woven_text};
    use dupfinder_text::analysis::{AnalyzedText, TextLimits, analyze_text};
    use proptest::prelude::*;

    /// The analysis of `text`, whatever its number of words (`None` for a text with none).
    fn analysed(text: &str) -> Option<AnalyzedText> {
        let limits = TextLimits {
            max_bytes: 1 << 20,
            min_words: 1,
        };
        analyze_text(&crate::index::default_analyzer(), text, None, limits).ok()
    }

    /// The text a third-version value gives back, and its token ranges and shingles, which must
    /// be the analysis's own.
    fn round_trip(text: &str) -> Vec<u8> {
        let Some(analyzed) = analysed(text) else {
            return Vec::new();
        };
        let bytes = encode_woven(&analyzed.tokens, &analyzed.term_counts, text)
            .unwrap_or_else(|| panic!("not woven: {text:?}"));
        let counts = TermCounts::from(&analyzed.term_counts[..]);
        assert_eq!(woven_text(&bytes, &counts), Some(Some(text.to_string())));
        let decoded = decode_term_sequence(&bytes, &counts).unwrap();
        assert_eq!(decoded.shingles, analyzed.shingles);
        let ranges = |tokens: &[Token]| tokens.iter().map(|t| (t.start, t.end)).collect::<Vec<_>>();
        assert_eq!(ranges(&decoded.tokens), ranges(&analyzed.tokens), "{text}");
        bytes
    }

    const TEXTS: [&str; 6] = [
        "Метод шинглов сравнивает тексты по последовательностям из трёх слов, а метод \
         сигнатур — по наиболее значимым словам документа. МЕТОД Шинглов устойчив. Ёлка, ЁЛКИ.",
        "Shingles of three words compare texts; Signatures compare their MOST telling \
         words, and the shingles of a copied run are shared by both texts. Studies STUDIED.",
        "  «Кавычки», числа 3,14 и e-mail: a@b.ru; переносы сло-\nва и ﬁ лигатуры.  ",
        "本研究探讨了稻田养鸭模式对水稻产量和土壤质量的影响。Mixed 文本 and 漢字.",
        "Straße, İstanbul, ΣΊΣΥΦΟΣ, Ǆemal: letters whose case changes their length.",
        "the of and words",
    ];

    #[test]
    fn the_text_comes_back_byte_for_byte_with_the_analysed_tokens() {
        for text in TEXTS {
            round_trip(text);
        }
    }

    /// A spelling is kept as the bytes it shares with its term, its own and its capitals: a
    /// capitalized or upper-case word costs what its lower-case form does.
    #[test]
    fn a_spelling_is_kept_by_its_term_and_capitals() {
        let spelled = |surface: &str, term: &str| {
            let mut own = Vec::new();
            let (capitals, shared) = spell(surface, term, &mut own);
            (capitals, shared, String::from_utf8(own).unwrap())
        };
        assert_eq!(
            spelled("studies", "studi"),
            (Capitals::AsIs, 5, "es".into())
        );
        assert_eq!(
            spelled("Studies", "studi"),
            (Capitals::First, 5, "es".into())
        );
        assert_eq!(spelled("МЕТОДЫ", "метод"), (Capitals::All, 10, "ы".into()));
        assert_eq!(spelled("Ёлка", "ёлк"), (Capitals::First, 6, "а".into()));
        // Mixed capitals lowered as far as the tables tell; letters outside them kept as they are.
        assert_eq!(
            spelled("McCarthy", "mccarthi"),
            (Capitals::First, 2, "Carthy".into())
        );
        assert_eq!(
            spelled("Ärger", "ärger"),
            (Capitals::AsIs, 0, "Ärger".into())
        );
    }

    #[test]
    fn a_damaged_value_is_rejected() {
        let bytes = round_trip(TEXTS[0]);
        let analyzed = analysed(TEXTS[0]).unwrap();
        let counts = TermCounts::from(&analyzed.term_counts[..]);
        // Cut anywhere before the text between the tokens, a value does not decode; cut inside
        // it, it gives a shorter text, never the whole one.
        for cut in 2..bytes.len() {
            let read = woven_text(&bytes[..cut], &counts);
            assert_ne!(read, Some(Some(TEXTS[0].to_string())), "{cut}");
        }
        // A spelling sharing more bytes than its term has.
        let mut counts_short = analyzed.term_counts.clone();
        for (term, _) in &mut counts_short {
            term.truncate(term.chars().next().map_or(0, char::len_utf8));
        }
        assert_eq!(
            decode_term_sequence(&bytes, &TermCounts::from(&counts_short[..])),
            None
        );
    }

    /// Tokens whose ranges are not the text's are not woven: the document then keeps its text.
    #[test]
    fn tokens_that_do_not_give_the_text_back_are_not_woven() {
        let analyzed = analysed(TEXTS[1]).unwrap();
        assert_eq!(
            encode_woven(&analyzed.tokens, &analyzed.term_counts, "Shingles"),
            None
        );
        let mut tokens = analyzed.tokens.clone();
        tokens[0].end += 1000;
        assert_eq!(encode_woven(&tokens, &analyzed.term_counts, TEXTS[1]), None);
    }

    proptest! {
        #[test]
        fn any_text_comes_back(text in "(\\PC{0,12}[ ,.\\n-]){0,40}") {
            round_trip(&text);
        }

        #[test]
        fn any_words_come_back(words in proptest::collection::vec(
            "[a-zA-Zа-яА-ЯёЁ]{1,9}|[0-9]{1,4}|[,.;:()«»—-]", 0..80)) {
            round_trip(&words.join(" "));
        }
    }
}
