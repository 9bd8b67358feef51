//! A PDF's bytes measured before lopdf parses them. lopdf's parser recurses into arrays and
//! dictionaries (a file of a million `[` would overflow the stack), inflates object streams
//! and cross-reference streams while it loads (without a bound), and fills a cross-reference
//! stream's entries from its `/Index` (two billion of them from a few bytes). So, in one pass
//! that allocates nothing per token: the nesting of every object is bounded, every stream is
//! inflated through a counter (nothing kept) against `max_inflated_bytes`, and the entries a
//! cross-reference stream declares against `max_objects`. Images are not inflated: nothing
//! decodes them (they are emptied after loading), unless the stream is where a
//! cross-reference table is said to be.
//!
//! lopdf reads objects where the cross-reference sections say they are, not in file order: an
//! object may lie inside another's string or stream data, where the pass does not look. So the
//! sections are then followed as lopdf follows them (`startxref`, `/Prev`, `/XRefStm`), each
//! cross-reference stream measured there, and each object the pass did not see lexed from its
//! offset for its nesting.

use super::budget::Budget;
use super::pdf_decode::{self, Decoded};
use super::pdf_lexer::{Lexer, Token, decode_name, find, stream_data_start};
use super::{ExtractError, Format};

/// What the scan learnt of one stream from its dictionary.
#[derive(Debug, Default)]
struct StreamFacts {
    /// Where its object's header (`12 0 obj`) starts.
    header: usize,
    data: usize,
    filters: Vec<Vec<u8>>,
    early_change: bool,
    /// An image, an embedded file or metadata: never decoded by the readers.
    undecoded_kind: bool,
    /// The entries a cross-reference stream declares (`/Index` counts, else `/Size`).
    xref_entries: Option<u64>,
    /// `/Prev` and `/XRefStm`: more cross-reference sections.
    more_sections: Vec<u64>,
    /// A cross-reference stream's `/W`, `/Index` (else `[0 Size]`) and `/DecodeParms` numbers.
    widths: Vec<u64>,
    sections: Vec<u64>,
    params: Vec<(Vec<u8>, i64)>,
}

/// Measures `bytes` against the nesting, inflated-bytes and object bounds.
pub(super) fn scan(bytes: &[u8], budget: &Budget) -> Result<(), ExtractError> {
    // Offsets count from the header, as lopdf counts them.
    let bytes = &bytes[find(bytes, b"%PDF-", 0).unwrap_or(0)..];
    let max_nesting = budget.limits().max_nesting;
    let mut lexer = Lexer::new(bytes);
    let mut depth = 0u32;
    let mut streams = Vec::new();
    let mut xref_offsets = Vec::new();
    let mut object_starts = std::collections::HashSet::new();
    // The last two numbers and where the first started: `12 0 obj`.
    let mut numbers: [(usize, Option<u64>); 2] = [(0, None); 2];
    let mut object_start = 0usize;
    let mut dictionary_start = 0usize;
    let mut offset_follows = false;
    let mut tokens = 0u64;
    loop {
        let at = lexer.position();
        let Some(token) = lexer.next() else { break };
        tokens += 1;
        if tokens.is_multiple_of(65_536) {
            budget.go_on()?;
        }
        if offset_follows {
            offset_follows = false;
            if let Token::Number(n) = token
                && let Some(n) = parse_u64(n)
            {
                xref_offsets.push(n as usize);
            }
        }
        match token {
            Token::Open => {
                depth += 1;
                if depth > max_nesting {
                    return Err(ExtractError::NestingTooDeep { limit: max_nesting });
                }
            }
            Token::Close => depth = depth.saturating_sub(1),
            Token::Number(n) => {
                numbers = [numbers[1], (at, parse_u64(n))];
            }
            Token::Name(name) => {
                offset_follows = matches!(name, b"Prev" | b"XRefStm");
            }
            Token::Keyword(b"obj") => {
                // Each object is parsed on its own: its nesting starts from nothing.
                depth = 0;
                object_start = if numbers[0].1.is_some() && numbers[1].1.is_some() {
                    numbers[0].0
                } else {
                    at
                };
                object_starts.insert(object_start);
                dictionary_start = lexer.position();
            }
            Token::Keyword(b"startxref") => offset_follows = true,
            Token::Keyword(b"stream") => {
                let mut facts = stream_facts(&bytes[dictionary_start.min(at)..at]);
                facts.header = object_start;
                facts.data = stream_data_start(bytes, lexer.position());
                let end = find(bytes, b"endstream", facts.data).unwrap_or(bytes.len());
                lexer.seek(end + b"endstream".len());
                streams.push(facts);
                depth = 0;
            }
            _ => {}
        }
    }
    for facts in &streams {
        budget.go_on()?;
        if let Some(entries) = facts.xref_entries
            && entries > budget.limits().max_objects
        {
            return Err(ExtractError::TooManyObjects {
                limit: budget.limits().max_objects,
            });
        }
        let xref_here = xref_offsets.iter().any(|&o| {
            o <= facts.header
                && bytes[o..facts.header]
                    .iter()
                    .all(|b| b.is_ascii_whitespace())
        });
        if facts.undecoded_kind && !xref_here {
            continue;
        }
        inflate_counted(&bytes[facts.data..], facts, budget)?;
    }
    let objects = cross_references(bytes, budget)?;
    // Objects the lexer did not see start where it was not looking (inside a string, a
    // comment or a stream's data of another object), yet lopdf parses them there.
    let mut lexed = 0u64;
    for offset in objects {
        let start = offset
            + bytes.get(offset..).map_or(0, |rest| {
                rest.iter().take_while(|b| b.is_ascii_whitespace()).count()
            });
        if start >= bytes.len() || object_starts.contains(&start) {
            continue;
        }
        budget.go_on()?;
        let mut lexer = Lexer::new(&bytes[start..]);
        let header = (lexer.next(), lexer.next(), lexer.next());
        if !matches!(
            header,
            (
                Some(Token::Number(_)),
                Some(Token::Number(_)),
                Some(Token::Keyword(b"obj"))
            )
        ) {
            continue;
        }
        nesting_of_value(bytes, start + lexer.position(), max_nesting, &mut lexed)?;
        if lexed > bytes.len() as u64 {
            return Err(ExtractError::unreadable(
                Format::Pdf,
                "its objects overlap one another",
            ));
        }
    }
    Ok(())
}

/// Lexes one value (a number, a name, a string, or an array or dictionary with all it holds)
/// from `from`, refusing it when it nests deeper than `limit`; adds the bytes lexed to `lexed`.
pub(super) fn nesting_of_value(
    bytes: &[u8],
    from: usize,
    limit: u32,
    lexed: &mut u64,
) -> Result<(), ExtractError> {
    let Some(rest) = bytes.get(from..) else {
        return Ok(());
    };
    let mut lexer = Lexer::new(rest);
    let mut depth = 0u32;
    for token in lexer.by_ref() {
        match token {
            Token::Open => {
                depth += 1;
                if depth > limit {
                    return Err(ExtractError::NestingTooDeep { limit });
                }
            }
            Token::Close => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth == 0 {
            break;
        }
    }
    *lexed += lexer.position() as u64;
    Ok(())
}

/// The cross-reference sections lopdf reads before it loads any object, found as lopdf finds
/// them (`startxref` near the end, then each `/Prev` and `/XRefStm`), wherever the lexer saw
/// them or not: a cross-reference stream is inflated while lopdf reads it.
///
/// Answers where the sections say the objects are.
fn cross_references(bytes: &[u8], budget: &Budget) -> Result<Vec<usize>, ExtractError> {
    let mut objects = Vec::new();
    let mut pending: Vec<usize> = start_of_cross_references(bytes).into_iter().collect();
    let mut seen = std::collections::HashSet::new();
    while let Some(offset) = pending.pop() {
        if offset >= bytes.len() || !seen.insert(offset) {
            continue;
        }
        budget.go_on()?;
        let section = &bytes[offset..];
        let mut lexer = Lexer::new(section);
        let first = lexer.next();
        if first == Some(Token::Keyword(b"xref")) {
            // A table: `offset generation n` per object in use; its trailer may name more
            // sections.
            let mut numbers: [Option<u64>; 2] = [None; 2];
            for token in lexer.by_ref() {
                match token {
                    Token::Number(n) => numbers = [numbers[1], parse_u64(n)],
                    Token::Keyword(b"n") => objects.extend(numbers[0].map(|o| o as usize)),
                    Token::Keyword(b"f") => {}
                    _ => break,
                }
                if objects.len() as u64 > budget.limits().max_objects {
                    return Err(ExtractError::TooManyObjects {
                        limit: budget.limits().max_objects,
                    });
                }
            }
            if let Some(trailer) = find(section, b"trailer", 0) {
                let end = find(section, b"startxref", trailer).unwrap_or(section.len());
                let facts = stream_facts(&section[trailer + b"trailer".len()..end]);
                pending.extend(facts.more_sections.iter().map(|&o| o as usize));
            }
            continue;
        }
        let (Some(Token::Number(_)), Some(Token::Keyword(b"obj"))) = (lexer.next(), lexer.next())
        else {
            continue;
        };
        let dictionary_start = lexer.position();
        let mut depth = 0u32;
        let mut data = None;
        while let Some(token) = lexer.next() {
            match token {
                Token::Open => depth += 1,
                Token::Close => depth = depth.saturating_sub(1),
                Token::Keyword(b"stream") if depth == 0 => {
                    data = Some((
                        lexer.position(),
                        stream_data_start(section, lexer.position()),
                    ));
                    break;
                }
                Token::Keyword(_) if depth == 0 => break,
                _ => {}
            }
            if depth > budget.limits().max_nesting {
                return Err(ExtractError::NestingTooDeep {
                    limit: budget.limits().max_nesting,
                });
            }
        }
        let Some((keyword_end, data)) = data else {
            continue;
        };
        let dictionary = &section[dictionary_start..keyword_end - b"stream".len()];
        let facts = stream_facts(dictionary);
        if facts.xref_entries.unwrap_or(0) > budget.limits().max_objects {
            return Err(ExtractError::TooManyObjects {
                limit: budget.limits().max_objects,
            });
        }
        inflate_counted(&section[data..], &facts, budget)?;
        objects.extend(stream_entries(&section[data..], &facts, budget));
        pending.extend(facts.more_sections.iter().map(|&o| o as usize));
    }
    Ok(objects)
}

/// The offsets of the objects in use that a cross-reference stream lists (its size was
/// bounded by the caller).
fn stream_entries(data: &[u8], facts: &StreamFacts, budget: &Budget) -> Vec<usize> {
    let mut params = lopdf::Dictionary::new();
    for (key, value) in &facts.params {
        params.set(key.clone(), *value);
    }
    if !facts.early_change {
        params.set("EarlyChange", 0);
    }
    let left = budget
        .limits()
        .max_inflated_bytes
        .saturating_sub(budget.scanned_bytes());
    let decoded = if facts.filters.is_empty() {
        data.to_vec()
    } else {
        match pdf_decode::decode(data, &facts.filters, Some(&params), left) {
            Ok(Decoded::Bytes(bytes)) => bytes,
            _ => return Vec::new(),
        }
    };
    let [w0, w1, w2] = match facts.widths.as_slice() {
        [a, b, c, ..] if *a <= 8 && *b <= 8 && *c <= 8 => [*a as usize, *b as usize, *c as usize],
        _ => return Vec::new(),
    };
    let field = |bytes: &[u8]| bytes.iter().fold(0u64, |v, &b| (v << 8) | u64::from(b));
    let width = w0 + w1 + w2;
    let entries: u64 = facts.sections.chunks(2).filter_map(|p| p.get(1)).sum();
    let mut offsets = Vec::new();
    if width == 0 {
        return offsets;
    }
    for entry in decoded.chunks_exact(width).take(entries as usize) {
        let kind = if w0 == 0 { 1 } else { field(&entry[..w0]) };
        if kind == 1 {
            offsets.push(field(&entry[w0..w0 + w1]) as usize);
        }
    }
    offsets
}

/// Where lopdf starts reading: the number after the last `startxref` before the last `%%EOF`
/// of the file's last 512 bytes.
fn start_of_cross_references(bytes: &[u8]) -> Option<usize> {
    let eof = rfind_from(bytes, b"%%EOF", bytes.len().saturating_sub(512))?;
    if eof <= 25 {
        return None;
    }
    let keyword = rfind_from(bytes, b"startxref", eof - 25)?;
    let digits: Vec<u8> = bytes[keyword + b"startxref".len()..]
        .iter()
        .skip_while(|b| b.is_ascii_whitespace())
        .take_while(|b| b.is_ascii_digit())
        .copied()
        .collect();
    parse_u64(&digits).map(|n| n as usize)
}

/// The last occurrence of `needle` at or after `from`.
fn rfind_from(bytes: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .rposition(|w| w == needle)
        .map(|p| p + from)
}

/// Inflates a stream's data (to the end of the file: the decoders stop where their data
/// ends) through its filters, keeping nothing but the count.
fn inflate_counted(data: &[u8], facts: &StreamFacts, budget: &Budget) -> Result<(), ExtractError> {
    let too_much = || ExtractError::TooMuchInflated {
        limit: budget.limits().max_inflated_bytes,
    };
    let left = budget
        .limits()
        .max_inflated_bytes
        .saturating_sub(budget.scanned_bytes());
    let bytes = match facts.filters.as_slice() {
        [] => return Ok(()),
        [flate] if flate == b"FlateDecode" => {
            pdf_decode::inflated_size(data, left).map_err(|_| too_much())?
        }
        filters => {
            let mut params = lopdf::Dictionary::new();
            if !facts.early_change {
                params.set("EarlyChange", 0);
            }
            match pdf_decode::decode(data, filters, Some(&params), left) {
                Ok(Decoded::Bytes(bytes)) => bytes.len() as u64,
                Ok(Decoded::Undecodable) => 0,
                Err(_) => return Err(too_much()),
            }
        }
    };
    budget.scanned(bytes)
}

/// The facts of a stream's dictionary: its filters, its kind, the entries it declares.
fn stream_facts(dictionary: &[u8]) -> StreamFacts {
    let mut facts = StreamFacts {
        early_change: true,
        ..StreamFacts::default()
    };
    let mut depth = 0u32;
    let mut key: Option<Vec<u8>> = None;
    let mut last_inner_name: Vec<u8> = Vec::new();
    let mut index: Vec<u64> = Vec::new();
    let mut size = None;
    let mut has_widths = false;
    let mut kind = Vec::new();
    let mut subtype = Vec::new();
    for token in Lexer::new(dictionary) {
        match token {
            Token::Open => {
                depth += 1;
                if depth == 2 && key.as_deref() == Some(b"Filter") {
                    facts.filters.clear();
                }
                if depth == 2 && key.as_deref() == Some(b"Index") {
                    index.clear();
                }
                if depth == 2 && key.as_deref() == Some(b"W") {
                    has_widths = true;
                }
                continue;
            }
            Token::Close => {
                depth = depth.saturating_sub(1);
                if depth == 1 {
                    key = None;
                }
                continue;
            }
            _ => {}
        }
        if depth == 2 {
            match (key.as_deref(), token) {
                (Some(b"Filter"), Token::Name(n)) => facts.filters.push(decode_name(n)),
                (Some(b"Index"), Token::Number(n)) => index.push(parse_u64(n).unwrap_or(0)),
                (Some(b"W"), Token::Number(n)) => facts.widths.push(parse_u64(n).unwrap_or(0)),
                (_, Token::Name(n)) => last_inner_name = decode_name(n),
                (_, Token::Number(n)) if last_inner_name == b"EarlyChange" => {
                    facts.early_change = n != b"0";
                }
                (Some(b"DecodeParms"), Token::Number(n)) => {
                    if let Some(value) = std::str::from_utf8(n).ok().and_then(|t| t.parse().ok()) {
                        facts.params.push((last_inner_name.clone(), value));
                    }
                }
                _ => {}
            }
            continue;
        }
        if depth != 1 {
            continue;
        }
        let Some(current) = key.take() else {
            if let Token::Name(n) = token {
                key = Some(decode_name(n));
            }
            continue;
        };
        match (current.as_slice(), token) {
            (b"Filter", Token::Name(n)) => facts.filters = vec![decode_name(n)],
            (b"Filter", _) => facts.filters.clear(),
            (b"Type", Token::Name(n)) => kind = decode_name(n),
            (b"Subtype", Token::Name(n)) => subtype = decode_name(n),
            (b"Size", Token::Number(n)) => size = parse_u64(n),
            (b"Prev" | b"XRefStm", Token::Number(n)) => facts.more_sections.extend(parse_u64(n)),
            (b"W", _) => has_widths = true,
            _ => {}
        }
    }
    facts.undecoded_kind = subtype == b"Image" || kind == b"EmbeddedFile" || kind == b"Metadata";
    if has_widths {
        let declared: u64 = index.chunks(2).filter_map(|pair| pair.get(1)).sum();
        facts.xref_entries = Some(if index.is_empty() {
            size.unwrap_or(0)
        } else {
            declared
        });
        facts.sections = if index.is_empty() {
            vec![0, size.unwrap_or(0)]
        } else {
            index
        };
    }
    facts
}

fn parse_u64(digits: &[u8]) -> Option<u64> {
    std::str::from_utf8(digits).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::ExtractLimits;
    use dupfinder_common::cancel::CancelFlag;

    #[test]
    fn a_stream_dictionary_tells_its_filters_kind_and_entries() {
        let facts = stream_facts(
            b"<< /Length 5 0 R /Filter [/ASCII85Decode /Fl#61teDecode] /DecodeParms << /EarlyChange 0 >> >>",
        );
        assert_eq!(
            facts.filters,
            [b"ASCII85Decode".to_vec(), b"FlateDecode".to_vec()]
        );
        assert!(!facts.early_change);
        assert!(!facts.undecoded_kind);
        let image = stream_facts(b"<< /Type /XObject /Subtype /Image /Filter /FlateDecode >>");
        assert!(image.undecoded_kind);
        let xref =
            stream_facts(b"<< /Type /XRef /W [0 0 0] /Index [0 10 20 2000000000] /Size 3 >>");
        assert_eq!(xref.xref_entries, Some(2_000_000_010));
    }

    #[test]
    fn a_cross_reference_stream_is_measured_where_lopdf_reads_it() {
        let limits = ExtractLimits {
            max_inflated_bytes: 1 << 20,
            ..ExtractLimits::default()
        };
        let budget = Budget::new(&limits, CancelFlag::new());
        let mut encoder =
            flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut encoder, &vec![0u8; 4 << 20]).unwrap();
        let data = encoder.finish().unwrap();
        // Hidden from the lexer inside a string of another object, and still read by lopdf,
        // which goes straight to the offset `startxref` names.
        let mut file = b"%PDF-1.5\n1 0 obj (".to_vec();
        let at = file.len();
        file.extend(format!("2 0 obj << /Type /XRef /W [1 2 1] /Size 3 /Length {} /Filter /FlateDecode >>\nstream\n", data.len()).as_bytes());
        file.extend(&data);
        file.extend(format!("\nendstream endobj ) endobj\nstartxref\n{at}\n%%EOF\n").as_bytes());
        assert_eq!(
            scan(&file, &budget),
            Err(ExtractError::TooMuchInflated { limit: 1 << 20 })
        );
    }

    #[test]
    fn nesting_past_the_bound_is_refused_before_parsing() {
        let limits = ExtractLimits {
            max_nesting: 10,
            ..ExtractLimits::default()
        };
        let budget = Budget::new(&limits, CancelFlag::new());
        let deep = format!("1 0 obj {}{} endobj", "[".repeat(11), "]".repeat(11));
        assert_eq!(
            scan(deep.as_bytes(), &budget),
            Err(ExtractError::NestingTooDeep { limit: 10 })
        );
        let fine = format!(
            "1 0 obj {}{} endobj 2 0 obj [[]] endobj",
            "[".repeat(10),
            "]".repeat(10)
        );
        assert_eq!(scan(fine.as_bytes(), &budget), Ok(()));
    }
}
