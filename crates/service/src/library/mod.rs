//! Libraries: ids, the persistent registry, the catalog of open libraries, and ingest (parsing,
//! validating and analyzing submitted documents, and bulk import of corpus files).

mod catalog;
mod check;
mod corpus;
mod declare;
mod file_check;
mod files;
mod import;
mod jobs;
mod keys;
mod keys_pg;
pub use dupfinder_storage::phrases;

pub use catalog::{
    Catalog, IngestPath, IngestReport, LibraryError, LibraryInfo, LibraryPage, LibraryQuery,
    LibraryStatus, NewLibrary, RejectedLine, RejectedReason,
};
pub use check::{check, check_cancellable, raw_candidates};
pub use corpus::{CorpusLine, CorpusReader};
pub use declare::{DeclarationError, LibraryDeclaration, RegistryImport};
pub use dupfinder_storage::ingest::{
    Authors, DocumentError, DocumentInput, IdValue, JsonLine, check_json_depth, parse_document,
    parse_json_lines, parse_lang, prepare,
};
pub use dupfinder_storage::{
    LibraryId, LibraryRecord, Registry, RegistryError, Schedule, StorageFault,
};
pub use dupfinder_text::extract::normalize_doi;
pub use file_check::{FileCheck, FileCheckError, check_extracted, check_file};
pub use files::{
    FileImportSummary, FileSource, RejectedFile, SourceFileError, file_document, import_files,
    is_archive,
};
pub use import::{ImportProgress, ImportProgressSync, ImportSummary, import_file};
pub use jobs::{JobKind, JobState, JobStatus, JobTrigger, Jobs};
pub use keys::{Access, AuditEntry, EmbeddedKeys, KeyError, KeyInfo, KeyStore, NewKey, Role};
pub use keys_pg::PgKeys;
