//! Full-text search over a library: BM25 over title and text with the same analyzer as
//! everything else, words combined with AND, `"quoted phrases"` exact, the field filters of
//! [`translate_query`](super::translate_query) (`title:`, `author:`, `lang:`, `year:`), and
//! snippets with the matched words marked.
//!
//! A library's documents keep their analysed text in one of two fields: an abstract's in `body`,
//! with positions; a long text's (a full paper's) in `body_terms`, counted only, and marked by
//! `text_kind` (see [`LONG_TEXT_TOKENS`](super::LONG_TEXT_TOKENS)). A search is parsed once for
//! each: over `title` and `body` for the others, and over `title` and `body_terms` for long texts,
//! where a phrase becomes its words' conjunction confirmed against each document's term sequence
//! ([`super::phrase`]) in the long texts its words rank best. Each document is scored by its own
//! kind's query only.

use serde::Serialize;
use tantivy::collector::{Count, TopDocs};
use tantivy::query::{
    BooleanQuery, BoostQuery, ConstScoreQuery, EmptyQuery, Occur, Query, QueryParser,
    QueryParserError, TermQuery,
};
use tantivy::query_grammar::{UserInputAst, UserInputLeaf};
use tantivy::schema::{Field, IndexRecordOption, Term};
use tantivy::snippet::SnippetGenerator;
use tantivy::tokenizer::TextAnalyzer;

use std::cell::Cell;
use std::sync::Arc;

use rustc_hash::FxHashMap;
use tantivy::DocId;
use tantivy::index::SegmentId;

use super::phrase::{
    Confirm, PHRASE_CHECKS, PhraseBook, PhraseBudget, SequenceFields, SequencePhraseQuery,
};
use super::{
    DocumentMeta, IndexError, LONG_TEXT, LibraryIndex, QueryError, TOKENIZER_NAME, translate_query,
};

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
    /// `false` when `total` is a lower bound: more long texts hold a phrase's words than the
    /// [`PHRASE_CHECKS`] its words rank best, in which it was confirmed.
    pub total_exact: bool,
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
        self.search_confirming(query, limit, offset, PHRASE_CHECKS)
    }

    /// [`search`](Self::search), confirming phrases in at most `checks` long texts.
    fn search_confirming(
        &self,
        query: &str,
        limit: usize,
        offset: usize,
        checks: usize,
    ) -> Result<SearchResults, SearchError> {
        let schema = self.schema();
        let translated = translate_query(query)?;
        let text_query = match self
            .parser(vec![schema.title, schema.body])
            .parse_query(&translated)
        {
            Ok(query) => query,
            // Every word was a stop word (or too short to index): nothing can match, which is
            // an answer, not an error. A query of excluded words alone stays an error.
            Err(QueryParserError::AllButQueryForbidden) if !has_exclusion(&translated) => {
                return Ok(SearchResults {
                    total: 0,
                    total_exact: true,
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
        let long_kind = Term::from_field_text(schema.text_kind, LONG_TEXT);
        // No long text: the query as it was parsed.
        let mut query = text_query.box_clone();
        let mut long_query = None;
        // Whether every long text holding a phrase's words was a candidate, and each budget the
        // search spent in confirming phrases.
        let mut all_ranked = true;
        let mut budgets = Vec::new();
        if searcher.doc_freq(&long_kind).map_err(tantivy_error)? > 0 {
            let ast = tantivy::query_grammar::parse_query(&translated)
                .map_err(|_| SearchError::InvalidQuery(format!("Syntax Error: {translated}")))?;
            let kind = || -> Box<dyn Query> {
                Box::new(ConstScoreQuery::new(
                    Box::new(TermQuery::new(long_kind.clone(), IndexRecordOption::Basic)),
                    0.0,
                ))
            };
            let of_long_texts = |query: Box<dyn Query>| -> Box<dyn Query> {
                Box::new(BooleanQuery::new(vec![
                    (Occur::Must, query),
                    (Occur::Must, kind()),
                ]))
            };
            // The long texts a search confirms are the best its phrases' words rank: the query
            // with each phrase it asks for as its words alone (a phrase it excludes confirmed,
            // so that it finds every document the exact query does) ranks them, the first
            // `checks` are confirmed, and a phrase holds in no other. Then no phrase is
            // confirmed in more documents than `checks`, and the hits are the best of those
            // that hold it.
            // Both queries enter their phrases in one book: a long text is read once in the
            // search, and every phrase checked in it then.
            let book = PhraseBook::new(SequenceFields {
                term_counts: schema.term_counts,
                term_seq: schema.term_seq,
            });
            let ranking = PhraseBudget::new(checks);
            let (long_texts, phrases) = self
                .long_text_query(ast.clone(), &book, &ranking, Confirm::No)
                .map_err(|e| SearchError::InvalidQuery(e.to_string()))?;
            budgets.push(ranking.clone());
            let mut long_texts = long_texts.unwrap_or_else(|| Box::new(EmptyQuery));
            if phrases > 0 {
                let (ranked, holders) = searcher
                    .search(
                        &*of_long_texts(long_texts),
                        &(TopDocs::with_limit(checks.max(1)).order_by_score(), Count),
                    )
                    .map_err(tantivy_error)?;
                let mut candidates: FxHashMap<SegmentId, Vec<DocId>> = FxHashMap::default();
                for (_, address) in ranked {
                    let segment = searcher.segment_reader(address.segment_ord).segment_id();
                    candidates.entry(segment).or_default().push(address.doc_id);
                }
                for docs in candidates.values_mut() {
                    docs.sort_unstable();
                }
                let excluded = PhraseBudget::new(checks);
                let (confirming, _) = self
                    .long_text_query(ast, &book, &excluded, Confirm::Only(Arc::new(candidates)))
                    .map_err(|e| SearchError::InvalidQuery(e.to_string()))?;
                long_texts = confirming.unwrap_or_else(|| Box::new(EmptyQuery));
                all_ranked = holders <= checks;
                budgets.push(excluded);
            }
            let others = BooleanQuery::new(vec![
                (Occur::Must, text_query.box_clone()),
                (Occur::MustNot, kind()),
            ]);
            query = Box::new(BooleanQuery::new(vec![
                (Occur::Should, Box::new(others)),
                (Occur::Should, of_long_texts(long_texts.box_clone())),
            ]));
            long_query = Some(long_texts);
        }
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
        // A snippet marks the words of the query its document's kind answered: a generator
        // knows the words of one field, and only those some document holds there.
        let generator = |query: &dyn Query, field| {
            SnippetGenerator::create(&searcher, query, field).map(|mut snippets| {
                snippets.set_max_num_chars(SNIPPET_CHARS);
                snippets
            })
        };
        let mut snippets = vec![generator(&*text_query, schema.body).map_err(tantivy_error)?];
        if let Some(long_query) = &long_query {
            snippets.push(generator(&**long_query, schema.body_terms).map_err(tantivy_error)?);
        }
        let mut hits = Vec::with_capacity(top.len());
        for (score, address) in top {
            let document = self.stored(&searcher, address)?;
            let snippet = snippet_html_of(&snippets, &document.text);
            hits.push(SearchHit {
                meta: document.meta,
                score,
                snippet,
            });
        }
        Ok(SearchResults {
            total,
            total_exact: all_ranked && budgets.iter().all(|budget| !budget.spent()),
            hits,
        })
    }

    /// The search's query parser over `fields`, its words combined with AND.
    fn parser(&self, fields: Vec<Field>) -> QueryParser {
        let mut parser = QueryParser::for_index(self.tantivy_index(), fields);
        parser.set_conjunction_by_default();
        parser
    }

    /// `ast` as a query over long texts: what tantivy's parser makes of it over `title` and
    /// `body_terms`, but for a phrase over the text, which becomes a title phrase or a phrase
    /// in the term sequence: confirmed where `asked` says if the query asks for it, in every
    /// document (while `budget` lasts) if it excludes it. `None` when nothing is left to look
    /// for (every word a stop word), as the parser leaves such a clause out. With it, how many
    /// phrases it asks for. Its phrases are entered in `book`.
    fn long_text_query(
        &self,
        ast: UserInputAst,
        book: &Arc<PhraseBook>,
        budget: &Arc<PhraseBudget>,
        asked: Confirm,
    ) -> Result<(Option<Box<dyn Query>>, usize), QueryParserError> {
        let schema = self.schema();
        let builder = LongTextQuery {
            texts: self.parser(vec![schema.title, schema.body_terms]),
            titles: self.parser(vec![schema.title]),
            analyzer: self
                .tantivy_index()
                .tokenizers()
                .get(TOKENIZER_NAME)
                .ok_or_else(|| QueryParserError::UnknownTokenizer {
                    field: "body_terms".to_string(),
                    tokenizer: TOKENIZER_NAME.to_string(),
                })?,
            field: schema.body_terms,
            book: book.clone(),
            budget: budget.clone(),
            asked,
            phrases: Cell::new(0),
        };
        let query = builder.build(ast, false)?;
        Ok((query, builder.phrases.get()))
    }
}

/// What turns a parsed query into its long texts' query.
struct LongTextQuery {
    /// The parser over `title` and `body_terms`, for everything but phrases over the text.
    texts: QueryParser,
    /// The parser over `title` alone, for a phrase's title half.
    titles: QueryParser,
    analyzer: TextAnalyzer,
    field: Field,
    book: Arc<PhraseBook>,
    budget: Arc<PhraseBudget>,
    /// Where the phrases the query asks for (not those it excludes) are confirmed.
    asked: Confirm,
    /// The phrases asked for so far.
    phrases: Cell<usize>,
}

impl LongTextQuery {
    /// `ast` built; `excluded` when it stands under an odd number of exclusions.
    fn build(
        &self,
        ast: UserInputAst,
        excluded: bool,
    ) -> Result<Option<Box<dyn Query>>, QueryParserError> {
        match ast {
            UserInputAst::Clause(clauses) => {
                let mut kept = Vec::with_capacity(clauses.len());
                for (occur, clause) in clauses {
                    let excluded = excluded ^ (occur == Some(Occur::MustNot));
                    if let Some(query) = self.build(clause, excluded)? {
                        kept.push((occur.unwrap_or(Occur::Must), query));
                    }
                }
                Ok((!kept.is_empty()).then(|| Box::new(BooleanQuery::new(kept)) as Box<dyn Query>))
            }
            UserInputAst::Boost(inner, boost) => Ok(self.build(*inner, excluded)?.map(|query| {
                Box::new(BoostQuery::new(query, boost.into_inner() as f32)) as Box<dyn Query>
            })),
            UserInputAst::Leaf(leaf) => match *leaf {
                UserInputLeaf::Literal(literal) if literal.field_name.is_none() => {
                    let words = self.words(&literal.phrase);
                    let leaf =
                        UserInputAst::Leaf(Box::new(UserInputLeaf::Literal(literal.clone())));
                    if words.len() < 2 {
                        return self.leaf(&self.texts, leaf);
                    }
                    // A phrase (quoted, or one word the analyzer splits): in the title, or in
                    // order in the text.
                    let confirm = match excluded {
                        true => Confirm::All,
                        false => {
                            self.phrases.set(self.phrases.get() + 1);
                            self.asked.clone()
                        }
                    };
                    let text = SequencePhraseQuery::new(
                        self.field,
                        words,
                        literal.slop,
                        literal.prefix,
                        self.book.clone(),
                        self.budget.clone(),
                        confirm,
                    );
                    let mut either: Vec<(Occur, Box<dyn Query>)> =
                        vec![(Occur::Should, Box::new(text))];
                    if let Some(title) = self.leaf(&self.titles, leaf)? {
                        either.push((Occur::Should, title));
                    }
                    Ok(Some(Box::new(BooleanQuery::new(either))))
                }
                leaf => self.leaf(&self.texts, UserInputAst::Leaf(Box::new(leaf))),
            },
        }
    }

    /// A leaf as `parser` builds it; `None` when it holds nothing to look for.
    fn leaf(
        &self,
        parser: &QueryParser,
        leaf: UserInputAst,
    ) -> Result<Option<Box<dyn Query>>, QueryParserError> {
        let query = parser.build_query_from_user_input_ast(leaf)?;
        Ok((!query.is::<EmptyQuery>()).then_some(query))
    }

    /// The analysed terms of a literal, in order.
    fn words(&self, text: &str) -> Vec<String> {
        let mut analyzer = self.analyzer.clone();
        let mut stream = analyzer.token_stream(text);
        let mut words = Vec::new();
        stream.process(&mut |token| words.push(token.text.clone()));
        words
    }
}

/// The snippet of `text` as a hit shows it: the fragment around the matches, HTML-escaped,
/// matches in `<b>`, with ellipses where the text goes on; the text's beginning when nothing in
/// it matched (only the title or filters did).
pub fn snippet_html(snippets: &SnippetGenerator, text: &str) -> String {
    snippet_html_of(std::slice::from_ref(snippets), text)
}

/// [`snippet_html`] by the first of `generators` that marks something in `text`.
fn snippet_html_of(generators: &[SnippetGenerator], text: &str) -> String {
    let Some(snippet) = generators
        .iter()
        .map(|snippets| snippets.snippet(text))
        .find(|snippet| !snippet.highlighted().is_empty())
    else {
        return opening(text);
    };
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
    use std::collections::BTreeSet;

    use super::super::testing::{open_index, prepared_input};
    use super::super::{LONG_TEXT_TOKENS, PreparedDocument};
    use super::*;
    use crate::ingest::{DocumentInput, IdValue};

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

    const WORDS: [&str; 5] = ["river", "castle", "engine", "silver", "orchard"];

    /// `n` English words none of [`WORDS`] stems to, as varied as a text's, with stop words
    /// between them (which the analysis leaves out) so that the language is told right.
    fn filler(n: usize, seed: usize) -> String {
        const NOUNS: [&str; 24] = [
            "model", "data", "method", "result", "system", "paper", "study", "table", "figure",
            "value", "level", "group", "number", "sample", "process", "change", "report",
            "measure", "section", "effect", "theory", "author", "reader", "market",
        ];
        (0..n)
            .map(|i| {
                let k = i * 7 + seed * 13 + i / 24;
                match k % 3 {
                    0 => format!("the {}", NOUNS[k % 24]),
                    1 => format!("of {}", NOUNS[k % 24]),
                    _ => NOUNS[k % 24].to_string(),
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A small generator of numbers, the same each run.
    struct Numbers(u64);

    impl Numbers {
        fn below(&mut self, n: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 33) % n as u64) as usize
        }

        fn word(&mut self) -> &'static str {
            WORDS[self.below(WORDS.len())]
        }
    }

    /// An English document: filler words would have a language guessed for them.
    fn english(id: &str, title: Option<&str>, text: &str) -> PreparedDocument {
        prepared_input(DocumentInput {
            id: Some(IdValue::Text(id.to_string())),
            title: title.map(str::to_string),
            text: Some(text.to_string()),
            lang: Some("en".to_string()),
            ..Default::default()
        })
    }

    /// The ids of a search's hits.
    fn ids(found: &SearchResults) -> BTreeSet<String> {
        found
            .hits
            .iter()
            .map(|hit| hit.meta.doc_id.clone())
            .collect()
    }

    /// The twins whose long text and whose short text `query` finds.
    fn matched(index: &LibraryIndex, query: &str) -> [BTreeSet<String>; 2] {
        let found = index.search(query, 1_000, 0).unwrap();
        assert!(found.total_exact, "{query}");
        assert_eq!(found.total, found.hits.len(), "{query}");
        ["long-", "short-"].map(|kind| {
            found
                .hits
                .iter()
                .filter_map(|hit| hit.meta.doc_id.strip_prefix(kind).map(str::to_string))
                .collect()
        })
    }

    /// A long text keeps no positions (its words are in `body_terms`) and a phrase is confirmed
    /// in its term sequence: every query finds a long text exactly when it finds its short twin,
    /// whose positions tantivy reads — phrases, phrases excluded, phrases with a slop, phrases
    /// in a disjunction, words and exclusions, over random texts of five words.
    #[test]
    fn a_long_text_matches_a_query_exactly_when_its_short_twin_does() {
        let dir = tempfile::tempdir().unwrap();
        let index = open_index(dir.path());
        let mut numbers = Numbers(29);
        let mut documents = Vec::new();
        for i in 0..24 {
            let core: Vec<&str> = (0..8).map(|_| numbers.word()).collect();
            let core = core.join(" ");
            let long = format!(
                "{} {core} {}",
                filler(LONG_TEXT_TOKENS / 2, i),
                filler(LONG_TEXT_TOKENS / 2, i + 1)
            );
            let long = english(&format!("long-{i}"), None, &long);
            assert!(long.tokens.len() >= LONG_TEXT_TOKENS);
            documents.push(long);
            let short = english(
                &format!("short-{i}"),
                None,
                &format!("{} {core} {}", filler(3, i), filler(3, i + 1)),
            );
            assert!(short.tokens.len() < LONG_TEXT_TOKENS);
            documents.push(short);
        }
        index.add(&documents).unwrap();
        let mut asked = 0;
        let mut found = 0;
        for _ in 0..160 {
            let [a, b, c, d] = [
                numbers.word(),
                numbers.word(),
                numbers.word(),
                numbers.word(),
            ];
            let query = match numbers.below(8) {
                0 => format!("\"{a} {b}\""),
                1 => format!("\"{a} {b} {c}\""),
                2 => format!("{a} \"{b} {c}\""),
                3 => format!("-\"{a} {b}\" {c}"),
                4 => format!("\"{a} {b}\" OR \"{c} {d}\""),
                5 => format!("\"{a} {b}\"~1"),
                6 => format!("{a} -{b}"),
                _ => format!("\"{a} {b}\" -\"{c} {d}\""),
            };
            let [long, short] = matched(&index, &query);
            assert_eq!(long, short, "{query}");
            asked += 1;
            found += usize::from(!long.is_empty() && long.len() < 24);
        }
        // The queries told texts apart: most found some texts and not others.
        assert!(found > asked / 2, "{found} of {asked}");
        // The long texts' words count in the library's statistics.
        assert!(index.summary().words >= 24 * LONG_TEXT_TOKENS as u64);
    }

    /// A phrase over a long text is found in its title too (whose positions are kept), in the
    /// order written only; the snippet marks it in the text.
    #[test]
    fn a_phrase_is_found_in_a_long_texts_title_and_text() {
        let dir = tempfile::tempdir().unwrap();
        let index = open_index(dir.path());
        let titled = english(
            "titled",
            Some("Silver orchard engines"),
            &format!(
                "{} castle river. {}",
                filler(LONG_TEXT_TOKENS, 1),
                filler(9, 2)
            ),
        );
        index.add(&[titled]).unwrap();
        let total = |query: &str| index.search(query, 10, 0).unwrap().total;
        assert_eq!(total("\"silver orchard\""), 1);
        assert_eq!(total("title:\"orchard engine\""), 1);
        assert_eq!(total("\"orchard silver\""), 0);
        assert_eq!(total("\"castle river\""), 1);
        assert_eq!(total("\"river castle\""), 0);
        assert_eq!(total("\"silver castle\""), 0);
        assert_eq!(total("\"castle riv\"*"), 1);
        assert_eq!(total("\"castle riv\" -\"silver orchard\""), 0);
        let hit = index.search("\"castle river\"", 10, 0).unwrap();
        assert!(
            hit.hits[0].snippet.contains("<b>castle</b> <b>river</b>"),
            "{}",
            hit.hits[0].snippet
        );
    }

    /// A search confirms a bounded number of long texts, those its phrase's words rank best:
    /// the others do not hold the phrase, and the total says it is a lower bound. A document
    /// the query finds otherwise is found still.
    #[test]
    fn a_search_that_runs_out_of_checks_says_its_total_is_a_lower_bound() {
        let dir = tempfile::tempdir().unwrap();
        let index = open_index(dir.path());
        // The phrase once in d0, d3 and d4, twice in d1, three times in d2; d5 has a glacier.
        let mut documents: Vec<PreparedDocument> = [1, 2, 3, 1, 1]
            .iter()
            .enumerate()
            .map(|(i, &times)| {
                let phrase = " castle river".repeat(times);
                english(
                    &format!("d{i}"),
                    None,
                    &format!("{}{phrase}", filler(LONG_TEXT_TOKENS, i)),
                )
            })
            .collect();
        documents.push(english(
            "d5",
            None,
            &format!("{} glacier", filler(LONG_TEXT_TOKENS, 5)),
        ));
        index.add(&documents).unwrap();
        let all = index
            .search_confirming("\"castle river\"", 10, 0, 5)
            .unwrap();
        assert_eq!((all.total, all.total_exact), (5, true));
        let some = index
            .search_confirming("\"castle river\"", 10, 0, 2)
            .unwrap();
        assert_eq!((some.total, some.total_exact), (2, false));
        assert_eq!(ids(&some), BTreeSet::from(["d1".into(), "d2".into()]));
        let either = index
            .search_confirming("\"castle river\" OR glacier", 10, 0, 2)
            .unwrap();
        // Ranked by all its words, the glacier (the rarest) first: d2 is confirmed, d5 needs
        // no confirming.
        assert_eq!((either.total, either.total_exact), (2, false));
        assert_eq!(ids(&either), BTreeSet::from(["d2".into(), "d5".into()]));
        // Words alone need no check.
        let words = index.search_confirming("castle river", 10, 0, 0).unwrap();
        assert_eq!((words.total, words.total_exact), (5, true));
    }

    /// A search that runs out of reads for a phrase it excludes leaves out the texts it could
    /// not read: every hit is one the exact search finds, and the total is a lower bound.
    #[test]
    fn an_excluded_phrase_not_read_for_want_of_checks_excludes() {
        let dir = tempfile::tempdir().unwrap();
        let index = open_index(dir.path());
        // Every text holds "castle", "silver" and "orchard"; d0 and d1 the phrase.
        let documents: Vec<PreparedDocument> = (0..5)
            .map(|i| {
                let words = match i < 2 {
                    true => "castle silver orchard".to_string(),
                    false => format!("castle silver {} orchard", filler(2, i)),
                };
                english(
                    &format!("d{i}"),
                    None,
                    &format!("{} {words}", filler(LONG_TEXT_TOKENS, i)),
                )
            })
            .collect();
        index.add(&documents).unwrap();
        let query = "castle -\"silver orchard\"";
        let exact = index.search_confirming(query, 10, 0, 5).unwrap();
        assert_eq!((exact.total, exact.total_exact), (3, true));
        for checks in 1..5 {
            let some = index.search_confirming(query, 10, 0, checks).unwrap();
            assert!(!some.total_exact, "{checks}");
            assert!(ids(&some).is_subset(&ids(&exact)), "{checks}");
            // With fewer than three reads, one of the three hits at least was not read.
            if checks < 3 {
                assert!(some.total < 3, "{checks}");
            }
        }
    }

    /// A search reads each long text once, however many of its phrases ask for it: five phrases
    /// whose words every text holds, each in the order of one text, are all confirmed within a
    /// budget of five reads.
    #[test]
    fn a_long_text_is_read_once_for_all_of_a_searchs_phrases() {
        let dir = tempfile::tempdir().unwrap();
        let index = open_index(dir.path());
        let pair = |i: usize| [WORDS[i], WORDS[(i + 1) % WORDS.len()]];
        let documents: Vec<PreparedDocument> = (0..WORDS.len())
            .map(|i| {
                // The pair side by side, every other word between nouns.
                let mut text = format!("{} {}", filler(LONG_TEXT_TOKENS, i), pair(i).join(" "));
                for (j, word) in WORDS.iter().enumerate() {
                    if !pair(i).contains(word) {
                        text += &format!(" {} {word}", filler(3, i + j));
                    }
                }
                english(&format!("d{i}"), None, &format!("{text} {}", filler(3, i)))
            })
            .collect();
        index.add(&documents).unwrap();
        let phrases: Vec<String> = (0..WORDS.len())
            .map(|i| format!("\"{}\"", pair(i).join(" ")))
            .collect();
        for phrase in &phrases {
            let one = index.search_confirming(phrase, 10, 0, WORDS.len()).unwrap();
            assert_eq!(one.total, 1, "{phrase}");
        }
        let all = index
            .search_confirming(&phrases.join(" OR "), 10, 0, WORDS.len())
            .unwrap();
        assert_eq!((all.total, all.total_exact), (WORDS.len(), true));
    }
}
