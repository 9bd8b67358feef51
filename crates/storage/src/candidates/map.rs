//! The map itself: each candidate key to the libraries that hold it, in memory.

use std::collections::{HashMap, HashSet};

use parking_lot::RwLock;
use rustc_hash::FxHashMap;
use sbbf_rs_safe::Filter;

use super::keys::{SetKey, term_hash};
use dupfinder_text::analysis::ShingleSelection;

/// A library's number in the map: small, so that key lists stay compact.
pub(crate) type LibraryNo = u32;

/// Which libraries may hold a candidate for a query, across every library of a data directory.
///
/// **Invariant: it may say too much, never too little.** A library that holds a document the
/// query's content hash, signatures or selected shingles would find is always named; a library
/// named may hold none (a key of a deleted document stays until the library's keys are
/// rebuilt). A library whose keys are not all known yet is named for every query.
pub struct CandidateMap {
    inner: RwLock<Inner>,
}

impl Default for CandidateMap {
    fn default() -> Self {
        CandidateMap::with_dense_at(DENSE_AT)
    }
}

#[derive(Default)]
struct Inner {
    /// Library numbers to ids; `None` once the library is deleted.
    names: Vec<Option<String>>,
    /// Content hashes to the libraries holding them.
    hashes: KeyLibraries<u64>,
    /// Sampled shingles to the libraries holding them, by [`shingle_key`]: each library's first
    /// [`DENSE_AT`] keys filed.
    shingles: KeyLibraries<u32>,
    /// The keys each library filed after its first [`DENSE_AT`], as filters: libraries that
    /// large are few, and a filter takes about a tenth of a key's place in `shingles`.
    dense: FxHashMap<LibraryNo, KeyFilter>,
    /// Shingle keys filed under each library (by number), repeats included.
    filed: Vec<u64>,
    /// The keys a library files in `shingles` before the rest go to its filter ([`DENSE_AT`]
    /// but in tests).
    dense_at: u64,
    /// Signature term sets, each filed under one of its terms: the one in the fewest sets when
    /// it was filed, so that a query's common terms do not lead to long lists. (A query looks
    /// under every one of its terms, so any choice finds every set inside it.)
    sets: FxHashMap<u32, Vec<(LibraryNo, SetKey)>>,
    /// How many filed sets hold each term.
    term_sets: FxHashMap<u32, u32>,
    /// Libraries named for every query (their keys are being read).
    unknown: HashSet<LibraryNo>,
    /// The languages of each library's documents (ISO 639-1 codes). A library whose documents
    /// were filed without their language (by an older log) is in `any_language`.
    languages: HashMap<LibraryNo, Vec<[u8; 2]>>,
    any_language: HashSet<LibraryNo>,
}

/// What a check looks up: the query's content hash, its selected shingles and its terms.
pub struct CandidateProbe<'a> {
    pub content_hash: u64,
    /// The query's shingles by position (only those a library's selection picks are looked up).
    pub shingles: &'a [u64],
    /// The query's distinct terms.
    pub terms: &'a [(String, u32)],
    /// The selected shingles a document must share to be a candidate.
    pub min_shingle_hits: u32,
}

impl CandidateMap {
    pub fn new() -> Self {
        Self::default()
    }

    /// A map whose libraries file `dense_at` shingle keys in its lists, the rest in filters.
    fn with_dense_at(dense_at: u64) -> Self {
        CandidateMap {
            inner: RwLock::new(Inner {
                dense_at,
                ..Inner::default()
            }),
        }
    }

    /// Numbers a library that joins the map; its keys are unknown until
    /// [`CandidateMap::known`].
    pub(crate) fn join(&self, id: &str) -> LibraryNo {
        let mut inner = self.inner.write();
        let number = inner.names.len() as LibraryNo;
        inner.names.push(Some(id.to_string()));
        inner.filed.push(0);
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
        inner.dense.remove(&library);
    }

    /// Files one document's content keys under `library`: its content hash, its selected
    /// shingles' [`shingle_key`]s and its language (`None`: not known, any).
    pub(crate) fn add_content(
        &self,
        library: LibraryNo,
        content_hash: u64,
        shingle_keys: &[u32],
        language: Option<[u8; 2]>,
    ) {
        let mut inner = self.inner.write();
        match language {
            Some(code) => {
                let held = inner.languages.entry(library).or_default();
                if !held.contains(&code) {
                    held.push(code);
                }
            }
            None => {
                inner.any_language.insert(library);
            }
        }
        inner.hashes.insert(content_hash, library);
        inner.file_shingle_keys(library, shingle_keys);
    }

    /// Files selected shingles' [`shingle_key`]s under `library` (read from its runs).
    pub(crate) fn add_shingle_keys(&self, library: LibraryNo, shingle_keys: &[u32]) {
        self.inner.write().file_shingle_keys(library, shingle_keys);
    }

    /// `library` is about to file at most `keys` shingle keys (as many as its log can hold):
    /// a large library's filter is made for them at once, not grown to them.
    pub(crate) fn expect_shingle_keys(&self, library: LibraryNo, keys: u64) {
        let mut inner = self.inner.write();
        let filed = inner.filed[library as usize];
        let beyond = (filed + keys).saturating_sub(inner.dense_at.max(filed));
        if beyond > 0 && !inner.dense.contains_key(&library) {
            inner
                .dense
                .insert(library, KeyFilter::with_capacity(beyond));
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

    /// For each of `shingles` (selected shingles), whether `library` may hold it: `false` only
    /// when no document ever filed under the library holds a shingle of its key. `None` while
    /// the library's keys are not all known.
    pub(crate) fn library_may_hold(
        &self,
        library: LibraryNo,
        shingles: &[u64],
    ) -> Option<Vec<bool>> {
        let inner = self.inner.read();
        if inner.unknown.contains(&library) {
            return None;
        }
        Some(
            shingles
                .iter()
                .map(|shingle| {
                    let key = shingle_key(*shingle);
                    inner.shingles.get(key).any(|held| held == library)
                        || inner.dense.get(&library).is_some_and(|f| f.may_hold(key))
                })
                .collect(),
        )
    }

    /// The ids of the libraries that may hold a candidate for `probe` (see the invariant).
    pub fn libraries(&self, probe: &CandidateProbe<'_>) -> HashSet<String> {
        let inner = self.inner.read();
        let mut found: HashSet<LibraryNo> = inner.unknown.clone();
        found.extend(inner.hashes.get(probe.content_hash));
        // A document shares at least `min_shingle_hits` selected shingles with the query only in
        // a library that holds that many of them. Each library selects by its own rule: the
        // query's shingles either rule selects are looked up, which can only name more.
        let sampled: HashSet<u64> = [ShingleSelection::Winnowed, ShingleSelection::Modulo]
            .into_iter()
            .flat_map(|selection| selection.lookups(probe.shingles))
            .collect();
        // Counted per distinct query shingle: two whose keys collide count twice, which can
        // only name a library more.
        let mut shared: HashMap<LibraryNo, u32> = HashMap::new();
        for shingle in &sampled {
            let key = shingle_key(*shingle);
            let listed = || inner.shingles.get(key);
            // A large library counts a shingle once, whether its list or its filter holds it.
            let filtered = inner
                .dense
                .iter()
                .filter(|(library, filter)| {
                    filter.may_hold(key) && !listed().any(|l| l == **library)
                })
                .map(|(library, _)| *library);
            for library in listed().chain(filtered) {
                *shared.entry(library).or_default() += 1;
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

    /// The ids of the libraries that may hold a document in `language` (an ISO 639-1 code): a
    /// superset, as for [`CandidateMap::libraries`].
    pub fn libraries_holding(&self, language: &str) -> HashSet<String> {
        let inner = self.inner.read();
        let code = language_code(language);
        let holding = inner
            .languages
            .iter()
            .filter(|(_, held)| code.is_none_or(|code| held.contains(&code)))
            .map(|(library, _)| *library);
        let found: HashSet<LibraryNo> = holding
            .chain(inner.unknown.iter().copied())
            .chain(inner.any_language.iter().copied())
            .collect();
        found
            .into_iter()
            .filter_map(|n| inner.names.get(n as usize).cloned().flatten())
            .collect()
    }

    /// The bytes of the large libraries' key filters.
    #[cfg(test)]
    fn filter_bytes(&self) -> usize {
        self.inner.read().dense.values().map(KeyFilter::bytes).sum()
    }

    /// Entries held, for the figures of a benchmark: keys and library references.
    pub fn size(&self) -> (usize, usize) {
        let inner = self.inner.read();
        let (hash_keys, hash_refs) = inner.hashes.size();
        let (shingle_keys, shingle_refs) = inner.shingles.size();
        let keys = hash_keys + shingle_keys + inner.sets.len();
        let refs = hash_refs + shingle_refs + inner.sets.values().map(Vec::len).sum::<usize>();
        (keys, refs)
    }
}

impl Inner {
    /// Files shingle keys under `library`: in the lists until it has filed `dense_at`, then in
    /// its filter.
    fn file_shingle_keys(&mut self, library: LibraryNo, shingle_keys: &[u32]) {
        let Inner {
            shingles,
            dense,
            filed,
            dense_at,
            ..
        } = self;
        // Library numbers come from `join`, which gives each its count.
        let filed = &mut filed[library as usize];
        for key in shingle_keys {
            match *filed < *dense_at {
                true => shingles.insert(*key, library),
                false => dense
                    .entry(library)
                    .or_insert_with(|| KeyFilter::with_capacity(*dense_at))
                    .insert(*key),
            }
            *filed += 1;
        }
    }
}

/// A language code as the map files it: two ASCII bytes (`None` for any other code, which
/// matches every library).
pub(crate) fn language_code(code: &str) -> Option<[u8; 2]> {
    code.as_bytes().try_into().ok()
}

/// A selected shingle's key in the map: the high half of its hash (the low bits are what the
/// `mod 4` sample selects on; winnowing keeps small hashes, so its keys lean to small values and
/// collide somewhat more often). Two shingles with one key make the map name a library that may
/// hold neither, which its own lookups then answer; never one less. Half the memory and log of the
/// whole hash: a full paper files ~800 selected shingles (~900 under the `mod 4` sample).
pub(crate) fn shingle_key(shingle: u64) -> u32 {
    (shingle >> 32) as u32
}

/// Shingle keys a library files in the map's lists before the rest go to its filter: about a
/// thousand full papers' or twenty thousand abstracts' worth. A check tests each large library's
/// filter for each of its shingles, so there are at most (keys in the data directory) / `DENSE_AT`
/// such tests a shingle.
const DENSE_AT: u64 = 1 << 20;

/// The bits a key the first filter of a [`KeyFilter`] is sized for: a split block Bloom filter
/// (Parquet's) tests a key not inserted as held about one time in 220 at 13 bits. Each filter
/// after it takes a bit more a key (about 0.75 times the false positives of the one before), so a
/// whole chain tests a key not filed as held under one time in fifty. A false positive costs a
/// lookup in the library's runs that finds nothing.
const FILTER_BITS: usize = 13;

/// A large library's shingle keys as a chain of split block Bloom filters (each key sets eight
/// bits of one 32-byte block: one cache line a key, where a plain Bloom filter touches one a
/// bit), each twice the capacity of the one before (a scalable Bloom filter, Almeida et al.
/// 2007): a library keeps growing, and a filter's size is fixed when it is made. Never a false
/// negative. A library opened from its log and runs sizes its first filter for all their keys.
struct KeyFilter {
    chain: Vec<Link>,
}

/// One filter of a [`KeyFilter`]: the keys it was sized for and the keys inserted into it.
struct Link {
    filter: Filter,
    capacity: u64,
    inserted: u64,
}

impl KeyFilter {
    /// A chain whose first filter is sized for `keys` keys.
    fn with_capacity(keys: u64) -> Self {
        let mut filter = KeyFilter { chain: Vec::new() };
        filter.grow(keys.max(1));
        filter
    }

    /// Adds a filter for `keys` keys, sized for fewer false positives than the one before.
    fn grow(&mut self, keys: u64) {
        let bits = FILTER_BITS + self.chain.len();
        let filter = Filter::new(bits, usize::try_from(keys).unwrap_or(usize::MAX));
        self.chain.push(Link {
            filter,
            capacity: keys,
            inserted: 0,
        });
    }

    /// Inserts `key`, starting a filter of twice the capacity when the last one is full.
    fn insert(&mut self, key: u32) {
        let last = self.chain.last().expect("a chain has a filter");
        if last.inserted >= last.capacity {
            self.grow(last.capacity * 2);
        }
        let last = self.chain.last_mut().expect("a chain has a filter");
        last.filter.insert_hash(spread(key));
        last.inserted += 1;
    }

    fn may_hold(&self, key: u32) -> bool {
        let hash = spread(key);
        self.chain
            .iter()
            .any(|link| link.filter.contains_hash(hash))
    }

    #[cfg(test)]
    fn bytes(&self) -> usize {
        self.chain
            .iter()
            .map(|link| link.filter.as_bytes().len())
            .sum()
    }
}

/// A key's bits spread over 64 (the SplitMix64 finalizer): the filter takes its positions from
/// every bit of the hash, and a key is only 32.
fn spread(key: u32) -> u64 {
    let mut x = u64::from(key).wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Keys to the libraries holding them. Most keys of a data directory are held by one library
/// (a shingle of one paper), so that case takes one map entry of twelve bytes; a key held by
/// several moves to a list. (A list per key took about five times the memory: a full paper
/// files ~800 selected shingles.) The keys are hashes already, so they are hashed by a multiply
/// (`FxHashMap`), not SipHash: filing a data directory's keys when a process starts took most of
/// a minute at 100,000 full papers.
struct KeyLibraries<K> {
    one: FxHashMap<K, LibraryNo>,
    /// Keys held by two libraries or more, ascending.
    many: FxHashMap<K, Vec<LibraryNo>>,
}

impl<K> Default for KeyLibraries<K> {
    fn default() -> Self {
        KeyLibraries {
            one: FxHashMap::default(),
            many: FxHashMap::default(),
        }
    }
}

impl<K: std::hash::Hash + Eq + Copy> KeyLibraries<K> {
    fn insert(&mut self, key: K, library: LibraryNo) {
        if let Some(list) = self.many.get_mut(&key) {
            if let Err(at) = list.binary_search(&library) {
                list.insert(at, library);
            }
            return;
        }
        match self.one.get(&key) {
            None => {
                self.one.insert(key, library);
            }
            Some(&held) if held == library => {}
            Some(&held) => {
                self.one.remove(&key);
                self.many
                    .insert(key, vec![held.min(library), held.max(library)]);
            }
        }
    }

    /// The libraries holding `key`.
    fn get(&self, key: K) -> impl Iterator<Item = LibraryNo> + '_ {
        let one = self.one.get(&key).copied();
        let many = self.many.get(&key).into_iter().flatten().copied();
        one.into_iter().chain(many)
    }

    /// Keys and library references held.
    fn size(&self) -> (usize, usize) {
        let many = self.many.values().map(Vec::len).sum::<usize>();
        (self.one.len() + self.many.len(), self.one.len() + many)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_librarys_filter_names_it_wherever_its_lists_would() {
        // Two maps given the same keys: one lists them all, the other lists each library's
        // first forty and files the rest in filters.
        let (listed, filtered) = (
            CandidateMap::with_dense_at(u64::MAX),
            CandidateMap::with_dense_at(40),
        );
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        // Shingles shared between libraries, and shingles no library holds.
        let pool: Vec<u64> = (0..3_000).map(|_| next()).collect();
        let unheld: Vec<u64> = (0..3_000).map(|_| next()).collect();
        let libraries: Vec<_> = (0..5)
            .map(|l| {
                let id = format!("l{l}");
                let numbers = (listed.join(&id), filtered.join(&id));
                listed.known(numbers.0);
                filtered.known(numbers.1);
                numbers
            })
            .collect();
        // One library is opened as from a log, its first filter sized at once.
        filtered.expect_shingle_keys(libraries[1].1, 2_000);
        for document in 0..400u64 {
            // Library 0 takes most documents: it outgrows its lists many times over.
            let (a, b) = libraries[match next() % 4 {
                0 => 1 + (next() % 4) as usize,
                _ => 0,
            }];
            let keys: Vec<u32> = (0..25)
                .map(|_| shingle_key(pool[(next() % pool.len() as u64) as usize]))
                .collect();
            listed.add_content(a, document, &keys, language_code("en"));
            filtered.add_content(b, document, &keys, language_code("en"));
        }
        assert!(filtered.filter_bytes() > 0);
        assert!(filtered.size().1 < listed.size().1 / 4);

        let mut extra = 0;
        for query in 0..300 {
            let shingles: Vec<u64> = (0..60)
                .map(|i| match (query + i) % 3 {
                    0 => unheld[(next() % unheld.len() as u64) as usize],
                    _ => pool[(next() % pool.len() as u64) as usize],
                })
                .collect();
            for min_shingle_hits in [1, 3, 8] {
                let probe = CandidateProbe {
                    content_hash: u64::MAX,
                    shingles: &shingles,
                    terms: &[],
                    min_shingle_hits,
                };
                let (exact, named) = (listed.libraries(&probe), filtered.libraries(&probe));
                assert!(
                    named.is_superset(&exact),
                    "query {query}: {named:?} ⊉ {exact:?}"
                );
                extra += named.len() - exact.len();
            }
            for (a, b) in &libraries {
                let exact = listed.library_may_hold(*a, &shingles).unwrap();
                let held = filtered.library_may_hold(*b, &shingles).unwrap();
                for (e, h) in exact.iter().zip(&held) {
                    assert!(*h || !*e, "a held shingle passed over");
                }
            }
        }
        // Shingles a library does not hold rarely pass its filter: of 900 probes naming up to
        // five libraries, a few dozen names beyond the lists (each probe looks up some thirty
        // shingles a library may not hold, each passing one time in a hundred at most).
        assert!(extra < 90, "{extra} libraries named beyond the lists");
        let false_hits = filtered
            .library_may_hold(libraries[0].1, &unheld)
            .unwrap()
            .iter()
            .filter(|h| **h)
            .count();
        assert!(false_hits < unheld.len() / 50, "{false_hits} false hits");
    }

    #[test]
    fn a_library_is_named_for_the_languages_it_holds() {
        let map = CandidateMap::new();
        let (ru, en, old) = (map.join("ru"), map.join("en"), map.join("old"));
        for library in [ru, en, old] {
            map.known(library);
        }
        map.add_content(ru, 1, &[], language_code("ru"));
        map.add_content(en, 2, &[], language_code("en"));
        map.add_content(en, 3, &[], language_code("en"));
        // Filed by an older log, without its language.
        map.add_content(old, 4, &[], None);
        let named = |lang: &str| {
            let mut ids: Vec<String> = map.libraries_holding(lang).into_iter().collect();
            ids.sort();
            ids
        };
        assert_eq!(named("ru"), ["old", "ru"]);
        assert_eq!(named("en"), ["en", "old"]);
        assert_eq!(named("de"), ["old"]);
        // A library whose keys are being read is named for every language.
        let new = map.join("new");
        assert!(map.libraries_holding("de").contains("new"));
        map.known(new);
        assert!(!map.libraries_holding("de").contains("new"));
    }
}
