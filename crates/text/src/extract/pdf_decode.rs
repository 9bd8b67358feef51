//! A PDF stream's filters decoded under a bound of bytes. lopdf decodes with no bound
//! (`read_to_end`): a stream of 1 MB may inflate to 1 GB. These decoders stop past the bound
//! and otherwise give exactly lopdf's bytes — the same crates (flate2, weezl), the same
//! handling of damaged data (the bytes decoded before the damage are kept), the same PNG
//! predictors — so the text read from an ordinary PDF does not change.

use std::io::Read;

use lopdf::{Dictionary, Object, Stream, dictionary};

/// The bytes a stream's filters would decode to, or why they were not all decoded.
#[derive(Debug, PartialEq)]
pub(super) enum Decoded {
    /// What lopdf's `decompressed_content` would give.
    Bytes(Vec<u8>),
    /// A filter lopdf does not decode (DCT, CCITT…) or a predictor that failed: lopdf's
    /// callers then use the stream's raw bytes.
    Undecodable,
}

/// More than the bound would be decoded; `decoded` says how much was when the decoder stopped.
#[derive(Debug, PartialEq)]
pub(super) struct OverBound {
    pub decoded: u64,
}

/// The filters of a stream as lopdf reads them: `None` when `/Filter` is neither a name nor
/// an array of names (lopdf then uses the raw bytes).
pub(super) fn filters(stream: &Stream) -> Option<Vec<Vec<u8>>> {
    stream
        .filters()
        .ok()
        .map(|names| names.into_iter().map(<[u8]>::to_vec).collect())
}

/// Decodes `input` through `filters` in order, with `params` (`/DecodeParms` as a dictionary)
/// for the predictors; at most `bound` bytes over all stages.
pub(super) fn decode(
    input: &[u8],
    filters: &[Vec<u8>],
    params: Option<&Dictionary>,
    bound: u64,
) -> Result<Decoded, OverBound> {
    let mut output: Option<Vec<u8>> = None;
    let mut used = 0u64;
    for filter in filters {
        let stage_input = output.as_deref().unwrap_or(input);
        let left = bound.saturating_sub(used);
        let decoded = match filter.as_slice() {
            b"FlateDecode" => inflate(stage_input, left),
            b"LZWDecode" => unlzw(stage_input, early_change(params), left),
            b"ASCII85Decode" => ascii85(stage_input, left),
            _ => return Ok(Decoded::Undecodable),
        };
        let decoded = decoded.map_err(|over| OverBound {
            decoded: used + over.decoded,
        })?;
        used += decoded.len() as u64;
        let decoded = if filter.as_slice() == b"ASCII85Decode" {
            decoded
        } else {
            match predict(decoded, params) {
                Some(data) => data,
                None => return Ok(Decoded::Undecodable),
            }
        };
        output = Some(decoded);
    }
    Ok(Decoded::Bytes(output.unwrap_or_default()))
}

/// Counts what `input` inflates to (as much as zlib can read of it), keeping nothing.
pub(super) fn inflated_size(input: &[u8], bound: u64) -> Result<u64, OverBound> {
    let mut decoder = flate2::read::ZlibDecoder::new(input);
    let mut buffer = vec![0u8; 64 * 1024];
    let mut total = 0u64;
    loop {
        match decoder.read(&mut buffer) {
            Ok(0) => return Ok(total),
            Ok(n) => {
                total += n as u64;
                if total > bound {
                    return Err(OverBound { decoded: total });
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return Ok(total),
        }
    }
}

fn inflate(input: &[u8], bound: u64) -> Result<Vec<u8>, OverBound> {
    let mut output = Vec::with_capacity(input.len().saturating_mul(2));
    if input.is_empty() {
        return Ok(output);
    }
    let mut decoder = flate2::read::ZlibDecoder::new(input);
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        match decoder.read(&mut buffer) {
            Ok(0) => return Ok(output),
            Ok(n) => {
                if (output.len() + n) as u64 > bound {
                    return Err(OverBound {
                        decoded: (output.len() + n) as u64,
                    });
                }
                output.extend_from_slice(&buffer[..n]);
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            // lopdf keeps what was inflated before damaged data.
            Err(_) => return Ok(output),
        }
    }
}

fn early_change(params: Option<&Dictionary>) -> bool {
    params
        .and_then(|p| p.get(b"EarlyChange").ok())
        .and_then(|p| p.as_i64().ok())
        .is_none_or(|v| v != 0)
}

/// LZW as lopdf runs weezl: its stream adapter decodes into a 16 MiB buffer at a time and,
/// on an error, drops that buffer's bytes.
pub(super) fn unlzw(input: &[u8], early_change: bool, bound: u64) -> Result<Vec<u8>, OverBound> {
    use weezl::{BitOrder, LzwStatus, decode::Decoder};
    let mut decoder = if early_change {
        Decoder::with_tiff_size_switch(BitOrder::Msb, 8)
    } else {
        Decoder::new(BitOrder::Msb, 8)
    };
    let mut output = Vec::new();
    let mut buffer = vec![0u8; 1 << 24];
    let mut rest = input;
    loop {
        let result = decoder.decode_bytes(rest, &mut buffer);
        rest = &rest[result.consumed_in..];
        let Ok(status) = result.status else {
            return Ok(output);
        };
        if matches!(status, LzwStatus::NoProgress) {
            return Ok(output);
        }
        if (output.len() + result.consumed_out) as u64 > bound {
            return Err(OverBound {
                decoded: (output.len() + result.consumed_out) as u64,
            });
        }
        output.extend_from_slice(&buffer[..result.consumed_out]);
        if matches!(status, LzwStatus::Done) {
            return Ok(output);
        }
    }
}

/// ASCII85 by lopdf itself: it yields at most four bytes per input byte.
fn ascii85(input: &[u8], bound: u64) -> Result<Vec<u8>, OverBound> {
    let stream = Stream::new(dictionary! { "Filter" => "ASCII85Decode" }, input.to_vec());
    let output = stream.decompressed_content().unwrap_or_default();
    if output.len() as u64 > bound {
        return Err(OverBound {
            decoded: output.len() as u64,
        });
    }
    Ok(output)
}

/// lopdf's PNG predictors (10–15); other predictors leave the bytes as they are. `None` when
/// the predictor fails.
fn predict(data: Vec<u8>, params: Option<&Dictionary>) -> Option<Vec<u8>> {
    let Some(params) = params else {
        return Some(data);
    };
    let number =
        |key: &[u8], default: i64| params.get(key).and_then(Object::as_i64).unwrap_or(default);
    let predictor = number(b"Predictor", 1);
    if !(10..=15).contains(&predictor) {
        return Some(data);
    }
    let pixels_per_row = number(b"Columns", 1).max(1) as usize;
    let colors = number(b"Colors", 1).max(1) as usize;
    let bits = number(b"BitsPerComponent", 8).max(8) as usize;
    lopdf::filters::png::decode_frame(&data, colors * bits / 8, pixels_per_row).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deflate(data: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut encoder =
            flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(data).unwrap();
        encoder.finish().unwrap()
    }

    fn stream_with(filters: Object, params: Option<Dictionary>, data: Vec<u8>) -> Stream {
        let mut dict = dictionary! { "Filter" => filters };
        if let Some(params) = params {
            dict.set("DecodeParms", params);
        }
        Stream::new(dict, data)
    }

    fn ours(stream: &Stream, bound: u64) -> Result<Decoded, OverBound> {
        let params = stream
            .dict
            .get(b"DecodeParms")
            .and_then(Object::as_dict)
            .ok();
        decode(&stream.content, &filters(stream).unwrap(), params, bound)
    }

    #[test]
    fn the_bounded_decoders_give_lopdfs_bytes() {
        let text = b"BT /F1 12 Tf 72 700 Td (Hello) Tj ET\n".repeat(1000);
        let flate = stream_with("FlateDecode".into(), None, deflate(&text));
        let mut damaged = deflate(&text);
        damaged.truncate(damaged.len() / 2);
        let damaged = stream_with("FlateDecode".into(), None, damaged);
        let a85 = Stream::new(dictionary! {}, text.clone());
        let mut encoded = a85.clone();
        encoded.dict.set("Filter", "ASCII85Decode");
        encoded.content = b"87cURD]i,\"Ebo80~>".to_vec();
        // Rows of 4 bytes with PNG "Up" filters.
        let rows: Vec<u8> = (0..16u8)
            .flat_map(|r| [2u8, r, r, r, r])
            .collect::<Vec<u8>>();
        let predicted = stream_with(
            "FlateDecode".into(),
            Some(dictionary! { "Predictor" => 12, "Columns" => 4 }),
            deflate(&rows),
        );
        for stream in [&flate, &damaged, &encoded, &predicted] {
            assert_eq!(
                ours(stream, u64::MAX),
                Ok(Decoded::Bytes(stream.decompressed_content().unwrap())),
            );
        }
        let image = stream_with(
            Object::Array(vec!["FlateDecode".into(), "DCTDecode".into()]),
            None,
            deflate(&text),
        );
        assert_eq!(ours(&image, u64::MAX), Ok(Decoded::Undecodable));
    }

    #[test]
    fn a_decoder_stops_past_its_bound() {
        let bomb = deflate(&vec![b' '; 8 << 20]);
        let stream = stream_with("FlateDecode".into(), None, bomb.clone());
        let over = ours(&stream, 1 << 20).unwrap_err();
        // It stopped within one buffer of the bound, not at the stream's 8 MiB.
        assert!(over.decoded <= (1 << 20) + 64 * 1024, "{over:?}");
        assert!(inflated_size(&bomb, 1 << 20).is_err());
        assert_eq!(inflated_size(&bomb, u64::MAX), Ok(8 << 20));
    }
}
