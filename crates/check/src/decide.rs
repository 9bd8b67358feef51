//! The verdict rules as pure code: what verification measured for a candidate ([`Scores`]) and
//! the configured thresholds decide whether it is a duplicate, a partial copy or no match.

use super::Verdict;
use super::report::ratio;
use crate::CheckConfig;
use dupfinder_text::analysis::ShingleSelection;

/// What verification measured for one candidate.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Scores {
    /// The candidate has the query's content hash: the same analyzed text.
    pub exact: bool,
    /// Jaccard coefficient of the two shingle sets.
    pub resemblance: f64,
    /// Share of the query's distinct shingles found in the document.
    pub containment_query: f64,
    /// Share of the document's distinct shingles found in the query.
    pub containment_doc: f64,
    /// Distinct shingles the two texts share.
    pub shared: usize,
    /// Distinct shingles of the document (library boilerplate left out).
    pub doc_shingles: usize,
    /// Shared shingles in the longest copied passage.
    pub longest_passage: usize,
    /// Weighted Jaccard coefficient of the bags of words; computed only for a candidate that
    /// [`may_match`].
    pub word_similarity: Option<f64>,
}

impl Scores {
    /// The shingles alone show a duplicate: the texts resemble each other, or one contains the
    /// other (a document of fewer than 10 shingles cannot vouch for containing the query).
    fn shingle_duplicate(&self, config: &CheckConfig) -> bool {
        self.resemblance >= config.duplicate_resemblance
            || self.containment_query >= config.duplicate_containment
            || (self.containment_doc >= config.duplicate_containment && self.doc_shingles >= 10)
    }

    /// A long enough copied passage, or enough of the query's shingles, shows a partial copy.
    fn partial(&self, config: &CheckConfig) -> bool {
        self.longest_passage >= config.partial_min_shingles as usize
            || (self.containment_query >= config.partial_containment
                && self.shared >= config.partial_min_shared as usize)
    }

    /// The bag of words decides only where shingles already show shared text: alone it cannot
    /// tell a reworded copy from a paper on the same topic.
    fn words_decide(&self, config: &CheckConfig) -> bool {
        self.containment_query.max(self.containment_doc) >= config.word_check_containment
    }
}

/// The cheap first look, before a candidate's stored document is read: under the `mod 4`
/// sample, one found only by a couple of selected shingles, a small share of the `sampled`
/// query shingles, and by no signature cannot reach any verdict. Under winnowing one shared
/// selected shingle is all a counted passage of `WINNOW_WINDOW` shingles is sure to leave, so
/// every candidate is read (the guarantee of the shortest copied run that is always found).
pub fn worth_reading(
    signed: bool,
    selection: ShingleSelection,
    sampled_hits: u32,
    sampled: usize,
    config: &CheckConfig,
) -> bool {
    signed
        || (selection == ShingleSelection::Winnowed && sampled_hits > 0)
        || sampled_hits > 2
        || ratio(sampled_hits as usize, sampled.max(1)) >= config.partial_containment
}

/// Whether a candidate with these shingle scores can reach a verdict at all; only then is its
/// bag of words compared.
pub fn may_match(scores: &Scores, config: &CheckConfig) -> bool {
    scores.exact
        || scores.shingle_duplicate(config)
        || scores.partial(config)
        || scores.words_decide(config)
}

/// The verdict on one candidate; `None` when it is not a match.
pub fn decide(scores: &Scores, config: &CheckConfig) -> Option<Verdict> {
    let word_duplicate = scores.words_decide(config)
        && scores
            .word_similarity
            .is_some_and(|w| w >= config.duplicate_word_similarity);
    if scores.exact || scores.shingle_duplicate(config) || word_duplicate {
        Some(Verdict::Duplicate)
    } else if scores.partial(config) {
        Some(Verdict::Partial)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Thresholds chosen apart from each other so every rule's boundary shows.
    fn config() -> CheckConfig {
        CheckConfig {
            duplicate_resemblance: 0.8,
            duplicate_containment: 0.9,
            partial_min_shingles: 8,
            partial_containment: 0.3,
            partial_min_shared: 20,
            word_check_containment: 0.5,
            duplicate_word_similarity: 0.7,
            ..CheckConfig::default()
        }
    }

    #[test]
    fn every_rule_and_its_boundary() {
        use Verdict::{Duplicate, Partial};
        let none = Scores {
            doc_shingles: 100,
            ..Scores::default()
        };
        let cases: &[(&str, Scores, Option<Verdict>)] = &[
            ("nothing shared", none, None),
            (
                "exact copy",
                Scores {
                    exact: true,
                    ..none
                },
                Some(Duplicate),
            ),
            (
                "resemblance at the threshold",
                Scores {
                    resemblance: 0.8,
                    ..none
                },
                Some(Duplicate),
            ),
            (
                "resemblance just below",
                Scores {
                    resemblance: 0.7999,
                    ..none
                },
                None,
            ),
            (
                "query contained",
                Scores {
                    containment_query: 0.9,
                    ..none
                },
                Some(Duplicate),
            ),
            (
                "document contained",
                Scores {
                    containment_doc: 0.9,
                    doc_shingles: 10,
                    ..none
                },
                Some(Duplicate),
            ),
            (
                "a 9-shingle document cannot vouch for containment",
                Scores {
                    containment_doc: 1.0,
                    doc_shingles: 9,
                    ..none
                },
                None,
            ),
            (
                "long passage",
                Scores {
                    longest_passage: 8,
                    ..none
                },
                Some(Partial),
            ),
            (
                "passage one short",
                Scores {
                    longest_passage: 7,
                    ..none
                },
                None,
            ),
            (
                "query share with enough shared shingles",
                Scores {
                    containment_query: 0.3,
                    shared: 20,
                    ..none
                },
                Some(Partial),
            ),
            (
                "query share with too few shared shingles",
                Scores {
                    containment_query: 0.3,
                    shared: 19,
                    ..none
                },
                None,
            ),
            (
                "query share below with many shared",
                Scores {
                    containment_query: 0.2999,
                    shared: 500,
                    ..none
                },
                None,
            ),
            (
                "reworded copy: words decide over shared text",
                Scores {
                    containment_query: 0.5,
                    word_similarity: Some(0.7),
                    ..none
                },
                Some(Duplicate),
            ),
            (
                "words similar but too little shared text",
                Scores {
                    containment_query: 0.4999,
                    word_similarity: Some(0.99),
                    ..none
                },
                None,
            ),
            (
                "words decide through the document's containment",
                Scores {
                    containment_doc: 0.5,
                    word_similarity: Some(0.7),
                    ..none
                },
                Some(Duplicate),
            ),
            (
                "shared text but the words differ",
                Scores {
                    containment_query: 0.5,
                    shared: 10,
                    word_similarity: Some(0.6999),
                    ..none
                },
                None,
            ),
            (
                "shared text, words differ, a passage long enough",
                Scores {
                    containment_query: 0.5,
                    longest_passage: 8,
                    word_similarity: Some(0.1),
                    ..none
                },
                Some(Partial),
            ),
            (
                "bag of words not computed",
                Scores {
                    containment_query: 0.5,
                    word_similarity: None,
                    ..none
                },
                None,
            ),
        ];
        for (name, scores, expected) in cases {
            assert_eq!(decide(scores, &config()), *expected, "{name}");
            if expected.is_some() {
                assert!(
                    may_match(scores, &config()),
                    "{name}: a verdict needs may_match"
                );
            }
        }
    }

    #[test]
    fn may_match_gates_the_bag_of_words() {
        let config = config();
        let none = Scores::default();
        assert!(!may_match(&none, &config));
        assert!(may_match(
            &Scores {
                containment_doc: 0.5,
                ..none
            },
            &config
        ));
        assert!(!may_match(
            &Scores {
                containment_doc: 0.4999,
                ..none
            },
            &config
        ));
    }

    #[test]
    fn worth_reading_skips_only_weak_shingle_only_candidates() {
        let config = config();
        let modulo = ShingleSelection::Modulo;
        assert!(
            worth_reading(true, modulo, 0, 100, &config),
            "signed candidates are always read"
        );
        assert!(!worth_reading(false, modulo, 2, 100, &config));
        assert!(worth_reading(false, modulo, 3, 100, &config));
        // Two hits of a short query's five sampled shingles are a large share.
        assert!(worth_reading(false, modulo, 2, 5, &config));
        assert!(!worth_reading(false, modulo, 0, 0, &config));
        // Under winnowing one shared shingle may be all a copied run leaves.
        let winnowed = ShingleSelection::Winnowed;
        assert!(worth_reading(false, winnowed, 1, 1_000, &config));
        assert!(!worth_reading(false, winnowed, 0, 1_000, &config));
    }
}
