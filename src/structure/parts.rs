//! The parts of a paper read from its layout: front matter, abstracts, headings and body,
//! acknowledgements, the reference list and its entries. A reader walks the blocks once,
//! the way an editor skims a manuscript: what comes before the abstract or the first body
//! heading is front matter; a known heading opens its section; a labelled line ("Keywords:",
//! "Funding:", "УДК") is front matter wherever it stands.

use serde::Serialize;

use super::layout::{Block, Line, words};
use super::names::{self, Heading, abstract_part, has_identifier, labelled, numbered, run_in};
use crate::check::Span;

/// What a stretch of a paper is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    /// Title, authors, affiliations, e-mails, identifiers, dates, keywords, funding and
    /// competing-interest statements: what describes the paper rather than carrying it.
    FrontMatter,
    /// An abstract, in any language, its heading included.
    Abstract,
    /// A heading of the body.
    Heading,
    /// The body's text.
    Body,
    /// Acknowledgements, their heading included.
    Acknowledgements,
    /// The reference list, its heading included.
    References,
}

/// One part of a paper and where it lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Region {
    pub part: Part,
    pub span: Span,
}

/// Where the reader is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Front,
    /// In an abstract; `structured` when it opened with a part heading ("Background").
    Abstract {
        structured: bool,
        words: usize,
    },
    Body,
    Acknowledgements,
    References,
    /// Back matter that describes the paper: author information, contributions.
    Statements,
}

/// Paragraphs at least this long whose words are mostly lowercase are prose, not a title or a
/// list of names and affiliations.
const PROSE_WORDS: usize = 30;

/// The parts of a paper, block by block, adjacent blocks of one part merged; and the entries
/// of its reference lists.
pub(super) fn parts(blocks: &[Block<'_>]) -> (Vec<Region>, Vec<Span>) {
    let mut regions: Vec<Region> = Vec::new();
    let mut entries = Vec::new();
    let mut state = State::Front;
    for block in blocks {
        let text = block.joined();
        let (part, next) = step(state, block, &text);
        state = next;
        if part == Part::References && names::heading(&text) != Some(Heading::References) {
            entries.extend(reference_entries(block));
        }
        let span = Span {
            start: block.start(),
            end: block.end(),
        };
        match regions.last_mut() {
            Some(last) if last.part == part && part != Part::Heading => last.span.end = span.end,
            _ => regions.push(Region { part, span }),
        }
    }
    // A text that never leaves the front matter has none: a short text, or one without the
    // parts a paper has, is all body.
    if regions.iter().all(|r| r.part == Part::FrontMatter)
        && let (Some(first), Some(last)) = (regions.first(), regions.last())
    {
        let span = Span {
            start: first.span.start,
            end: last.span.end,
        };
        regions = vec![Region {
            part: Part::Body,
            span,
        }];
    }
    (regions, entries)
}

/// The part of one block read in `state`, and the state after it.
fn step(state: State, block: &Block<'_>, text: &str) -> (Part, State) {
    let heading = is_heading(block, text);
    let named = heading.then(|| names::heading(text)).flatten();
    // A named heading opens its section wherever it stands.
    match named {
        Some(Heading::References) => return (Part::References, State::References),
        Some(Heading::Acknowledgements) => {
            return (Part::Acknowledgements, State::Acknowledgements);
        }
        Some(Heading::Abstract) => {
            return (
                Part::Abstract,
                State::Abstract {
                    structured: false,
                    words: 0,
                },
            );
        }
        Some(Heading::Statements) => return (Part::FrontMatter, State::Statements),
        Some(Heading::Appendix) => return (Part::Heading, State::Body),
        _ => {}
    }
    if !heading {
        match run_in(text) {
            Some(Heading::Abstract) => {
                let words = words(text).count();
                return (
                    Part::Abstract,
                    State::Abstract {
                        structured: false,
                        words,
                    },
                );
            }
            Some(Heading::Acknowledgements) => {
                return (Part::Acknowledgements, State::Acknowledgements);
            }
            Some(Heading::Statements) => return (Part::FrontMatter, state),
            _ => {}
        }
    }
    // An address or a DOI in a short line is front matter; in an abstract only in a line
    // that is hardly a sentence, and never in the reference list.
    let limit = if matches!(state, State::Abstract { .. }) {
        12
    } else {
        40
    };
    let identifies = super::layout::words(text).count() <= limit
        && has_identifier(text)
        && state != State::References;
    if labelled(text) || identifies {
        // Keywords close an abstract; what follows them (often the title and authors again in
        // the second language) is front matter until the next abstract or body.
        let next = match state {
            State::Abstract { .. } | State::Front => State::Front,
            State::References => State::Statements,
            other => other,
        };
        return (Part::FrontMatter, next);
    }
    match state {
        State::Front => {
            // A numbered line with commas is an affiliation ("2 Harvard Medical School,
            // Boston"), not a section.
            let section =
                named == Some(Heading::BodyStart) || numbered(text) && !text.contains(',');
            if heading && section {
                (Part::Heading, State::Body)
            } else if !heading && prose(text) {
                (Part::Body, State::Body)
            } else {
                (Part::FrontMatter, State::Front)
            }
        }
        State::Abstract { structured, words } => {
            let first = words == 0;
            // A structured abstract's parts: known names, and questions ("Why Was This Study
            // Done?"); a long line is a sentence of it rather than a heading.
            let part = abstract_part(text) || (structured && text.ends_with('?'));
            let in_abstract =
                heading && (first || structured) && words < 1_500 && !numbered(text) && part;
            let ends = heading
                && (!structured
                    || named == Some(Heading::BodyStart)
                    || numbered(text)
                    || super::layout::words(text).count() <= 6);
            if in_abstract {
                let structured = structured || first;
                (Part::Abstract, State::Abstract { structured, words })
            } else if ends {
                (Part::Heading, State::Body)
            } else {
                let words = words + super::layout::words(text).count();
                (
                    Part::Abstract,
                    State::Abstract {
                        structured,
                        words: words.max(1),
                    },
                )
            }
        }
        State::Body => {
            if heading {
                (Part::Heading, State::Body)
            } else {
                (Part::Body, State::Body)
            }
        }
        State::Acknowledgements => {
            if heading {
                (Part::Heading, State::Body)
            } else {
                (Part::Acknowledgements, State::Acknowledgements)
            }
        }
        State::References => (Part::References, State::References),
        State::Statements => {
            if heading && named.is_some() {
                (Part::Heading, State::Body)
            } else {
                (Part::FrontMatter, State::Statements)
            }
        }
    }
}

/// A heading: one short line (or two) that does not end a sentence.
fn is_heading(block: &Block<'_>, text: &str) -> bool {
    let count = words(text).count();
    block.lines.len() <= 2
        && (1..=14).contains(&count)
        && text.chars().count() <= 160
        && !text.ends_with([',', ';'])
        && (!text.ends_with('.') || names::heading(text).is_some())
        && text
            .chars()
            .find(|c| c.is_alphanumeric())
            .is_some_and(|c| !c.is_lowercase())
}

/// Running text: long, and mostly words that begin in lowercase (titles, author lists and
/// affiliations are mostly capitalized).
fn prose(text: &str) -> bool {
    let mut total = 0;
    let mut lower = 0;
    for word in words(text) {
        total += 1;
        if word.chars().next().is_some_and(char::is_lowercase) {
            lower += 1;
        }
    }
    total >= PROSE_WORDS && lower * 2 >= total
}

/// The entries of a block of the reference list: one per numbered line ("1.", "[1]"), or the
/// whole block when its lines are not numbered.
fn reference_entries(block: &Block<'_>) -> Vec<Span> {
    let mut entries: Vec<Span> = Vec::new();
    for line in &block.lines {
        let opens = entries.is_empty() || numbered_entry(line);
        match entries.last_mut() {
            Some(last) if !opens => last.end = line.end,
            _ => entries.push(Span {
                start: line.start + line.indent(),
                end: line.end,
            }),
        }
    }
    entries
}

/// A line that starts a numbered reference entry: "12.", "12)", "[12]".
fn numbered_entry(line: &Line<'_>) -> bool {
    let content = line.content();
    let content = content.strip_prefix('[').unwrap_or(content);
    let digits = content.chars().take_while(char::is_ascii_digit).count();
    (1..=4).contains(&digits)
        && content[digits..].starts_with(['.', ')', ']'])
        && content[digits + 1..].starts_with(' ')
}
