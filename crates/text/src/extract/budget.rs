//! What one extraction may still do, and whether it must stop: the readers take bytes,
//! operators and objects from the [`Budget`] as they go and ask it at each step whether the
//! extraction was cancelled or ran out of time. A reader past a bound stops there with the
//! bound's error; nothing of the file is read further.

use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use super::{ExtractError, ExtractLimits};
use dupfinder_common::cancel::CancelFlag;

/// One extraction's bounds and what it has used of them. Clones share what is used (lopdf's
/// loader is handed one through a thread-local: its hook is a plain function).
#[derive(Debug, Clone)]
pub(crate) struct Budget(Rc<Used>);

#[derive(Debug)]
pub(crate) struct Used {
    pub(super) limits: ExtractLimits,
    cancel: CancelFlag,
    deadline: Instant,
    /// Bytes inflated by the decoders, counted separately before parsing (`scan`) and while
    /// parsing (`decode`): the same streams are decoded in both.
    scanned: Cell<u64>,
    decoded: Cell<u64>,
    operators: Cell<u64>,
}

impl Budget {
    /// A budget for one file under `limits`, stopped by `cancel` and after
    /// `limits.timeout_seconds` from now.
    pub(crate) fn new(limits: &ExtractLimits, cancel: CancelFlag) -> Self {
        Budget(Rc::new(Used {
            limits: limits.clone(),
            cancel,
            deadline: Instant::now() + Duration::from_secs(limits.timeout_seconds.max(1)),
            scanned: Cell::new(0),
            decoded: Cell::new(0),
            operators: Cell::new(0),
        }))
    }

    pub(super) fn limits(&self) -> &ExtractLimits {
        &self.0.limits
    }

    /// `Err` once the extraction was cancelled or its time is up: called between steps.
    pub(crate) fn go_on(&self) -> Result<(), ExtractError> {
        if self.0.cancel.is_cancelled() {
            return Err(ExtractError::Cancelled);
        }
        if Instant::now() > self.0.deadline {
            return Err(ExtractError::Timeout {
                seconds: self.0.limits.timeout_seconds,
            });
        }
        Ok(())
    }

    /// Takes `bytes` inflated before parsing.
    pub(super) fn scanned(&self, bytes: u64) -> Result<(), ExtractError> {
        self.take_inflated(&self.0.scanned, bytes)
    }

    /// Takes `bytes` decoded for the parser.
    pub(super) fn decoded(&self, bytes: u64) -> Result<(), ExtractError> {
        self.take_inflated(&self.0.decoded, bytes)
    }

    /// What the decoders inflated before parsing, so far.
    pub(super) fn scanned_bytes(&self) -> u64 {
        self.0.scanned.get()
    }

    /// What the decoders inflated while parsing, so far.
    pub(super) fn decoded_bytes(&self) -> u64 {
        self.0.decoded.get()
    }

    fn take_inflated(&self, used: &Cell<u64>, bytes: u64) -> Result<(), ExtractError> {
        let total = used.get().saturating_add(bytes);
        used.set(total);
        if total > self.0.limits.max_inflated_bytes {
            return Err(ExtractError::TooMuchInflated {
                limit: self.0.limits.max_inflated_bytes,
            });
        }
        Ok(())
    }

    /// Takes one page's operators: refused past the page's bound or the document's.
    pub(super) fn operators(&self, page_operators: u64) -> Result<(), ExtractError> {
        if page_operators > self.0.limits.max_page_operators {
            return Err(ExtractError::TooManyOperators {
                limit: self.0.limits.max_page_operators,
                key: "max_page_operators",
            });
        }
        let total = self.0.operators.get().saturating_add(page_operators);
        self.0.operators.set(total);
        if total > self.0.limits.max_operators {
            return Err(ExtractError::TooManyOperators {
                limit: self.0.limits.max_operators,
                key: "max_operators",
            });
        }
        Ok(())
    }
}
