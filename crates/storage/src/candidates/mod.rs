//! Where a check may find candidates, across every library of a data directory: one map from
//! each candidate key — a content hash, a selected shingle, the term set of a signature — to the
//! libraries that hold it, so that a check opens only the libraries that can answer it instead
//! of paying a lookup in each.
//!
//! Signatures are computed against each library's own statistics, so the query's signature
//! differs from library to library; but a signature can only be shared by two texts that both
//! hold every term of its set. The map files each document's signature term sets (as term
//! hashes) and names a library when one of its sets lies wholly inside the query's terms: the
//! libraries where the query's signature could match, found without their statistics. The
//! library's own lookups then decide, exactly as before.
//!
//! Kept in step with writes by [`LibraryIndex`](crate::index::LibraryIndex): keys are filed and
//! logged when a document or its signatures are staged, and the log is durable before the commit
//! that publishes them (`share.rs`).

mod keys;
mod map;
mod share;

pub use map::{CandidateMap, CandidateProbe};
pub use share::CandidateShare;

pub(crate) use keys::{SetKey, set_keys};
pub(crate) use map::shingle_key;
