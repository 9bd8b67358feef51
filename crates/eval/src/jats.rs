//! A JATS article as an editor's plain text, with the publisher's tags kept as truth: where
//! the front matter, the abstracts, the block quotations, the in-text citations, the
//! acknowledgements and the reference list lie in that text. Evaluation only: the structure
//! detector reads the text and is compared with the tags.
//!
//! The text is laid out the way a paper's page reads: title, authors, affiliations and notes,
//! the abstracts, the statements printed on the first page ("Editor:", "Received:",
//! "Copyright:", "Funding:", "Competing interests:" — the labels the journal prints), the body
//! (headings and paragraphs, block quotations set in by four spaces, figure and table
//! captions), the acknowledgements and the numbered reference list; one paragraph per line,
//! paragraphs separated by a blank line.

use roxmltree::{Document, Node, ParsingOptions};

use dupfinder_check::Span;

/// Elements nested deeper than this are not read (the walk is recursive).
const MAX_DEPTH: usize = 256;

/// An article's text and where its tagged parts lie in it.
#[derive(Debug, Default)]
pub struct TaggedArticle {
    pub text: String,
    pub front_matter: Vec<Span>,
    pub abstracts: Vec<Span>,
    pub body: Vec<Span>,
    pub block_quotes: Vec<Span>,
    /// In-text citations: runs of `<xref ref-type="bibr">` with the brackets around them.
    pub citations: Vec<Span>,
    /// Block quotations with a citation inside or right after them.
    pub cited_quotes: Vec<Span>,
    pub acknowledgements: Vec<Span>,
    pub references: Vec<Span>,
    pub reference_entries: Vec<Span>,
}

/// Why an article could not be read.
#[derive(Debug, thiserror::Error)]
#[error("not a JATS article: {0}")]
pub struct JatsError(String);

/// Which truth list a paragraph goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Front,
    Abstract,
    Body,
    BlockQuote,
    Acknowledgements,
    References,
}

/// Reads a JATS article into text and truth.
pub fn read_jats(xml: &str) -> Result<TaggedArticle, JatsError> {
    let options = ParsingOptions {
        allow_dtd: true,
        ..ParsingOptions::default()
    };
    let document =
        Document::parse_with_options(xml, options).map_err(|e| JatsError(e.to_string()))?;
    let article = document.root_element();
    if article.tag_name().name() != "article" {
        return Err(JatsError(format!(
            "root element <{}>",
            article.tag_name().name()
        )));
    }
    let mut writer = Writer::default();
    if let Some(meta) = find(article, &["front", "article-meta"]) {
        writer.front(meta);
    }
    if let Some(body) = child(article, "body") {
        writer.blocks(body, Class::Body, 0);
    }
    if let Some(back) = child(article, "back") {
        writer.back(back);
    }
    Ok(writer.article)
}

#[derive(Default)]
struct Writer {
    article: TaggedArticle,
    /// Code points written so far.
    chars: usize,
}

/// One paragraph being written: its text with white space collapsed and the citations met.
#[derive(Default)]
struct Paragraph {
    text: String,
    chars: usize,
    citations: Vec<Span>,
}

impl Paragraph {
    fn push(&mut self, s: &str) {
        for c in s.chars() {
            if c.is_whitespace() {
                if self.chars == 0 || self.text.ends_with(' ') {
                    continue;
                }
                self.text.push(' ');
            } else {
                self.text.push(c);
            }
            self.chars += 1;
        }
    }

    /// Inline content: text, emphasis, links, citations; nothing of a block.
    fn inline(&mut self, node: Node<'_, '_>, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        for n in node.children() {
            if n.is_text() {
                self.push(n.text().unwrap_or(""));
            } else if n.is_element() {
                let name = n.tag_name().name();
                if matches!(name, "fn" | "table" | "disp-formula" | "alternatives") {
                    continue;
                }
                let cite = name == "xref" && n.attribute("ref-type") == Some("bibr");
                let start = self.chars;
                self.inline(n, depth + 1);
                if cite && self.chars > start {
                    self.citations.push(Span {
                        start,
                        end: self.chars,
                    });
                }
                // Parts of names and structured references are separate words.
                if matches!(
                    name,
                    "surname"
                        | "given-names"
                        | "name"
                        | "article-title"
                        | "source"
                        | "year"
                        | "volume"
                        | "fpage"
                        | "lpage"
                        | "person-group"
                        | "collab"
                        | "label"
                        | "etal"
                        | "publisher-name"
                        | "publisher-loc"
                        | "addr-line"
                        | "institution"
                        | "country"
                ) {
                    self.push(" ");
                }
            }
        }
    }
}

impl Writer {
    /// Writes a finished paragraph as one line and records its spans.
    fn paragraph(&mut self, mut paragraph: Paragraph, class: Class) {
        while paragraph.text.ends_with(' ') {
            paragraph.text.pop();
            paragraph.chars -= 1;
        }
        if paragraph.chars == 0 {
            return;
        }
        if !self.article.text.is_empty() {
            self.article.text.push_str("\n\n");
            self.chars += 2;
        }
        let indent = if class == Class::BlockQuote { 4 } else { 0 };
        self.article.text.push_str(&" ".repeat(indent));
        self.chars += indent;
        let span = Span {
            start: self.chars,
            end: self.chars + paragraph.chars,
        };
        self.article.text.push_str(&paragraph.text);
        self.chars += paragraph.chars;
        let citations = citation_units(&paragraph.text, &paragraph.citations, span.start);
        if class == Class::BlockQuote && !citations.is_empty() {
            self.article.cited_quotes.push(span);
        }
        self.article.citations.extend(citations);
        let list = match class {
            Class::Front => &mut self.article.front_matter,
            Class::Abstract => &mut self.article.abstracts,
            Class::Body => &mut self.article.body,
            Class::BlockQuote => &mut self.article.block_quotes,
            Class::Acknowledgements => &mut self.article.acknowledgements,
            Class::References => &mut self.article.references,
        };
        list.push(span);
        if class == Class::References {
            self.article.reference_entries.push(span);
        }
    }

    fn text_paragraph(&mut self, text: &str, class: Class) {
        let mut paragraph = Paragraph::default();
        paragraph.push(text);
        self.paragraph(paragraph, class);
    }

    fn inline_paragraph(&mut self, label: &str, node: Node<'_, '_>, class: Class) {
        let mut paragraph = Paragraph::default();
        paragraph.push(label);
        paragraph.inline(node, 0);
        self.paragraph(paragraph, class);
    }

    fn front(&mut self, meta: Node<'_, '_>) {
        if let Some(title) = find(meta, &["title-group", "article-title"]) {
            self.inline_paragraph("", title, Class::Front);
        }
        let contributors = |kind: &str| -> Vec<String> {
            descendants(meta, "contrib")
                .filter(|c| c.attribute("contrib-type") == Some(kind))
                .map(|c| {
                    let mut name = Paragraph::default();
                    if let Some(n) = child(c, "name").or_else(|| child(c, "collab")) {
                        name.inline(n, 0);
                    }
                    name.text.trim().to_string()
                })
                .filter(|n| !n.is_empty())
                .collect()
        };
        self.text_paragraph(&contributors("author").join(", "), Class::Front);
        for aff in descendants(meta, "aff") {
            self.inline_paragraph("", aff, Class::Front);
        }
        let notes: Vec<Node<'_, '_>> = descendants(meta, "author-notes").collect();
        for note in notes
            .iter()
            .flat_map(|n| n.children())
            .filter(Node::is_element)
        {
            match (note.tag_name().name(), note.attribute("fn-type")) {
                ("fn", Some("conflict" | "con" | "financial-disclosure")) => {}
                _ => self.inline_paragraph("", note, Class::Front),
            }
        }
        for (i, abstract_) in descendants(meta, "abstract").enumerate() {
            let heading = match (abstract_.attribute("abstract-type"), i) {
                (Some("summary"), _) => "Author Summary",
                (Some("editor"), _) => "Editors' Summary",
                _ => "Abstract",
            };
            if child(abstract_, "title").is_none() {
                self.text_paragraph(heading, Class::Abstract);
            }
            self.blocks(abstract_, Class::Abstract, 0);
        }
        self.statements(meta, &notes);
        for group in descendants(meta, "kwd-group") {
            let words: Vec<String> = descendants(group, "kwd").map(|k| text_of(k)).collect();
            self.text_paragraph(&format!("Keywords: {}", words.join(", ")), Class::Front);
        }
    }

    /// The statements the journal prints on the first page, with its labels.
    fn statements(&mut self, meta: Node<'_, '_>, notes: &[Node<'_, '_>]) {
        for editor in
            descendants(meta, "contrib").filter(|c| c.attribute("contrib-type") == Some("editor"))
        {
            self.inline_paragraph("Editor: ", editor, Class::Front);
        }
        let mut dates = Vec::new();
        for date in descendants(meta, "date").chain(descendants(meta, "pub-date")) {
            let kind = date
                .attribute("date-type")
                .or(date.attribute("pub-type"))
                .unwrap_or("");
            let label = match kind {
                "received" => "Received",
                "accepted" => "Accepted",
                "epub" => "Published",
                _ => continue,
            };
            let parts: Vec<String> = ["day", "month", "year"]
                .iter()
                .filter_map(|p| child(date, p).map(text_of))
                .collect();
            dates.push(format!("{label}: {}", parts.join(".")));
        }
        if !dates.is_empty() {
            self.text_paragraph(&dates.join("; "), Class::Front);
        }
        if let Some(permissions) = child(meta, "permissions") {
            self.inline_paragraph("Copyright: ", permissions, Class::Front);
        }
        for custom in descendants(meta, "custom-meta") {
            let name = child(custom, "meta-name").map(text_of).unwrap_or_default();
            if let Some(value) = child(custom, "meta-value") {
                self.inline_paragraph(&format!("{name}: "), value, Class::Front);
            }
        }
        for funding in descendants(meta, "funding-statement") {
            self.inline_paragraph("Funding: ", funding, Class::Front);
        }
        for note in notes.iter().flat_map(|n| n.children()) {
            let label = match note.attribute("fn-type") {
                Some("conflict") => "Competing interests: ",
                Some("con") => "Author contributions: ",
                Some("financial-disclosure") => "Funding: ",
                _ => continue,
            };
            self.inline_paragraph(label, note, Class::Front);
        }
    }

    /// Block content: sections, headings, paragraphs, quotations, lists, captions.
    fn blocks(&mut self, node: Node<'_, '_>, class: Class, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        for n in node.children().filter(Node::is_element) {
            match n.tag_name().name() {
                "title" => self.inline_paragraph("", n, class),
                "p" => self.p(n, class, depth),
                "disp-quote" => {
                    let inner = if class == Class::Body {
                        Class::BlockQuote
                    } else {
                        class
                    };
                    self.blocks(n, inner, depth + 1);
                }
                "sec" | "list" | "list-item" | "boxed-text" | "fig" | "table-wrap" | "caption"
                | "def-list" | "def-item" | "def" | "term" | "statement" | "glossary" => {
                    self.blocks(n, class, depth + 1)
                }
                "label"
                | "table"
                | "disp-formula"
                | "graphic"
                | "object-id"
                | "supplementary-material"
                | "alternatives"
                | "table-wrap-foot" => {}
                _ => self.inline_paragraph("", n, class),
            }
        }
    }

    /// A paragraph; a quotation or list inside it starts a block of its own.
    fn p(&mut self, p: Node<'_, '_>, class: Class, depth: usize) {
        let mut paragraph = Paragraph::default();
        for n in p.children() {
            let block = n.is_element()
                && matches!(
                    n.tag_name().name(),
                    "disp-quote" | "list" | "boxed-text" | "fig" | "table-wrap"
                );
            if block {
                self.paragraph(std::mem::take(&mut paragraph), class);
                let inner = if n.tag_name().name() == "disp-quote" && class == Class::Body {
                    Class::BlockQuote
                } else {
                    class
                };
                self.blocks(n, inner, depth + 1);
            } else if n.is_text() {
                paragraph.push(n.text().unwrap_or(""));
            } else if n.is_element() {
                let before = paragraph.chars;
                let cite = n.tag_name().name() == "xref" && n.attribute("ref-type") == Some("bibr");
                paragraph.inline(n, depth + 1);
                if cite && paragraph.chars > before {
                    paragraph.citations.push(Span {
                        start: before,
                        end: paragraph.chars,
                    });
                }
            }
        }
        self.paragraph(paragraph, class);
    }

    fn back(&mut self, back: Node<'_, '_>) {
        for n in back.children().filter(Node::is_element) {
            match n.tag_name().name() {
                "ack" => {
                    if child(n, "title").is_none() {
                        self.text_paragraph("Acknowledgments", Class::Acknowledgements);
                    }
                    self.blocks(n, Class::Acknowledgements, 0);
                }
                "ref-list" => self.references(n),
                "fn-group" | "notes" => self.blocks(n, Class::Front, 0),
                "sec" | "app-group" | "app" => self.blocks(n, Class::Body, 0),
                _ => {}
            }
        }
    }

    fn references(&mut self, list: Node<'_, '_>) {
        // The heading belongs to the list but is no entry.
        let entries = self.article.reference_entries.len();
        match child(list, "title") {
            Some(title) => self.inline_paragraph("", title, Class::References),
            None => self.text_paragraph("References", Class::References),
        }
        self.article.reference_entries.truncate(entries);
        for (i, reference) in descendants(list, "ref").enumerate() {
            let mut entry = Paragraph::default();
            let label = child(reference, "label").map(text_of);
            entry.push(&format!(
                "{}. ",
                label.unwrap_or_else(|| (i + 1).to_string())
            ));
            for citation in reference
                .children()
                .filter(|c| c.tag_name().name() != "label")
            {
                if citation.is_element() {
                    entry.inline(citation, 1);
                }
            }
            self.paragraph(entry, Class::References);
        }
    }
}

/// Runs of citations separated only by punctuation become one citation, with the brackets
/// around them: `[<xref>1</xref>, <xref>2</xref>]` is one citation `[1, 2]`.
fn citation_units(text: &str, citations: &[Span], offset: usize) -> Vec<Span> {
    let chars: Vec<char> = text.chars().collect();
    let mut units: Vec<Span> = Vec::new();
    for c in citations {
        let joins = units.last().is_some_and(|last| {
            c.start >= last.end
                && chars[last.end..c.start]
                    .iter()
                    .all(|ch| matches!(ch, ',' | ';' | '–' | '-' | '—' | ' '))
        });
        match units.last_mut() {
            Some(last) if joins => last.end = c.end,
            _ => units.push(*c),
        }
    }
    for unit in &mut units {
        if unit.start > 0 && matches!(chars[unit.start - 1], '[' | '(') {
            unit.start -= 1;
        }
        if unit.end < chars.len() && matches!(chars[unit.end], ']' | ')') {
            unit.end += 1;
        }
        unit.start += offset;
        unit.end += offset;
    }
    units
}

fn child<'a, 'i>(node: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
    node.children().find(|c| c.tag_name().name() == name)
}

fn find<'a, 'i>(node: Node<'a, 'i>, path: &[&str]) -> Option<Node<'a, 'i>> {
    path.iter().try_fold(node, |n, name| child(n, name))
}

fn descendants<'a, 'i>(
    node: Node<'a, 'i>,
    name: &'static str,
) -> impl Iterator<Item = Node<'a, 'i>> {
    node.descendants()
        .filter(move |d| d.tag_name().name() == name)
}

fn text_of(node: Node<'_, '_>) -> String {
    let mut paragraph = Paragraph::default();
    paragraph.inline(node, 0);
    paragraph.text.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ARTICLE: &str = r#"<?xml version="1.0"?>
<!DOCTYPE article PUBLIC "-//NLM//DTD Journal Publishing DTD v3.0 20080202//EN" "x.dtd">
<article><front><article-meta>
<title-group><article-title>On <italic>cats</italic></article-title></title-group>
<contrib-group><contrib contrib-type="author"><name><surname>Smith</surname><given-names>J</given-names></name></contrib></contrib-group>
<aff id="a1"><label>1</label><addr-line>Cat Institute, Oxford, UK</addr-line></aff>
<author-notes><fn fn-type="conflict"><p>None.</p></fn><corresp>* E-mail: j@cats.org</corresp></author-notes>
<abstract><p>We study cats.</p></abstract>
</article-meta></front>
<body><sec><title>Introduction</title>
<p>Cats purr <xref ref-type="bibr" rid="r1">[1]</xref>, <xref ref-type="bibr" rid="r2">[2]</xref>.
<disp-quote><p>A cat is a cat <xref ref-type="bibr" rid="r1">[1]</xref></p></disp-quote> So it is.</p>
</sec></body>
<back><ack><p>We thank dogs.</p></ack>
<ref-list><title>References</title><ref id="r1"><label>1</label><mixed-citation>Doe J (2001) Cats. Nature 1: 1–2.</mixed-citation></ref>
<ref id="r2"><label>2</label><element-citation><person-group><name><surname>Roe</surname><given-names>R</given-names></name></person-group><year>2002</year><article-title>Purr</article-title></element-citation></ref></ref-list></back>
</article>"#;

    fn show(article: &TaggedArticle, spans: &[Span]) -> Vec<String> {
        let chars: Vec<char> = article.text.chars().collect();
        spans
            .iter()
            .map(|s| chars[s.start..s.end].iter().collect())
            .collect()
    }

    #[test]
    fn an_article_becomes_text_with_its_tags_as_spans() {
        let article = read_jats(ARTICLE).unwrap();
        assert_eq!(
            show(&article, &article.front_matter),
            [
                "On cats",
                "Smith J",
                "1 Cat Institute, Oxford, UK",
                "* E-mail: j@cats.org",
                "Competing interests: None."
            ]
        );
        assert_eq!(
            show(&article, &article.abstracts),
            ["Abstract", "We study cats."]
        );
        assert_eq!(
            show(&article, &article.block_quotes),
            ["A cat is a cat [1]"]
        );
        assert_eq!(article.cited_quotes, article.block_quotes);
        assert_eq!(show(&article, &article.citations), ["[1], [2]", "[1]"]);
        assert_eq!(
            show(&article, &article.acknowledgements),
            ["Acknowledgments", "We thank dogs."]
        );
        assert_eq!(
            show(&article, &article.reference_entries),
            ["1. Doe J (2001) Cats. Nature 1: 1–2.", "2. Roe R 2002 Purr"]
        );
        assert!(
            article
                .text
                .contains("\n\n    A cat is a cat [1]\n\nSo it is.")
        );
        assert!(read_jats("<html/>").is_err());
    }
}
