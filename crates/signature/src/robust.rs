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
use super::tfridf::{SEED_TERMS, WeightedTerm, seed_signature_of, top_terms, weigh_terms};

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

/// Lexicons whose membership one 64-bit hash decides (six bits each).
const LEXICONS_PER_HASH: u32 = 10;

/// Which lexicons keep `term`: bit `k` is set when lexicon `k` does. Each lexicon keeps a
/// pseudo-random 43/64 (≈ two thirds) of all terms, independently of the others.
fn lexicon_membership(term: &str, lexicons: u32) -> u64 {
    let mut members = 0u64;
    for block in 0..lexicons.div_ceil(LEXICONS_PER_HASH) {
        let hash =
            xxhash_rust::xxh3::xxh3_64_with_seed(term.as_bytes(), LEXICON_SALT + u64::from(block));
        for i in 0..LEXICONS_PER_HASH.min(lexicons - block * LEXICONS_PER_HASH) {
            let draw = (hash >> (6 * i)) & 63;
            if !draw.is_multiple_of(3) {
                members |= 1 << (block * LEXICONS_PER_HASH + i);
            }
        }
    }
    members
}

/// The robust signatures of a document under `scheme`, deduplicated. Documents with fewer
/// terms than a variant needs get fewer signatures (a variant over fewer than six terms is
/// skipped, as it would match too easily).
pub fn robust_signatures(
    counts: &[(String, u32)],
    snapshot: &StatsSnapshot,
    scheme: RobustScheme,
) -> Vec<u64> {
    if scheme == RobustScheme::None {
        return Vec::new();
    }
    robust_signatures_of(
        &top_terms(weigh_terms(counts, snapshot), usize::MAX),
        scheme,
    )
}

/// The seed signature and the robust signatures of a document, weighing its terms once.
pub fn all_signatures(
    counts: &[(String, u32)],
    snapshot: &StatsSnapshot,
    scheme: RobustScheme,
) -> (Option<u32>, Vec<u64>) {
    let ordered = top_terms(weigh_terms(counts, snapshot), usize::MAX);
    (
        seed_signature_of(&ordered),
        robust_signatures_of(&ordered, scheme),
    )
}

/// The robust signatures from a document's weighted terms, all of them, ordered by
/// [`top_terms`]: one sort by weight serves every variant, each taking the heaviest terms it
/// admits.
pub fn robust_signatures_of(weighted: &[WeightedTerm<'_>], scheme: RobustScheme) -> Vec<u64> {
    let mut signatures = Vec::new();
    robust_term_sets(weighted, scheme, |salt, terms| {
        signatures.push(hash_terms(salt, terms))
    });
    signatures.sort_unstable();
    signatures.dedup();
    signatures
}

/// The term sets every signature of a document hashes, from its weighted terms ordered by
/// [`top_terms`]: the seed signature's set first, then each robust variant's. A signature can
/// only be shared by two texts that both hold every term of its set, which is what lets a
/// structure spanning libraries say where a signature might match without the libraries'
/// statistics.
pub fn signature_term_sets<'a>(
    ordered: &[WeightedTerm<'a>],
    scheme: RobustScheme,
) -> Vec<Vec<&'a str>> {
    let mut sets = Vec::new();
    if !ordered.is_empty() {
        sets.push(ordered.iter().take(SEED_TERMS).map(|w| w.term).collect());
    }
    robust_term_sets(ordered, scheme, |_, terms| sets.push(terms.to_vec()));
    sets
}

/// Calls `each` with the salt and the term set of every robust signature `scheme` computes.
fn robust_term_sets<'a>(
    weighted: &[WeightedTerm<'a>],
    scheme: RobustScheme,
    mut each: impl FnMut(u64, &mut [&'a str]),
) {
    if scheme.top7() && weighted.len() > SEED_TERMS {
        let top = &weighted[..=SEED_TERMS];
        for skip in 0..top.len() {
            let mut subset: Vec<&str> = top
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != skip)
                .map(|(_, w)| w.term)
                .collect();
            each(TOP7_SALT, &mut subset);
        }
    }
    let lexicons = scheme.lexicons().min(64);
    if lexicons > 0 {
        let mut chosen: Vec<Vec<&str>> = vec![Vec::with_capacity(SEED_TERMS); lexicons as usize];
        let mut open = lexicons as usize;
        for w in weighted {
            let members = lexicon_membership(w.term, lexicons);
            for (k, terms) in chosen.iter_mut().enumerate() {
                if terms.len() < SEED_TERMS && members & (1 << k) != 0 {
                    terms.push(w.term);
                    if terms.len() == SEED_TERMS {
                        open -= 1;
                    }
                }
            }
            if open == 0 {
                break;
            }
        }
        for (k, mut terms) in chosen.into_iter().enumerate() {
            if terms.len() == SEED_TERMS {
                each(LEXICON_SALT + 1000 + k as u64, &mut terms);
            }
        }
    }
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
    fn lexicons_keep_about_two_thirds_of_terms_each() {
        let terms: Vec<String> = (0..3000).map(|i| format!("term{i}")).collect();
        for k in 0..12 {
            let kept = terms
                .iter()
                .filter(|t| lexicon_membership(t, 12) & (1 << k) != 0)
                .count();
            assert!(
                (1850..2200).contains(&kept),
                "lexicon {k} keeps {kept} of 3000"
            );
        }
    }

    #[test]
    fn short_documents_get_no_robust_signature() {
        let counts = doc(&WORDS[..5]);
        assert!(
            robust_signatures(&counts, &StatsSnapshot::empty(), RobustScheme::default()).is_empty()
        );
    }
}
