//! The layout of a plain text: lines and blocks (runs of non-blank lines) with code point
//! offsets, the unit every later rule reads.

use crate::analysis::is_alphanumeric;

/// One line of the text, without its line break.
#[derive(Debug, Clone, Copy)]
pub(super) struct Line<'a> {
    /// The line as written (leading spaces kept, the line break and a `\r` left out).
    pub(super) text: &'a str,
    /// Code point offset of the line's first character in the whole text.
    pub(super) start: usize,
    /// Code point offset just past the line's last character.
    pub(super) end: usize,
}

impl Line<'_> {
    pub(super) fn is_blank(&self) -> bool {
        self.text.trim().is_empty()
    }

    /// Leading white space, a tab counting as four.
    pub(super) fn indent(&self) -> usize {
        self.text
            .chars()
            .take_while(|c| c.is_whitespace())
            .map(|c| if c == '\t' { 4 } else { 1 })
            .sum()
    }

    /// The line without leading and trailing white space.
    pub(super) fn content(&self) -> &str {
        self.text.trim()
    }
}

/// A run of non-blank lines: a paragraph, a heading, a reference entry or a block of them.
#[derive(Debug, Clone)]
pub(super) struct Block<'a> {
    pub(super) lines: Vec<Line<'a>>,
}

impl Block<'_> {
    pub(super) fn start(&self) -> usize {
        self.lines[0].start
    }

    pub(super) fn end(&self) -> usize {
        self.lines[self.lines.len() - 1].end
    }

    /// The block's lines joined by spaces, trimmed: what the rules read.
    pub(super) fn joined(&self) -> String {
        let mut joined = String::new();
        for line in &self.lines {
            if !joined.is_empty() {
                joined.push(' ');
            }
            joined.push_str(line.content());
        }
        joined
    }

    /// The smallest indentation of the block's lines.
    pub(super) fn indent(&self) -> usize {
        self.lines.iter().map(Line::indent).min().unwrap_or(0)
    }
}

/// The text's lines with their code point offsets.
pub(super) fn lines(text: &str) -> Vec<Line<'_>> {
    let mut lines = Vec::new();
    let mut offset = 0;
    for raw in text.split('\n') {
        let chars = raw.chars().count();
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        lines.push(Line {
            text: line,
            start: offset,
            end: offset + line.chars().count(),
        });
        // The line and its line break.
        offset += chars + 1;
    }
    lines
}

/// The text's blocks: runs of non-blank lines. A run whose first line is a section's name
/// alone ("References", "7. Acknowledgements", "Аннотация") is two blocks, the heading and
/// what follows it: plain text often puts a heading's first line right under it.
pub(super) fn blocks<'a>(lines: &[Line<'a>]) -> Vec<Block<'a>> {
    let mut blocks = Vec::new();
    let mut current: Vec<Line<'a>> = Vec::new();
    for line in lines {
        if line.is_blank() {
            push_block(&mut blocks, std::mem::take(&mut current));
        } else {
            current.push(*line);
        }
    }
    push_block(&mut blocks, current);
    blocks
}

fn push_block<'a>(blocks: &mut Vec<Block<'a>>, mut lines: Vec<Line<'a>>) {
    if lines.len() > 1 && super::names::heading(lines[0].content()).is_some() {
        let rest = lines.split_off(1);
        blocks.push(Block { lines });
        lines = rest;
    }
    if !lines.is_empty() {
        blocks.push(Block { lines });
    }
}

/// The words of a string: runs of letters and digits.
pub(super) fn words(text: &str) -> impl Iterator<Item = &str> + Clone {
    text.split(|c: char| !is_alphanumeric(c))
        .filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_blocks_carry_code_point_offsets() {
        let text = "Заголовок\r\n\nпервая строка\n  вторая\n\n\nконец";
        let lines = lines(text);
        let blocks = blocks(&lines);
        assert_eq!(blocks.len(), 3);
        let chars: Vec<char> = text.chars().collect();
        let slice = |s: usize, e: usize| chars[s..e].iter().collect::<String>();
        assert_eq!(slice(blocks[0].start(), blocks[0].end()), "Заголовок");
        assert_eq!(
            slice(blocks[1].start(), blocks[1].end()),
            "первая строка\n  вторая"
        );
        assert_eq!(blocks[1].joined(), "первая строка вторая");
        assert_eq!(blocks[1].indent(), 0);
        assert_eq!(blocks[1].lines[1].indent(), 2);
        assert_eq!(slice(blocks[2].start(), blocks[2].end()), "конец");
    }
}
