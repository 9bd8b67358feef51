//! Documents as libraries send them: parsing (one JSON object, or JSON Lines), validation and
//! analysis into [`PreparedDocument`]s.

use serde::Deserialize;

use dupfinder_text::analysis::{Analyzer, TextLimits, analyze_text};
pub use dupfinder_text::analysis::{DocumentError, parse_lang};

use crate::index::PreparedDocument;
use dupfinder_text::extract::normalize_doi;

/// A document as submitted. Unknown fields are ignored, so corpus files with extra fields
/// (`abstract`, `domain`, …) import as they are.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct DocumentInput {
    pub id: Option<IdValue>,
    pub url: Option<String>,
    pub title: Option<String>,
    pub authors: Option<Authors>,
    pub text: Option<String>,
    pub lang: Option<String>,
    pub year: Option<IdValue>,
    /// Where the full text can be read (an `http`/`https` address), as `citation_pdf_url` gives it.
    pub pdf_url: Option<String>,
    /// The article's DOI in any usual spelling; stored as `10.xxxx/...` ([`normalize_doi`]).
    pub doi: Option<String>,
}

/// A value given as a string or a number (`"id": 17`, `"year": "1963"`).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum IdValue {
    Text(String),
    Number(u64),
    /// Anything else (a negative or fractional number, a boolean, …): kept so that it is
    /// refused with the field's own code rather than as malformed JSON.
    Other(serde_json::Value),
}

impl IdValue {
    /// The value as a document id.
    fn into_doc_id(self) -> Result<String, DocumentError> {
        match self {
            IdValue::Text(s) => Ok(s),
            IdValue::Number(n) => Ok(n.to_string()),
            IdValue::Other(value) => Err(DocumentError::InvalidDocId(format!(
                "`{value}` is neither a string nor a non-negative integer"
            ))),
        }
    }
}

/// Authors as one string or a list.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Authors {
    One(String),
    Many(Vec<String>),
}

fn validate_doc_id(id: &str) -> Result<(), DocumentError> {
    if id.trim().is_empty() {
        return Err(DocumentError::InvalidDocId(
            "it is empty or only spaces".to_string(),
        ));
    }
    if id.len() > 512 {
        return Err(DocumentError::InvalidDocId(
            "it is longer than 512 bytes".to_string(),
        ));
    }
    if id.chars().any(char::is_control) {
        return Err(DocumentError::InvalidDocId(
            "it contains control characters".to_string(),
        ));
    }
    Ok(())
}

/// Validates and analyzes a submitted document. A document without an id gets its url as id,
/// or else an id derived from its content, so sending the same text twice replaces it.
pub fn prepare(
    analyzer: &Analyzer,
    limits: TextLimits,
    input: DocumentInput,
) -> Result<PreparedDocument, DocumentError> {
    let text = input.text.ok_or(DocumentError::MissingField("text"))?;
    let lang = parse_lang(input.lang.as_deref())?;
    let year = match input.year {
        None => None,
        Some(IdValue::Number(n)) => Some(n),
        Some(IdValue::Other(value)) => return Err(DocumentError::InvalidYear(value.to_string())),
        Some(IdValue::Text(s)) if s.trim().is_empty() => None,
        Some(IdValue::Text(s)) => Some(
            s.trim()
                .parse()
                .map_err(|_| DocumentError::InvalidYear(s))?,
        ),
    };
    let doi = match input.doi.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(value) => {
            Some(normalize_doi(value).ok_or_else(|| DocumentError::InvalidDoi(value.to_string()))?)
        }
    };
    let pdf_url = match input.pdf_url.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(value) => Some(parse_pdf_url(value)?),
    };
    let analyzed = analyze_text(analyzer, &text, lang, limits)?;
    let doc_id = match (input.id.map(IdValue::into_doc_id).transpose()?, &input.url) {
        (Some(id), _) => id,
        (None, Some(url)) => url.clone(),
        (None, None) => format!("h{:016x}", analyzed.content_hash),
    };
    validate_doc_id(&doc_id)?;
    let authors = match input.authors {
        None => Vec::new(),
        Some(Authors::One(a)) => vec![a],
        Some(Authors::Many(a)) => a,
    };
    Ok(PreparedDocument {
        doc_id,
        url: input.url.filter(|u| !u.is_empty()),
        title: input.title.filter(|t| !t.is_empty()),
        authors,
        text,
        lang: analyzed.lang,
        year,
        pdf_url,
        doi,
        words: analyzed.words,
        content_hash: analyzed.content_hash,
        term_counts: analyzed.term_counts,
        shingle_seq: analyzed.shingles,
        tokens: analyzed.tokens,
    })
}

/// A full-text address as given: kept only when it is an absolute `http`/`https` URL, so
/// the document page never links a `javascript:` or relative address.
fn parse_pdf_url(value: &str) -> Result<String, DocumentError> {
    match url::Url::parse(value) {
        Ok(url) if matches!(url.scheme(), "http" | "https") && url.has_host() => Ok(url.into()),
        _ => Err(DocumentError::InvalidPdfUrl(value.to_string())),
    }
}

/// One line of a JSON Lines body: its 1-based number and the document or the reason it failed.
pub type JsonLine = (usize, Result<DocumentInput, DocumentError>);

/// Splits a JSON Lines body into documents; blank lines are skipped, and a line nested deeper
/// than `max_depth` is rejected without being parsed.
pub fn parse_json_lines(body: &str, max_depth: usize) -> Vec<JsonLine> {
    body.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            let parsed = check_json_depth(line, max_depth).and_then(|()| parse_document(line));
            (i + 1, parsed)
        })
        .collect()
}

/// Refuses JSON whose arrays and objects nest deeper than `max`, by a linear scan that needs
/// no recursion, so that a hostile body is turned away before a recursive parser sees it.
/// Brackets inside strings do not count; malformed JSON is left for the parser to report.
pub fn check_json_depth(json: &str, max: usize) -> Result<(), DocumentError> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for byte in json.bytes() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return Err(DocumentError::JsonTooDeep { max });
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// Parses one JSON document.
pub fn parse_document(json: &str) -> Result<DocumentInput, DocumentError> {
    serde_json::from_str(json).map_err(|e| {
        if e.is_data() {
            DocumentError::InvalidJson(format!("a field has the wrong type: {e}"))
        } else {
            DocumentError::InvalidJson(e.to_string())
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::default_analyzer;

    /// The default `[limits]`.
    const LIMITS: TextLimits = TextLimits {
        max_bytes: 5_000_000,
        min_words: 10,
    };

    const TEXT: &str = "Near-duplicate detection in digital libraries uses signatures computed \
                        from collection statistics of every indexed scientific document.";

    fn prepared(json: &str) -> Result<PreparedDocument, DocumentError> {
        let input = parse_document(json)?;
        prepare(&default_analyzer(), LIMITS, input)
    }

    #[test]
    fn an_id_of_only_spaces_is_an_invalid_doc_id() {
        for id in [r#"" ""#, r#""\u00a0\u2003""#] {
            let json = format!(r#"{{"id":{id},"text":"{TEXT}"}}"#);
            let error = prepared(&json).unwrap_err();
            assert_eq!(error.code(), "invalid_doc_id", "{id}: {error}");
        }
    }

    #[test]
    fn a_negative_or_fractional_year_is_an_invalid_year() {
        for year in ["-5", "1999.5", "true", r#""-1""#] {
            let json = format!(r#"{{"id":"a","text":"{TEXT}","year":{year}}}"#);
            let error = prepared(&json).unwrap_err();
            assert_eq!(error.code(), "invalid_year", "{year}: {error}");
        }
        let json = format!(r#"{{"id":-3,"text":"{TEXT}"}}"#);
        assert_eq!(prepared(&json).unwrap_err().code(), "invalid_doc_id");
    }

    #[test]
    fn json_lines_report_broken_lines_by_number() {
        let body = format!(
            "{{\"id\":\"a\",\"text\":\"{TEXT}\"}}\n\n{{broken\n{{\"id\":2,\"text\":\"{TEXT}\",\"year\":\"1999\"}}\n"
        );
        let lines = parse_json_lines(&body, 32);
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0].0, 1);
        assert_eq!(lines[1].0, 3);
        assert!(matches!(lines[1].1, Err(DocumentError::InvalidJson(_))));
        assert_eq!(lines[2].0, 4);
        let analyzer = default_analyzer();
        let doc = prepare(&analyzer, LIMITS, lines[2].1.clone().unwrap()).unwrap();
        assert_eq!(doc.doc_id, "2");
        assert_eq!(doc.year, Some(1999));
    }

    #[test]
    fn json_depth_counts_brackets_outside_strings_only() {
        assert_eq!(check_json_depth(r#"{"a":[[1]]}"#, 3), Ok(()));
        assert_eq!(
            check_json_depth(r#"{"a":[[[1]]]}"#, 3),
            Err(DocumentError::JsonTooDeep { max: 3 })
        );
        // Brackets and escaped quotes inside strings are text.
        assert_eq!(check_json_depth(r#"{"t":"[[[[\"{{{{"}"#, 1), Ok(()));
        // Siblings do not add up.
        assert_eq!(check_json_depth("[[1],[2],[3],[4]]", 2), Ok(()));
    }

    #[test]
    fn a_deeply_nested_json_line_is_rejected_without_parsing() {
        let deep = format!("{}{}", "[".repeat(1_000_000), "]".repeat(1_000_000));
        let body = format!("{deep}\n{{\"id\":\"a\",\"text\":\"{TEXT}\"}}\n");
        let lines = parse_json_lines(&body, 32);
        assert_eq!(lines[0].1.as_ref().unwrap_err().code(), "json_too_deep");
        assert!(lines[1].1.is_ok());
    }

    #[test]
    fn invalid_documents_say_why() {
        let analyzer = default_analyzer();
        let limits = LIMITS;
        let check = |input: DocumentInput| prepare(&analyzer, limits, input).unwrap_err().code();
        assert_eq!(check(DocumentInput::default()), "missing_field");
        let with_text = |t: &str| DocumentInput {
            text: Some(t.to_string()),
            ..Default::default()
        };
        assert_eq!(check(with_text("  \n ")), "text_empty");
        assert_eq!(check(with_text("too short a text")), "text_too_short");
        let mut bad_lang = with_text(TEXT);
        bad_lang.lang = Some("klingon".to_string());
        assert_eq!(check(bad_lang), "invalid_lang");
        let big = "word ".repeat(1_100_000);
        assert_eq!(check(with_text(&big)), "text_too_large");
    }

    #[test]
    fn document_without_id_gets_a_stable_one() {
        let analyzer = default_analyzer();
        let input = DocumentInput {
            text: Some(TEXT.to_string()),
            ..Default::default()
        };
        let a = prepare(&analyzer, LIMITS, input.clone()).unwrap();
        let b = prepare(&analyzer, LIMITS, input).unwrap();
        assert_eq!(a.doc_id, b.doc_id);
        assert!(a.doc_id.starts_with('h'));
    }
}
