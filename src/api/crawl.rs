//! The crawl queue over HTTP (`/api/v1/queue`), and the crawl status shown with a library.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};

use super::body::JsonBody;
use super::{ApiError, AppState};
use crate::library::LibraryInfo;

/// A library as the API shows it: its figures, and while it is queued or after it was crawled,
/// `status` from its crawl (`queued`, a stage, `done`, `stopped`, `failed`) with the crawl's
/// counters under `crawl`.
pub(super) fn with_crawl_status(state: &AppState, info: LibraryInfo) -> Result<Value, ApiError> {
    let status = state.crawl.status(&info.id)?;
    let mut value = json!(info);
    if let (Some(status), Some(object)) = (status, value.as_object_mut()) {
        object.insert("status".to_string(), json!(status.status));
        object.insert("crawl".to_string(), json!(status));
    }
    Ok(value)
}

pub(super) async fn list_queue(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let crawl = state.crawl.clone();
    let entries = tokio::task::spawn_blocking(move || crawl.queue()).await??;
    let running = entries
        .iter()
        .find(|e| e.status.status != "queued")
        .map(|e| e.id.clone());
    Ok(Json(json!({
        "size": entries.len(),
        "running": running,
        "libraries": entries,
    })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct EnqueueBody {
    library: String,
}

pub(super) async fn enqueue(
    State(state): State<AppState>,
    JsonBody(body): JsonBody<EnqueueBody>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let position = state.crawl.enqueue(&body.library).await?;
    Ok((
        StatusCode::ACCEPTED,
        Json(json!({"library": body.library, "position": position})),
    ))
}

pub(super) async fn dequeue(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    state.crawl.dequeue(&id)?;
    Ok(StatusCode::NO_CONTENT)
}
