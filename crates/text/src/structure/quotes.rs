//! Quotations: text inside quotation marks (« », „ “, “ ”, " ") within one paragraph, and block
//! quotations (paragraphs set in from the body, or marked with `>`).

use serde::Serialize;

use crate::analysis::Span;

/// A quotation and whether a citation stands next to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Quotation {
    /// The quotation, its marks included.
    pub span: Span,
    /// A block quotation (set in from the body), not a quotation inside a sentence.
    pub block: bool,
    /// A citation stands inside the quotation or close to it.
    pub cited: bool,
}

/// Quotation marks never close this far (in code points) from where they opened: a stray mark
/// is not allowed to turn a whole page into a quotation.
const MAX_QUOTE: usize = 3_000;

/// The quotations inside one paragraph, `chars` being its text and `start` its first code
/// point's offset: only those whose marks close, and of nested ones the outermost (a stray
/// mark that never closes does not hide the quotations around it).
pub(super) fn quotations(chars: &[char], start: usize) -> Vec<Span> {
    let mut found: Vec<Span> = Vec::new();
    // Open marks: (mark, position).
    let mut open: Vec<(char, usize)> = Vec::new();
    for (i, &c) in chars.iter().enumerate() {
        let top = open.last().map(|(mark, _)| *mark);
        let closes = match c {
            '»' => Some('«'),
            '“' if top == Some('„') => Some('„'),
            '”' => Some('“'),
            '"' if top == Some('"') => Some('"'),
            _ => None,
        };
        if let Some(opener) = closes {
            // A mark right before a citation ends the quotation the citation is for: it closes
            // the outermost open mark (those opened inside were strays of the quoted text), or,
            // with none open, extends the last quotation over a stray closing mark inside it.
            let cited = cited_after(chars, i);
            let at = if cited {
                open.iter().position(|(mark, _)| *mark == opener)
            } else {
                open.iter().rposition(|(mark, _)| *mark == opener)
            };
            if at.is_none()
                && cited
                && let Some(last) = found.last_mut()
                && start + i + 1 - last.start < MAX_QUOTE
            {
                last.end = start + i + 1;
            }
            if let Some(at) = at {
                let (_, from) = open[at];
                open.truncate(at);
                if i - from < MAX_QUOTE {
                    let span = Span {
                        start: start + from,
                        end: start + i + 1,
                    };
                    // Quotations closed inside this one are part of it.
                    while found.last().is_some_and(|q| q.start >= span.start) {
                        found.pop();
                    }
                    found.push(span);
                }
            }
            continue;
        }
        let opens = match c {
            '«' | '„' | '“' => true,
            // A straight quote opens before a word, not after one.
            '"' => {
                let before = i.checked_sub(1).map(|j| chars[j]);
                let after = chars.get(i + 1);
                before.is_none_or(|b| b.is_whitespace() || "([{—–-/".contains(b))
                    && after.is_some_and(|a| !a.is_whitespace())
            }
            _ => false,
        };
        if opens {
            open.push((c, i));
        }
    }
    found
}

/// Whether a citation follows the mark at `i`: `» [3]`, `”. (Smith, 2019)`.
fn cited_after(chars: &[char], i: usize) -> bool {
    let mut j = i + 1;
    while j < chars.len() && j <= i + 3 && (chars[j].is_whitespace() || ".,;:".contains(chars[j])) {
        j += 1;
    }
    match (chars.get(j), chars.get(j + 1)) {
        (Some('['), Some(c)) => c.is_ascii_digit(),
        (Some('('), Some(c)) => c.is_uppercase(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quoted(text: &str) -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        quotations(&chars, 0)
            .into_iter()
            .map(|s| chars[s.start..s.end].iter().collect())
            .collect()
    }

    #[test]
    fn every_kind_of_mark_and_only_the_outermost() {
        assert_eq!(
            quoted("Он писал: «язык — это „дом бытия“ человека» [3]."),
            ["«язык — это „дом бытия“ человека»"]
        );
        assert_eq!(
            quoted("As “the unit of selection” and “the gene”."),
            ["“the unit of selection”", "“the gene”"]
        );
        assert_eq!(quoted("Sie sagte „Nein“."), ["„Nein“"]);
        assert_eq!(
            quoted("He said \"stop the clock\" twice."),
            ["\"stop the clock\""]
        );
        assert_eq!(quoted("The 12\" record, and \"a quote\"."), ["\"a quote\""]);
        // Marks that never close are no quotation, and hide none.
        assert!(quoted("«не закрыта и „тоже").is_empty());
        assert_eq!(quoted("«стрелка и «цитата» здесь"), ["«цитата»"]);
        // Before a citation, stray marks of the quoted text do not cut the quotation.
        assert_eq!(
            quoted("Он писал: «начало «вставка и конец» [3]."),
            ["«начало «вставка и конец»"]
        );
        assert_eq!(
            quoted("Он писал: «первая часть» стрелка, и далее» [2]."),
            ["«первая часть» стрелка, и далее»"]
        );
    }
}
