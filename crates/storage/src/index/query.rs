//! The search query language, translated into tantivy's: words (ANDed), `"quoted phrases"`,
//! `-word` exclusions, and the field filters `title:`, `author:`, `lang:` and `year:` (one year,
//! or a range `2015..2020`, `2015..`, `..2020`). Only these fields can be named: the index holds
//! others (hashes, shingles) that a search must not reach.

/// Why a query was refused before it reached tantivy.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    #[error(
        "unknown field `{0}`: the fields are title:, author:, lang: and year: (quote words that contain a colon)"
    )]
    UnknownField(String),
    #[error("`year:{0}` is not a year or a range of years such as 2015..2020")]
    InvalidYear(String),
    #[error("`lang:{0}` is not a language code such as en or ru")]
    InvalidLang(String),
    #[error("a quoted phrase is not closed")]
    UnclosedQuote,
}

/// Translates a user's query into tantivy's query grammar.
///
/// ```
/// use dupfinder_storage::index::translate_query;
/// assert_eq!(
///     translate_query("author:smith year:2015..2020 \"word sense\"").unwrap(),
///     "authors:smith year:[2015 TO 2020] \"word sense\""
/// );
/// ```
pub fn translate_query(query: &str) -> Result<String, QueryError> {
    let words = split_words(query)?;
    let mut out = Vec::with_capacity(words.len());
    for word in words {
        out.push(translate_word(&word)?);
    }
    Ok(out.join(" "))
}

/// Splits on whitespace outside quotes; a quoted phrase stays with what is glued to it
/// (`title:"word sense"` is one word).
fn split_words(query: &str) -> Result<Vec<String>, QueryError> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    for c in query.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                current.push(c);
            }
            c if c.is_whitespace() && !quoted => {
                if !current.is_empty() {
                    words.push(std::mem::take(&mut current));
                }
            }
            c => current.push(c),
        }
    }
    if quoted {
        return Err(QueryError::UnclosedQuote);
    }
    if !current.is_empty() {
        words.push(current);
    }
    Ok(words)
}

fn translate_word(word: &str) -> Result<String, QueryError> {
    // A colon inside a phrase is text, not a field.
    let colon = match (word.find(':'), word.find('"')) {
        (Some(colon), Some(quote)) if quote < colon => return Ok(word.to_string()),
        (Some(colon), _) => colon,
        (None, _) => return Ok(word.to_string()),
    };
    let (head, value) = (&word[..colon], &word[colon + 1..]);
    let prefix_len = head.len() - head.trim_start_matches(['+', '-', '(']).len();
    let (prefix, field) = head.split_at(prefix_len);
    if value.is_empty() {
        // "Note: ..." — a trailing colon is punctuation.
        return Ok(format!("{prefix}{field}"));
    }
    let translated = match field.to_ascii_lowercase().as_str() {
        "title" => format!("title:{value}"),
        "author" | "authors" => format!("authors:{value}"),
        "lang" => {
            let code = value.trim_end_matches(')');
            let language = dupfinder_text::analysis::Language::from_code(code)
                .ok_or_else(|| QueryError::InvalidLang(code.to_string()))?;
            let closing = &value[code.len()..];
            format!("lang:{}{closing}", language.code())
        }
        "year" => {
            let range = value.trim_end_matches(')');
            let closing = &value[range.len()..];
            format!("year:{}{closing}", year_range(range)?)
        }
        _ => return Err(QueryError::UnknownField(field.to_string())),
    };
    Ok(format!("{prefix}{translated}"))
}

/// `2019` → `2019`; `2015..2020` → `[2015 TO 2020]`; open ends become `*`.
fn year_range(value: &str) -> Result<String, QueryError> {
    let invalid = || QueryError::InvalidYear(value.to_string());
    let year = |s: &str| -> Result<String, QueryError> {
        match s {
            "" => Ok("*".to_string()),
            s if s.len() <= 4 && s.bytes().all(|b| b.is_ascii_digit()) => Ok(s.to_string()),
            _ => Err(invalid()),
        }
    };
    match value.split_once("..") {
        None if value.is_empty() => Err(invalid()),
        None => year(value),
        Some(("", "")) => Err(invalid()),
        Some((from, to)) => {
            let (from, to) = (year(from)?, year(to)?);
            if from != "*" && to != "*" && from.parse::<u32>().ok() > to.parse::<u32>().ok() {
                return Err(invalid());
            }
            Ok(format!("[{from} TO {to}]"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_words_and_phrases_pass_through() {
        assert_eq!(
            translate_query("  neural   \"machine translation\" -survey ").unwrap(),
            "neural \"machine translation\" -survey"
        );
        assert_eq!(
            translate_query("\"ratio: 3 to 1\"").unwrap(),
            "\"ratio: 3 to 1\""
        );
    }

    #[test]
    fn field_filters_are_translated() {
        assert_eq!(
            translate_query("Author:Smith title:\"word sense\" lang:eng").unwrap(),
            "authors:Smith title:\"word sense\" lang:en"
        );
        assert_eq!(translate_query("year:2019").unwrap(), "year:2019");
        assert_eq!(translate_query("year:2015..").unwrap(), "year:[2015 TO *]");
        assert_eq!(
            translate_query("-year:..1990").unwrap(),
            "-year:[* TO 1990]"
        );
        assert_eq!(
            translate_query("(year:2001 OR year:2003)").unwrap(),
            "(year:2001 OR year:2003)"
        );
        assert_eq!(translate_query("Note: parsing").unwrap(), "Note parsing");
    }

    #[test]
    fn bad_filters_are_refused_with_the_reason() {
        assert_eq!(
            translate_query("content_hash:1"),
            Err(QueryError::UnknownField("content_hash".to_string()))
        );
        for bad in ["year:twenty", "year:..", "year:2020..2015", "year:12345"] {
            assert!(
                matches!(translate_query(bad), Err(QueryError::InvalidYear(_))),
                "{bad}"
            );
        }
        assert_eq!(
            translate_query("lang:klingon"),
            Err(QueryError::InvalidLang("klingon".to_string()))
        );
        assert_eq!(
            translate_query("\"open phrase"),
            Err(QueryError::UnclosedQuote)
        );
    }
}
