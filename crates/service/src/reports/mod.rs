//! Stored reports: every check an editor or a portal makes is kept — the answer as it was
//! sent, the checked text, who asked, when, against which libraries and generations, with which
//! settings — with the decision taken on it and the trail of who changed that decision when.
//! Kept in `<data>/reports.redb` or, on PostgreSQL, in the database (texts compressed), listed newest first, dropped after
//! `[reports] keep_days`.

mod decision;
pub mod numbers;
mod pdf;
mod reapply;
mod report;
mod store;
mod store_pg;

pub use decision::{Decision, DecisionChange};
pub use pdf::{PdfError, render_pdf};
pub use reapply::{ReapplyError, reapply, stored_exclusions};
pub use report::{Report, ReportSummary, match_similarity};
pub use store::{EmbeddedReports, ReportError, ReportFilter, ReportStore, made_within};
pub use store_pg::PgReports;
