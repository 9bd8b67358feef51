//! The `[batch]` section of the configuration.

use serde::Deserialize;

/// Bounds on one batch.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BatchConfig {
    /// Files in one batch at most: `file` parts of a request, or entries of a `.zip`.
    pub max_files: usize,
    /// The entries of a `.zip` may unpack to this many bytes in all; more is refused
    /// (`batch_too_large`) after reading no more than this, whatever the archive claims.
    pub max_unpacked_bytes: u64,
    /// On PostgreSQL, how long a server process holds a batch's file it took to check: another
    /// takes it once this has passed (the first was killed, or is still at it). Longer than the
    /// slowest file's extraction and check.
    pub lease_secs: u64,
}

impl Default for BatchConfig {
    fn default() -> Self {
        BatchConfig {
            max_files: 500,
            max_unpacked_bytes: 256 * 1024 * 1024,
            lease_secs: 600,
        }
    }
}
