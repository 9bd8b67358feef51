//! Libraries indexed before `pdf_url`, `doi` and `term_seq` were stored (content schema version
//! 6), and before long texts' words went to `body_terms` (version 8), open as they are: the
//! schema is upgraded in place, their documents are read and checked with the fields absent,
//! and new documents store them (a full paper's phrases are then found without positions). A schema that differs otherwise is
//! refused. (A document kept with `shingle_seq` instead of `term_seq` is read by
//! `index::view`'s own test.) A library written before winnowing keeps its "0 mod 4" sample.

use std::path::{Path, PathBuf};

use dupfinder::analysis::ShingleSelection;
use dupfinder::check::{CheckRequest, Verdict};
use dupfinder::config::Config;
use dupfinder::index::DocKey;
use dupfinder::library::check;
use dupfinder::library::{Catalog, DocumentInput, IdValue, NewLibrary};

use crate::storage_copied_runs::assert_holds_the_mod_4_sample;
use crate::support::synthetic_text;

/// The fields versions 7 and 8 added to the content schema.
const ADDED: [&str; 5] = ["pdf_url", "doi", "term_seq", "body_terms", "text_kind"];

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
    // A full paper added now keeps its words without positions, beside the old documents'.
    let paper: String = (0..300)
        .map(|i| format!("Section {i}: the glacier retreat measured in valley {i} shows melting. "))
        .collect();
    let input = DocumentInput {
        id: Some(IdValue::Text("paper".to_string())),
        text: Some(paper),
        lang: Some("en".to_string()),
        ..Default::default()
    };
    let added = catalog.ingest("old", vec![(1, Ok(input))]).unwrap();
    assert_eq!(added.accepted, 1, "{added:?}");
    let found = index.search("\"glacier retreat measured\"", 10, 0).unwrap();
    assert_eq!(found.total, 1);
    assert_eq!(found.hits[0].meta.doc_id, "paper");
    assert_eq!(
        index
            .search("\"measured retreat glacier\"", 10, 0)
            .unwrap()
            .total,
        0
    );
    drop(index);
    drop(catalog);

    // Opened again: nothing left to upgrade, everything still there.
    let catalog = open(dir.path());
    let index = catalog.index("old").unwrap();
    assert_eq!(index.summary().documents, 7);
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

/// The file naming the shingle selection of library `id`.
fn shingles_file(catalog: &Catalog, id: &str) -> PathBuf {
    catalog.index(id).unwrap().dir().join("SHINGLES")
}

/// Imports `texts` into library `id`, created first, as documents `d0`, `d1`, …
fn import(catalog: &Catalog, id: &str, texts: &[String]) {
    let lines = texts
        .iter()
        .enumerate()
        .map(|(n, text)| {
            let input = DocumentInput {
                id: Some(IdValue::Text(format!("d{n}"))),
                text: Some(text.clone()),
                ..Default::default()
            };
            (n + 1, Ok(input))
        })
        .collect();
    let report = catalog.ingest(id, lines).unwrap();
    assert_eq!(report.accepted, texts.len(), "{report:?}");
}

/// A check of `text` against library `id` alone, as JSON without the time it took and the
/// library's name and generation.
fn answer(catalog: &Catalog, id: &str, text: &str) -> serde_json::Value {
    let mut request = CheckRequest::new(text);
    request.libraries = Some(vec![id.to_string()]);
    request.passages = true;
    let mut value = serde_json::to_value(check(catalog, &request).unwrap()).unwrap();
    value.as_object_mut().unwrap().remove("took_ms");
    value.as_object_mut().unwrap().remove("generations");
    for found in value["matches"].as_array_mut().unwrap() {
        found.as_object_mut().unwrap().remove("library");
    }
    value
}

/// A library written before winnowing holds the shingles whose hash is 0 mod 4 and has no
/// `SHINGLES` file: it is opened as such, keeps that sample for new documents, and answers
/// checks as a library of the same documents that winnows.
#[test]
fn a_library_of_the_mod_4_sample_keeps_it_and_answers_alike() {
    let dir = tempfile::tempdir().unwrap();
    let texts: Vec<String> = (0..6).map(|n| synthetic_text(n, 400)).collect();
    let catalog = open(dir.path());
    catalog
        .create(NewLibrary {
            id: "old".to_string(),
            ..Default::default()
        })
        .unwrap();
    let marker = shingles_file(&catalog, "old");
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "winnow 8\n");
    drop(catalog);
    // Its content index exists and no file names its selection: what an older release leaves.
    std::fs::remove_file(&marker).unwrap();
    let catalog = open(dir.path());
    import(&catalog, "old", &texts[..5]);
    catalog
        .create(NewLibrary {
            id: "new".to_string(),
            ..Default::default()
        })
        .unwrap();
    import(&catalog, "new", &texts[..5]);
    drop(catalog);
    std::fs::remove_file(&marker).unwrap();

    let catalog = open(dir.path());
    // A document added now takes the library's sample too.
    import(&catalog, "old", &texts);
    import(&catalog, "new", &texts);
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "mod 4\n");
    let old = catalog.index("old").unwrap();
    let view = old.view();
    assert_eq!(view.shingle_selection(), ShingleSelection::Modulo);
    assert_eq!(
        catalog.index("new").unwrap().view().shingle_selection(),
        ShingleSelection::Winnowed
    );
    for n in 0..texts.len() {
        let key = DocKey::of(&format!("d{n}"));
        let sequence = view.stored_for_check(key).unwrap().unwrap().shingles;
        // The index holds the sample, and nothing winnowing alone would have chosen.
        assert_holds_the_mod_4_sample(&view, key, &sequence);
    }
    drop(view);

    // Copies whole and cut, documents joined, a long passage inside unrelated text.
    let mut queries = Vec::new();
    for (n, text) in texts.iter().enumerate() {
        let words: Vec<&str> = text.split_whitespace().collect();
        queries.push(text.clone());
        queries.push(words[..words.len() / 2].join(" "));
        queries.push(format!("{text} {}", texts[(n + 1) % texts.len()]));
        let unrelated = synthetic_text(100 + n as u64, 300);
        let host: Vec<&str> = unrelated.split_whitespace().collect();
        queries.push(
            [&host[..150], &words[100..160], &host[150..]]
                .concat()
                .join(" "),
        );
    }
    queries.push(synthetic_text(4242, 300));
    let mut found = 0;
    for query in &queries {
        let before = answer(&catalog, "old", query);
        assert_eq!(before, answer(&catalog, "new", query), "{query}");
        found += usize::from(!before["matches"].as_array().unwrap().is_empty());
    }
    assert_eq!(found, queries.len() - 1);
}
