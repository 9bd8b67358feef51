//! Word shingles: hashes of every run of [`SHINGLE_WORDS`] consecutive terms of an analyzed
//! text. Built over terms (stems, stop words removed), so they survive changes of case,
//! punctuation, homoglyphs and function words; short runs keep a good share of shingles
//! through word-level edits (replacing 10 % of words leaves ~73 % of 3-word shingles intact).

use super::Token;

/// How many consecutive terms make one shingle.
pub const SHINGLE_WORDS: usize = 3;

/// How many consecutive shingles make one winnowing window: a run of
/// `WINNOW_WINDOW + SHINGLE_WORDS - 1` (10) shared terms is always found.
pub const WINNOW_WINDOW: usize = 8;

/// The sample of the older selection: one shingle in this many, those whose hash is a
/// multiple of it (the "0 mod p" scheme).
pub const SHINGLE_SAMPLE: u64 = 4;

/// Which of a text's shingles are indexed and looked up. Index and query select by the same
/// rule, so shared text shares selected shingles. Part of a library's on-disk format: a library
/// keeps the selection it was created with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShingleSelection {
    /// Winnowing (Schleimer, Wilkerson and Aiken, 2003): in every window of [`WINNOW_WINDOW`]
    /// consecutive shingles, the smallest hash. Two texts sharing a run of at least
    /// `WINNOW_WINDOW + SHINGLE_WORDS - 1` terms share a whole window, and so select its
    /// smallest hash both: the run is always found. Keeps about `2 / (WINNOW_WINDOW + 1)` of a
    /// text's shingles. A text with fewer shingles than a window selects its smallest.
    Winnowed,
    /// The shingles whose hash is a multiple of [`SHINGLE_SAMPLE`], wherever they stand: a
    /// shared run of any length may hold none. Libraries created before winnowing keep it.
    Modulo,
}

impl ShingleSelection {
    /// The selection of new libraries.
    pub const NEW: ShingleSelection = ShingleSelection::Winnowed;

    /// The marker a library keeps on disk.
    pub fn marker(self) -> String {
        match self {
            ShingleSelection::Winnowed => format!("winnow {WINNOW_WINDOW}"),
            ShingleSelection::Modulo => format!("mod {SHINGLE_SAMPLE}"),
        }
    }

    /// The selection a marker names; `None` for a marker of no selection this release knows.
    pub fn from_marker(marker: &str) -> Option<Self> {
        [ShingleSelection::Winnowed, ShingleSelection::Modulo]
            .into_iter()
            .find(|s| s.marker() == marker.trim())
    }

    /// The distinct selected shingles of a text (its shingles by position), sorted: what the
    /// index holds for a document, and what a query looks up.
    pub fn select(self, positional: &[u64]) -> Vec<u64> {
        let mut selected = match self {
            ShingleSelection::Winnowed => winnow(positional, WINNOW_WINDOW),
            ShingleSelection::Modulo => positional
                .iter()
                .copied()
                .filter(|h| h.is_multiple_of(SHINGLE_SAMPLE))
                .collect(),
        };
        selected.sort_unstable();
        selected.dedup();
        selected
    }

    /// The distinct shingles a check looks up for a text (sorted): those it selects, and under
    /// winnowing also the smallest of every window of half the size. A selected shingle of a
    /// document is the smallest of a whole window of it, so it is the smallest of every smaller
    /// window inside: the query finds it wherever the query shares those few shingles around
    /// it, not only where it shares the whole window (a copy edited every few words keeps short
    /// runs only). A superset of [`ShingleSelection::select`].
    pub fn lookups(self, positional: &[u64]) -> Vec<u64> {
        match self {
            ShingleSelection::Winnowed => {
                let mut lookups = winnow(positional, WINNOW_WINDOW / 2);
                lookups.sort_unstable();
                lookups.dedup();
                lookups
            }
            ShingleSelection::Modulo => self.select(positional),
        }
    }
}

/// The smallest hash of every window of [`WINNOW_WINDOW`] positions (the rightmost of equal
/// ones, which matters only for positions), once per position it is chosen at; the smallest of
/// all when the text is shorter than a window. Linear: the window's minimum is scanned for
/// again only when it leaves the window.
fn winnow(hashes: &[u64], window: usize) -> Vec<u64> {
    let window = window.min(hashes.len());
    if window == 0 {
        return Vec::new();
    }
    let mut selected = Vec::with_capacity(hashes.len() * 2 / (WINNOW_WINDOW + 1) + 1);
    let mut chosen: Option<usize> = None;
    for end in window - 1..hashes.len() {
        let start = end + 1 - window;
        let min = match chosen {
            Some(m) if m >= start => {
                if hashes[end] <= hashes[m] {
                    end
                } else {
                    m
                }
            }
            _ => (start..=end)
                .rev()
                .min_by_key(|&i| hashes[i])
                .expect("a window is never empty"),
        };
        if chosen != Some(min) {
            selected.push(hashes[min]);
            chosen = Some(min);
        }
    }
    selected
}

const SEED: u64 = 0x5348_494e_474c_4533;

/// The hash of one shingle: xxh3 (seeded) of its terms, each followed by a zero byte. Hashed
/// in one call from a buffer on the stack when the terms fit it (a check hashes every shingle
/// of every candidate it verifies; the streaming hasher took most of that time), and streamed
/// otherwise; both give the same value.
pub fn shingle_hash<'a>(terms: impl IntoIterator<Item = &'a str>) -> u64 {
    const ROOM: usize = 192;
    let mut buffer = [0u8; ROOM];
    let mut used = 0;
    let mut terms = terms.into_iter();
    for term in terms.by_ref() {
        let bytes = term.as_bytes();
        let end = used + bytes.len() + 1;
        if end > ROOM {
            let mut hasher = xxhash_rust::xxh3::Xxh3::with_seed(SEED);
            hasher.update(&buffer[..used]);
            hasher.update(bytes);
            hasher.update(&[0]);
            for term in terms {
                hasher.update(term.as_bytes());
                hasher.update(&[0]);
            }
            return hasher.digest();
        }
        buffer[used..end - 1].copy_from_slice(bytes);
        // The separator is the buffer's zero already.
        used = end;
    }
    xxhash_rust::xxh3::xxh3_64_with_seed(&buffer[..used], SEED)
}

/// The shingle starting at each token position: element `i` covers tokens `i..i + SHINGLE_WORDS`.
/// A text with fewer tokens than a shingle has none.
pub fn shingles(tokens: &[Token]) -> Vec<u64> {
    shingle_sequence(tokens.iter().map(|t| t.term.as_str()))
}

/// The shingle starting at each of `terms` (a text's terms in order), as [`shingle_hash`] hashes
/// each window of [`SHINGLE_WORDS`]: the terms are written once, each followed by its zero byte,
/// and every shingle is hashed from its slice of that buffer, where hashing each window copied
/// its terms again (a check hashes every shingle of every source it verifies).
pub fn shingle_sequence<'a>(terms: impl IntoIterator<Item = &'a str>) -> Vec<u64> {
    let terms = terms.into_iter();
    let mut joined = Vec::with_capacity(terms.size_hint().0 * 8);
    // Where each term's bytes begin in `joined`, and at the end where the last one's end.
    let mut starts = Vec::with_capacity(terms.size_hint().0 + 1);
    for term in terms {
        starts.push(joined.len());
        joined.extend_from_slice(term.as_bytes());
        joined.push(0);
    }
    starts.push(joined.len());
    starts
        .windows(SHINGLE_WORDS + 1)
        .map(|bounds| {
            xxhash_rust::xxh3::xxh3_64_with_seed(&joined[bounds[0]..bounds[SHINGLE_WORDS]], SEED)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sequence hashes every window exactly as hashing the window alone does: short terms,
    /// long ones (past the one-call buffer), empty ones, Cyrillic, and texts shorter than a
    /// shingle.
    #[test]
    fn a_sequence_hashes_each_window_as_alone() {
        let long = "д".repeat(150);
        let vocabulary = ["a", "слово", "", "term", long.as_str(), "x", "метод", "0"];
        for len in 0..40usize {
            let terms: Vec<&str> = (0..len)
                .map(|i| vocabulary[(i * 7 + len * 3) % vocabulary.len()])
                .collect();
            let alone: Vec<u64> = terms
                .windows(SHINGLE_WORDS)
                .map(|window| shingle_hash(window.iter().copied()))
                .collect();
            assert_eq!(
                shingle_sequence(terms.iter().copied()),
                alone,
                "{len} terms"
            );
        }
    }

    fn tokens(terms: &[&str]) -> Vec<Token> {
        terms
            .iter()
            .enumerate()
            .map(|(i, t)| Token {
                term: t.to_string(),
                position: i as u32,
                start: 0,
                end: 0,
            })
            .collect()
    }

    /// The values are part of the on-disk format: the hash in one call must equal the
    /// streamed one it replaced, short terms or long.
    #[test]
    fn a_shingle_hashes_as_its_streamed_terms() {
        let streamed = |terms: &[&str]| {
            let mut hasher = xxhash_rust::xxh3::Xxh3::with_seed(SEED);
            for term in terms {
                hasher.update(term.as_bytes());
                hasher.update(&[0]);
            }
            hasher.digest()
        };
        let long = "д".repeat(80);
        let longer = "x".repeat(300);
        for terms in [
            vec!["метод", "шингл", "сравн"],
            vec!["a", "", "b"],
            vec![long.as_str(), long.as_str(), "c"],
            vec!["c", longer.as_str(), "d"],
            vec![],
        ] {
            assert_eq!(
                shingle_hash(terms.iter().copied()),
                streamed(&terms),
                "{terms:?}"
            );
        }
    }

    #[test]
    fn one_shingle_per_window() {
        let t = tokens(&["a", "b", "c", "d", "b", "c", "d"]);
        let s = shingles(&t);
        assert_eq!(s.len(), 5);
        // "b c d" occurs twice.
        assert_eq!(s[1], s[4]);
        for selection in [ShingleSelection::Winnowed, ShingleSelection::Modulo] {
            let selected = selection.select(&s);
            assert!(selected.windows(2).all(|w| w[0] < w[1]));
            assert!(selected.iter().all(|h| s.contains(h)));
        }
        // Fewer shingles than a window: the smallest is chosen.
        assert_eq!(
            ShingleSelection::Winnowed.select(&s),
            [*s.iter().min().unwrap()]
        );
        assert!(shingles(&tokens(&["a", "b"])).is_empty());
        assert!(ShingleSelection::Winnowed.select(&[]).is_empty());
    }

    #[test]
    fn markers_name_their_selection() {
        for selection in [ShingleSelection::Winnowed, ShingleSelection::Modulo] {
            let marker = format!("{}\n", selection.marker());
            assert_eq!(ShingleSelection::from_marker(&marker), Some(selection));
        }
        assert_eq!(ShingleSelection::from_marker("winnow 9"), None);
    }

    /// A small deterministic generator (SplitMix64), so that the trials are the same every run.
    struct Random(u64);

    impl Random {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }

        /// `n` terms drawn from a vocabulary of `words` (small enough that terms repeat).
        fn terms(&mut self, n: usize, words: usize) -> Vec<String> {
            (0..n).map(|_| format!("t{}", self.below(words))).collect()
        }

        /// `run` with up to 299 random terms before and after it.
        fn around(&mut self, run: &[String]) -> Vec<String> {
            let (before, after) = (self.below(300), self.below(300));
            let mut terms = self.terms(before, 5_000);
            terms.extend(run.iter().cloned());
            terms.extend(self.terms(after, 5_000));
            terms
        }
    }

    fn hashes(terms: &[String]) -> Vec<u64> {
        terms
            .windows(SHINGLE_WORDS)
            .map(|w| shingle_hash(w.iter().map(String::as_str)))
            .collect()
    }

    /// The selection equals its definition: the smallest hash of every window.
    #[test]
    fn winnowing_selects_every_windows_minimum() {
        let mut random = Random(7);
        for _ in 0..500 {
            let n = random.below(60);
            // A tiny vocabulary: equal hashes side by side test the ties.
            let h: Vec<u64> = (0..n).map(|_| random.below(6) as u64).collect();
            let mut expected: Vec<u64> = h
                .windows(WINNOW_WINDOW.min(n).max(1))
                .filter(|w| !w.is_empty())
                .map(|w| *w.iter().min().unwrap())
                .collect();
            expected.sort_unstable();
            expected.dedup();
            assert_eq!(ShingleSelection::Winnowed.select(&h), expected, "{h:?}");
        }
    }

    /// The guarantee: two otherwise unrelated texts sharing a run of at least
    /// `WINNOW_WINDOW + SHINGLE_WORDS - 1` = 10 terms, anywhere in them, share a selected
    /// shingle of the run, in every trial. Under the older selection a 10-term run shares none
    /// about a tenth of the time. Also measures the density (printed with `--nocapture`).
    #[test]
    fn a_shared_run_of_ten_terms_always_shares_a_selected_shingle() {
        let shortest = WINNOW_WINDOW + SHINGLE_WORDS - 1;
        assert_eq!(shortest, 10);
        let mut random = Random(2003);
        let (mut positions, mut chosen, mut missed_by_modulo) = (0usize, 0usize, 0usize);
        let trials = 20_000;
        for trial in 0..trials {
            // Half the runs are exactly 10 terms, the others up to 12.
            let length = shortest + random.below(3) * (trial % 2);
            let run = random.terms(length, 5_000);
            let (a, b) = (hashes(&random.around(&run)), hashes(&random.around(&run)));
            let in_run = ShingleSelection::Winnowed.select(&hashes(&run));
            let (sa, sb) = (
                ShingleSelection::Winnowed.select(&a),
                ShingleSelection::Winnowed.select(&b),
            );
            assert!(
                in_run
                    .iter()
                    .any(|h| sa.binary_search(h).is_ok() && sb.binary_search(h).is_ok()),
                "trial {trial}: the run {run:?} shares no selected shingle"
            );
            // What a check of either looks up holds what it selects.
            let lookups = ShingleSelection::Winnowed.lookups(&b);
            assert!(sb.iter().all(|h| lookups.binary_search(h).is_ok()));
            let (ma, mb) = (
                ShingleSelection::Modulo.select(&a),
                ShingleSelection::Modulo.select(&b),
            );
            if !hashes(&run)
                .iter()
                .any(|h| ma.binary_search(h).is_ok() && mb.binary_search(h).is_ok())
            {
                missed_by_modulo += 1;
            }
            positions += a.len();
            chosen += winnow(&a, WINNOW_WINDOW).len();
        }
        let density = chosen as f64 / positions as f64;
        println!(
            "winnowing kept {density:.4} of {positions} shingle positions (2/(w+1) = {:.4}); \
             the 0 mod {SHINGLE_SAMPLE} sample missed {missed_by_modulo} of {trials} runs",
            2.0 / (WINNOW_WINDOW + 1) as f64
        );
        assert!((0.20..0.24).contains(&density), "{density}");
        assert!(missed_by_modulo > trials / 20, "{missed_by_modulo}");
    }

    /// The guarantee at the default `min_shingle_hits` of 2: a run of 18 terms holds two whole
    /// windows that do not overlap, and the library selects each one's smallest shingle, which
    /// the check of a text holding the run looks up.
    #[test]
    fn a_shared_run_of_eighteen_terms_always_shares_two_selected_shingles() {
        let shortest = 2 * WINNOW_WINDOW + SHINGLE_WORDS - 1;
        assert_eq!(shortest, 18);
        let mut random = Random(1818);
        for trial in 0..5_000 {
            let run = random.terms(shortest, 5_000);
            let (library, query) = (hashes(&random.around(&run)), hashes(&random.around(&run)));
            let held = ShingleSelection::Winnowed.select(&library);
            let looked_up = ShingleSelection::Winnowed.lookups(&query);
            let mut shared: Vec<u64> = hashes(&run)
                .into_iter()
                .filter(|h| held.binary_search(h).is_ok() && looked_up.binary_search(h).is_ok())
                .collect();
            shared.sort_unstable();
            shared.dedup();
            assert!(
                shared.len() >= 2,
                "trial {trial}: the run {run:?} shares {} selected shingles",
                shared.len()
            );
        }
    }

    /// Why repeated text is told by the query's selection, not by its lookups: a document that
    /// holds a passage indexes nearly all the shingles the query selects inside it, but only
    /// about half of those the query looks up.
    #[test]
    fn a_holder_of_a_passage_indexes_what_the_query_selects_in_it() {
        let mut random = Random(11);
        let (mut selected, mut selected_held) = (0usize, 0usize);
        let (mut looked_up, mut looked_up_held) = (0usize, 0usize);
        for _ in 0..500 {
            let passage = hashes(&random.terms(60, 5_000));
            let context = |random: &mut Random| hashes(&random.terms(50, 5_000));
            let (before, after) = (context(&mut random), context(&mut random));
            let holder = [before.as_slice(), &passage, &after].concat();
            let query = [after.as_slice(), &passage, &before].concat();
            let held = ShingleSelection::Winnowed.select(&holder);
            let inside = |set: Vec<u64>| -> Vec<u64> {
                set.into_iter().filter(|h| passage.contains(h)).collect()
            };
            for h in inside(ShingleSelection::Winnowed.select(&query)) {
                selected += 1;
                selected_held += usize::from(held.binary_search(&h).is_ok());
            }
            for h in inside(ShingleSelection::Winnowed.lookups(&query)) {
                looked_up += 1;
                looked_up_held += usize::from(held.binary_search(&h).is_ok());
            }
        }
        let (by_selection, by_lookups) = (
            selected_held as f64 / selected as f64,
            looked_up_held as f64 / looked_up as f64,
        );
        println!(
            "a holder indexes {by_selection:.3} of the selected, {by_lookups:.3} of the looked up"
        );
        assert!(by_selection > 0.9, "{by_selection}");
        assert!(by_lookups < 0.75, "{by_lookups}");
    }

    #[test]
    fn about_one_in_sample_is_kept() {
        let all: Vec<u64> = (0..10_000)
            .map(|i| shingle_hash([format!("w{i}").as_str(), "x", "y"]))
            .collect();
        let kept = ShingleSelection::Modulo.select(&all).len();
        assert!((2_200..2_800).contains(&kept), "{kept}");
        let kept = ShingleSelection::Winnowed.select(&all).len();
        assert!((2_000..2_450).contains(&kept), "{kept}");
        // A check looks up about 2 / (WINNOW_WINDOW / 2 + 1) of a text's shingles.
        let looked_up = ShingleSelection::Winnowed.lookups(&all).len();
        assert!((3_700..4_300).contains(&looked_up), "{looked_up}");
    }

    #[test]
    fn term_boundaries_matter() {
        assert_ne!(
            shingle_hash(["ab", "c", "d"]),
            shingle_hash(["a", "bc", "d"])
        );
    }
}
