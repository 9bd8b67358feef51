//! lopdf and pdf-extract held to the [`Budget`]: the third-party parsers have no bounds of
//! their own, so the work is measured around them.
//!
//! - [`load`]: lopdf loads the file object by object through a hook that counts objects (and
//!   objects that are pages: a file of 100,000 pages is refused after a thousand, not parsed
//!   whole), decodes object streams under the budget before lopdf would (unbounded), and
//!   stops when the extraction is cancelled or out of time. The hook stops lopdf by a panic
//!   carrying [`Stop`], which `pdf.rs`'s `catch_unwind` turns back into the error.
//! - [`prepare`]: every stream is decoded once, under the budget, and stored decoded, so that
//!   pdf-extract and `pdf_hidden` (which decode a stream each time they meet it) only copy it;
//!   images, colour profiles, embedded files and metadata, which no reader needs, are emptied.
//! - [`PageWork`]: before a page is interpreted, its content operators are counted — the
//!   forms it draws counted each time they are drawn, as the interpreter runs them — and the
//!   nesting of its arrays and forms measured; a page past a bound is refused unparsed.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use lopdf::{Dictionary, Document, Object, ObjectId, Reader};

use super::budget::Budget;
use super::pdf_decode::{self, Decoded};
use super::pdf_lexer::{Lexer, Token, find};
use super::pdf_scan::nesting_of_value;
use super::{ExtractError, Format};

/// The payload of the panic that stops lopdf's loader.
#[derive(Debug)]
pub(super) struct Stop(pub ExtractError);

thread_local! {
    /// The budget of the file lopdf is loading on this thread, with its counts.
    static LOADING: RefCell<Option<Loading>> = const { RefCell::new(None) };
}

struct Loading {
    budget: Budget,
    objects: u64,
    pages: u64,
}

/// Clears the loading budget however the load ends.
struct LoadingGuard;

impl Drop for LoadingGuard {
    fn drop(&mut self) {
        LOADING.with(|l| l.borrow_mut().take());
    }
}

/// Loads a PDF with lopdf under the budget.
pub(super) fn load(bytes: &[u8], budget: &Budget) -> Result<Document, ExtractError> {
    LOADING.with(|l| {
        *l.borrow_mut() = Some(Loading {
            budget: budget.clone(),
            objects: 0,
            pages: 0,
        })
    });
    let _guard = LoadingGuard;
    let reader = Reader {
        buffer: bytes,
        document: Document::new(),
        encryption_state: None,
        raw_objects: Default::default(),
    };
    reader.read(Some(watch_object)).map_err(|e| {
        ExtractError::unreadable(
            Format::Pdf,
            format!("the file is damaged or truncated ({e})"),
        )
    })
}

/// lopdf's hook, called with each object it loaded (from the file or an object stream)
/// before it unpacks object streams.
fn watch_object(id: ObjectId, object: &mut Object) -> Option<(ObjectId, Object)> {
    let outcome = LOADING.with(|l| {
        let mut loading = l.borrow_mut();
        let Some(loading) = loading.as_mut() else {
            return Ok(());
        };
        loading.objects += 1;
        let limits = loading.budget.limits();
        if loading.objects > limits.max_objects {
            return Err(ExtractError::TooManyObjects {
                limit: limits.max_objects,
            });
        }
        // After every object: one object's parse (at most the file) is the longest step, and
        // a file may list the same large object many times.
        loading.budget.go_on()?;
        let dict = match &*object {
            Object::Dictionary(dict) => Some(dict),
            Object::Stream(stream) => Some(&stream.dict),
            _ => None,
        };
        if dict.is_some_and(|d| d.has_type(b"Page")) {
            loading.pages += 1;
            // Pages the page tree does not reach are counted too: refused only when twice
            // the bound, the exact count comes after loading.
            if loading.pages > 2 * u64::from(limits.max_pages) {
                return Err(ExtractError::TooManyPages {
                    pages: u32::try_from(loading.pages).unwrap_or(u32::MAX),
                    limit: limits.max_pages,
                });
            }
        }
        if let Object::Stream(stream) = object
            && stream.dict.has_type(b"ObjStm")
        {
            decode_in_place(stream, &loading.budget)?;
            object_stream_nesting(stream, limits.max_nesting)?;
        }
        Ok(())
    });
    if let Err(error) = outcome {
        std::panic::panic_any(Stop(error));
    }
    // lopdf keeps the object it passed for an object of the file, and takes the one returned
    // for an object of an object stream (never a stream itself).
    match object {
        Object::Stream(_) => Some((id, Object::Null)),
        other => Some((id, other.clone())),
    }
}

/// Bounds the nesting of each object of an object stream where lopdf will parse it: at the
/// offset its index gives, which may lie anywhere in the stream.
fn object_stream_nesting(stream: &lopdf::Stream, limit: u32) -> Result<(), ExtractError> {
    let content = &stream.content;
    let first = stream
        .dict
        .get(b"First")
        .and_then(Object::as_i64)
        .map_or(0, |f| usize::try_from(f).unwrap_or(usize::MAX));
    let Some(index) = content.get(..first) else {
        return Ok(());
    };
    let numbers: Vec<Option<usize>> = String::from_utf8_lossy(index)
        .split_whitespace()
        .map(|n| n.parse().ok())
        .collect();
    let mut lexed = 0u64;
    for pair in numbers.chunks_exact(2) {
        if let [Some(_), Some(offset)] = pair {
            nesting_of_value(content, first.saturating_add(*offset), limit, &mut lexed)?;
            if lexed > 2 * content.len() as u64 {
                return Err(ExtractError::unreadable(
                    Format::Pdf,
                    "the objects of an object stream overlap one another",
                ));
            }
        }
    }
    Ok(())
}

/// Decodes a stream once under the budget and stores it decoded, as every later reader would
/// see it: a filter lopdf does not decode leaves the raw bytes, which is what its readers use.
fn decode_in_place(stream: &mut lopdf::Stream, budget: &Budget) -> Result<(), ExtractError> {
    if stream.dict.get(b"Filter").is_err() {
        return Ok(());
    }
    let Some(filters) = pdf_decode::filters(stream) else {
        stream.dict.remove(b"Filter");
        stream.dict.remove(b"DecodeParms");
        return Ok(());
    };
    let params = stream
        .dict
        .get(b"DecodeParms")
        .and_then(Object::as_dict)
        .ok();
    let left = budget
        .limits()
        .max_inflated_bytes
        .saturating_sub(budget.decoded_bytes());
    match pdf_decode::decode(&stream.content, &filters, params, left) {
        Ok(Decoded::Bytes(bytes)) => {
            budget.decoded(bytes.len() as u64)?;
            stream.set_plain_content(bytes);
        }
        Ok(Decoded::Undecodable) => {
            stream.dict.remove(b"Filter");
            stream.dict.remove(b"DecodeParms");
        }
        Err(over) => {
            budget.decoded(over.decoded)?;
            return Err(ExtractError::TooMuchInflated {
                limit: budget.limits().max_inflated_bytes,
            });
        }
    }
    Ok(())
}

/// Decodes every stream once under the budget; empties those no reader needs.
pub(super) fn prepare(document: &mut Document, budget: &Budget) -> Result<(), ExtractError> {
    let profiles = colour_profiles(document);
    for (n, (id, object)) in document.objects.iter_mut().enumerate() {
        if n.is_multiple_of(256) {
            budget.go_on()?;
        }
        let Object::Stream(stream) = object else {
            continue;
        };
        let dict = &stream.dict;
        let unread = profiles.contains(id)
            || is_name(dict.get(b"Subtype").ok(), b"Image")
            || dict.has_type(b"EmbeddedFile")
            || dict.has_type(b"Metadata");
        if unread {
            stream.set_plain_content(Vec::new());
            continue;
        }
        decode_in_place(stream, budget)?;
    }
    Ok(())
}

/// The streams named by `[/ICCBased …]` colour spaces: pdf-extract copies a profile each time
/// a colour space is set, and reads nothing from it.
fn colour_profiles(document: &Document) -> HashSet<ObjectId> {
    fn visit(object: &Object, found: &mut HashSet<ObjectId>, depth: u32) {
        if depth > 64 {
            return;
        }
        match object {
            Object::Array(items) => {
                if let [Object::Name(name), Object::Reference(id), ..] = items.as_slice()
                    && name == b"ICCBased"
                {
                    found.insert(*id);
                }
                for item in items {
                    visit(item, found, depth + 1);
                }
            }
            Object::Dictionary(dict) => {
                for (_, value) in dict.iter() {
                    visit(value, found, depth + 1);
                }
            }
            Object::Stream(stream) => {
                for (_, value) in stream.dict.iter() {
                    visit(value, found, depth + 1);
                }
            }
            _ => {}
        }
    }
    let mut found = HashSet::new();
    for object in document.objects.values() {
        visit(object, &mut found, 0);
    }
    found
}

fn is_name(object: Option<&Object>, name: &[u8]) -> bool {
    object.and_then(|o| o.as_name().ok()) == Some(name)
}

/// Counts the work of pages before they are interpreted; remembers each form's count.
pub(super) struct PageWork<'a> {
    document: &'a Document,
    budget: &'a Budget,
    forms: HashMap<ObjectId, u64>,
}

impl<'a> PageWork<'a> {
    pub(super) fn new(document: &'a Document, budget: &'a Budget) -> Self {
        PageWork {
            document,
            budget,
            forms: HashMap::new(),
        }
    }

    /// Takes a page's operators from the budget, or refuses the page.
    pub(super) fn page(&mut self, page_id: ObjectId) -> Result<(), ExtractError> {
        self.budget.go_on()?;
        let document = self.document;
        let resources = page_resources(document, page_id);
        let mut drawing = Vec::new();
        let mut operators = 0u64;
        // Each of the page's content streams, read where it is (decoded by `prepare`): the
        // interpreter will read them one after the other.
        for id in document.get_page_contents(page_id) {
            if let Ok(stream) = document.get_object(id).and_then(Object::as_stream) {
                operators += self.operators(&stream.content, resources, &mut drawing)?;
                if operators > self.budget.limits().max_page_operators {
                    break;
                }
            }
        }
        self.budget.operators(operators)
    }

    /// The operators of `content`, with those of the forms it draws, each time drawn.
    /// `drawing` holds the forms being drawn: one drawn inside itself never ends.
    fn operators(
        &mut self,
        content: &[u8],
        resources: Option<&'a Dictionary>,
        drawing: &mut Vec<ObjectId>,
    ) -> Result<u64, ExtractError> {
        let limits = self.budget.limits();
        let (max_nesting, max_page) = (limits.max_nesting, limits.max_page_operators);
        let too_deep = || ExtractError::NestingTooDeep { limit: max_nesting };
        let too_many = || ExtractError::TooManyOperators {
            limit: max_page,
            key: "max_page_operators",
        };
        let mut lexer = Lexer::new(content);
        let mut depth = 0u32;
        let mut count = 0u64;
        let mut last_name: Option<&[u8]> = None;
        while let Some(token) = lexer.next() {
            match token {
                Token::Open => {
                    depth += 1;
                    if depth > max_nesting {
                        return Err(too_deep());
                    }
                }
                Token::Close => depth = depth.saturating_sub(1),
                Token::Keyword(b"true" | b"false" | b"null") => {}
                Token::Keyword(operator) => {
                    count += 1;
                    if count.is_multiple_of(65_536) {
                        self.budget.go_on()?;
                    }
                    if operator == b"ID" {
                        // Inline image data: binary, up to `EI`.
                        let end = find(content, b"EI", lexer.position()).unwrap_or(content.len());
                        lexer.seek(end + 2);
                    }
                    if operator == b"Do"
                        && let Some(name) = last_name
                        && let Some((id, form_resources, form)) =
                            form(self.document, resources, name)
                    {
                        if drawing.contains(&id) || drawing.len() as u32 >= max_nesting {
                            return Err(too_deep());
                        }
                        let drawn = match self.forms.get(&id) {
                            Some(&drawn) => drawn,
                            None => {
                                drawing.push(id);
                                let drawn = self.operators(
                                    &form.content,
                                    form_resources.or(resources),
                                    drawing,
                                )?;
                                drawing.pop();
                                self.forms.insert(id, drawn);
                                drawn
                            }
                        };
                        count = count.saturating_add(drawn);
                    }
                    if count > max_page {
                        return Err(too_many());
                    }
                }
                _ => {}
            }
            last_name = match token {
                Token::Name(name) => Some(name),
                _ => None,
            };
        }
        Ok(count)
    }
}

/// The resources a page's content is interpreted with (its own, else inherited).
pub(super) fn page_resources(document: &Document, page_id: ObjectId) -> Option<&Dictionary> {
    let (own, inherited) = document.get_page_resources(page_id).ok()?;
    own.or_else(|| {
        inherited
            .first()
            .and_then(|&id| document.get_dictionary(id).ok())
    })
}

/// The form XObject `name` of `resources`, with its own resources: what `Do` would draw.
pub(super) fn form<'a>(
    document: &'a Document,
    resources: Option<&'a Dictionary>,
    name: &[u8],
) -> Option<(ObjectId, Option<&'a Dictionary>, &'a lopdf::Stream)> {
    let xobjects = deref(document, resources?.get(b"XObject").ok()?)?
        .as_dict()
        .ok()?;
    let Object::Reference(id) = xobjects.get(name).ok()? else {
        return None;
    };
    let stream = document.get_object(*id).ok()?.as_stream().ok()?;
    if !is_name(stream.dict.get(b"Subtype").ok(), b"Form") {
        return None;
    }
    let own = stream
        .dict
        .get(b"Resources")
        .ok()
        .and_then(|r| deref(document, r))
        .and_then(|r| r.as_dict().ok());
    Some((*id, own, stream))
}

fn deref<'a>(document: &'a Document, object: &'a Object) -> Option<&'a Object> {
    match object {
        Object::Reference(id) => document.get_object(*id).ok(),
        other => Some(other),
    }
}
