//! The manuscript's words with the passages that cover them: the source (its number) whose
//! passage holds each word, where a passage begins, and whether it counts.

use serde_json::Value;

use super::layout::Word;
use dupfinder_check::{Exclusions, PassageKind};

/// Whether a passage counts in the figures: its source counts and its kind is not left out
/// under the answer's `exclusions` (all count in a report made before exclusions).
pub(super) fn counts(m: &Value, passage: &Value, exclusions: Option<&Exclusions>) -> bool {
    let kind: Option<PassageKind> = serde_json::from_value(passage["kind"].clone()).ok();
    m["counted"].as_bool() != Some(false)
        && exclusions
            .zip(kind)
            .is_none_or(|(exclusions, kind)| exclusions.counts(kind))
}

/// The words of `text` (which starts at code point `offset` of the manuscript), each with the
/// source (1-based) whose passage covers its first character. Counted passages win where
/// passages overlap, then the first source listed — as on the page.
pub(super) fn marked_words(
    text: &str,
    offset: usize,
    matches: &[Value],
    exclusions: Option<&Exclusions>,
) -> Vec<Word> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut owner: Vec<Option<usize>> = vec![None; chars.len()];
    let mut starts: Vec<Option<usize>> = vec![None; chars.len()];
    let mut left_out = vec![false; chars.len()];
    for live_pass in [true, false] {
        for (n, m) in matches.iter().enumerate() {
            for passage in m["passages"].as_array().into_iter().flatten() {
                let live = counts(m, passage, exclusions);
                if live != live_pass {
                    continue;
                }
                let at = |side: &str| {
                    (passage["query"][side].as_u64().unwrap_or(0) as usize)
                        .saturating_sub(offset)
                        .min(chars.len())
                };
                let (start, end) = (at("start"), at("end"));
                if start >= end {
                    continue;
                }
                let mut first = true;
                for (slot, out) in owner[start..end].iter_mut().zip(&mut left_out[start..end]) {
                    if slot.is_none() {
                        *slot = Some(n + 1);
                        *out = !live;
                        if first {
                            starts[start] = Some(n + 1);
                            first = false;
                        }
                    }
                }
            }
        }
    }
    let mut words = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].1.is_whitespace() {
            i += 1;
            continue;
        }
        let begin = i;
        while i < chars.len() && !chars[i].1.is_whitespace() {
            i += 1;
        }
        let (from, to) = (chars[begin].0, chars.get(i).map_or(text.len(), |c| c.0));
        let first = (begin..i).find(|c| owner[*c].is_some());
        words.push(Word {
            text: text[from..to].to_string(),
            source: first.and_then(|c| owner[c]),
            mark: starts[begin..i]
                .iter()
                .flatten()
                .next()
                .map(|n| n.to_string()),
            left_out: first.is_some_and(|c| left_out[c]),
        });
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_take_the_source_of_the_passage_that_covers_them() {
        let text = "one two three four five";
        let matches = vec![serde_json::json!({
            "passages": [{"query": {"start": 4, "end": 13}}]
        })];
        let words = marked_words(text, 0, &matches, None);
        let sources: Vec<Option<usize>> = words.iter().map(|w| w.source).collect();
        assert_eq!(sources, [None, Some(1), Some(1), None, None]);
        assert_eq!(words[1].mark.as_deref(), Some("1"));
        assert_eq!(words[2].mark, None);
        // The same text as a paragraph starting at code point 100 of the manuscript.
        let shifted = vec![serde_json::json!({
            "passages": [{"query": {"start": 104, "end": 113}}]
        })];
        let words = marked_words(text, 100, &shifted, None);
        assert_eq!(words[1].source, Some(1));
        assert_eq!(words[0].source, None);
    }

    #[test]
    fn passages_left_out_of_the_figures_are_marked_as_such() {
        let text = "one two three four five six";
        let matches = vec![
            serde_json::json!({"passages": [
                {"query": {"start": 0, "end": 7}, "kind": "quoted"},
                {"query": {"start": 8, "end": 13}, "kind": "copied"},
            ]}),
            serde_json::json!({"counted": false, "passages": [
                {"query": {"start": 19, "end": 23}, "kind": "copied"},
            ]}),
        ];
        let exclusions: Exclusions = serde_json::from_value(serde_json::json!({
            "quotes": true, "bibliography": true, "front_matter": true, "boilerplate": true,
            "small_matches": 0, "sources": []
        }))
        .unwrap();
        let words = marked_words(text, 0, &matches, Some(&exclusions));
        let left_out: Vec<bool> = words.iter().map(|w| w.left_out).collect();
        assert_eq!(left_out, [true, true, false, false, true, false]);
        // A report made before exclusions: everything counts.
        assert!(
            marked_words(text, 0, &matches[..1], None)
                .iter()
                .all(|w| !w.left_out)
        );
    }

    /// Where a left-out passage of the first source overlaps a counted one of the second, the
    /// counted one shows, as on the page.
    #[test]
    fn a_counted_passage_wins_over_a_left_out_one() {
        let text = "one two three";
        let matches = vec![
            serde_json::json!({"counted": false, "passages": [{"query": {"start": 0, "end": 13}, "kind": "copied"}]}),
            serde_json::json!({"passages": [{"query": {"start": 4, "end": 7}, "kind": "copied"}]}),
        ];
        let words = marked_words(text, 0, &matches, None);
        assert_eq!(words[1].source, Some(2));
        assert!(!words[1].left_out);
        assert_eq!(words[0].source, Some(1));
    }
}
