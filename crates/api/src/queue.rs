//! The crawl queue over HTTP (`/api/v1/queue`). A key limited to libraries is shown its own
//! libraries' places alone.

use axum::extract::State;
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde::Deserialize;
use serde_json::{Value, json};

use super::auth::{Identity, limited};
use super::body::JsonBody;
use super::path::Path;
use super::{ApiError, AppState};
use dupfinder_harvest::CrawlState;

pub(super) async fn list_queue(
    State(state): State<AppState>,
    identity: Option<Extension<Identity>>,
) -> Result<Json<Value>, ApiError> {
    let crawl = state.crawl.clone();
    let mut entries = tokio::task::spawn_blocking(move || crawl.queue()).await??;
    if let Some(key) = limited(&identity) {
        entries.retain(|entry| key.may_touch(&entry.id));
    }
    let running = entries
        .iter()
        .find(|e| e.status.status != CrawlState::Queued)
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
