//! Term search within one view: the live documents of one language that hold the most of a set
//! of analyzer terms, by BM25 over the indexed text. A cross-language check looks for the
//! sources of a translated text this way, with the query's terms translated into the other
//! language, so one index serves both languages.

use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{IndexRecordOption, Term};

use super::{DocKey, IndexError, LibraryView};
use crate::index::LONG_TEXT;

/// Terms looked up at the most: BM25 over more adds time, not candidates.
pub const MAX_SEARCH_TERMS: usize = 256;

impl LibraryView<'_> {
    /// Live documents in language `lang` (ISO 639-1) holding any of `terms`, the best BM25
    /// score first, at most `limit`.
    pub fn term_search(
        &self,
        terms: &[String],
        lang: &str,
        limit: usize,
    ) -> Result<Vec<DocKey>, IndexError> {
        if terms.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        let schema = &self.index.schema;
        let lang_term = Term::from_field_text(schema.lang, lang);
        let holders = self
            .content
            .doc_freq(&lang_term)
            .map_err(IndexError::tantivy(&self.index.content_path))?;
        if holders == 0 {
            // No document of that language: nothing to score.
            return Ok(Vec::new());
        }
        // A document's analysed text is in one of the fields: an abstract's in `body`, a full
        // paper's in `body_terms` (looked up only where the library holds one).
        let long_texts = self
            .content
            .doc_freq(&Term::from_field_text(schema.text_kind, LONG_TEXT))
            .map_err(IndexError::tantivy(&self.index.content_path))?;
        let analysed = schema.analysed_fields();
        let fields = match long_texts {
            0 => &analysed[..1],
            _ => &analysed[..],
        };
        let should: Vec<(Occur, Box<dyn Query>)> = terms
            .iter()
            .take(MAX_SEARCH_TERMS)
            .flat_map(|term| {
                fields.iter().map(|&field| {
                    let query = TermQuery::new(
                        Term::from_field_text(field, term),
                        IndexRecordOption::WithFreqs,
                    );
                    (Occur::Should, Box::new(query) as Box<dyn Query>)
                })
            })
            .collect();
        let language = TermQuery::new(lang_term, IndexRecordOption::Basic);
        let query = BooleanQuery::new(vec![
            (
                Occur::Must,
                Box::new(BooleanQuery::new(should)) as Box<dyn Query>,
            ),
            (Occur::Must, Box::new(language)),
        ]);
        let top = self
            .content
            .search(&query, &TopDocs::with_limit(limit).order_by_score())
            .map_err(IndexError::tantivy(&self.index.content_path))?;
        top.into_iter()
            .map(|(_, address)| self.key_of(address))
            .collect()
    }
}
