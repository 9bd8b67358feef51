//! Batches: many files checked in one request (several `file` parts, or one `.zip`), as a job
//! with a report per file and a JSON or CSV summary.
//!
//! The files are written to the batch tables of `<data>/reports.redb` before the request is
//! answered `202`. Each file's report, its line of the summary and the removal of its bytes are
//! one commit, so a batch interrupted by a crash or a restart resumes with the files not yet
//! checked and checks none twice.
//!
//! One file per concern: `settings` (the `[batch]` configuration), `unpack` (a `.zip` into
//! files, bounded), `store` (the tables), `run` (checking the files), `summary` (items, CSV).

mod run;
mod settings;
mod store;
mod summary;
mod unpack;

pub use run::{BatchControl, run_batch};
pub use settings::BatchConfig;
pub use store::{BatchError, BatchRecord, BatchSettings, BatchState, BatchStore};
pub use summary::{BatchItem, ItemError, csv_field, items_csv};
pub use unpack::{BatchFile, is_archive, unpack_zip};
