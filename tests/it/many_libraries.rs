//! Many libraries, one check: a check that looks only where the candidate map spanning the
//! libraries sends it answers exactly what looking in every library answers, over randomized
//! libraries, queries, deletions, re-indexes, restarts and logs lost or cut short.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;

use dupfinder::analysis::{TextLimits, analyze_text};
use dupfinder::check::{CancelFlag, CheckConfig, CheckRequest, Checker, check_stores};
use dupfinder::index::{IndexOptions, default_analyzer};
use dupfinder::storage::candidates::CandidateProbe;
use dupfinder::storage::ingest::{DocumentInput, IdValue, prepare};
use dupfinder::storage::tantivy::TantivyStorage;
use dupfinder::storage::{LibraryStore, Storage};

const LIMITS: TextLimits = TextLimits {
    max_bytes: 5_000_000,
    min_words: 10,
};

/// A small pseudo-random generator, seeded, so that a failure can be replayed.
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A word of a 3,000-word vocabulary, frequent words more often (as in real text).
    fn word(&mut self) -> String {
        let r = self.below(3000) as u64;
        let id = r * r / 3000;
        let mut word = String::from("w");
        let mut n = id + 11;
        while n > 0 {
            word.push((b'a' + (n % 23) as u8) as char);
            n /= 23;
        }
        word
    }

    fn text(&mut self, words: usize) -> Vec<String> {
        (0..words).map(|_| self.word()).collect()
    }
}

/// What a query is made of, so that every lookup gets work: whole copies (content hash),
/// edited copies (signatures, shingles), shuffled copies (signatures alone), halves (shingles)
/// and new texts (nothing).
fn query(draw: &mut Draw, pool: &[Vec<String>]) -> String {
    let source = &pool[draw.below(pool.len())];
    let words: Vec<String> = match draw.below(5) {
        0 => source.clone(),
        1 => source
            .iter()
            .map(|w| {
                if draw.below(10) == 0 {
                    draw.word()
                } else {
                    w.clone()
                }
            })
            .collect(),
        2 => {
            let mut shuffled = source.clone();
            for i in (1..shuffled.len()).rev() {
                shuffled.swap(i, draw.below(i + 1));
            }
            shuffled
        }
        3 => {
            let mut half = source[..source.len() / 2].to_vec();
            half.extend(draw.text(source.len() / 2));
            half
        }
        _ => draw.text(source.len()),
    };
    words.join(" ")
}

struct Libraries {
    storage: TantivyStorage,
    ids: Vec<String>,
    config: CheckConfig,
}

impl Libraries {
    fn open(dir: &Path, ids: Vec<String>) -> Self {
        let storage =
            TantivyStorage::open(dir, default_analyzer(), IndexOptions::default()).unwrap();
        Libraries {
            storage,
            ids,
            config: CheckConfig::default(),
        }
    }

    fn write(&self, library: &str, doc_id: &str, words: &[String]) {
        let input = DocumentInput {
            id: Some(IdValue::Text(doc_id.to_string())),
            text: Some(words.join(" ")),
            lang: Some("en".to_string()),
            ..Default::default()
        };
        let prepared = prepare(&default_analyzer(), LIMITS, input).unwrap();
        self.storage.write(library, &[prepared]).unwrap();
    }

    /// The answer with the map and the answer of every library's own lookups, as JSON without
    /// the time taken.
    fn both(&self, text: &str) -> (Value, Value, usize) {
        let analyzer = default_analyzer();
        let checker = Checker {
            analyzer: &analyzer,
            config: &self.config,
            text_limits: LIMITS,
        };
        let stores: Vec<(String, Arc<dyn LibraryStore>)> = self
            .ids
            .iter()
            .map(|id| (id.clone(), self.storage.open(id).unwrap().unwrap()))
            .collect();
        let stores: Vec<(&str, &dyn LibraryStore)> = stores
            .iter()
            .map(|(id, store)| (id.as_str(), store.as_ref()))
            .collect();
        let mut request = CheckRequest::new(text);
        request.passages = true;
        let answer = |storage: Option<&dyn Storage>| {
            let report = check_stores(
                &checker,
                &stores,
                storage,
                &request,
                &CancelFlag::new(),
                Instant::now(),
            )
            .unwrap();
            let mut json = serde_json::to_value(&report).unwrap();
            json.as_object_mut().unwrap().remove("took_ms");
            json
        };
        let mapped = answer(Some(&self.storage));
        let everywhere = answer(None);
        let analyzed = analyze_text(&analyzer, text, None, LIMITS).unwrap();
        let named = self
            .storage
            .candidate_libraries(&CandidateProbe {
                content_hash: analyzed.content_hash,
                shingles: &analyzed.shingles,
                terms: &analyzed.term_counts,
                min_shingle_hits: self.config.min_shingle_hits,
            })
            .expect("the embedded backend keeps a candidate map")
            .len();
        (mapped, everywhere, named)
    }

    /// Checks `queries` both ways; answers how many libraries the map named in all.
    fn agree(&self, queries: &[String], step: &str) -> usize {
        let mut named = 0;
        for (i, text) in queries.iter().enumerate() {
            let (mapped, everywhere, n) = self.both(text);
            assert_eq!(mapped, everywhere, "{step}, query {i}: {text}");
            named += n;
        }
        named
    }
}

#[test]
fn a_check_through_the_candidate_map_answers_as_every_library_would() {
    for seed in [7u64, 1_234_567, 987_654_321] {
        let dir = tempfile::tempdir().unwrap();
        let mut draw = Draw(seed);
        let ids: Vec<String> = (0..8).map(|i| format!("lib{i}")).collect();
        let libraries = Libraries::open(dir.path(), ids.clone());
        for id in &ids {
            libraries.storage.create(id).unwrap();
        }
        let pool: Vec<Vec<String>> = (0..40)
            .map(|_| {
                let words = 60 + draw.below(120);
                draw.text(words)
            })
            .collect();
        let mut placed = Vec::new();
        for (n, words) in pool.iter().enumerate() {
            // One library each, some in two, a few in none (queries may copy them anyway).
            for _ in 0..draw.below(3) {
                let library = &ids[draw.below(ids.len())];
                libraries.write(library, &format!("d{n}"), words);
                placed.push((library.clone(), format!("d{n}")));
            }
        }
        let queries: Vec<String> = (0..30).map(|_| query(&mut draw, &pool)).collect();
        let named = libraries.agree(&queries, "written");
        // The map must narrow the search, or this test proves nothing about it.
        assert!(
            named < queries.len() * ids.len() / 2,
            "seed {seed}: the map named {named} libraries for {} queries over {} libraries",
            queries.len(),
            ids.len()
        );

        for _ in 0..10 {
            let (library, doc_id) = &placed[draw.below(placed.len())];
            libraries.storage.delete_document(library, doc_id).unwrap();
        }
        libraries.agree(&queries, "after deletions");

        for id in ids.iter().take(3) {
            libraries
                .storage
                .index(id)
                .unwrap()
                .rebuild_statistics(|_| {})
                .unwrap();
        }
        // Written after the re-index: signed against the new generation.
        libraries.write(&ids[0], "late", &pool[0]);
        libraries.agree(&queries, "after re-indexes");

        // A restart reads the map back from the logs; a lost log is read again from its index,
        // and a torn last frame is cut back.
        drop(libraries);
        let folders: Vec<_> = std::fs::read_dir(dir.path().join("libraries"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        std::fs::remove_file(folders[0].join("candidates.log")).unwrap();
        let torn = folders[1].join("candidates.log");
        let mut bytes = std::fs::read(&torn).unwrap();
        bytes.extend_from_slice(&[1, 200, 0, 0, 0, 7]);
        std::fs::write(&torn, bytes).unwrap();
        let libraries = Libraries::open(dir.path(), ids.clone());
        libraries.agree(&queries, "after a restart");

        libraries.storage.delete(&ids[1]).unwrap();
        let libraries = Libraries {
            ids: ids.iter().filter(|id| *id != &ids[1]).cloned().collect(),
            ..libraries
        };
        libraries.agree(&queries, "after a library was deleted");
    }
}
