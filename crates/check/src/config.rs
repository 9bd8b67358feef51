//! The check's section of the configuration (`[check]`).

use serde::Deserialize;

/// The check: candidate search and the verdict rules (see README, "Verdicts").
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CheckConfig {
    /// At most this many candidates per library and method are verified.
    pub max_candidates: usize,
    /// The work one check may do, across all its libraries (`422 work_budget_exceeded` past
    /// any of them): candidates verified…
    pub max_checked_candidates: u64,
    /// …passages found between the text and its candidates…
    pub max_passages: u64,
    /// …and verification steps, one per shingle of the text compared with one candidate.
    pub max_verification_steps: u64,
    /// A shingle held by more documents than the larger of this and
    /// `frequent_shingle_share · N` is library boilerplate and ignored.
    pub frequent_shingle_docs: u64,
    pub frequent_shingle_share: f64,
    /// A document sharing fewer distinct selected shingles with the query is not a shingle
    /// candidate. A library that winnows finds every shared run of
    /// `WINNOW_WINDOW + SHINGLE_WORDS - 1` terms at 1, and of `2 · WINNOW_WINDOW + SHINGLE_WORDS -
    /// 1` at 2, the default (two windows that do not overlap): 1 reads every document sharing
    /// one shingle, which made an abstract check several times slower.
    pub min_shingle_hits: u32,
    /// Duplicate when the shingle resemblance reaches this…
    pub duplicate_resemblance: f64,
    /// …or when either text is contained in the other at least this much…
    pub duplicate_containment: f64,
    /// …or when the word similarity reaches this while shingle containment is at least
    /// `word_check_containment` (a reworded copy).
    pub duplicate_word_similarity: f64,
    pub word_check_containment: f64,
    /// Partial copy when one copied passage holds at least this many shared shingles…
    pub partial_min_shingles: u32,
    /// …or when at least this share of the query's shingles, and at least
    /// `partial_min_shared` of them, are found in the document (revised, scattered reuse).
    pub partial_containment: f64,
    pub partial_min_shared: u32,
    /// Shared shingles at most this many positions apart in both texts belong to one passage
    /// (bridges edited words).
    pub passage_gap: u32,
    /// Reported passages hold at least this many shared shingles.
    pub passage_min_shingles: u32,
    /// Exclusions a check applies unless its request says otherwise: quoted passages, reference
    /// entries matching the source's, front matter, library boilerplate do not count…
    pub exclude_quotes: bool,
    pub exclude_bibliography: bool,
    pub exclude_front_matter: bool,
    pub exclude_boilerplate: bool,
    /// …nor passages of fewer words than this (0: none is small).
    pub exclude_small_matches: usize,
    /// A passage most of whose selected shingles this many library documents hold is library
    /// boilerplate: a journal's templates, affiliations and statements repeat across its
    /// papers far below the `frequent_shingle_docs` count. Holders that are versions of one
    /// work (equal normalized titles, or near-duplicates) count once.
    pub boilerplate_min_docs: u64,
    /// Translated copies (`[check.cross_language]`).
    pub cross_language: crate::CrossLanguageConfig,
}

impl Default for CheckConfig {
    fn default() -> Self {
        CheckConfig {
            max_candidates: 50,
            max_checked_candidates: 5_000,
            max_passages: 20_000,
            max_verification_steps: 200_000_000,
            frequent_shingle_docs: 20,
            frequent_shingle_share: 0.001,
            min_shingle_hits: 2,
            duplicate_resemblance: 0.4,
            duplicate_containment: 0.8,
            duplicate_word_similarity: 0.5,
            word_check_containment: 0.1,
            partial_min_shingles: 8,
            partial_containment: 0.1,
            partial_min_shared: 8,
            passage_gap: 6,
            passage_min_shingles: 5,
            exclude_quotes: true,
            exclude_bibliography: true,
            exclude_front_matter: true,
            exclude_boilerplate: true,
            exclude_small_matches: 0,
            boilerplate_min_docs: 4,
            cross_language: crate::CrossLanguageConfig::default(),
        }
    }
}
