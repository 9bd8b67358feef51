//! Full papers as an editor reads them: a quotation with its citation is `quoted`, the same
//! text pasted without marks is `copied`, shared reference entries are `bibliography`, a shared
//! affiliation block is `front_matter`; exclusions decide what counts, and `min_similarity`
//! never turns a copied text into `original`.

use dupfinder::check::{CheckReport, CheckRequest, ExcludeRequest, PassageKind, Verdict};
use dupfinder::library::check;
use dupfinder::library::{Catalog, DocumentInput, IdValue, NewLibrary};

use crate::support::{catalog, synthetic_text};

const AFFILIATION: &str = "1 Department of Computational Linguistics, Faculty of Philology, \
Saint Petersburg State University, Universitetskaya Embankment 7-9, Saint Petersburg 199034, \
Russian Federation";

const FUNDING: &str = "Funding: This work was supported by the Russian Science Foundation \
under grant number 19-18-00417 awarded to the Laboratory of Corpus Linguistics and Text \
Reuse Studies.";

const REFERENCES: [&str; 3] = [
    "Kovalev A. B. Trimaran hulls in shallow water: towing tank experiments // Journal of \
Marine Engineering and Naval Architecture. 2019. Vol. 31, no. 4. P. 211–239.",
    "Lindqvist M., Oyelaran T. Resistance of slender multihulls at moderate Froude numbers // \
Ocean Engineering Letters. 2017. Vol. 12. P. 45–67.",
    "Petrova E. V. Wave interference between the hulls of catamarans and trimarans: a review \
// Proceedings of the Krylov Institute. 2021. Issue 5. P. 3–28.",
];

/// A paper laid out as an editor gets it: title, authors, affiliation, funding, abstract,
/// body, references.
fn paper(title: &str, affiliation: &str, body: &str, references: &[String]) -> String {
    let mut text = format!(
        "{title}\n\nA. Author, B. Author\n\n{affiliation}\n\nAbstract\n\n{}\n\nIntroduction\n\n{body}",
        synthetic_text(
            title
                .bytes()
                .fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)))
                % 1_000_003,
            60
        )
    );
    if !references.is_empty() {
        text.push_str("\n\nReferences\n\n");
        for (i, entry) in references.iter().enumerate() {
            text.push_str(&format!("{}. {entry}\n", i + 1));
        }
    }
    text
}

/// The sentence the queries quote or paste.
fn borrowed() -> String {
    synthetic_text(7_777, 48)
}

fn own_references(seed: u64) -> Vec<String> {
    (0..3)
        .map(|i| {
            format!(
                "Author{seed}{i} X. {} // Journal. 2020.",
                synthetic_text(seed * 1_000 + 500 + i, 14)
            )
        })
        .collect()
}

fn library() -> (tempfile::TempDir, std::sync::Arc<Catalog>) {
    let (dir, catalog) = catalog();
    catalog
        .create(NewLibrary {
            id: "lib".to_string(),
            ..Default::default()
        })
        .unwrap();
    let body = format!(
        "{} {} {}",
        synthetic_text(1, 120),
        borrowed(),
        synthetic_text(2, 120)
    );
    let affiliation = format!("{AFFILIATION}\n\n{FUNDING}");
    let references: Vec<String> = REFERENCES.iter().map(|r| r.to_string()).collect();
    let source = paper(
        "Trimaran hulls in shallow water",
        &affiliation,
        &body,
        &references,
    );
    let other = paper(
        "An unrelated paper on another topic",
        "Institute of Something Else, Moscow, Russia",
        &synthetic_text(3, 300),
        &own_references(3),
    );
    let inputs = [("source", source), ("other", other)]
        .into_iter()
        .enumerate()
        .map(|(i, (id, text))| {
            let input = DocumentInput {
                id: Some(IdValue::Text(id.to_string())),
                text: Some(text),
                lang: Some("en".to_string()),
                ..Default::default()
            };
            (i + 1, Ok(input))
        })
        .collect();
    let report = catalog.ingest("lib", inputs).unwrap();
    assert!(report.rejected.is_empty(), "{:?}", report.rejected);
    (dir, catalog)
}

fn run(catalog: &Catalog, text: &str, exclude: ExcludeRequest) -> CheckReport {
    let mut request = CheckRequest::new(text);
    request.passages = true;
    request.exclude = exclude;
    check(catalog, &request).unwrap()
}

fn kinds(report: &CheckReport) -> Vec<PassageKind> {
    report
        .matches
        .iter()
        .filter(|m| m.doc_id == "source")
        .flat_map(|m| m.passages.iter().flatten().map(|p| p.kind))
        .collect()
}

fn query_with_body(seed: u64, body: &str) -> String {
    paper(
        &format!("A query paper number {seed}"),
        &format!("Institute number {seed}, Kazan, Russia"),
        body,
        &own_references(seed),
    )
}

#[test]
fn a_quotation_with_its_citation_is_quoted_and_does_not_count_by_default() {
    let (_dir, catalog) = library();
    let body = format!(
        "{} As Kovalev put it, «{}» [1]. {}",
        synthetic_text(11, 100),
        borrowed().trim_end_matches('.'),
        synthetic_text(12, 100)
    );
    let text = query_with_body(11, &body);
    let report = run(&catalog, &text, ExcludeRequest::default());
    assert_eq!(kinds(&report), [PassageKind::Quoted], "{report:#?}");
    let passage = &report.matches[0].passages.as_ref().unwrap()[0];
    assert_eq!(passage.cited, Some(true));
    assert_eq!(report.verdict, Verdict::Original);
    assert!(!report.matches[0].counted);
    assert_eq!(report.similarity_index, 0.0);
    assert!(report.shares.quoted > 0.1, "{:?}", report.shares);

    // With quotations counted, the same passage is a partial copy.
    let counted = run(
        &catalog,
        &text,
        ExcludeRequest {
            quotes: Some(false),
            ..Default::default()
        },
    );
    assert_eq!(counted.verdict, Verdict::Partial);
    assert!(counted.similarity_index > 0.1);
    assert_eq!(counted.matches[0].share, counted.similarity_index);
}

#[test]
fn the_same_passage_pasted_without_marks_is_copied() {
    let (_dir, catalog) = library();
    let body = format!(
        "{} {} {}",
        synthetic_text(21, 100),
        borrowed(),
        synthetic_text(22, 100)
    );
    let text = query_with_body(21, &body);
    let report = run(&catalog, &text, ExcludeRequest::default());
    assert_eq!(kinds(&report), [PassageKind::Copied], "{report:#?}");
    assert_eq!(report.verdict, Verdict::Partial);
    assert!(report.matches[0].counted);
    assert!(report.similarity_index > 0.1);
    assert_eq!(report.shares.copied, report.similarity_index);

    // A filter on similarity hides the match but does not make the text original.
    let mut request = CheckRequest::new(text.as_str());
    request.min_similarity = 0.99;
    let filtered = check(&catalog, &request).unwrap();
    assert!(filtered.matches.is_empty());
    assert_eq!(filtered.hidden_matches, 1);
    assert_eq!(filtered.verdict, Verdict::Partial);

    // An excluded source is listed but does not count.
    let excluded = run(
        &catalog,
        &text,
        ExcludeRequest {
            sources: Some(vec!["lib/source".to_string()]),
            ..Default::default()
        },
    );
    assert_eq!(excluded.verdict, Verdict::Original);
    assert_eq!(excluded.matches.len(), 1);
    assert!(!excluded.matches[0].counted);
}

#[test]
fn shared_reference_entries_are_bibliography_not_copying() {
    let (_dir, catalog) = library();
    let mut references = own_references(31);
    references.extend(REFERENCES.iter().map(|r| r.to_string()));
    let text = paper(
        "A query paper citing the same works",
        "Institute number 31, Kazan, Russia",
        &synthetic_text(31, 250),
        &references,
    );
    let report = run(&catalog, &text, ExcludeRequest::default());
    let found = kinds(&report);
    assert!(!found.is_empty(), "{report:#?}");
    assert!(
        found.iter().all(|k| *k == PassageKind::Bibliography),
        "{found:?}"
    );
    assert_eq!(report.verdict, Verdict::Original, "{report:#?}");
    let counted = run(
        &catalog,
        &text,
        ExcludeRequest {
            bibliography: Some(false),
            ..Default::default()
        },
    );
    assert_eq!(counted.verdict, Verdict::Partial, "{counted:#?}");
}

#[test]
fn a_shared_affiliation_and_funding_block_is_front_matter() {
    let (_dir, catalog) = library();
    let text = paper(
        "A query paper from the same department",
        &format!("{AFFILIATION}\n\n{FUNDING}"),
        &synthetic_text(41, 250),
        &own_references(41),
    );
    let report = run(&catalog, &text, ExcludeRequest::default());
    let found = kinds(&report);
    assert!(!found.is_empty(), "{report:#?}");
    assert!(
        found.iter().all(|k| *k == PassageKind::FrontMatter),
        "{found:?}"
    );
    assert_eq!(report.verdict, Verdict::Original);
    assert!(report.shares.front_matter > 0.0);
    let counted = run(
        &catalog,
        &text,
        ExcludeRequest {
            front_matter: Some(false),
            ..Default::default()
        },
    );
    assert_eq!(counted.verdict, Verdict::Partial, "{counted:#?}");
}

/// Over HTTP: the answer carries the new figures and every passage's kind; `exclude` is read
/// from the body, and an unknown exclusion is a 4xx, not ignored.
#[tokio::test]
async fn the_api_answers_kinds_and_reads_exclusions() {
    use crate::support::{app, error_code, json_request};
    use serde_json::json;

    let (_dir, catalog) = library();
    let app = app(catalog);
    let body = format!(
        "{} As Kovalev put it, «{}» [1]. {}",
        synthetic_text(51, 100),
        borrowed().trim_end_matches('.'),
        synthetic_text(52, 100)
    );
    let text = query_with_body(51, &body);
    let (status, answer) = json_request(
        &app,
        "POST",
        "/api/v1/check",
        json!({"text": text, "passages": true}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["verdict"], "original", "{answer}");
    assert_eq!(answer["similarity_index"], 0.0);
    assert_eq!(answer["exclusions"]["quotes"], true);
    let passage = &answer["matches"][0]["passages"][0];
    assert_eq!(passage["kind"], "quoted");
    assert_eq!(passage["cited"], true);

    let (status, answer) = json_request(
        &app,
        "POST",
        "/api/v1/check",
        json!({"text": text, "exclude": {"quotes": false}}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["verdict"], "partial", "{answer}");
    assert_eq!(answer["matches"][0]["counted"], true);

    let (status, answer) = json_request(
        &app,
        "POST",
        "/api/v1/check",
        json!({"text": text, "exclude": {"citations": true}}),
    )
    .await;
    assert!(status.is_client_error(), "{status} {answer}");
    assert!(!error_code(&answer).is_empty());
}

/// A library of `papers` (id, title, affiliation, body), ingested as English.
fn library_of(
    papers: &[(String, String, String, String)],
) -> (tempfile::TempDir, std::sync::Arc<Catalog>) {
    let (dir, catalog) = catalog();
    catalog
        .create(NewLibrary {
            id: "lib".to_string(),
            ..Default::default()
        })
        .unwrap();
    let inputs = papers
        .iter()
        .enumerate()
        .map(|(i, (id, title, affiliation, body))| {
            let input = DocumentInput {
                id: Some(IdValue::Text(id.clone())),
                title: Some(title.clone()),
                text: Some(paper(
                    title,
                    affiliation,
                    body,
                    &own_references(100 + i as u64),
                )),
                lang: Some("en".to_string()),
                ..Default::default()
            };
            (i + 1, Ok(input))
        })
        .collect();
    let report = catalog.ingest("lib", inputs).unwrap();
    assert!(report.rejected.is_empty(), "{:?}", report.rejected);
    (dir, catalog)
}

fn all_kinds(report: &CheckReport) -> Vec<PassageKind> {
    report
        .matches
        .iter()
        .flat_map(|m| m.passages.iter().flatten().map(|p| p.kind))
        .collect()
}

#[test]
fn versions_of_one_paper_do_not_make_its_text_boilerplate() {
    // One paper in four venues: a workshop, a conference, Findings, a journal.
    let body = format!("{} {}", synthetic_text(61, 150), synthetic_text(62, 150));
    let versions: Vec<_> = ["Workshop", "Conference", "Findings", "Journal"]
        .iter()
        .enumerate()
        .map(|(i, venue)| {
            (
                format!("version-{i}"),
                "Parsing trimaran reports: a study".to_string(),
                format!("{venue} of Computational Linguistics, Kazan, Russia"),
                body.clone(),
            )
        })
        .collect();
    let (_dir, catalog) = library_of(&versions);
    let pasted = format!(
        "{} {} {}",
        synthetic_text(63, 100),
        synthetic_text(62, 60),
        synthetic_text(64, 100)
    );
    let report = run(
        &catalog,
        &query_with_body(63, &pasted),
        ExcludeRequest::default(),
    );
    let kinds = all_kinds(&report);
    assert!(!kinds.is_empty(), "{report:#?}");
    assert!(kinds.iter().all(|k| *k == PassageKind::Copied), "{kinds:?}");
    assert_eq!(report.verdict, Verdict::Partial);
}

#[test]
fn a_passage_four_different_papers_share_is_boilerplate() {
    let shared = synthetic_text(70, 60);
    let papers: Vec<_> = (0..4u64)
        .map(|i| {
            (
                format!("paper-{i}"),
                format!("An unrelated paper number {i}"),
                format!("Institute number {i}, Omsk, Russia"),
                format!(
                    "{} {shared} {}",
                    synthetic_text(71 + 2 * i, 150),
                    synthetic_text(72 + 2 * i, 150)
                ),
            )
        })
        .collect();
    let (_dir, catalog) = library_of(&papers);
    let pasted = format!(
        "{} {shared} {}",
        synthetic_text(81, 100),
        synthetic_text(82, 100)
    );
    let report = run(
        &catalog,
        &query_with_body(81, &pasted),
        ExcludeRequest::default(),
    );
    let kinds = all_kinds(&report);
    assert!(!kinds.is_empty(), "{report:#?}");
    assert!(
        kinds.iter().all(|k| *k == PassageKind::Boilerplate),
        "{kinds:?}"
    );
    assert_eq!(report.verdict, Verdict::Original);
}
