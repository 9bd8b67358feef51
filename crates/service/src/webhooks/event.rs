//! What a webhook receives: `{"id", "event", "created", "data"}`.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::dedup::Alert;
use crate::reports::Report;
use dupfinder_common::clock::unix_now;

/// The events a webhook may ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum EventKind {
    /// A check's report was kept.
    #[serde(rename = "report.completed")]
    ReportCompleted,
    /// A document that arrived (ingest, import, crawl) duplicates one already in its library.
    #[serde(rename = "duplicate.found")]
    DuplicateFound,
}

impl EventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::ReportCompleted => "report.completed",
            EventKind::DuplicateFound => "duplicate.found",
        }
    }

    pub fn parse(name: &str) -> Option<EventKind> {
        match name {
            "report.completed" => Some(EventKind::ReportCompleted),
            "duplicate.found" => Some(EventKind::DuplicateFound),
            _ => None,
        }
    }
}

/// One event, as it is sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// `evt_` and 32 hex digits; the `X-Dupfinder-Delivery` header, by which receivers
    /// de-duplicate.
    pub id: String,
    pub event: EventKind,
    /// Seconds since the Unix epoch.
    pub created: u64,
    pub data: Value,
}

impl Event {
    fn new(event: EventKind, data: Value) -> Event {
        let mut bytes = [0u8; 16];
        // Without randomness the time and a counter still make the id unique in this process.
        if getrandom::fill(&mut bytes).is_err() {
            static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
            let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            bytes[..8].copy_from_slice(&dupfinder_common::clock::unix_now().to_le_bytes());
            bytes[8..].copy_from_slice(&n.to_le_bytes());
        }
        Event {
            id: format!(
                "evt_{}",
                bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
            ),
            event,
            created: unix_now(),
            data,
        }
    }

    /// `report.completed` for a report just kept.
    pub fn report_completed(report: &Report) -> Event {
        let summary = report.summary();
        Event::new(
            EventKind::ReportCompleted,
            json!({
                "report_id": report.report_id,
                "verdict": summary.verdict,
                "similarity_index": report.answer["similarity_index"].as_f64().unwrap_or(0.0),
                "file": report.file,
                "libraries": summary.libraries.keys().collect::<Vec<_>>(),
                "submitter": report.submitter,
                "words": summary.words,
            }),
        )
    }

    /// `duplicate.found` for an alert just recorded.
    pub fn duplicate_found(alert: &Alert) -> Event {
        Event::new(
            EventKind::DuplicateFound,
            serde_json::to_value(alert).unwrap_or(Value::Null),
        )
    }

    /// The body sent: this JSON, compact. Made once when the event is written to the outbox,
    /// so every attempt sends (and signs) the same bytes.
    pub fn body(&self) -> String {
        serde_json::to_string(self).expect("an event serializes")
    }
}
