//! A PDF's bytes measured before lopdf parses them. lopdf's parser recurses into arrays and
//! dictionaries (a file of a million `[` would overflow the stack), inflates object streams
//! and cross-reference streams while it loads (without a bound), and fills a cross-reference
//! stream's entries from its `/Index` (two billion of them from a few bytes). So, in one pass
//! that allocates nothing per token: the nesting of every object is bounded, every stream is
//! inflated through a counter (nothing kept) against `max_inflated_bytes`, and the entries a
//! cross-reference stream declares against `max_objects`. Images are not inflated: nothing
//! decodes them (they are emptied after loading), unless the stream is where a
//! cross-reference table is said to be.

use super::ExtractError;
use super::budget::Budget;
use super::pdf_decode::{self, Decoded};
use super::pdf_lexer::{Lexer, Token, decode_name, find, stream_data_start};

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
}

/// Measures `bytes` against the nesting, inflated-bytes and object bounds.
pub(super) fn scan(bytes: &[u8], budget: &Budget) -> Result<(), ExtractError> {
    let max_nesting = budget.limits().max_nesting;
    let mut lexer = Lexer::new(bytes);
    let mut depth = 0u32;
    let mut streams = Vec::new();
    let mut xref_offsets = Vec::new();
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
    Ok(())
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
                (_, Token::Name(n)) => last_inner_name = decode_name(n),
                (_, Token::Number(n)) if last_inner_name == b"EarlyChange" => {
                    facts.early_change = n != b"0";
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
    }
    facts
}

fn parse_u64(digits: &[u8]) -> Option<u64> {
    std::str::from_utf8(digits).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cancel::CancelFlag;
    use crate::extract::ExtractLimits;

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
