//! Memory figures of the benchmark process, read from `/proc/self/status` (Linux), shared by the
//! benches that report them.

/// A field of /proc/self/status (`VmRSS:`, `VmHWM:`, `RssAnon:`, …) in MB; 0 when unknown.
pub(crate) fn status_mb(name: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(name))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// Resident and peak resident memory of this process, in MB. Both count the pages of the index
/// files tantivy maps and has touched, which the kernel can drop at any time.
pub(crate) fn memory_mb() -> (f64, f64) {
    (status_mb("VmRSS:"), status_mb("VmHWM:"))
}
