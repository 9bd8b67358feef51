//! A library's crawl as it is persisted: its stage, how it crawls (id enumeration, recursive
//! walk, or sitemap/OAI-PMH sources) with the positions needed to resume, and its counters.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::pattern::IdPattern;

/// The stages of a crawl, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Walking links from the start page (or reading sitemaps / OAI-PMH) for article URLs.
    Discovering,
    /// Looking for a numeric id in the article URLs.
    Analyzing,
    /// Fetching, parsing and indexing articles.
    Crawling,
    /// Rebuilding the library's statistics snapshot and signatures.
    Signing,
    /// Finished.
    Done,
}

impl Stage {
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Discovering => "discovering",
            Stage::Analyzing => "analyzing",
            Stage::Crawling => "crawling",
            Stage::Signing => "signing",
            Stage::Done => "done",
        }
    }
}

/// How a crawl ended the last time it ran.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Every stage finished.
    Done,
    /// Removed from the queue (or interrupted) before the end; it resumes when queued again.
    Stopped,
    /// An error ended it.
    Failed { reason: String },
}

/// How the crawl stage finds articles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum CrawlMode {
    /// Follow every same-site link; index pages that match the clarifications.
    Recursive,
    /// Enumerate the numeric ids of article URLs.
    Enumerate(IdRange),
    /// Fetch the articles listed by sitemaps, and harvest OAI-PMH records.
    Sources,
}

/// The name of a [`CrawlMode`], as the API shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ModeName {
    Recursive,
    Enumerate,
    Sources,
}

impl CrawlMode {
    pub fn name(&self) -> ModeName {
        match self {
            CrawlMode::Recursive => ModeName::Recursive,
            CrawlMode::Enumerate(_) => ModeName::Enumerate,
            CrawlMode::Sources => ModeName::Sources,
        }
    }
}

/// Where an id enumeration stands. Ids are generated upwards from the lowest id seen through
/// the highest one and on until `id_probe_misses` ids in a row past the highest existing id
/// are missing; then downwards from the lowest id seen in the same way.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IdRange {
    pub pattern: IdPattern,
    /// The lowest and highest ids among the article URLs found by discovery.
    pub seen_low: u64,
    pub seen_high: u64,
    /// The next id to generate upwards.
    pub next_up: u64,
    /// The next id to generate downwards; `None` once that direction is finished.
    pub next_down: Option<u64>,
    /// The highest and lowest ids that answered with a page.
    pub high_hit: u64,
    pub low_hit: u64,
}

impl IdRange {
    pub fn new(pattern: IdPattern, ids: &[u64]) -> Option<IdRange> {
        let low = *ids.iter().min()?;
        let high = *ids.iter().max()?;
        Some(IdRange {
            pattern,
            seen_low: low,
            seen_high: high,
            next_up: low,
            next_down: low.checked_sub(1).filter(|d| *d > 0),
            high_hit: high,
            low_hit: low,
        })
    }

    /// The last id processed upwards: a later crawl continues after it.
    pub fn last_id(&self) -> u64 {
        self.next_up.saturating_sub(1)
    }

    /// The next id to probe, if the range is not exhausted.
    pub fn next_id(&mut self, misses: u64) -> Option<u64> {
        if self.next_up <= self.high_hit.max(self.seen_high).saturating_add(misses) {
            let id = self.next_up;
            self.next_up += 1;
            return Some(id);
        }
        let down = self.next_down?;
        if down >= 1 && down.saturating_add(misses) >= self.low_hit.min(self.seen_low) {
            self.next_down = down.checked_sub(1).filter(|d| *d > 0);
            return Some(down);
        }
        None
    }

    /// An id answered with a page.
    pub fn hit(&mut self, id: u64) {
        self.high_hit = self.high_hit.max(id);
        self.low_hit = self.low_hit.min(id);
    }

    /// A new crawl of a finished library probes again past the highest existing id.
    pub fn restart_probe(&mut self) {
        self.next_up = self.high_hit.max(self.seen_high) + 1;
    }
}

/// Counts of one crawl run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Counters {
    /// Page URLs discovered (and OAI-PMH records read).
    pub pages_found: u64,
    /// Pages fetched successfully.
    pub pages_fetched: u64,
    /// Pages whose links and text were extracted.
    pub pages_parsed: u64,
    /// Articles written to the index.
    pub pages_indexed: u64,
    /// Pages that failed, by reason code below.
    pub pages_failed: u64,
    pub failures: BTreeMap<String, u64>,
    /// Articles whose full text (PDF, DOCX, ODT) was fetched, read and indexed.
    #[serde(default)]
    pub full_texts: u64,
    /// Articles whose full text could not be fetched or read: they are indexed with their
    /// landing page's text.
    #[serde(default)]
    pub full_text_failures: u64,
}

/// Where an OAI-PMH harvest stands.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OaiProgress {
    /// The `from` argument of the harvest in progress (`None`: everything).
    pub from: Option<String>,
    /// The resumption token to continue the harvest in progress with.
    pub token: Option<String>,
    /// The `from` of the next incremental harvest: the response date of the last finished one.
    pub next_from: Option<String>,
    /// The response date of the harvest in progress, at the repository's granularity.
    pub started: Option<String>,
    /// Whether the harvest of this run finished.
    pub finished: bool,
}

/// A library's crawl.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobRecord {
    pub library: String,
    pub stage: Stage,
    /// 1 for the first crawl, then one more for every crawl of the finished library.
    pub run: u32,
    pub outcome: Option<Outcome>,
    pub mode: Option<CrawlMode>,
    pub counters: Counters,
    /// The next frontier sequence number: the frontier is first in, first out.
    pub next_seq: u64,
    pub oai: OaiProgress,
    /// Seconds since the Unix epoch.
    pub started_at: Option<u64>,
    pub finished_at: Option<u64>,
}

impl JobRecord {
    pub fn new(library: &str) -> JobRecord {
        JobRecord {
            library: library.to_string(),
            stage: Stage::Discovering,
            run: 1,
            outcome: None,
            mode: None,
            counters: Counters::default(),
            next_seq: 0,
            oai: OaiProgress::default(),
            started_at: None,
            finished_at: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(ids: &[u64]) -> IdRange {
        let pattern = IdPattern {
            prefix: "/post/".to_string(),
            suffix: "/".to_string(),
        };
        IdRange::new(pattern, ids).unwrap()
    }

    #[test]
    fn enumeration_covers_the_seen_range_then_probes_both_ways() {
        let mut r = range(&[10, 14]);
        let mut ids = Vec::new();
        while let Some(id) = r.next_id(2) {
            ids.push(id);
            if id == 16 || id == 8 {
                r.hit(id);
            }
        }
        // 15 and 16 probe past 14; 16 exists, so 17 and 18 are probed too.
        assert_eq!(ids, [10, 11, 12, 13, 14, 15, 16, 17, 18, 9, 8, 7, 6]);
        assert_eq!(r.last_id(), 18);
        r.restart_probe();
        assert_eq!(r.next_id(2), Some(17));
    }

    #[test]
    fn enumeration_stops_at_id_one() {
        let mut r = range(&[2, 3]);
        let mut ids = Vec::new();
        while let Some(id) = r.next_id(5) {
            ids.push(id);
        }
        assert_eq!(ids, [2, 3, 4, 5, 6, 7, 8, 1]);
    }
}
