//! Libraries indexed before `pdf_url`, `doi` and `term_seq` were stored (content schema version
//! 6) open as they are: the schema is upgraded in place, their documents are read and checked
//! with the fields absent, and new documents store them. A schema that differs otherwise is
//! refused. (A document kept with `shingle_seq` instead of `term_seq` is read by
//! `index::view`'s own test.)

use std::path::{Path, PathBuf};

use dupfinder::check::{CheckRequest, Verdict};
use dupfinder::config::Config;
use dupfinder::library::check;
use dupfinder::library::{Catalog, DocumentInput, IdValue, NewLibrary};

use crate::support::synthetic_text;

/// The fields version 7 added to the content schema.
const ADDED: [&str; 3] = ["pdf_url", "doi", "term_seq"];

fn open(dir: &Path) -> Catalog {
    let mut config = Config::default();
    config.storage.data_dir = dir.to_path_buf();
    config.storage.writer_memory_mb = 15;
    Catalog::open(&config).unwrap()
}

/// The content index's `meta.json` of the one library in `dir`.
fn content_meta(dir: &Path) -> PathBuf {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir.join("libraries"))
        .unwrap()
        .map(|entry| entry.unwrap().path().join("content/meta.json"))
        .filter(|path| path.exists())
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    found.remove(0)
}

fn field_names(meta: &Path) -> Vec<String> {
    let meta: serde_json::Value = serde_json::from_slice(&std::fs::read(meta).unwrap()).unwrap();
    meta["schema"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap().to_string())
        .collect()
}

/// Rewrites the schema in `meta.json` without the fields named in `drop`: what an older
/// release wrote for the same segments.
fn drop_fields(meta: &Path, drop: &[&str]) {
    let mut value: serde_json::Value =
        serde_json::from_slice(&std::fs::read(meta).unwrap()).unwrap();
    value["schema"]
        .as_array_mut()
        .unwrap()
        .retain(|f| !drop.contains(&f["name"].as_str().unwrap()));
    std::fs::write(meta, serde_json::to_vec_pretty(&value).unwrap()).unwrap();
}

/// A library `old` of five documents, written and closed, its schema then put back to
/// version 6.
fn version_6_library(dir: &Path) {
    let catalog = open(dir);
    catalog
        .create(NewLibrary {
            id: "old".to_string(),
            ..Default::default()
        })
        .unwrap();
    let lines = (0..5)
        .map(|n| {
            let input = DocumentInput {
                id: Some(IdValue::Text(format!("d{n}"))),
                text: Some(synthetic_text(n, 150)),
                ..Default::default()
            };
            (n as usize + 1, Ok(input))
        })
        .collect();
    let report = catalog.ingest("old", lines).unwrap();
    assert_eq!(report.accepted, 5, "{report:?}");
    drop(catalog);
    let meta = content_meta(dir);
    drop_fields(&meta, &ADDED);
    assert!(
        field_names(&meta)
            .iter()
            .all(|f| !ADDED.contains(&f.as_str()))
    );
}

#[test]
fn a_version_6_library_opens_checks_and_takes_the_new_fields() {
    let dir = tempfile::tempdir().unwrap();
    version_6_library(dir.path());

    let catalog = open(dir.path());
    let names = field_names(&content_meta(dir.path()));
    assert_eq!(
        &names[names.len() - ADDED.len()..],
        ADDED,
        "upgraded in place"
    );
    let index = catalog.index("old").unwrap();
    let old = index.document("d3").unwrap().unwrap();
    assert_eq!((old.meta.pdf_url, old.meta.doi), (None, None));
    assert_eq!(old.text, synthetic_text(3, 150));

    let report = check(&catalog, &CheckRequest::new(synthetic_text(3, 150))).unwrap();
    assert_eq!(report.matches[0].doc_id, "d3");
    assert_eq!(report.matches[0].verdict, Verdict::Duplicate);

    let input = DocumentInput {
        id: Some(IdValue::Text("new".to_string())),
        text: Some(synthetic_text(42, 150)),
        pdf_url: Some("https://journal.example/new.pdf".to_string()),
        doi: Some("doi:10.5555/New".to_string()),
        ..Default::default()
    };
    let added = catalog.ingest("old", vec![(1, Ok(input))]).unwrap();
    assert_eq!(added.accepted, 1, "{added:?}");
    let new = index.document("new").unwrap().unwrap();
    assert_eq!(new.meta.doi.as_deref(), Some("10.5555/new"));
    assert_eq!(
        new.meta.pdf_url.as_deref(),
        Some("https://journal.example/new.pdf")
    );
    drop(index);
    drop(catalog);

    // Opened again: nothing left to upgrade, everything still there.
    let catalog = open(dir.path());
    let index = catalog.index("old").unwrap();
    assert_eq!(index.summary().documents, 6);
    let new = index.document("new").unwrap().unwrap();
    assert_eq!(new.meta.doi.as_deref(), Some("10.5555/new"));
}

#[test]
fn a_schema_that_differs_otherwise_is_still_refused() {
    let dir = tempfile::tempdir().unwrap();
    version_6_library(dir.path());
    // An index whose schema lacks a field dupfinder indexes is no older version of it.
    drop_fields(&content_meta(dir.path()), &["year"]);
    let mut config = Config::default();
    config.storage.data_dir = dir.path().to_path_buf();
    let err = match Catalog::open(&config) {
        Ok(_) => panic!("an index of another schema was opened"),
        Err(e) => e.to_string(),
    };
    assert!(err.contains("different schema"), "{err}");
    let names = field_names(&content_meta(dir.path()));
    assert!(!names.contains(&"pdf_url".to_string()), "left as it was");
}
