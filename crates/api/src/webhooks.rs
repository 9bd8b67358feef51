//! Webhooks over HTTP (admin keys only): `POST /api/v1/webhooks` registers a URL, a secret and
//! the events it wants; the list and `DELETE` manage them; `…/{id}/deliveries` is the delivery
//! log. The secret is never answered back.

use axum::Json;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};

use super::body::{TextBody, parse_json};
use super::params::query_params;
use super::path::Path;
use super::{ApiError, AppState};
use dupfinder_service::webhooks::{EventKind, NewWebhook, Webhook, WebhookError, validate_url};

/// Lines of the delivery log answered by default, and at most.
const DELIVERIES_DEFAULT: usize = 100;
const DELIVERIES_MAX: usize = 1000;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WebhookBody {
    url: String,
    secret: String,
    events: Vec<String>,
}

pub(super) async fn create_webhook(
    State(state): State<AppState>,
    body: TextBody,
) -> Result<(StatusCode, Json<Webhook>), ApiError> {
    let body: WebhookBody = parse_json(&body.text, &state.catalog.config().limits)?;
    let events = body
        .events
        .iter()
        .map(|name| EventKind::parse(name).ok_or_else(|| WebhookError::InvalidEvent(name.clone())))
        .collect::<Result<Vec<_>, _>>()?;
    if events.is_empty() {
        return Err(WebhookError::InvalidEvent(String::new()).into());
    }
    let url = validate_url(&body.url, &state.catalog.config().webhooks).await?;
    let catalog = state.catalog.clone();
    let new = NewWebhook {
        url: url.to_string(),
        secret: body.secret,
        events,
    };
    let webhook = tokio::task::spawn_blocking(move || catalog.webhooks().create(new)).await??;
    tracing::info!(webhook = %webhook.id, url = %webhook.url, "webhook registered");
    Ok((StatusCode::CREATED, Json(webhook)))
}

pub(super) async fn list_webhooks(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let catalog = state.catalog.clone();
    let webhooks = tokio::task::spawn_blocking(move || catalog.webhooks().list()).await??;
    Ok(Json(json!({ "webhooks": webhooks })))
}

pub(super) async fn delete_webhook(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let catalog = state.catalog.clone();
    let wanted = id.clone();
    if tokio::task::spawn_blocking(move || catalog.webhooks().delete(&wanted)).await?? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(WebhookError::NotFound(id).into())
    }
}

#[derive(Deserialize)]
struct DeliveriesParams {
    limit: Option<usize>,
}

pub(super) async fn list_deliveries(
    State(state): State<AppState>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, ApiError> {
    let params: DeliveriesParams = query_params(raw.as_deref().unwrap_or_default())?;
    let limit = params
        .limit
        .unwrap_or(DELIVERIES_DEFAULT)
        .clamp(1, DELIVERIES_MAX);
    let catalog = state.catalog.clone();
    let wanted = id.clone();
    let log = tokio::task::spawn_blocking(move || catalog.webhooks().deliveries(&wanted, limit))
        .await??
        .ok_or(WebhookError::NotFound(id))?;
    Ok(Json(json!({ "deliveries": log })))
}
