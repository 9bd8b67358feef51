//! The tiny library the seed signature's and the methods' tests are worked out on by hand:
//!
//! ```text
//! d1 = apple apple banana cherry      d2 = banana cherry cherry
//! d3 = cherry date                    d4 = date elder fig grape
//! ```
//! N = 4; df / cf: apple 1/2, banana 2/2, cherry 3/4, date 2/2, elder 1/1, fig 1/1, grape 1/1;
//! 13 terms in all, so `dl_avg = 3.25`.

use std::collections::HashMap;

use crate::{StatsSnapshot, TermStats};

pub(crate) fn library() -> StatsSnapshot {
    let stats = [
        ("apple", 1, 2),
        ("banana", 2, 2),
        ("cherry", 3, 4),
        ("date", 2, 2),
        ("elder", 1, 1),
        ("fig", 1, 1),
        ("grape", 1, 1),
    ];
    let terms: HashMap<String, TermStats> = stats
        .iter()
        .map(|(t, df, cf)| (t.to_string(), TermStats { df: *df, cf: *cf }))
        .collect();
    StatsSnapshot::new(1, 4, terms)
}

/// Term counts of documents given as `(term, count)` lists.
pub(crate) fn docs(lists: &[&[(&str, u32)]]) -> Vec<Vec<(String, u32)>> {
    lists
        .iter()
        .map(|list| list.iter().map(|(t, c)| (t.to_string(), *c)).collect())
        .collect()
}

pub(crate) fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6
}
