//! What is kept with a library beside its documents: its boilerplate phrases and the state of
//! its dedup job (checkpoint, edges, clusters, alerts). On tantivy that is files in the
//! library's folder, this process's own; on PostgreSQL it is rows of the database, so that every
//! process serving the database reads and changes the same ones at once.
//!
//! The seam offers primitives only (named JSON documents, append-only logs of JSON lines, locks
//! across processes, phrase rows); what they mean stays with `dedup/` and `library/phrases.rs`,
//! one code path for both backends.

use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::index::IndexError;

/// Where a library's kept state lives.
#[derive(Clone)]
pub enum Kept {
    /// Files in the library's folder on this machine.
    Folder(PathBuf),
    /// Rows of the database that holds the library.
    Rows(Arc<dyn KeptRows>),
}

/// A boilerplate phrase of a library and who added it when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Phrase {
    /// A stable short id (a hash of the text), for removal.
    pub id: String,
    pub text: String,
    /// Unix seconds.
    pub added: u64,
    /// The key name that added it (`-` without a key).
    pub by: String,
}

/// What adding a phrase to the rows did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AddedPhrase {
    /// The phrase is new.
    New,
    /// The library held a phrase of this id already: this one.
    Held(Phrase),
    /// The library holds the most phrases it may: nothing was added.
    Full,
}

/// A lock across every process serving a database, for one library.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeptLock {
    /// The right to run the library's dedup job: held for the whole job.
    DedupJob,
    /// Changes of the library's clusters (a job's start and finish, arrivals, deletions): held
    /// for each change, so that a process reading the clusters before changing them sees the
    /// others' changes.
    DedupState,
}

/// A held [`KeptLock`], released when dropped.
pub type Held = Box<dyn Send>;

/// The library's kept state as rows of a database. Every call is its own transaction,
/// committed when it returns.
pub trait KeptRows: Send + Sync {
    /// A name for the library's rows that is unique in this process (two databases may hold
    /// libraries of one id).
    fn place(&self) -> String;

    /// The JSON document `name`, if there is one.
    fn document(&self, name: &str) -> Result<Option<String>, IndexError>;

    /// Writes `json` as the document `name` and empties the logs `emptied`, in one transaction.
    fn put_document(&self, name: &str, json: &str, emptied: &[&str]) -> Result<(), IndexError>;

    /// Removes the document `name`.
    fn remove_document(&self, name: &str) -> Result<(), IndexError>;

    /// Appends `lines` (JSON each) to the log `log`, in their order.
    fn append(&self, log: &str, lines: &[String]) -> Result<(), IndexError>;

    /// Every line of the log `log`, in the order they were appended; `visit` sees each.
    fn lines(&self, log: &str, visit: &mut dyn FnMut(String)) -> Result<(), IndexError>;

    /// A mark of the log `log` as it is now: [`KeptRows::cut`] to it removes what is appended
    /// after. `0` is the mark of an empty log.
    fn mark(&self, log: &str) -> Result<u64, IndexError>;

    /// Removes the lines of the log `log` appended after `mark`.
    fn cut(&self, log: &str, mark: u64) -> Result<(), IndexError>;

    /// A stamp of the document `name` and the log `log` that changes whenever either does.
    fn stamp(&self, name: &str, log: &str) -> Result<(Option<i64>, Option<i64>), IndexError>;

    /// Takes `lock`: waits for it when `wait`, else answers `None` at once when another
    /// session holds it.
    fn hold(&self, lock: KeptLock, wait: bool) -> Result<Option<Held>, IndexError>;

    /// The library's phrases, oldest first.
    fn phrases(&self) -> Result<Vec<Phrase>, IndexError>;

    /// Adds `phrase` unless the library holds one of its id or `most` phrases already.
    fn add_phrase(&self, phrase: &Phrase, most: usize) -> Result<AddedPhrase, IndexError>;

    /// Removes the phrase `id`; the phrase removed, if there was one.
    fn remove_phrase(&self, id: &str) -> Result<Option<Phrase>, IndexError>;
}
