//! One way to say "stop": a flag set when nobody waits for a piece of work any more (its client
//! went away, its time ran out, the server is stopping), read by the work at its steps. Checks
//! and file extractions share it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set to stop a piece of work at its next step. Clones share the flag; a [`child`] is set
/// with its own flag or any of its parent's (a request's flag under the server's).
///
/// [`child`]: CancelFlag::child
#[derive(Debug, Clone, Default)]
pub struct CancelFlag {
    own: Arc<AtomicBool>,
    /// The flags of its parents, and theirs.
    parents: Vec<Arc<AtomicBool>>,
}

impl CancelFlag {
    /// A flag not set.
    pub fn new() -> Self {
        CancelFlag::default()
    }

    /// A new flag that also reads as set once this one (or one of its parents) is.
    pub fn child(&self) -> Self {
        let mut parents = self.parents.clone();
        parents.push(self.own.clone());
        CancelFlag {
            own: Arc::new(AtomicBool::new(false)),
            parents,
        }
    }

    /// A child of this flag that also follows `other` (and its parents).
    pub fn child_also_of(&self, other: &CancelFlag) -> Self {
        let mut child = self.child();
        child.parents.push(other.own.clone());
        child.parents.extend(other.parents.iter().cloned());
        child
    }

    pub fn cancel(&self) {
        self.own.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.own.load(Ordering::Relaxed) || self.parents.iter().any(|p| p.load(Ordering::Relaxed))
    }

    /// A guard that sets the flag when it is dropped. Held by the future that waits for the
    /// work, it cancels the work when that future is dropped unfinished: a timeout, or a
    /// client that disconnected.
    pub fn cancel_on_drop(&self) -> CancelOnDrop {
        CancelOnDrop(self.clone())
    }
}

/// Sets its [`CancelFlag`] when dropped.
#[derive(Debug)]
pub struct CancelOnDrop(CancelFlag);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropping_the_guard_cancels_and_the_flag_is_shared_by_its_clones() {
        let flag = CancelFlag::new();
        let seen_by_the_work = flag.clone();
        let guard = flag.cancel_on_drop();
        assert!(!seen_by_the_work.is_cancelled());
        drop(guard);
        assert!(seen_by_the_work.is_cancelled());
    }

    #[test]
    fn a_child_is_cancelled_with_its_parent_but_not_the_parent_with_it() {
        let server = CancelFlag::new();
        let request = server.child();
        request.cancel();
        assert!(!server.is_cancelled());
        let other = server.child();
        let batch = CancelFlag::new();
        let file = server.child_also_of(&batch);
        batch.cancel();
        assert!(file.is_cancelled() && !other.is_cancelled());
        server.cancel();
        assert!(other.is_cancelled() && other.child().is_cancelled());
    }
}
