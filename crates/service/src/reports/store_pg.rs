//! The reports in the database (`reports`: each report's place in the list, its list line and
//! the report compressed), shared by every server process: a report kept through one is read,
//! listed and decided through any other. A report is kept in one transaction with the event
//! announcing it and, for a batch's file, the file's line (`webhooks/store_pg.rs`,
//! `batch/store_pg.rs`).

use std::path::Path;
use std::sync::atomic::AtomicU64;

use dupfinder_storage::postgres::PgDatabase;

use super::store::{NANOS, apply_decision, decode, encode, next_order};
use super::{Decision, Report, ReportError, ReportFilter, ReportStore, ReportSummary};
use crate::batch::BatchLine;
use crate::pg::{Client, DbFail, run};
use crate::webhooks::Event;

/// The reports of a PostgreSQL database.
pub struct PgReports {
    db: PgDatabase,
    /// The last place given by this process (places of two processes may tie; the list then
    /// orders by id).
    last_order: AtomicU64,
}

fn fail(e: DbFail) -> ReportError {
    ReportError::Store {
        path: "the database".into(),
        reason: e.0,
    }
}

/// Rows of `reports` as they are written.
fn row_values(report: &Report) -> Result<(String, Vec<u8>), DbFail> {
    Ok((serde_json::to_string(&report.summary())?, encode(report)?))
}

/// The report `id`, locked for the transaction `client` runs.
async fn locked(tx: &tokio_postgres::Transaction<'_>, id: &str) -> Result<Option<Report>, DbFail> {
    let row = tx
        .query_opt(
            "SELECT body FROM reports WHERE report_id = $1 FOR UPDATE",
            &[&id],
        )
        .await?;
    match row {
        Some(row) => Ok(Some(decode(row.get::<_, &[u8]>(0))?)),
        None => Ok(None),
    }
}

impl PgReports {
    pub fn new(db: PgDatabase) -> PgReports {
        PgReports {
            db,
            last_order: AtomicU64::new(0),
        }
    }
}

impl ReportStore for PgReports {
    fn keep(&self, report: &mut Report, line: Option<BatchLine<'_>>) -> Result<usize, ReportError> {
        report.order = next_order(report.created, &self.last_order);
        let (summary, body) = row_values(report).map_err(fail)?;
        let event = Event::report_completed(report);
        let (id, order) = (report.report_id.as_str(), report.order as i64);
        run(&self.db, async |client: &mut Client| {
            let tx = client.transaction().await?;
            tx.execute(
                "INSERT INTO reports (report_id, ord, summary, body) VALUES ($1, $2, $3, $4)",
                &[&id, &order, &summary, &body],
            )
            .await?;
            let announced = crate::webhooks::announce_in_pg(&tx, &event).await?;
            if let Some(line) = &line {
                crate::batch::finish_in_pg(&tx, line).await?;
            }
            tx.commit().await?;
            Ok(announced)
        })
        .map_err(fail)
    }

    fn get(&self, id: &str) -> Result<Report, ReportError> {
        let found = run(&self.db, async |client| {
            let row = client
                .query_opt("SELECT body FROM reports WHERE report_id = $1", &[&id])
                .await?;
            match row {
                Some(row) => Ok(Some(decode(row.get::<_, &[u8]>(0))?)),
                None => Ok(None),
            }
        })
        .map_err(fail)?;
        found.ok_or_else(|| ReportError::NotFound(id.to_string()))
    }

    fn decide(
        &self,
        id: &str,
        decision: Decision,
        note: Option<String>,
        by: &str,
    ) -> Result<Report, ReportError> {
        let decided = run(&self.db, async |client| {
            let tx = client.transaction().await?;
            let Some(mut report) = locked(&tx, id).await? else {
                return Ok(None);
            };
            apply_decision(&mut report, decision, note, by);
            let (summary, body) = row_values(&report)?;
            tx.execute(
                "UPDATE reports SET summary = $2, body = $3 WHERE report_id = $1",
                &[&id, &summary, &body],
            )
            .await?;
            tx.commit().await?;
            Ok(Some(report))
        })
        .map_err(fail)?;
        decided.ok_or_else(|| ReportError::NotFound(id.to_string()))
    }

    fn delete(&self, id: &str) -> Result<bool, ReportError> {
        run(&self.db, async |client| {
            Ok(client
                .execute("DELETE FROM reports WHERE report_id = $1", &[&id])
                .await?
                == 1)
        })
        .map_err(fail)
    }

    fn delete_older_than(&self, cutoff: u64) -> Result<usize, ReportError> {
        let before = cutoff.saturating_mul(NANOS).min(i64::MAX as u64) as i64;
        run(&self.db, async |client| {
            Ok(client
                .execute("DELETE FROM reports WHERE ord < $1", &[&before])
                .await? as usize)
        })
        .map_err(fail)
    }

    /// Reads the list lines of the time range, newest first, and filters them as the embedded
    /// store does.
    fn list(
        &self,
        filter: &ReportFilter,
        limit: usize,
        offset: usize,
    ) -> Result<(usize, Vec<ReportSummary>), ReportError> {
        let (from, to) = filter.places();
        let (from, to) = (
            from.min(i64::MAX as u64) as i64,
            to.min(i64::MAX as u64) as i64,
        );
        run(&self.db, async |client| {
            let rows = client
                .query(
                    "SELECT summary FROM reports WHERE ord >= $1 AND ord < $2
                     ORDER BY ord DESC, report_id DESC",
                    &[&from, &to],
                )
                .await?;
            let summaries = rows
                .iter()
                .map(|row| serde_json::from_str(row.get::<_, &str>(0)).map_err(DbFail::from));
            filter.page(summaries, limit, offset)
        })
        .map_err(fail)
    }

    fn copy_to(&self, _dest: &Path) -> Result<(), ReportError> {
        Err(fail(DbFail(
            "the reports live in the database; back it up with pg_dump".to_string(),
        )))
    }
}
