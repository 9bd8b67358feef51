//! The crawler reads articles' full texts: a fixture site whose article pages point at their
//! PDF (`citation_pdf_url`) or link their DOCX by type; the library holds the full texts with
//! the landing pages' metadata, and a full text that fails leaves its article indexed with the
//! landing page's abstract, counted.

use std::collections::HashMap;

use dupfinder::check::{CheckRequest, Verdict};
use dupfinder::crawl::{CrawlService, Outcome};
use dupfinder::library::check;

use crate::support::sites::{
    FixtureServer, Reply, crawl, crawl_catalog, doc_ids, library, link_page, test_crawl_config,
};
use crate::support::synthetic_text;

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/files/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// An article's landing page: citation tags (`extra_head` adds some), an abstract, and
/// `extra_body` (a link to the full text, say).
fn landing_page(seed: u64, title: &str, extra_head: &str, extra_body: &str) -> String {
    format!(
        r#"<!doctype html><html lang="ru"><head><title>{title}</title>
<meta name="citation_title" content="{title}">
<meta name="citation_author" content="Автор {seed}">
<meta name="citation_publication_date" content="2022/03/01">
{extra_head}
</head><body><nav><a href="/">Главная</a></nav>
<article><h1>{title}</h1><p>{abstract_text}</p>{extra_body}</article>
</body></html>"#,
        abstract_text = synthetic_text(seed, 120),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn articles_are_indexed_with_their_full_texts_and_failures_keep_the_abstract() {
    let mut pages = HashMap::new();
    pages.insert(
        "/robots.txt".to_string(),
        Reply::Html("User-agent: *\nDisallow:\n".to_string()),
    );
    let articles = ["/article/n/pdf", "/article/n/missing", "/article/n/docx"];
    let links: Vec<String> = articles.iter().map(|p| p.to_string()).collect();
    pages.insert("/".to_string(), Reply::Html(link_page("Home", &links)));
    pages.insert(
        articles[0].to_string(),
        Reply::Html(landing_page(
            1,
            "Наблюдение за работниками",
            r#"<meta name="citation_pdf_url" content="/files/manuscript.pdf">
<meta name="citation_doi" content="10.9999/full.1">"#,
            "",
        )),
    );
    pages.insert(
        "/files/manuscript.pdf".to_string(),
        Reply::Bytes {
            content_type: "application/pdf",
            body: fixture("manuscript.pdf"),
        },
    );
    pages.insert(
        articles[1].to_string(),
        Reply::Html(landing_page(
            2,
            "Статья без файла",
            r#"<meta name="citation_pdf_url" content="/files/gone.pdf">"#,
            "",
        )),
    );
    pages.insert("/files/gone.pdf".to_string(), Reply::Status(404));
    pages.insert(
        articles[2].to_string(),
        Reply::Html(landing_page(
            3,
            "Статья в формате DOCX",
            r#"<meta name="prism.doi" content="doi:10.9999/Full.3">"#,
            r#"<p><a href="/files/paper?id=3" type="application/vnd.openxmlformats-officedocument.wordprocessingml.document">Полный текст</a></p>"#,
        )),
    );
    pages.insert(
        "/files/paper?id=3".to_string(),
        Reply::Bytes {
            content_type: "application/octet-stream",
            body: fixture("manuscript.docx"),
        },
    );

    let server = FixtureServer::start(pages).await;
    let (_dir, catalog) = crawl_catalog(test_crawl_config());
    library(&catalog, "journal", &server.url("/"), &["/article/n/"]);
    let service = CrawlService::open(catalog.clone()).unwrap();
    let report = crawl(&service, "journal").await;
    assert_eq!(report.outcome, Outcome::Done);

    let expected: std::collections::BTreeSet<String> =
        articles.iter().map(|p| server.url(p)).collect();
    assert_eq!(doc_ids(&catalog, "journal"), expected);
    let counters = &report.status.counters;
    assert_eq!(counters.full_texts, 2, "{counters:?}");
    assert_eq!(counters.full_text_failures, 1, "{counters:?}");

    let index = catalog.index("journal").unwrap();
    // The PDF's body, not the landing page's abstract, with the landing page's metadata.
    let pdf = index.document(&server.url(articles[0])).unwrap().unwrap();
    assert_eq!(pdf.meta.title.as_deref(), Some("Наблюдение за работниками"));
    assert_eq!(pdf.meta.authors, ["Автор 1"]);
    assert_eq!(pdf.meta.year, Some(2022));
    // Where the full text came from and the DOI are stored.
    let pdf_url = server.url("/files/manuscript.pdf");
    assert_eq!(pdf.meta.pdf_url.as_deref(), Some(pdf_url.as_str()));
    assert_eq!(pdf.meta.doi.as_deref(), Some("10.9999/full.1"));
    for words in [
        "видеонаблюдения",
        "судебную практику",
        "электронного мониторинга",
    ] {
        assert!(pdf.text.contains(words), "`{words}` not in {}", pdf.text);
    }
    assert!(!pdf.text.contains(&synthetic_text(1, 120)[..40]));
    // The DOCX linked by its type.
    let docx = index.document(&server.url(articles[2])).unwrap().unwrap();
    assert!(docx.text.contains("видеонаблюдения"), "{}", docx.text);
    let docx_url = server.url("/files/paper?id=3");
    assert_eq!(docx.meta.pdf_url.as_deref(), Some(docx_url.as_str()));
    assert_eq!(
        docx.meta.doi.as_deref(),
        Some("10.9999/full.3"),
        "normalized"
    );
    // The failed full text leaves the abstract.
    let missing = index.document(&server.url(articles[1])).unwrap().unwrap();
    assert!(missing.text.contains(&synthetic_text(2, 120)[..40]));
    assert_eq!(missing.meta.doi, None);

    // The full texts are found by a check of the manuscript's plain text.
    let manuscript = String::from_utf8(fixture("manuscript.txt")).unwrap();
    let mut request = CheckRequest::new(manuscript);
    request.libraries = Some(vec!["journal".to_string()]);
    let answer = check(&catalog, &request).unwrap();
    let duplicates: Vec<&str> = answer
        .matches
        .iter()
        .filter(|m| m.verdict == Verdict::Duplicate)
        .map(|m| m.doc_id.as_str())
        .collect();
    assert!(
        duplicates.contains(&server.url(articles[0]).as_str()),
        "{duplicates:?}"
    );
    assert!(
        duplicates.contains(&server.url(articles[2]).as_str()),
        "{duplicates:?}"
    );
    // The check's match links the full text and the DOI.
    let found = answer
        .matches
        .iter()
        .find(|m| m.doc_id == server.url(articles[0]))
        .unwrap();
    assert_eq!(found.pdf_url.as_deref(), Some(pdf_url.as_str()));
    assert_eq!(found.doi.as_deref(), Some("10.9999/full.1"));
}
