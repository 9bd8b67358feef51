//! dupfinder: near-duplicate and copied-passage detection for digital scientific libraries.
//!
//! The stages, in data-flow order:
//! - [`error_code`]: every error code of the service, with the HTTP status of those answered;
//!   it uses nothing else of the crate.
//! - [`extract`]: files (PDF, DOCX, ODT, RTF, HTML, JATS/TEI, plain text) → text and its
//!   structure; the format told from the content.
//! - [`analysis`]: text → tokens (normalization, homoglyph folding, language, stop words,
//!   stemming, positions and offsets). No I/O.
//! - [`signature`]: statistics snapshots and the TF-RIDF signature. No I/O.
//! - [`index`]: per-library tantivy indexes, snapshots on disk, signature generations.
//! - [`storage`]: the storage seam, and the tantivy and PostgreSQL backends behind it.
//! - [`library`]: the library registry, the catalog of open libraries, ingest and import.
//! - [`crawl`]: harvesting library sites: the crawl queue, frontier, polite fetching,
//!   extraction, sitemaps and OAI-PMH.
//! - [`structure`]: a paper's parts, quotations and citations read from its plain text. No
//!   I/O.
//! - [`check`]: candidates, verification and the verdict.
//! - [`reports`]: stored checks with their decisions, and the PDF report.
//! - [`dedup`]: duplicates inside a library: the dedup job, clusters, arrivals and alerts.
//! - [`admission`]: places for heavy work (checks, file extractions) and a bounded waiting room.
//! - `outbound`: the network guard of the service's own requests (crawler, webhooks).
//! - `durable`: durable small files and consistent copies of the embedded stores.
//! - [`backup`]: backups of a data directory taken while the server runs, and restores.
//! - [`api`]: the HTTP API.
//! - [`web`]: the web UI's assets, served by the API.

pub use dupfinder_api as api;
pub use dupfinder_check as check;
pub use dupfinder_common::{admission, cancel, clock, durable, error_code, outbound};
pub use dupfinder_eval as eval;
pub use dupfinder_harvest as crawl;
pub use dupfinder_service::{backup, batch, config, dedup, library, reports, webhooks};
pub use dupfinder_signature as signature;
pub use dupfinder_storage::{self as storage, index};
pub use dupfinder_text::{analysis, extract, structure};
pub use dupfinder_web as web;
