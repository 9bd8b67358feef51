//! Scholarly XML: JATS (PubMed Central, PLOS and most journal platforms) and TEI (GROBID's
//! output, text editions). The tags say what each block is; they are kept as separate blocks:
//! the article title, abstract paragraphs, section headings, body paragraphs, quotations and
//! each reference of the reference list. Front matter other than the title and the abstract
//! (affiliations, author notes, permissions) is metadata, not text, and left out.

use roxmltree::{Document, Node, ParsingOptions};

use super::document::{DocumentBuilder, ExtractedDocument};
use super::{BlockKind, ExtractError, Format};

/// Elements nest no deeper than this in a real article; deeper nesting is refused before
/// parsing so that no walk over the tree can be made quadratic.
const MAX_NESTING: usize = 500;

/// Reads a JATS article.
pub(super) fn read_jats(xml: &str) -> Result<ExtractedDocument, ExtractError> {
    read(xml, Format::Jats, jats_kind, jats_skipped)
}

/// Reads a TEI document.
pub(super) fn read_tei(xml: &str) -> Result<ExtractedDocument, ExtractError> {
    read(xml, Format::Tei, tei_kind, tei_skipped)
}

fn read(
    xml: &str,
    format: Format,
    kind_of: fn(Node) -> Option<BlockKind>,
    skipped: fn(Node) -> bool,
) -> Result<ExtractedDocument, ExtractError> {
    if let Some(depth) = nesting_beyond(xml, MAX_NESTING) {
        return Err(ExtractError::unreadable(
            format,
            format!("elements nest deeper than {depth} levels"),
        ));
    }
    let options = ParsingOptions {
        allow_dtd: true,
        ..ParsingOptions::default()
    };
    let document = Document::parse_with_options(xml, options)
        .map_err(|e| ExtractError::unreadable(format, format!("not well-formed XML ({e})")))?;
    let mut builder = DocumentBuilder::new(format);
    for node in document.descendants().filter(Node::is_element) {
        if is_author_name(node, format) {
            builder.author(&author_name(node));
        }
        let Some(kind) = kind_of(node) else { continue };
        // A block inside another block (a paragraph in a list item inside a paragraph, a
        // paragraph of a reference) is part of the outer one.
        if node
            .ancestors()
            .skip(1)
            .any(|a| a.is_element() && kind_of(a).is_some())
        {
            continue;
        }
        if node.ancestors().any(skipped) {
            continue;
        }
        let text: String = node
            .descendants()
            .filter(|n| n.is_text())
            .filter(|n| !n.ancestors().take_while(|a| *a != node).any(skipped))
            .filter_map(|n| n.text())
            .collect();
        if kind == BlockKind::Title && builder_has_title(&builder) {
            builder.push(BlockKind::Heading, &text, None);
        } else {
            builder.push(kind, &text, None);
        }
    }
    Ok(builder.finish())
}

fn builder_has_title(builder: &DocumentBuilder) -> bool {
    builder.has_block(BlockKind::Title)
}

fn jats_kind(node: Node) -> Option<BlockKind> {
    let parent = node
        .parent_element()
        .map(|p| p.tag_name().name())
        .unwrap_or_default();
    match node.tag_name().name() {
        "article-title" if parent == "title-group" => Some(BlockKind::Title),
        "title" => Some(BlockKind::Heading),
        "p" if node.ancestors().any(|a| a.tag_name().name() == "abstract") => {
            Some(BlockKind::Abstract)
        }
        "p" if node
            .ancestors()
            .any(|a| a.tag_name().name() == "disp-quote") =>
        {
            Some(BlockKind::Quote)
        }
        "p" => Some(BlockKind::Paragraph),
        "ref" => Some(BlockKind::Reference),
        _ => None,
    }
}

/// Front matter other than the title group and the abstract; translated titles and abstracts
/// of other languages are kept.
fn jats_skipped(node: Node) -> bool {
    let name = node.tag_name().name();
    let in_front = node
        .ancestors()
        .any(|a| matches!(a.tag_name().name(), "front" | "front-stub"));
    if !in_front {
        return matches!(name, "table-wrap-foot" | "object-id" | "processing-meta");
    }
    matches!(
        name,
        "journal-meta"
            | "contrib-group"
            | "aff"
            | "author-notes"
            | "pub-date"
            | "history"
            | "permissions"
            | "kwd-group"
            | "funding-group"
            | "counts"
            | "custom-meta-group"
            | "article-categories"
            | "related-article"
            | "self-uri"
            | "article-id"
    )
}

fn tei_kind(node: Node) -> Option<BlockKind> {
    let in_header = node.ancestors().any(|a| a.tag_name().name() == "teiHeader");
    let in_abstract = node.ancestors().any(|a| a.tag_name().name() == "abstract")
        || node
            .ancestors()
            .any(|a| a.tag_name().name() == "div" && a.attribute("type") == Some("abstract"));
    match node.tag_name().name() {
        "title" if in_header => node
            .ancestors()
            .any(|a| a.tag_name().name() == "titleStmt")
            .then_some(BlockKind::Title),
        "head" if !in_header => Some(BlockKind::Heading),
        "p" if in_abstract => Some(BlockKind::Abstract),
        "p" if in_header => None,
        "quote" => Some(BlockKind::Quote),
        "p" => Some(BlockKind::Paragraph),
        "biblStruct" | "bibl" if !in_header => Some(BlockKind::Reference),
        _ => None,
    }
}

fn tei_skipped(node: Node) -> bool {
    matches!(
        node.tag_name().name(),
        "publicationStmt" | "sourceDesc" | "encodingDesc" | "revisionDesc" | "note" | "figDesc"
    ) && node.ancestors().any(|a| a.tag_name().name() == "teiHeader")
}

/// Authors of the article (JATS `contrib[@contrib-type=author]/name`, TEI `author/persName`).
fn is_author_name(node: Node, format: Format) -> bool {
    match format {
        Format::Jats => {
            node.tag_name().name() == "name"
                && node.ancestors().any(|a| {
                    a.tag_name().name() == "contrib"
                        && a.attribute("contrib-type") == Some("author")
                })
                && node
                    .ancestors()
                    .any(|a| a.tag_name().name() == "article-meta")
        }
        Format::Tei => {
            node.tag_name().name() == "persName"
                && node
                    .parent_element()
                    .is_some_and(|p| p.tag_name().name() == "author")
                && node.ancestors().any(|a| {
                    a.tag_name().name() == "titleStmt" || a.tag_name().name() == "analytic"
                })
        }
        _ => false,
    }
}

/// «Surname, Given names», from the name's parts.
fn author_name(node: Node) -> String {
    let part = |names: &[&str]| -> String {
        node.children()
            .filter(|c| names.contains(&c.tag_name().name()))
            .flat_map(|c| {
                c.descendants()
                    .filter(|d| d.is_text())
                    .filter_map(|d| d.text())
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let surname = part(&["surname"]);
    let given = part(&["given-names", "forename"]);
    match (surname.trim(), given.trim()) {
        ("", "") => node
            .descendants()
            .filter(|d| d.is_text())
            .filter_map(|d| d.text())
            .collect(),
        (s, "") => s.to_string(),
        ("", g) => g.to_string(),
        (s, g) => format!("{s}, {g}"),
    }
}

/// The nesting depth past `limit` (by a linear scan of tags), if the markup goes deeper.
fn nesting_beyond(xml: &str, limit: usize) -> Option<usize> {
    let bytes = xml.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(offset) = bytes[i..].iter().position(|&b| b == b'<') {
        let at = i + offset;
        let next = bytes.get(at + 1).copied().unwrap_or_default();
        let end = bytes[at..].iter().position(|&b| b == b'>').map(|e| at + e);
        match next {
            b'/' => depth = depth.saturating_sub(1),
            b'!' | b'?' => {}
            _ => {
                let self_closing = end.is_some_and(|e| e > at && bytes[e - 1] == b'/');
                if !self_closing {
                    depth += 1;
                    if depth > limit {
                        return Some(limit);
                    }
                }
            }
        }
        i = end.map_or(bytes.len(), |e| e + 1);
        if i >= bytes.len() {
            break;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const JATS: &str = r#"<?xml version="1.0"?>
<!DOCTYPE article PUBLIC "-//NLM//DTD JATS (Z39.96) Journal Publishing DTD v1.1 20151215//EN" "JATS-journalpublishing1.dtd">
<article><front><journal-meta><journal-title-group><journal-title>PLoS ONE</journal-title></journal-title-group></journal-meta>
<article-meta><title-group><article-title>Signatures of <italic>documents</italic></article-title></title-group>
<contrib-group><contrib contrib-type="author"><name><surname>Ilyinsky</surname><given-names>S.</given-names></name></contrib></contrib-group>
<aff>Moscow State University</aff>
<abstract><p>We find fuzzy duplicates.</p></abstract></article-meta></front>
<body><sec><title>Introduction</title><p>Copies are common [<xref ref-type="bibr">1</xref>].</p>
<disp-quote><p>A quoted sentence.</p></disp-quote></sec></body>
<back><ref-list><title>References</title><ref><mixed-citation>Broder A. Resemblance. 1997.</mixed-citation></ref></ref-list></back></article>"#;

    #[test]
    fn jats_blocks_keep_their_roles() {
        let document = read_jats(JATS).unwrap();
        let blocks: Vec<(BlockKind, &str)> = document
            .blocks
            .iter()
            .map(|b| (b.kind, b.text.as_str()))
            .collect();
        assert_eq!(
            blocks,
            [
                (BlockKind::Title, "Signatures of documents"),
                (BlockKind::Abstract, "We find fuzzy duplicates."),
                (BlockKind::Heading, "Introduction"),
                (BlockKind::Paragraph, "Copies are common [1]."),
                (BlockKind::Quote, "A quoted sentence."),
                (BlockKind::Heading, "References"),
                (BlockKind::Reference, "Broder A. Resemblance. 1997."),
            ]
        );
        assert_eq!(document.title.as_deref(), Some("Signatures of documents"));
        assert_eq!(document.authors, ["Ilyinsky, S."]);
    }

    #[test]
    fn deep_nesting_is_refused_before_parsing() {
        let xml = format!(
            "<article><front/>{}{}</article>",
            "<p>".repeat(10_000),
            "</p>".repeat(10_000)
        );
        assert_eq!(read_jats(&xml).unwrap_err().code(), "unreadable_document");
    }
}
