//! Evaluation: test queries with known truth (the generator), and measuring what the check
//! finds on them and on real corpora, through the real check path.

pub mod extraction;
mod gen_tests;
pub mod generate;
mod planted;
mod quality;
mod self_check;
pub mod synthetic;

pub use gen_tests::{GenSummary, clough_stevenson, gen_tests, read_objects, read_queries};
pub use planted::{
    ClusterScores, PlantedSummary, PlantedTruth, gen_planted, read_truth, score_clusters,
    score_groups,
};
pub use quality::{EvalQuery, EvalReport, evaluate, print_table};
pub use self_check::{Latency, SelfCheckMiss, SelfCheckReport, self_check};
