//! Full-text search of a library (`GET /api/v1/libraries/{id}/search`). Every parameter is
//! validated with a coded 400 before the index is touched.

use axum::Json;
use axum::extract::{RawQuery, State};
use serde::Deserialize;

use super::params::{page_limit, page_offset, query_params};
use super::path::Path;
use super::{ApiError, AppState, ErrorCode};
use dupfinder_service::library::LibraryError;
use dupfinder_storage::index::{QueryError, SearchError, SearchResults};

/// Deepest page of search results.
const MAX_SEARCH_OFFSET: usize = 10_000;

#[derive(Deserialize)]
struct SearchParams {
    q: Option<String>,
    limit: Option<usize>,
    offset: Option<usize>,
}

pub(super) async fn search_library(
    State(state): State<AppState>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> Result<Json<SearchResults>, ApiError> {
    let params: SearchParams = query_params(raw.as_deref().unwrap_or_default())?;
    let query = params.q.unwrap_or_default();
    if query.trim().is_empty() {
        return Err(ApiError::new(
            ErrorCode::MissingQuery,
            "the parameter `q` is required",
        ));
    }
    let max_query = state.catalog.config().limits.max_query_bytes;
    if query.len() > max_query {
        return Err(ApiError::new(
            ErrorCode::QueryTooLong,
            format!("the query is longer than {max_query} bytes"),
        ));
    }
    let limit = page_limit(params.limit, 10)?;
    let offset = page_offset(params.offset, MAX_SEARCH_OFFSET)?;
    let store = state.catalog.store(&id)?;
    let results = tokio::task::spawn_blocking(move || store.search(&query, limit, offset))
        .await?
        .map_err(|e| match e {
            SearchError::InvalidQuery(message) => ApiError::new(ErrorCode::InvalidQuery, message),
            SearchError::Query(e @ QueryError::UnknownField(_)) => {
                ApiError::new(ErrorCode::UnknownField, e.to_string())
            }
            SearchError::Query(e) => ApiError::new(ErrorCode::InvalidQuery, e.to_string()),
            SearchError::Index(e) => LibraryError::from(e).into(),
        })?;
    Ok(Json(results))
}
