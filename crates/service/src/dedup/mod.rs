//! Duplicates inside a library: every document checked against its own library (the dedup
//! job), the edges it finds kept with the library (files or database rows), clusters made of the `duplicate` edges with a
//! canonical member each, and documents that arrive later checked as they come (alerts).
//!
//! One file per concern: `settings` (the `[dedup]` configuration), `store` (a library's dedup
//! state, in its `dedup/` directory or in the database, and its locks), `clusters` (edges into clusters, the canonical
//! rule), `job` (the resumable run over a whole library), `incremental` (arrivals and deletions
//! keeping the clusters current), `error`.

mod clusters;
mod error;
mod incremental;
mod job;
mod settings;
mod store;

pub use clusters::{Change, Cluster, ClusterSet, Link, Member, Relation};
pub use error::DedupError;
pub use incremental::{arrived, removed};
pub use job::{
    DedupClaim, DedupControl, DedupOutcome, claim_dedup, has_unfinished, run_claimed, run_dedup,
};
pub use settings::{CanonicalRule, DedupConfig};
pub use store::{Alert, AlertMatch, DedupStore, EdgeRecord, EdgeVerdict, alerts};
