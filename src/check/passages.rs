//! Copied passages: runs of shared shingles in the query, aligned to the matching document and
//! mapped back to code point offsets in both texts.

use std::collections::HashMap;

use serde::Serialize;

use crate::analysis::{SHINGLE_WORDS, Token};

/// A run of query shingle positions shared with one document, allowing small gaps (a replaced
/// word removes the few shingles that cover it, not the passage).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueryRun {
    /// Position of the run's first shared shingle.
    pub first: u32,
    /// Position of the run's last shared shingle.
    pub last: u32,
    /// Shared shingles in the run.
    pub matched: u32,
}

impl QueryRun {
    /// The query tokens the run covers.
    pub fn tokens(&self) -> std::ops::Range<usize> {
        self.first as usize..self.last as usize + SHINGLE_WORDS
    }
}

/// Groups sorted shingle positions into runs: a run continues while the next shared position is
/// at most `gap + 1` after the previous one. Runs with fewer than `min_matched` shared shingles are
/// dropped.
pub fn query_runs(positions: &[u32], gap: u32, min_matched: u32) -> Vec<QueryRun> {
    let mut runs = Vec::new();
    let mut current: Option<QueryRun> = None;
    for &p in positions {
        match current.as_mut() {
            Some(run) if p == run.last => {}
            Some(run) if p <= run.last + gap + 1 => {
                run.last = p;
                run.matched += 1;
            }
            _ => {
                if let Some(run) = current.take() {
                    runs.push(run);
                }
                current = Some(QueryRun {
                    first: p,
                    last: p,
                    matched: 1,
                });
            }
        }
    }
    runs.extend(current);
    runs.retain(|r| r.matched >= min_matched);
    runs
}

/// How many of `total` query tokens the runs cover.
pub(super) fn covered_tokens(runs: &[QueryRun], total: usize) -> usize {
    let mut covered = vec![false; total];
    for run in runs {
        for i in run.tokens() {
            if i < total {
                covered[i] = true;
            }
        }
    }
    covered.iter().filter(|c| **c).count()
}

/// A span of a text in code points, start inclusive, end exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

/// One copied passage, in both texts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PassageMatch {
    pub query: Span,
    pub doc: Span,
    /// Analyzed words (terms) of the query in the passage.
    pub words: usize,
}

/// Converts byte offsets of one text into code point offsets.
pub(super) struct CharOffsets<'a> {
    text: &'a str,
}

impl<'a> CharOffsets<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        CharOffsets { text }
    }

    /// The code point offset of byte offset `byte` (which lies on a char boundary).
    pub(super) fn of(&self, byte: usize) -> usize {
        self.text[..byte.min(self.text.len())].chars().count()
    }
}

/// Aligns each query run to the document: the document positions holding the run's shingles,
/// kept around the run's dominant diagonal (query position − document position), give the
/// document side of the passage.
pub(super) fn align(
    runs: &[QueryRun],
    query_shingles: &[u64],
    query_tokens: &[Token],
    query_text: &str,
    doc_shingles: &[u64],
    doc_tokens: &[Token],
    doc_text: &str,
) -> Vec<PassageMatch> {
    let mut doc_positions: HashMap<u64, Vec<usize>> = HashMap::with_capacity(doc_shingles.len());
    for (i, shingle) in doc_shingles.iter().enumerate() {
        doc_positions.entry(*shingle).or_default().push(i);
    }
    let (query_chars, doc_chars) = (CharOffsets::new(query_text), CharOffsets::new(doc_text));
    let mut passages = Vec::new();
    for run in runs {
        let mut pairs = Vec::new();
        for q in run.first as usize..=run.last as usize {
            if let Some(ds) = query_shingles.get(q).and_then(|h| doc_positions.get(h)) {
                pairs.extend(ds.iter().map(|&d| (q, d)));
            }
        }
        let mut diagonals: HashMap<i64, usize> = HashMap::new();
        for &(q, d) in &pairs {
            *diagonals.entry(d as i64 - q as i64).or_default() += 1;
        }
        let Some((&mode, _)) = diagonals
            .iter()
            .max_by_key(|(diagonal, count)| (**count, -diagonal.abs()))
        else {
            continue;
        };
        let near = |&&(q, d): &&(usize, usize)| (d as i64 - q as i64 - mode).abs() <= 12;
        let (Some(q_first), Some(q_last)) = (
            pairs.iter().filter(near).map(|p| p.0).min(),
            pairs.iter().filter(near).map(|p| p.0).max(),
        ) else {
            continue;
        };
        let d_first = pairs.iter().filter(near).map(|p| p.1).min().unwrap_or(0);
        let d_last = pairs.iter().filter(near).map(|p| p.1).max().unwrap_or(0);
        let q_end = (q_last + SHINGLE_WORDS - 1).min(query_tokens.len() - 1);
        let d_end = (d_last + SHINGLE_WORDS - 1).min(doc_tokens.len() - 1);
        passages.push(PassageMatch {
            query: Span {
                start: query_chars.of(query_tokens[q_first].start),
                end: query_chars.of(query_tokens[q_end].end),
            },
            doc: Span {
                start: doc_chars.of(doc_tokens[d_first].start),
                end: doc_chars.of(doc_tokens[d_end].end),
            },
            words: q_end + 1 - q_first,
        });
    }
    passages
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_bridge_small_gaps_only() {
        let positions = [1, 2, 3, 7, 8, 30, 31, 32, 33];
        let runs = query_runs(&positions, 3, 2);
        assert_eq!(
            runs,
            vec![
                QueryRun {
                    first: 1,
                    last: 8,
                    matched: 5
                },
                QueryRun {
                    first: 30,
                    last: 33,
                    matched: 4
                }
            ]
        );
        assert_eq!(query_runs(&positions, 3, 5).len(), 1);
        assert_eq!(covered_tokens(&runs, 40), (8 + 3 - 1) + (33 + 3 - 30));
    }

    #[test]
    fn char_offsets_count_code_points() {
        let text = "ёж и 𝔸 ok";
        let offsets = CharOffsets::new(text);
        let ok = text.find("ok").unwrap();
        assert_eq!(offsets.of(ok), 7);
        assert_eq!(text.chars().skip(7).take(2).collect::<String>(), "ok");
    }
}
