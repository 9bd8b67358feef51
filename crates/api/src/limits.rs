//! Time limits: a reading request (a check, a search, a listing) is answered within
//! `limits.request_timeout_ms` of its body's arrival or given up with `503 timeout`; its body
//! must arrive within `limits.body_timeout_ms` (`408 body_timeout`). Writes are not cut off,
//! because their work (analysis, commit, fsync) cannot be abandoned half-way once it has
//! started; a slow upload is bounded by `limits.body_timeout_ms` instead (see `body.rs`).
//!
//! Places for checks: at most `limits.max_concurrent_checks` checks are computed at once and
//! at most `limits.max_waiting_checks` wait for a place; a check beyond them is refused at once
//! with `503 busy` and `Retry-After`, so that a flood of heavy checks cannot hold every core.

use std::time::Duration;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use tokio::sync::OwnedSemaphorePermit;

use super::auth::is_operator;
use super::{ApiError, AppState, ErrorCode};
use dupfinder_common::admission::Places;
use dupfinder_service::config::Limits;

/// Places for checks computed at once, and a bounded number of checks waiting for one.
#[derive(Debug)]
pub struct CheckSlots(Places);

impl CheckSlots {
    pub fn new(limits: &Limits) -> Self {
        CheckSlots(Places::new(
            limits.max_concurrent_checks,
            limits.max_waiting_checks,
        ))
    }

    /// A place to compute a check in, held until the permit is dropped; waits while every
    /// place is taken, unless too many checks wait already (`503 busy`).
    pub async fn place(&self) -> Result<OwnedSemaphorePermit, ApiError> {
        self.0.take().await.ok_or_else(|| {
            ApiError::new(
                ErrorCode::Busy,
                "too many checks are running or waiting; try again shortly",
            )
        })
    }
}

/// Middleware answering `503 timeout` when a reading request runs past its time.
pub(super) async fn request_timeout(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    if is_operator(request.method(), request.uri().path()) {
        return next.run(request).await;
    }
    // The time to answer starts once the body has arrived: a slow body is a client's fault
    // and answered `408 body_timeout`, within `body_timeout_ms`.
    let request = match read_body_first(&state.catalog.config().limits, request).await {
        Ok(request) => request,
        Err(error) => return error.into_response(),
    };
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

/// The request with its body read whole, within `body_timeout_ms` and `max_body_bytes`.
async fn read_body_first(limits: &Limits, request: Request) -> Result<Request, ApiError> {
    use futures_util::StreamExt;

    let (parts, body) = request.into_parts();
    let max = limits.max_body_bytes;
    let read = async {
        let mut stream = body.into_data_stream();
        let mut bytes = Vec::new();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| {
                ApiError::new(
                    ErrorCode::InvalidBody,
                    format!("could not read the request body: {e}"),
                )
            })?;
            if bytes.len() + chunk.len() > max {
                return Err(ApiError::new(
                    ErrorCode::BodyTooLarge,
                    format!("the request body is larger than {max} bytes"),
                ));
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok(bytes)
    };
    let timeout_ms = limits.body_timeout_ms;
    let bytes = tokio::time::timeout(Duration::from_millis(timeout_ms.max(1)), read)
        .await
        .map_err(|_| {
            ApiError::new(
                ErrorCode::BodyTimeout,
                format!("the request body did not arrive within {timeout_ms} ms"),
            )
        })??;
    Ok(Request::from_parts(parts, axum::body::Body::from(bytes)))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[tokio::test]
    async fn checks_beyond_the_places_and_the_waiting_room_are_refused_with_busy() {
        let slots = Arc::new(CheckSlots::new(&Limits {
            max_concurrent_checks: 1,
            max_waiting_checks: 1,
            ..Limits::default()
        }));
        let first = slots.place().await.unwrap();
        let waiter = tokio::spawn({
            let slots = slots.clone();
            async move { slots.place().await.map(drop) }
        });
        while slots.0.waiting() == 0 {
            tokio::task::yield_now().await;
        }
        let refused = slots.place().await.unwrap_err();
        assert_eq!(refused.code, ErrorCode::Busy);
        drop(first);
        waiter.await.unwrap().unwrap();
        assert_eq!(slots.0.waiting(), 0);
        drop(slots.place().await.unwrap());
    }
}
