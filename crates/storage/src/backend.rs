//! The backends and what each offers: its libraries.

use std::sync::Arc;

use super::library::LibraryStore;
use crate::index::IndexError;

/// Which backend keeps the libraries (`[storage] backend`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// One tantivy index per library under the data directory.
    #[default]
    Tantivy,
    /// One PostgreSQL database (`[storage.postgres] url`).
    Postgres,
}

impl Backend {
    /// The name `[storage] backend` spells it with.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Tantivy => "tantivy",
            Backend::Postgres => "postgres",
        }
    }
}

/// The libraries of one backend.
pub trait Storage: Send + Sync {
    /// Creates the library `id` (or opens it when it exists).
    fn create(&self, id: &str) -> Result<Arc<dyn LibraryStore>, IndexError>;

    /// Opens the library `id`, if it exists.
    fn open(&self, id: &str) -> Result<Option<Arc<dyn LibraryStore>>, IndexError>;

    /// Deletes the library `id` and everything in it; whether it existed.
    fn delete(&self, id: &str) -> Result<bool, IndexError>;

    /// The ids of every library, sorted.
    fn list(&self) -> Result<Vec<String>, IndexError>;
}
