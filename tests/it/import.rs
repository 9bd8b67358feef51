//! Bulk import of a JSON Lines file: every good line is committed and signed, a bad line is
//! reported with its number, and the library is ready for checks when the import returns.

use std::io::Write;

use dupfinder::check::{CheckRequest, Method};
use dupfinder::library::check;
use dupfinder::library::import_file;

use crate::support::{catalog, synthetic_text};

#[test]
fn an_import_commits_every_good_line_and_reports_the_bad_one() {
    let (dir, catalog) = catalog();
    let path = dir.path().join("corpus.jsonl");
    let mut file = std::fs::File::create(&path).unwrap();
    // More than one commit group of the importer, and a broken line in the middle.
    let count = 25_000u64;
    for n in 0..count {
        if n == 21_000 {
            writeln!(file, r#"{{"id": "broken", "text": "#).unwrap();
        }
        let line = serde_json::json!({"id": format!("d{n}"), "text": synthetic_text(n, 20 + n as usize % 10)});
        writeln!(file, "{line}").unwrap();
    }
    drop(file);

    let summary = import_file(&catalog, "bulk", &path, &()).unwrap();
    assert_eq!(summary.accepted as u64, count);
    assert_eq!(summary.rejected.len(), 1);
    assert_eq!(summary.rejected[0].line, 21_001);
    assert_eq!(summary.stats_generation, 1);

    let index = catalog.index("bulk").unwrap();
    assert_eq!(index.summary().documents, count);
    let sample: Vec<String> = (0..count).step_by(2_999).map(|n| format!("d{n}")).collect();
    for id in &sample {
        assert!(index.document(id).unwrap().is_some(), "{id}");
    }
    assert_eq!(index.signatures().len(), count);
    let text = synthetic_text(24_999, 20 + 24_999 % 10);
    let report = check(&catalog, &CheckRequest::new(text)).unwrap();
    let found = report.matches.iter().find(|m| m.doc_id == "d24999");
    assert!(
        found.is_some_and(|m| m.methods.contains(&Method::Signature)),
        "{:?}",
        report.matches
    );
}

/// An import writes its documents unsigned and signs them all at its end. When the file fails
/// to read after some were committed (here a gzip cut short past the first commit group), the
/// import answers the error, and what it committed is signed all the same.
#[test]
fn an_import_that_fails_midway_leaves_what_it_committed_signed() {
    let (dir, catalog) = catalog();
    let path = dir.path().join("cut.jsonl.gz");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    for n in 0..20_500u64 {
        let line = serde_json::json!({"id": format!("d{n}"), "text": synthetic_text(n, 20)});
        writeln!(encoder, "{line}").unwrap();
    }
    let mut bytes = encoder.finish().unwrap();
    bytes.truncate(bytes.len() - 64);
    std::fs::write(&path, &bytes).unwrap();

    let error = import_file(&catalog, "cut", &path, &()).unwrap_err();
    assert!(error.to_string().contains("cut.jsonl.gz"), "{error}");
    let index = catalog.index("cut").unwrap();
    let documents = index.summary().documents;
    assert!(documents >= 20_000, "{documents} committed");
    assert_eq!(index.signatures().len(), documents);
}
