//! Full-text search on PostgreSQL: the same query language and the same analyzer as on tantivy
//! (see [`crate::index::search`]), over a `tsvector` of the analyzer's tokens.
//!
//! A document's vector holds its title's tokens with weight A, its authors' with weight B and
//! its text's with weight D, each part at positions of its own. A query is parsed with tantivy's
//! query grammar (so that both backends read a query alike), each word analyzed as tantivy's
//! query parser analyzes it, and translated into one SQL condition: a word or phrase becomes a
//! `tsquery` restricted to the weights of its field, `lang:` and `year:` become column tests.
//! Hits are ranked by `ts_rank` (title words weigh ten times text words, the rank divided by the
//! logarithm of the document's length), not by tantivy's BM25: the same documents are found, in
//! a similar but not identical order. A query reads, ranks and counts its first [`RANKED`]
//! matches, no more: a word most documents hold costs what a rarer one costs.
//!
//! PostgreSQL bounds a vector: positions stop at 16,383, a word keeps its first 256 positions,
//! and a vector holds at most 1 MB. A phrase is therefore found only in the first ~16,000 kept
//! words of a text; a word alone is found anywhere; a text whose vector would pass 1 MB is
//! searchable by its first part only.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use tantivy::query_grammar::{
    Occur, UserInputAst, UserInputBound, UserInputLeaf, UserInputLiteral,
};
use tantivy::snippet::SnippetGenerator;
use tantivy::tokenizer::TextAnalyzer;
use tokio_postgres::types::ToSql;

use crate::index::{
    AnalyzerTokenizer, DocumentMeta, PreparedDocument, QueryError, SearchError, SearchHit,
    SearchResults, snippet_html, translate_query,
};
use dupfinder_text::analysis::{Analyzer, Token};

/// The most matches of a query a search reads, ranks and counts: a page is the best-ranked of
/// the first `RANKED` matches (in the order the index yields them), and `total` stops at
/// `RANKED`. A query of common words matches a large share of a big library, and each match's
/// vector is read again from the table (the GIN index keeps neither weights nor positions) to
/// test it and rank it: this bounds that work per query.
pub(crate) const RANKED: i64 = 1_000;

/// The last position a `tsvector` keeps apart.
const MAX_POSITION: u32 = 16_383;

/// The longest lexeme PostgreSQL takes, in bytes: a longer "word" (a run of letters without a
/// space, an embedded blob) is left out of the vector and out of queries, as a stop word is.
const MAX_LEXEME_BYTES: usize = 2_047;

/// Where the parts of a document start in its vector: the title first, then each author, then
/// the text; a gap of one position keeps phrases inside a part.
const GAP: u32 = 2;

/// A vector's text is kept under this many bytes (PostgreSQL refuses vectors over 1 MB; its
/// binary form is smaller than the text form, so this leaves a margin).
const MAX_VECTOR_TEXT: usize = 900_000;

/// The lexeme a vector holds instead of its word pairs when they do not fit it: a phrase query
/// accepts a document that holds it (two spaces keep it apart from every word and pair).
const NO_PAIRS: &str = "no word pairs";

/// The weight of a part of a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Title,
    Authors,
    Text,
}

impl Part {
    fn weight(self) -> char {
        match self {
            Part::Title => 'A',
            Part::Authors => 'B',
            Part::Text => 'D',
        }
    }
}

/// The `tsvector` (in PostgreSQL's text form) of `document`: its title and authors analyzed as
/// tantivy's tokenizer analyzes them, its text's tokens as prepared.
pub(super) fn search_vector(analyzer: &Analyzer, document: &PreparedDocument) -> String {
    let mut lexemes: BTreeMap<&str, Vec<(u32, Part)>> = BTreeMap::new();
    let mut next = 1u32;
    let title = document
        .title
        .as_deref()
        .map(|title| analyzer.analyze(title, None).tokens)
        .unwrap_or_default();
    let authors: Vec<Vec<Token>> = document
        .authors
        .iter()
        .map(|author| analyzer.analyze(author, None).tokens)
        .collect();
    let mut pairs = BTreeSet::new();
    add_part(&mut lexemes, &mut pairs, &title, Part::Title, &mut next);
    for author in &authors {
        add_part(&mut lexemes, &mut pairs, author, Part::Authors, &mut next);
    }
    add_part(
        &mut lexemes,
        &mut pairs,
        &document.tokens,
        Part::Text,
        &mut next,
    );

    let mut out = String::new();
    for (lexeme, positions) in lexemes {
        let before = out.len();
        if before > 0 {
            out.push(' ');
        }
        quote_lexeme(&mut out, lexeme);
        for (i, (position, part)) in positions.iter().enumerate() {
            out.push(if i == 0 { ':' } else { ',' });
            let _ = write!(out, "{position}");
            if *part != Part::Text {
                out.push(part.weight());
            }
        }
        if out.len() > MAX_VECTOR_TEXT {
            out.truncate(before);
            break;
        }
    }
    // The pairs, without positions: all of them, or the marker that stands for them.
    let words = out.len();
    for pair in &pairs {
        out.push(' ');
        quote_lexeme(&mut out, pair);
        if out.len() > MAX_VECTOR_TEXT {
            out.truncate(words);
            out.push(' ');
            quote_lexeme(&mut out, NO_PAIRS);
            break;
        }
    }
    out
}

/// The lexeme of two adjacent words: both, a space between (no word holds a space); none when
/// it would be too long to be a lexeme.
fn pair(first: &str, second: &str) -> Option<String> {
    (first.len() + 1 + second.len() <= MAX_LEXEME_BYTES).then(|| format!("{first} {second}"))
}

/// Adds the tokens of one part of a document from position `next` on, and moves `next` past it;
/// each two tokens at adjacent positions make a pair.
fn add_part<'t>(
    lexemes: &mut BTreeMap<&'t str, Vec<(u32, Part)>>,
    pairs: &mut BTreeSet<String>,
    tokens: &'t [Token],
    part: Part,
    next: &mut u32,
) {
    let start = *next;
    let mut previous: Option<(&str, u32)> = None;
    for token in tokens.iter().filter(|t| t.term.len() <= MAX_LEXEME_BYTES) {
        let position = (start + token.position).min(MAX_POSITION);
        let positions = lexemes.entry(token.term.as_str()).or_default();
        if positions.len() < 256 && positions.last().is_none_or(|(p, _)| *p != position) {
            positions.push((position, part));
        }
        if let Some((word, at)) = previous
            && at + 1 == position
        {
            pairs.extend(pair(word, &token.term));
        }
        previous = Some((&token.term, position));
        *next = (position + GAP).min(MAX_POSITION);
    }
}

/// Appends `lexeme` quoted as `tsvector` and `tsquery` input reads it.
pub(super) fn quote_lexeme(out: &mut String, lexeme: &str) {
    out.push('\'');
    for c in lexeme.chars() {
        match c {
            '\'' => out.push_str("''"),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('\'');
}

/// A query translated into SQL: a condition over `documents` with its parameters, what ranks a
/// hit, and the words to mark in snippets.
#[derive(Debug, Default)]
pub(super) struct SqlQuery {
    /// A boolean SQL expression; its parameters are numbered from `$2` (`$1` is the library).
    pub(super) condition: String,
    pub(super) params: Vec<Param>,
    /// Every word and phrase a hit may match, as one `tsquery` (empty when none).
    pub(super) rank: String,
    /// Terms of the text to mark in snippets.
    pub(super) marked: Vec<String>,
}

/// A parameter of a translated query.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Param {
    /// A `tsquery` in its text form.
    TsQuery(String),
    Text(String),
    Int(i64),
}

impl Param {
    pub(super) fn as_sql(&self) -> &(dyn ToSql + Sync) {
        match self {
            Param::TsQuery(s) | Param::Text(s) => s,
            Param::Int(i) => i,
        }
    }
}

/// What a translated query is: a condition, or nothing to look for.
#[derive(Debug)]
pub(super) enum Translated {
    Query(SqlQuery),
    /// Every word was a stop word: nothing can match.
    Nothing,
}

/// Translates a user's query into SQL; `pairs` when every vector of the library holds its word
/// pairs, so that a phrase asks for them too.
pub(super) fn translate(
    analyzer: &Analyzer,
    query: &str,
    pairs: bool,
) -> Result<Translated, SearchError> {
    let translated = translate_query(query)?;
    let ast = tantivy::query_grammar::parse_query(&translated)
        .map_err(|_| SearchError::InvalidQuery(format!("`{query}` is not a query")))?;
    let mut builder = Builder {
        analyzer,
        pairs,
        out: SqlQuery::default(),
        ranked: Vec::new(),
    };
    let Some(node) = builder.node(&ast)? else {
        return Ok(Translated::Nothing);
    };
    let condition = match node {
        Node::Positive(sql) => sql,
        Node::Negative(_) => {
            return Err(SearchError::InvalidQuery(
                "the query has only excluded words; add a word to look for".to_string(),
            ));
        }
    };
    let mut out = builder.out;
    out.condition = condition;
    out.rank = builder
        .ranked
        .iter()
        .map(|q| format!("({q})"))
        .collect::<Vec<_>>()
        .join(" | ");
    Ok(Translated::Query(out))
}

/// A translated part of a query: a condition a document must meet, or one it must not (an
/// exclusion, which means something only next to a positive part).
enum Node {
    Positive(String),
    Negative(String),
}

struct Builder<'a> {
    analyzer: &'a Analyzer,
    /// Whether the library's vectors hold word pairs.
    pairs: bool,
    out: SqlQuery,
    /// The `tsquery` of every word and phrase not excluded.
    ranked: Vec<String>,
}

impl Builder<'_> {
    fn param(&mut self, param: Param) -> String {
        self.out.params.push(param.clone());
        let n = self.out.params.len() + 1;
        match param {
            Param::TsQuery(_) => format!("${n}::text::tsquery"),
            Param::Text(_) => format!("${n}::text"),
            Param::Int(_) => format!("${n}::bigint"),
        }
    }

    /// `None` for a part that asks for nothing (stop words only).
    fn node(&mut self, ast: &UserInputAst) -> Result<Option<Node>, SearchError> {
        self.node_under(ast, false)
    }

    fn node_under(
        &mut self,
        ast: &UserInputAst,
        excluded: bool,
    ) -> Result<Option<Node>, SearchError> {
        match ast {
            UserInputAst::Boost(inner, _) => self.node_under(inner, excluded),
            UserInputAst::Leaf(leaf) => Ok(self.leaf(leaf, excluded)?.map(Node::Positive)),
            UserInputAst::Clause(clauses) => {
                // As tantivy's boolean query: every must, none of the must-nots, and one of the
                // shoulds when there is no must.
                let (mut must, mut should, mut must_not) = (Vec::new(), Vec::new(), Vec::new());
                for (occur, clause) in clauses {
                    let occur = occur.unwrap_or(Occur::Must);
                    let negated = excluded ^ (occur == Occur::MustNot);
                    match (occur, self.node_under(clause, negated)?) {
                        (_, None) => {}
                        (Occur::MustNot, Some(Node::Positive(sql))) => must_not.push(sql),
                        // Excluding an exclusion asks for what it excluded.
                        (Occur::MustNot, Some(Node::Negative(sql))) => must.push(sql),
                        (_, Some(Node::Negative(sql))) => must_not.push(sql),
                        (Occur::Must, Some(Node::Positive(sql))) => must.push(sql),
                        (Occur::Should, Some(Node::Positive(sql))) => should.push(sql),
                    }
                }
                if must.is_empty() && !should.is_empty() {
                    must.push(format!("({})", should.join(" OR ")));
                }
                let excluded_sql =
                    (!must_not.is_empty()).then(|| format!("NOT ({})", must_not.join(" OR ")));
                Ok(match (must.is_empty(), excluded_sql) {
                    (true, None) => None,
                    (true, Some(_)) => Some(Node::Negative(must_not.join(" OR "))),
                    (false, None) => Some(Node::Positive(format!("({})", must.join(" AND ")))),
                    (false, Some(not)) => Some(Node::Positive(format!(
                        "({} AND {not})",
                        must.join(" AND ")
                    ))),
                })
            }
        }
    }

    fn leaf(
        &mut self,
        leaf: &UserInputLeaf,
        excluded: bool,
    ) -> Result<Option<String>, SearchError> {
        match leaf {
            UserInputLeaf::Literal(literal) => self.literal(literal, excluded),
            UserInputLeaf::All => Ok(Some("TRUE".to_string())),
            UserInputLeaf::Range {
                field,
                lower,
                upper,
            } => {
                if field.as_deref() != Some("year") {
                    return Err(SearchError::InvalidQuery(
                        "only year: takes a range".to_string(),
                    ));
                }
                let mut tests = Vec::new();
                for (bound, inclusive, exclusive) in [(lower, ">=", ">"), (upper, "<=", "<")] {
                    let (value, op) = match bound {
                        UserInputBound::Inclusive(v) => (v, inclusive),
                        UserInputBound::Exclusive(v) => (v, exclusive),
                        UserInputBound::Unbounded => continue,
                    };
                    if value == "*" {
                        continue;
                    }
                    let year = parse_year(value)?;
                    let p = self.param(Param::Int(year));
                    tests.push(format!("year {op} {p}"));
                }
                if tests.is_empty() {
                    tests.push("year IS NOT NULL".to_string());
                }
                Ok(Some(format!("({})", tests.join(" AND "))))
            }
            UserInputLeaf::Set { .. }
            | UserInputLeaf::Exists { .. }
            | UserInputLeaf::Regex { .. } => Err(SearchError::InvalidQuery(
                "sets, regular expressions and field existence are not part of the query \
                     language"
                    .to_string(),
            )),
        }
    }

    fn literal(
        &mut self,
        literal: &UserInputLiteral,
        excluded: bool,
    ) -> Result<Option<String>, SearchError> {
        let weights = match literal.field_name.as_deref() {
            None => "AD",
            Some("title") => "A",
            Some("authors") => "B",
            Some("lang") => {
                let p = self.param(Param::Text(literal.phrase.clone()));
                return Ok(Some(format!("lang = {p}")));
            }
            Some("year") => {
                let p = self.param(Param::Int(parse_year(&literal.phrase)?));
                return Ok(Some(format!("year = {p}")));
            }
            Some(other) => return Err(QueryError::UnknownField(other.to_string()).into()),
        };
        let mut tokens = self.analyzer.analyze(&literal.phrase, None).tokens;
        tokens.retain(|t| t.term.len() <= MAX_LEXEME_BYTES);
        let Some(first) = tokens.first() else {
            return Ok(None);
        };
        let mut tsquery = String::new();
        let mut previous = first.position;
        for (i, token) in tokens.iter().enumerate() {
            if i > 0 {
                match token.position - previous {
                    1 => tsquery.push_str(" <-> "),
                    gap => {
                        let _ = write!(tsquery, " <{gap}> ");
                    }
                }
                previous = token.position;
            }
            quote_lexeme(&mut tsquery, &token.term);
            tsquery.push(':');
            if literal.prefix && i + 1 == tokens.len() {
                tsquery.push('*');
            }
            tsquery.push_str(weights);
        }
        if literal.slop > 0 && tokens.len() > 1 {
            // Words within a distance: PostgreSQL has no sloppy phrase, so every word is asked
            // for anywhere in the document.
            tsquery = tsquery.replace(" <-> ", " & ");
        }
        if !excluded {
            self.ranked.push(tsquery.clone());
            if weights.contains('D') {
                self.out
                    .marked
                    .extend(tokens.iter().map(|t| t.term.clone()));
            }
        }
        if self.pairs && literal.slop == 0 {
            // A document holding the phrase holds each of its pairs of adjacent words (or the
            // marker of a vector without pairs): asking for them changes no answer, and lets
            // the index leave out most documents that hold the words apart.
            let last = tokens.len().saturating_sub(1);
            let pairs: Vec<String> = tokens
                .windows(2)
                .enumerate()
                .filter(|(i, w)| {
                    w[1].position == w[0].position + 1 && !(literal.prefix && i + 1 == last)
                })
                .filter_map(|(_, w)| pair(&w[0].term, &w[1].term))
                .map(|p| {
                    let mut quoted = String::new();
                    quote_lexeme(&mut quoted, &p);
                    quoted
                })
                .collect();
            if !pairs.is_empty() {
                let mut marker = String::new();
                quote_lexeme(&mut marker, NO_PAIRS);
                tsquery = format!("({tsquery}) & (({}) | {marker})", pairs.join(" & "));
            }
        }
        let p = self.param(Param::TsQuery(tsquery));
        Ok(Some(format!("search @@ {p}")))
    }
}

fn parse_year(value: &str) -> Result<i64, SearchError> {
    value
        .parse()
        .map_err(|_| QueryError::InvalidYear(value.to_string()).into())
}

impl super::PgLibrary {
    /// Searches the library: the documents meeting the translated query, ranked, with their
    /// texts for snippets.
    pub(super) fn search(
        &self,
        query: &str,
        limit: usize,
        offset: usize,
    ) -> Result<SearchResults, SearchError> {
        let analyzer = &self.shared.analyzer;
        let pairs = self.shared.block_on(async {
            let client = self.shared.client().await?;
            let row = client
                .query_opt(
                    "SELECT search_pairs FROM libraries WHERE library = $1",
                    &[&self.library.as_str()],
                )
                .await?;
            Ok::<_, crate::index::IndexError>(row.is_some_and(|r| r.get::<_, bool>(0)))
        })?;
        let sql = match translate(analyzer, query, pairs)? {
            Translated::Nothing => {
                return Ok(SearchResults {
                    total: 0,
                    total_exact: true,
                    hits: Vec::new(),
                });
            }
            Translated::Query(sql) => sql,
        };
        let (library, limit, offset) = (self.library.as_str(), limit as i64, offset as i64);
        let mut params: Vec<&(dyn ToSql + Sync)> = vec![&library];
        params.extend(sql.params.iter().map(Param::as_sql));
        let condition_params = params.len();
        let rank = if sql.rank.is_empty() {
            "0::real".to_string()
        } else {
            params.push(&sql.rank);
            format!("ts_rank(search, ${}::text::tsquery, 1)", params.len())
        };
        params.extend([&limit as &(dyn ToSql + Sync), &offset]);
        let columns = super::meta::META_COLUMNS;
        // The first `RANKED` matches are read, ranked and counted, no more.
        let statement = format!(
            "SELECT {columns}, text, score, count(*) OVER () FROM ( \
                 SELECT {columns}, text, {rank} AS score \
                 FROM documents WHERE library = $1 AND {} LIMIT {RANKED} \
             ) matched \
             ORDER BY score DESC, doc_id COLLATE \"C\" LIMIT ${} OFFSET ${}",
            sql.condition,
            params.len() - 1,
            params.len()
        );
        let (rows, total) = self.shared.block_on(async {
            let client = self.shared.client().await?;
            let rows = client.query(&statement, &params).await?;
            let total = match rows.first() {
                Some(row) => row.get::<_, i64>(10),
                // A page past the last hit still says how many there are.
                None if offset > 0 => {
                    let count = format!(
                        "SELECT count(*) FROM (SELECT 1 FROM documents \
                         WHERE library = $1 AND {} LIMIT {RANKED}) matched",
                        sql.condition
                    );
                    client
                        .query_one(&count, &params[..condition_params])
                        .await?
                        .get(0)
                }
                None => 0,
            };
            Ok::<_, crate::index::IndexError>((rows, total))
        })?;
        let rows = rows
            .iter()
            .map(|r| Row {
                meta: super::meta::meta_of(r),
                text: r.get(8),
                score: r.get(9),
            })
            .collect();
        Ok(results(analyzer, &sql.marked, total as usize, rows))
    }
}

/// A hit as read from the database, before its snippet is made.
pub(super) struct Row {
    pub(super) meta: DocumentMeta,
    pub(super) score: f32,
    pub(super) text: String,
}

/// Search results from the rows of one page: snippets made as on tantivy.
pub(super) fn results(
    analyzer: &Analyzer,
    marked: &[String],
    total: usize,
    rows: Vec<Row>,
) -> SearchResults {
    let terms: BTreeMap<String, f32> = marked.iter().map(|t| (t.clone(), 1.0)).collect();
    let tokenizer = TextAnalyzer::from(AnalyzerTokenizer::new(analyzer.clone()));
    let schema_field = tantivy::schema::Field::from_field_id(0);
    let snippets =
        SnippetGenerator::new(terms, tokenizer, schema_field, crate::index::SNIPPET_CHARS);
    let hits = rows
        .into_iter()
        .map(|row| SearchHit {
            snippet: snippet_html(&snippets, &row.text),
            meta: row.meta,
            score: row.score,
        })
        .collect();
    // PostgreSQL keeps every document's positions: its count is exact.
    SearchResults {
        total,
        total_exact: true,
        hits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::default_analyzer;

    fn sql(query: &str) -> SqlQuery {
        match translate(&default_analyzer(), query, true).unwrap() {
            Translated::Query(q) => q,
            Translated::Nothing => panic!("nothing to look for in {query}"),
        }
    }

    #[test]
    fn words_are_anded_and_phrases_keep_their_order() {
        let q = sql("neural \"machine translation\" -survey");
        assert_eq!(
            q.condition,
            "(search @@ $2::text::tsquery AND search @@ $3::text::tsquery AND NOT (search @@ $4::text::tsquery))"
        );
        assert_eq!(
            q.params,
            vec![
                Param::TsQuery("'neural':AD".to_string()),
                Param::TsQuery(
                    "('machin':AD <-> 'translat':AD) & (('machin translat') | 'no word pairs')"
                        .to_string()
                ),
                Param::TsQuery("'survey':AD".to_string()),
            ]
        );
        assert_eq!(q.rank, "('neural':AD) | ('machin':AD <-> 'translat':AD)");
    }

    #[test]
    fn a_phrase_asks_for_its_adjacent_pairs_only_where_the_library_keeps_them() {
        // A stop word leaves no gap (as in the vector); the last word of a prefix phrase makes
        // no pair.
        let q = sql("\"theory of parsing tables\" \"machine transl\"*");
        assert_eq!(
            q.params[0],
            Param::TsQuery(
                "('theori':AD <-> 'pars':AD <-> 'tabl':AD) \
                 & (('theori pars' & 'pars tabl') | 'no word pairs')"
                    .to_string()
            )
        );
        assert_eq!(
            q.params[1],
            Param::TsQuery("'machin':AD <-> 'transl':*AD".to_string())
        );
        let Translated::Query(old) =
            translate(&default_analyzer(), "\"parsing tables\"", false).unwrap()
        else {
            panic!("a query");
        };
        assert_eq!(
            old.params,
            vec![Param::TsQuery("'pars':AD <-> 'tabl':AD".to_string())]
        );
    }

    #[test]
    fn fields_become_weights_and_columns() {
        let q = sql("title:parsing author:smith lang:en year:2015..2020");
        assert_eq!(
            q.params,
            vec![
                Param::TsQuery("'pars':A".to_string()),
                Param::TsQuery("'smith':B".to_string()),
                Param::Text("en".to_string()),
                Param::Int(2015),
                Param::Int(2020),
            ]
        );
        assert!(q.condition.contains("lang = $4::text"), "{}", q.condition);
        assert!(
            q.condition
                .contains("(year >= $5::bigint AND year <= $6::bigint)"),
            "{}",
            q.condition
        );
        assert!(q.marked.is_empty());
    }

    #[test]
    fn stop_words_alone_ask_for_nothing_and_exclusions_alone_are_refused() {
        assert!(matches!(
            translate(&default_analyzer(), "the of", true).unwrap(),
            Translated::Nothing
        ));
        assert!(matches!(
            translate(&default_analyzer(), "-survey", true),
            Err(SearchError::InvalidQuery(_))
        ));
        assert!(matches!(
            translate(&default_analyzer(), "colour:red", true),
            Err(SearchError::Query(QueryError::UnknownField(_)))
        ));
    }

    #[test]
    fn a_vector_keeps_parts_apart_and_quotes_lexemes() {
        let analyzer = default_analyzer();
        let text = "Parsing it's fine";
        let analyzed = analyzer.analyze(text, None);
        let document = PreparedDocument {
            doc_id: "d".to_string(),
            url: None,
            title: Some("Parsing".to_string()),
            authors: vec!["Smith".to_string()],
            text: text.to_string(),
            lang: analyzed.language,
            year: None,
            pdf_url: None,
            doi: None,
            words: 3,
            content_hash: 0,
            term_counts: Vec::new(),
            shingle_seq: Vec::new(),
            tokens: analyzed.tokens,
        };
        let vector = search_vector(&analyzer, &document);
        assert!(vector.starts_with("'fine':"), "{vector}");
        let long = "x".repeat(3_000);
        let analyzed = analyzer.analyze(&format!("{long} fine"), None);
        let document = PreparedDocument {
            tokens: analyzed.tokens,
            ..document
        };
        assert!(!search_vector(&analyzer, &document).contains("xxx"));
        assert!(vector.contains("'pars':1A,"), "{vector}");
        assert!(vector.contains("'smith':3B"), "{vector}");
        // Adjacent words of one part make a pair; the last of the title and the first author
        // do not.
        assert!(vector.contains("'pars fine'"), "{vector}");
        assert!(!vector.contains("'pars smith'"), "{vector}");
        assert!(!vector.contains("'smith pars'"), "{vector}");
    }
}
