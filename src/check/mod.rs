//! The check: a submitted text against one or more libraries — candidates from the content
//! hash and the signatures, each verified and scored, and the verdict.

mod engine;
mod passages;
mod similarity;

pub use engine::{
    CheckError, CheckReport, CheckRequest, MatchReport, Method, Verdict, check, raw_candidates,
};
pub use passages::{PassageMatch, Span};
pub use similarity::{Similarity, bag_similarity};
