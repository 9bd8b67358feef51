//! Stored documents taken apart where their bytes lie.
//!
//! tantivy hands a stored document back as a `TantivyDocument`, and reads each `bytes` value one
//! byte at a time on the way (its generic `Vec<T>` reading): for a full paper's term counts and
//! term sequence, tens of kilobytes a document, that was a seventh of a check against 100,000
//! papers. A check, a re-index and a rebuild of the candidate map read the document's bytes from
//! the store instead and find each value in them: strings and bytes are slices of the one
//! decompressed buffer, nothing is copied until the caller asks.
//!
//! The layout read here is tantivy's stored-document format: a VInt count of values, then for
//! each its field (`u32`, little-endian), a type code and the value — text and bytes as a VInt
//! length and the bytes, `u64` as eight little-endian bytes. A document holding any other type
//! (the schema declares none) is refused as undecodable; `tests::reads_what_tantivy_reads` holds
//! the two readings equal, so a tantivy upgrade that changes the format fails there first.

use std::ops::Range;
use std::path::Path;

use tantivy::directory::OwnedBytes;
use tantivy::schema::{Field, Value};
use tantivy::{DocId, SegmentReader, TantivyDocument};

use super::IndexError;

/// tantivy's type codes (`tantivy::schema::document::type_codes`, not public) of the values the
/// content schema stores.
const TEXT_CODE: u8 = 0;
const U64_CODE: u8 = 1;
const BYTES_CODE: u8 = 4;

/// What reading a stored document's fields asks of it, however it was read.
pub(super) trait StoredFields {
    /// The field's first text value.
    fn first_str(&self, field: Field) -> Option<&str>;
    /// Every text value of the field, in the order they were written.
    fn all_str(&self, field: Field) -> Vec<&str>;
    /// The field's first `u64` value.
    fn first_u64(&self, field: Field) -> Option<u64>;
    /// The field's first bytes value.
    fn first_bytes(&self, field: Field) -> Option<&[u8]>;
}

impl StoredFields for TantivyDocument {
    fn first_str(&self, field: Field) -> Option<&str> {
        self.get_first(field).and_then(|v| v.as_str())
    }

    fn all_str(&self, field: Field) -> Vec<&str> {
        self.get_all(field).filter_map(|v| v.as_str()).collect()
    }

    fn first_u64(&self, field: Field) -> Option<u64> {
        self.get_first(field).and_then(|v| v.as_u64())
    }

    fn first_bytes(&self, field: Field) -> Option<&[u8]> {
        self.get_first(field).and_then(|v| v.as_bytes())
    }
}

#[derive(Debug, Clone)]
enum RawValue {
    /// Text, a range of the buffer known to be UTF-8.
    Text(Range<usize>),
    U64(u64),
    Bytes(Range<usize>),
}

/// A stored document as the store keeps it, its values located in the one buffer.
pub(super) struct RawDocument {
    bytes: OwnedBytes,
    values: Vec<(Field, RawValue)>,
}

impl RawDocument {
    /// Locates the values of a document's stored bytes; `None` if they are not a document of
    /// text, `u64` and bytes values, whole.
    pub(super) fn parse(bytes: OwnedBytes) -> Option<Self> {
        let values = locate_values(bytes.as_slice())?;
        Some(RawDocument { bytes, values })
    }

    /// The document's stored bytes, uncompressed.
    pub(super) fn len(&self) -> usize {
        self.bytes.len()
    }

    fn values_of(&self, field: Field) -> impl Iterator<Item = &RawValue> {
        self.values
            .iter()
            .filter(move |(f, _)| *f == field)
            .map(|(_, value)| value)
    }

    fn text(&self, range: &Range<usize>) -> &str {
        // Checked to be UTF-8 when the document was parsed.
        std::str::from_utf8(&self.bytes.as_slice()[range.clone()]).unwrap_or_default()
    }
}

impl StoredFields for RawDocument {
    fn first_str(&self, field: Field) -> Option<&str> {
        self.values_of(field).find_map(|value| match value {
            RawValue::Text(range) => Some(self.text(range)),
            _ => None,
        })
    }

    fn all_str(&self, field: Field) -> Vec<&str> {
        self.values_of(field)
            .filter_map(|value| match value {
                RawValue::Text(range) => Some(self.text(range)),
                _ => None,
            })
            .collect()
    }

    fn first_u64(&self, field: Field) -> Option<u64> {
        self.values_of(field).find_map(|value| match value {
            RawValue::U64(number) => Some(*number),
            _ => None,
        })
    }

    fn first_bytes(&self, field: Field) -> Option<&[u8]> {
        self.values_of(field).find_map(|value| match value {
            RawValue::Bytes(range) => Some(&self.bytes.as_slice()[range.clone()]),
            _ => None,
        })
    }
}

/// The live documents of `segment` in the store's order, each with its id: what a re-index and
/// a rebuild of the candidate map read, every document once.
pub(super) fn alive_documents<'a>(
    segment: &'a SegmentReader,
    path: &'a Path,
) -> Result<impl Iterator<Item = Result<(DocId, RawDocument), IndexError>> + 'a, IndexError> {
    // Consecutive documents share a block: keep the blocks a pass is reading.
    let store = segment.get_store_reader(64).map_err(IndexError::io(path))?;
    Ok(segment.doc_ids_alive().map(move |doc| {
        let bytes = store
            .get_document_bytes(doc)
            .map_err(IndexError::tantivy(path))?;
        let raw = RawDocument::parse(bytes).ok_or_else(|| IndexError::CorruptDocument {
            doc_id: format!(
                "document {doc} of segment {}",
                segment.segment_id().short_uuid_string()
            ),
            reason: "undecodable stored document".to_string(),
        })?;
        Ok((doc, raw))
    }))
}

/// Every value of a stored document, with its field: ranges into `bytes` for text and bytes.
fn locate_values(bytes: &[u8]) -> Option<Vec<(Field, RawValue)>> {
    let mut at = 0usize;
    let count = read_vint(bytes, &mut at)?;
    // Every value takes six bytes at least (field, type, one byte of value).
    if count > (bytes.len() / 6) as u64 {
        return None;
    }
    let mut values = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let field = u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?);
        at += 4;
        let code = *bytes.get(at)?;
        at += 1;
        let value = match code {
            TEXT_CODE => {
                let range = read_slice(bytes, &mut at)?;
                std::str::from_utf8(&bytes[range.clone()]).ok()?;
                RawValue::Text(range)
            }
            BYTES_CODE => RawValue::Bytes(read_slice(bytes, &mut at)?),
            U64_CODE => {
                let number = u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?);
                at += 8;
                RawValue::U64(number)
            }
            _ => return None,
        };
        values.push((Field::from_field_id(field), value));
    }
    (at == bytes.len()).then_some(values)
}

/// A VInt length, then that many bytes: their range.
fn read_slice(bytes: &[u8], at: &mut usize) -> Option<Range<usize>> {
    let len = usize::try_from(read_vint(bytes, at)?).ok()?;
    let end = at.checked_add(len).filter(|&end| end <= bytes.len())?;
    let range = *at..end;
    *at = end;
    Some(range)
}

/// tantivy's VInt: seven bits a byte, least significant first, the last byte marked by its high
/// bit (the reverse of LEB128's mark).
fn read_vint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *bytes.get(*at)?;
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 != 0 {
            return Some(value);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::schema::{STORED, Schema};
    use tantivy::{Index, IndexWriter};

    /// Documents of every stored type the content schema has, long and short values, empty
    /// ones and repeated fields, written by tantivy and read back both ways.
    #[test]
    fn reads_what_tantivy_reads() {
        let mut builder = Schema::builder();
        let text = builder.add_text_field("text", STORED);
        let number = builder.add_u64_field("number", STORED);
        let bytes = builder.add_bytes_field("bytes", STORED);
        let index = Index::create_in_ram(builder.build());
        let mut writer: IndexWriter = index.writer_with_num_threads(1, 15_000_000).unwrap();
        let long_text = "слово word ".repeat(5_000);
        let long_bytes: Vec<u8> = (0..40_000u32).map(|i| (i * 37 % 251) as u8).collect();
        let mut written = Vec::new();
        for i in 0..40u64 {
            let mut doc = TantivyDocument::new();
            doc.add_text(text, format!("документ {i}"));
            if i % 3 == 0 {
                let chars = (i as usize * 97) % 5_000;
                doc.add_text(text, long_text.chars().take(chars).collect::<String>());
            }
            doc.add_u64(number, i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            doc.add_bytes(
                bytes,
                &long_bytes[..(i as usize * 1_013) % long_bytes.len()],
            );
            if i % 5 == 0 {
                doc.add_text(text, "");
                doc.add_bytes(bytes, &[] as &[u8]);
            }
            writer.add_document(doc.clone()).unwrap();
            written.push(doc);
        }
        writer.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();
        let segment = &searcher.segment_readers()[0];
        let store = segment.get_store_reader(0).unwrap();
        for doc_id in 0..40u32 {
            let read: TantivyDocument = store.get(doc_id).unwrap();
            let raw = RawDocument::parse(store.get_document_bytes(doc_id).unwrap()).unwrap();
            assert_eq!(raw.all_str(text), read.all_str(text));
            assert_eq!(raw.first_str(text), read.first_str(text));
            assert_eq!(raw.first_u64(number), read.first_u64(number));
            assert_eq!(raw.first_bytes(bytes), read.first_bytes(bytes));
            assert_eq!(
                raw.first_u64(number),
                written[doc_id as usize].first_u64(number)
            );
            assert!(raw.first_bytes(text).is_none() && raw.first_str(bytes).is_none());
        }
    }

    #[test]
    fn damaged_bytes_are_refused_not_misread() {
        let mut builder = Schema::builder();
        let text = builder.add_text_field("text", STORED);
        let bytes = builder.add_bytes_field("bytes", STORED);
        let index = Index::create_in_ram(builder.build());
        let mut writer: IndexWriter = index.writer_with_num_threads(1, 15_000_000).unwrap();
        let mut doc = TantivyDocument::new();
        doc.add_text(text, "текст");
        doc.add_bytes(bytes, &[1u8, 2, 3][..]);
        writer.add_document(doc).unwrap();
        writer.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();
        let store = searcher.segment_readers()[0].get_store_reader(0).unwrap();
        let whole = store.get_document_bytes(0).unwrap().as_slice().to_vec();
        assert!(locate_values(&whole).is_some());
        // Every shorter prefix, and the whole with a byte more, is refused.
        for cut in 0..whole.len() {
            assert!(locate_values(&whole[..cut]).is_none(), "cut at {cut}");
        }
        let mut longer = whole.clone();
        longer.push(0);
        assert!(locate_values(&longer).is_none());
        // A type the content schema never stores (i64) is refused.
        let mut other_type = whole.clone();
        other_type[1 + 4] = 2;
        assert!(locate_values(&other_type).is_none());
        // Text that is not UTF-8 is refused.
        let mut not_utf8 = whole;
        let at = not_utf8.iter().position(|&b| b == 0xd1).unwrap();
        not_utf8[at] = 0xff;
        assert!(locate_values(&not_utf8).is_none());
    }
}
