//! Document signatures: the statistics snapshot a library is signed against and the TF-RIDF
//! seed signature (top 6 terms by `TF·RIDF`, sorted, concatenated, CRC32).
//!
//! Robust 64-bit variants (top-7 subsets, randomized lexicons) sit beside the seed signature.
//!
//! `methods` holds the seed comparison paper's thirteen methods (A0–A12), for evaluation.
//!
//! Everything here is pure arithmetic over term counts; the snapshot is built and persisted by
//! `index/`.

#[cfg(test)]
mod fixture;
pub mod methods;
mod robust;
mod snapshot;
mod tfridf;

pub use robust::{
    RobustScheme, all_signatures, robust_signatures, robust_signatures_of, signature_term_sets,
};
pub use snapshot::{StatsSnapshot, TermStats};
pub use tfridf::{
    SEED_TERMS, WeightedTerm, ridf, seed_signature, seed_signature_of, seed_terms, top_terms,
    weigh_terms,
};
