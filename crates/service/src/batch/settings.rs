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
}

impl Default for BatchConfig {
    fn default() -> Self {
        BatchConfig {
            max_files: 500,
            max_unpacked_bytes: 256 * 1024 * 1024,
        }
    }
}
