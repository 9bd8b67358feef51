//! Building a statistics snapshot from a content index, and keeping it on disk.
//!
//! `df` and `cf` come from one pass over the postings of the analyzed text's fields (`body` and
//! `body_terms`, which hold different documents): tantivy stores no collection frequency, so it
//! is summed from the term frequencies, skipping deleted documents so that replaced versions do
//! not count twice.

use std::collections::HashMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use tantivy::postings::Postings;
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocSet, Searcher, TERMINATED};

use super::IndexError;
use dupfinder_signature::{StatsSnapshot, TermStats};

const MAGIC: &[u8; 8] = b"DFSTATS1";

/// Counts `N`, `df` and `cf` over every live document of `searcher`, the terms of each of
/// `fields` (which no document holds two of) summed.
pub(crate) fn count_statistics(
    searcher: &Searcher,
    fields: &[Field],
    generation: u64,
    path: &Path,
) -> Result<StatsSnapshot, IndexError> {
    let mut terms: HashMap<String, TermStats> = HashMap::new();
    let mut docs = 0u64;
    for segment in searcher.segment_readers() {
        docs += u64::from(segment.num_docs());
        for &field in fields {
            let inverted = segment
                .inverted_index(field)
                .map_err(IndexError::tantivy(path))?;
            count_terms(segment, &inverted, &mut terms, path)?;
        }
    }
    Ok(StatsSnapshot::new(generation, docs, terms))
}

/// Adds the live documents' counts of every term of `inverted` (a field of `segment`) to
/// `terms`.
fn count_terms(
    segment: &tantivy::SegmentReader,
    inverted: &tantivy::InvertedIndexReader,
    terms: &mut HashMap<String, TermStats>,
    path: &Path,
) -> Result<(), IndexError> {
    let mut stream = inverted.terms().stream().map_err(IndexError::io(path))?;
    while stream.advance() {
        let mut postings = inverted
            .read_postings_from_terminfo(stream.value(), IndexRecordOption::WithFreqs)
            .map_err(IndexError::io(path))?;
        let (mut df, mut cf) = (0u32, 0u64);
        let mut doc = postings.doc();
        while doc != TERMINATED {
            if !segment.is_deleted(doc) {
                df += 1;
                cf += u64::from(postings.term_freq());
            }
            doc = postings.advance();
        }
        if df == 0 {
            continue;
        }
        let Ok(term) = std::str::from_utf8(stream.key()) else {
            continue;
        };
        let entry = terms
            .entry(term.to_string())
            .or_insert(TermStats { df: 0, cf: 0 });
        entry.df += df;
        entry.cf += cf;
    }
    Ok(())
}

/// Where generation `generation`'s snapshot lives under `dir`.
pub(crate) fn snapshot_path(dir: &Path, generation: u64) -> PathBuf {
    dir.join(format!("gen-{generation}.stats"))
}

/// Writes a snapshot atomically: a temporary file, fsync, rename. The file carries a magic
/// header and a CRC32 of its payload so a torn or corrupted file is detected on load.
pub(crate) fn save_snapshot(path: &Path, snapshot: &StatsSnapshot) -> Result<(), IndexError> {
    let payload = bincode::serialize(snapshot).map_err(|e| IndexError::CorruptSnapshot {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    let tmp = path.with_extension("stats.tmp");
    let write = || -> std::io::Result<()> {
        let mut file = fs::File::create(&tmp)?;
        file.write_all(MAGIC)?;
        file.write_all(&crc32fast::hash(&payload).to_le_bytes())?;
        file.write_all(&payload)?;
        file.sync_all()?;
        fs::rename(&tmp, path)?;
        if let Some(parent) = path.parent() {
            fs::File::open(parent)?.sync_all()?;
        }
        Ok(())
    };
    write().map_err(IndexError::io(path))
}

/// Loads a snapshot written by [`save_snapshot`], verifying its checksum.
pub(crate) fn load_snapshot(path: &Path) -> Result<StatsSnapshot, IndexError> {
    let bytes = fs::read(path).map_err(IndexError::io(path))?;
    let corrupt = |reason: &str| IndexError::CorruptSnapshot {
        path: path.to_path_buf(),
        reason: reason.to_string(),
    };
    if bytes.len() < 12 || &bytes[..8] != MAGIC {
        return Err(corrupt("not a dupfinder statistics file"));
    }
    let expected = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    let payload = &bytes[12..];
    if crc32fast::hash(payload) != expected {
        return Err(corrupt("checksum mismatch"));
    }
    bincode::deserialize(payload).map_err(|e| corrupt(&e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_round_trips_and_detects_corruption() {
        let dir = tempfile::tempdir().unwrap();
        let path = snapshot_path(dir.path(), 3);
        let mut terms = HashMap::new();
        terms.insert("сигнатур".to_string(), TermStats { df: 2, cf: 5 });
        let snapshot = StatsSnapshot::new(3, 7, terms);
        save_snapshot(&path, &snapshot).unwrap();
        assert_eq!(load_snapshot(&path).unwrap(), snapshot);

        let mut bytes = fs::read(&path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0xff;
        fs::write(&path, &bytes).unwrap();
        let err = load_snapshot(&path).unwrap_err();
        assert!(err.to_string().contains("checksum"), "{err}");
    }
}
