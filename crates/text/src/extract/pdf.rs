//! Born-digital PDF: `lopdf` parses the file, `pdf-extract` interprets each page's content
//! stream (fonts, encodings, ToUnicode maps) and hands every glyph with its position to
//! [`PageCollector`], which builds lines in content order: a glyph moving down starts a new
//! line, and a glyph starting more than a tenth of its size right of where the previous one
//! ended (its width and character spacing) is preceded by a word space, as poppler decides it.
//! Widths and places must be right for that: `pdf_repair` first rewrites what pdf-extract
//! misreads (composite fonts' width ranges, forms' matrices).
//! Glyphs too small to read or outside the page are dropped (and counted: hidden text is a
//! disguise; white and invisible text is counted by `pdf_hidden`). `pdf_layout` makes the
//! paragraphs, drops running headers, footers and page numbers and joins paragraphs across
//! page breaks. The title is the largest text on the first page unless the file's metadata
//! names one.
//!
//! The parsers are third-party code facing hostile input: everything runs under
//! `catch_unwind`, and a panic is an [`ExtractError::Unreadable`].

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

use lopdf::Document;
use pdf_extract::{MediaBox, OutputDev, OutputError, Transform};

use super::budget::Budget;
use super::document::{DocumentBuilder, ExtractedDocument, count_words};
use super::pdf_bounds::{self, PageWork, Stop};
use super::pdf_layout::{self, Line, Page};
use super::{ExtractError, Format, pdf_repair, pdf_scan, poppler};

/// Glyphs smaller than this (in points) are not meant to be read: hidden text.
const MIN_GLYPH_SIZE: f64 = 1.0;

/// A page with fewer words than this on average is an image: a scan without a text layer.
const MIN_WORDS_PER_PAGE: usize = 3;

/// Glyphs drawn between two looks at the budget (whether the extraction must stop).
const GLYPHS_PER_STEP: u64 = 4096;

/// Receives glyphs from `pdf-extract` and builds lines: a glyph starts a new line when it
/// moves down by most of its size (or back left and down by more than half of it), and is
/// preceded by a space when it starts more than a tenth of its size right of where the
/// previous glyph ended.
struct PageCollector<'a> {
    budget: &'a Budget,
    /// Why the collector stopped pdf-extract (it can only answer a formatting error).
    stopped: Option<ExtractError>,
    glyphs: u64,
    pages: Vec<Page>,
    page: Page,
    width: f64,
    first_glyph_of_word: bool,
    last_end: f64,
    last_y: f64,
    /// Characters drawn too small to read or outside the page: text hidden from the reader
    /// but not from a copy-paste, which a check reports as a disguise.
    hidden: usize,
}

impl<'a> PageCollector<'a> {
    fn new(budget: &'a Budget) -> Self {
        PageCollector {
            budget,
            stopped: None,
            glyphs: 0,
            pages: Vec::new(),
            page: Page::default(),
            width: 0.0,
            first_glyph_of_word: false,
            last_end: 0.0,
            last_y: 0.0,
            hidden: 0,
        }
    }

    fn line_mut(&mut self, x: f64, y: f64, size: f64) -> &mut Line {
        if self.page.lines.is_empty() {
            self.page.lines.push(Line::at(x, y, size));
        }
        self.page.lines.last_mut().expect("a line was pushed")
    }
}

impl OutputDev for PageCollector<'_> {
    fn begin_page(
        &mut self,
        page_num: u32,
        media_box: &MediaBox,
        _art_box: Option<(f64, f64, f64, f64)>,
    ) -> Result<(), OutputError> {
        self.page = Page {
            number: page_num,
            height: media_box.ury - media_box.lly,
            lines: Vec::new(),
        };
        self.width = media_box.urx - media_box.llx;
        self.last_end = f64::MAX;
        self.last_y = 0.0;
        Ok(())
    }

    fn end_page(&mut self) -> Result<(), OutputError> {
        self.pages.push(std::mem::take(&mut self.page));
        Ok(())
    }

    fn output_character(
        &mut self,
        trm: &Transform,
        width: f64,
        spacing: f64,
        font_size: f64,
        text: &str,
    ) -> Result<(), OutputError> {
        self.glyphs += 1;
        if self.glyphs.is_multiple_of(GLYPHS_PER_STEP)
            && let Err(stop) = self.budget.go_on()
        {
            self.stopped = Some(stop);
            return Err(OutputError::FormatError(std::fmt::Error));
        }
        // The glyph's origin in page space, y measured from the top.
        let x = trm.m31;
        let y = self.page.height - trm.m32;
        // The side of the square with the area of the transformed font box.
        let scaled_x = font_size * (trm.m11.abs() + trm.m21.abs());
        let scaled_y = font_size * (trm.m12.abs() + trm.m22.abs());
        let size = (scaled_x * scaled_y).sqrt();
        if size < MIN_GLYPH_SIZE
            || x < -size
            || x > self.width + size
            || y < -size
            || y > self.page.height + size
        {
            self.hidden += text.chars().filter(|c| c.is_alphanumeric()).count();
            return Ok(());
        }
        let mut new_line = false;
        let mut space = false;
        if self.first_glyph_of_word {
            let dy = (y - self.last_y).abs();
            // Down by most of a line is a new line wherever it starts (an indented first
            // line starts right of a short last line); down by half of one, only back to the
            // left (a subscript goes on with its line).
            new_line = dy > size * 0.8 || (x < self.last_end && dy > size * 0.5);
            space = x > self.last_end + size * 0.1;
        }
        if new_line && !self.page.lines.is_empty() {
            self.page.lines.push(Line::at(x, y, size));
        } else if space {
            self.line_mut(x, y, size).text.push(' ');
        }
        // Where the glyph ends: its width, and the character spacing (`Tc`, and `Tw` after a
        // space) the interpreter adds to it, in the glyph's scale.
        let scale = if font_size.abs() > f64::EPSILON {
            size / font_size.abs()
        } else {
            0.0
        };
        let end = x + width * size + spacing * scale;
        let line = self.line_mut(x, y, size);
        line.text.push_str(text);
        if text.chars().any(char::is_alphanumeric) {
            line.size = line.size.max(size);
        }
        if !text.trim().is_empty() {
            line.right = line.right.max(end);
        }
        self.first_glyph_of_word = false;
        self.last_y = y;
        self.last_end = end;
        Ok(())
    }

    fn begin_word(&mut self) -> Result<(), OutputError> {
        self.first_glyph_of_word = true;
        Ok(())
    }

    fn end_word(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn end_line(&mut self) -> Result<(), OutputError> {
        Ok(())
    }
}

thread_local! {
    /// Whether this thread is inside [`catch_quietly`].
    static CATCHING: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f`, turning a panic into an `Err` without the panic message and backtrace the
/// default hook writes to standard error: a parser crate's panic on a damaged file is an
/// answer (`unreadable_document`), not a crash, and should not read like one in a server's
/// log or a terminal. It is logged at debug level instead. Panics elsewhere are reported as
/// before.
fn catch_quietly<T>(f: impl FnOnce() -> T) -> std::thread::Result<T> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if CATCHING.with(Cell::get) {
                tracing::debug!(%info, "a PDF parser panicked on a file; it is answered as unreadable");
            } else {
                default(info);
            }
        }));
    });
    let outer = CATCHING.with(|c| c.replace(true));
    let outcome = catch_unwind(AssertUnwindSafe(f));
    CATCHING.with(|c| c.set(outer));
    outcome
}

/// Reads a PDF under the budget.
pub(super) fn read(bytes: &[u8], budget: &Budget) -> Result<ExtractedDocument, ExtractError> {
    let outcome = catch_quietly(|| read_unguarded(bytes, budget));
    outcome.unwrap_or_else(|panic| {
        // A bound reached inside lopdf's loader: the file is refused, not read again.
        let panic = match panic.downcast::<Stop>() {
            Ok(stop) => return Err(stop.0),
            Err(panic) => panic,
        };
        if let Some(document) = poppler::read(bytes, budget, MIN_WORDS_PER_PAGE) {
            return Ok(document);
        }
        let reason = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "the parser failed".to_string());
        Err(ExtractError::unreadable(
            Format::Pdf,
            format!("the file is damaged or uses a feature the reader does not handle ({reason})"),
        ))
    })
}

fn read_unguarded(bytes: &[u8], budget: &Budget) -> Result<ExtractedDocument, ExtractError> {
    let limits = budget.limits();
    pdf_scan::scan(bytes, budget)?;
    let mut document = pdf_bounds::load(bytes, budget)?;
    // The loader's hook counted the objects of an unencrypted file; an encrypted one is loaded
    // without it.
    if document.objects.len() as u64 > limits.max_objects {
        return Err(ExtractError::TooManyObjects {
            limit: limits.max_objects,
        });
    }
    if document.is_encrypted() && document.authenticate_password("").is_err() {
        return Err(ExtractError::unreadable(
            Format::Pdf,
            "the file is encrypted with a password; send it without the password",
        ));
    }
    let page_ids = document.get_pages();
    let page_count = u32::try_from(page_ids.len()).unwrap_or(u32::MAX);
    if page_count == 0 {
        return Err(ExtractError::unreadable(
            Format::Pdf,
            "the file has no pages",
        ));
    }
    if page_count > limits.max_pages {
        return Err(ExtractError::TooManyPages {
            pages: page_count,
            limit: limits.max_pages,
        });
    }
    pdf_bounds::prepare(&mut document, budget)?;
    pdf_repair::repair_widths(&mut document, budget)?;
    pdf_repair::place_forms(&mut document, budget)?;
    let mut work = PageWork::new(&document, budget);
    let mut collector = PageCollector::new(budget);
    let mut failed_pages = 0;
    for (&number, &page_id) in &page_ids {
        // Refused before it is interpreted when it would draw past the bounds.
        work.page(page_id)?;
        // A page that cannot be interpreted is skipped; the others are still read.
        if pdf_extract::output_doc_page(&document, &mut collector, number).is_err() {
            if let Some(stop) = collector.stopped.take() {
                return Err(stop);
            }
            failed_pages += 1;
            collector.page = Page::default();
        }
    }
    // Glyphs too small or off the page (dropped from the text) and glyphs a reader cannot see
    // (white, invisible: kept, as a copy-paste keeps them).
    let concealed = super::pdf_hidden::hidden_text(&document, &page_ids, budget)?;
    let hidden = collector.hidden + concealed.invisible + concealed.white;
    let pages = collector.pages;
    let words: usize = pages
        .iter()
        .flat_map(|p| &p.lines)
        .map(|l| count_words(&l.text))
        .sum();
    if words < MIN_WORDS_PER_PAGE * page_ids.len() {
        // Fonts the reader cannot map to text, or pages it cannot follow, read as too few
        // words; poppler may read them. A scan's pages of images stay without text.
        if let Some(document) = poppler::read(bytes, budget, MIN_WORDS_PER_PAGE) {
            return Ok(document);
        }
        if failed_pages == page_ids.len() {
            return Err(ExtractError::unreadable(
                Format::Pdf,
                "no page could be interpreted",
            ));
        }
        return Err(ExtractError::NoTextLayer { pages: page_count });
    }

    let mut builder = DocumentBuilder::new(Format::Pdf);
    builder.pages(page_count);
    builder.hidden_characters(hidden);
    builder.title(info_string(&document, b"Title").filter(|t| plausible_title(t)));
    if let Some(author) = info_string(&document, b"Author") {
        for name in author.split([';', ',']).filter(|n| n.trim().len() > 1) {
            builder.author(name);
        }
    }
    for (kind, text, page) in pdf_layout::paragraphs(&pages) {
        builder.push(kind, &text, Some(page));
    }
    Ok(builder.finish())
}

/// A string of the document information dictionary, decoded from PDFDocEncoding or UTF-16.
fn info_string(document: &Document, key: &[u8]) -> Option<String> {
    let info = document.trailer.get(b"Info").ok()?;
    let info = match info {
        lopdf::Object::Reference(id) => document.get_dictionary(*id).ok()?,
        lopdf::Object::Dictionary(dict) => dict,
        _ => return None,
    };
    let bytes = info.get(key).ok()?.as_str().ok()?;
    let text = if bytes.starts_with(b"\xfe\xff") {
        let units: Vec<u16> = bytes[2..]
            .chunks_exact(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]))
            .collect();
        String::from_utf16_lossy(&units)
    } else {
        bytes.iter().map(|&b| b as char).collect()
    };
    let text = text.trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// Metadata titles are often file names or tool names («Microsoft Word - draft3.docx»).
fn plausible_title(title: &str) -> bool {
    let lower = title.to_lowercase();
    count_words(title) >= 2
        && ![".doc", ".tex", ".dvi", ".pdf", "microsoft word", "untitled"]
            .iter()
            .any(|bad| lower.contains(bad))
}

#[cfg(test)]
mod tests {
    use super::super::{ExtractLimits, ExtractedDocument, extract};
    use crate::structure::{Part, Structure};

    /// One short paper printed by Chromium (2 pages, the browser's header and footer on each)
    /// and by LibreOffice (6 small pages, a running header and a page number); see
    /// tests/fixtures/files/README.md.
    fn fixture(name: &str) -> ExtractedDocument {
        let path = format!(
            "{}/../../tests/fixtures/files/pdf_text/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let limits = ExtractLimits {
            pdftotext: String::new(),
            ..ExtractLimits::default()
        };
        extract(&bytes, &limits).unwrap()
    }

    const PRODUCERS: [&str; 2] = ["paper_chromium.pdf", "paper_libreoffice.pdf"];

    #[test]
    fn kerned_cyrillic_words_stay_whole() {
        for name in PRODUCERS {
            let text = fixture(name).text;
            for word in ["Проблема", "международного", "Орлов", "Новгородцев"]
            {
                assert!(
                    text.split(|c: char| !c.is_alphabetic()).any(|w| w == word),
                    "{name}: «{word}» is not whole in\n{text}"
                );
            }
        }
    }

    #[test]
    fn a_quotation_across_a_page_break_stays_one_paragraph() {
        for name in PRODUCERS {
            let document = fixture(name);
            let paragraph = document
                .blocks
                .iter()
                .find(|b| b.text.contains("«проверка"))
                .unwrap_or_else(|| panic!("{name}: no quotation in {:#?}", document.blocks));
            assert!(
                paragraph.text.contains("редакции» [3]. Поэтому")
                    && paragraph.text.ends_with("символов на странице."),
                "{name}: {}",
                paragraph.text
            );
            let structure = Structure::detect(&document.text);
            let quoted: Vec<String> = structure
                .quotations
                .iter()
                .map(|q| {
                    document
                        .text
                        .chars()
                        .skip(q.span.start)
                        .take(q.span.end - q.span.start)
                        .collect()
                })
                .collect();
            assert!(
                quoted
                    .iter()
                    .any(|q| q.starts_with("«проверка") && q.ends_with("редакции»")),
                "{name}: {quoted:?}"
            );
        }
    }

    #[test]
    fn running_headers_footers_and_page_numbers_are_dropped() {
        for name in PRODUCERS {
            let document = fixture(name);
            for block in &document.blocks {
                let text = &block.text;
                assert!(
                    !text.contains("Вестник проверки рукописей")
                        && !text.contains("file://")
                        && !text.contains(" PM")
                        && text.trim().parse::<u32>().is_err(),
                    "{name}: page furniture kept: {text}"
                );
            }
        }
    }

    #[test]
    fn the_reference_list_is_found() {
        for name in PRODUCERS {
            let document = fixture(name);
            let structure = Structure::detect(&document.text);
            let chars: Vec<char> = document.text.chars().collect();
            let entries: Vec<String> = structure
                .references
                .iter()
                .map(|s| chars[s.start..s.end].iter().collect())
                .collect();
            assert_eq!(entries.len(), 3, "{name}: {entries:#?}");
            assert!(
                entries[2].starts_with("3. Новгородцев"),
                "{name}: {entries:?}"
            );
            let heading = document.text.find("Список литературы").unwrap();
            let heading = document.text[..heading].chars().count();
            assert_eq!(structure.part_at(heading), Some(Part::References), "{name}");
        }
    }
}
