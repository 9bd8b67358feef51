//! A report as a PDF an editor can keep and print: a summary page (the similarity index, the
//! sources with their shares, the settings and the decision), then the manuscript with each
//! copied passage highlighted in its source's colour and marked with the source's number. The
//! report id, the date and the page number stand on every page. DejaVu Sans is embedded
//! (subset), so Cyrillic text is drawn and extracted intact. Labels in English or Russian.

use std::sync::OnceLock;

use printpdf::{
    Color, FontId, Mm, Op, ParsedFont, PdfDocument, PdfPage, PdfSaveOptions, Point, Pt, Rect, Rgb,
    TextItem,
};
use serde_json::Value;

use super::Report;
use dupfinder_check::{Exclusions, PassageKind};

static REGULAR_TTF: &[u8] = include_bytes!("fonts/DejaVuSans.ttf");
static BOLD_TTF: &[u8] = include_bytes!("fonts/DejaVuSans-Bold.ttf");

/// Why a PDF could not be made.
#[derive(Debug, thiserror::Error)]
pub enum PdfError {
    #[error("the embedded font could not be read")]
    Font,
}

/// A4, in points.
const PAGE_WIDTH: f32 = 595.28;
const PAGE_HEIGHT: f32 = 841.89;
const MARGIN: f32 = 56.0;
const BODY_SIZE: f32 = 10.0;
const LINE: f32 = 14.5;

/// A colour's red, green and blue, 0..1.
type Shade = (f32, f32, f32);

/// Highlight fills (light) and mark colours (dark) of sources 1, 2, …, repeating.
const PALETTE: [(Shade, Shade); 6] = [
    ((1.00, 0.87, 0.60), (0.70, 0.40, 0.00)),
    ((0.72, 0.87, 1.00), (0.05, 0.35, 0.70)),
    ((0.78, 0.93, 0.74), (0.13, 0.50, 0.13)),
    ((0.96, 0.78, 0.90), (0.62, 0.12, 0.45)),
    ((0.85, 0.82, 1.00), (0.35, 0.25, 0.75)),
    ((0.80, 0.93, 0.92), (0.05, 0.45, 0.45)),
];

fn rgb((r, g, b): Shade) -> Color {
    Color::Rgb(Rgb {
        r,
        g,
        b,
        icc_profile: None,
    })
}

const BLACK: Shade = (0.1, 0.1, 0.1);
const GREY: Shade = (0.42, 0.42, 0.42);
/// The fill of a passage left out of the figures.
const LEFT_OUT: Shade = (0.88, 0.88, 0.85);

/// The words of the report in one language.
struct Labels {
    title: &'static str,
    report: &'static str,
    date: &'static str,
    file: &'static str,
    words: &'static str,
    libraries: &'static str,
    index: &'static str,
    index_help: &'static str,
    verdict: &'static str,
    sources: &'static str,
    no_sources: &'static str,
    share: &'static str,
    settings: &'static str,
    passages_shown: &'static str,
    min_similarity: &'static str,
    decision: &'static str,
    note: &'static str,
    manuscript: &'static str,
    left_out: &'static str,
    page: &'static str,
    of: &'static str,
    verdicts: [(&'static str, &'static str); 3],
    decisions: [(&'static str, &'static str); 4],
    yes: &'static str,
    no: &'static str,
}

const EN: Labels = Labels {
    title: "Similarity report",
    report: "Report",
    date: "Date",
    file: "File",
    words: "Words",
    libraries: "Libraries checked",
    index: "Similarity index",
    index_help: "share of the manuscript's words found in the sources below",
    verdict: "Verdict",
    sources: "Sources",
    no_sources: "No source shares text with the manuscript.",
    share: "share",
    settings: "Settings",
    passages_shown: "passages located",
    min_similarity: "smallest similarity shown",
    decision: "Decision",
    note: "Note",
    manuscript: "The manuscript, with the passages found in each source",
    left_out: "Passages in grey are left out of the figures (quotations, bibliography and the like).",
    page: "page",
    of: "of",
    verdicts: [
        ("original", "original"),
        ("partial", "partly copied"),
        ("duplicate", "duplicate"),
    ],
    decisions: [
        ("not_checked", "not checked yet"),
        ("candidate", "needs a closer look"),
        ("unique", "original"),
        ("duplicate", "duplicate"),
    ],
    yes: "yes",
    no: "no",
};

const RU: Labels = Labels {
    title: "Отчёт о проверке на заимствования",
    report: "Отчёт",
    date: "Дата",
    file: "Файл",
    words: "Слов",
    libraries: "Проверено по библиотекам",
    index: "Индекс сходства",
    index_help: "доля слов рукописи, найденных в источниках ниже",
    verdict: "Заключение",
    sources: "Источники",
    no_sources: "Ни один источник не содержит текста рукописи.",
    share: "доля",
    settings: "Параметры",
    passages_shown: "поиск фрагментов",
    min_similarity: "наименьшее показанное сходство",
    decision: "Решение",
    note: "Примечание",
    manuscript: "Рукопись с фрагментами, найденными в каждом источнике",
    left_out: "Серым выделены фрагменты, не учтённые в показателях (цитаты, список литературы и т. п.).",
    page: "стр.",
    of: "из",
    verdicts: [
        ("original", "оригинальный текст"),
        ("partial", "частичное заимствование"),
        ("duplicate", "дубликат"),
    ],
    decisions: [
        ("not_checked", "ещё не рассмотрен"),
        ("candidate", "требует внимания"),
        ("unique", "оригинальный"),
        ("duplicate", "дубликат"),
    ],
    yes: "да",
    no: "нет",
};

impl Labels {
    fn for_lang(lang: &str) -> &'static Labels {
        if lang.eq_ignore_ascii_case("ru") {
            &RU
        } else {
            &EN
        }
    }

    fn verdict(&self, verdict: &str) -> &'static str {
        lookup(&self.verdicts, verdict)
    }

    fn decision(&self, decision: &str) -> &'static str {
        lookup(&self.decisions, decision)
    }
}

fn lookup(table: &[(&'static str, &'static str)], key: &str) -> &'static str {
    table
        .iter()
        .find(|(k, _)| *k == key)
        .map_or("", |(_, label)| label)
}

/// The two faces, parsed once, for measuring advances (printpdf parses its own copy per
/// document: its parsed font is not shared between threads).
struct Fonts {
    regular_face: ttf_parser::Face<'static>,
    bold_face: ttf_parser::Face<'static>,
}

fn fonts() -> Result<&'static Fonts, PdfError> {
    static FONTS: OnceLock<Option<Fonts>> = OnceLock::new();
    FONTS
        .get_or_init(|| {
            Some(Fonts {
                regular_face: ttf_parser::Face::parse(REGULAR_TTF, 0).ok()?,
                bold_face: ttf_parser::Face::parse(BOLD_TTF, 0).ok()?,
            })
        })
        .as_ref()
        .ok_or(PdfError::Font)
}

/// Width of `text` at `size` points.
fn width(face: &ttf_parser::Face<'_>, text: &str, size: f32) -> f32 {
    let units: u32 = text
        .chars()
        .map(|c| {
            face.glyph_index(c)
                .and_then(|g| face.glyph_hor_advance(g))
                .unwrap_or(face.units_per_em() / 2) as u32
        })
        .sum();
    units as f32 * size / face.units_per_em() as f32
}

/// Pages being written, top to bottom.
struct Pages<'a> {
    fonts: &'a Fonts,
    regular: FontId,
    bold: FontId,
    pages: Vec<Vec<Op>>,
    /// Distance of the next line's baseline from the page's top.
    y: f32,
}

impl<'a> Pages<'a> {
    fn ops(&mut self) -> &mut Vec<Op> {
        self.pages.last_mut().expect("a page")
    }

    fn new_page(&mut self) {
        self.pages.push(Vec::new());
        self.y = MARGIN + 10.0;
    }

    /// Room for `height` more points on this page, or a new page.
    fn room(&mut self, height: f32) {
        if self.y + height > PAGE_HEIGHT - MARGIN {
            self.new_page();
        }
    }

    fn text_at(
        &mut self,
        x: f32,
        y_from_top: f32,
        text: &str,
        size: f32,
        bold: bool,
        colour: Shade,
    ) {
        let font = if bold {
            self.bold.clone()
        } else {
            self.regular.clone()
        };
        self.ops().extend([
            Op::StartTextSection,
            Op::SetFillColor { col: rgb(colour) },
            Op::SetFontSize {
                size: Pt(size),
                font: font.clone(),
            },
            Op::SetTextCursor {
                pos: Point {
                    x: Pt(x),
                    y: Pt(PAGE_HEIGHT - y_from_top),
                },
            },
            Op::WriteText {
                items: vec![TextItem::Text(text.to_string())],
                font,
            },
            Op::EndTextSection,
        ]);
    }

    /// A filled rectangle whose top edge is `y_from_top` below the page's top.
    fn fill(&mut self, x: f32, y_from_top: f32, w: f32, h: f32, colour: Shade) {
        let rect = Rect {
            x: Pt(x),
            y: Pt(PAGE_HEIGHT - y_from_top),
            width: Pt(w),
            height: Pt(h),
        };
        self.ops().extend([
            Op::SaveGraphicsState,
            Op::SetFillColor { col: rgb(colour) },
            Op::DrawPolygon {
                polygon: rect.to_polygon(),
            },
            Op::RestoreGraphicsState,
        ]);
    }

    /// Writes `text` wrapped to the page's width, starting on a new line.
    fn paragraph(&mut self, text: &str, size: f32, bold: bool, colour: Shade) {
        let words: Vec<Word> = text
            .split_whitespace()
            .map(|w| Word {
                text: w.to_string(),
                source: None,
                mark: None,
                left_out: false,
            })
            .collect();
        self.words(&words, size, bold, colour, size * 1.45);
    }

    /// Writes words wrapped to the page's width; a word with a source is highlighted in its
    /// colour, and a mark (the source's number) stands before the first word of a passage.
    fn words(&mut self, words: &[Word], size: f32, bold: bool, colour: Shade, line: f32) {
        let face = if bold {
            &self.fonts.bold_face
        } else {
            &self.fonts.regular_face
        };
        let space = width(face, " ", size);
        let right = PAGE_WIDTH - MARGIN;
        let mut start = 0;
        while start < words.len() {
            // Greedy line breaking; a word wider than the line gets a line of its own.
            let (mut end, mut x) = (start, MARGIN);
            while end < words.len() {
                let w = word_width(self.fonts, &words[end], size)
                    + if end > start { space } else { 0.0 };
                if end > start && x + w > right {
                    break;
                }
                x += w;
                end += 1;
            }
            self.room(line);
            let baseline = self.y + size;
            let mut x = MARGIN;
            for (i, word) in words[start..end].iter().enumerate() {
                if i > 0 {
                    x += space;
                }
                if let Some(mark) = &word.mark {
                    let dark = if word.left_out {
                        GREY
                    } else {
                        PALETTE[(word.source.unwrap_or(1) - 1) % PALETTE.len()].1
                    };
                    let mark_size = size * 0.75;
                    self.text_at(x, baseline - size * 0.35, mark, mark_size, true, dark);
                    x += width(&self.fonts.bold_face, mark, mark_size) + 1.0;
                }
                let w = width(face, &word.text, size);
                if let Some(source) = word.source {
                    let light = if word.left_out {
                        LEFT_OUT
                    } else {
                        PALETTE[(source - 1) % PALETTE.len()].0
                    };
                    // The fill reaches into the gap after the word when the next one is
                    // highlighted too, so a passage reads as one band.
                    let next_same = words.get(start + i + 1).is_some_and(|n| {
                        n.source == Some(source)
                            && n.left_out == word.left_out
                            && start + i + 1 < end
                    });
                    let extra = if next_same { space } else { 0.0 };
                    self.fill(
                        x - 0.5,
                        baseline - size * 0.97,
                        w + extra + 1.0,
                        size * 1.25,
                        light,
                    );
                }
                self.text_at(x, baseline, &word.text, size, bold, colour);
                x += w;
            }
            self.y += line;
            start = end;
        }
    }

    fn gap(&mut self, points: f32) {
        self.y += points;
    }
}

/// A word of the manuscript and what marks it.
struct Word {
    text: String,
    /// The number (1-based) of the source whose passage holds the word.
    source: Option<usize>,
    /// The source's number, before the first word of a passage.
    mark: Option<String>,
    /// The passage is left out of the figures (an excluded kind, or a source not counted):
    /// filled grey rather than in the source's colour.
    left_out: bool,
}

fn word_width(fonts: &Fonts, word: &Word, size: f32) -> f32 {
    let mark = word
        .mark
        .as_ref()
        .map_or(0.0, |m| width(&fonts.bold_face, m, size * 0.75) + 1.0);
    mark + width(&fonts.regular_face, &word.text, size)
}

/// `2026-11-25 14:03 UTC`.
fn date(seconds: u64) -> String {
    match time::OffsetDateTime::from_unix_timestamp(seconds as i64) {
        Ok(t) => format!(
            "{:04}-{:02}-{:02} {:02}:{:02} UTC",
            t.year(),
            t.month() as u8,
            t.day(),
            t.hour(),
            t.minute()
        ),
        Err(_) => seconds.to_string(),
    }
}

/// A share as a percentage with one decimal: `62.9 %`.
fn percent(x: f64) -> String {
    format!("{:.1} %", x * 100.0)
}

/// The similarity index: the answer's own, or the share of the manuscript's words inside
/// passages shared with any source.
fn similarity_index(answer: &Value) -> f64 {
    answer["similarity_index"]
        .as_f64()
        .or_else(|| answer["query_coverage"].as_f64())
        .unwrap_or(0.0)
}

/// A source's share: the answer's own, or the share of the manuscript's words inside
/// passages shared with it.
fn share(m: &Value) -> f64 {
    m["share"]
        .as_f64()
        .or_else(|| m["coverage"].as_f64())
        .unwrap_or(0.0)
}

/// Whether a passage counts in the figures under the answer's `exclusions` (all count in a
/// report made before exclusions).
fn counts(m: &Value, passage: &Value, exclusions: Option<&Exclusions>) -> bool {
    let kind: Option<PassageKind> = serde_json::from_value(passage["kind"].clone()).ok();
    m["counted"].as_bool() != Some(false)
        && exclusions
            .zip(kind)
            .is_none_or(|(exclusions, kind)| exclusions.counts(kind))
}

/// The manuscript's words, each with the source (1-based) whose passage covers its first
/// character; the first source listed wins where passages of several sources overlap.
fn marked_words(text: &str, matches: &[Value], exclusions: Option<&Exclusions>) -> Vec<Word> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut owner: Vec<Option<usize>> = vec![None; chars.len()];
    let mut starts: Vec<Option<usize>> = vec![None; chars.len()];
    let mut left_out = vec![false; chars.len()];
    for (n, m) in matches.iter().enumerate() {
        for passage in m["passages"].as_array().into_iter().flatten() {
            let live = counts(m, passage, exclusions);
            let start = passage["query"]["start"].as_u64().unwrap_or(0) as usize;
            let end = (passage["query"]["end"].as_u64().unwrap_or(0) as usize).min(chars.len());
            if start >= end {
                continue;
            }
            let mut first = true;
            for (slot, out) in owner[start..end].iter_mut().zip(&mut left_out[start..end]) {
                if slot.is_none() {
                    *slot = Some(n + 1);
                    *out = !live;
                    if first {
                        starts[start] = Some(n + 1);
                        first = false;
                    }
                }
            }
        }
    }
    let mut words = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].1.is_whitespace() {
            i += 1;
            continue;
        }
        let begin = i;
        while i < chars.len() && !chars[i].1.is_whitespace() {
            i += 1;
        }
        let (from, to) = (chars[begin].0, chars.get(i).map_or(text.len(), |c| c.0));
        let source = owner[begin..i].iter().flatten().next().copied();
        let left = (begin..i)
            .find(|c| owner[*c].is_some())
            .is_some_and(|c| left_out[c]);
        let mark = starts[begin..i]
            .iter()
            .flatten()
            .next()
            .map(|n| n.to_string());
        words.push(Word {
            text: text[from..to].to_string(),
            source,
            mark,
            left_out: left,
        });
    }
    words
}

/// The report as a PDF, its labels in `lang` (`en` or `ru`).
pub fn render_pdf(report: &Report, lang: &str) -> Result<Vec<u8>, PdfError> {
    let labels = Labels::for_lang(lang);
    let fonts = fonts()?;
    let mut doc = PdfDocument::new(&format!("{} {}", labels.title, report.report_id));
    let parse = |bytes| ParsedFont::from_bytes(bytes, 0, &mut Vec::new()).ok_or(PdfError::Font);
    let regular = doc.add_font(&parse(REGULAR_TTF)?);
    let bold = doc.add_font(&parse(BOLD_TTF)?);
    let mut pages = Pages {
        fonts,
        regular,
        bold,
        pages: Vec::new(),
        y: 0.0,
    };
    pages.new_page();
    let answer = &report.answer;
    let matches: Vec<Value> = answer["matches"].as_array().cloned().unwrap_or_default();

    pages.paragraph(labels.title, 18.0, true, BLACK);
    pages.gap(6.0);
    let libraries: Vec<String> = answer["generations"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(id, _generation)| id.clone())
        .collect();
    let mut facts = vec![
        (labels.report, report.report_id.clone()),
        (labels.date, date(report.created)),
    ];
    if let Some(file) = &report.file {
        facts.push((labels.file, file.clone()));
    }
    facts.push((
        labels.words,
        report.text.split_whitespace().count().to_string(),
    ));
    facts.push((labels.libraries, libraries.join(", ")));
    for (label, value) in facts {
        pages.paragraph(&format!("{label}: {value}"), BODY_SIZE, false, BLACK);
    }

    pages.gap(12.0);
    pages.paragraph(labels.index, 12.0, true, BLACK);
    pages.paragraph(&percent(similarity_index(answer)), 30.0, true, BLACK);
    pages.paragraph(labels.index_help, 9.0, false, GREY);
    pages.gap(4.0);
    let verdict = answer["verdict"].as_str().unwrap_or("original");
    pages.paragraph(
        &format!("{}: {}", labels.verdict, labels.verdict(verdict)),
        BODY_SIZE,
        true,
        BLACK,
    );

    pages.gap(12.0);
    pages.paragraph(labels.sources, 12.0, true, BLACK);
    if matches.is_empty() {
        pages.paragraph(labels.no_sources, BODY_SIZE, false, BLACK);
    }
    for (n, m) in matches.iter().enumerate() {
        pages.room(LINE * 2.0);
        let (light, dark) = PALETTE[n % PALETTE.len()];
        let top = pages.y;
        pages.fill(MARGIN, top + 2.0, 16.0, 12.0, light);
        pages.text_at(
            MARGIN + 4.0,
            top + BODY_SIZE,
            &(n + 1).to_string(),
            BODY_SIZE,
            true,
            dark,
        );
        let line = format!(
            "{}/{} — {} {} · {}",
            m["library"].as_str().unwrap_or("?"),
            m["doc_id"].as_str().unwrap_or("?"),
            labels.share,
            percent(share(m)),
            labels.verdict(m["verdict"].as_str().unwrap_or("original")),
        );
        pages.text_at(
            MARGIN + 22.0,
            top + BODY_SIZE,
            &line,
            BODY_SIZE,
            true,
            BLACK,
        );
        pages.y += LINE;
        if let Some(title) = m["title"].as_str() {
            let title: String = title.chars().take(110).collect();
            pages.text_at(
                MARGIN + 22.0,
                pages.y + BODY_SIZE,
                &title,
                BODY_SIZE - 1.0,
                false,
                GREY,
            );
            pages.y += LINE;
        }
        pages.gap(2.0);
    }

    pages.gap(10.0);
    pages.paragraph(labels.settings, 12.0, true, BLACK);
    let settings = &report.settings;
    let flag = |on: bool| if on { labels.yes } else { labels.no };
    pages.paragraph(
        &format!(
            "{}: {} · {}: {}",
            labels.passages_shown,
            flag(settings["passages"].as_bool().unwrap_or(false)),
            labels.min_similarity,
            settings["min_similarity"].as_f64().unwrap_or(0.0)
        ),
        BODY_SIZE,
        false,
        BLACK,
    );
    pages.gap(10.0);
    pages.paragraph(
        &format!(
            "{}: {}",
            labels.decision,
            labels.decision(report.decision.as_str())
        ),
        BODY_SIZE,
        true,
        BLACK,
    );
    if let Some(note) = &report.note {
        pages.paragraph(&format!("{}: {note}", labels.note), BODY_SIZE, false, BLACK);
    }

    pages.new_page();
    pages.paragraph(labels.manuscript, 12.0, true, BLACK);
    pages.paragraph(labels.left_out, 9.0, false, GREY);
    pages.gap(6.0);
    let exclusions: Option<Exclusions> =
        serde_json::from_value(report.answer["exclusions"].clone()).ok();
    for paragraph in report.text.split("\n\n") {
        if paragraph.trim().is_empty() {
            continue;
        }
        // Offsets are into the whole text: mark the paragraph by its place in it.
        let offset = report.text[..paragraph.as_ptr() as usize - report.text.as_ptr() as usize]
            .chars()
            .count();
        let shifted: Vec<Value> = matches.iter().map(|m| shift_passages(m, offset)).collect();
        let words = marked_words(paragraph, &shifted, exclusions.as_ref());
        pages.words(&words, BODY_SIZE, false, BLACK, LINE);
        pages.gap(6.0);
    }

    let total = pages.pages.len();
    let pdf_pages = pages
        .pages
        .into_iter()
        .enumerate()
        .map(|(i, ops)| {
            let mut footer = Pages {
                fonts,
                regular: pages.regular.clone(),
                bold: pages.bold.clone(),
                pages: vec![ops],
                y: 0.0,
            };
            let line = format!(
                "{} {} · {} · {} {} {} {}",
                labels.report,
                report.report_id,
                date(report.created),
                labels.page,
                i + 1,
                labels.of,
                total
            );
            footer.text_at(MARGIN, PAGE_HEIGHT - MARGIN / 2.0, &line, 8.0, false, GREY);
            let ops = footer.pages.pop().expect("the page");
            PdfPage::new(Mm::from(Pt(PAGE_WIDTH)), Mm::from(Pt(PAGE_HEIGHT)), ops)
        })
        .collect();
    let bytes = doc
        .with_pages(pdf_pages)
        .save(&PdfSaveOptions::default(), &mut Vec::new());
    Ok(bytes)
}

/// `m` with its passages' query offsets made relative to a paragraph starting at `offset`
/// (code points); passages before it fall below zero and are dropped.
fn shift_passages(m: &Value, offset: usize) -> Value {
    let mut m = m.clone();
    if let Some(passages) = m["passages"].as_array_mut() {
        passages.retain_mut(|p| {
            let start = p["query"]["start"].as_u64().unwrap_or(0) as usize;
            let end = p["query"]["end"].as_u64().unwrap_or(0) as usize;
            if end <= offset {
                return false;
            }
            p["query"]["start"] = start.saturating_sub(offset).into();
            p["query"]["end"] = (end - offset).into();
            true
        });
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_take_the_source_of_the_passage_that_covers_them() {
        let text = "one two three four five";
        let matches = vec![serde_json::json!({
            "passages": [{"query": {"start": 4, "end": 13}}]
        })];
        let words = marked_words(text, &matches, None);
        let sources: Vec<Option<usize>> = words.iter().map(|w| w.source).collect();
        assert_eq!(sources, [None, Some(1), Some(1), None, None]);
        assert_eq!(words[1].mark.as_deref(), Some("1"));
        assert_eq!(words[2].mark, None);
    }

    #[test]
    fn passages_left_out_of_the_figures_are_marked_as_such() {
        let text = "one two three four five six";
        let matches = vec![
            serde_json::json!({"passages": [
                {"query": {"start": 0, "end": 7}, "kind": "quoted"},
                {"query": {"start": 8, "end": 13}, "kind": "copied"},
            ]}),
            serde_json::json!({"counted": false, "passages": [
                {"query": {"start": 19, "end": 23}, "kind": "copied"},
            ]}),
        ];
        let exclusions: Exclusions = serde_json::from_value(serde_json::json!({
            "quotes": true, "bibliography": true, "front_matter": true, "boilerplate": true,
            "small_matches": 0, "sources": []
        }))
        .unwrap();
        let words = marked_words(text, &matches, Some(&exclusions));
        let left_out: Vec<bool> = words.iter().map(|w| w.left_out).collect();
        assert_eq!(left_out, [true, true, false, false, true, false]);
        // A report made before exclusions: everything counts.
        assert!(
            marked_words(text, &matches[..1], None)
                .iter()
                .all(|w| !w.left_out)
        );
    }
}
