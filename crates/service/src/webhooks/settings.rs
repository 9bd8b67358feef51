//! The `[webhooks]` section of the configuration.

use serde::Deserialize;

/// How webhook deliveries are made and retried.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WebhooksConfig {
    /// Attempts per delivery before it is marked `failed` (the first one included).
    pub max_attempts: u32,
    /// The wait before the second attempt; each later wait doubles, with up to half of it
    /// added at random so that many failed deliveries do not come back at once.
    pub initial_backoff_ms: u64,
    /// The longest wait between two attempts.
    pub max_backoff_ms: u64,
    /// How long one delivery may take (connecting, sending, the receiver's answer).
    pub timeout_ms: u64,
    /// Deliveries made at once.
    pub concurrency: usize,
    /// Allow webhook URLs on private, loopback and link-local addresses (refused by default,
    /// as for the crawler, so that webhooks cannot probe the server's own network).
    pub allow_private_networks: bool,
}

impl Default for WebhooksConfig {
    fn default() -> Self {
        WebhooksConfig {
            max_attempts: 8,
            initial_backoff_ms: 1_000,
            max_backoff_ms: 600_000,
            timeout_ms: 10_000,
            concurrency: 4,
            allow_private_networks: false,
        }
    }
}

impl WebhooksConfig {
    /// The wait before attempt `attempt + 1`, after `attempt` failed ones (`attempt >= 1`),
    /// `jitter` in [0, 1).
    pub fn backoff_ms(&self, attempt: u32, jitter: f64) -> u64 {
        let doubled = self
            .initial_backoff_ms
            .saturating_mul(1u64 << attempt.saturating_sub(1).min(32));
        let base = doubled.min(self.max_backoff_ms.max(1));
        base.saturating_add((base as f64 * 0.5 * jitter.clamp(0.0, 1.0)) as u64)
            .min(self.max_backoff_ms.max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_with_jitter_and_stops_at_the_maximum() {
        let config = WebhooksConfig {
            initial_backoff_ms: 100,
            max_backoff_ms: 1_000,
            ..WebhooksConfig::default()
        };
        assert_eq!(config.backoff_ms(1, 0.0), 100);
        assert_eq!(config.backoff_ms(2, 0.0), 200);
        assert_eq!(config.backoff_ms(3, 0.0), 400);
        assert_eq!(config.backoff_ms(3, 0.99), 598);
        assert_eq!(config.backoff_ms(5, 0.0), 1_000);
        assert_eq!(config.backoff_ms(60, 0.5), 1_000);
    }
}
