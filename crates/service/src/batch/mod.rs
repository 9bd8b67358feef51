//! Batches: many files checked in one request (several `file` parts, or one `.zip`), as a job
//! with a report per file and a JSON or CSV summary.
//!
//! The files are written to the batch tables (of `<data>/reports.redb`, or of the database on
//! PostgreSQL, where every server process may take a file of it under a lease) before the request is
//! answered `202`. Each file's report, its line of the summary and the removal of its bytes are
//! one commit, so a batch interrupted by a crash or a restart resumes with the files not yet
//! checked and checks none twice.
//!
//! One file per concern: `settings` (the `[batch]` configuration), `unpack` (a `.zip` into
//! files, bounded), `store` (the tables), `run` (checking the files), `summary` (items, CSV).

mod run;
mod settings;
mod store;
mod store_pg;
mod summary;
mod unpack;

pub use run::{BatchControl, run_batch};
pub use settings::BatchConfig;
pub(crate) use store::finish_in;
pub use store::{
    BatchError, BatchLine, BatchRecord, BatchSettings, BatchState, BatchStore, EmbeddedBatches,
};
pub use store_pg::PgBatches;
pub(crate) use store_pg::finish_in_pg;
pub use summary::{BatchItem, ItemError, csv_field, items_csv};
pub use unpack::{BatchFile, is_archive, unpack_zip};
