//! Material taken from other documents: the vocabulary that replaced and inserted words come
//! from, and the ranking of foreign documents by how close their vocabulary is to the library's.

use dupfinder_check::sorted_intersection;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ops::Range;

use super::rng::Rng;
use super::text::{Script, words};

/// Longer "words" are mostly URLs, formulas and hashes; substituting them would make the
/// modified text stand out in a way real rewording does not.
const MAX_POOL_WORD_CHARS: usize = 24;

/// How many random candidates are tried per length window before the window is widened.
const TRIES_PER_WINDOW: usize = 8;

/// A foreign document whose vocabulary overlaps a library document this much is probably a copy
/// of it, not a same-topic negative; such documents are left out of the same-topic ranking so a
/// correct detection is not counted as a false positive.
pub(crate) const SAME_TOPIC_MAX_JACCARD: f64 = 0.8;

/// The distinct lowercase words of a set of documents, grouped by script and sorted by length,
/// so "a word of similar length and the same script" is a contiguous slice.
#[derive(Debug, Default)]
pub(crate) struct WordPool {
    buckets: BTreeMap<Script, Bucket>,
}

#[derive(Debug)]
struct Bucket {
    /// Sorted by (length in chars, text).
    words: Vec<String>,
    /// `starts[len]`: index of the first word at least `len` chars long; one entry past the
    /// longest length, so every length maps to a valid slice boundary.
    starts: Vec<usize>,
}

impl Bucket {
    fn new(entries: BTreeSet<(usize, String)>) -> Bucket {
        let longest = entries.iter().next_back().map_or(0, |(len, _)| *len);
        let mut starts = vec![0; longest + 2];
        let mut words = Vec::with_capacity(entries.len());
        for (len, word) in entries {
            words.push(word);
            // Every length up to this one starts no later than here; fill forward below.
            starts[len + 1] = words.len();
        }
        for len in 1..starts.len() {
            starts[len] = starts[len].max(starts[len - 1]);
        }
        Bucket { words, starts }
    }

    /// Indices of the words of length `low..=high`.
    fn window(&self, low: usize, high: usize) -> Range<usize> {
        let last = self.starts.len() - 1;
        self.starts[low.min(last)]..self.starts[(high + 1).min(last)]
    }
}

impl WordPool {
    pub(crate) fn build<'a>(texts: impl IntoIterator<Item = &'a str>) -> WordPool {
        // Deduplicate first (most words repeat), then classify and sort the distinct ones.
        let mut distinct: HashSet<String> = HashSet::new();
        for text in texts {
            for word in words(text) {
                let lower = lowercase(word);
                if !distinct.contains(lower.as_ref()) {
                    distinct.insert(lower.into_owned());
                }
            }
        }
        let mut sets: BTreeMap<Script, BTreeSet<(usize, String)>> = BTreeMap::new();
        for word in distinct {
            let len = word.chars().count();
            let script = Script::dominant(&word);
            // Numbers are replaced by random digits instead: a pool of years and page numbers
            // would not make a plausible substitute.
            if len <= MAX_POOL_WORD_CHARS && script != Script::Digit {
                sets.entry(script).or_default().insert((len, word));
            }
        }
        let buckets = sets
            .into_iter()
            .map(|(s, set)| (s, Bucket::new(set)))
            .collect();
        WordPool { buckets }
    }

    /// A word of `script` other than `original`, as close to `len` chars as the pool has.
    /// Within each length window a word that `avoid` accepts is preferred, then any other word
    /// is taken; only then does the window widen, since similar length matters more than
    /// avoiding words the document already has.
    pub(crate) fn similar(
        &self,
        script: Script,
        len: usize,
        original: &str,
        avoid: impl Fn(&str) -> bool,
        rng: &mut Rng,
    ) -> Option<&str> {
        let bucket = self.buckets.get(&script)?;
        let mut distance = 1;
        loop {
            let window = bucket.window(len.saturating_sub(distance), len + distance);
            if !window.is_empty() {
                for strict in [true, false] {
                    for _ in 0..TRIES_PER_WINDOW {
                        let word = &bucket.words[window.start + rng.below(window.len())];
                        if word != original && !(strict && avoid(word)) {
                            return Some(word);
                        }
                    }
                }
            }
            if window == (0..bucket.words.len()) {
                return None;
            }
            distance += 1;
        }
    }

    /// Any word of `script` for which `reject` is false (a few tries).
    pub(crate) fn any(
        &self,
        script: Script,
        reject: impl Fn(&str) -> bool,
        rng: &mut Rng,
    ) -> Option<&str> {
        let bucket = self.buckets.get(&script)?;
        (0..TRIES_PER_WINDOW)
            .map(|_| bucket.words[rng.below(bucket.words.len())].as_str())
            .find(|w| !reject(w))
    }
}

/// `word` in lowercase, without allocating when it already is.
fn lowercase(word: &str) -> Cow<'_, str> {
    if word.chars().any(char::is_uppercase) {
        Cow::Owned(word.to_lowercase())
    } else {
        Cow::Borrowed(word)
    }
}

/// How many library documents, ranked by shared rare words, get an exact Jaccard computation.
const TOPIC_CANDIDATES: usize = 8;

/// Words in more than 2 % of the library's documents (and in more than this many) are left
/// out of the candidate search: stop words and general vocabulary would dominate its cost and
/// say little about the topic. They still count in the exact Jaccard of the candidates.
const COMMON_WORD_MIN_DOCS: usize = 50;

/// Foreign documents (given as `(id, text)`) ordered by their highest Jaccard similarity of
/// lowercase word sets with any of the `library` texts, best first, ties by id; documents at or
/// above [`SAME_TOPIC_MAX_JACCARD`] are left out.
///
/// Comparing every pair is |foreign| × |library| set intersections, too slow for real corpora.
/// Instead an inverted index over the library's less common words finds, per foreign document,
/// the library documents sharing most of them, and only those get an exact Jaccard.
pub(crate) fn rank_by_topic(library: &[&str], foreign: &[(usize, &str)]) -> Vec<usize> {
    // Words are interned in order of first appearance, which keeps everything deterministic.
    let mut ids: HashMap<Cow<'_, str>, u32> = HashMap::new();
    let mut library_sets: Vec<Vec<u32>> = Vec::with_capacity(library.len());
    for text in library {
        let mut set: Vec<u32> = words(text)
            .map(|word| {
                let next = ids.len() as u32;
                *ids.entry(lowercase(word)).or_insert(next)
            })
            .collect();
        set.sort_unstable();
        set.dedup();
        library_sets.push(set);
    }
    let mut postings: Vec<Vec<u32>> = vec![Vec::new(); ids.len()];
    for (doc, set) in library_sets.iter().enumerate() {
        for &word in set {
            postings[word as usize].push(doc as u32);
        }
    }
    let common_cap = (library.len() / 50).max(COMMON_WORD_MIN_DOCS);
    for list in &mut postings {
        if list.len() > common_cap {
            *list = Vec::new();
        }
    }

    let mut shared = vec![0u32; library.len()];
    let mut touched: Vec<(u32, usize)> = Vec::new();
    let mut ranked: Vec<(f64, usize)> = Vec::new();
    for &(id, text) in foreign {
        let mut known: Vec<u32> = Vec::new();
        let mut unknown: Vec<Cow<'_, str>> = Vec::new();
        for word in words(text) {
            let word = lowercase(word);
            match ids.get(&word) {
                Some(&word_id) => known.push(word_id),
                None => unknown.push(word),
            }
        }
        known.sort_unstable();
        known.dedup();
        unknown.sort_unstable();
        unknown.dedup();
        let size = known.len() + unknown.len();
        if size == 0 {
            continue;
        }
        // Count first, then collect the touched documents in one pass over the counts (the
        // library side is capped, so the pass is cheap and needs no bookkeeping in the loop).
        for &word in &known {
            for &doc in &postings[word as usize] {
                shared[doc as usize] += 1;
            }
        }
        touched.clear();
        for (doc, count) in shared.iter_mut().enumerate() {
            if *count > 0 {
                touched.push((*count, doc));
                *count = 0;
            }
        }
        touched.sort_unstable_by_key(|&(count, doc)| (std::cmp::Reverse(count), doc));
        let mut best = 0.0f64;
        for &(_, doc) in touched.iter().take(TOPIC_CANDIDATES) {
            let set = &library_sets[doc];
            let common = sorted_intersection(&known, set) as f64;
            best = best.max(common / ((size + set.len()) as f64 - common));
        }
        if best < SAME_TOPIC_MAX_JACCARD {
            ranked.push((best, id));
        }
    }
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    ranked.into_iter().map(|(_, id)| id).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn similar_prefers_near_lengths_and_respects_reject() {
        let pool = WordPool::build(["cat house elephant a dog", "слово 1999 中文"]);
        let mut rng = Rng::new(1);
        for _ in 0..50 {
            let w = pool
                .similar(Script::Latin, 3, "cat", |_| false, &mut rng)
                .unwrap();
            assert_eq!(w, "dog");
            let long = pool
                .similar(Script::Latin, 9, "", |_| false, &mut rng)
                .unwrap();
            assert_eq!(long, "elephant");
        }
        assert_eq!(
            pool.similar(Script::Cyrillic, 5, "слово", |_| false, &mut rng),
            None
        );
        assert_eq!(
            pool.similar(Script::Digit, 4, "", |_| false, &mut rng),
            None
        );
        assert_eq!(pool.any(Script::Han, |_| false, &mut rng), Some("中文"));
    }

    #[test]
    fn topic_ranking_orders_by_overlap_and_drops_copies() {
        let library = [
            "the cat sat on the mat",
            "quantum field theory of gauge bosons",
        ];
        let foreign = [
            (0, "gauge theory of strong bosons in lattice"),
            (1, "a dog sat on a log"),
            (2, "The cat sat on the mat."),
            (3, "completely unrelated words"),
        ];
        assert_eq!(rank_by_topic(&library, &foreign), vec![0, 1, 3]);
    }

    #[test]
    fn topic_ranking_finds_rare_shared_words_in_a_large_library() {
        // 200 library documents sharing their common words; only the rare ones tell topics apart.
        let library: Vec<String> = (0..200)
            .map(|i| format!("the of and results method topic{i} term{i} word{i}"))
            .collect();
        let library: Vec<&str> = library.iter().map(String::as_str).collect();
        let foreign = [
            (0, "the of and results method something else entirely"),
            (1, "the of and results method topic77 term77 other"),
            (2, "the of and topic5 unrelated words here now"),
        ];
        assert_eq!(rank_by_topic(&library, &foreign), vec![1, 2, 0]);
    }
}
