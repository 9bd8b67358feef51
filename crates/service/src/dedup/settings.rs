//! The `[dedup]` configuration.

use serde::{Deserialize, Serialize};

use dupfinder_check::MatchReport;

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
    /// A `duplicate` verdict joins clusters only when the texts are this close: a shingle
    /// resemblance of at least `cluster_resemblance`, or one text contained in the other at
    /// least `cluster_containment`, or a word similarity of at least `cluster_word_similarity`.
    /// The check's own verdict also calls a text reworded by a fifth a duplicate; inside a
    /// library, that lets the yearly abstracts of one team or one shared task (the same
    /// template, other results) into clusters. Weaker duplicates are listed as related.
    pub cluster_resemblance: f64,
    pub cluster_containment: f64,
    pub cluster_word_similarity: f64,
    /// Two documents whose titles are the same but for their numbers (a shared task's yearly
    /// overviews, a team's system description for each year's edition) are editions of a
    /// series: related, never one cluster, however close their texts.
    pub editions_apart: bool,
}

impl DedupConfig {
    /// Whether a match with these scores may join clusters.
    pub fn joins_clusters(&self, found: &MatchReport) -> bool {
        found.resemblance >= self.cluster_resemblance
            || found.containment_query.max(found.containment_doc) >= self.cluster_containment
            || found.word_similarity >= self.cluster_word_similarity
    }
}

impl Default for DedupConfig {
    fn default() -> Self {
        DedupConfig {
            canonical: CanonicalRule::Complete,
            incremental: true,
            checkpoint_every: 2_000,
            threads: 0,
            cluster_resemblance: 0.5,
            cluster_containment: 0.8,
            cluster_word_similarity: 0.72,
            editions_apart: true,
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
