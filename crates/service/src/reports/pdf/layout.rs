//! Laying out the PDF report: A4 pages written top to bottom, text wrapped to the page's width
//! and measured with the embedded fonts, words highlighted in a source's colour.

use std::sync::OnceLock;

use printpdf::{Color, FontId, Op, Point, Pt, Rect, Rgb, TextItem};

use super::PdfError;

pub(super) static REGULAR_TTF: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");
pub(super) static BOLD_TTF: &[u8] = include_bytes!("../fonts/DejaVuSans-Bold.ttf");

/// A4, in points.
pub(super) const PAGE_WIDTH: f32 = 595.28;
pub(super) const PAGE_HEIGHT: f32 = 841.89;
pub(super) const MARGIN: f32 = 56.0;
pub(super) const BODY_SIZE: f32 = 10.0;
pub(super) const LINE: f32 = 14.5;

/// A colour's red, green and blue, 0..1.
pub(super) type Shade = (f32, f32, f32);

const fn hex(rgb: u32) -> Shade {
    (
        ((rgb >> 16) & 0xff) as f32 / 255.0,
        ((rgb >> 8) & 0xff) as f32 / 255.0,
        (rgb & 0xff) as f32 / 255.0,
    )
}

/// Highlight fills (light) and edges (dark) of sources 1, 2, …, repeating: the web page's
/// colours (`--src-N` and `--src-N-edge` in `app.css`), so a source has one colour everywhere.
pub(super) const PALETTE: [(Shade, Shade); 8] = [
    (hex(0xfde68a), hex(0xb7791f)),
    (hex(0xbfdbfe), hex(0x2b6cb0)),
    (hex(0xfecaca), hex(0xc53030)),
    (hex(0xc6f6d5), hex(0x2f855a)),
    (hex(0xe9d8fd), hex(0x6b46c1)),
    (hex(0xfed7aa), hex(0xc05621)),
    (hex(0xb2f5ea), hex(0x2c7a7b)),
    (hex(0xfbd5e8), hex(0xb83280)),
];

/// The colours of source `number` (1-based).
pub(super) fn source_colours(number: usize) -> (Shade, Shade) {
    PALETTE[(number.max(1) - 1) % PALETTE.len()]
}

pub(super) const BLACK: Shade = hex(0x1f2328);
pub(super) const GREY: Shade = hex(0x5b6770);
/// The fill and the mark of a passage left out of the figures (the page's grey).
pub(super) const LEFT_OUT: Shade = hex(0xe6e3dc);
pub(super) const LEFT_OUT_EDGE: Shade = hex(0x8d877b);

fn rgb((r, g, b): Shade) -> Color {
    Color::Rgb(Rgb {
        r,
        g,
        b,
        icc_profile: None,
    })
}

/// The two faces, parsed once, for measuring advances (printpdf parses its own copy per
/// document: its parsed font is not shared between threads).
pub(super) struct Fonts {
    regular_face: ttf_parser::Face<'static>,
    bold_face: ttf_parser::Face<'static>,
}

pub(super) fn fonts() -> Result<&'static Fonts, PdfError> {
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

impl Fonts {
    /// Width of `text` at `size` points.
    pub(super) fn width(&self, text: &str, size: f32, bold: bool) -> f32 {
        let face = if bold {
            &self.bold_face
        } else {
            &self.regular_face
        };
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

    fn word_width(&self, word: &Word, size: f32, bold: bool) -> f32 {
        let mark = word
            .mark
            .as_ref()
            .map_or(0.0, |m| self.width(m, size * 0.75, true) + 1.0);
        mark + self.width(&word.text, size, bold)
    }
}

/// Where a line may break: white space, but not the no-break space that keeps `83,3 %` and
/// `1 549` whole.
pub(super) fn breaks(c: char) -> bool {
    c.is_whitespace() && c != crate::reports::numbers::NBSP
}

/// A word to write and what marks it.
pub(super) struct Word {
    pub(super) text: String,
    /// The number (1-based) of the source whose passage holds the word.
    pub(super) source: Option<usize>,
    /// The source's number, before the first word of a passage.
    pub(super) mark: Option<String>,
    /// The passage is left out of the figures (an excluded kind, or a source not counted):
    /// filled grey rather than in the source's colour.
    pub(super) left_out: bool,
}

impl Word {
    pub(super) fn plain(text: &str) -> Word {
        Word {
            text: text.to_string(),
            source: None,
            mark: None,
            left_out: false,
        }
    }
}

/// Pages being written, top to bottom.
pub(super) struct Pages<'a> {
    pub(super) fonts: &'a Fonts,
    pub(super) regular: FontId,
    pub(super) bold: FontId,
    pub(super) pages: Vec<Vec<Op>>,
    /// Distance of the next line's baseline from the page's top.
    pub(super) y: f32,
    /// Where lines begin: the margin, or further in for an indented block.
    pub(super) left: f32,
}

impl Pages<'_> {
    fn ops(&mut self) -> &mut Vec<Op> {
        self.pages.last_mut().expect("a page")
    }

    pub(super) fn new_page(&mut self) {
        self.pages.push(Vec::new());
        self.y = MARGIN + 10.0;
    }

    /// Room for `height` more points on this page, or a new page.
    pub(super) fn room(&mut self, height: f32) {
        if self.y + height > PAGE_HEIGHT - MARGIN {
            self.new_page();
        }
    }

    pub(super) fn gap(&mut self, points: f32) {
        self.y += points;
    }

    pub(super) fn text_at(&mut self, x: f32, y_from_top: f32, text: &str, style: Style) {
        let font = if style.bold {
            self.bold.clone()
        } else {
            self.regular.clone()
        };
        self.ops().extend([
            Op::StartTextSection,
            Op::SetFillColor {
                col: rgb(style.colour),
            },
            Op::SetFontSize {
                size: Pt(style.size),
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
    pub(super) fn fill(&mut self, x: f32, y_from_top: f32, w: f32, h: f32, colour: Shade) {
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

    /// A source's number in a box of its colour, its top `y_from_top` below the page's top.
    pub(super) fn swatch(&mut self, x: f32, y_from_top: f32, number: usize) {
        let (light, dark) = source_colours(number);
        let label = number.to_string();
        let w = self.fonts.width(&label, BODY_SIZE, true).max(7.0) + 8.0;
        self.fill(x, y_from_top, w, 13.0, dark);
        self.fill(x + 1.0, y_from_top + 1.0, w - 2.0, 11.0, light);
        self.text_at(
            x + 4.0,
            y_from_top + 10.0,
            &label,
            Style::bold(BODY_SIZE).colour(BLACK),
        );
    }

    /// Writes `text` wrapped to the page's width, starting on a new line.
    pub(super) fn paragraph(&mut self, text: &str, style: Style) {
        let words: Vec<Word> = text
            .split(breaks)
            .filter(|w| !w.is_empty())
            .map(Word::plain)
            .collect();
        self.words(&words, style, style.size * 1.45);
    }

    /// Writes words wrapped between `left` and the right margin; a word with a source is
    /// highlighted in its colour, and a mark (the source's number) stands before the first
    /// word of a passage.
    pub(super) fn words(&mut self, words: &[Word], style: Style, line: f32) {
        let Style { size, bold, colour } = style;
        let space = self.fonts.width(" ", size, bold);
        let right = PAGE_WIDTH - MARGIN;
        let mut start = 0;
        while start < words.len() {
            // Greedy line breaking; a word wider than the line gets a line of its own.
            let (mut end, mut x) = (start, self.left);
            while end < words.len() {
                let w = self.fonts.word_width(&words[end], size, bold)
                    + if end > start { space } else { 0.0 };
                if end > start && x + w > right {
                    break;
                }
                x += w;
                end += 1;
            }
            self.room(line);
            let baseline = self.y + size;
            let mut x = self.left;
            for (i, word) in words[start..end].iter().enumerate() {
                if i > 0 {
                    x += space;
                }
                let (light, dark) = match word.source {
                    _ if word.left_out => (LEFT_OUT, LEFT_OUT_EDGE),
                    Some(source) => source_colours(source),
                    None => (LEFT_OUT, LEFT_OUT_EDGE),
                };
                if let Some(mark) = &word.mark {
                    let mark_size = size * 0.75;
                    self.text_at(
                        x,
                        baseline - size * 0.35,
                        mark,
                        Style::bold(mark_size).colour(dark),
                    );
                    x += self.fonts.width(mark, mark_size, true) + 1.0;
                }
                let w = self.fonts.width(&word.text, size, bold);
                if let Some(source) = word.source {
                    // The fill reaches into the gap after the word when the next one is
                    // highlighted too, so a passage reads as one band.
                    let next_same = words.get(start + i + 1).is_some_and(|n| {
                        n.source == Some(source)
                            && n.left_out == word.left_out
                            && n.mark.is_none()
                            && start + i + 1 < end
                    });
                    let extra = if next_same { space } else { 0.0 };
                    let top = baseline - size * 0.97;
                    self.fill(x - 0.5, top, w + extra + 1.0, size * 1.25, light);
                    // The page's underline in the source's darker colour.
                    self.fill(x - 0.5, top + size * 1.25 - 1.2, w + extra + 1.0, 1.2, dark);
                }
                self.text_at(x, baseline, &word.text, style.colour(colour));
                x += w;
            }
            self.y += line;
            start = end;
        }
    }
}

/// How a piece of text is written.
#[derive(Debug, Clone, Copy)]
pub(super) struct Style {
    pub(super) size: f32,
    pub(super) bold: bool,
    pub(super) colour: Shade,
}

impl Style {
    pub(super) fn regular(size: f32) -> Style {
        Style {
            size,
            bold: false,
            colour: BLACK,
        }
    }

    pub(super) fn bold(size: f32) -> Style {
        Style {
            size,
            bold: true,
            colour: BLACK,
        }
    }

    pub(super) fn colour(self, colour: Shade) -> Style {
        Style { colour, ..self }
    }
}
