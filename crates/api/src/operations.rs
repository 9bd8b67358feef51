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

/// `POST /api/v1/backup` (admin): a consistent backup of the data directory, streamed as a
/// `.tar.gz` while it is written (see [`dupfinder_service::backup`]). Writers to a library wait only while
/// that library's files are linked into the copy.
pub(super) async fn backup(State(state): State<AppState>) -> axum::response::Response {
    if let Err(e) = state.catalog.backup_possible("a backup of the server") {
        return ApiError::from(e).into_response();
    }
    let (tx, rx) = tokio::sync::mpsc::channel::<std::io::Result<Vec<u8>>>(8);
    tokio::task::spawn_blocking(move || {
        let out = std::io::BufWriter::with_capacity(1 << 16, ChannelWriter(tx.clone()));
        let crawl = state.crawl.store();
        match dupfinder_service::backup::write_backup(&state.catalog, Some(crawl), out) {
            Ok(manifest) => tracing::info!(libraries = manifest.libraries.len(), "backup written"),
            Err(e) => {
                tracing::error!(error = %e, "backup failed");
                // The client sees the body end in an error, not a short archive.
                let _ = tx.blocking_send(Err(std::io::Error::other(e.to_string())));
            }
        }
    });
    let body = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|chunk| (chunk, rx))
    });
    (
        [
            (axum::http::header::CONTENT_TYPE, "application/gzip"),
            (
                axum::http::header::CONTENT_DISPOSITION,
                "attachment; filename=\"dupfinder-backup.tar.gz\"",
            ),
        ],
        axum::body::Body::from_stream(body),
    )
        .into_response()
}

/// Bytes written to it go to the response body; a client gone away fails the write, which
/// stops the backup.
struct ChannelWriter(tokio::sync::mpsc::Sender<std::io::Result<Vec<u8>>>);

impl std::io::Write for ChannelWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.blocking_send(Ok(buf.to_vec())).map_err(|_| {
            std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the client went away")
        })?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
