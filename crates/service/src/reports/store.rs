//! The report store: a [`ReportStore`], kept in `<data>/reports.redb` ([`EmbeddedReports`]) or,
//! with `[storage] backend = "postgres"`, in the database (`store_pg.rs`).
//!
//! In `reports.redb`: `reports` (id → the report, deflate-compressed JSON), `summaries` (id →
//! its list line) and `by_time` (order → id: the list's order and retention's, the time the
//! report was kept in nanoseconds, made unique).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};

use super::{Decision, DecisionChange, Report, ReportSummary};
use crate::batch::BatchLine;
use crate::webhooks::Event;
use dupfinder_common::clock::unix_now;

const REPORTS: TableDefinition<&str, &[u8]> = TableDefinition::new("reports");
const SUMMARIES: TableDefinition<&str, &[u8]> = TableDefinition::new("summaries");
const BY_TIME: TableDefinition<u64, &str> = TableDefinition::new("by_time");

pub(super) const NANOS: u64 = 1_000_000_000;

/// A stored report larger than this, decompressed, is refused as damaged.
const MAX_REPORT_BYTES: u64 = 256 << 20;

/// What can go wrong with the report store.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("report store {path}: {reason}")]
    Store { path: PathBuf, reason: String },
    #[error("no report `{0}`")]
    NotFound(String),
}

/// Which reports a list shows.
#[derive(Debug, Clone, Default)]
pub struct ReportFilter {
    pub verdict: Option<String>,
    pub decision: Option<Decision>,
    /// Reports that checked this library.
    pub library: Option<String>,
    /// Made at or after (seconds since the Unix epoch).
    pub from: Option<u64>,
    /// Made at or before.
    pub to: Option<u64>,
    /// Reports this key asked for (a checker sees only its own).
    pub submitter: Option<String>,
    /// Reports made on these libraries alone (a key limited to libraries sees only those); a
    /// report made on no library is not among them.
    pub within: Option<Vec<String>>,
}

/// Whether what was made on `libraries` (a report, a batch) was made on `allowed` alone: on
/// at least one library, and on none outside them.
pub fn made_within<'a>(allowed: &[String], libraries: impl IntoIterator<Item = &'a str>) -> bool {
    let mut any = false;
    for id in libraries {
        if !allowed.iter().any(|l| l == id) {
            return false;
        }
        any = true;
    }
    any
}

impl ReportFilter {
    /// The places in the list (nanoseconds) of the reports made from `from` to `to`: a range
    /// from the first to past the last.
    pub(super) fn places(&self) -> (u64, u64) {
        let from = self.from.unwrap_or(0).saturating_mul(NANOS);
        let to = self
            .to
            .map_or(u64::MAX, |to| to.saturating_add(1).saturating_mul(NANOS));
        (from, to)
    }

    /// Of `summaries` (newest first), those the filter admits from `offset`, at most `limit` of
    /// them, and how many it admits in all.
    pub(super) fn page<E>(
        &self,
        summaries: impl IntoIterator<Item = Result<ReportSummary, E>>,
        limit: usize,
        offset: usize,
    ) -> Result<(usize, Vec<ReportSummary>), E> {
        let (mut total, mut page) = (0, Vec::new());
        for summary in summaries {
            let summary = summary?;
            if !self.admits(&summary) {
                continue;
            }
            if total >= offset && page.len() < limit {
                page.push(summary);
            }
            total += 1;
        }
        Ok((total, page))
    }

    fn admits(&self, summary: &ReportSummary) -> bool {
        self.verdict.as_ref().is_none_or(|v| *v == summary.verdict)
            && self.decision.is_none_or(|d| d == summary.decision)
            && self
                .library
                .as_ref()
                .is_none_or(|l| summary.libraries.contains_key(l))
            && self
                .submitter
                .as_ref()
                .is_none_or(|s| *s == summary.submitter)
            && self.within.as_ref().is_none_or(|allowed| {
                made_within(allowed, summary.libraries.keys().map(String::as_str))
            })
    }
}

/// The stored reports, wherever they are kept.
pub trait ReportStore: Send + Sync {
    /// A new report id: 96 random bits, so a permalink cannot be guessed.
    fn new_id(&self) -> Result<String, ReportError> {
        let mut bytes = [0u8; 12];
        getrandom::fill(&mut bytes).map_err(|e| ReportError::Store {
            path: "reports".into(),
            reason: e.to_string(),
        })?;
        Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
    }

    /// Keeps `report` (setting its place in the list), the `report.completed` event announcing
    /// it in the outbox of every webhook that asked for it, and `line` (a batch's line for the
    /// file, its bytes dropped), in one commit, durable when this returns; answers how many
    /// deliveries were announced.
    fn keep(&self, report: &mut Report, line: Option<BatchLine<'_>>) -> Result<usize, ReportError>;

    /// The report `id`.
    fn get(&self, id: &str) -> Result<Report, ReportError>;

    /// Sets the decision (and note) of report `id`, recording who and when.
    fn decide(
        &self,
        id: &str,
        decision: Decision,
        note: Option<String>,
        by: &str,
    ) -> Result<Report, ReportError>;

    /// Deletes report `id`; `false` when there was none.
    fn delete(&self, id: &str) -> Result<bool, ReportError>;

    /// Deletes the reports made before `cutoff` (seconds since the Unix epoch); answers how
    /// many.
    fn delete_older_than(&self, cutoff: u64) -> Result<usize, ReportError>;

    /// A page of the reports `filter` admits, newest first, and how many it admits in all.
    fn list(
        &self,
        filter: &ReportFilter,
        limit: usize,
        offset: usize,
    ) -> Result<(usize, Vec<ReportSummary>), ReportError>;

    /// Copies the store (and the webhooks registered), as of its last commit, into a new redb
    /// database at `dest` (a backup of the data directory; only where they are kept there).
    fn copy_to(&self, dest: &Path) -> Result<(), ReportError>;
}

/// A report's place in the list: the second it was made, and after every report kept before it
/// (`last`, the last place given).
pub(super) fn next_order(created: u64, last: &std::sync::atomic::AtomicU64) -> u64 {
    let at = created.saturating_mul(NANOS);
    let previous = last
        .fetch_update(
            std::sync::atomic::Ordering::SeqCst,
            std::sync::atomic::Ordering::SeqCst,
            |last| Some(at.max(last + 1)),
        )
        .expect("the update always answers a value");
    at.max(previous + 1)
}

/// A decision taken on `report` by `by`, with its line in the trail.
pub(super) fn apply_decision(
    report: &mut Report,
    decision: Decision,
    note: Option<String>,
    by: &str,
) {
    report.decision = decision;
    if note.is_some() {
        report.note = note.clone();
    }
    report.history.push(DecisionChange {
        decision,
        note,
        by: by.to_string(),
        at: unix_now(),
    });
}

/// The reports of a data directory.
pub struct EmbeddedReports {
    path: PathBuf,
    /// Shared with the webhook store, whose outbox is written in a report's own commit.
    db: std::sync::Arc<Database>,
    /// The last order given: a new report's is later, even within one nanosecond.
    last_order: std::sync::atomic::AtomicU64,
}

impl EmbeddedReports {
    /// Opens (or creates) the store at `path`.
    pub fn open(path: &Path) -> Result<EmbeddedReports, ReportError> {
        let fail = |e: &dyn std::fmt::Display| ReportError::Store {
            path: path.to_path_buf(),
            reason: e.to_string(),
        };
        let db = Database::create(path).map_err(|e| fail(&e))?;
        let txn = db.begin_write().map_err(|e| fail(&e))?;
        txn.open_table(REPORTS).map_err(|e| fail(&e))?;
        txn.open_table(SUMMARIES).map_err(|e| fail(&e))?;
        txn.open_table(BY_TIME).map_err(|e| fail(&e))?;
        txn.commit().map_err(|e| fail(&e))?;
        let last = {
            let txn = db.begin_read().map_err(|e| fail(&e))?;
            let table = txn.open_table(BY_TIME).map_err(|e| fail(&e))?;
            let last = table.last().map_err(|e| fail(&e))?;
            last.map_or(0, |(order, _)| order.value())
        };
        Ok(EmbeddedReports {
            path: path.to_path_buf(),
            db: std::sync::Arc::new(db),
            last_order: std::sync::atomic::AtomicU64::new(last),
        })
    }

    fn fail(&self, e: impl std::fmt::Display) -> ReportError {
        ReportError::Store {
            path: self.path.clone(),
            reason: e.to_string(),
        }
    }

    /// The database the store keeps its tables in.
    pub fn database(&self) -> std::sync::Arc<Database> {
        self.db.clone()
    }

    /// Stores `report`, setting its place in the list (durable when this returns).
    pub fn insert(&self, report: &mut Report) -> Result<(), ReportError> {
        self.insert_with(report, |_, _| Ok(()))
    }

    /// Stores `report` as [`ReportStore::insert`] does, and whatever `also` writes in the same
    /// commit (the event announcing the report).
    pub fn insert_with(
        &self,
        report: &mut Report,
        also: impl FnOnce(&redb::WriteTransaction, &Report) -> Result<(), String>,
    ) -> Result<(), ReportError> {
        report.order = next_order(report.created, &self.last_order);
        let txn = self.db.begin_write().map_err(|e| self.fail(e))?;
        {
            let mut tables = Tables {
                store: self,
                reports: txn.open_table(REPORTS).map_err(|e| self.fail(e))?,
                summaries: txn.open_table(SUMMARIES).map_err(|e| self.fail(e))?,
                by_time: txn.open_table(BY_TIME).map_err(|e| self.fail(e))?,
            };
            tables.put(report, true)?;
        }
        also(&txn, report).map_err(|e| self.fail(e))?;
        txn.commit().map_err(|e| self.fail(e))?;
        Ok(())
    }

    fn write<T>(
        &self,
        f: impl FnOnce(&mut Tables<'_>) -> Result<T, ReportError>,
    ) -> Result<T, ReportError> {
        let txn = self.db.begin_write().map_err(|e| self.fail(e))?;
        let value = {
            let mut tables = Tables {
                store: self,
                reports: txn.open_table(REPORTS).map_err(|e| self.fail(e))?,
                summaries: txn.open_table(SUMMARIES).map_err(|e| self.fail(e))?,
                by_time: txn.open_table(BY_TIME).map_err(|e| self.fail(e))?,
            };
            f(&mut tables)?
        };
        txn.commit().map_err(|e| self.fail(e))?;
        Ok(value)
    }
}

impl ReportStore for EmbeddedReports {
    fn keep(&self, report: &mut Report, line: Option<BatchLine<'_>>) -> Result<usize, ReportError> {
        let mut announced = 0;
        self.insert_with(report, |txn, report| {
            announced = crate::webhooks::announce_in(txn, &Event::report_completed(report))
                .map_err(|e| e.to_string())?;
            match line {
                Some(line) => crate::batch::finish_in(txn, &line).map_err(|e| e.to_string()),
                None => Ok(()),
            }
        })?;
        Ok(announced)
    }

    /// The report `id`.
    fn get(&self, id: &str) -> Result<Report, ReportError> {
        let txn = self.db.begin_read().map_err(|e| self.fail(e))?;
        let table = txn.open_table(REPORTS).map_err(|e| self.fail(e))?;
        let stored = table
            .get(id)
            .map_err(|e| self.fail(e))?
            .ok_or_else(|| ReportError::NotFound(id.to_string()))?;
        decode(stored.value()).map_err(|e| self.fail(e))
    }

    fn decide(
        &self,
        id: &str,
        decision: Decision,
        note: Option<String>,
        by: &str,
    ) -> Result<Report, ReportError> {
        self.write(|tables| {
            let mut report = tables.get(id)?;
            apply_decision(&mut report, decision, note, by);
            tables.put(&report, false)?;
            Ok(report)
        })
    }

    fn delete(&self, id: &str) -> Result<bool, ReportError> {
        self.write(|tables| match tables.get(id) {
            Ok(report) => {
                tables.remove(&report)?;
                Ok(true)
            }
            Err(ReportError::NotFound(_)) => Ok(false),
            Err(e) => Err(e),
        })
    }

    fn delete_older_than(&self, cutoff: u64) -> Result<usize, ReportError> {
        let old: Vec<String> = {
            let txn = self.db.begin_read().map_err(|e| self.fail(e))?;
            let table = txn.open_table(BY_TIME).map_err(|e| self.fail(e))?;
            let mut ids = Vec::new();
            for row in table
                .range(..cutoff.saturating_mul(NANOS))
                .map_err(|e| self.fail(e))?
            {
                let (_, id) = row.map_err(|e| self.fail(e))?;
                ids.push(id.value().to_string());
            }
            ids
        };
        for chunk in old.chunks(1000) {
            self.write(|tables| {
                for id in chunk {
                    if let Ok(report) = tables.get(id) {
                        tables.remove(&report)?;
                    }
                }
                Ok(())
            })?;
        }
        Ok(old.len())
    }

    fn list(
        &self,
        filter: &ReportFilter,
        limit: usize,
        offset: usize,
    ) -> Result<(usize, Vec<ReportSummary>), ReportError> {
        let txn = self.db.begin_read().map_err(|e| self.fail(e))?;
        let by_time = txn.open_table(BY_TIME).map_err(|e| self.fail(e))?;
        let summaries = txn.open_table(SUMMARIES).map_err(|e| self.fail(e))?;
        let (from, to) = filter.places();
        let rows = by_time.range(from..to).map_err(|e| self.fail(e))?;
        let summaries = rows.rev().filter_map(|row| {
            let read = || {
                let (_, id) = row.map_err(|e| self.fail(e))?;
                let Some(stored) = summaries.get(id.value()).map_err(|e| self.fail(e))? else {
                    return Ok(None);
                };
                let summary = serde_json::from_slice(stored.value()).map_err(|e| self.fail(e))?;
                Ok(Some(summary))
            };
            read().transpose()
        });
        filter.page(summaries, limit, offset)
    }

    fn copy_to(&self, dest: &Path) -> Result<(), ReportError> {
        dupfinder_common::durable::copy_database(&self.db, dest, |from, to| {
            dupfinder_common::durable::copy_table(from, to, REPORTS)?;
            dupfinder_common::durable::copy_table(from, to, SUMMARIES)?;
            dupfinder_common::durable::copy_table(from, to, BY_TIME)?;
            // The webhooks registered live here too; their pending deliveries are not copied.
            crate::webhooks::copy_subscriptions(from, to)
        })
        .map_err(|e| self.fail(e))
    }
}

/// The tables of one write transaction.
struct Tables<'txn> {
    store: &'txn EmbeddedReports,
    reports: redb::Table<'txn, &'static str, &'static [u8]>,
    summaries: redb::Table<'txn, &'static str, &'static [u8]>,
    by_time: redb::Table<'txn, u64, &'static str>,
}

impl Tables<'_> {
    fn get(&self, id: &str) -> Result<Report, ReportError> {
        let stored = self
            .reports
            .get(id)
            .map_err(|e| self.store.fail(e))?
            .ok_or_else(|| ReportError::NotFound(id.to_string()))?;
        decode(stored.value()).map_err(|e| self.store.fail(e))
    }

    fn put(&mut self, report: &Report, new: bool) -> Result<(), ReportError> {
        let fail = |e: &dyn std::fmt::Display| self.store.fail(e);
        let id = report.report_id.as_str();
        let encoded = encode(report).map_err(|e| fail(&e))?;
        let summary = serde_json::to_vec(&report.summary()).map_err(|e| fail(&e))?;
        self.reports
            .insert(id, encoded.as_slice())
            .map_err(|e| fail(&e))?;
        self.summaries
            .insert(id, summary.as_slice())
            .map_err(|e| fail(&e))?;
        if new {
            self.by_time
                .insert(report.order, id)
                .map_err(|e| fail(&e))?;
        }
        Ok(())
    }

    fn remove(&mut self, report: &Report) -> Result<(), ReportError> {
        let id = report.report_id.as_str();
        let fail = |e: &dyn std::fmt::Display| self.store.fail(e);
        self.reports.remove(id).map_err(|e| fail(&e))?;
        self.summaries.remove(id).map_err(|e| fail(&e))?;
        self.by_time.remove(report.order).map_err(|e| fail(&e))?;
        Ok(())
    }
}

pub(super) fn encode(report: &Report) -> std::io::Result<Vec<u8>> {
    let mut encoder =
        flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    serde_json::to_writer(&mut encoder, report)?;
    encoder.flush()?;
    encoder.finish()
}

pub(super) fn decode(bytes: &[u8]) -> std::io::Result<Report> {
    let mut json = Vec::new();
    flate2::read::DeflateDecoder::new(bytes)
        .take(MAX_REPORT_BYTES)
        .read_to_end(&mut json)?;
    Ok(serde_json::from_slice(&json)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn report(store: &EmbeddedReports, created: u64, verdict: &str, library: &str) -> Report {
        Report {
            report_id: store.new_id().unwrap(),
            created,
            order: 0,
            submitter: "portal".into(),
            file: Some("paper.pdf".into()),
            settings: json!({"passages": true}),
            decision: Decision::NotChecked,
            note: None,
            history: Vec::new(),
            answer: json!({
                "verdict": verdict,
                "matches": [{"resemblance": 0.2, "containment_query": 0.7, "containment_doc": 0.1}],
                "generations": {library: 3},
            }),
            text: "Текст рукописи, которую проверили. ".repeat(100),
        }
    }

    #[test]
    fn reports_are_listed_newest_first_filtered_and_paged_and_decided_with_a_trail() {
        let dir = tempfile::tempdir().unwrap();
        let store = EmbeddedReports::open(&dir.path().join("reports.redb")).unwrap();
        let mut ids = Vec::new();
        for (i, verdict) in ["original", "partial", "duplicate", "partial"]
            .iter()
            .enumerate()
        {
            let library = if i % 2 == 0 { "ru" } else { "acl" };
            let mut r = report(&store, 1000 + i as u64, verdict, library);
            store.insert(&mut r).unwrap();
            ids.push(r.report_id);
        }
        let (total, page) = store.list(&ReportFilter::default(), 2, 0).unwrap();
        assert_eq!(total, 4);
        assert_eq!(page[0].report_id, ids[3]);
        assert_eq!(page[1].report_id, ids[2]);
        assert_eq!(page[0].similarity, 0.7);
        let (_, rest) = store.list(&ReportFilter::default(), 10, 2).unwrap();
        assert_eq!(rest.len(), 2);
        assert_eq!(rest[1].report_id, ids[0]);
        let partial = ReportFilter {
            verdict: Some("partial".into()),
            ..ReportFilter::default()
        };
        assert_eq!(store.list(&partial, 10, 0).unwrap().0, 2);
        let ru = ReportFilter {
            library: Some("ru".into()),
            from: Some(1001),
            ..ReportFilter::default()
        };
        let (total, page) = store.list(&ru, 10, 0).unwrap();
        assert_eq!((total, page[0].report_id.as_str()), (1, ids[2].as_str()));
        let within_ru = ReportFilter {
            within: Some(vec!["ru".into()]),
            ..ReportFilter::default()
        };
        let within_both = ReportFilter {
            within: Some(vec!["ru".into(), "acl".into()]),
            ..ReportFilter::default()
        };
        let within_none = ReportFilter {
            within: Some(vec!["none".into()]),
            ..ReportFilter::default()
        };
        let counted = |filter: &ReportFilter| store.list(filter, 10, 0).unwrap().0;
        assert_eq!(
            (
                counted(&within_ru),
                counted(&within_both),
                counted(&within_none)
            ),
            (2, 4, 0)
        );

        let decided = store
            .decide(
                &ids[1],
                Decision::Duplicate,
                Some("copied from ru/7".into()),
                "editor",
            )
            .unwrap();
        assert_eq!(decided.history.len(), 1);
        assert_eq!(decided.history[0].by, "editor");
        let again = store.get(&ids[1]).unwrap();
        assert_eq!(again.decision, Decision::Duplicate);
        assert_eq!(again.note.as_deref(), Some("copied from ru/7"));
        assert_eq!(again.text, report(&store, 0, "x", "y").text);
        let duplicates = ReportFilter {
            decision: Some(Decision::Duplicate),
            ..ReportFilter::default()
        };
        assert_eq!(store.list(&duplicates, 10, 0).unwrap().0, 1);

        assert!(store.delete(&ids[0]).unwrap());
        assert!(!store.delete(&ids[0]).unwrap());
        assert!(matches!(store.get(&ids[0]), Err(ReportError::NotFound(_))));
        assert_eq!(store.delete_older_than(1002).unwrap(), 1);
        assert_eq!(store.list(&ReportFilter::default(), 10, 0).unwrap().0, 2);
    }
}
