//! Full-text search over a library: BM25 over title and text with the same analyzer as
//! everything else, words combined with AND, `"quoted phrases"` exact (positions are indexed),
//! the field filters of [`translate_query`](super::translate_query) (`title:`, `author:`,
//! `lang:`, `year:`), and snippets with the matched words marked.

use serde::Serialize;
use tantivy::collector::{Count, TopDocs};
use tantivy::query::{QueryParser, QueryParserError};
use tantivy::snippet::SnippetGenerator;

use super::{DocumentMeta, IndexError, LibraryIndex, QueryError, translate_query};

/// Longest snippet, in characters.
pub const SNIPPET_CHARS: usize = 240;

/// One search hit.
#[derive(Debug, Clone, Serialize)]
pub struct SearchHit {
    #[serde(flatten)]
    pub meta: DocumentMeta,
    pub score: f32,
    /// A fragment of the text around the matches, HTML-escaped, matches in `<b>`; the text's
    /// beginning when only the title or filters matched.
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
    Query(#[from] QueryError),
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
        let translated = translate_query(query)?;
        let query = match parser.parse_query(&translated) {
            Ok(query) => query,
            // Every word was a stop word (or too short to index): nothing can match, which is
            // an answer, not an error. A query of excluded words alone stays an error.
            Err(QueryParserError::AllButQueryForbidden) if !has_exclusion(&translated) => {
                return Ok(SearchResults {
                    total: 0,
                    hits: Vec::new(),
                });
            }
            Err(QueryParserError::AllButQueryForbidden) => {
                return Err(SearchError::InvalidQuery(
                    "the query has only excluded words; add a word to look for".to_string(),
                ));
            }
            Err(e) => return Err(SearchError::InvalidQuery(e.to_string())),
        };
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
        snippets.set_max_num_chars(SNIPPET_CHARS);
        let mut hits = Vec::with_capacity(top.len());
        for (score, address) in top {
            let document = self.stored(&searcher, address)?;
            let snippet = snippet_html(&snippets, &document.text);
            hits.push(SearchHit {
                meta: document.meta,
                score,
                snippet,
            });
        }
        Ok(SearchResults { total, hits })
    }
}

/// The snippet of `text` as a hit shows it: the fragment around the matches, HTML-escaped,
/// matches in `<b>`, with ellipses where the text goes on; the text's beginning when nothing in
/// it matched (only the title or filters did).
pub fn snippet_html(snippets: &SnippetGenerator, text: &str) -> String {
    let snippet = snippets.snippet(text);
    if snippet.highlighted().is_empty() {
        return opening(text);
    }
    let range = snippet.fragment_range();
    let cut = |rest: Option<&str>| match rest {
        Some(rest) if rest.trim().is_empty() => "",
        _ => "…",
    };
    let (before, after) = (cut(text.get(..range.start)), cut(text.get(range.end..)));
    format!("{before}{}{after}", snippet.to_html())
}

/// The first words of a text, HTML-escaped, cut at a word boundary.
fn opening(text: &str) -> String {
    let text = text.trim_start();
    let mut end = text
        .char_indices()
        .nth(SNIPPET_CHARS)
        .map_or(text.len(), |(i, _)| i);
    if end < text.len() {
        end = text[..end].rfind(char::is_whitespace).unwrap_or(end);
    }
    let mut out = String::with_capacity(end + 8);
    for c in text[..end].chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    if end < text.len() {
        out.push('…');
    }
    out
}

/// Whether a query excludes something (`-word`, `NOT word`).
fn has_exclusion(query: &str) -> bool {
    query
        .split_whitespace()
        .any(|word| word.starts_with('-') || word == "NOT")
}

#[cfg(test)]
mod tests {
    use super::opening;

    #[test]
    fn opening_is_escaped_and_cut_at_a_word() {
        assert_eq!(opening("  a <b> & c"), "a &lt;b&gt; &amp; c");
        let long = "word ".repeat(100);
        let cut = opening(&long);
        assert!(
            cut.ends_with("word…") && cut.chars().count() <= 241,
            "{cut}"
        );
    }
}
