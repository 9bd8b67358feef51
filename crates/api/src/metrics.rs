//! Prometheus metrics: request counts and latencies per route, documents ingested by path and
//! rejected, checks by verdict, per-library gauges (documents, words, generation, drift, bytes
//! on disk), crawl pages by outcome, jobs by kind and state with their durations, and build
//! information. Written by hand in the text exposition format: a few series do not need a
//! crate.

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
        let name = "dupfinder_documents_rejected_total";
        let _ = writeln!(
            out,
            "# HELP {name} Documents rejected at ingest over the API.\n# TYPE {name} counter\n{name} {}",
            self.documents_rejected.load(Ordering::Relaxed)
        );
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

/// The series read from the service's state when scraped: documents ingested by path,
/// per-library gauges, crawl pages by outcome, jobs, build information. Blocking (it sizes the
/// libraries' files): run it off the async runtime.
pub(super) fn render_state(state: &AppState) -> String {
    let mut out = String::new();
    let catalog = &state.catalog;
    family(
        &mut out,
        "dupfinder_documents_ingested_total",
        "counter",
        "Documents written since the process started, by how they arrived (api, import, crawl).",
    );
    for (path, count) in catalog.ingested() {
        let _ = writeln!(
            out,
            "dupfinder_documents_ingested_total{{path=\"{}\"}} {count}",
            path.as_str()
        );
    }
    let libraries: Vec<_> = catalog.list().unwrap_or_default();
    let gauges: [(&str, &str, Gauge); 4] = [
        ("dupfinder_library_documents", "Live documents.", |l| {
            l.documents as f64
        }),
        ("dupfinder_library_words", "Indexed words.", |l| {
            l.words as f64
        }),
        (
            "dupfinder_library_generation",
            "The statistics generation signatures are computed against.",
            |l| l.stats_generation as f64,
        ),
        (
            "dupfinder_library_drift",
            "Documents added or replaced since the statistics were counted, relative to their number.",
            |l| l.drift,
        ),
    ];
    for (name, help, value) in gauges {
        family(&mut out, name, "gauge", help);
        for library in &libraries {
            let _ = writeln!(
                out,
                "{name}{{library=\"{}\"}} {}",
                library.id,
                value(library)
            );
        }
    }
    family(
        &mut out,
        "dupfinder_library_disk_bytes",
        "gauge",
        "Bytes the library's files take on disk.",
    );
    // A library kept in PostgreSQL has no files here: no sample rather than a false zero.
    for library in &libraries {
        if let Some(bytes) = catalog.disk_bytes(&library.id) {
            let _ = writeln!(
                out,
                "dupfinder_library_disk_bytes{{library=\"{}\"}} {bytes}",
                library.id,
            );
        }
    }
    family(
        &mut out,
        "dupfinder_crawl_pages",
        "gauge",
        "Pages of each library's crawl, by outcome.",
    );
    for library in &libraries {
        let Ok(Some(status)) = state.crawl.status(&library.id) else {
            continue;
        };
        let c = &status.counters;
        for (outcome, count) in [
            ("found", c.pages_found),
            ("fetched", c.pages_fetched),
            ("parsed", c.pages_parsed),
            ("indexed", c.pages_indexed),
            ("failed", c.pages_failed),
        ] {
            let _ = writeln!(
                out,
                "dupfinder_crawl_pages{{library=\"{}\",outcome=\"{outcome}\"}} {count}",
                library.id
            );
        }
    }
    let jobs = state.jobs.list();
    let mut by_kind_state: BTreeMap<(String, String), (u64, u64)> = BTreeMap::new();
    for job in &jobs {
        let kind = serde_json::to_value(job.kind).unwrap_or_default();
        let job_state = serde_json::to_value(job.state).unwrap_or_default();
        let entry = by_kind_state
            .entry((
                kind.as_str().unwrap_or_default().to_string(),
                job_state.as_str().unwrap_or_default().to_string(),
            ))
            .or_default();
        entry.0 += 1;
        if let Some(finished) = job.finished_at {
            entry.1 += finished.saturating_sub(job.created_at);
        }
    }
    family(
        &mut out,
        "dupfinder_jobs",
        "gauge",
        "Jobs known to the process, by kind and state.",
    );
    for ((kind, job_state), (count, _)) in &by_kind_state {
        let _ = writeln!(
            out,
            "dupfinder_jobs{{kind=\"{kind}\",state=\"{job_state}\"}} {count}"
        );
    }
    family(
        &mut out,
        "dupfinder_job_seconds_total",
        "counter",
        "Seconds finished jobs took, by kind and state.",
    );
    for ((kind, job_state), (_, seconds)) in &by_kind_state {
        let _ = writeln!(
            out,
            "dupfinder_job_seconds_total{{kind=\"{kind}\",state=\"{job_state}\"}} {seconds}"
        );
    }
    family(
        &mut out,
        "dupfinder_build_info",
        "gauge",
        "The running build: its version.",
    );
    let _ = writeln!(
        out,
        "dupfinder_build_info{{version=\"{}\"}} 1",
        env!("CARGO_PKG_VERSION")
    );
    out
}

/// How a per-library gauge reads its value.
type Gauge = fn(&dupfinder_service::library::LibraryInfo) -> f64;

fn family(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
}

/// Who made a request, as the access check found it (a key's name, `token` for the configured
/// token); set by the access middleware, read for the request log.
#[derive(Debug, Clone)]
pub(super) struct Caller(pub(super) String);

/// The longest `x-request-id` a client may choose; a longer one is replaced.
const MAX_REQUEST_ID: usize = 64;

/// Middleware recording every request's route, status and latency, and writing one log line per
/// request (method, route, status, duration, request id, caller). The request id is the
/// client's `x-request-id` when it sent a short printable one, else a number of the process's;
/// it is answered in `x-request-id`.
pub(super) async fn record(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    static NEXT_ID: AtomicU64 = AtomicU64::new(1);
    let started = Instant::now();
    let method = request.method().to_string();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_string())
        .unwrap_or_else(|| "unmatched".to_string());
    let caller = request
        .extensions()
        .get::<Caller>()
        .map_or_else(|| "-".to_string(), |c| c.0.clone());
    let request_id = request
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .filter(|v| {
            !v.is_empty() && v.len() <= MAX_REQUEST_ID && v.bytes().all(|b| b.is_ascii_graphic())
        })
        .map_or_else(
            || format!("{:08x}", NEXT_ID.fetch_add(1, Ordering::Relaxed)),
            str::to_string,
        );
    let mut response = next.run(request).await;
    let seconds = started.elapsed().as_secs_f64();
    let status = response.status().as_u16();
    state.metrics.observe(&method, &route, status, seconds);
    tracing::info!(
        target: "dupfinder::request",
        %method,
        %route,
        status,
        ms = (seconds * 1000.0 * 1000.0).round() / 1000.0,
        request_id = %request_id,
        key = %caller,
        "request"
    );
    if let Ok(value) = axum::http::HeaderValue::from_str(&request_id) {
        response.headers_mut().insert("x-request-id", value);
    }
    response
}
