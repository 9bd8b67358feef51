//! EPUB: a ZIP container whose `META-INF/container.xml` names the package document (OPF); the
//! package's metadata gives the title and authors (Dublin Core `title`, `creator`), its spine
//! the XHTML documents in reading order. Every entry is unpacked under the one budget of
//! decompressed bytes DOCX and ODT use ([`Container`]), so a zip bomb is refused after reading no
//! more than the budget. Each XHTML document is read with the HTML parser (EPUB books often use
//! HTML entities XML does not define), after the same nesting check as crawled pages.

use roxmltree::Node;
use scraper::{ElementRef, Html, Selector};

use super::document::{DocumentBuilder, ExtractedDocument};
use super::office::{Container, parse_xml};
use super::{BlockKind, ExtractError, ExtractLimits, Format};

/// The elements whose text is a block: headings, paragraphs, list items, quotes and the like.
const BLOCKS: &str = "h1, h2, h3, h4, h5, h6, p, li, blockquote, pre, dt, dd, figcaption, td, th";

pub(super) fn read(
    bytes: &[u8],
    limits: &ExtractLimits,
) -> Result<ExtractedDocument, ExtractError> {
    let mut container = Container::open(bytes, Format::Epub, limits)?;
    let rootfile = package_path(&container.required("META-INF/container.xml")?)?;
    let package = container.required(&rootfile)?;
    let package = parse_xml(&package, Format::Epub, &rootfile)?;
    let mut builder = DocumentBuilder::new(Format::Epub);
    let metadata = || {
        package
            .descendants()
            .filter(|n| n.is_element() && in_metadata(*n))
    };
    // The first title is the book's; later ones are subtitles or collections.
    builder.title(
        metadata()
            .find(|n| n.tag_name().name() == "title")
            .and_then(|n| n.text())
            .map(str::to_string),
    );
    for creator in metadata().filter(|n| n.tag_name().name() == "creator") {
        builder.author(creator.text().unwrap_or_default());
    }
    let base = rootfile.rsplit_once('/').map_or("", |(dir, _)| dir);
    let manifest: Vec<(&str, &str, &str)> = package
        .descendants()
        .filter(|n| n.has_tag_name("item"))
        .filter_map(|n| {
            Some((
                n.attribute("id")?,
                n.attribute("href")?,
                n.attribute("media-type").unwrap_or_default(),
            ))
        })
        .collect();
    let spine: Vec<&str> = package
        .descendants()
        .filter(|n| n.has_tag_name("itemref"))
        .filter_map(|n| n.attribute("idref"))
        .collect();
    if spine.is_empty() {
        return Err(ExtractError::unreadable(
            Format::Epub,
            "the package lists no spine (reading order)",
        ));
    }
    let blocks = Selector::parse(BLOCKS).expect("a valid built-in selector");
    for idref in spine {
        let Some(&(_, href, media_type)) = manifest.iter().find(|(id, _, _)| *id == idref) else {
            continue;
        };
        if !(media_type.contains("html") || media_type.is_empty()) {
            continue;
        }
        let Some(path) = resolve(base, href) else {
            continue;
        };
        let Some(xhtml) = container.text(&path)? else {
            continue;
        };
        if super::nesting_exceeds(&xhtml, super::MAX_NESTING) {
            return Err(ExtractError::unreadable(
                Format::Epub,
                format!(
                    "{path} nests elements deeper than {} levels",
                    super::MAX_NESTING
                ),
            ));
        }
        read_chapter(&Html::parse_document(&xhtml), &blocks, &mut builder);
    }
    Ok(builder.finish())
}

/// Whether an element lies inside the package's `<metadata>`.
fn in_metadata(node: Node) -> bool {
    node.ancestors().any(|a| a.has_tag_name("metadata"))
}

/// The package document's path, from `META-INF/container.xml`.
fn package_path(container_xml: &str) -> Result<String, ExtractError> {
    let document = parse_xml(container_xml, Format::Epub, "META-INF/container.xml")?;
    document
        .descendants()
        .find(|n| n.has_tag_name("rootfile"))
        .and_then(|n| n.attribute("full-path"))
        .map(str::to_string)
        .ok_or_else(|| {
            ExtractError::unreadable(
                Format::Epub,
                "META-INF/container.xml names no package document",
            )
        })
}

/// The container path of `href` (percent-encoded, relative to the package's folder `base`),
/// or `None` when it leaves the container or points elsewhere.
fn resolve(base: &str, href: &str) -> Option<String> {
    let href = href.split('#').next()?;
    if href.contains("://") {
        return None;
    }
    let href = percent_encoding::percent_decode_str(href)
        .decode_utf8()
        .ok()?;
    let mut parts: Vec<&str> = if href.starts_with('/') {
        Vec::new()
    } else {
        base.split('/').filter(|p| !p.is_empty()).collect()
    };
    for part in href.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

/// Adds the blocks of one XHTML document: each block element that holds no other block, in
/// document order (a list item's paragraphs are read as paragraphs, not twice).
fn read_chapter(document: &Html, blocks: &Selector, builder: &mut DocumentBuilder) {
    for element in document.select(blocks) {
        if element
            .descendants()
            .skip(1)
            .filter_map(ElementRef::wrap)
            .any(|inner| blocks.matches(&inner))
        {
            continue;
        }
        let text: String = element.text().collect();
        let kind = match element.value().name() {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => BlockKind::Heading,
            "blockquote" => BlockKind::Quote,
            _ => BlockKind::Paragraph,
        };
        builder.push(kind, &text, None);
    }
}

#[cfg(test)]
pub(super) mod tests {
    use std::io::Write;

    use super::*;

    /// An EPUB of `chapters` (file name, XHTML body), listed in the spine in the given order,
    /// with title and authors in its package.
    pub(crate) fn epub_of(title: &str, authors: &[&str], chapters: &[(&str, &str)]) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let stored = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        let deflated = zip::write::SimpleFileOptions::default();
        zip.start_file("mimetype", stored).unwrap();
        zip.write_all(b"application/epub+zip").unwrap();
        zip.start_file("META-INF/container.xml", deflated).unwrap();
        zip.write_all(
            br#"<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>"#,
        )
        .unwrap();
        let creators: String = authors
            .iter()
            .map(|a| format!("<dc:creator>{a}</dc:creator>"))
            .collect();
        let items: String = chapters
            .iter()
            .enumerate()
            .map(|(i, (name, _))| {
                format!(
                    r#"<item id="c{i}" href="text/{name}" media-type="application/xhtml+xml"/>"#
                )
            })
            .collect();
        let spine: String = (0..chapters.len())
            .map(|i| format!(r#"<itemref idref="c{i}"/>"#))
            .collect();
        zip.start_file("OEBPS/content.opf", deflated).unwrap();
        write!(
            zip,
            r#"<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>{title}</dc:title>{creators}</metadata><manifest>{items}</manifest><spine>{spine}</spine></package>"#
        )
        .unwrap();
        for (name, body) in chapters {
            zip.start_file(format!("OEBPS/text/{name}"), deflated)
                .unwrap();
            write!(
                zip,
                r#"<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>x</title></head><body>{body}</body></html>"#
            )
            .unwrap();
        }
        zip.finish().unwrap().into_inner()
    }

    #[test]
    fn chapters_are_read_in_spine_order_with_the_package_metadata() {
        let bytes = epub_of(
            "Нечёткие дубликаты",
            &["Ильинский С.", "Кузьмин М."],
            &[
                (
                    "b.xhtml",
                    "<h1>Введение</h1><p>Первая&nbsp;глава о сигнатурах.</p><ul><li><p>Пункт списка</p></li></ul>",
                ),
                (
                    "a.xhtml",
                    "<h2>Заключение</h2><blockquote><p>Цитата</p></blockquote><p>Вторая глава.</p>",
                ),
            ],
        );
        let document = crate::extract::extract(&bytes, &ExtractLimits::default()).unwrap();
        assert_eq!(document.format, Format::Epub);
        assert_eq!(document.title.as_deref(), Some("Нечёткие дубликаты"));
        assert_eq!(document.authors, ["Ильинский С.", "Кузьмин М."]);
        assert_eq!(
            document.text,
            "Введение\n\nПервая глава о сигнатурах.\n\nПункт списка\n\nЗаключение\n\nЦитата\n\nВторая глава."
        );
        let kinds: Vec<BlockKind> = document.blocks.iter().map(|b| b.kind).collect();
        assert_eq!(kinds[0], BlockKind::Heading);
    }

    #[test]
    fn a_zip_bomb_is_refused_within_the_budget() {
        let body = format!("<p>{}</p>", "a ".repeat(2 * 1024 * 1024));
        let bytes = epub_of("Bomb", &[], &[("bomb.xhtml", &body)]);
        assert!(bytes.len() < 64 * 1024, "{} bytes", bytes.len());
        let limits = ExtractLimits {
            max_decompressed_bytes: 1024 * 1024,
            ..ExtractLimits::default()
        };
        let err = crate::extract::extract(&bytes, &limits).unwrap_err();
        assert_eq!(err.code(), "document_too_large", "{err}");
    }

    #[test]
    fn a_package_without_a_spine_or_leaving_the_container_is_handled() {
        assert_eq!(
            resolve("OEBPS", "../secret/../text/ch%201.xhtml#p1").as_deref(),
            Some("text/ch 1.xhtml")
        );
        assert_eq!(resolve("", "../../etc/passwd"), None);
        let bytes = epub_of("Empty", &[], &[]);
        let err = crate::extract::extract(&bytes, &ExtractLimits::default()).unwrap_err();
        assert_eq!(err.code(), "unreadable_document", "{err}");
    }
}
