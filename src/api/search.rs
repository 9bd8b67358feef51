//! Reading a library: full-text search (`GET /api/v1/libraries/{id}/search`) and the listing of
//! its documents (`GET /api/v1/libraries/{id}/documents`). Every parameter is validated with a
//! coded 400 before the index is touched.

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::{ApiError, AppState};
use crate::index::{DocumentPage, QueryError, SearchError, SearchResults, SortKey, SortOrder};
use crate::library::LibraryError;

/// Deepest page of search results.
const MAX_SEARCH_OFFSET: usize = 10_000;
/// Deepest page of a listing.
const MAX_LIST_OFFSET: usize = 10_000_000;

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
        return Err(ApiError::bad_request(
            "missing_query",
            "the parameter `q` is required",
        ));
    }
    let max_query = state.catalog.config().limits.max_query_bytes;
    if query.len() > max_query {
        return Err(ApiError::bad_request(
            "query_too_long",
            format!("the query is longer than {max_query} bytes"),
        ));
    }
    let limit = page_limit(params.limit, 10)?;
    let offset = page_offset(params.offset, MAX_SEARCH_OFFSET)?;
    let index = state.catalog.index(&id)?;
    let results = tokio::task::spawn_blocking(move || index.search(&query, limit, offset))
        .await?
        .map_err(|e| match e {
            SearchError::InvalidQuery(message) => ApiError::bad_request("invalid_query", message),
            SearchError::Query(e @ QueryError::UnknownField(_)) => {
                ApiError::bad_request("unknown_field", e.to_string())
            }
            SearchError::Query(e) => ApiError::bad_request("invalid_query", e.to_string()),
            SearchError::Index(e) => LibraryError::from(e).into(),
        })?;
    Ok(Json(results))
}

#[derive(Deserialize)]
struct ListParams {
    sort: Option<String>,
    order: Option<String>,
    limit: Option<usize>,
    offset: Option<usize>,
}

pub(super) async fn list_documents(
    State(state): State<AppState>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> Result<Json<DocumentPage>, ApiError> {
    let params: ListParams = query_params(raw.as_deref().unwrap_or_default())?;
    let sort = match params.sort.as_deref() {
        None => SortKey::AddedAt,
        Some(name) => SortKey::parse(name).ok_or_else(|| {
            ApiError::bad_request(
                "invalid_sort",
                format!("`sort` must be added_at, title, year or doc_id, not `{name}`"),
            )
        })?,
    };
    let order = match params.order.as_deref() {
        // Newest and most recent first; names in alphabetical order.
        None if matches!(sort, SortKey::AddedAt | SortKey::Year) => SortOrder::Desc,
        None => SortOrder::Asc,
        Some("asc") => SortOrder::Asc,
        Some("desc") => SortOrder::Desc,
        Some(other) => {
            return Err(ApiError::bad_request(
                "invalid_order",
                format!("`order` must be asc or desc, not `{other}`"),
            ));
        }
    };
    let limit = page_limit(params.limit, 20)?;
    let offset = page_offset(params.offset, MAX_LIST_OFFSET)?;
    let index = state.catalog.index(&id)?;
    let page = tokio::task::spawn_blocking(move || index.browse(sort, order, limit, offset))
        .await?
        .map_err(LibraryError::from)?;
    Ok(Json(page))
}

fn page_limit(limit: Option<usize>, default: usize) -> Result<usize, ApiError> {
    match limit.unwrap_or(default) {
        limit @ 1..=100 => Ok(limit),
        _ => Err(ApiError::bad_request(
            "invalid_limit",
            "`limit` must be between 1 and 100",
        )),
    }
}

fn page_offset(offset: Option<usize>, max: usize) -> Result<usize, ApiError> {
    match offset.unwrap_or(0) {
        offset if offset <= max => Ok(offset),
        _ => Err(ApiError::bad_request(
            "invalid_offset",
            format!("`offset` must be at most {max}"),
        )),
    }
}

/// Parses query parameters, answering a coded 400 instead of axum's plain-text rejection.
/// Numbers are recognized for every parameter but `q`, so a non-numeric `limit` is refused.
fn query_params<T: DeserializeOwned>(raw: &str) -> Result<T, ApiError> {
    let value = serde_json::Value::Object(
        url::form_urlencoded::parse(raw.as_bytes())
            .into_owned()
            .map(|(k, v)| {
                let v = match v.parse::<u64>() {
                    Ok(n) if k != "q" => serde_json::Value::from(n),
                    _ => serde_json::Value::String(v),
                };
                (k, v)
            })
            .collect(),
    );
    serde_json::from_value(value).map_err(|e| {
        ApiError::bad_request("invalid_parameter", format!("invalid query parameter: {e}"))
    })
}
