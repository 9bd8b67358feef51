//! The parts of a paper read from its layout: front matter, abstracts, headings and body,
//! acknowledgements, the reference list and its entries. A reader walks the blocks once,
//! the way an editor skims a manuscript: what comes before the abstract or the first body
//! heading is front matter; a known heading opens its section; a labelled line ("Keywords:",
//! "Funding:", "УДК") is front matter wherever it stands.

use serde::Serialize;

use super::layout::{Block, Line, words};
use super::names::{
    self, Heading, abstract_part, has_identifier, identifiers, keywords_at, labelled,
    may_hold_identifier, numbered, run_in,
};
use crate::analysis::{Span, is_alphanumeric};

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
    let mut next_entry = None;
    for block in blocks {
        let text = block.joined();
        let (part, next) = step(state, block, &text);
        state = next;
        if part == Part::References && names::heading(&text) != Some(Heading::References) {
            reference_entries(block, &mut entries, &mut next_entry);
        } else if part != Part::References {
            next_entry = None;
        }
        let span = Span {
            start: block.start(),
            end: block.end(),
        };
        let keywords = (part == Part::Abstract)
            .then(|| keywords_inside(block))
            .flatten();
        let pieces = match keywords {
            // Keywords run into the abstract's last paragraph close it, as a keyword line
            // of their own does.
            Some(at) => {
                state = State::Front;
                vec![
                    (Part::Abstract, Span { end: at, ..span }),
                    (Part::FrontMatter, Span { start: at, ..span }),
                ]
            }
            None => vec![(part, span)],
        };
        for (part, span) in pieces {
            match regions.last_mut() {
                Some(last) if last.part == part && part != Part::Heading => {
                    last.span.end = span.end;
                }
                _ => regions.push(Region { part, span }),
            }
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

/// Where a keyword list's label opens inside a block after its start: after a sentence in a
/// line, or at the start of a line that follows one.
fn keywords_inside(block: &Block<'_>) -> Option<usize> {
    let mut sentence_ended = false;
    for (i, line) in block.lines.iter().enumerate() {
        let lead = line.text.chars().take_while(|c| c.is_whitespace()).count();
        let content = line.content();
        match keywords_at(content) {
            Some(0) if i > 0 && sentence_ended => return Some(line.start + lead),
            Some(at) if at > 0 => return Some(line.start + lead + at),
            _ => {}
        }
        sentence_ended = content.ends_with(['.', '!', '?']);
    }
    None
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
    // A long paragraph of several identifiers is a first page's footnote of e-mails and
    // ORCID iDs ("… EMAIL: a@b.rs (A. 1); c@d.biz (A. 2); ORCID: 0000-…"). Words are counted
    // only in a block that may hold one, and no further than the longest such block.
    let identifies = state != State::References && may_hold_identifier(text) && {
        let count = words(text).take(4 * limit + 1).count();
        count <= limit && has_identifier(text) || count <= 4 * limit && identifiers(text) >= 3
    };
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

/// Whether a block is a heading that names a reference list: where one begins. A long block
/// is passed over before its lines are joined.
pub(super) fn opens_reference_list(block: &Block<'_>) -> bool {
    if block.lines.len() > 2
        || block.lines.iter().map(|l| l.content().len()).sum::<usize>() > 4 * 160
    {
        return false;
    }
    let text = block.joined();
    is_heading(block, &text) && names::heading(&text) == Some(Heading::References)
}

/// A heading: one short line (or two) that does not end a sentence.
fn is_heading(block: &Block<'_>, text: &str) -> bool {
    // The cheap tests first: a paragraph is passed over by its length, its words not counted.
    block.lines.len() <= 2
        && text.len() <= 4 * 160
        && text.chars().count() <= 160
        && (1..=14).contains(&words(text).take(15).count())
        && !text.ends_with([',', ';'])
        && (!text.ends_with('.') || names::heading(text).is_some())
        && text
            .chars()
            .find(|c| is_alphanumeric(*c))
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
/// whole block when its lines are not numbered. A PDF's text may run a whole numbered list
/// into one paragraph ("[1] … [2] …"): inside a line, the next number in sequence opens the
/// next entry.
///
/// `next` is the number the next entry would carry, kept across the blocks of one list: a
/// block of a numbered list that opens with no number goes on with the entry before it (a
/// paragraph break a PDF put inside an entry).
fn reference_entries(block: &Block<'_>, entries: &mut Vec<Span>, next: &mut Option<u32>) {
    let numbered_list = next.is_some();
    for (i, line) in block.lines.iter().enumerate() {
        let lead = line.text.chars().take_while(|c| c.is_whitespace()).count();
        let content = line.text.trim_start();
        let opening = entry_marker(content).filter(|_| numbered_entry(line));
        if let Some((number, _)) = opening {
            *next = Some(number + 1);
        }
        let starts_block = i == 0 && !numbered_list;
        let opens = entries.is_empty() || starts_block || opening.is_some();
        match entries.last_mut() {
            Some(last) if !opens => last.end = line.end,
            _ => entries.push(Span {
                start: line.start + lead,
                end: line.end,
            }),
        }
        for at in inline_entry_starts(content, next) {
            let at = line.start + lead + at;
            if let Some(last) = entries.last_mut() {
                last.end = at.saturating_sub(1).max(last.start);
            }
            entries.push(Span {
                start: at,
                end: line.end,
            });
        }
    }
}

/// A reference entry's number at the start of `text`: "12. ", "12) ", "[12] ", with whether
/// it is bracketed.
fn entry_marker(text: &str) -> Option<(u32, bool)> {
    let bracketed = text.starts_with('[');
    let rest = text.strip_prefix('[').unwrap_or(text);
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    if !(1..=4).contains(&digits) {
        return None;
    }
    let close = rest[digits..].chars().next()?;
    let closes = if bracketed {
        close == ']'
    } else {
        matches!(close, '.' | ')')
    };
    (closes && rest[digits + 1..].starts_with(' '))
        .then(|| rest[..digits].parse().ok().map(|n| (n, bracketed)))
        .flatten()
}

/// Code point offsets inside a line where the next entry in sequence opens. A bracketed
/// number needs only to be the next one; a bare "3. " must also follow a sentence's end and
/// precede a capitalized word ("… 2023. 3. Черных А.Н."), so "Vol. 8. Is. 3. P. 62" stays one
/// entry.
fn inline_entry_starts(content: &str, next: &mut Option<u32>) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut previous = ' ';
    let mut last_visible = ' ';
    for (chars, (at, c)) in content.char_indices().enumerate() {
        if chars > 0
            && previous.is_whitespace()
            && let Some(expected) = *next
            && let Some((number, bracketed)) = entry_marker(&content[at..])
            && number == expected
        {
            let after = content[at..].split_once(' ').map_or("", |(_, rest)| rest);
            let mut letters = after.chars();
            let name_follows = letters.next().is_some_and(char::is_uppercase)
                && letters.next().is_some_and(char::is_lowercase);
            if bracketed || (last_visible == '.' && name_follows) {
                starts.push(chars);
                *next = Some(number + 1);
            }
        }
        if !c.is_whitespace() {
            last_visible = c;
        }
        previous = c;
    }
    starts
}

/// A line that starts a numbered reference entry: "12.", "12)", "[12]".
fn numbered_entry(line: &Line<'_>) -> bool {
    entry_marker(line.content()).is_some()
}

#[cfg(test)]
mod tests {
    use super::super::layout::{blocks, lines};
    use super::*;

    fn entries_of(text: &str) -> Vec<String> {
        let lines = lines(text);
        let chars: Vec<char> = text.chars().collect();
        let (mut entries, mut next) = (Vec::new(), None);
        for block in blocks(&lines) {
            reference_entries(&block, &mut entries, &mut next);
        }
        entries
            .iter()
            .map(|s| chars[s.start..s.end].iter().collect())
            .collect()
    }

    #[test]
    fn a_numbered_list_run_into_one_paragraph_is_split_in_sequence() {
        let entries = entries_of(
            "[1] Smith J. A paper [2]. 2001. [2] Иванов И. Статья. 2019. [4] not next. [3] Last B.",
        );
        assert_eq!(
            entries,
            [
                "[1] Smith J. A paper [2]. 2001.",
                "[2] Иванов И. Статья. 2019. [4] not next.",
                "[3] Last B."
            ]
        );
    }

    #[test]
    fn bare_numbers_open_entries_only_after_a_sentence_and_before_a_name() {
        let entries = entries_of(
            "1. Костромин Р.О. Статья. 2023. № 12. Ч. 3. С. 86–94. 2. Stefanov K.S. A Review. Vol. 8. Is. 3. P. 62-81. 3. Черных А.Н. Смягчение.",
        );
        assert_eq!(entries.len(), 3, "{entries:?}");
        assert!(entries[1].starts_with("2. Stefanov") && entries[1].ends_with("62-81."));
    }

    #[test]
    fn a_paragraph_break_inside_an_entry_of_a_numbered_list_continues_it() {
        let entries = entries_of("[1] First A. Title, journal\n\nof things, 2014. [2] Second B.");
        assert_eq!(entries.len(), 2, "{entries:?}");
        assert!(entries[0].ends_with("2014."));
    }

    #[test]
    fn unnumbered_entries_are_one_per_paragraph() {
        let entries = entries_of("Smith J. A title. 2001.\n\nJones K. Another. 2003.");
        assert_eq!(entries.len(), 2, "{entries:?}");
    }

    #[test]
    fn entries_one_per_line_stay_as_they_were() {
        let entries = entries_of("1. First A. Title.\n2. Second B. Title\ncontinued.");
        assert_eq!(
            entries,
            ["1. First A. Title.", "2. Second B. Title\ncontinued."]
        );
    }
}
