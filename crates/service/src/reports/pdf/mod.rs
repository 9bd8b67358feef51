//! A report as a PDF an editor can file: a cover page (the similarity index and the verdict,
//! the sources with their colours and shares, the passages by kind, what was left out and why,
//! the decision), then the manuscript with every passage highlighted in its source's colour and
//! numbered, then each source's passages as the manuscript and the source have them. The
//! figures are the stored report's own — the ones the page, the list and the CLI show — and
//! numbers are written as the language writes them. DejaVu Sans is embedded (subset), so
//! Cyrillic is drawn and extracted intact; the title in the document's metadata is UTF-16.

mod labels;
mod layout;
mod marks;
mod sections;

use printpdf::{Mm, ParsedFont, PdfDocument, PdfPage, PdfSaveOptions, Pt};

use super::Report;
use labels::Labels;
use layout::{BOLD_TTF, GREY, MARGIN, PAGE_HEIGHT, PAGE_WIDTH, Pages, REGULAR_TTF, Style, fonts};

/// Why a PDF could not be made.
#[derive(Debug, thiserror::Error)]
pub enum PdfError {
    #[error("the embedded font could not be read")]
    Font,
    #[error("the PDF's metadata could not be written: {0}")]
    Metadata(String),
}

/// The report as a PDF, its words in `lang` (`en` or `ru`). `source_text` gives a source's
/// text (`library`, `doc_id`) for its side of each passage, `None` when the library no longer
/// holds it.
pub fn render_pdf(
    report: &Report,
    lang: &str,
    source_text: &dyn Fn(&str, &str) -> Option<String>,
) -> Result<Vec<u8>, PdfError> {
    let labels = Labels::for_lang(lang);
    let fonts = fonts()?;
    let title = format!("{} {}", labels.title, report.report_id);
    let mut doc = PdfDocument::new(&title);
    let parse = |bytes| ParsedFont::from_bytes(bytes, 0, &mut Vec::new()).ok_or(PdfError::Font);
    let regular = doc.add_font(&parse(REGULAR_TTF)?);
    let bold = doc.add_font(&parse(BOLD_TTF)?);
    let mut pages = Pages {
        fonts,
        regular,
        bold,
        pages: Vec::new(),
        y: 0.0,
        left: MARGIN,
    };
    let written = sections::Written::new(report, labels);
    pages.new_page();
    written.cover(&mut pages);
    written.manuscript(&mut pages);
    written.passages(&mut pages, source_text);

    let total = pages.pages.len();
    let (regular, bold) = (pages.regular.clone(), pages.bold.clone());
    let pdf_pages = pages
        .pages
        .into_iter()
        .enumerate()
        .map(|(i, ops)| {
            let mut footer = Pages {
                fonts,
                regular: regular.clone(),
                bold: bold.clone(),
                pages: vec![ops],
                y: 0.0,
                left: MARGIN,
            };
            let line = format!(
                "{} {} · {} · {} {} {} {}",
                labels.report,
                report.report_id,
                sections::date(report.created),
                labels.page,
                i + 1,
                labels.of,
                total
            );
            footer.text_at(
                MARGIN,
                PAGE_HEIGHT - MARGIN / 2.0,
                &line,
                Style::regular(8.0).colour(GREY),
            );
            let ops = footer.pages.pop().expect("the page");
            PdfPage::new(Mm::from(Pt(PAGE_WIDTH)), Mm::from(Pt(PAGE_HEIGHT)), ops)
        })
        .collect();
    let bytes = doc
        .with_pages(pdf_pages)
        .save(&PdfSaveOptions::default(), &mut Vec::new());
    utf16_title(&bytes, &title)
}

/// The PDF with its `Title` written as PDF text strings are (UTF-16 with a byte order mark):
/// printpdf writes the bytes of UTF-8, which readers show as mojibake for all but ASCII.
fn utf16_title(bytes: &[u8], title: &str) -> Result<Vec<u8>, PdfError> {
    let fail = |e: lopdf::Error| PdfError::Metadata(e.to_string());
    let mut pdf = lopdf::Document::load_mem(bytes).map_err(fail)?;
    let mut utf16 = vec![0xfe, 0xff];
    utf16.extend(title.encode_utf16().flat_map(u16::to_be_bytes));
    let text = lopdf::Object::String(utf16, lopdf::StringFormat::Hexadecimal);
    let info = pdf
        .trailer
        .get(b"Info")
        .and_then(lopdf::Object::as_reference)
        .map_err(fail)?;
    pdf.get_dictionary_mut(info)
        .map_err(fail)?
        .set("Title", text);
    let mut out = Vec::new();
    pdf.save_to(&mut out)
        .map_err(|e| PdfError::Metadata(e.to_string()))?;
    Ok(out)
}
