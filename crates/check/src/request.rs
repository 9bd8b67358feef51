//! What a portal asks, and why a check could not run.

use super::ExcludeRequest;
pub use dupfinder_common::cancel::{CancelFlag, CancelOnDrop};
use dupfinder_common::error_code::ErrorCode;
use dupfinder_storage::index::IndexError;
use dupfinder_text::analysis::DocumentError;

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
    /// Whether translated copies are looked for (when a lexicon is at hand).
    pub cross_language: bool,
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
            cross_language: true,
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

/// `Err(Cancelled)` once the check's flag is set: nobody waits for its answer any more.
pub(super) fn go_on(cancel: &CancelFlag) -> Result<(), CheckError> {
    if cancel.is_cancelled() {
        Err(CheckError::Cancelled)
    } else {
        Ok(())
    }
}

/// Why a check could not run.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error(transparent)]
    Text(#[from] DocumentError),
    /// A library could not be read.
    #[error(transparent)]
    Storage(#[from] IndexError),
    #[error("min_similarity must be between 0 and 1, not {0}")]
    InvalidSimilarity(f64),
    #[error("`libraries` is empty; leave it out to check against every library")]
    NoLibraries,
    #[error("the check was given up before it finished: nobody waited for its answer")]
    Cancelled,
    /// The check needed more work than one check may do (`[check]` `max_checked_candidates`,
    /// `max_passages`, `max_verification_steps`).
    #[error(
        "the check needs more work than one check may do: more than {limit} {what} \
         ([check] {key}); check a shorter text or fewer libraries"
    )]
    WorkBudgetExceeded {
        what: &'static str,
        key: &'static str,
        limit: u64,
    },
}

impl CheckError {
    /// The stable code of this failure.
    pub fn code(&self) -> ErrorCode {
        match self {
            CheckError::Text(e) => e.code(),
            // Deleted by another process while the check read it.
            CheckError::Storage(e) if e.is_no_such_library() => ErrorCode::LibraryNotFound,
            CheckError::Storage(_) => ErrorCode::Internal,
            CheckError::InvalidSimilarity(_) => ErrorCode::InvalidMinSimilarity,
            CheckError::NoLibraries => ErrorCode::InvalidLibraries,
            // Only a check nobody waits for is cancelled; the answer is not read.
            CheckError::Cancelled => ErrorCode::Timeout,
            CheckError::WorkBudgetExceeded { .. } => ErrorCode::WorkBudgetExceeded,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropping_the_guard_cancels_and_the_flag_is_shared_by_its_clones() {
        let flag = CancelFlag::new();
        let seen_by_the_check = flag.clone();
        let guard = flag.cancel_on_drop();
        assert!(go_on(&seen_by_the_check).is_ok());
        drop(guard);
        assert!(matches!(
            go_on(&seen_by_the_check),
            Err(CheckError::Cancelled)
        ));
    }

    #[test]
    fn a_library_named_twice_is_kept_once_in_the_order_first_named() {
        let mut request = CheckRequest::new("text");
        assert_eq!(request.distinct_libraries(), None);
        request.libraries = Some(["b", "a", "b", "a", "c"].map(String::from).to_vec());
        assert_eq!(request.distinct_libraries().unwrap(), ["b", "a", "c"]);
    }
}
