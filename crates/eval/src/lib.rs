//! Evaluation: test queries with known truth (the generator), and measuring what the check
//! finds on them and on real corpora, through the real check path.

pub mod extraction;
mod full_papers;
mod gen_tests;
pub mod generate;
mod jats;
pub mod methods;
mod pan;
pub mod pdf_text;
mod planted;
pub mod plots;
mod quality;
mod reference;
mod sections;
mod self_check;
pub mod sweep;
mod synonym_swaps;
pub mod synthetic;
mod translated;

pub use full_papers::{
    FalsePositiveRow, FullPapersError, full_paper_false_positives, print_false_positives,
};
pub use gen_tests::{GenSummary, clough_stevenson, gen_tests, read_objects, read_queries};
pub use jats::{JatsError, TaggedArticle, read_jats};
pub use pan::{Aligned, PanMeasures, pan_measures};
pub use planted::{
    ClusterScores, PlantedSummary, PlantedTruth, gen_planted, read_truth, score_clusters,
    score_groups,
};
pub use quality::{
    EvalQuery, EvalReport, INDEX_SHARE_TOLERANCE, IndexShareCheck, evaluate, print_table,
};
pub use sections::{
    SectionRow, SectionsError, SectionsReport, evaluate_anchored, evaluate_sections,
    explain_article, explain_file, print_sections,
};
pub use self_check::{Latency, SelfCheckMiss, SelfCheckReport, self_check};
pub use synonym_swaps::{
    SwapError, SwapRow, evaluate_synonym_swaps, print_synonym_swaps, swap_synonyms,
};
pub use translated::{DirectionRow, TranslatedError, evaluate_translated, print_translated};
