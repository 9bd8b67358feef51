//! Libraries over HTTP (`/api/v1/libraries`): create, list, describe, delete; a library is shown
//! with its crawl status. A key limited to libraries is listed its own alone.

use axum::extract::State;
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde::Deserialize;
use serde_json::{Value, json};

use super::auth::{Identity, limited};
use super::body::JsonBody;
use super::path::Path;
use super::{ApiError, AppState, ErrorCode};
use dupfinder_service::library::{LibraryInfo, NewLibrary};

fn with_crawl_status(state: &AppState, info: LibraryInfo) -> Result<Value, ApiError> {
    Ok(state.crawl.describe(info)?)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CreateLibrary {
    id: String,
    name: Option<String>,
    start_url: Option<String>,
    #[serde(default)]
    clarifications: Vec<String>,
    sitemap_url: Option<String>,
    #[serde(default)]
    use_sitemaps: bool,
    oai_url: Option<String>,
    oai_set: Option<String>,
}

fn check_http_url(field: &str, code: ErrorCode, url: Option<&String>) -> Result<(), ApiError> {
    match url {
        Some(url) if !(url.starts_with("http://") || url.starts_with("https://")) => {
            Err(ApiError::new(
                code,
                format!("{field} `{url}` must be an http:// or https:// address"),
            ))
        }
        _ => Ok(()),
    }
}

pub(super) async fn create_library(
    State(state): State<AppState>,
    JsonBody(body): JsonBody<CreateLibrary>,
) -> Result<(StatusCode, Json<serde_json::Value>), ApiError> {
    check_http_url(
        "start_url",
        ErrorCode::InvalidStartUrl,
        body.start_url.as_ref(),
    )?;
    check_http_url(
        "sitemap_url",
        ErrorCode::InvalidSitemapUrl,
        body.sitemap_url.as_ref(),
    )?;
    check_http_url("oai_url", ErrorCode::InvalidOaiUrl, body.oai_url.as_ref())?;
    let spec = NewLibrary {
        id: body.id,
        name: body.name,
        start_url: body.start_url,
        clarifications: body.clarifications,
        sitemap_url: body.sitemap_url,
        use_sitemaps: body.use_sitemaps,
        oai_url: body.oai_url,
        oai_set: body.oai_set,
    };
    let catalog = state.catalog.clone();
    let info = tokio::task::spawn_blocking(move || catalog.create(spec)).await??;
    // A library created again under the id of a deleted one starts with no crawl state.
    state.crawl.forget(&info.id).await?;
    Ok((StatusCode::CREATED, Json(with_crawl_status(&state, info)?)))
}

pub(super) async fn list_libraries(
    State(state): State<AppState>,
    identity: Option<Extension<Identity>>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let catalog = state.catalog.clone();
    let libraries = tokio::task::spawn_blocking(move || catalog.list()).await??;
    let key = limited(&identity);
    let libraries = libraries
        .into_iter()
        .filter(|info| key.is_none_or(|key| key.may_touch(&info.id)))
        .map(|info| with_crawl_status(&state, info))
        .collect::<Result<Vec<_>, ApiError>>()?;
    Ok(Json(json!({ "libraries": libraries })))
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
