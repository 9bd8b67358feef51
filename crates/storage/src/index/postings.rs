//! The cheapest lookup there is: the live documents holding a term, without scoring.

use std::path::Path;

use tantivy::schema::{IndexRecordOption, Term};
use tantivy::{DocAddress, DocSet, Searcher, TERMINATED};

use super::IndexError;

/// Live documents of `searcher` containing `term`, at most `limit` of them. `path` names the
/// index in errors.
pub(crate) fn live_docs(
    searcher: &Searcher,
    term: &Term,
    limit: usize,
    path: &Path,
) -> Result<Vec<DocAddress>, IndexError> {
    let mut found = Vec::new();
    for (ord, segment) in searcher.segment_readers().iter().enumerate() {
        let inverted = segment
            .inverted_index(term.field())
            .map_err(IndexError::tantivy(path))?;
        let Some(mut postings) = inverted
            .read_postings(term, IndexRecordOption::Basic)
            .map_err(IndexError::io(path))?
        else {
            continue;
        };
        let mut doc = postings.doc();
        while doc != TERMINATED && found.len() < limit {
            if !segment.is_deleted(doc) {
                found.push(DocAddress::new(ord as u32, doc));
            }
            doc = postings.advance();
        }
    }
    Ok(found)
}
