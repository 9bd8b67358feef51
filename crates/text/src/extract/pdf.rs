//! Born-digital PDF: `lopdf` parses the file, `pdf-extract` interprets each page's content
//! stream (fonts, encodings, ToUnicode maps) and hands every glyph with its position to
//! [`PageCollector`], which builds lines in content order. Then, per page: glyphs too small to
//! read or outside the page are dropped (and counted: hidden text is a disguise; white and
//! invisible text is counted by `pdf_hidden`); lines separated by more than a line's spacing, or
//! set in another size, start a new paragraph. Across pages: lines at the top or bottom of
//! pages that repeat on many pages (running headers and footers, digits ignored) and bare page
//! numbers are dropped. The title is the largest text on the first page unless the file's
//! metadata names one.
//!
//! The parsers are third-party code facing hostile input: everything runs under
//! `catch_unwind`, and a panic is an [`ExtractError::Unreadable`].

use std::cell::Cell;
use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

use lopdf::Document;
use pdf_extract::{MediaBox, OutputDev, OutputError, Transform};

use super::budget::Budget;
use super::document::{DocumentBuilder, ExtractedDocument, count_words};
use super::pdf_bounds::{self, PageWork, Stop};
use super::{BlockKind, ExtractError, Format, pdf_scan, poppler};

/// Glyphs smaller than this (in points) are not meant to be read: hidden text.
const MIN_GLYPH_SIZE: f64 = 1.0;

/// A page with fewer words than this on average is an image: a scan without a text layer.
const MIN_WORDS_PER_PAGE: usize = 3;

/// One line of a page, as the content stream draws it.
#[derive(Debug, Clone)]
struct Line {
    text: String,
    /// The baseline, from the top of the page.
    y: f64,
    size: f64,
}

/// Glyphs drawn between two looks at the budget (whether the extraction must stop).
const GLYPHS_PER_STEP: u64 = 4096;

/// One page's lines.
#[derive(Debug, Default)]
struct Page {
    number: u32,
    height: f64,
    lines: Vec<Line>,
}

/// Receives glyphs from `pdf-extract` and builds lines: a glyph starts a new line when it
/// moves down (or back left and down) by more than half its size, and is preceded by a space
/// when it starts further right than the previous glyph ended. These are `pdf-extract`'s own
/// plain-text rules, kept with the positions.
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

    fn line_mut(&mut self, y: f64, size: f64) -> &mut Line {
        if self.page.lines.is_empty() {
            self.page.lines.push(Line {
                text: String::new(),
                y,
                size,
            });
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
        _spacing: f64,
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
            new_line = dy > size * 1.5 || (x < self.last_end && dy > size * 0.5);
            space = x > self.last_end + size * 0.1;
        }
        if new_line && !self.page.lines.is_empty() {
            self.page.lines.push(Line {
                text: String::new(),
                y,
                size,
            });
        } else if space {
            self.line_mut(y, size).text.push(' ');
        }
        let line = self.line_mut(y, size);
        line.text.push_str(text);
        if text.chars().any(char::is_alphanumeric) {
            line.size = line.size.max(size);
        }
        self.first_glyph_of_word = false;
        self.last_y = y;
        self.last_end = x + width * size;
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
    let furniture = running_lines(&pages);
    let title_size = pages.first().and_then(|p| title_size(&p.lines));
    for page in &pages {
        let last = page.lines.len().saturating_sub(1);
        let kept: Vec<&Line> = page
            .lines
            .iter()
            .enumerate()
            .filter(|(i, line)| {
                let edge = *i < 2 || *i + 2 > last;
                !(edge
                    && (furniture.contains(&furniture_key(&line.text))
                        || is_page_number(&line.text)))
            })
            .map(|(_, line)| line)
            .collect();
        for (kind, text) in paragraphs(&kept, page.number == 1, title_size) {
            builder.push(kind, &text, Some(page.number));
        }
    }
    Ok(builder.finish())
}

/// Groups a page's lines into paragraphs: a new one after a gap larger than 1.6 lines, or
/// where the size of the text changes (a heading). A move up the page (the next column)
/// continues the paragraph: text flows from the foot of one column to the head of the next.
fn paragraphs(
    lines: &[&Line],
    first_page: bool,
    title_size: Option<f64>,
) -> Vec<(BlockKind, String)> {
    let mut out: Vec<(BlockKind, String)> = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let mut current_kind = BlockKind::Paragraph;
    let mut previous: Option<&Line> = None;
    let kind_of = |line: &Line| {
        if first_page && title_size.is_some_and(|t| (line.size - t).abs() < 0.5) {
            BlockKind::Title
        } else {
            BlockKind::Paragraph
        }
    };
    for line in lines {
        let kind = kind_of(line);
        let breaks = previous.is_none_or(|prev| {
            let gap = line.y - prev.y;
            let size = prev.size.max(line.size).max(1.0);
            gap > size * 1.6 || (line.size - prev.size).abs() > 1.0 || kind != current_kind
        });
        if breaks && !current.is_empty() {
            out.push((current_kind, current.join("\n")));
            current.clear();
        }
        current_kind = kind;
        current.push(&line.text);
        previous = Some(line);
    }
    if !current.is_empty() {
        out.push((current_kind, current.join("\n")));
    }
    out
}

/// The size of the first page's title: the largest text among its first lines, if it is
/// clearly larger than the body text.
fn title_size(lines: &[Line]) -> Option<f64> {
    let head = &lines[..lines.len().min(15)];
    let largest = head
        .iter()
        .filter(|l| count_words(&l.text) > 0)
        .map(|l| l.size)
        .fold(0.0_f64, f64::max);
    let mut sizes: Vec<f64> = lines.iter().map(|l| l.size).collect();
    sizes.sort_by(f64::total_cmp);
    let median = sizes.get(sizes.len() / 2).copied().unwrap_or(largest);
    (largest > median * 1.2).then_some(largest)
}

/// Lines that appear at the top or bottom of at least half the pages (with digits masked, so
/// that «Page 3» and «Page 4» count as one): running headers and footers.
fn running_lines(pages: &[Page]) -> Vec<String> {
    if pages.len() < 3 {
        return Vec::new();
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    for page in pages {
        let n = page.lines.len();
        let mut keys: Vec<String> = page
            .lines
            .iter()
            .enumerate()
            .filter(|(i, _)| *i < 2 || *i + 2 >= n)
            .map(|(_, l)| furniture_key(&l.text))
            .filter(|k| !k.is_empty())
            .collect();
        keys.sort();
        keys.dedup();
        for key in keys {
            *seen.entry(key).or_default() += 1;
        }
    }
    let threshold = pages.len().div_ceil(2).max(2);
    seen.into_iter()
        .filter(|(_, count)| *count >= threshold)
        .map(|(key, _)| key)
        .collect()
}

fn furniture_key(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| if c.is_ascii_digit() { '#' } else { c })
        .flat_map(char::to_lowercase)
        .collect()
}

/// «12», «- 12 -», «Page 12», «xii»: a line that is only a page number.
fn is_page_number(text: &str) -> bool {
    let trimmed = text
        .trim()
        .trim_matches(|c: char| matches!(c, '-' | '–' | '—' | ' ' | '|'));
    let trimmed = trimmed
        .strip_prefix("Page ")
        .or_else(|| trimmed.strip_prefix("Стр. "))
        .or_else(|| trimmed.strip_prefix("С. "))
        .unwrap_or(trimmed)
        .trim();
    !trimmed.is_empty()
        && trimmed.len() <= 8
        && (trimmed.chars().all(|c| c.is_ascii_digit())
            || trimmed.chars().all(|c| matches!(c, 'i' | 'v' | 'x' | 'l')))
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
    use super::*;

    fn line(text: &str, y: f64, size: f64) -> Line {
        Line {
            text: text.to_string(),
            y,
            size,
        }
    }

    #[test]
    fn page_numbers_and_running_heads_are_recognised() {
        assert!(is_page_number("12"));
        assert!(is_page_number("- 7 -"));
        assert!(is_page_number("Page 3"));
        assert!(is_page_number("xii"));
        assert!(!is_page_number("12 monkeys"));
        let pages: Vec<Page> = (1..=4)
            .map(|n| Page {
                number: n,
                height: 800.0,
                lines: vec![
                    line(&format!("Proceedings of ACL 2008, page {n}"), 40.0, 9.0),
                    line(
                        ["alpha", "beta", "gamma", "delta"][n as usize - 1],
                        100.0,
                        10.0,
                    ),
                    line(&format!("body {n}"), 120.0, 10.0),
                    line("the same words in the middle", 140.0, 10.0),
                    line(["one", "two", "three", "four"][n as usize - 1], 160.0, 10.0),
                    line(&format!("{n}"), 780.0, 9.0),
                ],
            })
            .collect();
        let running = running_lines(&pages);
        assert!(running.contains(&furniture_key("Proceedings of ACL 2008, page 9")));
        running_sorted(&running, &["#", "proceedingsofacl####,page#"]);
    }

    fn running_sorted(running: &[String], expected: &[&str]) {
        let mut running = running.to_vec();
        running.sort();
        assert_eq!(
            running, expected,
            "only the head and the page number repeat at the edges"
        );
    }

    #[test]
    fn gaps_and_size_changes_break_paragraphs() {
        let lines = [
            line("A Title", 50.0, 16.0),
            line("First line of a para-", 100.0, 10.0),
            line("graph continues here.", 112.0, 10.0),
            line("Second paragraph.", 140.0, 10.0),
        ];
        let refs: Vec<&Line> = lines.iter().collect();
        let blocks = paragraphs(&refs, true, Some(16.0));
        assert_eq!(blocks.len(), 3);
        assert_eq!(blocks[0], (BlockKind::Title, "A Title".to_string()));
        assert_eq!(blocks[1].1, "First line of a para-\ngraph continues here.");
    }
}
