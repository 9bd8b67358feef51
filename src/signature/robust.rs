//! Robust signature variants, 64-bit, on top of the seed signature. A single six-term signature
//! breaks when one of its terms changes; these survive such edits:
//!
//! - **top-7 subsets**: the seven heaviest terms and each of the seven 6-subsets of them, so
//!   that replacing any one of the top terms (or pushing a new term into the top six) still
//!   leaves one subset in common;
//! - **randomized lexicons** (Kołcz et al.): `K` lexicons, each keeping a pseudo-random two
//!   thirds of the vocabulary; the top six terms within each lexicon are signed. An edit that
//!   touches a term outside a lexicon does not change that lexicon's signature.
//!
//! Which variants are computed is a setting ([`RobustScheme`]); every value is hashed with xxh3
//! and a per-variant salt, so variants never collide with each other by construction.

use serde::{Deserialize, Serialize};

use super::StatsSnapshot;
use super::tfridf::{SEED_TERMS, WeightedTerm, top_terms, weigh_terms};

/// Which robust variants to compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RobustScheme {
    /// No robust variants: the seed signature only.
    None,
    /// The seven 6-subsets of the top seven terms.
    Top7,
    /// `lexicons` randomized lexicons.
    Lexicons { lexicons: u32 },
    /// Both of the above.
    Both { lexicons: u32 },
}

impl Default for RobustScheme {
    fn default() -> Self {
        RobustScheme::Both { lexicons: 10 }
    }
}

impl RobustScheme {
    fn top7(&self) -> bool {
        matches!(self, RobustScheme::Top7 | RobustScheme::Both { .. })
    }

    fn lexicons(&self) -> u32 {
        match self {
            RobustScheme::Lexicons { lexicons } | RobustScheme::Both { lexicons } => *lexicons,
            _ => 0,
        }
    }
}

/// Salt of the top-7 subset signatures; lexicon `k` uses `LEXICON_SALT + k`.
const TOP7_SALT: u64 = 0x746f_7037;
const LEXICON_SALT: u64 = 0x6c65_7800;

fn hash_terms(salt: u64, terms: &mut [&str]) -> u64 {
    terms.sort_unstable();
    let mut hasher = xxhash_rust::xxh3::Xxh3::with_seed(salt);
    for term in terms.iter() {
        hasher.update(term.as_bytes());
        hasher.update(&[0]);
    }
    hasher.digest()
}

/// Whether lexicon `k` keeps `term`: a pseudo-random two thirds of all terms.
fn in_lexicon(k: u32, term: &str) -> bool {
    !xxhash_rust::xxh3::xxh3_64_with_seed(term.as_bytes(), LEXICON_SALT + u64::from(k)).is_multiple_of(3)
}

/// The robust signatures of a document under `scheme`, deduplicated. Documents with fewer
/// terms than a variant needs get fewer signatures (a variant over fewer than six terms is
/// skipped, as it would match too easily).
pub fn robust_signatures(
    counts: &[(String, u32)],
    snapshot: &StatsSnapshot,
    scheme: RobustScheme,
) -> Vec<u64> {
    let weighted = weigh_terms(counts, snapshot);
    let mut signatures = Vec::new();
    if scheme.top7() {
        let top: Vec<WeightedTerm<'_>> = top_terms(weighted.clone(), SEED_TERMS + 1);
        if top.len() == SEED_TERMS + 1 {
            for skip in 0..top.len() {
                let mut subset: Vec<&str> = top
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i != skip)
                    .map(|(_, w)| w.term)
                    .collect();
                signatures.push(hash_terms(TOP7_SALT, &mut subset));
            }
        }
    }
    for k in 0..scheme.lexicons() {
        let kept: Vec<WeightedTerm<'_>> = weighted
            .iter()
            .copied()
            .filter(|w| in_lexicon(k, w.term))
            .collect();
        let top = top_terms(kept, SEED_TERMS);
        if top.len() == SEED_TERMS {
            let mut terms: Vec<&str> = top.iter().map(|w| w.term).collect();
            signatures.push(hash_terms(LEXICON_SALT + u64::from(k), &mut terms));
        }
    }
    signatures.sort_unstable();
    signatures.dedup();
    signatures
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(words: &[&str]) -> Vec<(String, u32)> {
        let mut counts: std::collections::BTreeMap<String, u32> = Default::default();
        for w in words {
            *counts.entry(w.to_string()).or_default() += 1;
        }
        counts.into_iter().collect()
    }

    const WORDS: [&str; 14] = [
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
        "juliet", "kilo", "lima", "mike", "november",
    ];

    #[test]
    fn one_replaced_top_term_keeps_a_top7_subset() {
        let snapshot = StatsSnapshot::empty();
        // Distinct counts make the weights distinct: the top seven are the seven most repeated.
        let mut words = Vec::new();
        for (i, w) in WORDS.iter().enumerate() {
            for _ in 0..(20 - i) {
                words.push(*w);
            }
        }
        let original = robust_signatures(&doc(&words), &snapshot, RobustScheme::Top7);
        assert_eq!(original.len(), 7);
        let edited: Vec<&str> = words
            .iter()
            .map(|w| if *w == "charlie" { "zulu" } else { w })
            .collect();
        let after = robust_signatures(&doc(&edited), &snapshot, RobustScheme::Top7);
        let shared = original.iter().filter(|s| after.contains(s)).count();
        assert!(shared >= 1, "no top-7 subset survived");
        assert_ne!(original, after);
    }

    #[test]
    fn schemes_compute_what_they_name() {
        let snapshot = StatsSnapshot::empty();
        let counts = doc(&WORDS);
        assert!(robust_signatures(&counts, &snapshot, RobustScheme::None).is_empty());
        let both = robust_signatures(&counts, &snapshot, RobustScheme::Both { lexicons: 10 });
        let top7 = robust_signatures(&counts, &snapshot, RobustScheme::Top7);
        let lexicons =
            robust_signatures(&counts, &snapshot, RobustScheme::Lexicons { lexicons: 10 });
        assert_eq!(top7.len(), 7);
        assert!(lexicons.len() >= 5, "{}", lexicons.len());
        assert_eq!(both.len(), top7.len() + lexicons.len());
    }

    #[test]
    fn short_documents_get_no_robust_signature() {
        let counts = doc(&WORDS[..5]);
        assert!(
            robust_signatures(&counts, &StatsSnapshot::empty(), RobustScheme::default()).is_empty()
        );
    }
}
