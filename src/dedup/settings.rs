//! The `[dedup]` configuration.

use serde::{Deserialize, Serialize};

/// How duplicates inside a library are found and kept.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DedupConfig {
    /// Which member of a cluster is its canonical record.
    pub canonical: CanonicalRule,
    /// Check documents as they arrive (ingest, import, crawl) in libraries that have been
    /// deduplicated once, keeping their clusters current and recording alerts.
    pub incremental: bool,
    /// Documents checked between two checkpoints of a dedup job: what a resume after a kill
    /// repeats at most.
    pub checkpoint_every: u64,
    /// Threads checking documents in a dedup job (0: one per core).
    pub threads: usize,
}

impl Default for DedupConfig {
    fn default() -> Self {
        DedupConfig {
            canonical: CanonicalRule::Complete,
            incremental: true,
            checkpoint_every: 2_000,
            threads: 0,
        }
    }
}

/// The rule that picks a cluster's canonical record; ties fall to the next criterion and last
/// to the smallest document id, so the choice is deterministic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CanonicalRule {
    /// The most complete metadata (title, authors, year, url present), then the earliest year,
    /// then the longest text.
    #[default]
    Complete,
    /// The earliest year (documents without one last), then the earliest added.
    Earliest,
    /// The most words.
    Longest,
}
