//! Evaluation: measuring what the check finds on real corpora, through the real check path.

mod self_check;

pub use self_check::{Latency, SelfCheckMiss, SelfCheckReport, self_check};
