//! The router: every route of the v1 API, the JSON 404/405 fallbacks, the body limit, access
//! control, time limits, tracing and metrics layers.

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{delete, get, post};
use tower_http::trace::TraceLayer;

use super::auth;
use super::check::check_text;
use super::crawl::{dequeue, enqueue, list_queue};
use super::handlers::*;
use super::jobs::{abort_job, get_job, list_jobs, start_reindex};
use super::limits;
use super::metrics;
use super::search::{list_documents, search_library};
use super::state::AppState;
use super::web::{openapi, ui_asset, ui_page};

/// Builds the application's router.
pub fn router(state: AppState) -> Router {
    let body_limit = state.catalog.config().limits.max_body_bytes;
    Router::new()
        .route("/", get(ui_page))
        .route("/ui/{file}", get(ui_asset))
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .route(
            "/api/v1/libraries",
            post(create_library).get(list_libraries),
        )
        .route(
            "/api/v1/libraries/{id}",
            get(get_library).delete(delete_library),
        )
        .route("/api/v1/openapi.json", get(openapi))
        .route(
            "/api/v1/libraries/{id}/documents",
            post(add_documents).get(list_documents),
        )
        .route("/api/v1/libraries/{id}/search", get(search_library))
        .route(
            "/api/v1/libraries/{id}/documents/{*doc_id}",
            get(get_document),
        )
        .route("/api/v1/libraries/{id}/reindex", post(start_reindex))
        .route("/api/v1/jobs", get(list_jobs))
        .route("/api/v1/jobs/{job}", get(get_job).delete(abort_job))
        .route("/api/v1/check", post(check_text))
        .route("/api/v1/queue", get(list_queue).post(enqueue))
        .route("/api/v1/queue/{id}", delete(dequeue))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(body_limit))
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            limits::request_timeout,
        ))
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            metrics::record,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            auth::require_token,
        ))
        .layer(
            TraceLayer::new_for_http().make_span_with(|request: &axum::http::Request<_>| {
                let route = request
                    .extensions()
                    .get::<axum::extract::MatchedPath>()
                    .map(|p| p.as_str().to_string())
                    .unwrap_or_default();
                tracing::info_span!("request", method = %request.method(), route = %route)
            }),
        )
        .with_state(state)
}
