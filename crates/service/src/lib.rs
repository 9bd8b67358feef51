//! The library services, composed in one service root: [`library::Catalog`] holds the
//! libraries (through the storage seam), their registry, the keys and audit log, the reports,
//! the webhooks and the batches, and every service below reaches the others through it.
//!
//! - [`library`]: the registry of libraries, the catalog of open libraries, ingest and import,
//!   keys, and a check's or a file check's way to the libraries it reads.
//! - [`dedup`]: duplicates inside a library: the dedup job, clusters, arrivals and alerts.
//! - [`reports`]: stored checks with their decisions, and the PDF report.
//! - [`webhooks`]: subscriptions and the outbox of events delivered to them.
//! - [`batch`]: batches of files checked in the background.
//! - [`backup`]: backups of a data directory taken while the server runs, and restores.
//! - [`config`]: the service's settings, composed from each layer's own.
//!
//! The services import each other (a report announces a webhook event, a delete leaves the
//! dedup clusters): that is why they share one crate. Nothing here serves HTTP or crawls.

pub mod backup;
pub mod batch;
pub mod config;
pub mod dedup;
pub mod library;
mod pg;
pub mod reports;
pub mod webhooks;
