//! Text a PDF draws so that nobody reading the page sees it, while a copy-paste (and an
//! extractor) still gets it: glyphs in render mode 3 or 7 (neither filled nor stroked), and glyphs
//! filled in white. Writers use it to pad a copy with words that dilute its likeness to the
//! source, or to hide the source's words from a reader; a check reports it as `hidden_text`.
//!
//! A scanned page with an OCR layer draws its words invisibly over the page's image: that is
//! how the scan is made searchable, not a disguise. So a page that paints an image and has no
//! visible text does not count its invisible text.
//!
//! White text is hidden only on a white page: white letters on a filled shape of another colour
//! (a diagram's box, a table's dark header) or on an image are seen. So the pass keeps where
//! non-white shapes and images were painted, and white text whose origin lies on one is
//! visible. One glyph alone hides no word: a template's footnote mark left white is not counted.
//!
//! The pass reads each page's content stream with lopdf, following the graphics state (`q`/`Q`,
//! the transformation, the fill colour, the text render mode, the font, the text position) and
//! counting the glyphs the text operators show. Form XObjects are not entered: text inside them
//! is not counted.

use std::collections::{BTreeMap, HashSet};

use lopdf::content::Content;
use lopdf::{Dictionary, Document, Object, ObjectId};

use super::ExtractError;
use super::budget::Budget;

/// Glyphs a PDF hides from its reader, by how.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct HiddenText {
    /// Shown in render mode 3 or 7: neither filled nor stroked (OCR layers of scans excepted).
    pub invisible: usize,
    /// Filled in white.
    pub white: usize,
}

/// A transformation `[a b c d e f]`, as PDF writes it.
pub(super) type Matrix = [f64; 6];

pub(super) const IDENTITY: Matrix = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];

/// `m` then `n`: the product `m × n` of PDF's row-vector convention.
pub(super) fn multiply(m: &Matrix, n: &Matrix) -> Matrix {
    [
        m[0] * n[0] + m[1] * n[2],
        m[0] * n[1] + m[1] * n[3],
        m[2] * n[0] + m[3] * n[2],
        m[2] * n[1] + m[3] * n[3],
        m[4] * n[0] + m[5] * n[2] + n[4],
        m[4] * n[1] + m[5] * n[3] + n[5],
    ]
}

fn apply(m: &Matrix, x: f64, y: f64) -> (f64, f64) {
    (m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5])
}

/// A rectangle on the page: (x0, y0, x1, y1).
type Area = (f64, f64, f64, f64);

fn grow(area: Option<Area>, (x, y): (f64, f64)) -> Area {
    match area {
        Some((x0, y0, x1, y1)) => (x0.min(x), y0.min(y), x1.max(x), y1.max(y)),
        None => (x, y, x, y),
    }
}

/// The most painted areas kept for a page.
const MAX_AREAS: usize = 4096;

/// What the graphics state says about the glyphs shown next.
#[derive(Debug, Clone, Copy)]
struct State {
    render_mode: i64,
    white_fill: bool,
    /// The current font is a composite (Type0) font: two bytes per glyph.
    two_byte_font: bool,
    ctm: Matrix,
}

impl Default for State {
    fn default() -> Self {
        State {
            render_mode: 0,
            white_fill: false,
            two_byte_font: false,
            ctm: IDENTITY,
        }
    }
}

/// The text position: the line matrix and the leading (`TL`).
#[derive(Debug, Clone, Copy)]
struct TextPosition {
    line: Matrix,
    leading: f64,
}

impl TextPosition {
    fn move_by(&mut self, tx: f64, ty: f64) {
        self.line = multiply(&[1.0, 0.0, 0.0, 1.0, tx, ty], &self.line);
    }
}

impl State {
    fn invisible(&self) -> bool {
        matches!(self.render_mode, 3 | 7)
    }

    /// Whether the glyphs are only filled (modes 0, 4), so a white fill makes them unseen.
    fn fill_only(&self) -> bool {
        matches!(self.render_mode, 0 | 4)
    }
}

/// The glyphs of one page, by how they are drawn.
#[derive(Debug, Default)]
struct PageGlyphs {
    visible: usize,
    invisible: usize,
    white: usize,
    draws_image: bool,
}

/// Counts the hidden glyphs of the pages `page_ids`. A page whose content cannot be decoded
/// counts nothing: the text extraction reports damage, this pass only looks. It stops when the
/// extraction must (its pages' work was taken from the budget before they were interpreted).
pub(super) fn hidden_text(
    document: &Document,
    page_ids: &BTreeMap<u32, ObjectId>,
    budget: &Budget,
) -> Result<HiddenText, ExtractError> {
    let mut hidden = HiddenText::default();
    for &page_id in page_ids.values() {
        budget.go_on()?;
        let Some(page) = page_glyphs(document, page_id) else {
            continue;
        };
        let ocr_layer = page.draws_image && page.visible == 0;
        if !ocr_layer {
            hidden.invisible += page.invisible;
        }
        hidden.white += page.white;
    }
    Ok(hidden)
}

fn page_glyphs(document: &Document, page_id: ObjectId) -> Option<PageGlyphs> {
    let bytes = document.get_page_content(page_id).ok()?;
    let content = Content::decode(&bytes).ok()?;
    let composite_fonts: HashSet<Vec<u8>> = document
        .get_page_fonts(page_id)
        .ok()?
        .into_iter()
        .filter(|(_, font)| is_name(font.get(b"Subtype").ok(), b"Type0"))
        .map(|(name, _)| name)
        .collect();
    let images = image_names(document, page_id);
    let mut page = PageGlyphs::default();
    let mut state = State::default();
    let mut saved: Vec<State> = Vec::new();
    let mut text = TextPosition {
        line: IDENTITY,
        leading: 0.0,
    };
    // The path being built, and the areas painted in colour (or with images) so far.
    let mut path: Option<Area> = None;
    let mut painted: Vec<Area> = Vec::new();
    let numbers =
        |operands: &[Object]| -> Vec<f64> { operands.iter().filter_map(number).collect() };
    for operation in &content.operations {
        let operands = &operation.operands;
        match operation.operator.as_str() {
            "q" => saved.push(state),
            "Q" => state = saved.pop().unwrap_or_default(),
            "cm" => {
                if let Ok(m) = <Matrix>::try_from(numbers(operands)) {
                    state.ctm = multiply(&m, &state.ctm);
                }
            }
            "re" => {
                if let [x, y, w, h] = numbers(operands)[..] {
                    for corner in [(x, y), (x + w, y + h), (x + w, y), (x, y + h)] {
                        path = Some(grow(path, apply(&state.ctm, corner.0, corner.1)));
                    }
                }
            }
            "m" | "l" | "c" | "v" | "y" => {
                for point in numbers(operands).chunks_exact(2) {
                    path = Some(grow(path, apply(&state.ctm, point[0], point[1])));
                }
            }
            "f" | "F" | "f*" | "B" | "B*" | "b" | "b*" => {
                if let Some(area) = path.take()
                    && !state.white_fill
                    && painted.len() < MAX_AREAS
                {
                    painted.push(area);
                }
            }
            "S" | "s" | "n" => path = None,
            "BT" => text.line = IDENTITY,
            "Tm" => {
                if let Ok(m) = <Matrix>::try_from(numbers(operands)) {
                    text.line = m;
                }
            }
            "Td" | "TD" => {
                if let [tx, ty] = numbers(operands)[..] {
                    if operation.operator == "TD" {
                        text.leading = -ty;
                    }
                    text.move_by(tx, ty);
                }
            }
            "TL" => text.leading = numbers(operands).first().copied().unwrap_or(0.0),
            "T*" => text.move_by(0.0, -text.leading),
            "Tr" => state.render_mode = operands.first().and_then(number).unwrap_or(0.0) as i64,
            "Tf" => {
                state.two_byte_font = operands
                    .first()
                    .and_then(|o| o.as_name().ok())
                    .is_some_and(|name| composite_fonts.contains(name));
            }
            "g" | "rg" | "k" | "sc" | "scn" => state.white_fill = is_white(operands),
            "cs" => state.white_fill = false,
            "Do" | "BI" => {
                let name = operands.first().and_then(|o| o.as_name().ok());
                let image = operation.operator == "BI" || name.is_some_and(|n| images.contains(n));
                page.draws_image |= image;
                if image && painted.len() < MAX_AREAS {
                    // An image fills the unit square of its transformation.
                    let mut area = None;
                    for (x, y) in [(0.0, 0.0), (1.0, 1.0), (1.0, 0.0), (0.0, 1.0)] {
                        area = Some(grow(area, apply(&state.ctm, x, y)));
                    }
                    painted.extend(area);
                }
            }
            "Tj" | "'" | "\"" | "TJ" => {
                if operation.operator != "Tj" && operation.operator != "TJ" {
                    text.move_by(0.0, -text.leading);
                }
                let glyphs: usize = operands
                    .iter()
                    .map(|operand| shown_glyphs(operand, state.two_byte_font))
                    .sum();
                let (x, y) = apply(&state.ctm, text.line[4], text.line[5]);
                let on_colour = painted
                    .iter()
                    .any(|&(x0, y0, x1, y1)| x0 <= x && x <= x1 && y0 <= y && y <= y1);
                let hidden = state.invisible() || state.white_fill && state.fill_only();
                if hidden && glyphs < 2 {
                    // One glyph alone hides no word.
                } else if state.invisible() {
                    page.invisible += glyphs;
                } else if state.white_fill && state.fill_only() && !on_colour {
                    page.white += glyphs;
                } else {
                    page.visible += glyphs;
                }
            }
            _ => {}
        }
    }
    Some(page)
}

/// The glyphs a text operator's operand shows: a string, or an array of strings and kerning.
/// Spaces are not counted: they hide nothing.
fn shown_glyphs(operand: &Object, two_byte_font: bool) -> usize {
    match operand {
        Object::String(bytes, _) if two_byte_font => bytes
            .chunks(2)
            .filter(|pair| !matches!(pair, [0, b' '] | [b' ']))
            .count(),
        Object::String(bytes, _) => bytes.iter().filter(|b| !b.is_ascii_whitespace()).count(),
        Object::Array(items) => items
            .iter()
            .map(|item| shown_glyphs(item, two_byte_font))
            .sum(),
        _ => 0,
    }
}

/// Whether a colour operator's operands give white: gray 1, RGB 1 1 1, CMYK 0 0 0 0 (a pattern
/// or a colour of another space is not taken for white).
fn is_white(operands: &[Object]) -> bool {
    let values: Option<Vec<f64>> = operands.iter().map(number).collect();
    match values.as_deref() {
        Some([gray]) => *gray >= 0.99,
        Some([r, g, b]) => [r, g, b].iter().all(|&&v| v >= 0.99),
        Some([c, m, y, k]) => [c, m, y, k].iter().all(|&&v| v <= 0.01),
        _ => false,
    }
}

fn number(object: &Object) -> Option<f64> {
    match object {
        Object::Integer(i) => Some(*i as f64),
        Object::Real(r) => Some(f64::from(*r)),
        _ => None,
    }
}

fn is_name(object: Option<&Object>, name: &[u8]) -> bool {
    object.and_then(|o| o.as_name().ok()) == Some(name)
}

/// The names under which the page's resources (its own and those it inherits) hold images,
/// and forms that hold images themselves (a scan's page is often one form around its image).
fn image_names(document: &Document, page_id: ObjectId) -> HashSet<Vec<u8>> {
    let mut names = HashSet::new();
    let Ok((own, inherited)) = document.get_page_resources(page_id) else {
        return names;
    };
    let resources = own.into_iter().chain(
        inherited
            .iter()
            .filter_map(|&id| document.get_dictionary(id).ok()),
    );
    for resources in resources {
        for (name, xobject) in xobjects(document, resources) {
            let is_image = is_name(xobject.get(b"Subtype").ok(), b"Image");
            let form_with_image = is_name(xobject.get(b"Subtype").ok(), b"Form")
                && xobject
                    .get(b"Resources")
                    .ok()
                    .and_then(|r| dictionary(document, r))
                    .is_some_and(|r| {
                        xobjects(document, r)
                            .iter()
                            .any(|(_, x)| is_name(x.get(b"Subtype").ok(), b"Image"))
                    });
            if is_image || form_with_image {
                names.insert(name);
            }
        }
    }
    names
}

/// The XObjects of a resource dictionary: each name with its stream's dictionary.
fn xobjects<'a>(
    document: &'a Document,
    resources: &'a Dictionary,
) -> Vec<(Vec<u8>, &'a Dictionary)> {
    let Some(table) = resources
        .get(b"XObject")
        .ok()
        .and_then(|x| dictionary(document, x))
    else {
        return Vec::new();
    };
    table
        .iter()
        .filter_map(|(name, value)| {
            let object = match value {
                Object::Reference(id) => document.get_object(*id).ok()?,
                object => object,
            };
            let dict = match object {
                Object::Stream(stream) => &stream.dict,
                Object::Dictionary(dict) => dict,
                _ => return None,
            };
            Some((name.clone(), dict))
        })
        .collect()
}

/// A dictionary given in place or by reference.
fn dictionary<'a>(document: &'a Document, object: &'a Object) -> Option<&'a Dictionary> {
    match object {
        Object::Reference(id) => document.get_dictionary(*id).ok(),
        Object::Dictionary(dict) => Some(dict),
        _ => None,
    }
}

#[cfg(test)]
pub(super) mod tests {
    use lopdf::content::Operation;
    use lopdf::{Stream, dictionary};

    use super::*;

    /// One page's drawing: text runs `(render mode, fill gray, text)` at 12 pt, and an image
    /// painted under them when `image` is set.
    pub(crate) struct PageSpec<'a> {
        pub runs: &'a [(i64, f32, &'a str)],
        pub image: bool,
    }

    /// A PDF of the given pages, written with lopdf: Helvetica text, an 8×8 gray image.
    pub(crate) fn pdf_of(pages: &[PageSpec]) -> Vec<u8> {
        let mut doc = Document::with_version("1.5");
        let pages_id = doc.new_object_id();
        let font_id = doc.add_object(dictionary! {
            "Type" => "Font",
            "Subtype" => "Type1",
            "BaseFont" => "Helvetica",
            "Encoding" => "WinAnsiEncoding",
        });
        let image_id = doc.add_object(Stream::new(
            dictionary! {
                "Type" => "XObject",
                "Subtype" => "Image",
                "Width" => 8,
                "Height" => 8,
                "ColorSpace" => "DeviceGray",
                "BitsPerComponent" => 8,
            },
            vec![128u8; 64],
        ));
        let mut kids = Vec::new();
        for spec in pages {
            let mut operations = Vec::new();
            if spec.image {
                operations.extend([
                    Operation::new("q", vec![]),
                    Operation::new(
                        "cm",
                        vec![
                            595.into(),
                            0.into(),
                            0.into(),
                            842.into(),
                            0.into(),
                            0.into(),
                        ],
                    ),
                    Operation::new("Do", vec![Object::Name(b"Im1".to_vec())]),
                    Operation::new("Q", vec![]),
                ]);
            }
            for (line, (mode, gray, text)) in spec.runs.iter().enumerate() {
                operations.extend([
                    Operation::new("BT", vec![]),
                    Operation::new("Tf", vec![Object::Name(b"F1".to_vec()), 12.into()]),
                    Operation::new("Tr", vec![(*mode).into()]),
                    Operation::new("g", vec![(*gray).into()]),
                    Operation::new("Td", vec![72.into(), (760 - 16 * line as i64).into()]),
                    Operation::new("Tj", vec![Object::string_literal(*text)]),
                    Operation::new("ET", vec![]),
                ]);
            }
            let content = Content { operations };
            let content_id = doc.add_object(Stream::new(dictionary! {}, content.encode().unwrap()));
            kids.push(Object::Reference(doc.add_object(dictionary! {
                "Type" => "Page",
                "Parent" => pages_id,
                "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
                "Contents" => content_id,
                "Resources" => dictionary! {
                    "Font" => dictionary! { "F1" => font_id },
                    "XObject" => dictionary! { "Im1" => image_id },
                },
            })));
        }
        let count = kids.len() as i64;
        doc.objects.insert(
            pages_id,
            Object::Dictionary(dictionary! { "Type" => "Pages", "Kids" => kids, "Count" => count }),
        );
        let catalog_id = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
        doc.trailer.set("Root", catalog_id);
        let mut bytes = Vec::new();
        doc.save_to(&mut bytes).unwrap();
        bytes
    }

    fn hidden_in(pages: &[PageSpec]) -> HiddenText {
        let document = Document::load_mem(&pdf_of(pages)).unwrap();
        let budget = Budget::new(&Default::default(), Default::default());
        hidden_text(&document, &document.get_pages(), &budget).unwrap()
    }

    const BODY: &str = "Visible words of the paper that a reader sees on the page";

    #[test]
    fn white_and_invisible_text_is_counted() {
        let hidden = hidden_in(&[PageSpec {
            runs: &[(0, 0.0, BODY), (0, 1.0, "white words"), (3, 0.0, "unseen")],
            image: false,
        }]);
        assert_eq!(
            hidden,
            HiddenText {
                invisible: 6,
                white: 10
            }
        );
    }

    #[test]
    fn an_honest_page_hides_nothing() {
        let hidden = hidden_in(&[PageSpec {
            runs: &[
                (0, 0.0, BODY),
                (0, 0.2, "gray caption"),
                (2, 1.0, "white filled, black stroked"),
            ],
            image: true,
        }]);
        assert_eq!(hidden, HiddenText::default());
    }

    #[test]
    fn white_text_on_a_coloured_shape_or_an_image_is_seen() {
        // A white label on a dark box of a diagram, and a white footnote mark alone.
        let text_at = |x: i64, y: i64| {
            let matrix = [1, 0, 0, 1, x, y].map(Object::Integer).to_vec();
            Operation::new("Tm", matrix)
        };
        let operations = vec![
            Operation::new("q", vec![]),
            Operation::new(
                "cm",
                vec![1.into(), 0.into(), 0.into(), 1.into(), 100.into(), 0.into()],
            ),
            Operation::new(
                "rg",
                vec![Object::Real(0.46), Object::Real(0.44), Object::Real(0.44)],
            ),
            Operation::new("re", vec![21.into(), 422.into(), 377.into(), 51.into()]),
            Operation::new("f*", vec![]),
            Operation::new("Q", vec![]),
            Operation::new("BT", vec![]),
            Operation::new("g", vec![1.into()]),
            text_at(226, 456),
            Operation::new("Tj", vec![Object::string_literal("label")]),
            text_at(301, 700),
            Operation::new("Tj", vec![Object::string_literal("1")]),
            Operation::new("TL", vec![14.into()]),
            Operation::new("T*", vec![]),
            Operation::new("Tj", vec![Object::string_literal("padding words")]),
            Operation::new("ET", vec![]),
        ];
        let content = Content { operations }.encode().unwrap();
        let mut document = Document::load_mem(&pdf_of(&[PageSpec {
            runs: &[(0, 0.0, BODY)],
            image: false,
        }]))
        .unwrap();
        let page_id = *document.get_pages().values().next().unwrap();
        document.add_page_contents(page_id, content).unwrap();
        let budget = Budget::new(&Default::default(), Default::default());
        let hidden = hidden_text(&document, &document.get_pages(), &budget).unwrap();
        // Only the white words on the white page below the mark are hidden.
        assert_eq!(hidden.white, 12);
        let over_image = hidden_in(&[PageSpec {
            runs: &[(0, 0.0, BODY), (0, 1.0, "white on the picture")],
            image: true,
        }]);
        assert_eq!(over_image, HiddenText::default());
    }

    #[test]
    fn the_ocr_layer_of_a_scan_is_not_hidden_text() {
        let scan = PageSpec {
            runs: &[(3, 0.0, "recognised words of the scanned page")],
            image: true,
        };
        assert_eq!(hidden_in(&[scan]), HiddenText::default());
        // On a page a reader sees text on, invisible text hides, image or not.
        let padded = PageSpec {
            runs: &[(0, 0.0, BODY), (3, 0.0, "recognised")],
            image: true,
        };
        assert_eq!(hidden_in(&[padded]).invisible, 10);
    }

    #[test]
    fn an_extracted_pdf_reports_its_hidden_letters() {
        let bytes = pdf_of(&[PageSpec {
            runs: &[(0, 0.0, BODY), (0, 1.0, "white words"), (7, 0.0, "unseen")],
            image: false,
        }]);
        let document = crate::extract::extract(&bytes, &Default::default()).unwrap();
        assert!(document.text.contains("Visible words"), "{}", document.text);
        assert_eq!(document.hidden_characters, 16);
    }
}
