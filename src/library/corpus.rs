//! Reading corpus files: JSON Lines, plain or gzip-compressed (`.jsonl`, `.jsonl.gz`), as in
//! the evaluation corpora. Shared by `import` and the evaluation commands.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::ingest::{DocumentError, DocumentInput, parse_document};

/// Reads a corpus file line by line.
pub struct CorpusReader {
    path: PathBuf,
    lines: std::io::Lines<Box<dyn BufRead + Send>>,
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
            lines: reader.lines(),
            line: 0,
            consumed,
            bytes: 0,
        })
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
            let line = self.lines.next()?;
            self.line += 1;
            let line = match line {
                Ok(line) => line,
                Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                    let error =
                        DocumentError::InvalidJson("the line is not valid UTF-8".to_string());
                    return Some(Ok((self.line, Err(error))));
                }
                Err(e) => return Some(Err(e)),
            };
            self.bytes += line.len() as u64 + 1;
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
}
