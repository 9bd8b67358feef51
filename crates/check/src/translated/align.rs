//! Sentence alignment across two languages: each sentence of the query, its terms translated
//! through the lexicon, against the sentences of a candidate in the other language. Numbers,
//! Latin-script words (names, acronyms, formulas) and cognates (`вакцина` / `vaccine`) count
//! as they are: they survive translation.

use std::collections::HashSet;
use std::ops::Range;

use rustc_hash::FxHashMap;

use dupfinder_text::analysis::{Language, Span, Token};

use super::lexicon::Lexicon;

/// Aligned query sentences with at most this many unaligned ones between them, whose source
/// sentences are at most as far apart, make one passage.
const PASSAGE_GAP: usize = 2;

/// Where one sentence of a text lies.
#[derive(Debug, Clone)]
pub(super) struct Sentence {
    /// Its tokens, as indices into the text's tokens.
    pub(super) tokens: Range<usize>,
    /// Its extent in code points.
    pub(super) chars: Span,
    /// Its extent in bytes.
    bytes: Range<usize>,
}

/// Cuts a text into sentences: at `.`, `!`, `?` or `…` followed by a space and a capital
/// letter, a digit or an opening mark, and at line ends; each sentence with its tokens.
pub(super) fn sentences(text: &str, tokens: &[Token]) -> Vec<Sentence> {
    let mut bounds: Vec<(usize, usize)> = Vec::new(); // (byte start, byte end)
    let mut start = 0;
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
    if start < text.len() && !text[start..].trim().is_empty() {
        bounds.push((start, text.len()));
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
        out.push(Sentence {
            tokens: first..token,
            chars: Span {
                start: char_start,
                end: char_pos,
            },
            bytes: start..end,
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
    let mut latin = String::new();
    cognate_into(term, &mut latin).then_some(latin)
}

/// [`cognate`] written into `latin` (a buffer used again and again): whether the word has one.
fn cognate_into(term: &str, latin: &mut String) -> bool {
    // `ph` spells `f`.
    fn push(latin: &mut String, c: char) {
        if c == 'h' && latin.ends_with('p') {
            latin.pop();
            latin.push('f');
        } else {
            latin.push(c);
        }
    }
    latin.clear();
    latin.push('~');
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
                push(latin, c);
                continue;
            }
            _ => return false,
        };
        for c in s.chars() {
            push(latin, c);
        }
    }
    latin.truncate(6);
    latin.len() == 6
}

/// The keys under which a term may stand in the other language besides its translations:
/// itself and its cognate key.
fn own_keys(term: &str) -> impl Iterator<Item = std::borrow::Cow<'_, str>> {
    std::iter::once(std::borrow::Cow::Borrowed(term)).chain(cognate(term).map(Into::into))
}

/// The query's side of a cross-language comparison, prepared once per check. Every key a unit
/// of the query (a distinct term or number) may stand as in the other language (its
/// translations, itself, its cognate key) is numbered, so a document's terms are looked up once
/// each and sentences are compared by numbers.
pub(super) struct Query {
    /// Each key's number.
    ids: FxHashMap<String, u32>,
    /// For each unit, the keys it may stand as, in the order they are tried: the query's
    /// distinct terms first (in the order of its term counts), then its numbers.
    looked: Vec<Vec<u32>>,
    /// Each distinct term's count.
    counts: Vec<u32>,
    pub(super) sentences: Vec<Sentence>,
    /// Each sentence's distinct units, in the order of their spelling.
    units: Vec<Vec<u32>>,
}

fn number(ids: &mut FxHashMap<String, u32>, key: &str) -> u32 {
    if let Some(&id) = ids.get(key) {
        return id;
    }
    let id = ids.len() as u32;
    ids.insert(key.to_string(), id);
    id
}

impl Query {
    pub(super) fn new(
        lexicon: &Lexicon,
        (from, to): (Language, Language),
        text: &str,
        tokens: &[Token],
        terms: &[(String, u32)],
    ) -> Query {
        let mut ids = FxHashMap::default();
        let mut names: Vec<String> = Vec::with_capacity(terms.len());
        let mut looked = Vec::with_capacity(terms.len());
        let mut unit_of: FxHashMap<String, u32> = FxHashMap::default();
        unit_of.reserve(terms.len());
        let mut add = |unit: &str, looked: &mut Vec<Vec<u32>>, names: &mut Vec<String>| {
            let mut keys: Vec<u32> = Vec::new();
            let translations = lexicon.translate(from, to, unit).iter();
            for key in own_keys(unit).chain(translations.map(|t| t.as_str().into())) {
                let id = number(&mut ids, &key);
                if !keys.contains(&id) {
                    keys.push(id);
                }
            }
            looked.push(keys);
            names.push(unit.to_string());
            (looked.len() - 1) as u32
        };
        for (term, _) in terms {
            let unit = add(term, &mut looked, &mut names);
            unit_of.insert(term.clone(), unit);
        }
        let counts = terms.iter().map(|(_, count)| *count).collect();
        let sentences = sentences(text, tokens);
        let mut units = Vec::with_capacity(sentences.len());
        for sentence in &sentences {
            let numbers = numbers(&text[sentence.bytes.clone()]);
            let spelled = tokens[sentence.tokens.clone()]
                .iter()
                .map(|t| t.term.as_str())
                .chain(numbers.iter().map(String::as_str));
            let mut own: Vec<u32> = Vec::new();
            for name in spelled {
                let unit = match unit_of.get(name) {
                    Some(&unit) => unit,
                    None => {
                        let unit = add(name, &mut looked, &mut names);
                        unit_of.insert(name.to_string(), unit);
                        unit
                    }
                };
                own.push(unit);
            }
            own.sort_unstable_by(|a, b| names[*a as usize].cmp(&names[*b as usize]));
            own.dedup();
            units.push(own);
        }
        Query {
            ids,
            looked,
            counts,
            sentences,
            units,
        }
    }

    /// How much of the query and of a document of the other language the lexicon relates: the
    /// share of the query's term occurrences found in the document, and of the document's found
    /// among the query's keys. A cheap test before alignment.
    pub(super) fn overlap(&self, doc: &DocTerms) -> (f64, f64) {
        let mut found = vec![false; self.ids.len()];
        let (mut doc_total, mut doc_matched) = (0u64, 0u64);
        for (place, count) in doc.counts.iter().enumerate() {
            doc_total += u64::from(*count);
            let keys = doc.keys(place);
            if !keys.is_empty() {
                doc_matched += u64::from(*count);
            }
            for &key in keys {
                found[key as usize] = true;
            }
        }
        let (mut total, mut matched) = (0u64, 0u64);
        for (keys, count) in self.looked.iter().zip(&self.counts) {
            total += u64::from(*count);
            if keys.iter().any(|&k| found[k as usize]) {
                matched += u64::from(*count);
            }
        }
        let share = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        (share(matched, total), share(doc_matched, doc_total))
    }
}

/// A document's distinct terms, each with its count and the query's keys it stands as.
pub(super) struct DocTerms {
    counts: Vec<u32>,
    /// The keys of term `p` are `keys[starts[p]..starts[p + 1]]`.
    starts: Vec<u32>,
    keys: Vec<u32>,
}

impl DocTerms {
    /// The document's terms as (term, count) in term order.
    pub(super) fn new<'t>(
        query: &Query,
        terms: impl ExactSizeIterator<Item = (&'t str, u32)>,
    ) -> DocTerms {
        let mut starts = Vec::with_capacity(terms.len() + 1);
        starts.push(0);
        let mut counts = Vec::with_capacity(terms.len());
        let mut keys = Vec::new();
        let mut cognate = String::new();
        for (term, count) in terms {
            let first = keys.len();
            if let Some(&id) = query.ids.get(term) {
                keys.push(id);
            }
            if cognate_into(term, &mut cognate)
                && let Some(&id) = query.ids.get(cognate.as_str())
                && !keys[first..].contains(&id)
            {
                keys.push(id);
            }
            starts.push(keys.len() as u32);
            counts.push(count);
        }
        DocTerms {
            counts,
            starts,
            keys,
        }
    }

    fn keys(&self, place: usize) -> &[u32] {
        &self.keys[self.starts[place] as usize..self.starts[place + 1] as usize]
    }

    /// The document's sentences, each with how many distinct units it holds and the query's keys
    /// they stand as; `places` gives each token's term as its place in these terms.
    pub(super) fn sentences(
        &self,
        query: &Query,
        text: &str,
        tokens: &[Token],
        places: &[u32],
    ) -> DocSentences {
        let sentences = sentences(text, tokens);
        let mut sizes = Vec::with_capacity(sentences.len());
        let mut keys = Vec::with_capacity(sentences.len());
        let mut distinct: Vec<u32> = Vec::new();
        for sentence in &sentences {
            distinct.clear();
            distinct.extend(&places[sentence.tokens.clone()]);
            distinct.sort_unstable();
            distinct.dedup();
            let mut numbers = numbers(&text[sentence.bytes.clone()]);
            numbers.sort_unstable();
            numbers.dedup();
            sizes.push(distinct.len() + numbers.len());
            let mut own: Vec<u32> = distinct
                .iter()
                .flat_map(|&p| self.keys(p as usize))
                .copied()
                .chain(numbers.iter().filter_map(|n| query.ids.get(n).copied()))
                .collect();
            own.sort_unstable();
            own.dedup();
            keys.push(own);
        }
        DocSentences {
            sentences,
            sizes,
            keys,
        }
    }
}

/// Distinct terms with their counts, in order of first occurrence, and each token's term as
/// its place among them: what a library keeps for a document, made from an analysis.
pub(super) fn places(tokens: &[Token]) -> (Vec<(String, u32)>, Vec<u32>) {
    let mut place_of: FxHashMap<&str, u32> = FxHashMap::default();
    let mut counts: Vec<(String, u32)> = Vec::new();
    let places = tokens
        .iter()
        .map(|token| {
            let place = *place_of.entry(token.term.as_str()).or_insert_with(|| {
                counts.push((token.term.clone(), 0));
                (counts.len() - 1) as u32
            });
            counts[place as usize].1 += 1;
            place
        })
        .collect();
    (counts, places)
}

/// A document's sentences as alignment compares them.
pub(super) struct DocSentences {
    pub(super) sentences: Vec<Sentence>,
    /// Each sentence's count of distinct units.
    sizes: Vec<usize>,
    /// The query's keys each sentence's units stand as.
    keys: Vec<Vec<u32>>,
}

/// One query sentence aligned with one candidate sentence.
#[derive(Debug, Clone, Copy)]
pub(super) struct Link {
    pub(super) query: usize,
    pub(super) doc: usize,
    pub(super) score: f64,
}

/// Aligns the query's sentences with the document's: for each query sentence, the document
/// sentence of a comparable length (within 2 : 5) sharing the largest share of translated
/// units with it, when that share and count are large enough and the share stands out; each
/// document sentence aligned once.
pub(super) fn align(query: &Query, doc: &DocSentences, bar: (f64, usize, f64)) -> Vec<Link> {
    let (min_score, min_units, margin) = bar;
    // For each key, the document's sentences that hold it, in order.
    let mut starts = vec![0u32; query.ids.len() + 1];
    for keys in &doc.keys {
        for &key in keys {
            starts[key as usize + 1] += 1;
        }
    }
    for k in 1..starts.len() {
        starts[k] += starts[k - 1];
    }
    let mut holders = vec![0u32; starts[starts.len() - 1] as usize];
    let mut filled = starts.clone();
    for (j, keys) in doc.keys.iter().enumerate() {
        for &key in keys {
            holders[filled[key as usize] as usize] = j as u32;
            filled[key as usize] += 1;
        }
    }
    let mut links = Vec::new();
    let mut counts = vec![0usize; doc.keys.len()];
    // The last unit that counted each document sentence: a unit counts a sentence once.
    let mut counted_by = vec![u32::MAX; doc.keys.len()];
    let mut touched: Vec<usize> = Vec::new();
    let mut serial = 0u32;
    for (i, units) in query.units.iter().enumerate() {
        for &unit in units {
            serial += 1;
            for &key in &query.looked[unit as usize] {
                let range = starts[key as usize] as usize..starts[key as usize + 1] as usize;
                for &j in &holders[range] {
                    let j = j as usize;
                    if counted_by[j] != serial {
                        counted_by[j] = serial;
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
            let (a, b) = (units.len(), doc.sizes[j]);
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
    let mut best_of: FxHashMap<usize, f64> = FxHashMap::default();
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
        // `ph` is `f`, folded before the first five letters are kept, whichever script.
        assert_eq!(cognate("phosphor").as_deref(), Some("~fosfo"));
        assert_eq!(cognate("фосфор"), cognate("phosphor"));
        assert_eq!(cognate("sapphire").as_deref(), Some("~sapfi"));
        // Four letters once folded: too short.
        assert_eq!(cognate("alpha"), None);
        // A word with a character outside both alphabets has none.
        assert_eq!(cognate("covid-19"), None);
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
