//! In-text citations: numbered (`[1]`, `[1–3]`, `[4, с. 12]`), author–year in parentheses or
//! brackets (`(Smith, 2019)`, `(Иванов и др., 2019; Lee 2020a)`), and narrative (`Smith et
//! al. (2019)`).

use crate::analysis::Span;

/// A bracket or parenthesis never holds a citation longer than this (code points).
const MAX_CITATION: usize = 240;

/// The citations inside one paragraph, `chars` being its text and `start` its first code
/// point's offset.
pub(super) fn citations(chars: &[char], start: usize) -> Vec<Span> {
    let mut found: Vec<Span> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let close = match chars[i] {
            '[' => ']',
            '(' => ')',
            _ => {
                i += 1;
                continue;
            }
        };
        let Some(len) = chars[i + 1..]
            .iter()
            .take(MAX_CITATION)
            .position(|&c| c == close || c == chars[i] || c == '\n' && close == ']')
        else {
            i += 1;
            continue;
        };
        let end = i + 1 + len;
        if chars[end] != close {
            i += 1;
            continue;
        }
        let inner: String = chars[i + 1..end].iter().collect();
        let bracketed = close == ']' && numbered(&inner);
        let from = if bracketed || author_year(&inner) {
            Some(i)
        } else if close == ')' && year_first(&inner) {
            narrative_start(chars, i)
        } else {
            None
        };
        if let Some(from) = from {
            found.push(Span {
                start: start + from,
                end: start + end + 1,
            });
            i = end + 1;
        } else {
            i += 1;
        }
    }
    found
}

/// `1`, `1–3`, `1, 4, 7-9`, `12, с. 45`, `3; p. 7`: numbers, ranges and page references.
fn numbered(inner: &str) -> bool {
    let mut numbers = 0;
    for piece in inner.split([',', ';']) {
        let piece = piece.trim();
        if piece.is_empty() {
            return false;
        }
        if is_page(piece) {
            continue;
        }
        let bounds: Vec<&str> = piece.split(['-', '–', '—', '−']).map(str::trim).collect();
        if bounds.len() > 2
            || !bounds
                .iter()
                .all(|b| (1..=4).contains(&b.len()) && b.chars().all(|c| c.is_ascii_digit()))
        {
            return false;
        }
        numbers += 1;
    }
    numbers > 0
}

/// A page reference inside a citation: `с. 45`, `p. 7`, `pp. 3–5`, `S. 12`, `стр. 4`.
fn is_page(piece: &str) -> bool {
    let Some((label, number)) = piece.split_once(['.', ' ']) else {
        return false;
    };
    let label = label.to_lowercase();
    ["с", "c", "p", "pp", "s", "стр", "т", "vol", "ch", "гл"].contains(&label.as_str())
        && number.trim().starts_with(|c: char| c.is_ascii_digit())
}

/// Words that start a parenthesis holding a year without being a name.
const NOT_NAMES: &[&str] = &[
    "figure",
    "fig",
    "table",
    "tab",
    "рис",
    "таблица",
    "табл",
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "январь",
    "февраль",
    "март",
    "апрель",
    "май",
    "июнь",
    "июль",
    "август",
    "сентябрь",
    "октябрь",
    "ноябрь",
    "декабрь",
    "since",
    "from",
    "until",
    "before",
    "after",
    "in",
    "n",
];

/// Words that may open an author–year citation before the name.
const LEADS: &[&str] = &["see", "e.g.", "cf.", "cf", "см.", "см", "напр.", "ср."];

/// `Smith, 2019`, `Smith and Jones 2019; Lee et al., 2020a`, `Иванов и др., 2019`, `see Smith
/// 2019`: a capitalized name first and a year in every part.
fn author_year(inner: &str) -> bool {
    let pieces: Vec<&str> = inner.split(';').map(str::trim).collect();
    !pieces.is_empty()
        && pieces.iter().all(|piece| {
            let mut words = piece.split_whitespace().peekable();
            while words
                .peek()
                .is_some_and(|w| LEADS.contains(&w.to_lowercase().as_str()))
            {
                words.next();
            }
            let Some(name) = words.next() else {
                return false;
            };
            let bare: String = name
                .chars()
                .filter(|c| c.is_alphabetic())
                .flat_map(char::to_lowercase)
                .collect();
            name.starts_with(|c: char| c.is_uppercase())
                && !NOT_NAMES.contains(&bare.as_str())
                && has_year(piece)
        })
}

/// A parenthesis that starts with a year: `(2019)`, `(2019a, p. 4)`, `(1998, 2001)`.
fn year_first(inner: &str) -> bool {
    let inner = inner.trim();
    year_at(inner) && inner.split([',', ';']).all(|p| p.trim().len() <= 16)
}

fn has_year(text: &str) -> bool {
    text.char_indices()
        .any(|(i, _)| year_at(&text[i..]) && !text[..i].ends_with(|c: char| c.is_ascii_digit()))
}

/// Whether `text` starts with a year from 1800 to 2099 (a letter may follow: `2019a`).
fn year_at(text: &str) -> bool {
    let digits: Vec<char> = text.chars().take(5).collect();
    digits.len() >= 4
        && digits[..4].iter().all(char::is_ascii_digit)
        && matches!((digits[0], digits[1]), ('1', '8' | '9') | ('2', '0'))
        && digits.get(4).is_none_or(|c| !c.is_ascii_digit())
}

/// Where a narrative citation starts: the names before `(year)` — `Smith`, `Smith et al.`,
/// `Smith and Jones`, `Иванов и др.` — or `None` when no name stands there.
fn narrative_start(chars: &[char], paren: usize) -> Option<usize> {
    let mut at = paren;
    let mut start = None;
    for _ in 0..6 {
        // The word before `at`.
        let end = chars[..at].iter().rposition(|c| !c.is_whitespace())? + 1;
        let begin = chars[..end]
            .iter()
            .rposition(|c| c.is_whitespace())
            .map_or(0, |p| p + 1);
        let word: String = chars[begin..end].iter().collect();
        let joiner =
            ["et", "al.", "al", "and", "&", "и", "др.", "др", "соавт."].contains(&word.as_str());
        let name = word.starts_with(|c: char| c.is_uppercase())
            && word
                .chars()
                .all(|c| c.is_alphabetic() || c == '-' || c == '\'')
            && word.chars().count() > 1;
        if name {
            start = Some(begin);
        } else if !joiner {
            break;
        }
        at = begin;
    }
    start
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cited(text: &str) -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        citations(&chars, 0)
            .into_iter()
            .map(|s| chars[s.start..s.end].iter().collect())
            .collect()
    }

    #[test]
    fn numbered_author_year_and_narrative() {
        assert_eq!(
            cited("as shown [1], [2–4] and [5, 7-9; 12]."),
            ["[1]", "[2–4]", "[5, 7-9; 12]"]
        );
        assert_eq!(cited("см. [12, с. 45]"), ["[12, с. 45]"]);
        assert_eq!(
            cited("known (Smith, 2019; Lee et al., 2020a) and (Иванов и др., 2019)."),
            ["(Smith, 2019; Lee et al., 2020a)", "(Иванов и др., 2019)"]
        );
        assert_eq!(cited("(see Smith 2019)"), ["(see Smith 2019)"]);
        assert_eq!(
            cited("as Smith et al. (2019) and Петров (2001, с. 5) showed"),
            ["Smith et al. (2019)", "Петров (2001, с. 5)"]
        );
    }

    #[test]
    fn parentheses_that_are_no_citation() {
        assert!(cited("the mean (SD 2.1) was (in 2019) and (March 2019)").is_empty());
        assert!(cited("equation (1) and [x] and (Figure 2, 2019) and [1a]").is_empty());
        assert!(cited("in (2019) alone").is_empty());
    }
}
