//! A library's documents over HTTP: ingest (one JSON document, JSON Lines, or files as
//! `multipart/form-data` parts named `file`), one document, and the listing sorted by a field.

use std::sync::atomic::Ordering;

use axum::Json;
use axum::extract::{FromRequest, RawQuery, Request, State};
use serde::Deserialize;

use super::body::{TextBody, check_line_count, parse_json};
use super::dedup::{DUPLICATES_SUFFIX, document_duplicates};
use super::params::{page_limit, page_offset, query_params};
use super::path::Path;
use super::upload::{extract_file, is_multipart, read_upload};
use super::{ApiError, AppState, ErrorCode};
use dupfinder_service::library::{
    DocumentInput, IngestPath, IngestReport, LibraryError, LibraryId, parse_json_lines, prepare,
};
use dupfinder_storage::index::{DocumentPage, SortKey, SortOrder};

/// Deepest page of a listing.
const MAX_LIST_OFFSET: usize = 10_000_000;

/// The content types of a JSON Lines body.
pub(super) const JSON_LINES_TYPES: [&str; 4] = [
    "application/x-ndjson",
    "application/jsonl",
    "application/x-jsonlines",
    "application/json-lines",
];

pub(super) fn is_json_lines(content_type: Option<&str>) -> bool {
    content_type.is_some_and(|ct| JSON_LINES_TYPES.iter().any(|known| ct.starts_with(known)))
}

pub(super) async fn add_documents(
    State(state): State<AppState>,
    Path(id): Path<String>,
    request: Request,
) -> Result<Json<IngestReport>, ApiError> {
    LibraryId::parse(&id).map_err(|m| ApiError::new(ErrorCode::InvalidLibraryId, m))?;
    // The library must exist before the body is worth analyzing.
    state.catalog.store(&id)?;
    if is_multipart(request.headers()) {
        return add_files(state, id, request).await;
    }
    let body = TextBody::from_request(request, &state).await?;
    let catalog = state.catalog.clone();
    let json_lines = is_json_lines(body.content_type.as_deref());
    let limits = &state.catalog.config().limits;
    if json_lines {
        check_line_count(
            &body.text,
            limits.max_json_lines,
            "JSON Lines documents",
            "max_json_lines",
        )?;
    }
    let report = tokio::task::spawn_blocking(move || -> Result<IngestReport, ApiError> {
        let limits = &catalog.config().limits;
        if json_lines {
            let lines = parse_json_lines(&body.text, limits.max_json_depth);
            return Ok(catalog.ingest(&id, lines)?);
        }
        // One document: any problem with it is the request's error, not a rejected line.
        let input: DocumentInput = parse_json(&body.text, limits)?;
        let document = prepare(catalog.analyzer(), limits.text(), input)?;
        Ok(catalog.ingest_prepared(&id, vec![document], Vec::new())?)
    })
    .await??;
    state
        .catalog
        .count_ingested(IngestPath::Api, report.accepted as u64);
    state
        .metrics
        .documents_rejected
        .fetch_add(report.rejected.len() as u64, Ordering::Relaxed);
    Ok(Json(report))
}

/// Files as documents: each file's id is its name, its title the file's metadata title or first
/// heading. A file that cannot be read fails the request (the message names it); nothing is
/// stored then.
async fn add_files(
    state: AppState,
    id: String,
    request: Request,
) -> Result<Json<IngestReport>, ApiError> {
    let upload = read_upload(request, &state, &[]).await?;
    let mut inputs = Vec::with_capacity(upload.files.len());
    for file in &upload.files {
        let document = extract_file(&state, file).await?;
        inputs.push(dupfinder_service::library::file_document(
            &file.name, document,
        ));
    }
    let catalog = state.catalog.clone();
    let report = tokio::task::spawn_blocking(move || -> Result<IngestReport, ApiError> {
        let limits = &catalog.config().limits;
        let mut prepared = Vec::with_capacity(inputs.len());
        for (input, name) in inputs {
            let document = prepare(catalog.analyzer(), limits.text(), input).map_err(|e| {
                let mut error = ApiError::from(e);
                error.message = format!("{name}: {}", error.message);
                error
            })?;
            prepared.push(document);
        }
        Ok(catalog.ingest_prepared(&id, prepared, Vec::new())?)
    })
    .await??;
    state
        .catalog
        .count_ingested(IngestPath::Api, report.accepted as u64);
    Ok(Json(report))
}

pub(super) async fn delete_document(
    State(state): State<AppState>,
    Path((id, doc_id)): Path<(String, String)>,
) -> Result<axum::http::StatusCode, ApiError> {
    if asks_for_duplicates(&state, &id, &doc_id).await {
        return Err(ApiError::new(
            ErrorCode::MethodNotAllowed,
            "this route does not take that method",
        ));
    }
    let catalog = state.catalog.clone();
    let (library, document) = (id.clone(), doc_id.clone());
    let deleted =
        tokio::task::spawn_blocking(move || catalog.delete_document(&library, &document)).await??;
    if deleted {
        Ok(axum::http::StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::new(
            ErrorCode::DocumentNotFound,
            format!("library `{id}` has no document `{doc_id}`"),
        ))
    }
}

/// Whether a path under a document names `…/{doc_id}/duplicates` rather than a document whose
/// id ends in `/duplicates` (ids may hold slashes, so one route takes both; a document of that
/// very id wins).
async fn asks_for_duplicates(state: &AppState, id: &str, doc_id: &str) -> bool {
    if !doc_id.ends_with(DUPLICATES_SUFFIX) {
        return false;
    }
    let Ok(store) = state.catalog.store(id) else {
        return true;
    };
    let literal = doc_id.to_string();
    !tokio::task::spawn_blocking(move || {
        store
            .view()
            .and_then(|view| view.document(&literal))
            .is_ok_and(|document| document.is_some())
    })
    .await
    .unwrap_or(false)
}

pub(super) async fn get_document(
    State(state): State<AppState>,
    Path((id, doc_id)): Path<(String, String)>,
) -> Result<axum::response::Response, ApiError> {
    use axum::response::IntoResponse;
    if asks_for_duplicates(&state, &id, &doc_id).await {
        let target = doc_id[..doc_id.len() - DUPLICATES_SUFFIX.len()].to_string();
        return Ok(document_duplicates(state, id, target)
            .await?
            .into_response());
    }
    let catalog = state.catalog.clone();
    let store = catalog.store(&id)?;
    let doc_id_for_error = doc_id.clone();
    let document = tokio::task::spawn_blocking(move || store.view()?.document(&doc_id))
        .await?
        .map_err(dupfinder_service::library::LibraryError::from)?;
    document.map(|d| Json(d).into_response()).ok_or_else(|| {
        ApiError::new(
            ErrorCode::DocumentNotFound,
            format!("library `{id}` has no document `{doc_id_for_error}`"),
        )
    })
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
            ApiError::new(
                ErrorCode::InvalidSort,
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
            return Err(ApiError::new(
                ErrorCode::InvalidOrder,
                format!("`order` must be asc or desc, not `{other}`"),
            ));
        }
    };
    let limit = page_limit(params.limit, 20)?;
    let offset = page_offset(params.offset, MAX_LIST_OFFSET)?;
    let store = state.catalog.store(&id)?;
    let page = tokio::task::spawn_blocking(move || store.browse(sort, order, limit, offset))
        .await?
        .map_err(LibraryError::from)?;
    Ok(Json(page))
}
