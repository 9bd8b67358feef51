//! A paper's structure read from its plain text: the parts, the quotations and the citations,
//! all as code point spans of the text.

use serde::Serialize;

use super::citations::citations;
use super::layout::{Block, blocks, lines, words};
use super::parts::{Part, Region, opens_reference_list, parts};
use super::quotes::{Quotation, quotations};
use crate::analysis::Span;

/// A citation this close (code points) before or after a quotation cites it.
const CITATION_REACH: usize = 150;

/// What a paper is made of, as spans of its text.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Structure {
    /// The parts in text order; blank lines between two parts belong to neither.
    pub regions: Vec<Region>,
    /// Quotations in the abstract, body and acknowledgements.
    pub quotations: Vec<Quotation>,
    /// In-text citations in the abstract, body and acknowledgements.
    pub citations: Vec<Span>,
    /// The entries of the reference lists.
    pub references: Vec<Span>,
}

impl Structure {
    /// Reads the structure of a plain text.
    ///
    /// ```
    /// use dupfinder_text::structure::{Part, Structure};
    /// let text = "On cats\nA. Author\n\nIntroduction\n\nCats «are independent» [1].\n\n\
    ///             References\n\n1. Smith J. Cats. 2019.";
    /// let structure = Structure::detect(text);
    /// let parts: Vec<Part> = structure.regions.iter().map(|r| r.part).collect();
    /// assert_eq!(parts, [Part::FrontMatter, Part::Heading, Part::Body, Part::References]);
    /// assert!(structure.quotations[0].cited);
    /// ```
    pub fn detect(text: &str) -> Structure {
        let lines = lines(text);
        let blocks = blocks(&lines);
        let mut structure = Structure::of_blocks(&blocks);
        let base_indent = usual_indent(&blocks);
        for block in &blocks {
            let part = structure.part_at(block.start());
            if !matches!(
                part,
                Some(Part::Body | Part::Heading | Part::Abstract | Part::Acknowledgements)
            ) {
                continue;
            }
            let chars: Vec<char> = block_text(text, block).chars().collect();
            let cites = citations(&chars, block.start());
            let block_quote = is_block_quote(block, base_indent);
            // A heading is only read for a quotation set in from the body.
            if part == Some(Part::Heading) && !block_quote {
                continue;
            }
            let mut quotes = if block_quote {
                vec![Span {
                    start: block.start() + block.indent(),
                    end: block.end(),
                }]
            } else {
                quotations(&chars, block.start())
            };
            for span in quotes.drain(..) {
                structure.quotations.push(Quotation {
                    span,
                    block: block_quote,
                    cited: cites.iter().any(|c| cites_quote(*c, span)),
                });
            }
            structure.citations.extend(cites);
        }
        structure.cite_block_quotes_from_next_paragraph();
        structure
    }

    /// The parts of a plain text and its reference entries, without reading inside its
    /// paragraphs for quotations and citations: what [`Structure::detect`] answers for
    /// `regions` and `references`. Only the tests ask for all of them without the rest: they
    /// hold [`Structure::references_of`] to them.
    #[cfg(test)]
    fn parts_of(text: &str) -> Structure {
        Structure::of_blocks(&blocks(&lines(text)))
    }

    /// The parts of a plain text from its first heading that names a reference list on, and
    /// its reference entries: what [`Structure::detect`] answers for [`Part::References`]
    /// and `references`, at the cost of finding that heading, for a source whose passages are
    /// asked only whether they lie in its reference list. A reference list begins only at such
    /// a heading, and the parts after one are read the same whatever came before it.
    pub fn references_of(text: &str) -> Structure {
        let blocks = blocks(&lines(text));
        match blocks.iter().position(opens_reference_list) {
            Some(first) => Structure::of_blocks(&blocks[first..]),
            None => Structure::default(),
        }
    }

    fn of_blocks(blocks: &[Block<'_>]) -> Structure {
        let (regions, references) = parts(blocks);
        Structure {
            regions,
            references,
            ..Structure::default()
        }
    }

    /// The part a code point offset lies in.
    pub fn part_at(&self, offset: usize) -> Option<Part> {
        let at = self.regions.partition_point(|r| r.span.end <= offset);
        self.regions
            .get(at)
            .filter(|r| r.span.start <= offset)
            .map(|r| r.part)
    }

    /// The spans of one part.
    pub fn spans_of(&self, part: Part) -> impl Iterator<Item = Span> + '_ {
        self.regions
            .iter()
            .filter(move |r| r.part == part)
            .map(|r| r.span)
    }

    /// Code points of `span` inside regions of `part`.
    pub fn overlap_with_part(&self, span: Span, part: Part) -> usize {
        overlap(self.spans_of(part), span)
    }

    /// A block quotation is often followed by its citation on a line of its own.
    fn cite_block_quotes_from_next_paragraph(&mut self) {
        for quote in self.quotations.iter_mut().filter(|q| q.block && !q.cited) {
            quote.cited = self
                .citations
                .iter()
                .any(|c| c.start >= quote.span.end && c.start - quote.span.end <= CITATION_REACH);
        }
    }
}

/// Code points of `span` covered by `spans` (which must not overlap each other).
pub fn overlap(spans: impl IntoIterator<Item = Span>, span: Span) -> usize {
    spans
        .into_iter()
        .map(|s| s.end.min(span.end).saturating_sub(s.start.max(span.start)))
        .sum()
}

/// Whether a citation stands inside a quotation or close enough before or after it.
fn cites_quote(citation: Span, quote: Span) -> bool {
    let inside = citation.start >= quote.start && citation.end <= quote.end;
    let after = citation.start >= quote.end && citation.start - quote.end <= CITATION_REACH;
    let before = citation.end <= quote.start && quote.start - citation.end <= CITATION_REACH;
    inside || after || before
}

/// The block's text, line breaks included.
fn block_text<'a>(text: &'a str, block: &Block<'_>) -> &'a str {
    let first = block.lines[0].text;
    let last = block.lines[block.lines.len() - 1].text;
    let from = first.as_ptr() as usize - text.as_ptr() as usize;
    let to = last.as_ptr() as usize - text.as_ptr() as usize + last.len();
    &text[from..to]
}

/// The indentation most blocks have: what a block quotation is set in from.
fn usual_indent(blocks: &[Block<'_>]) -> usize {
    let mut counts = std::collections::BTreeMap::new();
    for block in blocks {
        *counts.entry(block.indent()).or_insert(0usize) += block.lines.len();
    }
    counts
        .into_iter()
        .max_by_key(|(indent, n)| (*n, std::cmp::Reverse(*indent)))
        .map_or(0, |(indent, _)| indent)
}

/// A paragraph set in from the body by at least two spaces (an attribution line under a
/// quotation too), or marked with `>` on every line.
fn is_block_quote(block: &Block<'_>, base_indent: usize) -> bool {
    let marked = block.lines.iter().all(|l| l.content().starts_with('>'));
    let set_in = block.indent() >= base_indent + 2 && words(&block.joined()).count() >= 1;
    marked || set_in
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part_of(structure: &Structure, text: &str, needle: &str) -> Option<Part> {
        let byte = text.find(needle).unwrap();
        structure.part_at(text[..byte].chars().count())
    }

    const RU: &str = "УДК 004.912\n\nО поиске заимствований в научных текстах\n\n\
И. И. Иванов, П. П. Петров\n\nСанкт-Петербургский государственный университет, \
Санкт-Петербург, Россия\nivanov@spbu.ru\n\nАннотация. В статье рассматривается задача поиска \
заимствований в полных текстах научных статей с учётом цитат и списков литературы.\n\n\
Ключевые слова: плагиат, цитирование, список литературы\n\n\
On finding borrowings in scientific texts\n\nI. I. Ivanov, P. P. Petrov\n\n\
Abstract. The paper considers finding borrowings in full texts of papers.\n\n\
Keywords: plagiarism, citation\n\n1. Введение\n\n\
Задача поиска заимствований известна давно. Как писал классик, «всякое заимствование \
должно быть оформлено как цитата» [1, с. 12]. Мы следуем этому (Иванов и др., 2019).\n\n\
\u{20}   Длинная цитата, набранная с отступом от основного текста статьи, как это принято \
в журналах.\n\n\
Благодарности\n\nАвторы благодарят рецензентов.\n\n\
Финансирование: работа выполнена при поддержке РНФ, грант 00-00-00000.\n\n\
Список литературы\n\n\
1. Петров П. П. О цитатах // Вопросы языкознания. 2019. № 3. С. 1–10.\n\
2. Сидоров С. С. «Заимствования» в науке. М.: Наука, 2018. 200 с.\n";

    /// Plain text without blank lines after its headings: each heading's first line sits
    /// right under it.
    const TIGHT: &str = "Residue mulch and nitrogen fixation\nA. Smith1, B. Jones2\n\
1 Department of soil studies, University of Lovo, Lovo 10114\n\
E-mail: smith@university.edu\nReceived 3 September 2013; accepted 15 March 2014\n\n\
Abstract\nDrought is expected to become more frequent across semi-arid farmland, yet little is \
known about how bacteria respond.\nKeywords: drought, nitrogen, mulch\n\n\
1. Introduction\n\nWe sampled topsoil from forty wheat plots in three rainfall regimes over two \
growing seasons and combined gene quantification with incubation assays [1].\n\n\
Acknowledgements\nWe thank the farmers of the region for access to their fields.\n\n\
References\n1. R. Ismi, K. Ganik (1982). Soil bacteria under drought. Journal of Soil studies \
51(3), 170–190.\n2. N. Kogati, G. Kodo (2011). Mulch and moisture. Journal of Field studies \
56(8), 635–655.\n";

    #[test]
    fn headings_right_above_their_text_open_their_sections() {
        let s = Structure::detect(TIGHT);
        let at = |needle| part_of(&s, TIGHT, needle);
        assert_eq!(at("A. Smith1"), Some(Part::FrontMatter));
        assert_eq!(at("Drought is expected"), Some(Part::Abstract));
        assert_eq!(at("We sampled"), Some(Part::Body));
        assert_eq!(at("We thank"), Some(Part::Acknowledgements));
        assert_eq!(at("References"), Some(Part::References));
        assert_eq!(at("1. R. Ismi"), Some(Part::References));
        assert_eq!(at("2. N. Kogati"), Some(Part::References));
        assert_eq!(s.references.len(), 2);
    }

    #[test]
    fn a_russian_paper_from_udc_to_the_references() {
        let s = Structure::detect(RU);
        let at = |needle| part_of(&s, RU, needle);
        assert_eq!(at("УДК"), Some(Part::FrontMatter));
        assert_eq!(at("О поиске"), Some(Part::FrontMatter));
        assert_eq!(at("Санкт-Петербургский"), Some(Part::FrontMatter));
        assert_eq!(at("ivanov@"), Some(Part::FrontMatter));
        assert_eq!(at("В статье"), Some(Part::Abstract));
        assert_eq!(at("Ключевые"), Some(Part::FrontMatter));
        assert_eq!(at("On finding"), Some(Part::FrontMatter));
        assert_eq!(at("The paper considers"), Some(Part::Abstract));
        assert_eq!(at("Keywords"), Some(Part::FrontMatter));
        assert_eq!(at("1. Введение"), Some(Part::Heading));
        assert_eq!(at("Задача поиска"), Some(Part::Body));
        assert_eq!(at("Авторы благодарят"), Some(Part::Acknowledgements));
        assert_eq!(at("Финансирование"), Some(Part::FrontMatter));
        assert_eq!(at("Список литературы"), Some(Part::References));
        assert_eq!(at("2. Сидоров"), Some(Part::References));
        assert_eq!(s.references.len(), 2);

        let chars: Vec<char> = RU.chars().collect();
        let show = |span: Span| chars[span.start..span.end].iter().collect::<String>();
        let quotes: Vec<(String, bool, bool)> = s
            .quotations
            .iter()
            .map(|q| (show(q.span), q.block, q.cited))
            .collect();
        assert_eq!(
            quotes,
            [
                (
                    "«всякое заимствование должно быть оформлено как цитата»".to_string(),
                    false,
                    true
                ),
                (
                    "Длинная цитата, набранная с отступом от основного текста статьи, как это \
принято в журналах."
                        .to_string(),
                    true,
                    false
                ),
            ]
        );
        let cites: Vec<String> = s.citations.iter().map(|c| show(*c)).collect();
        assert_eq!(cites, ["[1, с. 12]", "(Иванов и др., 2019)"]);
        assert!(show(s.references[1]).starts_with("2. Сидоров"));
        // The quotation marks inside a reference entry are no quotation.
        assert!(
            s.quotations
                .iter()
                .all(|q| q.span.end < s.references[0].start)
        );
    }

    #[test]
    fn parts_alone_are_the_parts_detect_reads() {
        for text in [RU, TIGHT] {
            let full = Structure::detect(text);
            let parts = Structure::parts_of(text);
            assert!(!full.quotations.is_empty() || !full.citations.is_empty());
            assert_eq!(parts.regions, full.regions);
            assert_eq!(parts.references, full.references);
            assert!(parts.quotations.is_empty() && parts.citations.is_empty());
        }
    }

    #[test]
    fn the_reference_list_alone_is_the_one_parts_reads() {
        let references = |s: &Structure| -> Vec<Region> {
            s.regions
                .iter()
                .filter(|r| r.part == Part::References)
                .cloned()
                .collect()
        };
        let no_list = "Introduction\n\nA body of prose without any list of works cited here.";
        // A second list after the first, and an English abstract after the Russian list.
        let two = format!("{RU}\n\nReferences\n\n1. Smith J. A work. 2019.\n\nAbstract\n\nText.");
        for text in [RU, TIGHT, no_list, &two] {
            let parts = Structure::parts_of(text);
            let list = Structure::references_of(text);
            assert_eq!(references(&list), references(&parts), "{text}");
            assert_eq!(list.references, parts.references);
        }
        assert!(!references(&Structure::parts_of(RU)).is_empty());
        assert!(Structure::references_of(no_list).regions.is_empty());
    }

    #[test]
    fn a_body_without_front_matter_is_all_body() {
        let text = "The problem of finding copied text in scientific papers has been studied \
for decades, and the methods that were proposed range from fingerprints of word sequences \
to comparisons of whole vocabularies.\n\nA second paragraph follows here.";
        let s = Structure::detect(text);
        let parts: Vec<Part> = s.regions.iter().map(|r| r.part).collect();
        assert_eq!(parts, [Part::Body]);
        assert_eq!(s.regions[0].span.end, text.chars().count());
    }

    #[test]
    fn a_structured_abstract_keeps_its_parts_and_ends_at_the_body() {
        let text = "A title\n\nAbstract\n\nBackground\n\nWe asked.\n\nMethods and Findings\n\n\
We found.\n\nConclusions\n\nWe conclude.\n\nIntroduction\n\nThe body starts here.";
        let s = Structure::detect(text);
        assert_eq!(part_of(&s, text, "We found"), Some(Part::Abstract));
        assert_eq!(part_of(&s, text, "Conclusions"), Some(Part::Abstract));
        assert_eq!(part_of(&s, text, "Introduction"), Some(Part::Heading));
        assert_eq!(part_of(&s, text, "The body"), Some(Part::Body));
    }
}
