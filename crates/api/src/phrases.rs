//! A library's boilerplate phrases over HTTP (`/api/v1/libraries/{id}/phrases`): list, add
//! (operators), remove (operators). Honoured by the next check.

use axum::Extension;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};

use super::auth::Identity;
use super::body::JsonBody;
use super::path::Path;
use super::{ApiError, AppState};
use dupfinder_service::library::phrases;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NewPhrase {
    text: String,
}

pub(super) async fn list_phrases(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let catalog = state.catalog.clone();
    let listed = tokio::task::spawn_blocking(move || -> Result<_, ApiError> {
        let kept = catalog.store(&id)?.kept();
        Ok((id, phrases::list(&kept)?))
    })
    .await??;
    let (library, phrases) = listed;
    Ok(Json(json!({ "library": library, "phrases": phrases })))
}

/// `201` with the phrase when it is new, `200` with the phrase the library already held.
pub(super) async fn add_phrase(
    State(state): State<AppState>,
    identity: Option<Extension<Identity>>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<NewPhrase>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let by = identity.map_or_else(|| "-".to_string(), |Extension(i)| i.name);
    let catalog = state.catalog.clone();
    let (phrase, new) = tokio::task::spawn_blocking(move || -> Result<_, ApiError> {
        let kept = catalog.store(&id)?.kept();
        Ok(phrases::add(&kept, &body.text, &by, catalog.analyzer())?)
    })
    .await??;
    let status = if new {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, Json(json!(phrase))))
}

pub(super) async fn remove_phrase(
    State(state): State<AppState>,
    Path((id, phrase)): Path<(String, String)>,
) -> Result<StatusCode, ApiError> {
    let catalog = state.catalog.clone();
    tokio::task::spawn_blocking(move || -> Result<_, ApiError> {
        let kept = catalog.store(&id)?.kept();
        Ok(phrases::remove(&kept, &phrase)?)
    })
    .await??;
    Ok(StatusCode::NO_CONTENT)
}
