//! Synonym swaps, made the way a synonymizer makes them: a share of a text's content words
//! (four letters or more) replaced by a one-word synonym from a MyThes thesaurus (a word finds
//! its entry by its stem; the synonym is written in its dictionary form), the case of the first
//! letter kept. Russian abstracts (ru_sci_480) and English ones (ACL Anthology) go into
//! a library; each is checked as swapped at 20 % and 30 %, and unswapped (where a `rewording`
//! flag is a false one).

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use super::gen_tests::read_objects;
use dupfinder_check::{CheckError, CheckRequest, Method, Verdict, thesaurus_entries};
use dupfinder_service::library::check;
use dupfinder_service::library::{Catalog, DocumentInput, IdValue, LibraryError, NewLibrary};
use dupfinder_storage::index::default_analyzer;
use dupfinder_text::analysis::{Analyzer, Language};

/// Texts per language.
const TEXTS: usize = 150;
/// Characters of a text at the most (an abstract's length).
const TEXT_CHARS: usize = 1_500;

/// The figures of one language and share of swapped words.
#[derive(Debug, Clone, Serialize)]
pub struct SwapRow {
    pub lang: String,
    /// Share of content words asked to be swapped, and the share swapped on average.
    pub asked: f64,
    pub swapped: f64,
    pub queries: usize,
    /// Queries whose source is a counted match, and of those with the verdict `duplicate`.
    pub found: usize,
    pub duplicate: usize,
    /// Queries whose source match carries the method `synonyms` (the `rewording` flag).
    pub flagged: usize,
    /// Counted matches to another text.
    pub false_claims: usize,
    pub recall: f64,
    pub flagged_share: f64,
}

/// Why the evaluation could not run.
#[derive(Debug, thiserror::Error)]
pub enum SwapError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Library(#[from] LibraryError),
    #[error(transparent)]
    Check(#[from] CheckError),
}

/// A thesaurus as stems (the analyzer's, so that an inflected word finds its entry) to one-word
/// synonyms (antonyms and related terms left out).
fn read_thesaurus(path: &Path, lang: Language) -> Result<HashMap<String, Vec<String>>, SwapError> {
    let text = std::fs::read_to_string(path).map_err(|source| SwapError::Read {
        path: path.display().to_string(),
        source,
    })?;
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    for (head, synonyms) in thesaurus_entries(&text) {
        let Some(key) = stem(head, lang) else {
            continue;
        };
        for field in synonyms {
            if field != head && field.chars().all(char::is_alphabetic) {
                out.entry(key.clone()).or_default().push(field.to_string());
            }
        }
    }
    Ok(out)
}

/// The analyzer's stem of one word, if it is one indexable word.
fn stem(word: &str, lang: Language) -> Option<String> {
    thread_local! {
        static ANALYZER: Analyzer = default_analyzer();
    }
    ANALYZER.with(
        |analyzer| match analyzer.analyze(word, Some(lang)).tokens.as_slice() {
            [token] => Some(token.term.clone()),
            _ => None,
        },
    )
}

/// A pseudo-random number from a seed (SplitMix64), so that every run swaps the same words.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// `text` with `share` of its content words swapped for synonyms where the thesaurus has one
/// (`synonyms` of a word), and the share of content words swapped.
pub fn swap_synonyms<'a>(
    text: &str,
    share: f64,
    synonyms: &dyn Fn(&str) -> Option<&'a Vec<String>>,
    seed: u64,
) -> (String, f64) {
    // Word spans (bytes) of alphabetic runs.
    let mut words = Vec::new();
    let mut start = None;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        match (c.is_alphabetic(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                words.push(s..i);
                start = None;
            }
            _ => {}
        }
    }
    let content: Vec<_> = words
        .into_iter()
        .filter(|w| text[w.clone()].chars().count() >= 4)
        .collect();
    let mut swappable: Vec<(u64, std::ops::Range<usize>, String)> = content
        .iter()
        .enumerate()
        .filter_map(|(k, w)| {
            let word = &text[w.clone()];
            let synonyms = synonyms(word)?;
            let synonym = &synonyms[(mix(seed ^ k as u64) as usize) % synonyms.len()];
            let mut chars = word.chars();
            let first_upper = chars.next().is_some_and(char::is_uppercase);
            let synonym = if first_upper {
                let mut s = synonym.chars();
                s.next()
                    .map(|c| c.to_uppercase().chain(s).collect())
                    .unwrap_or_default()
            } else {
                synonym.clone()
            };
            Some((mix(seed.wrapping_add(k as u64)), w.clone(), synonym))
        })
        .collect();
    swappable.sort_by_key(|(order, _, _)| *order);
    let wanted = (share * content.len() as f64).round() as usize;
    let mut chosen: Vec<_> = swappable.into_iter().take(wanted).collect();
    chosen.sort_by_key(|(_, w, _)| w.start);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (_, w, synonym) in &chosen {
        out.push_str(&text[at..w.start]);
        out.push_str(synonym);
        at = w.end;
    }
    out.push_str(&text[at..]);
    let done = if content.is_empty() {
        0.0
    } else {
        chosen.len() as f64 / content.len() as f64
    };
    (out, done)
}

/// The first [`TEXT_CHARS`] characters of `text`, cut at a sentence end when one is near.
fn abstract_of(text: &str) -> String {
    let cut: String = text.chars().take(TEXT_CHARS).collect();
    match cut.rfind(". ") {
        Some(end) if end > TEXT_CHARS / 2 => cut[..=end].to_string(),
        _ => cut,
    }
}

/// Texts of a corpus file: `(id, text)` from `field`, long enough.
fn texts(path: &Path, field: &str, lang: &str) -> Result<Vec<(String, String)>, SwapError> {
    let objects = read_objects(path).map_err(|source| SwapError::Read {
        path: path.display().to_string(),
        source,
    })?;
    Ok(objects
        .iter()
        .filter(|o| {
            o.get("lang")
                .and_then(Value::as_str)
                .is_none_or(|l| l == lang)
        })
        .filter_map(|o| {
            let text = o.get(field).and_then(Value::as_str)?;
            let id = match o.get("id")? {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (text.chars().count() >= 600).then(|| (format!("{lang}-{id}"), abstract_of(text)))
        })
        .take(TEXTS)
        .collect())
}

/// Evaluates synonym swaps with the corpora of `corpus` (`ru_sci_480.jsonl.gz`,
/// `acl_abstracts.jsonl.gz`) and the thesauri given, in a library `syn` of `catalog`.
pub fn evaluate_synonym_swaps(
    catalog: &Catalog,
    corpus: &Path,
    thesaurus_ru: &Path,
    thesaurus_en: &Path,
) -> Result<Vec<SwapRow>, SwapError> {
    let sets = [
        (
            "ru",
            texts(&corpus.join("ru_sci_480.jsonl.gz"), "abstract", "ru")?,
            read_thesaurus(thesaurus_ru, Language::Russian)?,
        ),
        (
            "en",
            texts(&corpus.join("acl_abstracts.jsonl.gz"), "text", "en")?,
            read_thesaurus(thesaurus_en, Language::English)?,
        ),
    ];
    if catalog.index("syn").is_err() {
        catalog.create(NewLibrary {
            id: "syn".to_string(),
            ..Default::default()
        })?;
        let mut inputs = Vec::new();
        for (lang, texts, _) in &sets {
            for (id, text) in texts {
                let input = DocumentInput {
                    id: Some(IdValue::Text(id.clone())),
                    text: Some(text.clone()),
                    lang: Some(lang.to_string()),
                    ..Default::default()
                };
                inputs.push((inputs.len() + 1, Ok(input)));
            }
        }
        catalog.ingest("syn", inputs)?;
    }
    let mut rows = Vec::new();
    for (lang, texts, thesaurus) in &sets {
        for asked in [0.0, 0.2, 0.3] {
            let mut row = SwapRow {
                lang: lang.to_string(),
                asked,
                swapped: 0.0,
                queries: 0,
                found: 0,
                duplicate: 0,
                flagged: 0,
                false_claims: 0,
                recall: 0.0,
                flagged_share: 0.0,
            };
            for (k, (id, text)) in texts.iter().enumerate() {
                let lang_of = Language::from_code(lang).unwrap_or(Language::English);
                let lookup = |word: &str| stem(word, lang_of).and_then(|s| thesaurus.get(&s));
                let (query, swapped) = swap_synonyms(text, asked, &lookup, k as u64);
                row.swapped += swapped;
                row.queries += 1;
                let mut request = CheckRequest::new(query);
                request.libraries = Some(vec!["syn".to_string()]);
                request.lang = Some(lang.to_string());
                request.cross_language = false;
                let report = check(catalog, &request)?;
                for m in report.matches.iter().filter(|m| m.counted) {
                    if m.doc_id == *id {
                        row.found += 1;
                        row.duplicate += usize::from(m.verdict == Verdict::Duplicate);
                        row.flagged += usize::from(m.methods.contains(&Method::Synonyms));
                    } else {
                        row.false_claims += 1;
                    }
                }
            }
            let n = row.queries.max(1) as f64;
            row.swapped /= n;
            row.recall = row.found as f64 / n;
            row.flagged_share = row.flagged as f64 / n;
            rows.push(row);
        }
    }
    Ok(rows)
}

/// The rows as a Markdown table.
pub fn print_synonym_swaps(rows: &[SwapRow]) {
    println!(
        "| language | content words swapped (asked / done) | queries | found (recall) | as duplicate | flagged rewording | false claims |"
    );
    println!("|---|---|---|---|---|---|---|");
    for r in rows {
        println!(
            "| {} | {:.0} % / {:.1} % | {} | {} ({:.3}) | {} | {} ({:.3}) | {} |",
            r.lang,
            r.asked * 100.0,
            r.swapped * 100.0,
            r.queries,
            r.found,
            r.recall,
            r.duplicate,
            r.flagged,
            r.flagged_share,
            r.false_claims
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_share_of_content_words_is_swapped_keeping_case() {
        let thesaurus: HashMap<String, Vec<String>> = [
            ("method".to_string(), vec!["technique".to_string()]),
            ("results".to_string(), vec!["findings".to_string()]),
        ]
        .into_iter()
        .collect();
        let text = "Method and results: the method gives results.";
        let lookup = |word: &str| thesaurus.get(&word.to_lowercase());
        let (all, share) = swap_synonyms(text, 1.0, &lookup, 7);
        assert_eq!(all, "Technique and findings: the technique gives findings.");
        // Five content words (four letters or more), four of them swappable.
        assert!((share - 4.0 / 5.0).abs() < 1e-9, "{share}");
        let (none, share) = swap_synonyms(text, 0.0, &lookup, 7);
        assert_eq!((none.as_str(), share), (text, 0.0));
    }
}
