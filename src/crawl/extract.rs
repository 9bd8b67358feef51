//! From an HTML page to an article and the page's links. Scientific sites carry Highwire
//! `citation_*` meta tags (Google Scholar's inclusion rules); they are preferred. The text is the
//! article body: the `<article>` element, else `<main>`, else the block whose paragraphs hold
//! the most text (a small readability score), never navigation, comments, footers, forms or
//! scripts.
//!
//! ```
//! use dupfinder::crawl::extract;
//! let html = r#"<html lang="en"><head><title>Site | A paper</title>
//!   <meta name="citation_title" content="On signatures">
//!   <meta name="citation_author" content="Ilyinsky, S."></head>
//!   <body><nav><a href="/list?page=2">next</a></nav>
//!   <article><p>Signatures of documents find fuzzy duplicates in large collections.</p></article>
//!   <footer>Copyright</footer></body></html>"#;
//! let page = extract(html, &url::Url::parse("https://j.org/post/1").unwrap());
//! assert_eq!(page.title.as_deref(), Some("On signatures"));
//! assert_eq!(page.authors, ["Ilyinsky, S."]);
//! assert_eq!(page.text, "Signatures of documents find fuzzy duplicates in large collections.");
//! assert_eq!(page.lang.as_deref(), Some("en"));
//! assert_eq!(page.links[0].as_str(), "https://j.org/list?page=2");
//! ```

use std::collections::HashMap;

use scraper::{ElementRef, Html, Node, Selector};
use url::Url;

use super::pattern::normalize;

/// What a page yields.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExtractedPage {
    /// `citation_title`, else `<title>`, else the first `<h1>`.
    pub title: Option<String>,
    /// `citation_author` (each), else `author` / `DC.creator` meta tags.
    pub authors: Vec<String>,
    pub doi: Option<String>,
    /// The article's PDF, as an absolute URL.
    pub pdf_url: Option<String>,
    /// `citation_publication_date` (or `citation_date`, `DC.date`) as written.
    pub published: Option<String>,
    /// The year of `published`.
    pub year: Option<u64>,
    /// The primary language subtag of `<html lang>` (or `citation_language`), lowercase.
    pub lang: Option<String>,
    /// Whether `citation_*` tags were found: the page is a scholarly article by its own word.
    pub has_citation_meta: bool,
    /// The article body: paragraphs separated by newlines.
    pub text: String,
    /// Every http(s) link of the page, absolute, without fragments, deduplicated, in order.
    pub links: Vec<Url>,
}

/// Element names whose content is never article text.
const SKIPPED_ELEMENTS: &[&str] = &[
    "script", "style", "noscript", "nav", "footer", "aside", "form", "iframe", "svg", "template",
    "button", "select", "textarea", "header", "menu", "dialog", "object", "canvas",
];

/// `class`/`id` words that mark navigation, comments and other page furniture.
const BOILERPLATE_WORDS: &[&str] = &[
    "comment",
    "comments",
    "nav",
    "navbar",
    "navigation",
    "menu",
    "footer",
    "sidebar",
    "breadcrumb",
    "breadcrumbs",
    "share",
    "social",
    "related",
    "advert",
    "ads",
    "banner",
    "cookie",
    "cookies",
    "login",
    "signup",
    "subscribe",
    "widget",
    "pagination",
    "pager",
    "disqus",
];

/// ARIA roles of page furniture.
const BOILERPLATE_ROLES: &[&str] = &[
    "navigation",
    "contentinfo",
    "complementary",
    "banner",
    "search",
    "menu",
    "menubar",
];

/// Elements that start a new line of text.
const BLOCK_ELEMENTS: &[&str] = &[
    "p",
    "div",
    "section",
    "article",
    "main",
    "br",
    "li",
    "ul",
    "ol",
    "dl",
    "dt",
    "dd",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "blockquote",
    "pre",
    "table",
    "tr",
    "td",
    "th",
    "figure",
    "figcaption",
    "hr",
    "address",
];

fn selector(css: &str) -> Selector {
    Selector::parse(css).expect("a valid built-in selector")
}

/// Extracts the article and the links of an HTML page fetched from `page_url`.
pub fn extract(html: &str, page_url: &Url) -> ExtractedPage {
    let document = Html::parse_document(html);
    let meta = meta_tags(&document);
    let first = |names: &[&str]| -> Option<String> {
        names
            .iter()
            .find_map(|name| meta.get(*name).and_then(|values| values.first()))
            .map(|v| clean_inline(v))
            .filter(|v| !v.is_empty())
    };
    let all = |name: &str| -> Vec<String> {
        meta.get(name)
            .map(|values| {
                values
                    .iter()
                    .map(|v| clean_inline(v))
                    .filter(|v| !v.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    };

    let base = document
        .select(&selector("base[href]"))
        .next()
        .and_then(|b| b.attr("href"))
        .and_then(|href| page_url.join(href).ok())
        .unwrap_or_else(|| page_url.clone());

    let title = first(&["citation_title", "dc.title"])
        .or_else(|| {
            document
                .select(&selector("title"))
                .next()
                .map(|t| clean_inline(&t.text().collect::<String>()))
                .filter(|t| !t.is_empty())
        })
        .or_else(|| {
            document
                .select(&selector("h1"))
                .next()
                .map(|t| clean_inline(&t.text().collect::<String>()))
                .filter(|t| !t.is_empty())
        });
    let mut authors = all("citation_author");
    if authors.is_empty() {
        authors = all("dc.creator");
    }
    if authors.is_empty() {
        authors = all("author");
    }
    let published = first(&[
        "citation_publication_date",
        "citation_date",
        "citation_online_date",
        "dc.date",
    ]);
    let year = published.as_deref().and_then(year_of);
    let lang = document
        .root_element()
        .attr("lang")
        .map(str::to_string)
        .or_else(|| first(&["citation_language", "dc.language"]))
        .and_then(|l| primary_subtag(&l));
    let pdf_url = first(&["citation_pdf_url"])
        .and_then(|u| base.join(&u).ok())
        .map(|u| u.to_string());
    let has_citation_meta = meta.keys().any(|k| k.starts_with("citation_"));

    let mut text = article_text(&document);
    if let Some(abstract_text) = first(&["citation_abstract", "dc.description"])
        && abstract_text.len() > text.len()
    {
        text = abstract_text;
    }

    ExtractedPage {
        title,
        authors,
        doi: first(&["citation_doi", "dc.identifier.doi"]),
        pdf_url,
        published,
        year,
        lang,
        has_citation_meta,
        text,
        links: links(&document, &base),
    }
}

/// `<meta name|property=… content=…>` values by lowercase name, in document order.
fn meta_tags(document: &Html) -> HashMap<String, Vec<String>> {
    let mut meta: HashMap<String, Vec<String>> = HashMap::new();
    for tag in document.select(&selector("meta[content]")) {
        let Some(name) = tag.attr("name").or_else(|| tag.attr("property")) else {
            continue;
        };
        if let Some(content) = tag.attr("content") {
            meta.entry(name.trim().to_ascii_lowercase())
                .or_default()
                .push(content.to_string());
        }
    }
    meta
}

fn links(document: &Html, base: &Url) -> Vec<Url> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let anchors = selector("a[href], area[href], link[rel~=next][href], link[rel~=prev][href]");
    for element in document.select(&anchors) {
        let Some(href) = element.attr("href") else {
            continue;
        };
        let href = href.trim();
        if href.is_empty() || href.starts_with('#') {
            continue;
        }
        let Some(url) = base.join(href).ok().and_then(normalize) else {
            continue;
        };
        if seen.insert(url.as_str().to_string()) {
            out.push(url);
        }
    }
    out
}

fn is_boilerplate(element: &ElementRef) -> bool {
    let value = element.value();
    if SKIPPED_ELEMENTS.contains(&value.name()) {
        return true;
    }
    if value.attr("hidden").is_some()
        || value
            .attr("aria-hidden")
            .is_some_and(|v| v.eq_ignore_ascii_case("true"))
    {
        return true;
    }
    if let Some(role) = value.attr("role")
        && BOILERPLATE_ROLES.contains(&role.trim().to_ascii_lowercase().as_str())
    {
        return true;
    }
    let marks = |attribute: &str| {
        attribute
            .split(|c: char| c.is_whitespace() || c == '-' || c == '_')
            .any(|word| BOILERPLATE_WORDS.contains(&word.to_ascii_lowercase().as_str()))
    };
    value.classes().any(marks) || value.id().is_some_and(marks)
}

fn inside_boilerplate(element: &ElementRef) -> bool {
    element
        .ancestors()
        .filter_map(ElementRef::wrap)
        .any(|a| is_boilerplate(&a))
}

/// The article body of the page.
fn article_text(document: &Html) -> String {
    let body = document
        .select(&selector("body"))
        .next()
        .unwrap_or_else(|| document.root_element());
    let longest = |css: &str| -> Option<(ElementRef, String)> {
        document
            .select(&selector(css))
            .filter(|e| !is_boilerplate(e) && !inside_boilerplate(e))
            .map(|e| (e, block_text(e)))
            .max_by_key(|(_, text)| text.len())
            .filter(|(_, text)| text.split_whitespace().count() >= 10)
    };
    if let Some((_, text)) = longest("article") {
        return text;
    }
    if let Some((_, text)) = longest("main, [role=main]") {
        return text;
    }
    match densest_block(document) {
        Some(block) => block_text(block),
        None => block_text(body),
    }
}

/// The element whose paragraphs hold the most text that is not link text: every paragraph
/// scores its parent fully and its grandparent by half.
fn densest_block(document: &Html) -> Option<ElementRef<'_>> {
    let mut scores = HashMap::new();
    let mut elements = HashMap::new();
    for paragraph in document.select(&selector("p, pre, blockquote, td, dd")) {
        if inside_boilerplate(&paragraph) {
            continue;
        }
        let length = paragraph.text().map(str::len).sum::<usize>();
        if length < 25 {
            continue;
        }
        let link_length: usize = paragraph
            .select(&selector("a"))
            .flat_map(|a| a.text())
            .map(str::len)
            .sum();
        let score = length.saturating_sub(link_length) as f64;
        let mut weight = 1.0;
        for ancestor in paragraph.ancestors().filter_map(ElementRef::wrap).take(2) {
            *scores.entry(ancestor.id()).or_insert(0.0) += score * weight;
            elements.insert(ancestor.id(), ancestor);
            weight /= 2.0;
        }
    }
    let (best, _) = scores
        .into_iter()
        .max_by(|a, b| a.1.partial_cmp(&b.1).unwrap_or(std::cmp::Ordering::Equal))?;
    elements.get(&best).copied()
}

/// The visible text under `element`, one line per block, page furniture left out.
fn block_text(element: ElementRef) -> String {
    let mut raw = String::new();
    collect_text(element, &mut raw);
    raw.lines()
        .map(clean_inline)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

fn collect_text(element: ElementRef, out: &mut String) {
    for child in element.children() {
        match child.value() {
            Node::Text(text) => out.push_str(text),
            Node::Element(_) => {
                let Some(child) = ElementRef::wrap(child) else {
                    continue;
                };
                if is_boilerplate(&child) {
                    continue;
                }
                let block = BLOCK_ELEMENTS.contains(&child.value().name());
                if block {
                    out.push('\n');
                }
                collect_text(child, out);
                if block {
                    out.push('\n');
                } else if matches!(child.value().name(), "td" | "th" | "span" | "a") {
                    out.push(' ');
                }
            }
            _ => {}
        }
    }
}

/// Whitespace runs collapsed to one space, trimmed.
fn clean_inline(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first four-digit year (1000–2999) in a date as written.
fn year_of(date: &str) -> Option<u64> {
    let bytes = date.as_bytes();
    (0..bytes.len().saturating_sub(3)).find_map(|i| {
        let window = &bytes[i..i + 4];
        let before_ok = i == 0 || !bytes[i - 1].is_ascii_digit();
        let after_ok = bytes.get(i + 4).is_none_or(|b| !b.is_ascii_digit());
        (window.iter().all(u8::is_ascii_digit)
            && before_ok
            && after_ok
            && (window[0] == b'1' || window[0] == b'2'))
            .then(|| std::str::from_utf8(window).ok()?.parse().ok())
            .flatten()
    })
}

/// `ru-RU` → `ru`.
fn primary_subtag(tag: &str) -> Option<String> {
    let primary = tag.trim().split(['-', '_']).next()?.to_ascii_lowercase();
    (!primary.is_empty() && primary.chars().all(|c| c.is_ascii_alphabetic())).then_some(primary)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(html: &str) -> ExtractedPage {
        extract(html, &Url::parse("https://lib.org/post/5/").unwrap())
    }

    #[test]
    fn citation_tags_win_over_the_title() {
        let p = page(
            r#"<html lang="ru-RU"><head><title>Portal — Article</title>
            <meta name="citation_title" content="  Нечёткие   дубликаты ">
            <meta name="citation_author" content="Ильинский С.">
            <meta name="citation_author" content="Кузьмин М.">
            <meta name="CITATION_DOI" content="10.1000/xyz">
            <meta name="citation_pdf_url" content="/files/5.pdf">
            <meta name="citation_publication_date" content="2002/03/14">
            </head><body><p>x</p></body></html>"#,
        );
        assert_eq!(p.title.as_deref(), Some("Нечёткие дубликаты"));
        assert_eq!(p.authors, ["Ильинский С.", "Кузьмин М."]);
        assert_eq!(p.doi.as_deref(), Some("10.1000/xyz"));
        assert_eq!(p.pdf_url.as_deref(), Some("https://lib.org/files/5.pdf"));
        assert_eq!(p.year, Some(2002));
        assert_eq!(p.lang.as_deref(), Some("ru"));
        assert!(p.has_citation_meta);
    }

    #[test]
    fn without_article_or_main_the_densest_block_is_taken() {
        let p = page(
            r#"<html><head><title>Paper title</title></head><body>
            <div class="menu"><p>Home About Contacts and other menu entries of the portal here</p></div>
            <div id="content">
              <p>First paragraph of the real article text with enough words in it.</p>
              <p>Second paragraph of the real article continues the argument further.</p>
            </div>
            <div id="comments"><p>A reader comment that is long enough to count as text.</p></div>
            <div class="footer-links"><p>Footer paragraph with copyright and many words too.</p></div>
            <script>var tracking = "script text";</script>
            </body></html>"#,
        );
        assert_eq!(p.title.as_deref(), Some("Paper title"));
        assert_eq!(
            p.text,
            "First paragraph of the real article text with enough words in it.\n\
             Second paragraph of the real article continues the argument further."
        );
    }

    #[test]
    fn article_element_without_its_comments_and_asides() {
        let p = page(
            r#"<body><header>Site header words</header><article>
              <h1>Heading</h1><p>Body one two three four five six seven eight nine ten.</p>
              <aside>Related reading</aside>
              <section class="comments"><p>comment text</p></section>
            </article><footer>Footer</footer></body>"#,
        );
        assert_eq!(
            p.text,
            "Heading\nBody one two three four five six seven eight nine ten."
        );
    }

    #[test]
    fn links_are_absolute_deduplicated_and_http_only() {
        let p = page(
            r##"<head><base href="https://lib.org/base/"></head><body>
            <a href="a">A</a><a href="a#frag">A again</a><a href="/b?x=1">B</a>
            <a href="mailto:x@y.org">mail</a><a href="javascript:void(0)">js</a><a href="#top">top</a>
            <a href="https://other.org/c">C</a></body>"##,
        );
        let links: Vec<&str> = p.links.iter().map(Url::as_str).collect();
        assert_eq!(
            links,
            [
                "https://lib.org/base/a",
                "https://lib.org/b?x=1",
                "https://other.org/c"
            ]
        );
    }

    #[test]
    fn years_and_language_tags() {
        assert_eq!(year_of("2019-05-01"), Some(2019));
        assert_eq!(year_of("May 1999"), Some(1999));
        assert_eq!(year_of("12345"), None);
        assert_eq!(primary_subtag("en_US").as_deref(), Some("en"));
        assert_eq!(primary_subtag("x1"), None);
    }
}
