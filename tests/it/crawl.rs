//! The crawler against fixture sites served on loopback: id enumeration, recursive crawling,
//! sitemaps and OAI-PMH, robots.txt and pacing, failures that do not stop a crawl, and the
//! refusal of private addresses.

use std::collections::{BTreeSet, HashMap};
use std::io::Write;
use std::time::Duration;

use dupfinder::config::CrawlConfig;
use dupfinder::crawl::{
    CrawlError, CrawlService, CrawlState, FetchError, FetchKind, Fetcher, ModeName, Outcome,
};
use dupfinder::library::NewLibrary;

use crate::support::sites::{
    FixtureServer, Reply, article_page, crawl, crawl_catalog, doc_ids, library, link_page, slug,
    test_crawl_config,
};
use crate::support::synthetic_text;

/// A page with plenty of text that is not an article (a profile, a news item).
fn text_page(seed: u64, title: &str, links: &[String]) -> String {
    article_page(seed, title, links)
}

/// A site whose articles live at `/post/{id}/`, with gaps in the ids, profiles, news and tag
/// pages (with enough text to be indexed, were they articles), paginated lists, and articles
/// that no list links to.
fn numeric_site(ids: &[u64], unlinked: &[u64]) -> HashMap<String, Reply> {
    let mut pages = HashMap::new();
    pages.insert(
        "/robots.txt".to_string(),
        Reply::Html("User-agent: *\nDisallow:\n".to_string()),
    );
    let mut linked: Vec<u64> = ids
        .iter()
        .copied()
        .filter(|i| !unlinked.contains(i))
        .collect();
    linked.sort_unstable_by(|a, b| b.cmp(a));
    let lists: Vec<&[u64]> = linked.chunks(8).collect();
    pages.insert(
        "/".to_string(),
        Reply::Html(link_page(
            "Home",
            &[
                "/list?page=1".to_string(),
                "/users/1/".to_string(),
                "/news/1/".to_string(),
                "/tag/science/".to_string(),
            ],
        )),
    );
    for (i, list) in lists.iter().enumerate() {
        let mut links: Vec<String> = list.iter().map(|id| format!("/post/{id}/")).collect();
        if i + 1 < lists.len() {
            links.push(format!("/list?page={}", i + 2));
        }
        links.push(format!("/users/{}/", i % 4));
        pages.insert(
            format!("/list?page={}", i + 1),
            Reply::Html(link_page(&format!("Articles, page {}", i + 1), &links)),
        );
    }
    for &id in ids {
        pages.insert(
            format!("/post/{id}/"),
            Reply::Html(article_page(
                id,
                &format!("Article number {id}"),
                &[
                    format!("/users/{}/", id % 4),
                    format!("/news/{}/", id % 3),
                    "/tag/science/".to_string(),
                ],
            )),
        );
    }
    for n in 0..4 {
        pages.insert(
            format!("/users/{n}/"),
            Reply::Html(text_page(
                500 + n,
                &format!("Profile {n}"),
                &["/news/1/".to_string()],
            )),
        );
    }
    for n in 0..3 {
        pages.insert(
            format!("/news/{n}/"),
            Reply::Html(text_page(
                600 + n,
                &format!("News {n}"),
                &["/tag/math/".to_string()],
            )),
        );
    }
    for tag in ["science", "math"] {
        pages.insert(
            format!("/tag/{tag}/"),
            Reply::Html(text_page(
                700,
                &format!("Tag {tag}"),
                &["/list?page=2".to_string(), "/users/2/".to_string()],
            )),
        );
    }
    pages
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn numeric_ids_are_enumerated_gaps_skipped_and_nothing_else_indexed() {
    let gaps = [1003, 1007, 1008, 1015, 1021, 1022, 1030];
    let ids: Vec<u64> = (1000..=1040).filter(|i| !gaps.contains(i)).collect();
    // Linked from no list: at both ends of the range and inside it.
    let unlinked = [1000, 1001, 1019, 1040];
    let server = FixtureServer::start(numeric_site(&ids, &unlinked)).await;
    let (_dir, catalog) = crawl_catalog(test_crawl_config());
    library(&catalog, "habr", &server.url("/"), &["/post/"]);
    let service = CrawlService::open(catalog.clone()).unwrap();

    let report = crawl(&service, "habr").await;
    assert_eq!(report.outcome, Outcome::Done);
    let expected: BTreeSet<String> = ids
        .iter()
        .map(|id| server.url(&format!("/post/{id}/")))
        .collect();
    assert_eq!(doc_ids(&catalog, "habr"), expected, "exactly the articles");
    let status = service.status("habr").unwrap().unwrap();
    assert_eq!(status.status, CrawlState::Done);
    assert_eq!(status.mode, Some(ModeName::Enumerate));
    assert!(status.last_id.unwrap() >= 1040, "{status:?}");
    assert_eq!(status.counters.pages_indexed, ids.len() as u64);
    assert!(status.counters.failures["not_found"] >= gaps.len() as u64);
    for id in unlinked {
        assert!(
            server.requested().contains(&format!("/post/{id}/")),
            "unlinked article {id} was found by enumeration"
        );
    }

    // New articles appear (with a gap); a second crawl fetches only ids past the last one.
    for id in [1041, 1042, 1044] {
        server.set(
            &format!("/post/{id}/"),
            Reply::Html(article_page(id, &format!("Article number {id}"), &[])),
        );
    }
    server.clear_log();
    let report = crawl(&service, "habr").await;
    assert_eq!(report.outcome, Outcome::Done);
    assert_eq!(report.status.run, 2);
    let requested = server.requested();
    for path in &requested {
        let id = path
            .strip_prefix("/post/")
            .and_then(|p| p.strip_suffix('/'))
            .and_then(|p| p.parse::<u64>().ok());
        assert!(
            path == "/robots.txt" || id.is_some_and(|id| id > 1040),
            "the second crawl fetched {path}; requests: {requested:?}"
        );
    }
    let ids = doc_ids(&catalog, "habr");
    assert_eq!(ids.len(), expected.len() + 3);
    assert!(ids.contains(&server.url("/post/1044/")));
    // Statistics and signatures were refreshed after the crawl.
    assert!(catalog.describe("habr").unwrap().stats_generation >= 2);
}

/// A site with slug URLs: paginated lists, articles that link to related articles and to
/// author pages, and an about page.
fn slug_site(articles: u64, per_page: u64) -> HashMap<String, Reply> {
    let mut pages = HashMap::new();
    pages.insert(
        "/".to_string(),
        Reply::Html(link_page(
            "Journal",
            &[
                "/articles?page=1".to_string(),
                "/about/".to_string(),
                "/author/alice/".to_string(),
            ],
        )),
    );
    let lists = articles.div_ceil(per_page);
    for page in 1..=lists {
        let mut links: Vec<String> = ((page - 1) * per_page..(page * per_page).min(articles))
            .map(|i| format!("/article/n/{}", slug(i)))
            .collect();
        if page < lists {
            links.push(format!("/articles?page={}", page + 1));
        }
        links.push("/author/bob/".to_string());
        pages.insert(
            format!("/articles?page={page}"),
            Reply::Html(link_page(&format!("Articles, page {page}"), &links)),
        );
    }
    for i in 0..articles {
        let related = vec![
            format!("/article/n/{}", slug((i + 1) % articles)),
            "/author/alice/".to_string(),
        ];
        pages.insert(
            format!("/article/n/{}", slug(i)),
            Reply::Html(article_page(i, &format!("On {}", slug(i)), &related)),
        );
    }
    for (n, name) in ["alice", "bob"].iter().enumerate() {
        pages.insert(
            format!("/author/{name}/"),
            Reply::Html(text_page(900 + n as u64, name, &["/about/".to_string()])),
        );
    }
    pages.insert(
        "/about/".to_string(),
        Reply::Html(text_page(950, "About", &["/".to_string()])),
    );
    pages
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slug_urls_and_paginated_lists_are_crawled_recursively() {
    let server = FixtureServer::start(slug_site(45, 9)).await;
    let (_dir, catalog) = crawl_catalog(test_crawl_config());
    library(&catalog, "cyberleninka", &server.url("/"), &["/article/n/"]);
    let service = CrawlService::open(catalog.clone()).unwrap();

    let report = crawl(&service, "cyberleninka").await;
    assert_eq!(report.outcome, Outcome::Done);
    assert_eq!(report.status.mode, Some(ModeName::Recursive));
    let expected: BTreeSet<String> = (0..45)
        .map(|i| server.url(&format!("/article/n/{}", slug(i))))
        .collect();
    assert_eq!(doc_ids(&catalog, "cyberleninka"), expected);

    // Extraction: citation tags first, the article body without navigation, comments, footer.
    let index = catalog.index("cyberleninka").unwrap();
    let doc = index
        .document(&server.url(&format!("/article/n/{}", slug(7))))
        .unwrap()
        .unwrap();
    assert_eq!(
        doc.meta.title.as_deref(),
        Some(format!("On {}", slug(7)).as_str())
    );
    assert_eq!(doc.meta.authors, ["Author 7"]);
    assert_eq!(doc.meta.year, Some(2021));
    assert_eq!(doc.meta.lang, "en");
    assert!(
        doc.text.contains(&synthetic_text(7, 150)[..60]),
        "{}",
        doc.text
    );
    for furniture in ["navmenuword", "commentword", "footerword", "related"] {
        assert!(
            !doc.text.contains(furniture),
            "`{furniture}` in {}",
            doc.text
        );
    }
    // Every page was fetched once.
    let requested = server.requested();
    let distinct: BTreeSet<&String> = requested.iter().collect();
    assert_eq!(distinct.len(), requested.len(), "{requested:?}");
}

fn oai_record(server: &FixtureServer, n: u64, text: &str) -> String {
    format!(
        r#"<record><header><identifier>oai:fixture:{n}</identifier><datestamp>2024-05-{d:02}</datestamp><setSpec>papers</setSpec></header>
<metadata><oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<dc:title>Record {n}</dc:title><dc:creator>Creator, {n}</dc:creator><dc:description>{text}</dc:description>
<dc:identifier>10.9999/oai.{n}</dc:identifier><dc:identifier>{landing}</dc:identifier><dc:date>2020-01-01</dc:date><dc:language>eng</dc:language>
</oai_dc:dc></metadata></record>"#,
        d = n % 28 + 1,
        landing = server.url(&format!("/record/{n}")),
    )
}

fn oai_page(records: &str, token: Option<&str>) -> Reply {
    let token = match token {
        Some(t) => format!("<resumptionToken completeListSize=\"12\">{t}</resumptionToken>"),
        None => "<resumptionToken completeListSize=\"12\"/>".to_string(),
    };
    Reply::Bytes {
        content_type: "text/xml; charset=utf-8",
        body: format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><responseDate>2024-06-01T12:00:00Z</responseDate>
<request verb="ListRecords">x</request><ListRecords>{records}{token}</ListRecords></OAI-PMH>"#
        )
        .into_bytes(),
    }
}

fn xml(body: String) -> Reply {
    Reply::Bytes {
        content_type: "application/xml",
        body: body.into_bytes(),
    }
}

fn urlset(server: &FixtureServer, paths: &[String]) -> String {
    let urls: String = paths
        .iter()
        .map(|p| {
            format!(
                "<url><loc>{}</loc><lastmod>2024-01-01</lastmod></url>",
                server.url(p)
            )
        })
        .collect();
    format!(
        r#"<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>"#
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oai_pmh_with_resumption_tokens_and_a_sitemap_index_are_harvested() {
    let server = FixtureServer::start(HashMap::new()).await;
    // OAI-PMH: 11 records and a deleted one over three pages; record 11 has too little text
    // in its metadata, so its landing page is crawled instead.
    let record = |n: u64| oai_record(&server, n, &synthetic_text(2000 + n, 60));
    server.set(
        "/oai?verb=Identify",
        xml(r#"<OAI-PMH><Identify><repositoryName>Fixture</repositoryName><granularity>YYYY-MM-DD</granularity></Identify></OAI-PMH>"#.to_string()),
    );
    let page1: String = (1..=4).map(record).collect();
    let page2: String = (5..=8).map(record).collect();
    let page3 = format!(
        "{}{}{}<record><header status=\"deleted\"><identifier>oai:fixture:12</identifier><datestamp>2024-05-30</datestamp></header></record>",
        record(9),
        record(10),
        oai_record(&server, 11, "Too short."),
    );
    server.set(
        "/oai?verb=ListRecords&metadataPrefix=oai_dc",
        oai_page(&page1, Some("t2")),
    );
    server.set(
        "/oai?verb=ListRecords&resumptionToken=t2",
        oai_page(&page2, Some("t3")),
    );
    server.set(
        "/oai?verb=ListRecords&resumptionToken=t3",
        oai_page(&page3, None),
    );
    server.set(
        "/record/11",
        Reply::Html(article_page(11, "Record 11", &[])),
    );

    // Sitemaps: robots.txt names an index of two sitemaps, one gzip-compressed.
    server.set(
        "/robots.txt",
        Reply::Html(format!(
            "User-agent: *\nAllow: /\nSitemap: {}\n",
            server.url("/sitemap_index.xml")
        )),
    );
    server.set(
        "/sitemap_index.xml",
        xml(format!(
            r#"<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>{}</loc></sitemap><sitemap><loc>{}</loc></sitemap></sitemapindex>"#,
            server.url("/sitemap-a.xml"),
            server.url("/sitemap-b.xml.gz")
        )),
    );
    let mut a: Vec<String> = (1..=5).map(|n| format!("/paper/{n}")).collect();
    a.push("/about/".to_string());
    server.set("/sitemap-a.xml", xml(urlset(&server, &a)));
    let b: Vec<String> = (6..=10).map(|n| format!("/paper/{n}")).collect();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(urlset(&server, &b).as_bytes()).unwrap();
    server.set(
        "/sitemap-b.xml.gz",
        Reply::Bytes {
            content_type: "application/x-gzip",
            body: gz.finish().unwrap(),
        },
    );
    for n in 1..=10 {
        server.set(
            &format!("/paper/{n}"),
            Reply::Html(article_page(3000 + n, &format!("Paper {n}"), &[])),
        );
    }
    server.set("/about/", Reply::Html(text_page(3100, "About", &[])));

    let (_dir, catalog) = crawl_catalog(test_crawl_config());
    catalog
        .create(NewLibrary {
            id: "repo".to_string(),
            clarifications: vec!["/record/".to_string()],
            oai_url: Some(server.url("/oai")),
            ..Default::default()
        })
        .unwrap();
    catalog
        .create(NewLibrary {
            id: "journal".to_string(),
            start_url: Some(server.url("/")),
            clarifications: vec!["/paper/".to_string()],
            use_sitemaps: true,
            ..Default::default()
        })
        .unwrap();
    let service = CrawlService::open(catalog.clone()).unwrap();

    let report = crawl(&service, "repo").await;
    assert_eq!(report.outcome, Outcome::Done);
    let expected: BTreeSet<String> = (1..=11)
        .map(|n| server.url(&format!("/record/{n}")))
        .collect();
    assert_eq!(doc_ids(&catalog, "repo"), expected);
    let doc = catalog
        .index("repo")
        .unwrap()
        .document(&server.url("/record/3"))
        .unwrap()
        .unwrap();
    assert_eq!(doc.meta.title.as_deref(), Some("Record 3"));
    assert_eq!(doc.meta.authors, ["Creator, 3"]);

    let report = crawl(&service, "journal").await;
    assert_eq!(report.outcome, Outcome::Done);
    let expected: BTreeSet<String> = (1..=10)
        .map(|n| server.url(&format!("/paper/{n}")))
        .collect();
    assert_eq!(doc_ids(&catalog, "journal"), expected);
    let requested = server.requested();
    assert!(
        !requested.contains(&"/about/".to_string()),
        "not an article"
    );
    assert!(
        !requested.contains(&"/".to_string()),
        "sitemaps replace link walking"
    );

    // An incremental harvest asks only for records changed since the last one.
    server.set(
        "/oai?verb=ListRecords&metadataPrefix=oai_dc&from=2024-06-01",
        oai_page(&format!("{}{}", record(13), record(14)), None),
    );
    server.clear_log();
    let report = crawl(&service, "repo").await;
    assert_eq!(report.outcome, Outcome::Done);
    let requested = server.requested();
    assert!(
        requested
            .contains(&"/oai?verb=ListRecords&metadataPrefix=oai_dc&from=2024-06-01".to_string()),
        "{requested:?}"
    );
    assert!(
        !requested
            .iter()
            .any(|p| p.contains("resumptionToken") || p.starts_with("/record/")),
        "{requested:?}"
    );
    assert_eq!(doc_ids(&catalog, "repo").len(), 13);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn robots_disallow_and_crawl_delay_are_honoured() {
    let mut pages = HashMap::new();
    pages.insert(
        "/robots.txt".to_string(),
        Reply::Html("User-agent: *\nDisallow: /article/secret\nCrawl-delay: 0.3\n".to_string()),
    );
    let links = [
        "/article/alpha".to_string(),
        "/article/beta".to_string(),
        "/article/secret-gamma".to_string(),
    ];
    pages.insert("/".to_string(), Reply::Html(link_page("Home", &links)));
    for (i, link) in links.iter().enumerate() {
        pages.insert(link.clone(), Reply::Html(article_page(i as u64, link, &[])));
    }
    let server = FixtureServer::start(pages.clone()).await;
    let (_dir, catalog) = crawl_catalog(test_crawl_config());
    library(&catalog, "polite", &server.url("/"), &["/article/"]);
    let service = CrawlService::open(catalog.clone()).unwrap();
    let report = crawl(&service, "polite").await;

    let requested = server.requested();
    assert!(!requested.contains(&"/article/secret-gamma".to_string()));
    assert_eq!(report.status.counters.failures["robots_disallowed"], 1);
    assert_eq!(doc_ids(&catalog, "polite").len(), 2);
    let hits = server.hits();
    assert_eq!(hits.len(), 4, "{requested:?}");
    for pair in hits.windows(2) {
        let gap = pair[1].at - pair[0].at;
        assert!(
            // The configured delay is 300 ms; the margin absorbs a loaded machine's scheduling.
            gap >= Duration::from_millis(200),
            "{} came {gap:?} after {}",
            pair[1].path,
            pair[0].path
        );
    }

    // Without a crawl delay, requests_per_second paces the host.
    pages.remove("/robots.txt");
    let server = FixtureServer::start(pages).await;
    let (_dir, catalog) = crawl_catalog(CrawlConfig {
        requests_per_second: 10.0,
        ..test_crawl_config()
    });
    library(&catalog, "paced", &server.url("/"), &["/article/"]);
    let service = CrawlService::open(catalog.clone()).unwrap();
    crawl(&service, "paced").await;
    let hits = server.hits();
    assert_eq!(
        hits.len(),
        5,
        "robots.txt (404), the start page, three articles"
    );
    // Pacing is a bound on the rate: four gaps take at least four intervals (100 ms each),
    // whatever the scheduling of one arrival; no two requests come as a burst.
    let span = hits[hits.len() - 1].at - hits[0].at;
    assert!(
        span >= Duration::from_millis(360),
        "five requests in {span:?}"
    );
    for pair in hits.windows(2) {
        assert!(pair[1].at - pair[0].at >= Duration::from_millis(40));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failing_pages_are_recorded_with_reasons_and_the_crawl_goes_on() {
    let mut pages = HashMap::new();
    let paths = [
        "/article/ok-one",
        "/article/ok-two",
        "/article/missing",
        "/article/broken",
        "/article/slow",
        "/article/huge",
        "/article/pdf",
        "/article/loop-a",
        "/article/busy",
    ];
    let links: Vec<String> = paths.iter().map(|p| p.to_string()).collect();
    pages.insert("/".to_string(), Reply::Html(link_page("Home", &links)));
    pages.insert(
        "/article/ok-one".into(),
        Reply::Html(article_page(1, "One", &[])),
    );
    pages.insert(
        "/article/ok-two".into(),
        Reply::Html(article_page(2, "Two", &[])),
    );
    pages.insert("/article/broken".into(), Reply::Status(500));
    pages.insert(
        "/article/slow".into(),
        Reply::Slow(Duration::from_secs(3), article_page(3, "Slow", &[])),
    );
    pages.insert("/article/huge".into(), Reply::Huge(20 * 1024 * 1024));
    pages.insert(
        "/article/pdf".into(),
        Reply::Bytes {
            content_type: "application/pdf",
            body: b"%PDF-1.4 not a web page".to_vec(),
        },
    );
    pages.insert(
        "/article/loop-a".into(),
        Reply::Redirect("/article/loop-b".into()),
    );
    pages.insert(
        "/article/loop-b".into(),
        Reply::Redirect("/article/loop-a".into()),
    );
    pages.insert(
        "/article/busy".into(),
        Reply::RateLimitedOnce(1, article_page(4, "Busy", &[])),
    );
    let server = FixtureServer::start(pages).await;
    let (_dir, catalog) = crawl_catalog(CrawlConfig {
        // Far below the slow page (3 s), far above a loaded machine's ordinary page.
        timeout_ms: 1_500,
        ..test_crawl_config()
    });
    library(&catalog, "flaky", &server.url("/"), &["/article/"]);
    let service = CrawlService::open(catalog.clone()).unwrap();

    let report = crawl(&service, "flaky").await;
    assert_eq!(report.outcome, Outcome::Done);
    let failures = &report.status.counters.failures;
    for code in [
        "not_found",
        "server_error",
        "timeout",
        "too_large",
        "not_html",
        "redirect_loop",
    ] {
        assert_eq!(failures.get(code), Some(&1), "{code}: {failures:?}");
    }
    assert_eq!(report.status.counters.pages_failed, 6);
    let expected: BTreeSet<String> = ["/article/ok-one", "/article/ok-two", "/article/busy"]
        .iter()
        .map(|p| server.url(p))
        .collect();
    assert_eq!(doc_ids(&catalog, "flaky"), expected);
    // Each failed page keeps its reason.
    let page = service
        .store()
        .page("flaky", &server.url("/article/huge"))
        .unwrap()
        .unwrap();
    let failure = page.failure.unwrap();
    assert_eq!(failure.code, "too_large");
    assert!(
        failure.message.contains("larger than"),
        "{}",
        failure.message
    );
    // 429 with Retry-After: 1 — the retry waited.
    let busy: Vec<_> = server
        .hits()
        .into_iter()
        .filter(|h| h.path == "/article/busy")
        .collect();
    assert_eq!(busy.len(), 2);
    assert!(busy[1].at - busy[0].at >= Duration::from_millis(950));
    // The server error was retried once, then given up.
    let broken = server
        .requested()
        .iter()
        .filter(|p| *p == "/article/broken")
        .count();
    assert_eq!(broken, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn start_urls_on_private_addresses_are_refused_without_the_setting() {
    let server = FixtureServer::start(slug_site(3, 3)).await;
    let port = server.addr.port();
    let (_dir, catalog) = crawl_catalog(CrawlConfig::default());
    library(
        &catalog,
        "loopback",
        &format!("http://127.0.0.1:{port}/"),
        &[],
    );
    library(&catalog, "named", &format!("http://localhost:{port}/"), &[]);
    let service = CrawlService::open(catalog.clone()).unwrap();
    for id in ["loopback", "named"] {
        let err = service.enqueue(id).await.unwrap_err();
        assert!(matches!(err, CrawlError::PrivateAddress { .. }), "{err}");
        let err = service
            .crawl(id, tokio_util::sync::CancellationToken::new())
            .await
            .unwrap_err();
        assert!(matches!(err, CrawlError::PrivateAddress { .. }), "{err}");
    }
    assert!(service.queue().unwrap().is_empty());
    // The fetcher refuses a name that resolves to loopback by itself, at connection time.
    let fetcher = Fetcher::new(&CrawlConfig::default()).unwrap();
    let url = url::Url::parse(&format!("http://localhost:{port}/")).unwrap();
    let err = fetcher.fetch(&url, FetchKind::Page).await.unwrap_err();
    assert!(matches!(err, FetchError::NonPublicAddress { .. }), "{err}");
    assert_eq!(err.code(), "private_address");
    assert!(
        server.requested().is_empty(),
        "no request reached the server"
    );

    // With the setting, the same library is accepted.
    let (_dir, catalog) = crawl_catalog(CrawlConfig {
        allow_private_networks: true,
        ..CrawlConfig::default()
    });
    library(&catalog, "named", &format!("http://localhost:{port}/"), &[]);
    let service = CrawlService::open(catalog).unwrap();
    assert_eq!(service.enqueue("named").await.unwrap(), 0);
}

/// Libraries declared in bulk with schedules: a due one is queued (and shown in the queue), a
/// paused one and one without a schedule are not; once harvested it is not due again until its
/// interval has passed, and then its re-harvest asks the repository only for what changed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scheduled_oai_pmh_re_harvest_is_queued_when_due_and_asks_only_for_changes() {
    let server = FixtureServer::start(HashMap::new()).await;
    let record = |n: u64| oai_record(&server, n, &synthetic_text(5000 + n, 60));
    server.set(
        "/oai?verb=Identify",
        xml(r#"<OAI-PMH><Identify><repositoryName>Fixture</repositoryName><granularity>YYYY-MM-DD</granularity></Identify></OAI-PMH>"#.to_string()),
    );
    server.set(
        "/oai?verb=ListRecords&metadataPrefix=oai_dc",
        oai_page(&(1..=3).map(record).collect::<String>(), None),
    );
    let (_dir, catalog) = crawl_catalog(test_crawl_config());
    let oai = server.url("/oai");
    let registry = [
        format!(r#"{{"id":"weekly","oai_pmh":"{oai}","schedule":{{"every_hours":168}}}}"#),
        format!(
            r#"{{"id":"resting","oai_pmh":"{oai}","schedule":{{"every_hours":1}},"paused":true}}"#
        ),
        format!(r#"{{"id":"by-hand","oai_pmh":"{oai}"}}"#),
    ];
    let imported = catalog
        .import_libraries(
            registry
                .iter()
                .enumerate()
                .map(|(i, l)| (i + 1, l.as_str())),
        )
        .unwrap();
    assert_eq!(imported.created, 3, "{imported:?}");
    let service = CrawlService::open(catalog.clone()).unwrap();

    let now = dupfinder::clock::unix_now();
    assert_eq!(service.queue_due(now).await.unwrap(), ["weekly"]);
    let queue: Vec<String> = service.queue().unwrap().into_iter().map(|e| e.id).collect();
    assert_eq!(queue, ["weekly"]);
    // Queued already: not queued twice.
    assert!(service.queue_due(now).await.unwrap().is_empty());
    let report = crawl(&service, "weekly").await;
    assert_eq!(report.outcome, Outcome::Done);
    assert_eq!(doc_ids(&catalog, "weekly").len(), 3);
    assert!(service.queue().unwrap().is_empty());

    // Harvested just now: due again only a week later.
    let finished = dupfinder::clock::unix_now();
    assert!(service.queue_due(finished + 3600).await.unwrap().is_empty());
    server.set(
        "/oai?verb=ListRecords&metadataPrefix=oai_dc&from=2024-06-01",
        oai_page(&record(4), None),
    );
    server.clear_log();
    assert_eq!(
        service.queue_due(finished + 168 * 3600).await.unwrap(),
        ["weekly"]
    );
    let report = crawl(&service, "weekly").await;
    assert_eq!(report.outcome, Outcome::Done);
    let requested = server.requested();
    assert!(
        requested
            .contains(&"/oai?verb=ListRecords&metadataPrefix=oai_dc&from=2024-06-01".to_string()),
        "{requested:?}"
    );
    assert!(
        !requested.contains(&"/oai?verb=ListRecords&metadataPrefix=oai_dc".to_string()),
        "{requested:?}"
    );
    assert_eq!(doc_ids(&catalog, "weekly").len(), 4);
}
