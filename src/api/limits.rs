//! Time limits: a reading request (a check, a search, a listing) is answered within
//! `limits.request_timeout_ms` or given up with `503 timeout`. Writes are not cut off, because
//! their work (analysis, commit, fsync) cannot be abandoned half-way once it has started; a slow
//! upload is bounded by `limits.body_timeout_ms` instead (see `body.rs`).

use std::time::Duration;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::auth::is_operator;
use super::{ApiError, AppState, ErrorCode};

/// Middleware answering `503 timeout` when a reading request runs past its time.
pub(super) async fn request_timeout(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    if is_operator(request.method(), request.uri().path()) {
        return next.run(request).await;
    }
    let limit = Duration::from_millis(state.catalog.config().limits.request_timeout_ms.max(1));
    match tokio::time::timeout(limit, next.run(request)).await {
        Ok(response) => response,
        Err(_) => {
            tracing::warn!(limit_ms = limit.as_millis() as u64, "request timed out");
            ApiError::new(
                ErrorCode::Timeout,
                format!(
                    "the request took longer than {} ms and was given up",
                    limit.as_millis()
                ),
            )
            .into_response()
        }
    }
}
