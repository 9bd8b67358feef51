//! Places for heavy work: at most a number of pieces at once, and at most a number waiting for
//! a place; one more is refused at once rather than queued without end. Checks and file
//! extractions are admitted this way (their tests: `api::limits`, `extract::places`).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// `size` places (0: one per CPU core) and a waiting room of `max_waiting`.
#[derive(Debug)]
pub struct Places {
    size: usize,
    free: Arc<Semaphore>,
    waiting: AtomicUsize,
    max_waiting: usize,
}

impl Places {
    pub fn new(size: usize, max_waiting: usize) -> Self {
        let size = match size {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        Places {
            size,
            free: Arc::new(Semaphore::new(size)),
            waiting: AtomicUsize::new(0),
            max_waiting,
        }
    }

    /// A place, held until the permit is dropped; waits while every place is taken, unless
    /// `max_waiting` wait already (`None`: the caller is refused).
    pub async fn take(&self) -> Option<OwnedSemaphorePermit> {
        if let Ok(permit) = self.free.clone().try_acquire_owned() {
            return Some(permit);
        }
        if self.waiting.fetch_add(1, Ordering::AcqRel) >= self.max_waiting {
            self.waiting.fetch_sub(1, Ordering::AcqRel);
            return None;
        }
        // Counted out also when the caller is dropped while it waits.
        struct Waiting<'a>(&'a AtomicUsize);
        impl Drop for Waiting<'_> {
            fn drop(&mut self) {
                self.0.fetch_sub(1, Ordering::AcqRel);
            }
        }
        let _waiting = Waiting(&self.waiting);
        self.free.clone().acquire_owned().await.ok()
    }

    /// A place for a caller that waits as long as it takes (batches, imports): outside the
    /// waiting room, which bounds requests held open.
    pub fn take_patiently(&self) -> impl Future<Output = Option<OwnedSemaphorePermit>> + use<> {
        let free = self.free.clone();
        async move { free.acquire_owned().await.ok() }
    }

    /// A place if one is free now.
    pub fn try_take(&self) -> Option<OwnedSemaphorePermit> {
        self.free.clone().try_acquire_owned().ok()
    }

    /// Places taken now.
    pub fn taken(&self) -> usize {
        self.size - self.free.available_permits()
    }

    /// Callers waiting for a place now.
    pub fn waiting(&self) -> usize {
        self.waiting.load(Ordering::Acquire)
    }
}
