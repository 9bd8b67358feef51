//! A check as the service runs it: the libraries a request names (or every library) found in
//! the catalog, then checked through the storage seam by `dupfinder-check`, with the catalog's
//! analyzer, `[check]` rules and `[limits]`.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use dupfinder_check::{
    CancelFlag, CheckError, CheckReport, CheckRequest, Checker, Method, StoreRef, check_libraries,
    raw_candidates as raw_candidates_in,
};

use super::{Catalog, LibraryError};
use dupfinder_storage::LibraryStore;

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
    let (ids, named) = match request.distinct_libraries() {
        Some(ids) if ids.is_empty() => return Err(CheckError::NoLibraries.into()),
        Some(ids) => (ids, true),
        None => (catalog.ids()?, false),
    };
    // Every library asked for is opened now: it must exist and its id be valid. Of every
    // library, each is opened only if the check looks in it.
    let asked: Vec<Arc<dyn LibraryStore>> = match named {
        true => ids
            .iter()
            .map(|id| catalog.store(id))
            .collect::<Result<_, _>>()?,
        false => Vec::new(),
    };
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    let open = |i: usize| -> Result<Option<StoreRef<'_>>, LibraryError> {
        if let Some(store) = asked.get(i) {
            return Ok(Some(StoreRef::Borrowed(store.as_ref())));
        }
        match catalog.storage().open(ids[i]) {
            Ok(store) => Ok(store.map(StoreRef::Shared)),
            // Deleted since the list was made: passed over.
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(e.into()),
        }
    };
    check_libraries(
        &catalog.checker(),
        &ids,
        &open,
        Some(catalog.storage()),
        request,
        cancel,
        started,
    )
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
