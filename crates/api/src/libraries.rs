//! Libraries over HTTP (`/api/v1/libraries`): create one, or import many as JSON Lines (a
//! registry import), list a page of them filtered by id or name, describe, delete; a library is
//! shown with its crawl status. A key limited to libraries is listed its own alone.

use axum::extract::{FromRequest, RawQuery, Request, State};
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde::Deserialize;
use serde_json::{Value, json};

use super::auth::{Identity, limited};
use super::body::{TextBody, check_line_count};
use super::documents::is_json_lines;
use super::params::{page_offset, query_params};
use super::path::Path;
use super::{ApiError, AppState, ErrorCode};
use dupfinder_service::library::{
    LibraryDeclaration, LibraryError, LibraryInfo, LibraryQuery, RegistryImport,
};

fn with_crawl_status(state: &AppState, info: LibraryInfo) -> Result<Value, ApiError> {
    Ok(state.crawl.describe(info)?)
}

/// One library as JSON (`201` the library; `409 library_exists`), or a registry import as JSON
/// Lines, one library per line (`200 {"created","updated","unchanged","rejected"}`).
pub(super) async fn create_library(
    State(state): State<AppState>,
    request: Request,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let content_type = request
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_ascii_lowercase);
    let json_lines = is_json_lines(content_type.as_deref());
    if json_lines {
        let import = import_libraries(&state, request).await?;
        return Ok((StatusCode::OK, Json(json!(import))));
    }
    let body = TextBody::from_request(request, &state).await?;
    let limits = &state.catalog.config().limits;
    if body.text.trim().is_empty() {
        return Err(ApiError::new(
            ErrorCode::InvalidJson,
            "the request body is empty; a JSON object is expected",
        ));
    }
    let spec = LibraryDeclaration::parse(&body.text, limits.max_json_depth)
        .map_err(LibraryError::from)?
        .into_new();
    let catalog = state.catalog.clone();
    let info = tokio::task::spawn_blocking(move || catalog.create(spec)).await??;
    // A library created again under the id of a deleted one starts with no crawl state.
    state.crawl.forget(&info.id).await?;
    Ok((StatusCode::CREATED, Json(with_crawl_status(&state, info)?)))
}

/// A registry import: bounded in lines and bytes before anything is applied, then line by line.
async fn import_libraries(state: &AppState, request: Request) -> Result<RegistryImport, ApiError> {
    let limits = &state.catalog.config().limits;
    let too_large = || {
        ApiError::new(
            ErrorCode::BodyTooLarge,
            format!(
                "a registry import is at most {} bytes ([limits] max_registry_bytes); send the \
                 libraries in several requests",
                limits.max_registry_bytes
            ),
        )
    };
    let announced = request
        .headers()
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<usize>().ok());
    if announced.is_some_and(|length| length > limits.max_registry_bytes) {
        return Err(too_large());
    }
    let body = TextBody::from_request(request, state).await?;
    if body.text.len() > limits.max_registry_bytes {
        return Err(too_large());
    }
    check_line_count(
        &body.text,
        limits.max_registry_lines,
        "libraries",
        "max_registry_lines",
    )?;
    let catalog = state.catalog.clone();
    let import = tokio::task::spawn_blocking(move || {
        catalog.import_libraries(body.text.lines().enumerate().map(|(i, line)| (i + 1, line)))
    })
    .await??;
    // Libraries created again under the id of a deleted one start with no crawl state.
    for id in &import.created_ids {
        state.crawl.forget(id).await?;
    }
    Ok(import)
}

/// The libraries a listing shows at most, and when `limit` is not given.
const MAX_LIST_LIMIT: usize = 1_000;
const DEFAULT_LIST_LIMIT: usize = 100;
/// Deepest page of the listing.
const MAX_LIST_OFFSET: usize = 10_000_000;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListParams {
    limit: Option<usize>,
    offset: Option<usize>,
    q: Option<String>,
}

/// A page of the libraries sorted by id, filtered by `q` (a substring of the id or the name, in
/// any case), with `total`, the count of those matching; a key limited to libraries is shown
/// its own alone.
pub(super) async fn list_libraries(
    State(state): State<AppState>,
    identity: Option<Extension<Identity>>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, ApiError> {
    let params: ListParams = query_params(raw.as_deref().unwrap_or_default())?;
    let limit = match params.limit.unwrap_or(DEFAULT_LIST_LIMIT) {
        limit @ 1..=MAX_LIST_LIMIT => limit,
        _ => {
            return Err(ApiError::new(
                ErrorCode::InvalidLimit,
                format!("`limit` must be between 1 and {MAX_LIST_LIMIT}"),
            ));
        }
    };
    let offset = page_offset(params.offset, MAX_LIST_OFFSET)?;
    let max_query = state.catalog.config().limits.max_query_bytes;
    if params.q.as_ref().is_some_and(|q| q.len() > max_query) {
        return Err(ApiError::new(
            ErrorCode::QueryTooLong,
            format!("`q` is longer than {max_query} bytes"),
        ));
    }
    let query = LibraryQuery {
        q: params.q,
        offset,
        limit,
    };
    let key = limited(&identity).cloned();
    let catalog = state.catalog.clone();
    let page = tokio::task::spawn_blocking(move || {
        catalog.list_page(&query, &|id| {
            key.as_ref().is_none_or(|key| key.may_touch(id))
        })
    })
    .await??;
    let libraries = page
        .libraries
        .into_iter()
        .map(|info| with_crawl_status(&state, info))
        .collect::<Result<Vec<_>, ApiError>>()?;
    Ok(Json(json!({ "libraries": libraries, "total": page.total })))
}

pub(super) async fn get_library(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let catalog = state.catalog.clone();
    let info = tokio::task::spawn_blocking(move || catalog.describe(&id)).await??;
    Ok(Json(with_crawl_status(&state, info)?))
}

pub(super) async fn delete_library(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    // Stop a crawl and the re-index jobs of the library before its index goes away.
    state.crawl.forget(&id).await?;
    let (catalog, jobs) = (state.catalog.clone(), state.jobs.clone());
    tokio::task::spawn_blocking(move || {
        jobs.stop_library(&id);
        catalog.delete(&id)
    })
    .await??;
    Ok(StatusCode::NO_CONTENT)
}

/// Reopens a library's index writers at their last commit, so that a library stopped by a
/// failed write takes writes again without a restart; answers the library as `GET` shows it.
pub(super) async fn reopen_writer(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let catalog = state.catalog.clone();
    let info = tokio::task::spawn_blocking(move || {
        catalog.reopen_writer(&id)?;
        catalog.describe(&id)
    })
    .await??;
    Ok(Json(with_crawl_status(&state, info)?))
}
