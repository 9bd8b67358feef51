//! Prometheus metrics: request counts and latencies per route, documents ingested, checks by
//! verdict. Written by hand in the text exposition format: a few counters do not need a crate.

use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;

use super::state::AppState;

/// Upper bounds of the latency histogram buckets, in seconds.
const BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0,
];

#[derive(Default)]
struct RouteStats {
    by_status: BTreeMap<u16, u64>,
    buckets: [u64; BUCKETS.len()],
    count: u64,
    sum_seconds: f64,
}

/// The process's metrics.
#[derive(Default)]
pub struct Metrics {
    routes: Mutex<BTreeMap<(String, String), RouteStats>>,
    pub documents_ingested: AtomicU64,
    pub documents_rejected: AtomicU64,
    pub checks_duplicate: AtomicU64,
    pub checks_partial: AtomicU64,
    pub checks_original: AtomicU64,
}

impl Metrics {
    fn observe(&self, method: &str, route: &str, status: u16, seconds: f64) {
        let mut routes = self.routes.lock();
        let stats = routes
            .entry((method.to_string(), route.to_string()))
            .or_default();
        *stats.by_status.entry(status).or_default() += 1;
        stats.count += 1;
        stats.sum_seconds += seconds;
        for (bucket, bound) in stats.buckets.iter_mut().zip(BUCKETS) {
            if seconds <= bound {
                *bucket += 1;
            }
        }
    }

    /// The metrics in Prometheus text format.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let routes = self.routes.lock();
        out.push_str("# HELP dupfinder_http_requests_total HTTP requests by route and status.\n");
        out.push_str("# TYPE dupfinder_http_requests_total counter\n");
        for ((method, route), stats) in routes.iter() {
            for (status, count) in &stats.by_status {
                let _ = writeln!(
                    out,
                    "dupfinder_http_requests_total{{method=\"{method}\",route=\"{route}\",status=\"{status}\"}} {count}"
                );
            }
        }
        out.push_str(
            "# HELP dupfinder_http_request_duration_seconds HTTP request latency by route.\n",
        );
        out.push_str("# TYPE dupfinder_http_request_duration_seconds histogram\n");
        for ((method, route), stats) in routes.iter() {
            let labels = format!("method=\"{method}\",route=\"{route}\"");
            for (bound, count) in BUCKETS.iter().zip(stats.buckets) {
                let _ = writeln!(
                    out,
                    "dupfinder_http_request_duration_seconds_bucket{{{labels},le=\"{bound}\"}} {count}"
                );
            }
            let _ = writeln!(
                out,
                "dupfinder_http_request_duration_seconds_bucket{{{labels},le=\"+Inf\"}} {}",
                stats.count
            );
            let _ = writeln!(
                out,
                "dupfinder_http_request_duration_seconds_sum{{{labels}}} {}",
                stats.sum_seconds
            );
            let _ = writeln!(
                out,
                "dupfinder_http_request_duration_seconds_count{{{labels}}} {}",
                stats.count
            );
        }
        let counters = [
            (
                "dupfinder_documents_ingested_total",
                "Documents accepted for indexing.",
                &self.documents_ingested,
            ),
            (
                "dupfinder_documents_rejected_total",
                "Documents rejected at ingest.",
                &self.documents_rejected,
            ),
        ];
        for (name, help, value) in counters {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} counter\n{name} {}",
                value.load(Ordering::Relaxed)
            );
        }
        out.push_str("# HELP dupfinder_checks_total Checks answered, by verdict.\n");
        out.push_str("# TYPE dupfinder_checks_total counter\n");
        for (verdict, value) in [
            ("duplicate", &self.checks_duplicate),
            ("partial", &self.checks_partial),
            ("original", &self.checks_original),
        ] {
            let _ = writeln!(
                out,
                "dupfinder_checks_total{{verdict=\"{verdict}\"}} {}",
                value.load(Ordering::Relaxed)
            );
        }
        out
    }
}

/// Middleware recording every request's route, status and latency.
pub(super) async fn record(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let started = Instant::now();
    let method = request.method().to_string();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_string())
        .unwrap_or_else(|| "unmatched".to_string());
    let response = next.run(request).await;
    state.metrics.observe(
        &method,
        &route,
        response.status().as_u16(),
        started.elapsed().as_secs_f64(),
    );
    response
}
