//! From an HTML page to an article and the page's links. Scientific sites carry Highwire
//! `citation_*` meta tags (Google Scholar's inclusion rules); they are preferred. The text is the
//! article body: the `<article>` element, else `<main>`, else the block whose paragraphs hold
//! the most text (a small readability score), never navigation, comments, footers, forms or
//! scripts.
//!
//! Extraction is linear in the page's size however deeply its elements nest: facts about every
//! element (inside page furniture or not, text and link-text lengths) are gathered in one
//! iterative pass, and text is collected without recursion, so that deep nesting can overflow
//! no thread's stack. The HTML parser itself spends time quadratic in the nesting depth (its
//! scope checks walk the stack of open elements), so a page nesting elements deeper than
//! [`MAX_NESTING`] is refused by a linear scan before it is parsed ([`PageError::TooDeep`]).
//!
//! ```
//! use dupfinder_text::extract::read_page;
//! let html = r#"<html lang="en"><head><title>Site | A paper</title>
//!   <meta name="citation_title" content="On signatures">
//!   <meta name="citation_author" content="Ilyinsky, S."></head>
//!   <body><nav><a href="/list?page=2">next</a></nav>
//!   <article><p>Signatures of documents find fuzzy duplicates in large collections.</p></article>
//!   <footer>Copyright</footer></body></html>"#;
//! let page = read_page(html, &url::Url::parse("https://j.org/post/1").unwrap()).unwrap();
//! assert_eq!(page.title.as_deref(), Some("On signatures"));
//! assert_eq!(page.authors, ["Ilyinsky, S."]);
//! assert_eq!(page.text, "Signatures of documents find fuzzy duplicates in large collections.");
//! assert_eq!(page.lang.as_deref(), Some("en"));
//! assert_eq!(page.links[0].as_str(), "https://j.org/list?page=2");
//! ```

use std::collections::{HashMap, HashSet};

use ego_tree::{NodeId, NodeRef};
use scraper::{ElementRef, Html, Node, Selector};
use url::Url;

use super::normalize_doi;

/// A URL with its fragment removed and an empty query dropped, so that one page has one URL;
/// `None` for a URL that is not http(s) or has no host.
pub fn normalize_url(mut url: Url) -> Option<Url> {
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return None;
    }
    url.set_fragment(None);
    if url.query() == Some("") {
        url.set_query(None);
    }
    Some(url)
}

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

/// The deepest element nesting a page may have. Real article pages nest a few dozen levels;
/// at this depth parsing still takes milliseconds, at 100,000 it takes most of a minute.
pub(crate) const MAX_NESTING: usize = 2_000;

/// Why a page was not parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PageError {
    #[error("elements nest deeper than {limit} levels")]
    TooDeep { limit: usize },
}

impl PageError {
    /// The stable code of this failure, as recorded for the page.
    pub fn code(&self) -> dupfinder_common::error_code::ErrorCode {
        match self {
            PageError::TooDeep { .. } => dupfinder_common::error_code::ErrorCode::TooDeep,
        }
    }
}

/// Extracts the article and the links of an HTML page fetched from `page_url`.
pub fn read_page(html: &str, page_url: &Url) -> Result<ExtractedPage, PageError> {
    if nesting_exceeds(html, MAX_NESTING) {
        return Err(PageError::TooDeep { limit: MAX_NESTING });
    }
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
        .or_else(|| full_text_link(&document, &base))
        .map(|u| u.to_string());
    let has_citation_meta = meta.keys().any(|k| k.starts_with("citation_"));

    let mut text = article_text(&document);
    if let Some(abstract_text) = first(&["citation_abstract", "dc.description"])
        && abstract_text.len() > text.len()
    {
        text = abstract_text;
    }

    Ok(ExtractedPage {
        title,
        authors,
        doi: [
            "citation_doi",
            "dc.identifier.doi",
            "prism.doi",
            "dc.identifier",
        ]
        .iter()
        .filter_map(|name| meta.get(*name))
        .flatten()
        .find_map(|value| normalize_doi(value)),
        pdf_url,
        published,
        year,
        lang,
        has_citation_meta,
        text,
        links: links(&document, &base),
    })
}

/// The media types of the full-text files the crawler reads.
const FULL_TEXT_TYPES: &[&str] = &[
    "application/pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "application/vnd.oasis.opendocument.text",
];

/// The file endings of full-text links that carry no type.
const FULL_TEXT_ENDINGS: &[&str] = &[".pdf", ".docx", ".odt"];

/// The article's full text when the page has no `citation_pdf_url`: the first link whose
/// `type` is a PDF, DOCX or ODT media type, else the first whose path ends in `.pdf`, `.docx`
/// or `.odt`.
fn full_text_link(document: &Html, base: &Url) -> Option<Url> {
    let anchors = selector("a[href]");
    let resolve = |element: ElementRef| base.join(element.attr("href")?.trim()).ok();
    let typed = document.select(&anchors).find(|element| {
        element.attr("type").is_some_and(|t| {
            let essence = t.split(';').next().unwrap_or_default().trim();
            FULL_TEXT_TYPES
                .iter()
                .any(|known| known.eq_ignore_ascii_case(essence))
        })
    });
    typed.and_then(resolve).or_else(|| {
        document.select(&anchors).filter_map(resolve).find(|url| {
            let path = url.path().to_ascii_lowercase();
            FULL_TEXT_ENDINGS
                .iter()
                .any(|ending| path.ends_with(ending))
        })
    })
}

/// Elements that never hold others open: void elements, and those whose end tag the parser
/// implies when a sibling starts.
const NON_NESTING: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr", "p", "li", "dt", "dd", "option", "optgroup", "tr", "td", "th", "thead",
    "tbody", "tfoot", "rt", "rp", "caption", "colgroup",
];

/// Elements whose content is text up to their end tag.
const RAW_TEXT: &[&str] = &[
    "script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes",
];

/// Whether the elements of `html` nest deeper than `limit`, by one linear scan of its tags (an
/// approximation of the parser's stack of open elements: comments and raw text are skipped,
/// unmatched end tags never go below zero).
pub(crate) fn nesting_exceeds(html: &str, limit: usize) -> bool {
    let bytes = html.as_bytes();
    let find = |from: usize, needle: &[u8]| -> usize {
        (from..bytes.len())
            .find(|&i| {
                bytes[i..].len() >= needle.len()
                    && bytes[i..i + needle.len()].eq_ignore_ascii_case(needle)
            })
            .unwrap_or(bytes.len())
    };
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(offset) = bytes[i..].iter().position(|&b| b == b'<') {
        let start = i + offset + 1;
        let rest = &bytes[start..];
        if rest.starts_with(b"!--") {
            i = find(start, b"-->");
            continue;
        }
        let closing = rest.first() == Some(&b'/');
        let name_start = start + usize::from(closing);
        let name_end = (name_start..bytes.len())
            .find(|&j| !(bytes[j].is_ascii_alphanumeric() || bytes[j] == b'-' || bytes[j] == b':'))
            .unwrap_or(bytes.len());
        let name = html[name_start..name_end].to_ascii_lowercase();
        // The end of the tag, past quoted attribute values.
        let mut j = name_end;
        let mut quote = None;
        while j < bytes.len() {
            match (quote, bytes[j]) {
                (None, b'>') => break,
                (None, q @ (b'"' | b'\'')) => quote = Some(q),
                (Some(q), b) if b == q => quote = None,
                _ => {}
            }
            j += 1;
        }
        i = j;
        if name.is_empty() || !name.as_bytes()[0].is_ascii_alphabetic() {
            continue;
        }
        if closing {
            depth = depth.saturating_sub(1);
        } else if RAW_TEXT.contains(&name.as_str()) {
            i = find(j, format!("</{name}").as_bytes());
        } else if !NON_NESTING.contains(&name.as_str()) {
            depth += 1;
            if depth > limit {
                return true;
            }
        }
    }
    false
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
        let Some(url) = base.join(href).ok().and_then(normalize_url) else {
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

/// What extraction needs to know about every element, gathered in one pass.
struct PageFacts {
    /// Elements with an ancestor that is page furniture.
    inside_furniture: HashSet<NodeId>,
    /// Bytes of text under each element, and of the text of links under it.
    text_bytes: HashMap<NodeId, usize>,
    link_bytes: HashMap<NodeId, usize>,
}

impl PageFacts {
    fn gather(document: &Html) -> PageFacts {
        let mut inside_furniture = HashSet::new();
        let mut text_bytes: HashMap<NodeId, usize> = HashMap::new();
        let mut link_bytes: HashMap<NodeId, usize> = HashMap::new();
        // Pre-order, so that every element comes after its ancestors.
        let mut elements = Vec::new();
        let mut stack = vec![(document.tree.root(), false)];
        while let Some((node, inside)) = stack.pop() {
            let mut furniture = inside;
            if let Some(element) = ElementRef::wrap(node) {
                if inside {
                    inside_furniture.insert(node.id());
                }
                furniture = inside || is_boilerplate(&element);
                elements.push(element);
            } else if let (Node::Text(text), Some(parent)) = (node.value(), node.parent()) {
                *text_bytes.entry(parent.id()).or_default() += text.len();
            }
            stack.extend(node.children().map(|child| (child, furniture)));
        }
        // Backwards, every element is done before its parent: sums flow upwards.
        for element in elements.iter().rev() {
            let id = element.id();
            let text = text_bytes.get(&id).copied().unwrap_or(0);
            let links = if element.value().name() == "a" {
                text
            } else {
                link_bytes.get(&id).copied().unwrap_or(0)
            };
            link_bytes.insert(id, links);
            if let Some(parent) = element.parent() {
                *text_bytes.entry(parent.id()).or_default() += text;
                *link_bytes.entry(parent.id()).or_default() += links;
            }
        }
        PageFacts {
            inside_furniture,
            text_bytes,
            link_bytes,
        }
    }

    fn is_furniture(&self, element: &ElementRef) -> bool {
        is_boilerplate(element) || self.inside_furniture.contains(&element.id())
    }
}

/// The elements matching `selector` that have no matching ancestor. An outer match holds the
/// text of the matches inside it, so only outer ones need their text collected.
fn outermost<'a>(document: &'a Html, selector: &Selector) -> Vec<ElementRef<'a>> {
    let matched: HashSet<NodeId> = document.select(selector).map(|e| e.id()).collect();
    let mut out = Vec::new();
    let mut stack = vec![document.tree.root()];
    while let Some(node) = stack.pop() {
        if matched.contains(&node.id())
            && let Some(element) = ElementRef::wrap(node)
        {
            out.push(element);
            continue;
        }
        stack.extend(node.children().rev());
    }
    out
}

/// The article body of the page.
fn article_text(document: &Html) -> String {
    let facts = PageFacts::gather(document);
    let body = document
        .select(&selector("body"))
        .next()
        .unwrap_or_else(|| document.root_element());
    let longest = |css: &str| -> Option<(ElementRef, String)> {
        outermost(document, &selector(css))
            .into_iter()
            .filter(|e| !facts.is_furniture(e))
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
    match densest_block(document, &facts) {
        Some(block) => block_text(block),
        None => block_text(body),
    }
}

/// The element whose paragraphs hold the most text that is not link text: every paragraph
/// scores its parent fully and its grandparent by half.
fn densest_block<'a>(document: &'a Html, facts: &PageFacts) -> Option<ElementRef<'a>> {
    let mut scores = HashMap::new();
    let mut elements = HashMap::new();
    for paragraph in document.select(&selector("p, pre, blockquote, td, dd")) {
        if facts.inside_furniture.contains(&paragraph.id()) {
            continue;
        }
        let length = facts.text_bytes.get(&paragraph.id()).copied().unwrap_or(0);
        if length < 25 {
            continue;
        }
        let link_length = facts.link_bytes.get(&paragraph.id()).copied().unwrap_or(0);
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

/// Appends the text under `element` in document order, with an explicit stack instead of
/// recursion (pages may nest elements a hundred thousand deep).
fn collect_text(element: ElementRef, out: &mut String) {
    enum Step<'a> {
        Visit(NodeRef<'a, Node>),
        /// After an element's children: what separates it from what follows.
        Close(Option<char>),
    }
    let mut stack: Vec<Step> = element.children().rev().map(Step::Visit).collect();
    while let Some(step) = stack.pop() {
        let node = match step {
            Step::Close(separator) => {
                out.extend(separator);
                continue;
            }
            Step::Visit(node) => node,
        };
        match node.value() {
            Node::Text(text) => out.push_str(text),
            Node::Element(_) => {
                let Some(child) = ElementRef::wrap(node) else {
                    continue;
                };
                if is_boilerplate(&child) {
                    continue;
                }
                let name = child.value().name();
                let block = BLOCK_ELEMENTS.contains(&name);
                if block {
                    out.push('\n');
                }
                let separator = if block {
                    Some('\n')
                } else if matches!(name, "td" | "th" | "span" | "a") {
                    Some(' ')
                } else {
                    None
                };
                stack.push(Step::Close(separator));
                stack.extend(node.children().rev().map(Step::Visit));
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

    #[test]
    fn nesting_is_measured_on_tags_outside_comments_and_scripts() {
        let nested =
            |n: usize| format!("{}x{}", "<div class=\"a>b\">".repeat(n), "</div>".repeat(n));
        assert!(!nesting_exceeds(&nested(10), 10));
        assert!(nesting_exceeds(&nested(11), 10));
        // Siblings, paragraphs and void elements do not nest.
        assert!(!nesting_exceeds(
            &"<div></div><p><li><br><img>".repeat(100),
            10
        ));
        // Tags inside comments, scripts and styles are text.
        let hidden = format!(
            "<!-- {} --><script>var s = '{}';</script><STYLE>{}</style>",
            "<div>".repeat(50),
            "<div>".repeat(50),
            "<div>".repeat(50)
        );
        assert!(!nesting_exceeds(&hidden, 10));
        // Unmatched end tags do not make room for more.
        let unbalanced = format!("{}{}", "</div>".repeat(50), "<div>".repeat(11));
        assert!(nesting_exceeds(&unbalanced, 10));
    }

    #[test]
    fn a_page_nested_too_deep_is_refused_before_parsing() {
        let html = format!(
            "{}text{}",
            "<div>".repeat(100_000),
            "</div>".repeat(100_000)
        );
        let started = std::time::Instant::now();
        let refused = read_page(&html, &Url::parse("https://j.org/").unwrap());
        assert_eq!(refused, Err(PageError::TooDeep { limit: MAX_NESTING }));
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn deep_but_allowed_nesting_is_extracted_without_recursion() {
        // Within the limit, on a thread with a small stack: no recursion over the depth.
        let depth = MAX_NESTING - 10;
        let html = format!(
            "<html><body>{}<p>Deeply nested text of an article that has more than ten words in it.</p>{}</body></html>",
            "<blockquote>".repeat(depth),
            "</blockquote>".repeat(depth)
        );
        let page = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || read_page(&html, &Url::parse("https://j.org/").unwrap()))
            .unwrap()
            .join()
            .unwrap()
            .unwrap();
        assert!(page.text.contains("Deeply nested text"), "{page:?}");
    }

    fn page(html: &str) -> ExtractedPage {
        read_page(html, &Url::parse("https://lib.org/post/5/").unwrap()).unwrap()
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
    fn a_typed_or_named_document_link_is_the_full_text_without_citation_pdf_url() {
        let p = page(
            r#"<html><head><meta name="DC.identifier" content="https://doi.org/10.1234/abc.5">
            </head><body><article><p>Text.</p>
            <a href="/files/5.bin" type="application/pdf">PDF</a>
            <a href="/files/5.docx">Word</a></article></body></html>"#,
        );
        assert_eq!(p.pdf_url.as_deref(), Some("https://lib.org/files/5.bin"));
        assert_eq!(p.doi.as_deref(), Some("10.1234/abc.5"));
        let p = page(r#"<html><body><p>Text.</p><a href="paper.ODT">full text</a></body></html>"#);
        assert!(p.pdf_url.unwrap().ends_with("/paper.ODT"));
        let p = page(r#"<html><body><p>Text.</p><a href="/about">about</a></body></html>"#);
        assert_eq!(p.pdf_url, None);
        let p = page(
            r#"<html><head><meta name="prism.doi" content="DOI: 10.5555/ABC">
            <meta name="DC.identifier" content="urn:isbn:10.5/x"></head>
            <body><p>Text.</p></body></html>"#,
        );
        assert_eq!(p.doi.as_deref(), Some("10.5555/abc"));
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
