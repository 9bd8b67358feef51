//! A catalog in a temporary directory, and the texts tests use: the fixture files and
//! synthetic texts.

use std::sync::Arc;

use dupfinder::config::Config;
use dupfinder::library::Catalog;

/// A catalog on a fresh temporary data directory.
pub(crate) fn catalog() -> (tempfile::TempDir, Arc<Catalog>) {
    catalog_with(|_| {})
}

/// A catalog on a fresh temporary data directory, with the configuration adjusted by `adjust`.
pub(crate) fn catalog_with(adjust: impl FnOnce(&mut Config)) -> (tempfile::TempDir, Arc<Catalog>) {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::default();
    adjust(&mut config);
    config.storage.data_dir = dir.path().to_path_buf();
    config.storage.writer_memory_mb = 15;
    let catalog = Catalog::open(&config).unwrap();
    (dir, Arc::new(catalog))
}

/// Texts of the fixtures in tests/fixtures.
pub(crate) fn fixture(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The fixture corpus: one JSON object per line.
pub(crate) fn corpus() -> Vec<serde_json::Value> {
    fixture("corpus.jsonl")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A deterministic pseudo-text of `words` words drawn from a Zipf-like vocabulary of made-up
/// words, different for every `seed`.
pub(crate) fn synthetic_text(seed: u64, words: usize) -> String {
    const SYLLABLES: [&str; 24] = [
        "ka", "lo", "mir", "sen", "tal", "vor", "pe", "dun", "gra", "hel", "ix", "jo", "ber",
        "cos", "fin", "ulm", "nar", "qui", "ros", "tem", "vi", "wex", "yal", "zor",
    ];
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut out = String::new();
    for i in 0..words {
        // Skewed choice of a word id: small ids are frequent.
        let r = next() % 4000;
        let id = (r * r) / 4000 + (next() % 3);
        let mut word = String::new();
        let mut n = id + 7;
        for _ in 0..3 {
            word.push_str(SYLLABLES[(n % SYLLABLES.len() as u64) as usize]);
            n /= SYLLABLES.len() as u64;
        }
        if i > 0 {
            out.push(if i % 12 == 0 { '.' } else { ' ' });
            if i % 12 == 0 {
                out.push(' ');
            }
        }
        out.push_str(&word);
    }
    out.push('.');
    out
}
