//! What every reader yields: the blocks a format lets us see, and the one text built from them
//! that a check's offsets refer to.

use serde::Serialize;

use super::Format;
use super::clean::{expand_ligatures, join_hyphenated};

/// The role of a block of text, as far as the format tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockKind {
    Title,
    Heading,
    Abstract,
    Paragraph,
    Quote,
    Reference,
}

/// One block: a title, heading, paragraph, abstract, quote or reference-list entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Block {
    pub kind: BlockKind,
    pub text: String,
    /// The 1-based page, for formats with pages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
}

/// A file's text and structure.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtractedDocument {
    pub format: Format,
    /// From the file's metadata, else its title block, else its first heading.
    pub title: Option<String>,
    pub authors: Vec<String>,
    /// Pages, for formats that have them (PDF).
    pub pages: Option<u32>,
    pub blocks: Vec<Block>,
    /// The blocks' texts separated by blank lines.
    pub text: String,
    /// Letters and digits the file hides from a reader (in a PDF: glyphs under a point in size
    /// or outside the page, left out of `text`; white or invisible glyphs, kept in it as a
    /// copy-paste keeps them; a scan's invisible OCR layer is not counted).
    pub hidden_characters: usize,
}

impl ExtractedDocument {
    /// The words of the text (runs of characters holding a letter or a digit).
    pub fn words(&self) -> usize {
        count_words(&self.text)
    }

    /// The summary an answer carries, for a file called `name`.
    pub fn summary(&self, name: &str) -> DocumentSummary {
        DocumentSummary {
            name: name.to_string(),
            format: self.format,
            pages: self.pages,
            words: self.words(),
            hidden_characters: self.hidden_characters,
        }
    }
}

/// `document` in a check's answer: `{"name","format","pages","words"}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DocumentSummary {
    pub name: String,
    pub format: Format,
    pub pages: Option<u32>,
    pub words: usize,
    /// Letters and digits hidden in the file (white, invisible, tiny or off-page text in a
    /// PDF); a check flags them as `hidden_text`.
    #[serde(skip_serializing_if = "is_zero")]
    pub hidden_characters: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

pub(super) fn count_words(text: &str) -> usize {
    text.split_whitespace()
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .count()
}

/// Collects blocks, repairing their text as they come.
pub(super) struct DocumentBuilder {
    format: Format,
    title: Option<String>,
    authors: Vec<String>,
    pages: Option<u32>,
    blocks: Vec<Block>,
    hidden_characters: usize,
}

impl DocumentBuilder {
    pub(super) fn new(format: Format) -> Self {
        DocumentBuilder {
            format,
            title: None,
            authors: Vec::new(),
            pages: None,
            blocks: Vec::new(),
            hidden_characters: 0,
        }
    }

    /// The title from the file's metadata, when it has a usable one.
    pub(super) fn title(&mut self, title: Option<String>) {
        let title = title
            .map(|t| normalize_inline(&t))
            .filter(|t| count_words(t) > 0);
        if title.is_some() {
            self.title = title;
        }
    }

    pub(super) fn author(&mut self, author: &str) {
        let author = normalize_inline(author);
        if !author.is_empty() && !self.authors.contains(&author) {
            self.authors.push(author);
        }
    }

    pub(super) fn has_block(&self, kind: BlockKind) -> bool {
        self.blocks.iter().any(|b| b.kind == kind)
    }

    pub(super) fn pages(&mut self, pages: u32) {
        self.pages = Some(pages);
    }

    pub(super) fn hidden_characters(&mut self, count: usize) {
        self.hidden_characters = count;
    }

    /// Adds a block; its lines are joined (hyphenated words made whole), ligatures expanded
    /// and runs of spaces collapsed. A block without a word is dropped.
    pub(super) fn push(&mut self, kind: BlockKind, text: &str, page: Option<u32>) {
        let joined = join_hyphenated(text.lines());
        let text = normalize_inline(&joined);
        if count_words(&text) == 0 {
            return;
        }
        self.blocks.push(Block { kind, text, page });
    }

    pub(super) fn finish(self) -> ExtractedDocument {
        let text = self
            .blocks
            .iter()
            .map(|b| b.text.as_str())
            .collect::<Vec<_>>()
            .join("\n\n");
        let title = self.title.or_else(|| {
            [BlockKind::Title, BlockKind::Heading]
                .iter()
                .find_map(|kind| {
                    self.blocks
                        .iter()
                        .find(|b| b.kind == *kind)
                        .map(|b| b.text.clone())
                })
        });
        ExtractedDocument {
            format: self.format,
            title,
            authors: self.authors,
            pages: self.pages,
            blocks: self.blocks,
            text,
            hidden_characters: self.hidden_characters,
        }
    }
}

/// One line of text: ligatures expanded, control characters and runs of whitespace made one
/// space.
fn normalize_inline(text: &str) -> String {
    let expanded = expand_ligatures(text);
    let mut out = String::with_capacity(expanded.len());
    for word in expanded.split(|c: char| c.is_whitespace() || c.is_control()) {
        if word.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}
