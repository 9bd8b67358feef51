//! The check request end to end: an arbitrary body parsed and validated as the API does, then,
//! when valid, checked against a small library on disk. No panic; every answer is well formed.
#![no_main]

use std::sync::OnceLock;

use dupfinder::api::parse_check_request;
use dupfinder::check::Verdict;
use dupfinder::library::check;
use dupfinder::config::Config;
use dupfinder::library::{Catalog, NewLibrary, parse_json_lines};
use libfuzzer_sys::fuzz_target;

const DOCUMENTS: &str = include_str!("../../tests/fixtures/corpus.jsonl");

struct Fixture {
    _dir: tempfile::TempDir,
    catalog: Catalog,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let mut config = Config::default();
        config.storage.data_dir = dir.path().to_path_buf();
        config.storage.writer_memory_mb = 15;
        config.limits.max_text_bytes = 64 * 1024;
        let catalog = Catalog::open(&config).unwrap();
        catalog
            .create(NewLibrary {
                id: "lib".to_string(),
                ..NewLibrary::default()
            })
            .unwrap();
        let report = catalog
            .ingest("lib", parse_json_lines(DOCUMENTS, 32))
            .unwrap();
        assert!(report.accepted > 0, "{:?}", report.rejected);
        Fixture { _dir: dir, catalog }
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(body) = std::str::from_utf8(data) else {
        return;
    };
    let fixture = fixture();
    let limits = &fixture.catalog.config().limits;
    let Ok(request) = parse_check_request(body, limits) else {
        return;
    };
    if let Ok(report) = check(&fixture.catalog, &request) {
        assert_eq!(report.verdict == Verdict::Original, report.matches.is_empty());
        let chars = request.text.chars().count();
        for m in &report.matches {
            for score in [m.resemblance, m.containment_query, m.containment_doc] {
                assert!((0.0..=1.0).contains(&score), "score {score} in {m:?}");
            }
            for p in m.passages.iter().flatten() {
                assert!(p.query.start <= p.query.end && p.query.end <= chars, "{p:?}");
            }
        }
    }
});
