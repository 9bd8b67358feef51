//! API keys and the audit log over HTTP (admin only): `POST/GET /api/v1/keys`,
//! `DELETE /api/v1/keys/{name}`, `GET /api/v1/audit`. Without a configured token, keys are
//! managed by admin keys alone, so one must exist as long as any key does: a server refuses
//! to create another key before the first admin key (`409 admin_key_required`), and to revoke
//! the last admin key while other keys remain.

use axum::Json;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};

use super::body::JsonBody;
use super::params::{page_limit, page_offset, query_params};
use super::path::Path;
use super::{ApiError, AppState, ErrorCode};
use dupfinder_service::library::{LibraryId, NewKey, Role};

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
        let keys = catalog.keys();
        let manager = role == Role::Admin && body.libraries.is_none();
        if catalog.config().server.token.is_none() && !manager && !keys.has_key_manager() {
            return Err(ApiError::new(
                ErrorCode::AdminKeyRequired,
                format!(
                    "no admin key exists yet: once this {} key exists the server asks for a \
                     key, and only an admin key manages keys, backups and reports; create an \
                     admin key first (`dupfinder keys create --name admin --role admin`, or POST \
                     /api/v1/keys {{\"name\": \"admin\", \"role\": \"admin\"}}), keep its \
                     secret, and create this key with it",
                    role.as_str()
                ),
            ));
        }
        Ok(keys.create(&body.name, role, body.libraries)?)
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
    tokio::task::spawn_blocking(move || {
        let keys = catalog.keys();
        if catalog.config().server.token.is_none() && keys.revoking_leaves_no_manager(&name) {
            return Err(ApiError::new(
                ErrorCode::AdminKeyRequired,
                format!(
                    "`{name}` is the last admin key: without it the other keys would need an \
                     admin key nobody holds; create another admin key first, or revoke the \
                     other keys before this one"
                ),
            ));
        }
        Ok(keys.revoke(&name)?)
    })
    .await??;
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
