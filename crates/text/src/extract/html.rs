//! HTML and XHTML files, read as the crawler reads article pages (`read_page`): the article
//! body without navigation, scripts or footers; `citation_*` meta tags give title and authors.

use url::Url;

use super::document::{DocumentBuilder, ExtractedDocument};
use super::{BlockKind, ExtractError, Format};

pub(super) fn read(html: &str) -> Result<ExtractedDocument, ExtractError> {
    // Line breaks in HTML source are collapsible white space; the article text keeps one line per
    // paragraph only when the source's own wrapping is gone.
    let html = html.replace(['\r', '\n'], " ");
    let base = Url::parse("file:///document.html").expect("a valid URL");
    let page = super::read_page(&html, &base)
        .map_err(|e| ExtractError::unreadable(Format::Html, e.to_string()))?;
    let mut builder = DocumentBuilder::new(Format::Html);
    builder.title(page.title);
    for author in &page.authors {
        builder.author(author);
    }
    for paragraph in page.text.lines() {
        builder.push(BlockKind::Paragraph, paragraph, None);
    }
    Ok(builder.finish())
}
