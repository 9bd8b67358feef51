//! API keys and the audit log over HTTP (admin only): `POST/GET /api/v1/keys`,
//! `DELETE /api/v1/keys/{name}`, `GET /api/v1/audit`.

use axum::Json;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};

use super::body::JsonBody;
use super::params::{page_limit, page_offset, query_params};
use super::path::Path;
use super::{ApiError, AppState, ErrorCode};
use crate::library::{LibraryId, NewKey, Role};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CreateKey {
    name: String,
    role: String,
    libraries: Option<Vec<String>>,
}

pub(super) async fn create_key(
    State(state): State<AppState>,
    JsonBody(body): JsonBody<CreateKey>,
) -> Result<(StatusCode, Json<NewKey>), ApiError> {
    let role = Role::parse(&body.role).ok_or_else(|| {
        ApiError::new(
            ErrorCode::InvalidRole,
            format!(
                "`role` must be admin, operator, checker or reader, not `{}`",
                body.role
            ),
        )
    })?;
    for id in body.libraries.iter().flatten() {
        LibraryId::parse(id).map_err(|m| ApiError::new(ErrorCode::InvalidLibraryId, m))?;
    }
    let catalog = state.catalog.clone();
    let key = tokio::task::spawn_blocking(move || {
        catalog.keys().create(&body.name, role, body.libraries)
    })
    .await??;
    Ok((StatusCode::CREATED, Json(key)))
}

pub(super) async fn list_keys(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let catalog = state.catalog.clone();
    let keys = tokio::task::spawn_blocking(move || catalog.keys().list()).await??;
    Ok(Json(json!({ "keys": keys })))
}

pub(super) async fn revoke_key(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<StatusCode, ApiError> {
    let catalog = state.catalog.clone();
    tokio::task::spawn_blocking(move || catalog.keys().revoke(&name)).await??;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize)]
struct AuditParams {
    limit: Option<usize>,
    offset: Option<usize>,
}

pub(super) async fn audit_log(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, ApiError> {
    let params: AuditParams = query_params(raw.as_deref().unwrap_or_default())?;
    let limit = page_limit(params.limit, 50)?;
    let offset = page_offset(params.offset, 10_000_000)?;
    let catalog = state.catalog.clone();
    let (total, entries) =
        tokio::task::spawn_blocking(move || catalog.keys().audit_log(limit, offset)).await??;
    Ok(Json(json!({ "total": total, "entries": entries })))
}
