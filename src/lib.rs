//! dupfinder: near-duplicate and copied-passage detection for digital scientific libraries.
//!
//! This package is the command line and the binary; every layer is a crate of the workspace
//! (ARCHITECTURE.md, "Crates"), re-exported here under the module name it always had. In
//! data-flow order:
//! - [`error_code`], [`clock`], [`cancel`], [`admission`], `durable`, `outbound`
//!   (`dupfinder-common`): what every layer shares.
//! - [`extract`], [`analysis`], [`structure`] (`dupfinder-text`): files → text and its structure
//!   → tokens; a paper's parts, quotations and citations. No I/O.
//! - [`signature`] (`dupfinder-signature`): statistics snapshots and the TF-RIDF signature.
//! - [`storage`] and [`index`] (`dupfinder-storage`): the storage seam, and the tantivy and
//!   PostgreSQL backends behind it.
//! - [`check`] (`dupfinder-check`): candidates, verification and the verdict over the seam.
//! - [`library`], [`dedup`], [`reports`], [`webhooks`], [`batch`], [`backup`], [`config`]
//!   (`dupfinder-service`): the service root, the `Catalog`, and the services it composes.
//! - [`crawl`] (`dupfinder-harvest`): harvesting library sites.
//! - [`api`] (`dupfinder-api`) and [`web`] (`dupfinder-web`): the HTTP API and the UI's assets.
//! - [`eval`] (`dupfinder-eval`): how quality is measured.

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
