//! Ctrl-C for the commands that stop at their next step and keep what they did.

use anyhow::Result;

/// A flag Ctrl-C sets (saying `message` on standard error), for commands that stop at their next
/// step and keep what they did.
pub(super) fn stop_on_ctrl_c(
    message: &'static str,
) -> Result<std::sync::Arc<std::sync::atomic::AtomicBool>> {
    use std::sync::atomic::{AtomicBool, Ordering};
    let cancel = std::sync::Arc::new(AtomicBool::new(false));
    let flag = cancel.clone();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| anyhow::anyhow!("starting the signal handler: {e}"))?;
    std::thread::spawn(move || {
        runtime.block_on(async {
            if tokio::signal::ctrl_c().await.is_ok() {
                eprintln!("{message}");
                flag.store(true, Ordering::Relaxed);
            }
        })
    });
    Ok(cancel)
}
