//! The check's verdicts and passages on the fixture corpus: a pasted passage is a partial copy
//! with offsets that point at it in both texts; a reformatted copy is a duplicate whose passages
//! lie inside both texts; same-topic papers written independently are not matches.

use dupfinder::check::{CheckRequest, Verdict};
use dupfinder::library::check;
use dupfinder::library::{DocumentInput, IdValue, NewLibrary};

use crate::support::{catalog, corpus};

fn fixture_library() -> (
    tempfile::TempDir,
    std::sync::Arc<dupfinder::library::Catalog>,
) {
    let (dir, catalog) = catalog();
    catalog
        .create(NewLibrary {
            id: "fx".to_string(),
            ..Default::default()
        })
        .unwrap();
    let lines = corpus()
        .into_iter()
        .filter(|d| d["id"] != "en-06" && d["id"] != "en-12")
        .enumerate()
        .map(|(i, d)| {
            let input = DocumentInput {
                id: Some(IdValue::Text(d["id"].as_str().unwrap().to_string())),
                title: d["title"].as_str().map(str::to_string),
                text: d["text"].as_str().map(str::to_string),
                lang: d["lang"].as_str().map(str::to_string),
                ..Default::default()
            };
            (i + 1, Ok(input))
        })
        .collect();
    let report = catalog.ingest("fx", lines).unwrap();
    assert!(report.rejected.is_empty(), "{:?}", report.rejected);
    (dir, catalog)
}

fn text_of(id: &str) -> String {
    corpus().into_iter().find(|d| d["id"] == id).unwrap()["text"]
        .as_str()
        .unwrap()
        .to_string()
}

fn slice(text: &str, start: usize, end: usize) -> String {
    text.chars().skip(start).take(end - start).collect()
}

#[test]
fn pasted_passage_is_a_partial_copy_with_offsets_in_both_texts() {
    let (_dir, catalog) = fixture_library();
    let source = text_of("en-08");
    // Two sentences from the middle of en-08, pasted into an unrelated host (en-06 is not in
    // the library).
    let sentences: Vec<&str> = source.split_inclusive(". ").collect();
    let passage: String = sentences[1..4].concat().trim().to_string();
    assert!(passage.split_whitespace().count() >= 30, "{passage}");
    let host = text_of("en-06");
    let cut = host.find(". ").unwrap() + 2;
    let query = format!("{} {} {}", &host[..cut], passage, &host[cut..]);

    let mut request = CheckRequest::new(query.clone());
    request.passages = true;
    let report = check(&catalog, &request).unwrap();
    let found = report
        .matches
        .iter()
        .find(|m| m.doc_id == "en-08")
        .expect("the source is found");
    assert_eq!(found.verdict, Verdict::Partial, "{found:?}");
    let passages = found.passages.as_ref().unwrap();
    assert_eq!(passages.len(), 1, "{passages:?}");
    let p = &passages[0];
    let in_query = slice(&query, p.query.start, p.query.end);
    let in_doc = slice(&source, p.doc.start, p.doc.end);
    // Boundaries fall on analyzed words, so a leading or trailing stop word may be outside.
    assert!(
        passage.contains(in_query.trim()),
        "query passage {in_query:?} not in {passage:?}"
    );
    assert!(
        in_query.len() * 10 >= passage.len() * 8,
        "{in_query:?} is much shorter than {passage:?}"
    );
    assert_eq!(in_query, in_doc);
    assert!(
        report.query_coverage > 0.1 && report.query_coverage < 0.9,
        "{}",
        report.query_coverage
    );
}

#[test]
fn reformatted_copy_is_a_duplicate_and_passages_lie_inside_both_texts() {
    let (_dir, catalog) = fixture_library();
    for id in ["en-01", "ru-02", "fr-03", "de-01", "zh-01"] {
        let source = text_of(id);
        // The same words, different case and spacing: an exact copy by content hash, yet a
        // different text, so the document's own offsets must be used on its side.
        let query = format!("  {}\n", source.to_uppercase().replace(' ', "  "));
        let mut request = CheckRequest::new(query.clone());
        request.passages = true;
        let report = check(&catalog, &request).unwrap();
        let top = &report.matches[0];
        assert_eq!(
            (top.doc_id.as_str(), top.verdict),
            (id, Verdict::Duplicate),
            "{report:?}"
        );
        for p in top.passages.as_ref().unwrap() {
            assert!(p.query.start < p.query.end && p.query.end <= query.chars().count());
            assert!(p.doc.start < p.doc.end && p.doc.end <= source.chars().count());
        }
    }
}

#[test]
fn same_topic_papers_written_independently_are_not_duplicates() {
    let (_dir, catalog) = fixture_library();
    for (query, other) in [("en-06", "en-05"), ("en-12", "en-11")] {
        let report = check(&catalog, &CheckRequest::new(text_of(query))).unwrap();
        assert!(
            !report
                .matches
                .iter()
                .any(|m| m.doc_id == other && m.verdict == Verdict::Duplicate),
            "{query} judged a duplicate of {other}: {report:?}"
        );
    }
}

#[test]
fn search_finds_words_phrases_and_titles_with_marked_snippets() {
    let (_dir, catalog) = fixture_library();
    let index = catalog.index("fx").unwrap();
    // Stemmed words combined with AND: "glaciers" finds "glacier".
    let results = index.search("glaciers Greenland", 10, 0).unwrap();
    assert_eq!(results.total, 1);
    assert_eq!(results.hits[0].meta.doc_id, "en-08");
    assert!(
        results.hits[0].snippet.contains("<b>"),
        "{}",
        results.hits[0].snippet
    );
    // A quoted phrase must match in order.
    assert_eq!(
        index.search("\"warm ocean water\"", 10, 0).unwrap().total,
        1
    );
    assert_eq!(
        index.search("\"water ocean warm\"", 10, 0).unwrap().total,
        0
    );
    // A field filter.
    let titled = index.search("title:translation", 10, 0).unwrap();
    assert!(
        titled.hits.iter().any(|h| h.meta.doc_id == "en-05"),
        "{titled:?}"
    );
    // Pagination.
    let all = index.search("the study", 100, 0).unwrap();
    let second = index.search("the study", 1, 1).unwrap();
    if all.total > 1 {
        assert_eq!(second.hits[0].meta.doc_id, all.hits[1].meta.doc_id);
    }
    assert!(matches!(
        index.search("title:(", 10, 0),
        Err(dupfinder::index::SearchError::InvalidQuery(_))
    ));
}
