//! The statistics snapshot: `N`, and `df`/`cf` per term, frozen at one generation.

use std::collections::HashMap;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// Collection statistics of one term.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TermStats {
    /// Number of live documents containing the term.
    pub df: u32,
    /// Total number of occurrences of the term in the library.
    pub cf: u64,
}

/// A frozen copy of a library's statistics. Stored signatures and query signatures are both
/// computed against the same snapshot, which is what makes an exact copy match its original.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StatsSnapshot {
    generation: u64,
    docs: u64,
    /// Looked up for every term of every document signed: a fast hash, not a DoS-resistant one
    /// (the keys are the library's own terms).
    terms: FxHashMap<String, TermStats>,
}

impl StatsSnapshot {
    /// A snapshot of generation `generation` over `docs` documents.
    pub fn new(generation: u64, docs: u64, terms: HashMap<String, TermStats>) -> Self {
        StatsSnapshot {
            generation,
            docs,
            terms: terms.into_iter().collect(),
        }
    }

    /// The snapshot of a library that has never been counted: generation 0, no documents.
    pub fn empty() -> Self {
        StatsSnapshot::default()
    }

    /// Generation number; 0 means "never built".
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// `N`: live documents when the snapshot was taken.
    pub fn docs(&self) -> u64 {
        self.docs
    }

    /// Number of distinct terms.
    pub fn terms(&self) -> usize {
        self.terms.len()
    }

    /// Statistics of `term`, if the library held it when the snapshot was taken.
    pub fn get(&self, term: &str) -> Option<TermStats> {
        self.terms.get(term).copied()
    }

    /// Iterates over every term and its statistics (in no particular order).
    pub fn iter(&self) -> impl Iterator<Item = (&str, TermStats)> {
        self.terms.iter().map(|(t, s)| (t.as_str(), *s))
    }
}
