//! The one clock: seconds since the Unix epoch, as every record stores its times.

/// Seconds since the Unix epoch (0 if the system clock is set before it).
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}
