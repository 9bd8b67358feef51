//! Files as library documents: a file's extracted text becomes a [`DocumentInput`] (id from its
//! name or relative path, title and authors from its metadata or first heading), and a folder
//! or a `.zip` of files is imported like a JSON Lines corpus.

use std::io::{Cursor, Read};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;

use super::catalog::{Catalog, LibraryError, RejectedReason};
use super::import::ImportProgressSync;
use dupfinder_common::cancel::CancelFlag;
use dupfinder_common::error_code::ErrorCode;
use dupfinder_storage::ingest::{Authors, DocumentInput, IdValue, prepare};
use dupfinder_text::extract::ExtractedDocument;

/// A document input for a file called `name` (its id), from its extracted text. The name is
/// handed back for messages.
pub fn file_document(name: &str, document: ExtractedDocument) -> (DocumentInput, String) {
    let input = DocumentInput {
        id: Some(IdValue::Text(name.to_string())),
        url: None,
        title: document.title,
        authors: (!document.authors.is_empty()).then_some(Authors::Many(document.authors)),
        text: Some(document.text),
        lang: None,
        year: None,
        pdf_url: None,
        doi: None,
    };
    (input, name.to_string())
}

/// A file that was not imported, with its relative path and the reason.
#[derive(Debug, Clone, Serialize)]
pub struct RejectedFile {
    pub file: String,
    pub error: RejectedReason,
}

/// What an import of files did.
#[derive(Debug, Clone, Serialize)]
pub struct FileImportSummary {
    pub library: String,
    pub files: usize,
    pub accepted: usize,
    pub rejected: Vec<RejectedFile>,
    pub import_seconds: f64,
    pub signing_seconds: f64,
    pub stats_generation: u64,
}

/// Why a file of a [`FileSource`] could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SourceFileError {
    #[error("the file is larger than {limit} bytes")]
    FileTooLarge { limit: u64 },
    /// A ZIP entry that unpacks to more than the bound: a zip bomb, or more than one file
    /// may be.
    #[error("the entry unpacks to more than {limit} bytes")]
    EntryTooLarge { limit: u64 },
    /// The file or the entry cannot be read: the reason says why.
    #[error("{0}")]
    Unreadable(String),
}

/// The files to import: every regular file under a folder (hidden ones skipped), or every
/// entry of a ZIP archive, each with its relative path (the document id, `/`-separated).
pub enum FileSource {
    Folder { root: PathBuf, files: Vec<PathBuf> },
    Zip { bytes: Vec<u8>, names: Vec<String> },
}

/// Whether `bytes` are a ZIP archive of files rather than one document (a DOCX or an ODT is
/// a ZIP container too). Told by content, never by name.
pub fn is_archive(bytes: &[u8]) -> bool {
    bytes.starts_with(b"PK\x03\x04")
        && !matches!(
            dupfinder_text::extract::sniff(bytes),
            Ok(dupfinder_text::extract::Format::Docx
                | dupfinder_text::extract::Format::Odt
                | dupfinder_text::extract::Format::Epub)
        )
}

impl FileSource {
    /// Lists a folder or a `.zip` file; any other file (a DOCX, a PDF…) is a source of one.
    pub fn open(path: &Path) -> std::io::Result<FileSource> {
        if path.is_dir() {
            let mut files = Vec::new();
            let mut stack = vec![path.to_path_buf()];
            while let Some(dir) = stack.pop() {
                for entry in std::fs::read_dir(&dir)? {
                    let entry = entry?;
                    if entry.file_name().to_string_lossy().starts_with('.') {
                        continue;
                    }
                    let kind = entry.file_type()?;
                    if kind.is_dir() {
                        stack.push(entry.path());
                    } else if kind.is_file() {
                        files.push(entry.path());
                    }
                }
            }
            files.sort();
            return Ok(FileSource::Folder {
                root: path.to_path_buf(),
                files,
            });
        }
        let bytes = std::fs::read(path)?;
        if !is_archive(&bytes) {
            let root = path.parent().unwrap_or(Path::new("")).to_path_buf();
            return Ok(FileSource::Folder {
                root,
                files: vec![path.to_path_buf()],
            });
        }
        FileSource::zip(bytes)
            .map_err(|e| std::io::Error::other(format!("{}: {e}", path.display())))
    }

    /// The entries of the ZIP archive `bytes` (folders, hidden files and `__MACOSX/` left
    /// out), sorted by name.
    pub fn zip(bytes: Vec<u8>) -> std::io::Result<FileSource> {
        let archive = zip::ZipArchive::new(Cursor::new(bytes.as_slice()))
            .map_err(|e| std::io::Error::other(format!("not a readable ZIP archive: {e}")))?;
        let mut names: Vec<String> = archive
            .file_names()
            .filter(|n| !n.ends_with('/'))
            .filter(|n| !n.rsplit('/').next().unwrap_or_default().starts_with('.'))
            .filter(|n| !n.starts_with("__MACOSX/"))
            .map(str::to_string)
            .collect();
        names.sort();
        Ok(FileSource::Zip { bytes, names })
    }

    /// How many files.
    pub fn len(&self) -> usize {
        match self {
            FileSource::Folder { files, .. } => files.len(),
            FileSource::Zip { names, .. } => names.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Each file's relative path and bytes (or why it could not be read), at most
    /// `max_bytes` each.
    fn each(
        &self,
        max_bytes: u64,
        mut visit: impl FnMut(String, Result<Vec<u8>, SourceFileError>),
    ) {
        self.each_until(max_bytes, |name, read| {
            visit(name, read);
            true
        });
    }

    /// [`FileSource::each`] until `visit` answers `false`.
    pub fn each_until(
        &self,
        max_bytes: u64,
        mut visit: impl FnMut(String, Result<Vec<u8>, SourceFileError>) -> bool,
    ) {
        match self {
            FileSource::Folder { root, files } => {
                for file in files {
                    let name = file
                        .strip_prefix(root)
                        .unwrap_or(file)
                        .components()
                        .map(|c| c.as_os_str().to_string_lossy().into_owned())
                        .collect::<Vec<_>>()
                        .join("/");
                    let unreadable = |e: std::io::Error| SourceFileError::Unreadable(e.to_string());
                    let bytes = std::fs::metadata(file).map_err(unreadable).and_then(|m| {
                        if m.len() > max_bytes {
                            Err(SourceFileError::FileTooLarge { limit: max_bytes })
                        } else {
                            std::fs::read(file).map_err(unreadable)
                        }
                    });
                    if !visit(name, bytes) {
                        return;
                    }
                }
            }
            FileSource::Zip { bytes, names } => {
                let Ok(mut archive) = zip::ZipArchive::new(Cursor::new(bytes.as_slice())) else {
                    return;
                };
                for name in names {
                    let unreadable =
                        |e: &dyn std::fmt::Display| SourceFileError::Unreadable(e.to_string());
                    let read =
                        archive
                            .by_name(name)
                            .map_err(|e| unreadable(&e))
                            .and_then(|entry| {
                                let mut out = Vec::new();
                                entry
                                    .take(max_bytes + 1)
                                    .read_to_end(&mut out)
                                    .map_err(|e| unreadable(&e))?;
                                if out.len() as u64 > max_bytes {
                                    return Err(SourceFileError::EntryTooLarge {
                                        limit: max_bytes,
                                    });
                                }
                                Ok(out)
                            });
                    if !visit(name.clone(), read) {
                        return;
                    }
                }
            }
        }
    }
}

/// Imports files into library `id` (created when missing): each file extracted, analyzed and
/// stored with its relative path as id; files that cannot be read are listed with their
/// reason. Statistics are rebuilt and every document re-signed at the end, as for a corpus.
/// `progress.read` is told the number of files done.
pub fn import_files(
    catalog: &Catalog,
    id: &str,
    source: &FileSource,
    progress: &dyn ImportProgressSync,
) -> Result<FileImportSummary, LibraryError> {
    let target = super::import::ImportTarget::open(catalog, id)?;
    let started = Instant::now();
    let config = catalog.config();
    let mut summary = FileImportSummary {
        library: id.to_string(),
        files: source.len(),
        accepted: 0,
        rejected: Vec::new(),
        import_seconds: 0.0,
        signing_seconds: 0.0,
        stats_generation: 0,
    };
    let mut batch = Vec::new();
    let mut done = 0u64;
    let mut stage_error = None;
    source.each(config.limits.max_body_bytes as u64, |name, bytes| {
        done += 1;
        progress.read(done);
        let reason = |code: ErrorCode, message: String| RejectedReason { code, message };
        let outcome = bytes
            .map_err(|e| reason(ErrorCode::UnreadableDocument, e.to_string()))
            .and_then(|bytes| {
                catalog
                    .extractions()
                    .extract_blocking(&bytes, &CancelFlag::new())
                    .map_err(|e| reason(e.code(), e.to_string()))
            })
            .and_then(|document| {
                let (input, _) = file_document(&name, document);
                prepare(catalog.analyzer(), config.limits.text(), input)
                    .map_err(|e| RejectedReason::from(&e))
            });
        match outcome {
            Ok(document) => batch.push(document),
            Err(error) => summary.rejected.push(RejectedFile { file: name, error }),
        }
        if batch.len() >= 200 && stage_error.is_none() {
            match target.stage(&batch) {
                Ok(()) => summary.accepted += batch.len(),
                Err(e) => stage_error = Some(e),
            }
            batch.clear();
        }
    });
    if let Some(e) = stage_error {
        return Err(e);
    }
    if !batch.is_empty() {
        target.stage(&batch)?;
        summary.accepted += batch.len();
    }
    target.commit()?;
    summary.import_seconds = started.elapsed().as_secs_f64();
    let signing = Instant::now();
    summary.stats_generation = target.sign(catalog, id, summary.accepted, progress)?;
    summary.signing_seconds = signing.elapsed().as_secs_f64();
    Ok(summary)
}
