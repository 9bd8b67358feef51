//! The storage seam: what the service needs from wherever a library's documents, statistics and
//! signatures live. Two backends implement it: tantivy ([`tantivy`], the embedded default, one
//! index per library under the data directory) and PostgreSQL ([`postgres`], one database that
//! Citus can distribute by library).
//!
//! The seam is three traits, from the outside in:
//! - [`Storage`]: the libraries of one backend — create, open, delete, list, their records
//!   ([`LibraryRecord`]), their writes and what a failed one leaves behind, and the features
//!   only one backend offers, which the other answers [`BackendError::Unsupported`] for. The
//!   service opens one with [`open_storage`] and never asks which backend it is;
//! - [`LibraryStore`]: one library (write a batch, delete, its summary, browse, re-index, and a
//!   read view);
//! - [`ReadView`]: one consistent read of a library pinned to one statistics generation, through
//!   which every lookup and stored read of a check goes.
//!
//! A library's errors stay [`IndexError`]s, so that the check, the catalog and the API keep one
//! error path; a backend's own failures travel as [`IndexError::Storage`]. What the operations
//! of [`Storage`] answer is a [`BackendError`].

pub mod candidates;
pub mod index;
pub mod ingest;
pub mod phrases;
pub mod postgres;
pub mod tantivy;

pub use backend::{Backend, Storage, open_storage};
pub use config::{PostgresConfig, StorageConfig};
pub use error::{BackendError, StorageError};
pub use fault::StorageFault;
pub use kept::{AddedPhrase, Held, Kept, KeptLock, KeptRows, Phrase};
pub use library::{LibraryStore, ReindexClaim, UnfinishedReindex};
pub use library_id::LibraryId;
pub use registry::{LibraryRecord, RecordChange, Registry, RegistryError, Schedule};
pub use view::ReadView;

mod backend;
mod config;
mod error;
mod fault;
mod kept;
mod library;
mod library_id;
mod registry;
mod view;
