//! Telling a file's format from its first bytes: magic numbers for binary formats, the entries of
//! a ZIP container, the root element of markup. A name or a declared content type is never
//! trusted: a PDF renamed `.docx` is still read as the PDF it is.

use std::io::Cursor;

use serde::Serialize;

use super::ExtractError;
use super::plain::decode_text;

/// The formats dupfinder reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Pdf,
    Docx,
    Odt,
    Epub,
    Rtf,
    Html,
    Jats,
    Tei,
    Text,
}

impl Format {
    /// The name used in answers (`document.format`).
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Pdf => "pdf",
            Format::Docx => "docx",
            Format::Odt => "odt",
            Format::Epub => "epub",
            Format::Rtf => "rtf",
            Format::Html => "html",
            Format::Jats => "jats",
            Format::Tei => "tei",
            Format::Text => "text",
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Format::Pdf => "PDF",
            Format::Docx => "DOCX",
            Format::Odt => "ODT",
            Format::Epub => "EPUB",
            Format::Rtf => "RTF",
            Format::Html => "HTML",
            Format::Jats => "JATS XML",
            Format::Tei => "TEI XML",
            Format::Text => "text",
        })
    }
}

/// Binary types that are recognised in order to be refused by name.
const UNSUPPORTED_MAGIC: &[(&[u8], &str)] = &[
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (b"RIFF", "a RIFF file (WebP image or audio)"),
    (
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
        "an old binary Office file (.doc); save it as DOCX or PDF,",
    ),
    (b"\x1f\x8b", "a gzip archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!", "a RAR archive"),
    (b"AT&TFORM", "a DjVu document"),
    (b"\x7fELF", "an executable"),
];

/// The format of `bytes`, or why it is not one dupfinder reads.
pub fn sniff(bytes: &[u8]) -> Result<Format, ExtractError> {
    if bytes.is_empty() {
        return Err(ExtractError::Empty);
    }
    // A PDF may carry a few bytes of junk before its header; readers accept it within 1 KB.
    let head = &bytes[..bytes.len().min(1024)];
    if head.windows(5).any(|w| w == b"%PDF-") {
        return Ok(Format::Pdf);
    }
    if bytes.starts_with(b"PK\x03\x04") {
        return zip_format(bytes);
    }
    if bytes.starts_with(b"{\\rtf") {
        return Ok(Format::Rtf);
    }
    if let Some((_, what)) = UNSUPPORTED_MAGIC
        .iter()
        .find(|(magic, _)| bytes.starts_with(magic))
    {
        return Err(ExtractError::Unsupported {
            what: (*what).to_string(),
        });
    }
    if looks_binary(bytes) {
        return Err(ExtractError::Unsupported {
            what: "binary data of an unknown type".to_string(),
        });
    }
    let text = decode_text(&bytes[..bytes.len().min(64 * 1024)]);
    Ok(markup_format(&text))
}

/// DOCX, ODT and EPUB are ZIP containers told apart by their entries.
fn zip_format(bytes: &[u8]) -> Result<Format, ExtractError> {
    let archive = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| {
        ExtractError::unreadable(Format::Docx, format!("a damaged ZIP container ({e})"))
    })?;
    let names: Vec<&str> = archive.file_names().collect();
    if names.contains(&"word/document.xml") {
        return Ok(Format::Docx);
    }
    if names.contains(&"content.xml") && names.contains(&"mimetype") {
        return Ok(Format::Odt);
    }
    if names.contains(&"META-INF/container.xml") {
        return Ok(Format::Epub);
    }
    let what = if names.iter().any(|n| n.starts_with("xl/")) {
        "a spreadsheet (XLSX)"
    } else if names.iter().any(|n| n.starts_with("ppt/")) {
        "a presentation (PPTX)"
    } else {
        "a ZIP archive (not DOCX or ODT)"
    };
    Err(ExtractError::Unsupported {
        what: what.to_string(),
    })
}

/// Text has few control characters other than whitespace; binary data has many. UTF-16
/// (with its NUL bytes) is text, recognised by its byte-order mark or NUL pattern.
fn looks_binary(bytes: &[u8]) -> bool {
    let sample = &bytes[..bytes.len().min(8192)];
    if super::plain::utf16_order(sample).is_some() {
        return false;
    }
    let control = sample
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c))
        .count();
    control * 100 > sample.len()
}

/// Markup told by its first element: JATS `<article>` with `<front>`, TEI `<TEI>`, HTML.
fn markup_format(text: &str) -> Format {
    let start = text.trim_start_matches('\u{feff}').trim_start();
    if !start.starts_with('<') {
        return Format::Text;
    }
    let lower = start.to_ascii_lowercase();
    let root = first_element_name(&lower);
    match root.as_deref() {
        Some("article") if lower.contains("<front") || lower.contains("jats") => Format::Jats,
        Some("tei") | Some("tei:tei") | Some("teicorpus") => Format::Tei,
        Some("html") | Some("head") | Some("body") => Format::Html,
        _ if lower.contains("<html") || lower.contains("<body") || lower.contains("<p>") => {
            Format::Html
        }
        _ => Format::Text,
    }
}

/// The name of the first element after any XML declaration, comments and doctype.
fn first_element_name(lower: &str) -> Option<String> {
    let mut rest = lower;
    loop {
        let at = rest.find('<')?;
        rest = &rest[at + 1..];
        if rest.starts_with('?') || rest.starts_with('!') {
            let end = if rest.starts_with("!--") {
                rest.find("-->").map(|e| e + 3)
            } else {
                rest.find('>').map(|e| e + 1)
            };
            rest = &rest[end?..];
            continue;
        }
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || matches!(c, ':' | '-' | '_'))
            .collect();
        return (!name.is_empty()).then_some(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_told_by_content() {
        assert_eq!(sniff(b"%PDF-1.7\n...").unwrap(), Format::Pdf);
        assert_eq!(sniff(b"{\\rtf1\\ansi hello}").unwrap(), Format::Rtf);
        assert_eq!(
            sniff(b"<?xml version=\"1.0\"?>\n<!DOCTYPE article PUBLIC \"-//NLM//DTD JATS\">\n<article><front/></article>").unwrap(),
            Format::Jats
        );
        assert_eq!(
            sniff(b"<TEI xmlns=\"http://www.tei-c.org/ns/1.0\"><text/></TEI>").unwrap(),
            Format::Tei
        );
        assert_eq!(
            sniff(b"<!DOCTYPE html><html><body>x</body></html>").unwrap(),
            Format::Html
        );
        assert_eq!(sniff("Просто текст".as_bytes()).unwrap(), Format::Text);
        assert_eq!(sniff(b"a < b and c > d").unwrap(), Format::Text);
    }

    #[test]
    fn images_archives_and_empty_files_are_refused() {
        let png = sniff(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap_err();
        assert_eq!(png.code(), "unsupported_media_type");
        assert!(png.to_string().contains("PNG"));
        assert_eq!(sniff(b"").unwrap_err().code(), "unreadable_document");
        assert_eq!(
            sniff(&[0u8, 1, 2, 3, 4, 5, 6, 7, 200, 201, 3, 4])
                .unwrap_err()
                .code(),
            "unsupported_media_type"
        );
    }
}
