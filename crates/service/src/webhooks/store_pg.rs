//! The webhooks in the database (`webhooks`, `webhook_deliveries`), shared by every server
//! process: a webhook registered through one is known to all, and an event announced through
//! any is delivered once, by whichever process takes it.
//!
//! The outbox is the deliveries with a `next_at`. A process takes the due ones with
//! `FOR UPDATE SKIP LOCKED` and holds each for a lease (the delivery timeout and a minute), so
//! two processes never send one delivery at once; its attempt is recorded, and the lease given
//! back, in one transaction. A process killed between sending and recording leaves the delivery
//! to be sent again once the lease has passed (delivery is at least once: receivers tell a
//! repeated delivery by `X-Dupfinder-Delivery`).

use std::sync::Arc;

use dupfinder_storage::postgres::PgDatabase;
use tokio::sync::Notify;

use super::store::{
    Attempt, Delivery, DeliveryState, DueDelivery, NewWebhook, Webhook, WebhookStore,
    apply_attempt, pending, prepare, read_stored,
};
use super::{Event, WebhookError, WebhooksConfig};
use crate::pg::{Client, DbFail, run};

/// The webhooks of a PostgreSQL database.
pub struct PgWebhooks {
    db: PgDatabase,
    /// How long a delivery taken is held, in milliseconds.
    lease_ms: u64,
    /// Woken when this process writes an event; the worker also looks every few seconds for
    /// the events other processes wrote.
    wake: Arc<Notify>,
}

fn fail(e: DbFail) -> WebhookError {
    WebhookError::store(e)
}

/// Writes `event` to the outbox of every webhook that asked for it, inside `tx` (the
/// transaction that keeps what the event announces); answers how many deliveries.
pub(crate) async fn announce_in_pg(
    tx: &tokio_postgres::Transaction<'_>,
    event: &Event,
) -> Result<usize, DbFail> {
    let rows = tx.query("SELECT stored FROM webhooks", &[]).await?;
    let body = event.body();
    let now = super::store::millis_now();
    let mut count = 0;
    for row in rows {
        let (webhook, _) =
            read_stored(row.get::<_, &str>(0).as_bytes()).map_err(|e| DbFail(e.to_string()))?;
        if !webhook.events.contains(&event.event) {
            continue;
        }
        let (key, delivery) = pending(event, &webhook.id, &body, now);
        let encoded = serde_json::to_string(&delivery)?;
        tx.execute(
            "INSERT INTO webhook_deliveries (key, webhook, next_at, delivery)
             VALUES ($1, $2, $3, $4)",
            &[&key, &webhook.id, &(now as i64), &encoded],
        )
        .await?;
        count += 1;
    }
    Ok(count)
}

impl PgWebhooks {
    pub fn new(db: PgDatabase, config: &WebhooksConfig) -> PgWebhooks {
        PgWebhooks {
            db,
            lease_ms: config.timeout_ms.saturating_add(60_000),
            wake: Arc::new(Notify::new()),
        }
    }
}

impl WebhookStore for PgWebhooks {
    fn create(&self, new: NewWebhook) -> Result<Webhook, WebhookError> {
        let (webhook, stored) = prepare(new)?;
        let stored = String::from_utf8(stored).map_err(WebhookError::store)?;
        let (id, created) = (webhook.id.as_str(), webhook.created as i64);
        run(&self.db, async |client| {
            client
                .execute(
                    "INSERT INTO webhooks (id, created, stored) VALUES ($1, $2, $3)",
                    &[&id, &created, &stored],
                )
                .await?;
            Ok(())
        })
        .map_err(fail)?;
        Ok(webhook)
    }

    fn list(&self) -> Result<Vec<Webhook>, WebhookError> {
        let stored = run(&self.db, async |client| {
            let rows = client
                .query("SELECT stored FROM webhooks ORDER BY created, id", &[])
                .await?;
            Ok(rows
                .iter()
                .map(|row| row.get::<_, String>(0))
                .collect::<Vec<_>>())
        })
        .map_err(fail)?;
        stored
            .iter()
            .map(|s| read_stored(s.as_bytes()).map(|(webhook, _)| webhook))
            .collect()
    }

    fn delete(&self, id: &str) -> Result<bool, WebhookError> {
        run(&self.db, async |client: &mut Client| {
            let tx = client.transaction().await?;
            let existed = tx
                .execute("DELETE FROM webhooks WHERE id = $1", &[&id])
                .await?;
            tx.execute("DELETE FROM webhook_deliveries WHERE webhook = $1", &[&id])
                .await?;
            tx.commit().await?;
            Ok(existed == 1)
        })
        .map_err(fail)
    }

    fn deliveries(&self, id: &str, limit: usize) -> Result<Option<Vec<Delivery>>, WebhookError> {
        let limit = limit.min(i64::MAX as usize) as i64;
        run(&self.db, async |client| {
            let known = client
                .query_opt("SELECT 1 FROM webhooks WHERE id = $1", &[&id])
                .await?;
            if known.is_none() {
                return Ok(None);
            }
            let rows = client
                .query(
                    "SELECT delivery FROM webhook_deliveries WHERE webhook = $1
                     ORDER BY key DESC LIMIT $2",
                    &[&id, &limit],
                )
                .await?;
            let mut log = Vec::new();
            for row in rows {
                let mut delivery: Delivery = serde_json::from_str(row.get::<_, &str>(0))?;
                delivery.body = None;
                log.push(delivery);
            }
            Ok(Some(log))
        })
        .map_err(fail)
    }

    fn announce(&self, event: &Event) -> Result<usize, WebhookError> {
        let count = run(&self.db, async |client: &mut Client| {
            let tx = client.transaction().await?;
            let count = announce_in_pg(&tx, event).await?;
            tx.commit().await?;
            Ok(count)
        })
        .map_err(fail)?;
        if count > 0 {
            self.wake();
        }
        Ok(count)
    }

    fn wake(&self) {
        self.wake.notify_one();
    }

    fn notified(&self) -> Arc<Notify> {
        self.wake.clone()
    }

    fn due(
        &self,
        now_ms: u64,
        limit: usize,
    ) -> Result<(Vec<DueDelivery>, Option<u64>), WebhookError> {
        let now = now_ms.min(i64::MAX as u64) as i64;
        let until = now.saturating_add(self.lease_ms.min(i64::MAX as u64) as i64);
        let limit = limit.min(i64::MAX as usize) as i64;
        run(&self.db, async |client: &mut Client| {
            let tx = client.transaction().await?;
            let rows = tx
                .query(
                    "UPDATE webhook_deliveries d SET lease_until = $2
                     FROM (SELECT key FROM webhook_deliveries
                           WHERE next_at <= $1 AND lease_until < $1
                           ORDER BY next_at LIMIT $3 FOR UPDATE SKIP LOCKED) due
                     WHERE d.key = due.key
                     RETURNING d.key, d.delivery,
                               (SELECT stored FROM webhooks w WHERE w.id = d.webhook)",
                    &[&now, &until, &limit],
                )
                .await?;
            let next: Option<i64> = tx
                .query_one(
                    "SELECT min(GREATEST(next_at, lease_until)) FROM webhook_deliveries
                     WHERE next_at IS NOT NULL AND GREATEST(next_at, lease_until) > $1",
                    &[&now],
                )
                .await?
                .get(0);
            tx.commit().await?;
            let mut due = Vec::new();
            for row in &rows {
                // Deleted with its webhook meanwhile.
                let Some(stored) = row.get::<_, Option<&str>>(2) else {
                    continue;
                };
                let (webhook, secret) =
                    read_stored(stored.as_bytes()).map_err(|e| DbFail(e.to_string()))?;
                due.push(DueDelivery {
                    key: row.get(0),
                    delivery: serde_json::from_str(row.get::<_, &str>(1))?,
                    url: webhook.url,
                    secret,
                });
            }
            let next = if rows.len() as i64 >= limit {
                Some(now_ms)
            } else {
                next.map(|at| at.max(0) as u64)
            };
            Ok((due, next))
        })
        .map_err(fail)
    }

    /// An attempt that cannot be written leaves the delivery taken until its lease has passed.
    fn record(
        &self,
        key: &str,
        attempt: Attempt,
        config: &WebhooksConfig,
        jitter: f64,
    ) -> Result<DeliveryState, WebhookError> {
        run(&self.db, async |client: &mut Client| {
            let tx = client.transaction().await?;
            let Some(row) = tx
                .query_opt(
                    "SELECT delivery FROM webhook_deliveries WHERE key = $1 FOR UPDATE",
                    &[&key],
                )
                .await?
            else {
                // Deleted with its webhook while it was being sent.
                return Ok(DeliveryState::Failed);
            };
            let mut delivery: Delivery = serde_json::from_str(row.get::<_, &str>(0))?;
            let now = super::store::millis_now();
            let next = apply_attempt(&mut delivery, attempt, 0, config, jitter, now);
            let encoded = serde_json::to_string(&delivery)?;
            let next = next.map(|at| at.min(i64::MAX as u64) as i64);
            tx.execute(
                "UPDATE webhook_deliveries SET delivery = $2, next_at = $3, lease_until = 0
                 WHERE key = $1",
                &[&key, &encoded, &next],
            )
            .await?;
            tx.commit().await?;
            Ok(delivery.state)
        })
        .map_err(fail)
    }
}
