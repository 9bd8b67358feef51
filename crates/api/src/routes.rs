//! The router: every route of the v1 API, the JSON 404/405 fallbacks, the body limit, access
//! control, time limits, tracing and metrics layers.

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{MethodRouter, delete, get, post};
use tower_http::trace::TraceLayer;

use super::check::check_text;
use super::dedup::{list_alerts, list_duplicates, start_dedup};
use super::documents::{add_documents, delete_document, get_document, list_documents};
use super::jobs::{abort_job, batch_reports, get_job, list_jobs, start_reindex};
use super::keys::{audit_log, create_key, list_keys, revoke_key};
use super::libraries::{
    create_library, delete_library, get_library, list_libraries, reopen_writer,
};
use super::operations::{backup, healthz, method_not_allowed, metrics, not_found};
use super::phrases::{add_phrase, list_phrases, remove_phrase};
use super::queue::{dequeue, enqueue, list_queue};
use super::reports::{delete_report, get_report, list_reports, patch_report, report_pdf};
use super::search::search_library;
use super::state::AppState;
use super::web::{openapi, ui_asset, ui_page};
use super::webhooks::{create_webhook, delete_webhook, list_deliveries, list_webhooks};
use super::{auth, limits, metrics, origin};

/// Every route: its path and what each method calls. The router is built from this table, and
/// tests walk it to compare the router with the OpenAPI document.
fn routes() -> Vec<(&'static str, MethodRouter<AppState>)> {
    vec![
        ("/", get(ui_page)),
        ("/ui/{file}", get(ui_asset)),
        ("/healthz", get(healthz)),
        ("/metrics", get(metrics)),
        ("/api/v1/openapi.json", get(openapi)),
        (
            "/api/v1/libraries",
            post(create_library).get(list_libraries),
        ),
        (
            "/api/v1/libraries/{id}",
            get(get_library).delete(delete_library),
        ),
        (
            "/api/v1/libraries/{id}/documents",
            post(add_documents).get(list_documents),
        ),
        ("/api/v1/libraries/{id}/search", get(search_library)),
        (
            "/api/v1/libraries/{id}/documents/{*doc_id}",
            get(get_document).delete(delete_document),
        ),
        ("/api/v1/libraries/{id}/writer", post(reopen_writer)),
        ("/api/v1/libraries/{id}/reindex", post(start_reindex)),
        ("/api/v1/libraries/{id}/dedup", post(start_dedup)),
        ("/api/v1/libraries/{id}/duplicates", get(list_duplicates)),
        (
            "/api/v1/libraries/{id}/phrases",
            get(list_phrases).post(add_phrase),
        ),
        (
            "/api/v1/libraries/{id}/phrases/{phrase}",
            delete(remove_phrase),
        ),
        ("/api/v1/alerts", get(list_alerts)),
        ("/api/v1/jobs", get(list_jobs)),
        ("/api/v1/jobs/{job}", get(get_job).delete(abort_job)),
        ("/api/v1/jobs/{job}/reports", get(batch_reports)),
        ("/api/v1/check", post(check_text)),
        ("/api/v1/queue", get(list_queue).post(enqueue)),
        ("/api/v1/queue/{id}", delete(dequeue)),
        ("/api/v1/keys", post(create_key).get(list_keys)),
        ("/api/v1/keys/{name}", delete(revoke_key)),
        ("/api/v1/audit", get(audit_log)),
        ("/api/v1/backup", post(backup)),
        ("/api/v1/reports", get(list_reports)),
        (
            "/api/v1/reports/{id}",
            get(get_report).patch(patch_report).delete(delete_report),
        ),
        ("/api/v1/reports/{id}/pdf", get(report_pdf)),
        ("/api/v1/webhooks", post(create_webhook).get(list_webhooks)),
        ("/api/v1/webhooks/{id}", delete(delete_webhook)),
        ("/api/v1/webhooks/{id}/deliveries", get(list_deliveries)),
    ]
}

/// Paths answered by the handlers of a catch-all route above rather than by a route of their
/// own: a document id may hold slashes, so `…/documents/{*doc_id}` takes
/// `…/documents/{doc_id}/duplicates` too (a route of its own would conflict with it).
const ANSWERED_IN_CATCH_ALL: [&str; 1] = ["/api/v1/libraries/{id}/documents/{doc_id}/duplicates"];

/// The path of every route, as the router declares them (`{*rest}` for a catch-all), and the
/// paths answered inside a catch-all.
pub fn route_paths() -> Vec<&'static str> {
    routes()
        .into_iter()
        .map(|(path, _)| path)
        .chain(ANSWERED_IN_CATCH_ALL)
        .collect()
}

/// Builds the application's router.
pub fn router(state: AppState) -> Router {
    let body_limit = state.catalog.config().limits.max_body_bytes;
    routes()
        .into_iter()
        .fold(Router::new(), |router, (path, methods)| {
            router.route(path, methods)
        })
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
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            origin::refuse_other_sites,
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
