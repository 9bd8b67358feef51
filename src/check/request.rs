//! What a portal asks, and why a check could not run.

use crate::index::IndexError;
use crate::library::{DocumentError, LibraryError};

/// What a portal asks.
#[derive(Debug, Clone)]
pub struct CheckRequest {
    pub text: String,
    /// Libraries to check against; `None` means all.
    pub libraries: Option<Vec<String>>,
    pub passages: bool,
    /// Matches whose best similarity is below this are not returned.
    pub min_similarity: f64,
    pub lang: Option<String>,
}

impl CheckRequest {
    /// A request for `text` against every library, with the defaults.
    pub fn new(text: impl Into<String>) -> Self {
        CheckRequest {
            text: text.into(),
            libraries: None,
            passages: false,
            min_similarity: 0.0,
            lang: None,
        }
    }

    /// The libraries to check against, each once, in the order first named: a library named
    /// twice would be searched twice and report every match twice. `None` means all.
    pub fn distinct_libraries(&self) -> Option<Vec<String>> {
        let named = self.libraries.as_ref()?;
        let mut seen = std::collections::HashSet::new();
        Some(
            named
                .iter()
                .filter(|id| seen.insert(id.as_str()))
                .cloned()
                .collect(),
        )
    }
}

/// Why a check could not run.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error(transparent)]
    Text(#[from] DocumentError),
    #[error(transparent)]
    Library(#[from] LibraryError),
    #[error("min_similarity must be between 0 and 1, not {0}")]
    InvalidSimilarity(f64),
    #[error("`libraries` is empty; leave it out to check against every library")]
    NoLibraries,
}

impl From<IndexError> for CheckError {
    fn from(e: IndexError) -> Self {
        CheckError::Library(e.into())
    }
}
