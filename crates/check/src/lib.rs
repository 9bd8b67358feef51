//! The check: a submitted text against one or more libraries — candidates from the content
//! hash, the signatures and the shingles, each verified and scored, and the verdict.
//!
//! One file per concern: `request` and `report` (what is asked and answered), `gather`
//! (candidates from one read view of a library), `decide` (the verdict rules as pure code),
//! `verify` (scores of one candidate), `works` (a repeated passage's holders counted as works,
//! so that versions of one paper are not boilerplate), `passages` and `similarity` (the
//! arithmetic), `engine` (the check across libraries), `stored` (a stored document against
//! its own library), `config` (the `[check]` section), `translated` (translated copies across Russian and
//! English).
//!
//! The check reads libraries only through the storage seam (`ReadView`, `LibraryStore`): it
//! knows no backend, no catalog, no HTTP and no async runtime. Which libraries a check reads is
//! the service's business (`dupfinder_service::library::check`).

mod config;
mod decide;
mod engine;
mod gather;
mod kinds;
mod passages;
mod report;
mod request;
mod similarity;
mod stored;
mod translated;
mod verify;
mod works;

pub use config::CheckConfig;
pub use decide::{Scores, decide, may_match, worth_reading};
pub use dupfinder_text::analysis::Span;
pub use engine::{Checker, StoreRef, check_libraries, check_stores, raw_candidates};
pub use kinds::{ExcludeRequest, Exclusions, KindedRange, PassageKind, Shares, by_length, figures};
pub use passages::PassageMatch;
pub use report::{CheckReport, Flag, MatchReport, Method, NotCounted, Verdict, round};
pub use request::{CancelFlag, CancelOnDrop, CheckError, CheckRequest};
pub use similarity::{Similarity, bag_similarity, sorted_intersection};
pub use stored::{StoredCheck, check_stored};
pub use translated::{
    CrossLanguage, CrossLanguageConfig, CrossLanguageState, LanguagePair, Lexicon, LexiconError,
    build_from_dictd, build_lexicon, thesaurus_entries,
};
pub use verify::token_spans;
