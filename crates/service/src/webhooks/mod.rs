//! Webhooks: portals register a URL and a secret, and the server POSTs them the events they
//! asked for (`report.completed`, `duplicate.found`) as signed JSON.
//!
//! Delivery is at least once. An event is written to a durable outbox (tables of
//! `<data>/reports.redb`, or of the database on PostgreSQL, where whichever server process takes
//! a delivery holds it under a lease) in the same commit as the report it announces, or before the
//! arrival that found a duplicate is answered, so no event is lost across a crash or a
//! restart. A worker task drains the outbox when the server starts and whenever an event is
//! added, retrying failed deliveries with exponential backoff and jitter up to
//! `[webhooks] max_attempts`; every attempt is kept in the delivery log. Webhook addresses go
//! through the crawler's network guard: private addresses are refused unless
//! `[webhooks] allow_private_networks`.
//!
//! One file per concern: `settings` (the `[webhooks]` configuration), `event` (what is sent),
//! `sign` (the signature headers), `store` (subscriptions, outbox and delivery log),
//! `deliver` (the worker), `error`.

mod deliver;
mod error;
mod event;
mod settings;
mod sign;
mod store;
mod store_pg;

pub use deliver::{deliver_forever, validate_url};
pub use error::WebhookError;
pub use event::{Event, EventKind};
pub use settings::WebhooksConfig;
pub use sign::{SIGNATURE_HEADER, TIMESTAMP_HEADER, signature, verify};
pub use store::{
    Attempt, Delivery, DeliveryState, DueDelivery, EmbeddedWebhooks, NewWebhook, Webhook,
    WebhookStore,
};
pub(crate) use store::{announce_in, copy_subscriptions};
pub use store_pg::PgWebhooks;
pub(crate) use store_pg::announce_in_pg;
