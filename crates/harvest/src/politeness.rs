//! How often a host is asked: one request at a time per host at most `requests_per_second`, or
//! one per robots.txt `Crawl-delay` when that is longer; a `429`/`503` with `Retry-After` holds
//! the host for as long as it asks. Each host's robots.txt is read once per crawl.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use std::time::Duration;

use tokio::sync::OnceCell;
use tokio::time::Instant;
use url::Url;

use super::robots::Robots;

/// The host key of a URL: host and port, so that two sites on one address stay apart.
pub(crate) fn authority(url: &Url) -> String {
    format!(
        "{}:{}",
        url.host_str().unwrap_or_default(),
        url.port_or_known_default().unwrap_or(0)
    )
}

struct HostState {
    /// The earliest moment the next request may start (none: now).
    next: Option<Instant>,
    /// When the last request started.
    last: Option<Instant>,
    /// The robots.txt `Crawl-delay`, once known.
    crawl_delay: Duration,
    robots: Arc<OnceCell<Arc<Robots>>>,
}

/// Per-host request pacing and robots.txt cache.
pub(crate) struct Politeness {
    min_interval: Duration,
    hosts: Mutex<HashMap<String, HostState>>,
}

impl Politeness {
    pub(crate) fn new(requests_per_second: f64) -> Politeness {
        let min_interval = if requests_per_second.is_finite() && requests_per_second > 0.0 {
            Duration::from_secs_f64(1.0 / requests_per_second)
        } else {
            Duration::ZERO
        };
        Politeness {
            min_interval,
            hosts: Mutex::new(HashMap::new()),
        }
    }

    fn with_host<T>(&self, authority: &str, f: impl FnOnce(&mut HostState) -> T) -> T {
        let mut hosts = self.hosts.lock();
        let state = hosts
            .entry(authority.to_string())
            .or_insert_with(|| HostState {
                next: None,
                last: None,
                crawl_delay: Duration::ZERO,
                robots: Arc::new(OnceCell::new()),
            });
        f(state)
    }

    /// Waits for this host's next free slot and takes it.
    pub(crate) async fn wait_turn(&self, authority: &str) {
        let slot = self.take_slot(authority, Instant::now());
        tokio::time::sleep_until(slot).await;
    }

    /// Takes the host's next free slot at or after `now`.
    fn take_slot(&self, authority: &str, now: Instant) -> Instant {
        let min_interval = self.min_interval;
        self.with_host(authority, |state| {
            let slot = state.next.map_or(now, |next| next.max(now));
            state.next = Some(slot + min_interval.max(state.crawl_delay));
            state.last = Some(slot);
            slot
        })
    }

    /// Holds the host for `wait` (a `Retry-After`).
    pub(crate) fn hold(&self, authority: &str, wait: Duration) {
        self.hold_from(authority, wait, Instant::now());
    }

    fn hold_from(&self, authority: &str, wait: Duration, now: Instant) {
        self.with_host(authority, |state| {
            state.next = Some(state.next.map_or(now + wait, |next| next.max(now + wait)));
        });
    }

    /// Records the host's robots.txt crawl delay; it applies from the last request on (the
    /// one that read robots.txt).
    pub(crate) fn set_crawl_delay(&self, authority: &str, delay: Duration) {
        self.with_host(authority, |state| {
            state.crawl_delay = delay;
            if let Some(last) = state.last {
                state.next = Some(
                    state
                        .next
                        .map_or(last + delay, |next| next.max(last + delay)),
                );
            }
        });
    }

    /// The host's robots.txt slot, filled once by whoever reads the file first.
    pub(crate) fn robots_cell(&self, authority: &str) -> Arc<OnceCell<Arc<Robots>>> {
        self.with_host(authority, |state| state.robots.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_to_one_host_are_spaced_and_the_crawl_delay_wins() {
        let ms = Duration::from_millis;
        let p = Politeness::new(10.0);
        let t0 = Instant::now();
        assert_eq!(p.take_slot("a:80", t0), t0);
        assert_eq!(p.take_slot("a:80", t0), t0 + ms(100));
        assert_eq!(p.take_slot("b:80", t0), t0, "hosts are apart");
        // The delay counts from the last request (at 100 ms).
        p.set_crawl_delay("a:80", ms(1000));
        assert_eq!(p.take_slot("a:80", t0 + ms(100)), t0 + ms(1100));
        assert_eq!(p.take_slot("a:80", t0 + ms(100)), t0 + ms(2100));
        p.hold_from("b:80", ms(5000), t0 + ms(2100));
        assert_eq!(p.take_slot("b:80", t0 + ms(2100)), t0 + ms(7100));
        // Past slots are not made up for: a host idle for a while gets the present.
        assert_eq!(p.take_slot("b:80", t0 + ms(9000)), t0 + ms(9000));
    }
}
