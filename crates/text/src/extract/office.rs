//! DOCX and ODT: ZIP containers of XML (EPUB shares the container, see `epub`). Every entry is unpacked under one budget of
//! decompressed bytes (`[extract] max_decompressed_bytes`), counted as the bytes come out of
//! the decompressor, so a zip bomb is refused after reading no more than the budget whatever
//! sizes its directory claims.

use std::io::{Cursor, Read};

use roxmltree::{Document, Node};

use super::document::{DocumentBuilder, ExtractedDocument};
use super::{BlockKind, ExtractError, ExtractLimits, Format};

/// A ZIP container read under a budget of decompressed bytes.
pub(super) struct Container<'a> {
    archive: zip::ZipArchive<Cursor<&'a [u8]>>,
    format: Format,
    remaining: u64,
    limit: u64,
}

impl<'a> Container<'a> {
    pub(super) fn open(
        bytes: &'a [u8],
        format: Format,
        limits: &ExtractLimits,
    ) -> Result<Self, ExtractError> {
        let archive = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| {
            ExtractError::unreadable(format, format!("a damaged ZIP container ({e})"))
        })?;
        Ok(Container {
            archive,
            format,
            remaining: limits.max_decompressed_bytes,
            limit: limits.max_decompressed_bytes,
        })
    }

    /// The entry `name` as UTF-8 text, or `None` when the container has no such entry.
    pub(super) fn text(&mut self, name: &str) -> Result<Option<String>, ExtractError> {
        let format = self.format;
        let mut entry = match self.archive.by_name(name) {
            Ok(entry) => entry,
            Err(zip::result::ZipError::FileNotFound) => return Ok(None),
            Err(e) => {
                return Err(ExtractError::unreadable(
                    format,
                    format!("the entry {name} cannot be read ({e})"),
                ));
            }
        };
        let mut bytes = Vec::new();
        (&mut entry)
            .take(self.remaining + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| {
                ExtractError::unreadable(format, format!("the entry {name} is damaged ({e})"))
            })?;
        if bytes.len() as u64 > self.remaining {
            return Err(ExtractError::TooLarge {
                format,
                limit: self.limit,
            });
        }
        self.remaining -= bytes.len() as u64;
        String::from_utf8(bytes).map(Some).map_err(|_| {
            ExtractError::unreadable(format, format!("the entry {name} is not UTF-8 XML"))
        })
    }

    pub(super) fn required(&mut self, name: &str) -> Result<String, ExtractError> {
        let format = self.format;
        self.text(name)?
            .ok_or_else(|| ExtractError::unreadable(format, format!("the container has no {name}")))
    }
}

pub(super) fn parse_xml<'x>(
    xml: &'x str,
    format: Format,
    name: &str,
) -> Result<Document<'x>, ExtractError> {
    Document::parse(xml).map_err(|e| {
        ExtractError::unreadable(format, format!("{name} is not well-formed XML ({e})"))
    })
}

/// Title and authors from `docProps/core.xml` (DOCX) or `meta.xml` (ODT): Dublin Core
/// `title` and `creator`, and ODF's `initial-creator`.
fn read_metadata(xml: Option<String>, builder: &mut DocumentBuilder) {
    let Some(xml) = xml else { return };
    let Ok(document) = Document::parse(&xml) else {
        return;
    };
    for node in document.descendants().filter(Node::is_element) {
        let text = node.text().unwrap_or_default();
        match node.tag_name().name() {
            "title" => builder.title(Some(text.to_string())),
            "creator" | "initial-creator" => builder.author(text),
            _ => {}
        }
    }
}

/// The text inside a paragraph element, in document order: text runs, tabs and breaks as
/// spaces; deleted revisions, field codes and notes left out.
fn paragraph_text(paragraph: Node, out: &mut String) {
    for node in paragraph.descendants() {
        if node.is_text() {
            // WordprocessingML keeps text in `w:t` only (text elsewhere is layout whitespace);
            // ODF writes it straight into paragraphs, headings, spans and links.
            let keep = node.parent_element().is_some_and(|parent| {
                let name = parent.tag_name().name();
                if is_odf(parent) {
                    matches!(name, "p" | "h" | "span" | "a")
                } else {
                    name == "t"
                }
            });
            if keep && !in_skipped(node, paragraph) {
                out.push_str(node.text().unwrap_or_default());
            }
            continue;
        }
        match node.tag_name().name() {
            "tab" | "br" | "cr" | "line-break" => out.push(' '),
            // ODF writes runs of spaces as `<text:s text:c="3"/>`.
            "s" if is_odf(node) => {
                let count: usize = node
                    .attributes()
                    .find(|a| a.name() == "c")
                    .and_then(|a| a.value().parse().ok())
                    .unwrap_or(1);
                out.extend(std::iter::repeat_n(' ', count.min(64)));
            }
            _ => {}
        }
    }
}

fn is_odf(node: Node) -> bool {
    node.tag_name()
        .namespace()
        .is_some_and(|ns| ns.contains("opendocument"))
}

/// Whether a text node lies inside an element whose text is not the paragraph's: deleted
/// revisions, field instructions, footnotes and endnotes.
fn in_skipped(node: Node, paragraph: Node) -> bool {
    node.ancestors().take_while(|a| *a != paragraph).any(|a| {
        matches!(
            a.tag_name().name(),
            "delText" | "instrText" | "note" | "tracked-changes" | "annotation"
        )
    })
}

/// Reads a DOCX file: `word/document.xml`'s paragraphs, headings from their styles.
pub(super) fn read_docx(
    bytes: &[u8],
    limits: &ExtractLimits,
) -> Result<ExtractedDocument, ExtractError> {
    let mut container = Container::open(bytes, Format::Docx, limits)?;
    let xml = container.required("word/document.xml")?;
    let mut builder = DocumentBuilder::new(Format::Docx);
    read_metadata(container.text("docProps/core.xml")?, &mut builder);
    let document = parse_xml(&xml, Format::Docx, "word/document.xml")?;
    let body = document
        .descendants()
        .find(|n| n.tag_name().name() == "body")
        .ok_or_else(|| ExtractError::unreadable(Format::Docx, "word/document.xml has no body"))?;
    for paragraph in top_level(body, "p") {
        let mut text = String::new();
        paragraph_text(paragraph, &mut text);
        builder.push(docx_kind(paragraph), &text, None);
    }
    Ok(builder.finish())
}

/// The kind of a DOCX paragraph, from its style name (`Title`, `Heading1`, `Quote`…).
fn docx_kind(paragraph: Node) -> BlockKind {
    let style = paragraph
        .descendants()
        .find(|n| n.tag_name().name() == "pStyle")
        .and_then(|n| n.attributes().find(|a| a.name() == "val"))
        .map(|a| a.value().to_ascii_lowercase().replace(' ', ""))
        .unwrap_or_default();
    style_kind(&style)
}

fn style_kind(style: &str) -> BlockKind {
    if style == "title" {
        BlockKind::Title
    } else if style.starts_with("heading") {
        BlockKind::Heading
    } else if style.contains("quote") {
        BlockKind::Quote
    } else if style.contains("abstract") {
        BlockKind::Abstract
    } else {
        BlockKind::Paragraph
    }
}

/// Reads an ODT file: `content.xml`'s headings and paragraphs (inside lists and tables too).
pub(super) fn read_odt(
    bytes: &[u8],
    limits: &ExtractLimits,
) -> Result<ExtractedDocument, ExtractError> {
    let mut container = Container::open(bytes, Format::Odt, limits)?;
    let xml = container.required("content.xml")?;
    let mut builder = DocumentBuilder::new(Format::Odt);
    read_metadata(container.text("meta.xml")?, &mut builder);
    let document = parse_xml(&xml, Format::Odt, "content.xml")?;
    let body = document
        .descendants()
        .find(|n| {
            n.tag_name().name() == "text"
                && n.parent_element()
                    .is_some_and(|p| p.tag_name().name() == "body")
        })
        .ok_or_else(|| ExtractError::unreadable(Format::Odt, "content.xml has no office:text"))?;
    for block in body.descendants().filter(|n| {
        matches!(n.tag_name().name(), "p" | "h")
            && !n
                .ancestors()
                .skip(1)
                .any(|a| matches!(a.tag_name().name(), "p" | "h"))
    }) {
        let mut text = String::new();
        paragraph_text(block, &mut text);
        let kind = if block.tag_name().name() == "h" {
            BlockKind::Heading
        } else {
            let style = block
                .attributes()
                .find(|a| a.name() == "style-name")
                .map(|a| a.value().to_ascii_lowercase())
                .unwrap_or_default();
            style_kind(&style)
        };
        builder.push(kind, &text, None);
    }
    Ok(builder.finish())
}

/// The elements called `name` under `root` that are not inside another such element.
fn top_level<'a, 'x>(root: Node<'a, 'x>, name: &'static str) -> impl Iterator<Item = Node<'a, 'x>> {
    root.descendants().filter(move |n| {
        n.tag_name().name() == name && !n.ancestors().skip(1).any(|a| a.tag_name().name() == name)
    })
}
