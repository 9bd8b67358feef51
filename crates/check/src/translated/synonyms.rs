//! Synonym swaps: a copy whose words were replaced by synonyms (a "synonymizer"). The copy is
//! found by the libraries' own lookups (enough words stay to share shingles and most of the bag
//! of words); what the thesaurus adds is the evidence: words of the text that the source holds
//! as a synonym instead. A match with enough of them carries the method `synonyms`, and the
//! check a `rewording` flag.

use std::collections::HashSet;

use super::lexicon::Lexicon;
use dupfinder_text::analysis::Language;

/// Swapped words that make rewording, at least…
pub(super) const MIN_SWAPPED: usize = 3;
/// …and at least this share of the text's distinct terms.
pub(super) const MIN_SWAPPED_SHARE: f64 = 0.05;

/// The query's distinct terms that the document lacks while it holds one of their synonyms
/// that the query lacks: words swapped for synonyms.
pub(super) fn swapped(
    lexicon: &Lexicon,
    lang: Language,
    query: &[(String, u32)],
    doc: &[(String, u32)],
) -> usize {
    let query_terms: HashSet<&str> = query.iter().map(|(t, _)| t.as_str()).collect();
    let doc_terms: HashSet<&str> = doc.iter().map(|(t, _)| t.as_str()).collect();
    query
        .iter()
        .filter(|(term, _)| !doc_terms.contains(term.as_str()))
        .filter(|(term, _)| {
            lexicon
                .synonyms(lang, term)
                .iter()
                .any(|s| doc_terms.contains(s.as_str()) && !query_terms.contains(s.as_str()))
        })
        .count()
}

/// Whether `swapped` words of a text of `terms` distinct terms show rewording.
pub(super) fn reworded(swapped: usize, terms: usize) -> bool {
    swapped >= MIN_SWAPPED && swapped as f64 >= MIN_SWAPPED_SHARE * terms as f64
}
