//! What a portal asks, and why a check could not run.

use super::ExcludeRequest;
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
    /// What does not count; the configured defaults where it says nothing.
    pub exclude: ExcludeRequest,
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
            exclude: ExcludeRequest::default(),
        }
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
