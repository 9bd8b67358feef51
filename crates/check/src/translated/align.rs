//! Sentence alignment across two languages: each sentence of the query, its terms translated
//! through the lexicon, against the sentences of a candidate in the other language. Numbers,
//! Latin-script words (names, acronyms, formulas) and cognates (`вакцина` / `vaccine`) count
//! as they are: they survive translation.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use dupfinder_text::analysis::{Language, Span, Token};

use super::lexicon::Lexicon;

/// Aligned query sentences with at most this many unaligned ones between them, whose source
/// sentences are at most as far apart, make one passage.
const PASSAGE_GAP: usize = 2;

/// One sentence of a text.
#[derive(Debug, Clone)]
pub(super) struct Sentence {
    /// Its tokens, as indices into the text's tokens.
    pub(super) tokens: Range<usize>,
    /// Its extent in code points.
    pub(super) chars: Span,
    /// Its distinct units: terms and numbers.
    units: Vec<String>,
}

/// Cuts a text into sentences: at `.`, `!`, `?` or `…` followed by a space and a capital
/// letter, a digit or an opening mark, and at line ends; each sentence with its tokens.
pub(super) fn sentences(text: &str, tokens: &[Token]) -> Vec<Sentence> {
    let mut bounds: Vec<(usize, usize)> = Vec::new(); // (byte start, byte end)
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        let end_here = match c {
            '\n' => true,
            '.' | '!' | '?' | '…' => {
                let rest = &text[i + c.len_utf8()..];
                let after = rest.trim_start_matches([' ', '\t']);
                after.len() < rest.len()
                    && after.chars().next().is_some_and(|n| {
                        n.is_uppercase() || n.is_ascii_digit() || "\"«“([".contains(n)
                    })
            }
            _ => false,
        };
        if end_here {
            let end = i + c.len_utf8();
            if text[start..end].trim().len() > 1 {
                bounds.push((start, end));
            }
            start = end;
        }
    }
    if start < bytes.len() && !text[start..].trim().is_empty() {
        bounds.push((start, bytes.len()));
    }
    let mut out = Vec::with_capacity(bounds.len());
    let mut token = 0;
    let mut char_pos = 0;
    let mut byte_pos = 0;
    for (start, end) in bounds {
        char_pos += text[byte_pos..start].chars().count();
        let char_start = char_pos;
        char_pos += text[start..end].chars().count();
        byte_pos = end;
        let first = token;
        while token < tokens.len() && tokens[token].start < end {
            token += 1;
        }
        let mut units: Vec<String> = tokens[first..token]
            .iter()
            .map(|t| t.term.clone())
            .collect();
        units.extend(numbers(&text[start..end]));
        units.sort_unstable();
        units.dedup();
        out.push(Sentence {
            tokens: first..token,
            chars: Span {
                start: char_start,
                end: char_pos,
            },
            units,
        });
    }
    out
}

/// The numbers of a text of two digits or more (`#2019`), decimal marks and group separators
/// dropped, so `3,5` and `3.5` agree.
fn numbers(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut digits = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            digits.push(c);
            // A separator between digits joins them.
            if matches!(chars.peek(), Some('.' | ',')) {
                let mut ahead = chars.clone();
                ahead.next();
                if ahead.peek().is_some_and(char::is_ascii_digit) {
                    chars.next();
                }
            }
            continue;
        }
        if digits.len() >= 2 {
            out.push(format!("#{digits}"));
        }
        digits.clear();
    }
    if digits.len() >= 2 {
        out.push(format!("#{digits}"));
    }
    out
}

/// A word's cognate key: its Latin spelling (Cyrillic transliterated, `k`/`c`, `y`/`i`,
/// `ph`/`f` folded), first five letters; none for a shorter word.
fn cognate(term: &str) -> Option<String> {
    let mut latin = String::with_capacity(term.len() + 4);
    for c in term.chars() {
        let s = match c {
            'а' => "a",
            'б' => "b",
            'в' => "v",
            'г' => "g",
            'д' => "d",
            'е' | 'ё' | 'э' => "e",
            'ж' => "zh",
            'з' => "z",
            'и' | 'й' | 'ы' | 'y' => "i",
            'к' | 'ц' | 'k' => "c",
            'л' => "l",
            'м' => "m",
            'н' => "n",
            'о' => "o",
            'п' => "p",
            'р' => "r",
            'с' => "s",
            'т' => "t",
            'у' => "u",
            'ф' => "f",
            'х' => "h",
            'ч' => "ch",
            'ш' | 'щ' => "sh",
            'ю' => "iu",
            'я' => "ia",
            'ь' | 'ъ' => "",
            'x' => "cs",
            c if c.is_ascii_lowercase() => {
                latin.push(c);
                continue;
            }
            _ => return None,
        };
        latin.push_str(s);
    }
    let latin = latin.replace("ph", "f");
    (latin.len() >= 5).then(|| format!("~{}", &latin[..5]))
}

/// What one side's units are looked up as: a term itself, and its cognate key.
fn keys(unit: &str) -> impl Iterator<Item = String> {
    std::iter::once(unit.to_string()).chain(cognate(unit))
}

/// The keys under which each of a text's terms may stand in the other language: its
/// translations, itself and its cognate key; with the term's count.
pub(super) struct Bag {
    keys: Vec<(Vec<String>, u32)>,
    all: HashSet<String>,
}

impl Bag {
    pub(super) fn new(
        lexicon: &Lexicon,
        from: Language,
        to: Language,
        terms: &[(String, u32)],
    ) -> Bag {
        let keys: Vec<(Vec<String>, u32)> = terms
            .iter()
            .map(|(term, count)| {
                let mut keys: Vec<String> = keys(term).collect();
                keys.extend(lexicon.translate(from, to, term).iter().cloned());
                (keys, *count)
            })
            .collect();
        let all = keys.iter().flat_map(|(k, _)| k.iter().cloned()).collect();
        Bag { keys, all }
    }

    /// How much of the query and of a document of the other language (its term counts) the
    /// lexicon relates: the share of the query's term occurrences found in the document, and of
    /// the document's found among the query's translations. A cheap test before alignment.
    pub(super) fn overlap(&self, doc: &[(String, u32)]) -> (f64, f64) {
        let mut found = HashSet::new();
        let (mut doc_total, mut doc_matched) = (0u64, 0u64);
        for (term, count) in doc {
            doc_total += u64::from(*count);
            let mut hit = false;
            for key in keys(term) {
                hit |= self.all.contains(&key);
                found.insert(key);
            }
            if hit {
                doc_matched += u64::from(*count);
            }
        }
        let (mut total, mut matched) = (0u64, 0u64);
        for (keys, count) in &self.keys {
            total += u64::from(*count);
            if keys.iter().any(|k| found.contains(k)) {
                matched += u64::from(*count);
            }
        }
        let share = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        (share(matched, total), share(doc_matched, doc_total))
    }
}

/// One query sentence aligned with one candidate sentence.
#[derive(Debug, Clone, Copy)]
pub(super) struct Link {
    pub(super) query: usize,
    pub(super) doc: usize,
    pub(super) score: f64,
}

/// Aligns the query's sentences (language `from`) with the document's (`to`): for each query
/// sentence, the document sentence of a comparable length (within 2 : 5) sharing the largest
/// share of translated units with it, when that share and count are large enough and the share
/// stands out; each document sentence aligned once.
pub(super) fn align(
    lexicon: &Lexicon,
    from: Language,
    to: Language,
    query: &[Sentence],
    doc: &[Sentence],
    bar: (f64, usize, f64),
) -> Vec<Link> {
    let (min_score, min_units, margin) = bar;
    let mut index: HashMap<String, Vec<usize>> = HashMap::new();
    for (j, sentence) in doc.iter().enumerate() {
        for unit in &sentence.units {
            for key in keys(unit) {
                let list = index.entry(key).or_default();
                if list.last() != Some(&j) {
                    list.push(j);
                }
            }
        }
    }
    let mut links = Vec::new();
    let mut counts = vec![0usize; doc.len()];
    let mut touched: Vec<usize> = Vec::new();
    let mut seen: HashSet<usize> = HashSet::new();
    for (i, sentence) in query.iter().enumerate() {
        for unit in &sentence.units {
            seen.clear();
            let translations = lexicon.translate(from, to, unit);
            let own = keys(unit);
            let looked: Vec<String> = own.chain(translations.iter().cloned()).collect();
            for key in &looked {
                for &j in index.get(key).map_or(&[][..], |v| v) {
                    if seen.insert(j) {
                        if counts[j] == 0 {
                            touched.push(j);
                        }
                        counts[j] += 1;
                    }
                }
            }
        }
        let mut best: Option<Link> = None;
        let mut runner_up = 0.0f64;
        for &j in &touched {
            let matched = counts[j];
            let (a, b) = (sentence.units.len(), doc[j].units.len());
            // A translation keeps a sentence's length, give or take.
            if a.min(b) * 5 < a.max(b) * 2 {
                continue;
            }
            let size = (a as f64 * b as f64).sqrt();
            let score = matched as f64 / size.max(1.0);
            if best.is_none_or(|b| score > b.score) {
                runner_up = runner_up.max(best.map_or(0.0, |b| b.score));
                if matched >= min_units {
                    best = Some(Link {
                        query: i,
                        doc: j,
                        score,
                    });
                }
            } else {
                runner_up = runner_up.max(score);
            }
        }
        for j in touched.drain(..) {
            counts[j] = 0;
        }
        // A sentence of a long text shares common words with many: it is aligned only with
        // one that stands out.
        links.extend(best.filter(|b| b.score >= min_score && b.score - runner_up >= margin));
    }
    // One sentence of the document translates one of the query: the best-scored link keeps it.
    let mut best_of: HashMap<usize, f64> = HashMap::new();
    for link in &links {
        let best = best_of.entry(link.doc).or_insert(link.score);
        *best = best.max(link.score);
    }
    let mut kept = HashSet::new();
    links.retain(|l| best_of[&l.doc] == l.score && kept.insert(l.doc));
    links
}

/// Runs of links that follow each other in both texts: translated passages, as ranges of links.
pub(super) fn runs(links: &[Link]) -> Vec<Range<usize>> {
    let mut runs = Vec::new();
    let mut start = 0;
    for k in 1..=links.len() {
        let breaks = k == links.len() || {
            let (a, b) = (links[k - 1], links[k]);
            b.query > a.query + PASSAGE_GAP + 1 || b.doc < a.doc || b.doc > a.doc + PASSAGE_GAP + 1
        };
        if breaks {
            runs.push(start..k);
            start = k;
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_agree_across_decimal_marks() {
        assert_eq!(numbers("в 2019 г. 3,5 % и 7"), ["#2019", "#35"]);
        assert_eq!(numbers("in 2019, 3.5% and 7"), ["#2019", "#35"]);
    }

    #[test]
    fn cognates_share_a_key() {
        assert_eq!(cognate("вакцин"), cognate("vaccin"));
        assert_eq!(cognate("эпидем"), cognate("epidem"));
        assert_eq!(cognate("вирус"), cognate("virus"));
        assert_eq!(cognate("кот"), None);
    }

    #[test]
    fn runs_break_where_either_text_jumps() {
        let link = |query, doc| Link {
            query,
            doc,
            score: 1.0,
        };
        let links = [link(0, 0), link(1, 1), link(3, 2), link(9, 3), link(10, 20)];
        assert_eq!(runs(&links), [0..3, 3..4, 4..5]);
    }
}
