//! What `pdf-extract` 0.10 misreads, rewritten in the document before it interprets a page.
//!
//! **Glyph widths.** A composite (CID) font lists its glyphs' widths in a `W` array of two
//! forms (PDF 32000-1, 9.7.4.3): `c [w1 w2 …]`, widths of consecutive glyphs from `c`, and
//! `c_first c_last w`, one width for a range. `pdf-extract` reads only the first form: a glyph
//! of a range gets the font's default width (`DW`, often 250 of 1000) instead of its own. Its
//! position is still right (the content stream places it), but where it ends is computed too
//! short, and the gap to the next glyph, which decides a word space, reads as a space: Chromium
//! and Skia write ranges for runs of equal widths, and «Проблема» came out as «Проб лема». Every
//! range is written in the first form, so that each glyph has its own width.
//!
//! **Forms.** `Do` paints a form XObject with its `Matrix` concatenated to the current
//! transformation, inside a saved graphics state (8.10.1); `pdf-extract` interprets the form
//! with a fresh state, the page's transformation and the form's matrix both lost, so a figure
//! placed as a scaled form reads off the page (dropped, and counted as hidden text). The
//! transformation at each form's first `Do` is followed through the pages, and the form's
//! content wrapped in `q <that transformation> cm … Q`.

use std::collections::HashMap;

use lopdf::content::Content;
use lopdf::{Document, Object, ObjectId, Stream};

use super::budget::Budget;
use super::error::ExtractError;
use super::pdf_bounds;
use super::pdf_hidden::{IDENTITY, Matrix, multiply};

/// The most glyphs one range may widen: a CID is 16 bits, so no honest range is longer.
const MAX_RANGE: i64 = 65_536;

/// The most widths written for one font, ranges and lists together.
const MAX_WIDTHS: usize = 200_000;

/// Rewrites the `W` arrays of every CID font of the document in the list form.
pub(super) fn repair_widths(document: &mut Document, budget: &Budget) -> Result<(), ExtractError> {
    let fonts: Vec<ObjectId> = document
        .objects
        .iter()
        .filter(|(_, object)| is_cid_font(object))
        .map(|(id, _)| *id)
        .collect();
    for id in fonts {
        budget.go_on()?;
        let Some(widths) = font_widths(document, id) else {
            continue;
        };
        let Some(listed) = listed_widths(document, &widths) else {
            continue;
        };
        if let Ok(Object::Dictionary(dict)) = document.get_object_mut(id) {
            dict.set("W", Object::Array(listed));
        }
    }
    Ok(())
}

/// Forms nested deeper than this are left as they are.
const MAX_FORM_DEPTH: u32 = 12;

/// Places every form where `Do` draws it: `pdf-extract` interprets a form with a fresh
/// graphics state, so its content is wrapped in `q <its Matrix × the transformation at the
/// first Do that draws it> cm … Q`. A form drawn in several places reads at the first; a form
/// no page draws gets its own matrix only.
pub(super) fn place_forms(document: &mut Document, budget: &Budget) -> Result<(), ExtractError> {
    let mut placed: HashMap<ObjectId, Matrix> = HashMap::new();
    for page_id in document.get_pages().into_values() {
        budget.go_on()?;
        let Ok(content) = document.get_page_content(page_id) else {
            continue;
        };
        let resources = pdf_bounds::page_resources(document, page_id);
        walk(document, &content, resources, IDENTITY, 0, &mut placed);
    }
    let forms: Vec<ObjectId> = document
        .objects
        .iter()
        .filter(|(_, object)| {
            matches!(object, Object::Stream(stream)
                if stream.dict.get(b"Subtype").and_then(Object::as_name).is_ok_and(|n| n == b"Form"))
        })
        .map(|(id, _)| *id)
        .collect();
    for id in forms {
        budget.go_on()?;
        let matrix = match placed.get(&id) {
            Some(matrix) => Some(*matrix),
            None => document
                .get_object(id)
                .ok()
                .and_then(|o| o.as_stream().ok())
                .and_then(|stream| form_matrix(document, stream)),
        };
        if let Ok(Object::Stream(stream)) = document.get_object_mut(id) {
            wrap_form(stream, matrix.filter(|m| *m != IDENTITY));
        }
    }
    Ok(())
}

/// Follows the transformation through a content stream (`q`, `Q`, `cm`) and records, for each
/// form it draws first, the transformation the form's content is drawn with.
fn walk(
    document: &Document,
    content: &[u8],
    resources: Option<&lopdf::Dictionary>,
    start: Matrix,
    depth: u32,
    placed: &mut HashMap<ObjectId, Matrix>,
) {
    let Ok(content) = Content::decode(content) else {
        return;
    };
    let mut ctm = start;
    let mut saved = Vec::new();
    for operation in &content.operations {
        match operation.operator.as_str() {
            "q" => saved.push(ctm),
            "Q" => ctm = saved.pop().unwrap_or(start),
            "cm" => {
                let numbers: Option<Vec<f64>> = operation
                    .operands
                    .iter()
                    .map(|n| number(n).map(f64::from))
                    .collect();
                if let Some(Ok(m)) = numbers.map(Matrix::try_from) {
                    ctm = multiply(&m, &ctm);
                }
            }
            "Do" => {
                let Some(name) = operation.operands.first().and_then(|o| o.as_name().ok()) else {
                    continue;
                };
                let Some((id, own, stream)) = pdf_bounds::form(document, resources, name) else {
                    continue;
                };
                if placed.contains_key(&id) || depth >= MAX_FORM_DEPTH {
                    continue;
                }
                let matrix = form_matrix(document, stream).unwrap_or(IDENTITY);
                let at = multiply(&matrix, &ctm);
                placed.insert(id, at);
                walk(
                    document,
                    &stream.content,
                    own.or(resources),
                    at,
                    depth + 1,
                    placed,
                );
            }
            _ => {}
        }
    }
}

/// A form's `Matrix`, when it has six numbers and is not the identity.
fn form_matrix(document: &Document, stream: &Stream) -> Option<Matrix> {
    let matrix = resolve(document, stream.dict.get(b"Matrix").ok()?)?
        .as_array()
        .ok()?;
    let numbers: Vec<f64> = matrix
        .iter()
        .map(|n| resolve(document, n).and_then(number).map(f64::from))
        .collect::<Option<_>>()?;
    let matrix: Matrix = numbers.try_into().ok()?;
    (matrix != IDENTITY).then_some(matrix)
}

/// The form's content inside a saved state, its matrix applied first. A stream lopdf could not
/// decode (its raw bytes kept) is left as it is.
fn wrap_form(stream: &mut Stream, matrix: Option<Matrix>) {
    if stream.dict.has(b"Filter") {
        return;
    }
    let mut content = b"q\n".to_vec();
    if let Some(m) = matrix {
        content.extend_from_slice(
            format!("{} {} {} {} {} {} cm\n", m[0], m[1], m[2], m[3], m[4], m[5]).as_bytes(),
        );
    }
    content.extend_from_slice(&stream.content);
    content.extend_from_slice(b"\nQ\n");
    stream.set_plain_content(content);
    stream.dict.remove(b"Matrix");
}

fn is_cid_font(object: &Object) -> bool {
    let Object::Dictionary(dict) = object else {
        return false;
    };
    dict.get(b"Subtype")
        .and_then(Object::as_name)
        .is_ok_and(|name| name == b"CIDFontType0" || name == b"CIDFontType2")
}

/// The font's `W` array, resolved, when it has a range to rewrite.
fn font_widths(document: &Document, id: ObjectId) -> Option<Vec<Object>> {
    let dict = document.get_dictionary(id).ok()?;
    let widths = resolve(document, dict.get(b"W").ok()?)?.as_array().ok()?;
    let widths: Vec<Object> = widths
        .iter()
        .map(|item| resolve(document, item).cloned())
        .collect::<Option<_>>()?;
    let has_range = widths
        .windows(2)
        .any(|pair| number(&pair[0]).is_some() && number(&pair[1]).is_some());
    has_range.then_some(widths)
}

/// `W` in the list form only: each range `c_first c_last w` becomes `c_first [w w … w]`.
/// `None` for an array that does not follow the grammar or would grow past the bounds: it is
/// left as it was.
fn listed_widths(document: &Document, widths: &[Object]) -> Option<Vec<Object>> {
    let mut out = Vec::new();
    let mut count = 0usize;
    let mut i = 0;
    while i < widths.len() {
        let first = widths[i].as_i64().ok()?;
        match widths.get(i + 1)? {
            Object::Array(list) => {
                let list: Vec<Object> = list
                    .iter()
                    .map(|w| resolve(document, w).cloned())
                    .collect::<Option<_>>()?;
                count += list.len();
                out.push(Object::Integer(first));
                out.push(Object::Array(list));
                i += 2;
            }
            last => {
                let last = last.as_i64().ok()?;
                let width = widths.get(i + 2).and_then(number)?;
                let length = last.checked_sub(first)?.checked_add(1)?;
                if !(1..=MAX_RANGE).contains(&length) {
                    return None;
                }
                count += usize::try_from(length).ok()?;
                out.push(Object::Integer(first));
                out.push(Object::Array(vec![Object::Real(width); length as usize]));
                i += 3;
            }
        }
        if count > MAX_WIDTHS {
            return None;
        }
    }
    Some(out)
}

fn resolve<'a>(document: &'a Document, object: &'a Object) -> Option<&'a Object> {
    match object {
        Object::Reference(id) => document.get_object(*id).ok(),
        other => Some(other),
    }
}

fn number(object: &Object) -> Option<f32> {
    match object {
        Object::Integer(n) => Some(*n as f32),
        Object::Real(r) => Some(*r),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use lopdf::dictionary;

    use super::*;
    use crate::extract::ExtractLimits;

    #[test]
    fn ranges_of_widths_become_lists_and_lists_stay() {
        let mut document = Document::with_version("1.7");
        let font = document.add_object(dictionary! {
            "Type" => "Font",
            "Subtype" => "CIDFontType2",
            "DW" => 250,
            "W" => vec![
                0.into(), vec![Object::Real(365.2)].into(),
                441.into(), 443.into(), Object::Real(777.8),
                444.into(), vec![610.into(), 722.into()].into(),
            ],
        });
        let budget = Budget::new(
            &ExtractLimits::default(),
            dupfinder_common::cancel::CancelFlag::new(),
        );
        repair_widths(&mut document, &budget).unwrap();
        let widths = document
            .get_dictionary(font)
            .unwrap()
            .get(b"W")
            .unwrap()
            .as_array()
            .unwrap()
            .clone();
        assert_eq!(
            widths,
            vec![
                0.into(),
                vec![Object::Real(365.2)].into(),
                441.into(),
                vec![Object::Real(777.8); 3].into(),
                444.into(),
                vec![610.into(), 722.into()].into(),
            ]
        );
    }

    #[test]
    fn a_form_is_drawn_with_its_matrix_inside_a_saved_state() {
        let mut stream = Stream::new(
            dictionary! { "Subtype" => "Form", "Matrix" => vec![
                Object::Real(0.5), 0.into(), 0.into(), Object::Real(0.5), 10.into(), 20.into(),
            ] },
            b"BT (x) Tj ET".to_vec(),
        );
        let document = Document::with_version("1.7");
        let matrix = form_matrix(&document, &stream);
        wrap_form(&mut stream, matrix);
        assert_eq!(
            stream.content,
            b"q\n0.5 0 0 0.5 10 20 cm\nBT (x) Tj ET\nQ\n"
        );
        assert!(!stream.dict.has(b"Matrix"));
        let mut plain = Stream::new(
            dictionary! { "Subtype" => "Form" },
            b"1 0 0 1 5 5 cm".to_vec(),
        );
        wrap_form(&mut plain, None);
        assert_eq!(plain.content, b"q\n1 0 0 1 5 5 cm\nQ\n");
    }

    #[test]
    fn a_range_past_the_bounds_is_left_alone() {
        let document = Document::with_version("1.7");
        let huge = [0.into(), 10_000_000.into(), 500.into()];
        assert_eq!(listed_widths(&document, &huge), None);
        let backwards = [10.into(), 5.into(), 500.into()];
        assert_eq!(listed_widths(&document, &backwards), None);
    }
}
