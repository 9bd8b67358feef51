//! The one way a file is extracted in the process: [`Extractions`] runs [`extract_cancellable`]
//! (through one function, `extract_bounded`, for async and blocking callers alike, a reader's
//! panic an unreadable file) under `[extract]`'s bounds, at most `max_concurrent` at once,
//! stopped when its time is up,
//! when nobody waits for it any more (the future waiting for it was dropped: the client left)
//! and when the server stops. Uploads, batches, crawled full texts and imports all extract
//! through it, so they share the places and the bounds.
//!
//! The time bound is kept twice: the extraction stops itself at its next step once its time is
//! up, and an async caller is answered at the time even if that step is long (one parser step
//! is bounded by the file's size and the budget, not by time).

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;
use std::time::Duration;

use tokio::sync::OwnedSemaphorePermit;

use super::{ExtractError, ExtractLimits, ExtractedDocument, Format, extract_cancellable, sniff};
use dupfinder_common::admission::Places;
use dupfinder_common::cancel::CancelFlag;

/// The process's extractions: their places, their bounds, and the flag that stops them all.
#[derive(Debug)]
pub struct Extractions {
    limits: ExtractLimits,
    places: Places,
    stopping: CancelFlag,
}

impl Extractions {
    /// Places for `limits.max_concurrent` extractions (0: one per CPU core).
    pub fn new(limits: &ExtractLimits) -> Self {
        Extractions {
            limits: limits.clone(),
            places: Places::new(limits.max_concurrent, limits.max_waiting),
            stopping: CancelFlag::new(),
        }
    }

    pub fn limits(&self) -> &ExtractLimits {
        &self.limits
    }

    /// Places taken now: extractions running (or stopping after being given up).
    pub fn running(&self) -> usize {
        self.places.taken()
    }

    /// Stops every extraction running or waiting, and every later one: the server is stopping.
    pub fn stop(&self) {
        self.stopping.cancel();
    }

    /// Extracts `bytes` on the blocking pool: waits for a place (refused with
    /// [`ExtractError::Busy`] when `max_waiting` uploads wait already), answers at the time
    /// bound. Dropping the future (the client left) stops the extraction at its next step.
    pub async fn extract(
        &self,
        bytes: impl AsRef<[u8]> + Send + 'static,
    ) -> Result<ExtractedDocument, ExtractError> {
        let place = self.place().await?;
        let cancel = self.stopping.child();
        let _cancel_when_abandoned = cancel.cancel_on_drop();
        let limits = self.limits.clone();
        let seconds = limits.timeout_seconds;
        let work = tokio::task::spawn_blocking(move || {
            // The place is held until the extraction has stopped, not only until it is answered.
            let _place = place;
            extract_bounded(bytes.as_ref(), &limits, &cancel)
        });
        match tokio::time::timeout(Duration::from_secs(seconds.max(1)), work).await {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(failed)) => Err(ExtractError::Unreadable {
                format: Format::Text,
                reason: format!("the extraction did not finish: {failed}"),
            }),
            Err(_) => Err(ExtractError::Timeout { seconds }),
        }
    }

    /// Extracts `bytes` on this thread (batches, imports): waits for a place as long as it
    /// takes, unless `cancel` or the server's stop is set meanwhile.
    pub fn extract_blocking(
        &self,
        bytes: &[u8],
        cancel: &CancelFlag,
    ) -> Result<ExtractedDocument, ExtractError> {
        let stop = || cancel.is_cancelled() || self.stopping.is_cancelled();
        let _place = wait_blocking(self.places.take_patiently(), stop)
            .flatten()
            .ok_or(ExtractError::Cancelled)?;
        extract_bounded(bytes, &self.limits, &self.stopping.child_also_of(cancel))
    }

    /// A place, waiting while every one is taken, unless too many wait already.
    async fn place(&self) -> Result<OwnedSemaphorePermit, ExtractError> {
        if self.stopping.is_cancelled() {
            return Err(ExtractError::Cancelled);
        }
        self.places.take().await.ok_or(ExtractError::Busy)
    }
}

/// The one extraction of the process, in a place: [`extract_cancellable`] under `limits` (its
/// time included) and `cancel`, a reader that panics outside the PDF reader's own
/// `catch_unwind` answered as an unreadable file rather than taking its caller down.
fn extract_bounded(
    bytes: &[u8],
    limits: &ExtractLimits,
    cancel: &CancelFlag,
) -> Result<ExtractedDocument, ExtractError> {
    let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        extract_cancellable(bytes, limits, cancel)
    }));
    read.unwrap_or_else(|_| {
        let format = sniff(bytes).unwrap_or(Format::Text);
        tracing::error!(%format, "a file reader failed");
        Err(ExtractError::Unreadable {
            format,
            reason: "the reader failed on this file".to_string(),
        })
    })
}

/// Wakes a thread parked in [`wait_blocking`].
struct Unpark(Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Polls `future` on this thread until it is ready, or `None` once `stop` holds (looked at
/// every 100 ms while waiting).
fn wait_blocking<F: Future>(future: F, stop: impl Fn() -> bool) -> Option<F::Output> {
    let mut future = pin!(future);
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut context = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
            return Some(output);
        }
        if stop() {
            return None;
        }
        std::thread::park_timeout(Duration::from_millis(100));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RTF: &[u8] = b"{\\rtf1\\ansi Body text of a paper about bounds.\\par}";

    fn one_place() -> Extractions {
        Extractions::new(&ExtractLimits {
            max_concurrent: 1,
            max_waiting: 1,
            ..ExtractLimits::default()
        })
    }

    #[tokio::test]
    async fn uploads_past_the_places_and_the_waiting_room_are_busy() {
        let extractions = Arc::new(one_place());
        let held = extractions.places.try_take().unwrap();
        let waiting = {
            let extractions = extractions.clone();
            tokio::spawn(async move { extractions.extract(RTF).await })
        };
        while extractions.places.waiting() == 0 {
            tokio::task::yield_now().await;
        }
        assert_eq!(
            extractions.extract(RTF).await.unwrap_err(),
            ExtractError::Busy
        );
        drop(held);
        assert!(waiting.await.unwrap().is_ok());
    }

    #[test]
    fn a_stopped_server_extracts_nothing_more() {
        let extractions = one_place();
        extractions.stop();
        assert_eq!(
            extractions
                .extract_blocking(RTF, &CancelFlag::new())
                .unwrap_err(),
            ExtractError::Cancelled
        );
    }

    #[test]
    fn a_blocking_caller_waits_for_a_place_until_it_is_cancelled() {
        let extractions = one_place();
        let _held = extractions.places.try_take().unwrap();
        let cancel = CancelFlag::new();
        cancel.cancel();
        assert_eq!(
            extractions.extract_blocking(RTF, &cancel).unwrap_err(),
            ExtractError::Cancelled
        );
    }
}
