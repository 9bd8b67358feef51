//! Reading corpus files: JSON Lines, plain or gzip-compressed (`.jsonl`, `.jsonl.gz`), as in
//! the evaluation corpora. Shared by `import` and the evaluation commands.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use dupfinder_storage::ingest::{DocumentError, DocumentInput, parse_document};

/// The longest line read when no other bound is given: 64 MiB.
const DEFAULT_MAX_LINE_BYTES: usize = 64 << 20;

/// Reads a corpus file line by line. A line longer than the bound is skipped while it is read
/// (never held whole) and reported as too large, so a small gzip holding one enormous line
/// cannot exhaust memory.
pub struct CorpusReader {
    path: PathBuf,
    reader: Box<dyn BufRead + Send>,
    max_line_bytes: usize,
    line: usize,
    consumed: Arc<AtomicU64>,
    bytes: u64,
}

/// One non-blank line of a corpus: its 1-based number, and the document or why it is unusable.
pub type CorpusLine = (usize, Result<DocumentInput, DocumentError>);

impl CorpusReader {
    /// Opens `path`; a name ending in `.gz` is decompressed.
    pub fn open(path: &Path) -> std::io::Result<CorpusReader> {
        let consumed = Arc::new(AtomicU64::new(0));
        let file = CountingReader {
            inner: File::open(path)?,
            count: consumed.clone(),
        };
        let reader: Box<dyn BufRead + Send> = if path.extension().is_some_and(|e| e == "gz") {
            Box::new(BufReader::with_capacity(
                1 << 16,
                flate2::read::MultiGzDecoder::new(file),
            ))
        } else {
            Box::new(BufReader::with_capacity(1 << 16, file))
        };
        Ok(CorpusReader {
            path: path.to_path_buf(),
            reader,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            line: 0,
            consumed,
            bytes: 0,
        })
    }

    /// Lines longer than `max` bytes are rejected unread (`text_too_large`).
    pub fn with_max_line_bytes(mut self, max: usize) -> Self {
        self.max_line_bytes = max;
        self
    }

    /// The next line, without its end: `None` at the end of the file, `Err(length)` for a line
    /// longer than the bound (its bytes consumed and dropped as they came).
    fn read_line(&mut self) -> std::io::Result<Option<Result<Vec<u8>, u64>>> {
        let mut line = Vec::new();
        let mut length: u64 = 0;
        let mut ended = false;
        loop {
            let available = match self.reader.fill_buf() {
                Ok(available) => available,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                break;
            }
            let (part, used) = match available.iter().position(|b| *b == b'\n') {
                Some(end) => {
                    ended = true;
                    (&available[..end], end + 1)
                }
                None => (available, available.len()),
            };
            length += part.len() as u64;
            if length <= self.max_line_bytes as u64 {
                line.extend_from_slice(part);
            } else if !line.is_empty() {
                line = Vec::new();
            }
            self.reader.consume(used);
            if ended {
                break;
            }
        }
        if !ended && length == 0 {
            return Ok(None);
        }
        self.bytes += length + u64::from(ended);
        if length > self.max_line_bytes as u64 {
            return Ok(Some(Err(length)));
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        Ok(Some(Ok(line)))
    }

    /// A shared counter of the bytes read from the file itself (compressed), for progress bars.
    pub fn consumed(&self) -> Arc<AtomicU64> {
        self.consumed.clone()
    }

    /// Bytes of (uncompressed) text read so far.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The file being read.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Iterator for CorpusReader {
    type Item = std::io::Result<CorpusLine>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let line = match self.read_line() {
                Ok(line) => line?,
                Err(e) => return Some(Err(e)),
            };
            self.line += 1;
            let line = match line.map(String::from_utf8) {
                Ok(Ok(line)) => line,
                Ok(Err(_)) => {
                    let error =
                        DocumentError::InvalidJson("the line is not valid UTF-8".to_string());
                    return Some(Ok((self.line, Err(error))));
                }
                Err(length) => {
                    let error = DocumentError::TextTooLarge {
                        bytes: length as usize,
                        max: self.max_line_bytes,
                    };
                    return Some(Ok((self.line, Err(error))));
                }
            };
            if line.trim().is_empty() {
                continue;
            }
            return Some(Ok((self.line, parse_document(&line))));
        }
    }
}

/// Counts the bytes read from the underlying (possibly compressed) file.
struct CountingReader<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn reads_plain_and_gzip_with_line_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let body =
            "{\"id\":\"a\",\"text\":\"x\"}\n\n{bad\n{\"id\":\"b\",\"text\":\"y\",\"extra\":1}\n";
        let plain = dir.path().join("c.jsonl");
        std::fs::write(&plain, body).unwrap();
        let gz = dir.path().join("c.jsonl.gz");
        let mut encoder =
            flate2::write::GzEncoder::new(File::create(&gz).unwrap(), flate2::Compression::fast());
        encoder.write_all(body.as_bytes()).unwrap();
        encoder.finish().unwrap();
        for path in [plain, gz] {
            let lines: Vec<CorpusLine> = CorpusReader::open(&path)
                .unwrap()
                .map(Result::unwrap)
                .collect();
            let numbers: Vec<usize> = lines.iter().map(|(n, _)| *n).collect();
            assert_eq!(numbers, [1, 3, 4]);
            assert!(lines[1].1.is_err());
            assert!(matches!(&lines[2].1, Ok(d) if d.text.as_deref() == Some("y")));
        }
    }

    #[test]
    fn a_line_past_the_bound_is_too_large_and_the_next_lines_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.jsonl");
        let long = format!("{{\"id\":\"a\",\"text\":\"{}\"}}", "x".repeat(300_000));
        std::fs::write(
            &path,
            format!("{long}\r\n{{\"id\":\"b\",\"text\":\"y\"}}\r\nlast"),
        )
        .unwrap();
        let reader = CorpusReader::open(&path)
            .unwrap()
            .with_max_line_bytes(1_000);
        let lines: Vec<CorpusLine> = reader.map(Result::unwrap).collect();
        assert!(matches!(
            &lines[0],
            (1, Err(DocumentError::TextTooLarge { bytes, max: 1_000 })) if *bytes == long.len() + 1
        ));
        assert!(matches!(&lines[1], (2, Ok(d)) if d.text.as_deref() == Some("y")));
        assert!(matches!(&lines[2], (3, Err(DocumentError::InvalidJson(_)))));
        assert_eq!(lines.len(), 3);
    }
}
