//! What operators and the router itself answer: health, metrics, and the JSON 404 and 405.

use axum::Json;
use axum::extract::State;
use axum::response::IntoResponse;
use serde_json::json;

use super::{ApiError, AppState, ErrorCode};

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

pub(super) async fn not_found() -> ApiError {
    ApiError::new(ErrorCode::NotFound, "no such route")
}

pub(super) async fn method_not_allowed() -> ApiError {
    ApiError::new(
        ErrorCode::MethodNotAllowed,
        "this route does not take that method",
    )
}
