//! The web UI's page and assets, and the OpenAPI document of the whole HTTP API.

use axum::http::header;
use axum::response::{IntoResponse, Response};

use super::path::Path;
use super::{ApiError, ErrorCode};
use dupfinder_web as web;

/// The OpenAPI 3.1 document of every route, maintained by hand beside the router (a test holds
/// the two together).
pub const OPENAPI: &str = include_str!("openapi.json");

/// Browsers revalidate: the assets are small, and a new binary must show its own UI.
const CACHE: &str = "no-cache";

/// The UI file `name` from the folder [`web::UI_DIR_VAR`] names, when it names one; only names
/// the UI embeds are read.
async fn from_ui_dir(name: &str) -> Option<String> {
    let dir = std::env::var_os(web::UI_DIR_VAR)?;
    tokio::fs::read_to_string(std::path::Path::new(&dir).join(name))
        .await
        .ok()
}

pub(super) async fn ui_page() -> Response {
    let body = from_ui_dir("index.html")
        .await
        .unwrap_or_else(|| web::INDEX_HTML.to_string());
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, CACHE),
        ],
        body,
    )
        .into_response()
}

pub(super) async fn ui_asset(Path(file): Path<String>) -> Result<Response, ApiError> {
    let asset = web::asset(&file).ok_or_else(|| {
        ApiError::new(ErrorCode::NotFound, format!("the UI has no file `{file}`"))
    })?;
    let body = from_ui_dir(&file)
        .await
        .unwrap_or_else(|| asset.body.to_string());
    Ok((
        [
            (header::CONTENT_TYPE, asset.content_type),
            (header::CACHE_CONTROL, CACHE),
        ],
        body,
    )
        .into_response())
}

pub(super) async fn openapi() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], OPENAPI).into_response()
}
