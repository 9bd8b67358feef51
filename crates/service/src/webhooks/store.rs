//! Subscriptions, the outbox and the delivery log: a [`WebhookStore`], kept in tables of
//! `<data>/reports.redb` ([`EmbeddedWebhooks`]) or, with `[storage] backend = "postgres"`, in the
//! database (`store_pg.rs`), beside the reports in either case (so that a report and the event
//! announcing it are kept in one commit).
//!
//! In `reports.redb`:
//!
//! - `webhooks`: id → the webhook with its secret (JSON);
//! - `deliveries`: `<webhook id>/<order>` → one event's delivery to one webhook: the body to
//!   send while it is pending, its attempts and their outcome (JSON); the log the API lists;
//! - `outbox`: the keys of the pending deliveries → when to try next (milliseconds since the
//!   epoch). The worker reads only this table to find its work.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition, WriteTransaction};
use serde::{Deserialize, Serialize};
use tokio::sync::Notify;

use super::{Event, EventKind, WebhookError, WebhooksConfig};
use dupfinder_common::clock::unix_now;

const WEBHOOKS: TableDefinition<&str, &[u8]> = TableDefinition::new("webhooks");
const DELIVERIES: TableDefinition<&str, &[u8]> = TableDefinition::new("webhook_deliveries");
const OUTBOX: TableDefinition<&str, u64> = TableDefinition::new("webhook_outbox");

/// A webhook as the API shows it: never its secret.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Webhook {
    pub id: String,
    pub url: String,
    pub events: Vec<EventKind>,
    /// Seconds since the Unix epoch.
    pub created: u64,
}

/// A webhook to register.
#[derive(Debug, Clone)]
pub struct NewWebhook {
    pub url: String,
    pub secret: String,
    pub events: Vec<EventKind>,
}

#[derive(Serialize, Deserialize)]
struct StoredWebhook {
    #[serde(flatten)]
    webhook: Webhook,
    secret: String,
}

/// Where a delivery is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryState {
    /// Not yet answered 2xx; tried again at `next_attempt`.
    Pending,
    /// The receiver answered 2xx.
    Delivered,
    /// Every attempt failed (`[webhooks] max_attempts`).
    Failed,
}

/// One event's delivery to one webhook: a line of the delivery log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Delivery {
    /// The event's id (`X-Dupfinder-Delivery`).
    pub event_id: String,
    pub event: EventKind,
    pub webhook: String,
    pub state: DeliveryState,
    pub attempts: u32,
    /// The receiver's status on the last attempt, if it answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_status: Option<u16>,
    /// Why the last attempt failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// Seconds since the Unix epoch: when the event was made, last tried, next tried,
    /// delivered.
    pub created: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_attempt: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_attempt: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delivered_at: Option<u64>,
    /// The body to send, kept while the delivery is pending.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) body: Option<String>,
}

/// A pending delivery the worker is to make now.
pub struct DueDelivery {
    pub(super) key: String,
    pub(super) delivery: Delivery,
    pub(super) url: String,
    pub(super) secret: String,
}

impl DueDelivery {
    /// The delivery's key in the outbox, by which its attempt is recorded.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// What is sent: the event's id (`X-Dupfinder-Delivery`), its kind and its state.
    pub fn delivery(&self) -> &Delivery {
        &self.delivery
    }
}

/// The outcome of one attempt.
pub enum Attempt {
    /// The receiver answered with this status (2xx: delivered).
    Answered(u16),
    /// No answer: refused address, connection error, timeout.
    Failed(String),
}

/// A delivery held back after attempts the store could not record.
#[derive(Debug, Clone, Copy)]
struct HeldBack {
    /// Attempts made and not yet counted in the store.
    attempts: u32,
    /// Milliseconds since the epoch before which it is not handed out again; `u64::MAX` once
    /// its attempts are spent (a restart, which forgets this, tries it again).
    until_ms: u64,
}

/// The webhooks, their outbox and delivery log, wherever they are kept.
pub trait WebhookStore: Send + Sync {
    /// Registers a webhook; its URL was validated by the caller.
    fn create(&self, new: NewWebhook) -> Result<Webhook, WebhookError>;

    /// Every webhook, the oldest first.
    fn list(&self) -> Result<Vec<Webhook>, WebhookError>;

    /// Deletes webhook `id` with its delivery log and pending deliveries; `false` when there
    /// was none.
    fn delete(&self, id: &str) -> Result<bool, WebhookError>;

    /// The delivery log of webhook `id`, newest first, at most `limit` lines; `None` when
    /// there is no such webhook.
    fn deliveries(&self, id: &str, limit: usize) -> Result<Option<Vec<Delivery>>, WebhookError>;

    /// Writes `event` to the outbox of every webhook that asked for it in a commit of its own
    /// (durable when this returns), and wakes the worker; answers how many deliveries.
    fn announce(&self, event: &Event) -> Result<usize, WebhookError>;

    /// Tells this process's worker that the outbox has new work.
    fn wake(&self);

    /// What wakes this process's worker.
    fn notified(&self) -> Arc<Notify>;

    /// Up to `limit` pending deliveries due at `now_ms`, taken for this process to send, and
    /// when the next one not yet due (or taken by another process) is.
    fn due(
        &self,
        now_ms: u64,
        limit: usize,
    ) -> Result<(Vec<DueDelivery>, Option<u64>), WebhookError>;

    /// Records an attempt of the delivery `key`: delivered on a 2xx, otherwise tried again
    /// after a backoff, or failed once `max_attempts` are spent.
    fn record(
        &self,
        key: &str,
        attempt: Attempt,
        config: &WebhooksConfig,
        jitter: f64,
    ) -> Result<DeliveryState, WebhookError>;
}

/// The webhook `new` registers, with what is stored of it; refuses a weak secret or no event.
pub(super) fn prepare(new: NewWebhook) -> Result<(Webhook, Vec<u8>), WebhookError> {
    let secret_chars = new.secret.chars().count();
    if !(16..=256).contains(&secret_chars) {
        return Err(WebhookError::InvalidSecret);
    }
    let mut events = new.events;
    events.sort_by_key(|e| e.as_str());
    events.dedup();
    if events.is_empty() {
        return Err(WebhookError::InvalidEvent(String::new()));
    }
    let webhook = Webhook {
        id: format!("wh_{}", random_hex(8)?),
        url: new.url,
        events,
        created: unix_now(),
    };
    let stored = serde_json::to_vec(&StoredWebhook {
        webhook: webhook.clone(),
        secret: new.secret,
    })
    .map_err(WebhookError::store)?;
    Ok((webhook, stored))
}

/// A stored webhook: the webhook and its secret.
pub(super) fn read_stored(bytes: &[u8]) -> Result<(Webhook, String), WebhookError> {
    let stored: StoredWebhook = serde_json::from_slice(bytes).map_err(WebhookError::store)?;
    Ok((stored.webhook, stored.secret))
}

/// The delivery of `event` to `webhook`, pending, under its outbox key; the key orders a
/// webhook's deliveries by when they were made.
pub(super) fn pending(event: &Event, webhook: &str, body: &str, now_ms: u64) -> (String, Delivery) {
    let key = format!("{webhook}/{:020}", next_order());
    let delivery = Delivery {
        event_id: event.id.clone(),
        event: event.event,
        webhook: webhook.to_string(),
        state: DeliveryState::Pending,
        attempts: 0,
        last_status: None,
        last_error: None,
        created: event.created,
        last_attempt: None,
        next_attempt: Some(now_ms / 1000),
        delivered_at: None,
        body: Some(body.to_string()),
    };
    (key, delivery)
}

/// `delivery` after one more attempt (and `uncounted` attempts not recorded before), made at
/// `now_ms`: answers when to try again (milliseconds since the epoch) while it stays pending.
pub(super) fn apply_attempt(
    delivery: &mut Delivery,
    attempt: Attempt,
    uncounted: u32,
    config: &WebhooksConfig,
    jitter: f64,
    now_ms: u64,
) -> Option<u64> {
    delivery.attempts += 1 + uncounted;
    delivery.last_attempt = Some(now_ms / 1000);
    let delivered = match attempt {
        Attempt::Answered(status) => {
            delivery.last_status = Some(status);
            delivery.last_error = None;
            (200..300).contains(&status)
        }
        Attempt::Failed(reason) => {
            delivery.last_status = None;
            delivery.last_error = Some(reason);
            false
        }
    };
    if delivered {
        delivery.state = DeliveryState::Delivered;
        delivery.delivered_at = Some(now_ms / 1000);
    } else if delivery.attempts >= config.max_attempts.max(1) {
        delivery.state = DeliveryState::Failed;
    }
    match delivery.state {
        DeliveryState::Pending => {
            let at = now_ms + config.backoff_ms(delivery.attempts, jitter);
            delivery.next_attempt = Some(at / 1000);
            Some(at)
        }
        DeliveryState::Delivered | DeliveryState::Failed => {
            delivery.next_attempt = None;
            delivery.body = None;
            None
        }
    }
}

/// The last outbox order given by this process.
static LAST_ORDER: AtomicU64 = AtomicU64::new(0);

/// Nanoseconds since the epoch, later than every order given before by this process (and by
/// the last one, which wrote earlier times).
fn next_order() -> u64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let previous = LAST_ORDER
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |last| {
            Some(now.max(last + 1))
        })
        .expect("the update always answers a value");
    now.max(previous + 1)
}

/// Writes `event` to the outbox of every webhook that asked for it, inside `txn` (the commit
/// that keeps what the event announces); answers how many deliveries. Wake the worker once
/// `txn` is committed.
pub(crate) fn announce_in(txn: &WriteTransaction, event: &Event) -> Result<usize, WebhookError> {
    let webhooks = txn.open_table(WEBHOOKS).map_err(WebhookError::store)?;
    let mut subscribed = Vec::new();
    for row in webhooks.iter().map_err(WebhookError::store)? {
        let (_, value) = row.map_err(WebhookError::store)?;
        let (webhook, _) = read_stored(value.value())?;
        if webhook.events.contains(&event.event) {
            subscribed.push(webhook.id);
        }
    }
    drop(webhooks);
    if subscribed.is_empty() {
        return Ok(0);
    }
    let mut deliveries = txn.open_table(DELIVERIES).map_err(WebhookError::store)?;
    let mut outbox = txn.open_table(OUTBOX).map_err(WebhookError::store)?;
    let body = event.body();
    let now = millis_now();
    for webhook in &subscribed {
        let (key, delivery) = pending(event, webhook, &body, now);
        let encoded = serde_json::to_vec(&delivery).map_err(WebhookError::store)?;
        deliveries
            .insert(key.as_str(), encoded.as_slice())
            .map_err(WebhookError::store)?;
        outbox
            .insert(key.as_str(), now)
            .map_err(WebhookError::store)?;
    }
    Ok(subscribed.len())
}

/// The webhooks of a data directory.
pub struct EmbeddedWebhooks {
    db: Arc<Database>,
    /// Woken when an event is written, so the worker does not wait for its next look.
    wake: Arc<Notify>,
    /// Deliveries whose last attempts could not be written to the store (a full or failing
    /// disk): the outbox still says they are due, so they are held back here, each with the
    /// attempts the store has not counted, until their backoff passes.
    held_back: Mutex<HashMap<String, HeldBack>>,
    /// Makes every `record` fail, as a full or broken disk would (tests only).
    #[cfg(test)]
    fail_records: std::sync::atomic::AtomicBool,
}

/// Milliseconds since the Unix epoch.
pub(super) fn millis_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

fn random_hex(bytes: usize) -> Result<String, WebhookError> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).map_err(WebhookError::store)?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

impl EmbeddedWebhooks {
    /// Opens the webhook tables in `db` (creating them).
    pub fn open(db: Arc<Database>) -> Result<EmbeddedWebhooks, WebhookError> {
        let txn = db.begin_write().map_err(WebhookError::store)?;
        txn.open_table(WEBHOOKS).map_err(WebhookError::store)?;
        txn.open_table(DELIVERIES).map_err(WebhookError::store)?;
        txn.open_table(OUTBOX).map_err(WebhookError::store)?;
        txn.commit().map_err(WebhookError::store)?;
        Ok(EmbeddedWebhooks {
            db,
            wake: Arc::new(Notify::new()),
            held_back: Mutex::new(HashMap::new()),
            #[cfg(test)]
            fail_records: std::sync::atomic::AtomicBool::new(false),
        })
    }
}

impl WebhookStore for EmbeddedWebhooks {
    fn create(&self, new: NewWebhook) -> Result<Webhook, WebhookError> {
        let (webhook, stored) = prepare(new)?;
        let txn = self.db.begin_write().map_err(WebhookError::store)?;
        txn.open_table(WEBHOOKS)
            .map_err(WebhookError::store)?
            .insert(webhook.id.as_str(), stored.as_slice())
            .map_err(WebhookError::store)?;
        txn.commit().map_err(WebhookError::store)?;
        Ok(webhook)
    }

    fn list(&self) -> Result<Vec<Webhook>, WebhookError> {
        let txn = self.db.begin_read().map_err(WebhookError::store)?;
        let table = txn.open_table(WEBHOOKS).map_err(WebhookError::store)?;
        let mut all = Vec::new();
        for row in table.iter().map_err(WebhookError::store)? {
            let (_, value) = row.map_err(WebhookError::store)?;
            let stored: StoredWebhook =
                serde_json::from_slice(value.value()).map_err(WebhookError::store)?;
            all.push(stored.webhook);
        }
        all.sort_by_key(|w| w.created);
        Ok(all)
    }

    fn delete(&self, id: &str) -> Result<bool, WebhookError> {
        let txn = self.db.begin_write().map_err(WebhookError::store)?;
        let existed = {
            let mut webhooks = txn.open_table(WEBHOOKS).map_err(WebhookError::store)?;
            let mut deliveries = txn.open_table(DELIVERIES).map_err(WebhookError::store)?;
            let mut outbox = txn.open_table(OUTBOX).map_err(WebhookError::store)?;
            let existed = webhooks.remove(id).map_err(WebhookError::store)?.is_some();
            let (from, to) = prefix_range(id);
            let keys: Vec<String> = deliveries
                .range(from.as_str()..to.as_str())
                .map_err(WebhookError::store)?
                .map(|row| row.map(|(key, _)| key.value().to_string()))
                .collect::<Result<_, _>>()
                .map_err(WebhookError::store)?;
            for key in keys {
                deliveries
                    .remove(key.as_str())
                    .map_err(WebhookError::store)?;
                outbox.remove(key.as_str()).map_err(WebhookError::store)?;
            }
            existed
        };
        txn.commit().map_err(WebhookError::store)?;
        let prefix = format!("{id}/");
        self.held_back
            .lock()
            .retain(|key, _| !key.starts_with(&prefix));
        Ok(existed)
    }

    fn deliveries(&self, id: &str, limit: usize) -> Result<Option<Vec<Delivery>>, WebhookError> {
        let txn = self.db.begin_read().map_err(WebhookError::store)?;
        let webhooks = txn.open_table(WEBHOOKS).map_err(WebhookError::store)?;
        if webhooks.get(id).map_err(WebhookError::store)?.is_none() {
            return Ok(None);
        }
        let table = txn.open_table(DELIVERIES).map_err(WebhookError::store)?;
        let (from, to) = prefix_range(id);
        let mut log = Vec::new();
        for row in table
            .range(from.as_str()..to.as_str())
            .map_err(WebhookError::store)?
            .rev()
            .take(limit)
        {
            let (_, value) = row.map_err(WebhookError::store)?;
            let mut delivery: Delivery =
                serde_json::from_slice(value.value()).map_err(WebhookError::store)?;
            delivery.body = None;
            log.push(delivery);
        }
        Ok(Some(log))
    }

    fn announce(&self, event: &Event) -> Result<usize, WebhookError> {
        let txn = self.db.begin_write().map_err(WebhookError::store)?;
        let count = announce_in(&txn, event)?;
        if count == 0 {
            txn.abort().map_err(WebhookError::store)?;
            return Ok(0);
        }
        txn.commit().map_err(WebhookError::store)?;
        self.wake();
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
        let txn = self.db.begin_read().map_err(WebhookError::store)?;
        let outbox = txn.open_table(OUTBOX).map_err(WebhookError::store)?;
        let deliveries = txn.open_table(DELIVERIES).map_err(WebhookError::store)?;
        let webhooks = txn.open_table(WEBHOOKS).map_err(WebhookError::store)?;
        let held_back = self.held_back.lock().clone();
        let mut due = Vec::new();
        let mut next: Option<u64> = None;
        for row in outbox.iter().map_err(WebhookError::store)? {
            let (key, at) = row.map_err(WebhookError::store)?;
            let (key, mut at) = (key.value().to_string(), at.value());
            if let Some(held) = held_back.get(&key) {
                at = at.max(held.until_ms);
                if at == u64::MAX {
                    continue;
                }
            }
            if at > now_ms {
                next = Some(next.map_or(at, |n| n.min(at)));
                continue;
            }
            if due.len() >= limit {
                next = Some(now_ms);
                continue;
            }
            let Some(stored) = deliveries.get(key.as_str()).map_err(WebhookError::store)? else {
                continue;
            };
            let delivery: Delivery =
                serde_json::from_slice(stored.value()).map_err(WebhookError::store)?;
            let Some(webhook) = webhooks
                .get(delivery.webhook.as_str())
                .map_err(WebhookError::store)?
            else {
                continue;
            };
            let (webhook, secret) = read_stored(webhook.value())?;
            due.push(DueDelivery {
                key,
                delivery,
                url: webhook.url,
                secret,
            });
        }
        Ok((due, next))
    }

    /// An attempt that cannot be written is still counted and backed off: the delivery is held
    /// back in memory (see `held_back`), and its uncounted attempts are added to the store's at
    /// the next record that is written.
    fn record(
        &self,
        key: &str,
        attempt: Attempt,
        config: &WebhooksConfig,
        jitter: f64,
    ) -> Result<DeliveryState, WebhookError> {
        let uncounted = self
            .held_back
            .lock()
            .get(key)
            .map_or(0, |held| held.attempts);
        match self.write_attempt(key, attempt, uncounted, config, jitter) {
            Ok(state) => {
                self.held_back.lock().remove(key);
                Ok(state)
            }
            Err(e) => {
                // Reads often still work when writes do not (a full disk).
                let counted = self.counted_attempts(key).unwrap_or(0);
                let mut held_back = self.held_back.lock();
                let held = held_back.entry(key.to_string()).or_insert(HeldBack {
                    attempts: 0,
                    until_ms: 0,
                });
                held.attempts += 1;
                held.until_ms = if counted + held.attempts >= config.max_attempts.max(1) {
                    u64::MAX
                } else {
                    millis_now() + config.backoff_ms(counted + held.attempts, jitter)
                };
                Err(e)
            }
        }
    }
}

impl EmbeddedWebhooks {
    /// The attempts the store has counted for the delivery `key`.
    fn counted_attempts(&self, key: &str) -> Result<u32, WebhookError> {
        let txn = self.db.begin_read().map_err(WebhookError::store)?;
        let deliveries = txn.open_table(DELIVERIES).map_err(WebhookError::store)?;
        let Some(stored) = deliveries.get(key).map_err(WebhookError::store)? else {
            return Ok(0);
        };
        let delivery: Delivery =
            serde_json::from_slice(stored.value()).map_err(WebhookError::store)?;
        Ok(delivery.attempts)
    }

    fn write_attempt(
        &self,
        key: &str,
        attempt: Attempt,
        uncounted: u32,
        config: &WebhooksConfig,
        jitter: f64,
    ) -> Result<DeliveryState, WebhookError> {
        #[cfg(test)]
        if self.fail_records.load(Ordering::SeqCst) {
            return Err(WebhookError::store("the disk is full (injected)"));
        }
        let txn = self.db.begin_write().map_err(WebhookError::store)?;
        let state = {
            let mut deliveries = txn.open_table(DELIVERIES).map_err(WebhookError::store)?;
            let mut outbox = txn.open_table(OUTBOX).map_err(WebhookError::store)?;
            let stored = deliveries
                .get(key)
                .map_err(WebhookError::store)?
                .map(|v| v.value().to_vec());
            // Deleted with its webhook while it was being sent.
            let Some(stored) = stored else {
                return Ok(DeliveryState::Failed);
            };
            let mut delivery: Delivery =
                serde_json::from_slice(&stored).map_err(WebhookError::store)?;
            match apply_attempt(
                &mut delivery,
                attempt,
                uncounted,
                config,
                jitter,
                millis_now(),
            ) {
                Some(at) => outbox.insert(key, at).map_err(WebhookError::store)?,
                None => outbox.remove(key).map_err(WebhookError::store)?,
            };
            let encoded = serde_json::to_vec(&delivery).map_err(WebhookError::store)?;
            deliveries
                .insert(key, encoded.as_slice())
                .map_err(WebhookError::store)?;
            delivery.state
        };
        txn.commit().map_err(WebhookError::store)?;
        Ok(state)
    }
}

/// Copies the registered webhooks (not their outbox or log) into a backup of the database.
pub(crate) fn copy_subscriptions(
    from: &redb::ReadTransaction,
    to: &WriteTransaction,
) -> Result<(), redb::Error> {
    dupfinder_common::durable::copy_table(from, to, WEBHOOKS)
}

/// The key range of one webhook's deliveries.
fn prefix_range(id: &str) -> (String, String) {
    (format!("{id}/"), format!("{id}0"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, EmbeddedWebhooks) {
        let dir = tempfile::tempdir().unwrap();
        let db = Arc::new(Database::create(dir.path().join("reports.redb")).unwrap());
        (dir, EmbeddedWebhooks::open(db).unwrap())
    }

    fn new(events: &[EventKind]) -> NewWebhook {
        NewWebhook {
            url: "https://portal.example/hook".into(),
            secret: "a secret of sixteen+".into(),
            events: events.to_vec(),
        }
    }

    #[test]
    fn an_event_waits_in_the_outbox_of_each_webhook_that_asked_for_it_until_delivered() {
        let (_dir, store) = store();
        let reports = store.create(new(&[EventKind::ReportCompleted])).unwrap();
        let both = store
            .create(new(&[
                EventKind::DuplicateFound,
                EventKind::ReportCompleted,
            ]))
            .unwrap();
        let event = Event {
            id: "evt_1".into(),
            event: EventKind::DuplicateFound,
            created: 5,
            data: serde_json::json!({"doc_id": "a"}),
        };
        assert_eq!(store.announce(&event).unwrap(), 1);
        let (due, _) = store.due(u64::MAX, 10).unwrap();
        assert_eq!(due.len(), 1);
        assert_eq!(due[0].delivery.webhook, both.id);
        assert_eq!(due[0].delivery.body.as_deref(), Some(event.body().as_str()));

        let config = WebhooksConfig {
            max_attempts: 3,
            initial_backoff_ms: 60_000,
            ..WebhooksConfig::default()
        };
        let key = due[0].key.clone();
        let state = store
            .record(&key, Attempt::Answered(500), &config, 0.0)
            .unwrap();
        assert_eq!(state, DeliveryState::Pending);
        // Not due again before its backoff.
        let (due, next) = store.due(millis_now(), 10).unwrap();
        assert!(due.is_empty());
        assert!(next.unwrap() >= millis_now() + 59_000);
        store
            .record(
                &key,
                Attempt::Failed("connection refused".into()),
                &config,
                0.0,
            )
            .unwrap();
        let state = store
            .record(&key, Attempt::Answered(204), &config, 0.0)
            .unwrap();
        assert_eq!(state, DeliveryState::Delivered);
        assert!(store.due(u64::MAX, 10).unwrap().0.is_empty());
        let log = store.deliveries(&both.id, 10).unwrap().unwrap();
        assert_eq!(log.len(), 1);
        assert_eq!(
            (log[0].attempts, log[0].last_status, log[0].state),
            (3, Some(204), DeliveryState::Delivered)
        );
        assert!(log[0].body.is_none());
        assert!(
            store
                .deliveries(&reports.id, 10)
                .unwrap()
                .unwrap()
                .is_empty()
        );
        assert!(store.deliveries("wh_none", 10).unwrap().is_none());

        // Spent attempts fail the delivery; deleting the webhook drops its log.
        store.announce(&event).unwrap();
        let (due, _) = store.due(u64::MAX, 10).unwrap();
        for _ in 0..3 {
            store
                .record(&due[0].key, Attempt::Answered(503), &config, 0.0)
                .unwrap();
        }
        let log = store.deliveries(&both.id, 10).unwrap().unwrap();
        assert_eq!(log[0].state, DeliveryState::Failed);
        assert!(store.delete(&both.id).unwrap());
        assert!(!store.delete(&both.id).unwrap());
        assert_eq!(store.list().unwrap(), vec![reports]);
        assert!(store.due(u64::MAX, 10).unwrap().0.is_empty());
    }

    #[test]
    fn an_attempt_that_cannot_be_recorded_is_held_back_and_still_counted() {
        let (_dir, store) = store();
        let webhook = store.create(new(&[EventKind::ReportCompleted])).unwrap();
        let event = Event {
            id: "evt_1".into(),
            event: EventKind::ReportCompleted,
            created: 5,
            data: serde_json::json!({"report": "r"}),
        };
        store.announce(&event).unwrap();
        let (due, _) = store.due(millis_now(), 10).unwrap();
        let key = due[0].key.clone();
        let config = WebhooksConfig {
            max_attempts: 3,
            initial_backoff_ms: 60_000,
            ..WebhooksConfig::default()
        };
        store.fail_records.store(true, Ordering::SeqCst);
        assert!(
            store
                .record(&key, Attempt::Answered(500), &config, 0.0)
                .is_err()
        );
        // Not handed out again before its backoff, though the store still says it is due.
        let (due, next) = store.due(millis_now(), 10).unwrap();
        assert!(
            due.is_empty(),
            "an unrecorded attempt was handed out again at once"
        );
        assert!(next.unwrap() >= millis_now() + 59_000);
        // The unrecorded attempt counts once the store takes writes again.
        store.fail_records.store(false, Ordering::SeqCst);
        store
            .record(&key, Attempt::Answered(503), &config, 0.0)
            .unwrap();
        let log = store.deliveries(&webhook.id, 10).unwrap().unwrap();
        assert_eq!((log[0].attempts, log[0].state), (2, DeliveryState::Pending));
        // Attempts spent while nothing could be written stop the handing out, too.
        store.fail_records.store(true, Ordering::SeqCst);
        for _ in 0..3 {
            let _ = store.record(&key, Attempt::Answered(500), &config, 0.0);
        }
        assert!(store.due(u64::MAX - 1, 10).unwrap().0.is_empty());
    }

    #[test]
    fn short_secrets_and_empty_event_lists_are_refused() {
        let (_dir, store) = store();
        let mut weak = new(&[EventKind::ReportCompleted]);
        weak.secret = "short".into();
        assert!(matches!(
            store.create(weak),
            Err(WebhookError::InvalidSecret)
        ));
        assert!(matches!(
            store.create(new(&[])),
            Err(WebhookError::InvalidEvent(_))
        ));
    }
}
