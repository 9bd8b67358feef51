//! From a PDF's lines to the paragraphs the author wrote.
//!
//! On a page, a line opens a new paragraph after a gap larger than 1.6 lines, where the size of
//! the text changes (a heading), where it is indented from its column's margin (a first-line
//! indent), or where the line before it ended short of the margin by more than this line's
//! first word (the author broke the line: the word would have fitted). A move up the page (the
//! next column) continues the paragraph by the same rules.
//!
//! Across pages: lines at the top or bottom of pages that repeat on many pages (running
//! headers and footers, digits ignored) and bare page numbers («12», «1/3», «Page 2 of 9»)
//! are dropped, wherever the content stream draws them. A page's first paragraph goes on
//! with the previous page's last one when it begins in lowercase, or when neither an indent nor
//! a short last line marks a new paragraph: a page break in mid-paragraph, or in mid-quotation,
//! is no paragraph break. Footnotes (smaller text) between the two halves are kept, after the
//! joined paragraph.

use std::collections::{HashMap, HashSet};

use super::BlockKind;
use super::document::count_words;

/// One line of a page, as the content stream draws it.
#[derive(Debug, Clone)]
pub(super) struct Line {
    pub(super) text: String,
    /// The baseline, from the top of the page.
    pub(super) y: f64,
    pub(super) size: f64,
    /// Where its first glyph starts and its last glyph ends.
    pub(super) left: f64,
    pub(super) right: f64,
}

impl Line {
    /// An empty line whose first glyph starts at `x`.
    pub(super) fn at(x: f64, y: f64, size: f64) -> Line {
        Line {
            text: String::new(),
            y,
            size,
            left: x,
            right: x,
        }
    }
}

/// One page's lines.
#[derive(Debug, Default)]
pub(super) struct Page {
    pub(super) number: u32,
    pub(super) height: f64,
    pub(super) lines: Vec<Line>,
}

/// One paragraph: its kind, its lines joined by line breaks, the page it starts on.
pub(super) type Paragraph = (BlockKind, String, u32);

/// A paragraph being built.
struct Building<'a> {
    kind: BlockKind,
    page: u32,
    lines: Vec<&'a Line>,
    /// The margins of the page of its last line.
    margins: Margins,
}

impl Building<'_> {
    fn size(&self) -> f64 {
        self.lines.last().map_or(0.0, |l| l.size)
    }
}

/// The paragraphs of a document's pages.
pub(super) fn paragraphs(pages: &[Page]) -> Vec<Paragraph> {
    let furniture = running_lines(pages);
    let title_size = pages.first().and_then(|p| title_size(&p.lines));
    let mut built: Vec<Building> = Vec::new();
    let mut footnotes: Vec<Building> = Vec::new();
    for page in pages {
        let edges = edge_lines(page);
        let kept: Vec<&Line> = page
            .lines
            .iter()
            .enumerate()
            .filter(|(i, line)| {
                !(edges.contains(i)
                    && (furniture.contains(&furniture_key(&line.text))
                        || is_page_number(&line.text)))
            })
            .map(|(_, line)| line)
            .collect();
        let margins = Margins::of(&kept);
        let first_page = page.number == 1;
        let kind_of = |line: &Line| {
            if first_page && title_size.is_some_and(|t| (line.size - t).abs() < 0.5) {
                BlockKind::Title
            } else {
                BlockKind::Paragraph
            }
        };
        let mut on_this_page = false;
        for line in kept {
            let kind = kind_of(line);
            let first_line = !on_this_page;
            on_this_page = true;
            let goes_on = match built.last() {
                Some(current) if !first_line => {
                    current.kind == kind && continues(current, line, &margins, true)
                }
                _ => false,
            };
            if goes_on {
                let current = built.last_mut().expect("a paragraph is open");
                current.lines.push(line);
                continue;
            }
            if first_line && kind == BlockKind::Paragraph {
                // The first line of a page: the previous page's paragraph may go on here,
                // past the footnotes at its foot.
                let open = (0..built.len()).rev().take(4).find(|&i| {
                    built[i].kind == BlockKind::Paragraph
                        && (built[i].size() - line.size).abs() <= 0.5
                        && built[i + 1..]
                            .iter()
                            .all(|b| b.size() < built[i].size() - 0.5)
                });
                if let Some(i) = open
                    && continues(&built[i], line, &margins, false)
                {
                    // The footnotes follow the paragraph once it ends.
                    footnotes = built.split_off(i + 1);
                    let joined = &mut built[i];
                    joined.lines.push(line);
                    joined.margins = margins.clone();
                    continue;
                }
            }
            built.append(&mut footnotes);
            built.push(Building {
                kind,
                page: page.number,
                lines: vec![line],
                margins: margins.clone(),
            });
        }
        built.append(&mut footnotes);
    }
    let hyphenated = hyphenated_words(pages);
    built
        .into_iter()
        .map(|b| {
            let mut text = String::new();
            for line in &b.lines {
                if !text.is_empty() && !joins_at_dash(&text, &line.text, &hyphenated) {
                    text.push('\n');
                }
                text.push_str(&line.text);
            }
            (b.kind, text, b.page)
        })
        .collect()
}

/// The words written with a hyphen inside a line («масс-спектрометра»), lowercase.
fn hyphenated_words(pages: &[Page]) -> HashSet<String> {
    pages
        .iter()
        .flat_map(|p| &p.lines)
        .flat_map(|l| l.text.split_whitespace())
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| w.contains('-'))
        .map(str::to_lowercase)
        .collect()
}

/// Whether a line ending in a dash goes on with the next one without a break, the dash kept: a
/// range of numbers («50–» «60»), or a compound word the document writes with its hyphen
/// elsewhere («масс-» «спектрометра»). Any other hyphen at a line's end is left to
/// `join_hyphenated` (a word broken by hyphenation).
fn joins_at_dash(text: &str, next: &str, hyphenated: &HashSet<String>) -> bool {
    let mut tail = text.chars().rev();
    let (Some(dash), Some(before)) = (tail.next(), tail.next()) else {
        return false;
    };
    let Some(first) = next.trim_start().chars().next() else {
        return false;
    };
    if matches!(dash, '-' | '–' | '—') && before.is_ascii_digit() && first.is_ascii_digit() {
        return true;
    }
    if dash != '-' || !before.is_alphabetic() {
        return false;
    }
    let head = text
        .rsplit(char::is_whitespace)
        .next()
        .unwrap_or_default()
        .trim_start_matches(|c: char| !c.is_alphanumeric());
    let rest = next
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .trim_end_matches(|c: char| !c.is_alphanumeric());
    hyphenated.contains(&format!("{head}{rest}").to_lowercase())
}

/// Whether `line` goes on with the paragraph `current`: on the same page (`same_page`) only
/// after a line's spacing; on the next page after its last line whatever the gap.
fn continues(current: &Building, line: &Line, margins: &Margins, same_page: bool) -> bool {
    let prev = current.lines.last().expect("a paragraph has a line");
    let size = prev.size.max(line.size).max(1.0);
    if (line.size - prev.size).abs() > 1.0 {
        return false;
    }
    if same_page {
        let gap = line.y - prev.y;
        if gap > size * 1.6 {
            return false;
        }
        // A line below and to the left of the previous one's start is a new line of the same
        // column; one above it, the head of the next column.
    }
    if line
        .text
        .trim_start()
        .chars()
        .next()
        .is_some_and(char::is_lowercase)
    {
        return true;
    }
    let indented = margins.indent(line) > size * 0.8;
    !indented && !current.margins.room_after(prev, line)
}

/// The margins of a page's columns: the left edges at which consecutive lines start, each
/// with the rightmost end of a line starting there.
#[derive(Debug, Clone, Default)]
struct Margins {
    /// (left edge, right edge), by left edge.
    columns: Vec<(f64, f64)>,
}

impl Margins {
    fn of(lines: &[&Line]) -> Margins {
        let key = |x: f64| (x / 2.0).round() as i64;
        let mut aligned: HashMap<i64, (f64, f64, usize)> = HashMap::new();
        for pair in lines.windows(2) {
            if (pair[0].left - pair[1].left).abs() <= 1.0 {
                let entry = aligned
                    .entry(key(pair[1].left))
                    .or_insert((pair[1].left, 0.0, 0));
                entry.0 = entry.0.min(pair[1].left).min(pair[0].left);
                entry.2 += 1;
            }
        }
        let mut columns: Vec<(f64, f64)> = aligned
            .into_values()
            .filter(|(_, _, count)| *count >= 2)
            .map(|(left, _, _)| (left, left))
            .collect();
        if columns.is_empty()
            && let Some(left) = lines.iter().map(|l| l.left).min_by(f64::total_cmp)
        {
            columns.push((left, left));
        }
        columns.sort_by(|a, b| a.0.total_cmp(&b.0));
        // Neighbouring keys of one edge.
        columns.dedup_by(|b, a| (b.0 - a.0).abs() <= 2.0);
        let mut margins = Margins { columns };
        for line in lines {
            if let Some(i) = margins.column(line) {
                margins.columns[i].1 = margins.columns[i].1.max(line.right);
            }
        }
        margins
    }

    /// The column a line starts in: the rightmost margin at or left of its start.
    fn column(&self, line: &Line) -> Option<usize> {
        self.columns
            .iter()
            .rposition(|(left, _)| *left <= line.left + 1.0)
    }

    /// How far a line starts right of its column's margin.
    fn indent(&self, line: &Line) -> f64 {
        self.column(line)
            .map_or(0.0, |i| (line.left - self.columns[i].0).max(0.0))
    }

    /// Whether `prev` ends short of its column's right edge by more than `next`'s first word
    /// and a space: a line broken by its author, the end of a paragraph.
    fn room_after(&self, prev: &Line, next: &Line) -> bool {
        let Some(i) = self.column(prev) else {
            return false;
        };
        let chars = next.text.trim().chars().count().max(1) as f64;
        let char_width = (next.right - next.left).max(0.0) / chars;
        let first_word = next
            .text
            .split_whitespace()
            .next()
            .map_or(0, |w| w.chars().count()) as f64;
        let needed = (first_word + 1.0) * char_width * 1.2 + prev.size * 0.3;
        self.columns[i].1 - prev.right > needed
    }
}

/// The size of the first page's title: the largest text among its first lines, if it is
/// clearly larger than the body text.
fn title_size(lines: &[Line]) -> Option<f64> {
    let head = &lines[..lines.len().min(15)];
    let largest = head
        .iter()
        .filter(|l| count_words(&l.text) > 0)
        .map(|l| l.size)
        .fold(0.0_f64, f64::max);
    let mut sizes: Vec<f64> = lines.iter().map(|l| l.size).collect();
    sizes.sort_by(f64::total_cmp);
    let median = sizes.get(sizes.len() / 2).copied().unwrap_or(largest);
    (largest > median * 1.2).then_some(largest)
}

/// The indices of a page's two highest and two lowest lines, wherever the content stream
/// draws them (browsers draw their header and footer last).
fn edge_lines(page: &Page) -> Vec<usize> {
    let mut order: Vec<usize> = (0..page.lines.len()).collect();
    order.sort_by(|&a, &b| page.lines[a].y.total_cmp(&page.lines[b].y));
    let n = order.len();
    order
        .iter()
        .enumerate()
        .filter(|(rank, _)| *rank < 2 || rank + 2 >= n)
        .map(|(_, &i)| i)
        .collect()
}

/// Lines that appear at the top or bottom of at least two pages and two in five of them (with
/// digits masked, so that «Page 3» and «Page 4» count as one): running headers and footers,
/// also those that alternate between even and odd pages. The end of a sentence carried over to
/// the top of a page is not one, however often it repeats.
fn running_lines(pages: &[Page]) -> Vec<String> {
    if pages.len() < 2 {
        return Vec::new();
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    for page in pages {
        let mut keys: Vec<String> = edge_lines(page)
            .into_iter()
            .filter(|&i| !ends_a_sentence(&page.lines[i].text))
            .map(|i| furniture_key(&page.lines[i].text))
            .filter(|k| !k.is_empty())
            .collect();
        keys.sort();
        keys.dedup();
        for key in keys {
            *seen.entry(key).or_default() += 1;
        }
    }
    let threshold = (pages.len() * 2).div_ceil(5).max(2);
    seen.into_iter()
        .filter(|(_, count)| *count >= threshold)
        .map(|(key, _)| key)
        .collect()
}

/// A line that begins in lowercase and ends a sentence: the last words of a paragraph carried
/// over to the top of a page, which two pages may share («дикальцийфосфата.»), not a header.
fn ends_a_sentence(text: &str) -> bool {
    let text = text.trim();
    text.chars().next().is_some_and(char::is_lowercase)
        && text.ends_with(['.', '!', '?', '»', '"', ')'])
}

fn furniture_key(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| if c.is_ascii_digit() { '#' } else { c })
        .flat_map(char::to_lowercase)
        .collect()
}

/// «12», «- 12 -», «Page 12», «xii», «3/10», «Page 3 of 10», «Стр. 3 из 10»: a line that is
/// only a page number.
fn is_page_number(text: &str) -> bool {
    let lower = text.trim().to_lowercase();
    let trimmed = lower.trim_matches(|c: char| matches!(c, '-' | '–' | '—' | ' ' | '|'));
    let trimmed = ["page ", "страница ", "стр. ", "с. "]
        .iter()
        .find_map(|prefix| trimmed.strip_prefix(prefix))
        .unwrap_or(trimmed)
        .trim();
    let number = |s: &str| {
        let s = s.trim();
        !s.is_empty()
            && s.len() <= 8
            && (s.chars().all(|c| c.is_ascii_digit())
                || s.chars().all(|c| matches!(c, 'i' | 'v' | 'x' | 'l')))
    };
    let of = [" of ", " из ", "/"]
        .iter()
        .find_map(|sep| trimmed.split_once(sep));
    match of {
        Some((page, total)) => number(page) && number(total),
        None => number(trimmed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line that reaches the right margin (at 250), as a justified line does.
    fn line(text: &str, y: f64, size: f64) -> Line {
        Line {
            text: text.to_string(),
            y,
            size,
            left: 50.0,
            right: 250.0,
        }
    }

    /// A line as long as its text.
    fn short(text: &str, y: f64, size: f64) -> Line {
        let width = text.chars().count() as f64 * size * 0.5;
        Line {
            right: 50.0 + width,
            ..line(text, y, size)
        }
    }

    fn page(number: u32, lines: Vec<Line>) -> Page {
        Page {
            number,
            height: 800.0,
            lines,
        }
    }

    #[test]
    fn page_numbers_and_running_heads_are_recognised() {
        for number in [
            "12",
            "- 7 -",
            "Page 3",
            "xii",
            "1/3",
            "2 / 10",
            "Page 2 of 9",
            "Стр. 4 из 5",
        ] {
            assert!(is_page_number(number), "{number}");
        }
        assert!(!is_page_number("12 monkeys"));
        assert!(!is_page_number("and/or"));
        let pages: Vec<Page> = (1..=4)
            .map(|n| {
                page(
                    n,
                    vec![
                        line(&format!("body {n}"), 120.0, 10.0),
                        line(
                            ["alpha", "beta", "gamma", "delta"][n as usize - 1],
                            100.0,
                            10.0,
                        ),
                        line("the same words in the middle", 140.0, 10.0),
                        line(["one", "two", "three", "four"][n as usize - 1], 160.0, 10.0),
                        // Drawn last, at the top and the foot, as a browser draws them.
                        line(&format!("Proceedings of ACL 2008, page {n}"), 40.0, 9.0),
                        line(&format!("{n}"), 780.0, 9.0),
                    ],
                )
            })
            .collect();
        let mut running = running_lines(&pages);
        running.sort();
        assert_eq!(running, ["#", "proceedingsofacl####,page#"]);
        // The last word of a paragraph carried over to the top of two pages is no header.
        let carried: Vec<Page> = (1..=4)
            .map(|n| {
                page(
                    n,
                    vec![
                        short("дикальцийфосфата.", 40.0, 10.0),
                        line(["a", "b", "c", "d"][n as usize - 1], 52.0, 10.0),
                        line(["e", "f", "g", "h"][n as usize - 1], 64.0, 10.0),
                        line(["i", "j", "k", "l"][n as usize - 1], 76.0, 10.0),
                    ],
                )
            })
            .collect();
        assert!(running_lines(&carried).is_empty());
    }

    #[test]
    fn gaps_size_changes_indents_and_short_lines_break_paragraphs() {
        let mut indented = line("Second paragraph opens indented and runs on", 136.0, 10.0);
        indented.left += 12.0;
        let lines = vec![
            short("A Title", 50.0, 16.0),
            line("First line of a para-", 100.0, 10.0),
            line("graph continues here and runs to the end", 112.0, 10.0),
            short("of the column.", 124.0, 10.0),
            indented,
            line("to the margin, and stops where the author", 148.0, 10.0),
            short("stopped it.", 160.0, 10.0),
            line("Third paragraph after a short line and on", 172.0, 10.0),
            short("to the margin.", 184.0, 10.0),
            line("Fourth, after a gap.", 210.0, 10.0),
        ];
        let blocks = paragraphs(&[page(1, lines)]);
        let texts: Vec<&str> = blocks.iter().map(|b| b.1.as_str()).collect();
        assert_eq!(blocks[0].0, BlockKind::Title);
        assert_eq!(texts.len(), 5, "{texts:#?}");
        assert!(texts[1].starts_with("First line") && texts[1].ends_with("of the column."));
        assert!(texts[2].starts_with("Second paragraph") && texts[2].ends_with("stopped it."));
        assert!(texts[3].starts_with("Third paragraph"));
        assert_eq!(texts[4], "Fourth, after a gap.");
    }

    #[test]
    fn ranges_and_compound_words_keep_their_dash_across_a_line_break() {
        let lines = vec![
            line(
                "Спектры сняты на масс-спектрометре, а затем на масс-",
                100.0,
                10.0,
            ),
            line("спектрометре другого типа (с. 50–", 112.0, 10.0),
            line("60) после перена-", 124.0, 10.0),
            short("стройки.", 136.0, 10.0),
        ];
        let blocks = paragraphs(&[page(1, lines)]);
        assert_eq!(
            blocks[0].1,
            "Спектры сняты на масс-спектрометре, а затем на масс-спектрометре другого типа (с. 50–60) после перена-\nстройки."
        );
    }

    #[test]
    fn a_paragraph_goes_on_across_a_page_break_past_its_footnote() {
        let first = page(
            1,
            vec![
                line(
                    "Как писал автор, «проверка начинается с чтения",
                    100.0,
                    10.0,
                ),
                line(
                    "текста без искажений, и ни одно слово не должно",
                    112.0,
                    10.0,
                ),
                short("1 Сноска внизу страницы.", 700.0, 8.0),
            ],
        );
        let second = page(
            2,
            vec![
                line("Распасться на части» [3]. Поэтому извлечение", 100.0, 10.0),
                short("текста требует внимания.", 112.0, 10.0),
            ],
        );
        let blocks = paragraphs(&[first, second]);
        assert_eq!(blocks.len(), 2, "{blocks:#?}");
        assert!(blocks[0].1.contains("«проверка") && blocks[0].1.contains("» [3]"));
        assert_eq!(blocks[0].2, 1);
        assert_eq!(blocks[1].1, "1 Сноска внизу страницы.");
    }
}
