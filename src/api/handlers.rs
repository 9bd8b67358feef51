//! The HTTP handlers. Each validates its input, runs the blocking work (tantivy, fsync) on the
//! blocking pool, and answers JSON.

use std::sync::atomic::Ordering;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use serde::Deserialize;
use serde_json::json;

use super::body::{JsonBody, TextBody, parse_json};
use super::crawl::with_crawl_status;
use super::error::write_failure;
use super::{ApiError, AppState};
use crate::library::{
    DocumentInput, IngestReport, LibraryId, NewLibrary, parse_json_lines, prepare,
};

pub(super) async fn healthz() -> Json<serde_json::Value> {
    Json(json!({"status": "ok"}))
}

pub(super) async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "text/plain; version=0.0.4",
        )],
        state.metrics.render(),
    )
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

fn check_http_url(field: &str, code: &'static str, url: Option<&String>) -> Result<(), ApiError> {
    match url {
        Some(url) if !(url.starts_with("http://") || url.starts_with("https://")) => {
            Err(ApiError::bad_request(
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
    check_http_url("start_url", "invalid_start_url", body.start_url.as_ref())?;
    check_http_url(
        "sitemap_url",
        "invalid_sitemap_url",
        body.sitemap_url.as_ref(),
    )?;
    check_http_url("oai_url", "invalid_oai_url", body.oai_url.as_ref())?;
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
    let info = tokio::task::spawn_blocking(move || catalog.create(spec))
        .await?
        .map_err(|e| write_failure(&state.catalog, e.into()))?;
    // A library created again under the id of a deleted one starts with no crawl state.
    state.crawl.forget(&info.id).await?;
    Ok((StatusCode::CREATED, Json(with_crawl_status(&state, info)?)))
}

pub(super) async fn list_libraries(
    State(state): State<AppState>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let catalog = state.catalog.clone();
    let libraries = tokio::task::spawn_blocking(move || catalog.list()).await??;
    let libraries = libraries
        .into_iter()
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
    // Stop a crawl of the library before its index goes away.
    state.crawl.forget(&id).await?;
    let catalog = state.catalog.clone();
    tokio::task::spawn_blocking(move || catalog.delete(&id))
        .await?
        .map_err(|e| write_failure(&state.catalog, e.into()))?;
    Ok(StatusCode::NO_CONTENT)
}

fn is_json_lines(content_type: Option<&str>) -> bool {
    content_type.is_some_and(|ct| {
        [
            "application/x-ndjson",
            "application/jsonl",
            "application/x-jsonlines",
            "application/json-lines",
        ]
        .iter()
        .any(|known| ct.starts_with(known))
    })
}

pub(super) async fn add_documents(
    State(state): State<AppState>,
    Path(id): Path<String>,
    body: TextBody,
) -> Result<Json<IngestReport>, ApiError> {
    LibraryId::parse(&id).map_err(|m| ApiError::bad_request("invalid_library_id", m))?;
    // The library must exist before the body is worth analyzing.
    state.catalog.index(&id)?;
    let catalog = state.catalog.clone();
    let json_lines = is_json_lines(body.content_type.as_deref());
    let limits = &state.catalog.config().limits;
    if json_lines {
        let lines = body.text.lines().filter(|l| !l.trim().is_empty()).count();
        if lines > limits.max_json_lines {
            return Err(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "too_many_lines",
                format!(
                    "{lines} JSON Lines documents; at most {} per request",
                    limits.max_json_lines
                ),
            ));
        }
    }
    let report = tokio::task::spawn_blocking(move || -> Result<IngestReport, ApiError> {
        let limits = &catalog.config().limits;
        if json_lines {
            let lines = parse_json_lines(&body.text, limits.max_json_depth);
            return Ok(catalog.ingest(&id, lines)?);
        }
        // One document: any problem with it is the request's error, not a rejected line.
        let input: DocumentInput = parse_json(&body.text, limits)?;
        let document = prepare(catalog.analyzer(), limits, input)?;
        Ok(catalog.ingest_prepared(&id, vec![document], Vec::new())?)
    })
    .await?
    .map_err(|e| write_failure(&state.catalog, e))?;
    state
        .metrics
        .documents_ingested
        .fetch_add(report.accepted as u64, Ordering::Relaxed);
    state
        .metrics
        .documents_rejected
        .fetch_add(report.rejected.len() as u64, Ordering::Relaxed);
    Ok(Json(report))
}

pub(super) async fn get_document(
    State(state): State<AppState>,
    Path((id, doc_id)): Path<(String, String)>,
) -> Result<Json<crate::index::StoredDocument>, ApiError> {
    let catalog = state.catalog.clone();
    let index = catalog.index(&id)?;
    let doc_id_for_error = doc_id.clone();
    let document = tokio::task::spawn_blocking(move || index.document(&doc_id))
        .await?
        .map_err(crate::library::LibraryError::from)?;
    document.map(Json).ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "document_not_found",
            format!("library `{id}` has no document `{doc_id_for_error}`"),
        )
    })
}

pub(super) async fn not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such route")
}

pub(super) async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "this route does not take that method",
    )
}
