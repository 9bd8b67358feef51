//! The keys a document leaves in the map: its content hash, its selected shingles and the term
//! sets of its signatures, each term as a 32-bit hash.

use dupfinder_signature::{RobustScheme, SEED_TERMS, WeightedTerm, signature_term_sets};

/// A term's hash in the map. Two terms with one hash only make the map name a library more.
pub(crate) fn term_hash(term: &str) -> u32 {
    crc32fast::hash(term.as_bytes())
}

/// The term set of one signature, as ascending term hashes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct SetKey {
    hashes: [u32; SEED_TERMS],
    len: u8,
}

impl SetKey {
    fn of(terms: &[&str]) -> SetKey {
        let mut hashes = [u32::MAX; SEED_TERMS];
        let len = terms.len().min(SEED_TERMS);
        for (slot, term) in hashes.iter_mut().zip(terms) {
            *slot = term_hash(term);
        }
        hashes[..len].sort_unstable();
        SetKey {
            hashes,
            len: len as u8,
        }
    }

    /// The hashes, ascending.
    pub(crate) fn hashes(&self) -> &[u32] {
        &self.hashes[..usize::from(self.len)]
    }

    /// A set read back from the log; `None` for a length no set has.
    pub(crate) fn from_hashes(hashes: &[u32]) -> Option<SetKey> {
        if hashes.is_empty() || hashes.len() > SEED_TERMS {
            return None;
        }
        let mut key = SetKey {
            hashes: [u32::MAX; SEED_TERMS],
            len: hashes.len() as u8,
        };
        key.hashes[..hashes.len()].copy_from_slice(hashes);
        key.hashes[..hashes.len()].sort_unstable();
        Some(key)
    }
}

/// The term sets of every signature of a document, from its weighted terms in [`top_terms`]
/// order, deduplicated.
///
/// [`top_terms`]: dupfinder_signature::top_terms
pub(crate) fn set_keys(ordered: &[WeightedTerm<'_>], scheme: RobustScheme) -> Vec<SetKey> {
    let mut keys: Vec<SetKey> = signature_term_sets(ordered, scheme)
        .iter()
        .map(|terms| SetKey::of(terms))
        .collect();
    keys.sort_unstable_by_key(|k| (k.len, k.hashes));
    keys.dedup();
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_keeps_its_hashes_sorted_and_reads_back_alike() {
        let key = SetKey::of(&["parsing", "grammar", "treebank"]);
        assert_eq!(key.hashes().len(), 3);
        assert!(key.hashes().is_sorted());
        assert_eq!(SetKey::from_hashes(key.hashes()), Some(key));
        assert_eq!(SetKey::from_hashes(&[]), None);
        assert_eq!(SetKey::from_hashes(&[1; 7]), None);
    }
}
