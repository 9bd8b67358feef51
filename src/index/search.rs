//! Full-text search over a library: BM25 over title and text with the same analyzer as
//! everything else, words combined with AND, `"quoted phrases"` exact (positions are indexed),
//! `title:` field filters, and snippets with the matched words marked.

use serde::Serialize;
use tantivy::collector::{Count, TopDocs};
use tantivy::query::QueryParser;
use tantivy::snippet::SnippetGenerator;

use super::{IndexError, LibraryIndex};

/// One search hit.
#[derive(Debug, Clone, Serialize)]
pub struct SearchHit {
    pub doc_id: String,
    pub url: Option<String>,
    pub title: Option<String>,
    pub score: f32,
    /// A fragment of the text around the matches, HTML-escaped, matches in `<b>`.
    pub snippet: String,
}

/// A page of search results.
#[derive(Debug, Clone, Serialize)]
pub struct SearchResults {
    /// Matching documents in all.
    pub total: usize,
    pub hits: Vec<SearchHit>,
}

/// Why a search could not run.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("the query cannot be parsed: {0}")]
    InvalidQuery(String),
    #[error(transparent)]
    Index(#[from] IndexError),
}

impl LibraryIndex {
    /// Searches the library; `limit` hits from `offset`, best first.
    pub fn search(
        &self,
        query: &str,
        limit: usize,
        offset: usize,
    ) -> Result<SearchResults, SearchError> {
        let schema = self.schema();
        let mut parser =
            QueryParser::for_index(self.tantivy_index(), vec![schema.title, schema.body]);
        parser.set_conjunction_by_default();
        let query = parser
            .parse_query(query)
            .map_err(|e| SearchError::InvalidQuery(e.to_string()))?;
        let searcher = self.searcher();
        let tantivy_error = |e| IndexError::Tantivy {
            path: self.dir().to_path_buf(),
            source: e,
        };
        let (top, total) = searcher
            .search(
                &query,
                &(
                    TopDocs::with_limit(limit)
                        .and_offset(offset)
                        .order_by_score(),
                    Count,
                ),
            )
            .map_err(tantivy_error)?;
        let mut snippets =
            SnippetGenerator::create(&searcher, &*query, schema.body).map_err(tantivy_error)?;
        snippets.set_max_num_chars(240);
        let mut hits = Vec::with_capacity(top.len());
        for (score, address) in top {
            let document = self.stored(&searcher, address)?;
            hits.push(SearchHit {
                snippet: snippets.snippet(&document.text).to_html(),
                doc_id: document.doc_id,
                url: document.url,
                title: document.title,
                score,
            });
        }
        Ok(SearchResults { total, hits })
    }
}
