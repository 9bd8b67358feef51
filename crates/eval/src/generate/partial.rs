//! Partial copies: a passage of whole sentences of a library document placed in a foreign
//! text, with the spans that say where it lies in both.

use super::Span;
use super::rng::Rng;
use super::text::{sentence_ranges, word_count};

/// Code points in `text[..byte]`.
fn char_offset(text: &str, byte: usize) -> usize {
    text[..byte].chars().count()
}

/// A passage of whole sentences of `source` (between `min_words` and about three times that
/// many words, capped by the document), inserted verbatim at a sentence boundary of `host`.
/// Returns the new text, the passage's span in it and its span in `source`.
pub(super) fn partial_copy(
    source: &str,
    host: &str,
    min_words: usize,
    quoted: bool,
    rng: &mut Rng,
) -> Option<(String, Span, Span)> {
    let sentences = sentence_ranges(source);
    let words: Vec<usize> = sentences
        .iter()
        .map(|r| word_count(&source[r.clone()]))
        .collect();
    let available: usize = words.iter().sum();
    if available < min_words {
        return None;
    }
    let wanted = rng.between(min_words, (3 * min_words).min(available));
    // Grow from a random sentence forward, then backward if the document ends first.
    let mut first = rng.below(sentences.len());
    let mut last = first;
    let mut taken = words[first];
    while taken < wanted && last + 1 < sentences.len() {
        last += 1;
        taken += words[last];
    }
    while taken < wanted && first > 0 {
        first -= 1;
        taken += words[first];
    }
    let (from, to) = (sentences[first].start, sentences[last].end);
    let passage = &source[from..to];
    // A quotation runs into the citing paragraph: its line breaks become spaces (one for one,
    // so the source span keeps its length).
    let run_in: String;
    let passage = if quoted {
        run_in = passage
            .chars()
            .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
            .collect();
        run_in.as_str()
    } else {
        passage
    };

    let host_sentences = sentence_ranges(host);
    if host_sentences.is_empty() {
        return None;
    }
    let boundary = rng.below(host_sentences.len() + 1);
    let before = if boundary == 0 {
        ""
    } else {
        &host[..host_sentences[boundary - 1].end]
    };
    let after = host_sentences
        .get(boundary)
        .map_or("", |r| &host[r.start..]);
    // Keep the host's structure: a passage placed at a paragraph break becomes a paragraph.
    let gap = if boundary > 0 && boundary < host_sentences.len() {
        &host[host_sentences[boundary - 1].end..host_sentences[boundary].start]
    } else {
        ""
    };
    let separator = if gap.matches('\n').count() >= 2 {
        "\n\n"
    } else {
        " "
    };

    let mut text = String::with_capacity(before.len() + passage.len() + after.len() + 4);
    text.push_str(before);
    if !before.is_empty() {
        text.push_str(separator);
    }
    let cyrillic = passage
        .chars()
        .find(|c| c.is_alphabetic())
        .is_some_and(|c| ('\u{400}'..='\u{4ff}').contains(&c));
    let (open, close) = if cyrillic {
        ("«", "»")
    } else {
        ("“", "”")
    };
    if quoted {
        text.push_str(open);
    }
    let start = text.chars().count();
    text.push_str(passage);
    let end = start + passage.chars().count();
    if quoted {
        text.push_str(close);
        text.push_str(" [1]");
    }
    if !after.is_empty() {
        text.push_str(separator);
        text.push_str(after);
    }
    let source_start = char_offset(source, from);
    let source_span = Span {
        start: source_start,
        end: source_start + (end - start),
    };
    Some((text, Span { start, end }, source_span))
}

/// Whole library documents a `many_sources` query copies besides its short case.
pub(super) const MANY_SOURCES_OTHERS: usize = 4;

/// The smallest short copy of a `many_sources` query, in words (it takes up to three times
/// this): the shortest case the check must never lose.
pub(super) const SHORT_COPY_WORDS: usize = 40;

/// Words of a passage's opening that [`repeat_opening`] repeats at least: enough for a chain
/// of shared shingles of its own.
const REPEATED_OPENING_WORDS: usize = 15;

/// A partial copy whose opening sentences (at least [`REPEATED_OPENING_WORDS`] words, less
/// than the whole passage) are put once more at the start of the query. The spans still mark
/// the full passage, shifted by what was put before it. `None` when the passage is too short
/// to have such an opening.
pub(super) fn repeat_opening(
    (text, query_span, source_span): (String, Span, Span),
) -> Option<(String, Span, Span)> {
    let passage: String = text
        .chars()
        .skip(query_span.start)
        .take(query_span.end - query_span.start)
        .collect();
    let sentences = sentence_ranges(&passage);
    let mut end = None;
    let mut words = 0;
    for range in &sentences {
        words += word_count(&passage[range.clone()]);
        if words >= REPEATED_OPENING_WORDS {
            end = Some(range.end);
            break;
        }
    }
    let end = end.filter(|&end| word_count(&passage[end..]) >= REPEATED_OPENING_WORDS)?;
    let opening = passage[..end].trim();
    let shift = opening.chars().count() + 2;
    let repeated = format!("{opening}\n\n{text}");
    let query_span = Span {
        start: query_span.start + shift,
        end: query_span.end + shift,
    };
    Some((repeated, query_span, source_span))
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{arb_text, corpus, numbered, options, slice, source_text};
    use super::super::text::differs_beyond_whitespace;
    use super::super::{GenOptions, Modification, Query, SourceDoc, generate};
    use super::*;
    use proptest::prelude::*;

    /// The passage a query copied, checked to be the same text at its span in the query and at
    /// its span in the source.
    fn copied_passage(docs: &[SourceDoc], query: &Query) -> String {
        let (q, s) = (query.query_span.unwrap(), query.source_span.unwrap());
        let passage = slice(&query.text, q);
        assert_eq!(passage, slice(source_text(docs, query), s), "{}", query.id);
        passage
    }

    #[test]
    fn partial_copies_carry_exact_spans_and_no_duplicate_expectation() {
        let (docs, foreign) = corpus();
        let queries = generate(
            &docs,
            &foreign,
            &options(&[Modification::PartialCopy], &[0.1], 10),
        );
        assert_eq!(queries.len(), 10);
        for query in &queries {
            assert!(!query.expect_duplicate);
            let passage = copied_passage(&docs, query);
            let words = word_count(&passage);
            // At least the minimum; at most three times it plus the sentence that crossed it.
            assert!((50..=150 + 16).contains(&words), "{words}");
        }
    }

    #[test]
    fn repeated_copies_hold_the_opening_twice_and_the_span_marks_the_full_copy() {
        let (docs, foreign) = corpus();
        let queries = generate(
            &docs,
            &foreign,
            &options(&[Modification::RepeatedCopy], &[0.1], 10),
        );
        assert_eq!(queries.len(), 10);
        for query in &queries {
            assert!(!query.expect_duplicate);
            let passage = copied_passage(&docs, query);
            // The text before the copy opens with the copy's first sentences.
            let opening = query.text.split("\n\n").next().unwrap();
            assert!(word_count(opening) >= REPEATED_OPENING_WORDS, "{opening:?}");
            assert!(passage.starts_with(opening), "{opening:?} / {passage:?}");
            assert!(query.query_span.unwrap().start > opening.chars().count());
        }
    }

    #[test]
    fn a_short_copy_among_many_sources_is_the_truth_and_the_others_are_whole() {
        let (docs, foreign) = corpus();
        let queries = generate(
            &docs,
            &foreign,
            &options(&[Modification::ManySources], &[0.1], 5),
        );
        assert_eq!(queries.len(), 5);
        for query in &queries {
            let passage = copied_passage(&docs, query);
            let words = word_count(&passage);
            assert!((SHORT_COPY_WORDS..=3 * SHORT_COPY_WORDS + 16).contains(&words));
            let whole = docs
                .iter()
                .filter(|d| query.text.contains(d.text.trim()))
                .count();
            assert!(whole >= MANY_SOURCES_OTHERS - 1, "{whole}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn partial_copy_spans_slice_exactly(
            sources in prop::collection::vec(arb_text(), 1..4),
            hosts in prop::collection::vec(arb_text(), 1..3),
            seed in any::<u64>(),
        ) {
            let (docs, foreign) = (numbered("d", sources), numbered("f", hosts));
            let options = GenOptions {
                seed,
                partial_min_words: 5,
                min_source_words: 5,
                ..options(&[Modification::PartialCopy], &[0.1], 4)
            };
            for query in generate(&docs, &foreign, &options) {
                let (q, s) = (query.query_span.unwrap(), query.source_span.unwrap());
                let passage = slice(&query.text, q);
                prop_assert_eq!(q.end - q.start, s.end - s.start);
                prop_assert_eq!(&passage, &slice(source_text(&docs, &query), s));
                prop_assert!(word_count(&passage) >= 5);
                prop_assert_eq!(passage.trim(), passage.as_str());
                // The separators around the passage are outside the span.
                let chars: Vec<char> = query.text.chars().collect();
                prop_assert!(q.start == 0 || chars[q.start - 1].is_whitespace());
                prop_assert!(q.end == chars.len() || chars[q.end].is_whitespace());
                // Without the passage, the text is the host (up to the separators).
                let rest: String = chars[..q.start].iter().chain(&chars[q.end..]).collect();
                prop_assert!(foreign.iter().any(|h| !differs_beyond_whitespace(&rest, &h.text)));
            }
        }
    }
}
