//! Hostile load: requests built to make the server do much work for little, or to leave it
//! doing work nobody waits for.

use dupfinder::check::{CheckRequest, check};
use dupfinder::library::{DocumentInput, IdValue, NewLibrary};
use serde_json::json;

use crate::support::{app, catalog, json_request, synthetic_text};

/// A catalog with one library `lib` holding one document, `source`, of `text`.
fn one_document_library(
    text: &str,
) -> (
    tempfile::TempDir,
    std::sync::Arc<dupfinder::library::Catalog>,
) {
    let (dir, catalog) = catalog();
    catalog
        .create(NewLibrary {
            id: "lib".to_string(),
            ..Default::default()
        })
        .unwrap();
    let input = DocumentInput {
        id: Some(IdValue::Text("source".to_string())),
        text: Some(text.to_string()),
        lang: Some("en".to_string()),
        ..Default::default()
    };
    let report = catalog.ingest("lib", vec![(1, Ok(input))]).unwrap();
    assert!(report.rejected.is_empty(), "{:?}", report.rejected);
    (dir, catalog)
}

#[tokio::test]
async fn a_library_named_many_times_is_checked_once() {
    let text = synthetic_text(7, 120);
    let (_dir, catalog) = one_document_library(&text);
    let mut request = CheckRequest::new(text.clone());
    request.libraries = Some(vec!["lib".to_string(); 64]);
    let report = check(&catalog, &request).unwrap();
    assert_eq!(report.matches.len(), 1, "{:#?}", report.matches);

    let app = app(catalog);
    let (status, body) = json_request(
        &app,
        "POST",
        "/api/v1/check",
        json!({"text": text, "libraries": ["lib", "lib", "lib"]}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["matches"].as_array().unwrap().len(), 1, "{body}");
}

/// A long text that repeats a library's document many times has a passage in every
/// repetition; each passage must point at a copy of the document in the query.
#[test]
fn every_passage_of_a_long_repeated_text_points_at_a_copy() {
    let source = synthetic_text(11, 80);
    let (_dir, catalog) = one_document_library(&source);
    let separator = " Иная вставка между копиями. ";
    let query = std::iter::repeat_n(source.as_str(), 400)
        .collect::<Vec<_>>()
        .join(separator);
    let mut request = CheckRequest::new(query.clone());
    request.passages = true;
    let report = check(&catalog, &request).unwrap();
    let passages = report.matches[0].passages.as_ref().unwrap();
    assert!(passages.len() >= 300, "{} passages", passages.len());
    let chars: Vec<char> = query.chars().collect();
    let source_chars = source.chars().count();
    for passage in passages {
        let found: String = chars[passage.query.start..passage.query.end]
            .iter()
            .collect();
        assert!(source.contains(&found), "{passage:?}: {found}");
        assert!(passage.doc.end <= source_chars, "{passage:?}");
        let copy: String = source
            .chars()
            .skip(passage.doc.start)
            .take(passage.doc.end - passage.doc.start)
            .collect();
        assert_eq!(found, copy, "{passage:?}");
    }
}
