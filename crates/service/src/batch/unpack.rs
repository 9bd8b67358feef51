//! A `.zip` sent as a batch: its entries become the batch's files, under the batch's bounds
//! (entries, bytes unpacked in all). Told by content: a ZIP that is not a DOCX or ODT.

use super::{BatchConfig, BatchError};
pub use crate::library::is_archive;
use crate::library::{FileSource, SourceFileError};

/// One file of a batch: its name and bytes.
#[derive(Debug, Clone)]
pub struct BatchFile {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// The entries of the archive `bytes` (folders, hidden files and `__MACOSX/` left out), at
/// most `max_files` of them unpacking to at most `max_unpacked_bytes` in all.
pub fn unpack_zip(bytes: Vec<u8>, config: &BatchConfig) -> Result<Vec<BatchFile>, BatchError> {
    let source = FileSource::zip(bytes).map_err(|e| BatchError::Invalid(e.to_string()))?;
    if source.len() > config.max_files {
        return Err(BatchError::TooManyFiles {
            files: source.len(),
            limit: config.max_files,
        });
    }
    if source.is_empty() {
        return Err(BatchError::Invalid("the ZIP archive holds no files".into()));
    }
    let limit = config.max_unpacked_bytes;
    let mut total = 0u64;
    let mut files = Vec::new();
    let mut failure = None;
    source.each_until(limit, |name, read| {
        match read {
            Ok(bytes) => {
                total += bytes.len() as u64;
                if total > limit {
                    failure = Some(BatchError::TooLarge { limit });
                    return false;
                }
                files.push(BatchFile { name, bytes });
            }
            Err(SourceFileError::EntryTooLarge { .. }) => {
                failure = Some(BatchError::TooLarge { limit });
                return false;
            }
            // A damaged entry is a file of the batch that cannot be read: checked, it fails
            // as an unreadable document.
            Err(_) => files.push(BatchFile {
                name,
                bytes: Vec::new(),
            }),
        }
        true
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(files),
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn zip(entries: &[(&str, Vec<u8>)]) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        let mut writer = zip::ZipWriter::new(&mut out);
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (name, bytes) in entries {
            writer.start_file(*name, options).unwrap();
            writer.write_all(bytes).unwrap();
        }
        writer.finish().unwrap();
        out.into_inner()
    }

    #[test]
    fn entries_become_files_within_the_bounds() {
        let archive = zip(&[
            ("papers/a.txt", b"first".to_vec()),
            ("b.txt", b"second".to_vec()),
            ("__MACOSX/._b.txt", b"junk".to_vec()),
        ]);
        assert!(is_archive(&archive));
        let files = unpack_zip(archive.clone(), &BatchConfig::default()).unwrap();
        let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["b.txt", "papers/a.txt"]);
        assert_eq!(files[1].bytes, b"first");

        let few = BatchConfig {
            max_files: 1,
            ..BatchConfig::default()
        };
        assert!(matches!(
            unpack_zip(archive, &few),
            Err(BatchError::TooManyFiles { files: 2, limit: 1 })
        ));
        // A bomb: 64 MB of zeros compress to a few kilobytes.
        let bomb = zip(&[("zeros.txt", vec![0u8; 64 << 20])]);
        let small = BatchConfig {
            max_unpacked_bytes: 1 << 20,
            ..BatchConfig::default()
        };
        assert!(matches!(
            unpack_zip(bomb, &small),
            Err(BatchError::TooLarge { .. })
        ));
        assert!(!is_archive(b"%PDF-1.4"));
    }
}
