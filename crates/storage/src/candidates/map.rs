//! The map itself: each candidate key to the libraries that hold it, in memory.

use std::collections::{HashMap, HashSet};

use parking_lot::RwLock;

use super::keys::{SetKey, term_hash};

/// A library's number in the map: small, so that key lists stay compact.
pub(crate) type LibraryNo = u32;

/// Which libraries may hold a candidate for a query, across every library of a data directory.
///
/// **Invariant: it may say too much, never too little.** A library that holds a document the
/// query's content hash, signatures or sampled shingles would find is always named; a library
/// named may hold none (a key of a deleted document stays until the library's keys are
/// rebuilt). A library whose keys are not all known yet is named for every query.
#[derive(Default)]
pub struct CandidateMap {
    inner: RwLock<Inner>,
}

#[derive(Default)]
struct Inner {
    /// Library numbers to ids; `None` once the library is deleted.
    names: Vec<Option<String>>,
    /// Content hashes to the libraries holding them, ascending.
    hashes: HashMap<u64, Vec<LibraryNo>>,
    /// Sampled shingles to the libraries holding them, ascending.
    shingles: HashMap<u64, Vec<LibraryNo>>,
    /// Signature term sets, each filed under one of its terms: the one in the fewest sets when
    /// it was filed, so that a query's common terms do not lead to long lists. (A query looks
    /// under every one of its terms, so any choice finds every set inside it.)
    sets: HashMap<u32, Vec<(LibraryNo, SetKey)>>,
    /// How many filed sets hold each term.
    term_sets: HashMap<u32, u32>,
    /// Libraries named for every query (their keys are being read).
    unknown: HashSet<LibraryNo>,
}

/// What a check looks up: the query's content hash, its sampled shingles and its terms.
pub struct CandidateProbe<'a> {
    pub content_hash: u64,
    /// The query's shingles (sampled or not: only sampled ones are looked up).
    pub shingles: &'a [u64],
    /// The query's distinct terms.
    pub terms: &'a [(String, u32)],
    /// The sampled shingles a document must share to be a candidate.
    pub min_shingle_hits: u32,
}

impl CandidateMap {
    pub fn new() -> Self {
        Self::default()
    }

    /// Numbers a library that joins the map; its keys are unknown until
    /// [`CandidateMap::known`].
    pub(crate) fn join(&self, id: &str) -> LibraryNo {
        let mut inner = self.inner.write();
        let number = inner.names.len() as LibraryNo;
        inner.names.push(Some(id.to_string()));
        inner.unknown.insert(number);
        number
    }

    /// A library's keys are all in the map from now on.
    pub(crate) fn known(&self, library: LibraryNo) {
        self.inner.write().unknown.remove(&library);
    }

    /// A library left (deleted): it is never named again; its keys stay until the process ends.
    pub(crate) fn leave(&self, library: LibraryNo) {
        let mut inner = self.inner.write();
        if let Some(name) = inner.names.get_mut(library as usize) {
            *name = None;
        }
        inner.unknown.remove(&library);
    }

    /// Files one document's content keys under `library`.
    pub(crate) fn add_content(&self, library: LibraryNo, content_hash: u64, shingles: &[u64]) {
        let mut inner = self.inner.write();
        insert_sorted(inner.hashes.entry(content_hash).or_default(), library);
        for shingle in shingles {
            insert_sorted(inner.shingles.entry(*shingle).or_default(), library);
        }
    }

    /// Files signature term sets under `library`.
    pub(crate) fn add_sets(&self, library: LibraryNo, sets: &[SetKey]) {
        let mut inner = self.inner.write();
        for set in sets {
            let mut anchor = (u32::MAX, 0);
            for term in set.hashes() {
                let count = inner.term_sets.entry(*term).or_default();
                *count += 1;
                anchor = anchor.min((*count, *term));
            }
            let list = inner.sets.entry(anchor.1).or_default();
            if !list.iter().rev().take(8).any(|e| *e == (library, *set)) {
                list.push((library, *set));
            }
        }
    }

    /// The ids of the libraries that may hold a candidate for `probe` (see the invariant).
    pub fn libraries(&self, probe: &CandidateProbe<'_>) -> HashSet<String> {
        let inner = self.inner.read();
        let mut found: HashSet<LibraryNo> = inner.unknown.clone();
        if let Some(libraries) = inner.hashes.get(&probe.content_hash) {
            found.extend(libraries);
        }
        // A document shares at least `min_shingle_hits` sampled shingles with the query only in
        // a library that holds that many of them.
        let sampled: HashSet<u64> = probe
            .shingles
            .iter()
            .copied()
            .filter(|h| dupfinder_text::analysis::is_sampled(*h))
            .collect();
        let mut shared: HashMap<LibraryNo, u32> = HashMap::new();
        for shingle in &sampled {
            for library in inner.shingles.get(shingle).into_iter().flatten() {
                *shared.entry(*library).or_default() += 1;
            }
        }
        let needed = probe.min_shingle_hits.max(1);
        found.extend(
            shared
                .into_iter()
                .filter(|(_, n)| *n >= needed)
                .map(|(l, _)| l),
        );
        // A signature is shared only where every term of its set is in the query.
        let mut terms: Vec<u32> = probe.terms.iter().map(|(t, _)| term_hash(t)).collect();
        terms.sort_unstable();
        terms.dedup();
        for term in &terms {
            for (library, set) in inner.sets.get(term).into_iter().flatten() {
                if !found.contains(library)
                    && set.hashes().iter().all(|h| terms.binary_search(h).is_ok())
                {
                    found.insert(*library);
                }
            }
        }
        found
            .into_iter()
            .filter_map(|n| inner.names.get(n as usize).cloned().flatten())
            .collect()
    }

    /// Entries held, for the figures of a benchmark: keys and library references.
    pub fn size(&self) -> (usize, usize) {
        let inner = self.inner.read();
        let keys = inner.hashes.len() + inner.shingles.len() + inner.sets.len();
        let refs = inner.hashes.values().map(Vec::len).sum::<usize>()
            + inner.shingles.values().map(Vec::len).sum::<usize>()
            + inner.sets.values().map(Vec::len).sum::<usize>();
        (keys, refs)
    }
}

fn insert_sorted(list: &mut Vec<LibraryNo>, library: LibraryNo) {
    if list.last() == Some(&library) {
        return;
    }
    if let Err(at) = list.binary_search(&library) {
        list.insert(at, library);
    }
}
