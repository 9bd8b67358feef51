//! What operators and the router itself answer: health, metrics, and the JSON 404 and 405.

use axum::Json;
use axum::extract::State;
use axum::response::IntoResponse;
use serde_json::json;

use super::{ApiError, AppState, ErrorCode};

pub(super) async fn healthz() -> Json<serde_json::Value> {
    Json(json!({"status": "ok"}))
}

pub(super) async fn metrics(State(state): State<AppState>) -> Result<impl IntoResponse, ApiError> {
    let mut text = state.metrics.render();
    let from_state =
        tokio::task::spawn_blocking(move || super::metrics::render_state(&state)).await?;
    text.push_str(&from_state);
    Ok((
        [(
            axum::http::header::CONTENT_TYPE,
            "text/plain; version=0.0.4",
        )],
        text,
    ))
}

pub(super) async fn not_found() -> ApiError {
    ApiError::new(ErrorCode::NotFound, "no such route")
}

pub(super) async fn method_not_allowed() -> ApiError {
    ApiError::new(
        ErrorCode::MethodNotAllowed,
        "this route does not take that method",
    )
}
