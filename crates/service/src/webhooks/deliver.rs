//! The delivery worker: drains the outbox when the server starts, then whenever an event is
//! written or a retry falls due. Each delivery is a POST of the stored body with its signature
//! headers, through an HTTP client whose resolver is the crawler's network guard.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use url::Url;

use super::store::{Attempt, DueDelivery, millis_now};
use super::{SIGNATURE_HEADER, TIMESTAMP_HEADER, WebhookError, WebhooksConfig};
use crate::library::Catalog;
use dupfinder_common::outbound::{CheckedResolver, check_host, literal_non_public};

/// Deliveries taken from the outbox at a time.
const BATCH: usize = 64;
/// The longest the worker sleeps without looking at the outbox.
const IDLE: Duration = Duration::from_secs(30);
/// The same, when other server processes share the outbox (a database) and write events this
/// process's worker is not woken for.
const IDLE_SHARED: Duration = Duration::from_secs(2);

/// Checks a webhook URL before it is registered: `http` or `https`, a host, no credentials,
/// and a host that does not reach a private address (unless allowed). Every delivery is
/// checked again when the name is resolved.
pub async fn validate_url(url: &str, config: &WebhooksConfig) -> Result<Url, WebhookError> {
    let invalid = |reason: &str| WebhookError::InvalidUrl {
        url: url.to_string(),
        reason: reason.to_string(),
    };
    let parsed = Url::parse(url.trim()).map_err(|e| invalid(&e.to_string()))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(invalid("the scheme must be http or https"));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(invalid(
            "credentials do not belong in the URL; use the secret",
        ));
    }
    let Some(host) = parsed.host_str() else {
        return Err(invalid("the URL has no host"));
    };
    check_host(host, config.allow_private_networks)
        .await
        .map_err(|e| WebhookError::PrivateAddress {
            url: url.to_string(),
            ip: e.ip,
        })?;
    Ok(parsed)
}

/// Delivers the outbox's events until the process ends.
pub async fn deliver_forever(catalog: Arc<Catalog>) {
    let config = catalog.config().webhooks.clone();
    let client = match client(&config) {
        Ok(client) => client,
        Err(e) => {
            tracing::error!(error = %e, "webhooks cannot be delivered: no HTTP client");
            return;
        }
    };
    let wake = catalog.webhooks().notified();
    let idle = match catalog.storage().shared_by_processes() {
        true => IDLE_SHARED,
        false => IDLE,
    };
    loop {
        let now = millis_now();
        let looked = {
            let catalog = catalog.clone();
            tokio::task::spawn_blocking(move || catalog.webhooks().due(now, BATCH)).await
        };
        let (due, next) = match looked {
            Ok(Ok(found)) => found,
            Ok(Err(e)) => {
                tracing::error!(error = %e, "the webhook outbox could not be read");
                (Vec::new(), Some(now + 5_000))
            }
            Err(_) => (Vec::new(), Some(now + 5_000)),
        };
        if due.is_empty() {
            let wait = next.map_or(idle, |at| {
                Duration::from_millis(at.saturating_sub(millis_now())).min(idle)
            });
            // A wake-up sent while the outbox was read is kept by the `Notify` and ends this
            // wait at once.
            let _ = tokio::time::timeout(wait, wake.notified()).await;
            continue;
        }
        futures_util::stream::iter(due)
            .map(|due| {
                let (catalog, client, config) = (catalog.clone(), client.clone(), config.clone());
                async move { deliver_one(&catalog, &client, &config, due).await }
            })
            .buffer_unordered(config.concurrency.max(1))
            .collect::<Vec<()>>()
            .await;
    }
}

fn client(config: &WebhooksConfig) -> Result<reqwest::Client, reqwest::Error> {
    reqwest::Client::builder()
        .user_agent(concat!("dupfinder-webhooks/", env!("CARGO_PKG_VERSION")))
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_millis(config.timeout_ms.max(1)))
        // A proxy would resolve names itself, out of reach of the address check.
        .no_proxy()
        .dns_resolver(Arc::new(CheckedResolver {
            allow_private: config.allow_private_networks,
        }))
        .build()
}

/// One attempt of one delivery, recorded in the log.
async fn deliver_one(
    catalog: &Arc<Catalog>,
    client: &reqwest::Client,
    config: &WebhooksConfig,
    due: DueDelivery,
) {
    let attempt = send(client, config, &due).await;
    match &attempt {
        Attempt::Answered(status) => tracing::info!(
            event = %due.delivery.event_id, webhook = %due.delivery.webhook, status,
            "webhook delivery answered"
        ),
        Attempt::Failed(reason) => tracing::warn!(
            event = %due.delivery.event_id, webhook = %due.delivery.webhook, %reason,
            "webhook delivery failed"
        ),
    }
    let jitter = jitter();
    let (catalog, config, key) = (catalog.clone(), config.clone(), due.key);
    let recorded = tokio::task::spawn_blocking(move || {
        catalog.webhooks().record(&key, attempt, &config, jitter)
    })
    .await;
    if let Ok(Err(e)) = recorded {
        tracing::error!(error = %e, "a webhook delivery could not be recorded; it is held back and sent again after its backoff");
    }
}

async fn send(client: &reqwest::Client, config: &WebhooksConfig, due: &DueDelivery) -> Attempt {
    let Some(body) = due.delivery.body.clone() else {
        return Attempt::Failed("the event's body was not kept".to_string());
    };
    let url = match Url::parse(&due.url) {
        Ok(url) => url,
        Err(e) => return Attempt::Failed(format!("invalid URL: {e}")),
    };
    // A literal address never reaches the resolver, so it is checked here.
    if let Some(refused) = literal_non_public(&url, config.allow_private_networks) {
        return Attempt::Failed(refused.to_string());
    }
    let request = client
        .post(url)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .header("X-Dupfinder-Event", due.delivery.event.as_str())
        .header("X-Dupfinder-Delivery", due.delivery.event_id.as_str())
        .header(TIMESTAMP_HEADER, due.delivery.created.to_string())
        .header(
            SIGNATURE_HEADER,
            super::signature(&due.secret, body.as_bytes()),
        )
        .body(body);
    match request.send().await {
        Ok(response) => Attempt::Answered(response.status().as_u16()),
        Err(e) if e.is_timeout() => {
            Attempt::Failed(format!("no answer within {} ms", config.timeout_ms))
        }
        Err(e) => Attempt::Failed(error_chain(&e)),
    }
}

/// The error and its causes, so that "error sending request" says why.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

fn jitter() -> f64 {
    let mut bytes = [0u8; 4];
    if getrandom::fill(&mut bytes).is_err() {
        return 0.5;
    }
    f64::from(u32::from_le_bytes(bytes)) / (f64::from(u32::MAX) + 1.0)
}
