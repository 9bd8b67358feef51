//! A check as the service runs it: the libraries a request names (or every library) found in
//! the catalog, then checked through the storage seam by `dupfinder-check`, with the catalog's
//! analyzer, `[check]` rules and `[limits]`.

use std::collections::HashMap;
use std::time::Instant;

use dupfinder_check::{
    CancelFlag, CheckError, CheckReport, CheckRequest, Checker, Method, check_stores,
    raw_candidates as raw_candidates_in,
};
use dupfinder_storage::LibraryStore;

use super::{Catalog, LibraryError};

impl Catalog {
    /// What this catalog's checks run with.
    pub fn checker(&self) -> Checker<'_> {
        Checker {
            analyzer: self.analyzer(),
            config: &self.config().check,
            text_limits: self.config().limits.text(),
        }
    }
}

/// Checks a text against the requested libraries.
pub fn check(catalog: &Catalog, request: &CheckRequest) -> Result<CheckReport, LibraryError> {
    check_cancellable(catalog, request, &CancelFlag::new())
}

/// Checks a text against the requested libraries, stopping with [`CheckError::Cancelled`]
/// between steps (each library, each candidate) once `cancel` is set.
pub fn check_cancellable(
    catalog: &Catalog,
    request: &CheckRequest,
    cancel: &CancelFlag,
) -> Result<CheckReport, LibraryError> {
    let started = Instant::now();
    if !(0.0..=1.0).contains(&request.min_similarity) {
        return Err(CheckError::InvalidSimilarity(request.min_similarity).into());
    }
    let ids = match request.distinct_libraries() {
        Some(ids) if ids.is_empty() => return Err(CheckError::NoLibraries.into()),
        Some(ids) => ids,
        None => catalog.ids()?,
    };
    let libraries = ids
        .iter()
        .map(|id| catalog.store(id).map(|store| (id.as_str(), store)))
        .collect::<Result<Vec<_>, _>>()?;
    let stores: Vec<(&str, &dyn LibraryStore)> = libraries
        .iter()
        .map(|(id, store)| (*id, store.as_ref()))
        .collect();
    Ok(check_stores(
        &catalog.checker(),
        &stores,
        Some(catalog.storage()),
        request,
        cancel,
        started,
    )?)
}

/// The unverified candidates each method finds for a text in one library: what the methods
/// would answer on their own, for evaluation.
pub fn raw_candidates(
    catalog: &Catalog,
    library: &str,
    text: &str,
) -> Result<HashMap<Method, Vec<String>>, LibraryError> {
    let store = catalog.store(library)?;
    let view = store.view()?;
    Ok(raw_candidates_in(&catalog.checker(), view.as_ref(), text)?)
}
