//! OAI-PMH 2.0, the harvesting protocol of institutional repositories and journal systems:
//! `Identify` (for the datestamp granularity) and `ListRecords` in `oai_dc`, page by page with
//! resumption tokens, incremental with `from`.
//!
//! ```
//! use dupfinder_harvest::{list_records_url, parse_list_records};
//! let url = list_records_url("https://repo.org/oai", None, Some("2024-01-01"), None).unwrap();
//! assert_eq!(url.as_str(), "https://repo.org/oai?verb=ListRecords&metadataPrefix=oai_dc&from=2024-01-01");
//! let xml = r#"<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/">
//!   <responseDate>2024-05-01T10:00:00Z</responseDate>
//!   <ListRecords><record><header><identifier>oai:repo.org:1</identifier>
//!   <datestamp>2024-04-30</datestamp></header><metadata>
//!   <oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/"
//!     xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>A paper</dc:title></oai_dc:dc>
//!   </metadata></record><resumptionToken>page2</resumptionToken></ListRecords></OAI-PMH>"#;
//! let page = parse_list_records(&url, xml).unwrap();
//! assert_eq!(page.records[0].title.as_deref(), Some("A paper"));
//! assert_eq!(page.resumption_token.as_deref(), Some("page2"));
//! ```

use url::Url;

use dupfinder_common::error_code::ErrorCode;

/// One record of a `ListRecords` answer, with its Dublin Core fields.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OaiRecord {
    /// The OAI identifier (`oai:repo.org:1`).
    pub identifier: String,
    pub datestamp: Option<String>,
    /// The header says the record was deleted.
    pub deleted: bool,
    pub title: Option<String>,
    pub creators: Vec<String>,
    /// `dc:description` values (abstracts), in order.
    pub descriptions: Vec<String>,
    /// `dc:identifier` values (landing page URLs, DOIs, …).
    pub identifiers: Vec<String>,
    pub date: Option<String>,
    pub language: Option<String>,
}

impl OaiRecord {
    /// The record's landing page: its first http(s) `dc:identifier`.
    pub fn landing_page(&self) -> Option<Url> {
        self.identifiers
            .iter()
            .filter(|i| i.starts_with("http://") || i.starts_with("https://"))
            .find_map(|i| Url::parse(i).ok())
    }
}

/// One page of a `ListRecords` harvest.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OaiPage {
    pub response_date: Option<String>,
    pub records: Vec<OaiRecord>,
    /// The token for the next page; `None` (or empty) when the list is complete.
    pub resumption_token: Option<String>,
}

/// Why an OAI-PMH answer could not be used.
#[derive(Debug, thiserror::Error)]
pub enum OaiError {
    #[error("OAI-PMH base URL `{url}` is invalid: {reason}")]
    BaseUrl { url: String, reason: String },
    #[error("OAI-PMH {url}: invalid XML: {reason}")]
    Xml { url: String, reason: String },
    #[error("OAI-PMH {url}: error `{code}`: {message}")]
    Protocol {
        url: String,
        code: String,
        message: String,
    },
}

impl OaiError {
    pub fn code(&self) -> ErrorCode {
        match self {
            OaiError::BaseUrl { .. } => ErrorCode::OaiBaseUrl,
            OaiError::Xml { .. } => ErrorCode::OaiInvalid,
            OaiError::Protocol { .. } => ErrorCode::OaiError,
        }
    }

    /// The resumption token was not accepted (expired, or from an earlier process).
    pub fn is_bad_token(&self) -> bool {
        matches!(self, OaiError::Protocol { code, .. } if code == "badResumptionToken")
    }
}

fn base(base_url: &str) -> Result<Url, OaiError> {
    let url = Url::parse(base_url).map_err(|e| OaiError::BaseUrl {
        url: base_url.to_string(),
        reason: e.to_string(),
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(OaiError::BaseUrl {
            url: base_url.to_string(),
            reason: "not an http(s) URL".to_string(),
        });
    }
    Ok(url)
}

/// The `Identify` request.
pub(super) fn identify_url(base_url: &str) -> Result<Url, OaiError> {
    let mut url = base(base_url)?;
    url.query_pairs_mut().append_pair("verb", "Identify");
    Ok(url)
}

/// A `ListRecords` request: the first page (with `from` and `set`), or the next one (with the
/// resumption token alone, as the protocol requires).
pub fn list_records_url(
    base_url: &str,
    token: Option<&str>,
    from: Option<&str>,
    set: Option<&str>,
) -> Result<Url, OaiError> {
    let mut url = base(base_url)?;
    {
        let mut query = url.query_pairs_mut();
        query.append_pair("verb", "ListRecords");
        match token {
            Some(token) => {
                query.append_pair("resumptionToken", token);
            }
            None => {
                query.append_pair("metadataPrefix", "oai_dc");
                if let Some(from) = from {
                    query.append_pair("from", from);
                }
                if let Some(set) = set {
                    query.append_pair("set", set);
                }
            }
        }
    }
    Ok(url)
}

fn parse_document<'a>(url: &Url, xml: &'a str) -> Result<roxmltree::Document<'a>, OaiError> {
    roxmltree::Document::parse(xml.trim_start_matches('\u{feff}')).map_err(|e| OaiError::Xml {
        url: url.to_string(),
        reason: e.to_string(),
    })
}

fn child<'a, 'i>(node: roxmltree::Node<'a, 'i>, name: &str) -> Option<roxmltree::Node<'a, 'i>> {
    node.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
}

fn text_of(node: roxmltree::Node) -> Option<String> {
    let text: String = node
        .descendants()
        .filter(|n| n.is_text())
        .filter_map(|n| n.text())
        .collect();
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    (!text.is_empty()).then_some(text)
}

/// Fails with the protocol error of an answer, if it carries one (`noRecordsMatch` is not an
/// error: it is an empty list).
fn protocol_error(url: &Url, root: roxmltree::Node) -> Result<bool, OaiError> {
    let Some(error) = child(root, "error") else {
        return Ok(false);
    };
    let code = error.attribute("code").unwrap_or("unknown").to_string();
    if code == "noRecordsMatch" {
        return Ok(true);
    }
    Err(OaiError::Protocol {
        url: url.to_string(),
        code,
        message: text_of(error).unwrap_or_default(),
    })
}

/// The datestamp granularity an `Identify` answer declares (`YYYY-MM-DD` when it says none).
pub(super) fn parse_granularity(url: &Url, xml: &str) -> Result<String, OaiError> {
    let document = parse_document(url, xml)?;
    let root = document.root_element();
    protocol_error(url, root)?;
    Ok(child(root, "Identify")
        .and_then(|identify| child(identify, "granularity"))
        .and_then(text_of)
        .unwrap_or_else(|| "YYYY-MM-DD".to_string()))
}

/// A datestamp cut to the repository's granularity (`YYYY-MM-DD` or `YYYY-MM-DDThh:mm:ssZ`).
pub(super) fn at_granularity(datestamp: &str, granularity: &str) -> String {
    if granularity.contains("hh") {
        datestamp.to_string()
    } else {
        datestamp.chars().take(10).collect()
    }
}

/// Parses a `ListRecords` answer.
pub fn parse_list_records(url: &Url, xml: &str) -> Result<OaiPage, OaiError> {
    let document = parse_document(url, xml)?;
    let root = document.root_element();
    let response_date = child(root, "responseDate").and_then(text_of);
    if protocol_error(url, root)? {
        return Ok(OaiPage {
            response_date,
            ..OaiPage::default()
        });
    }
    let Some(list) = child(root, "ListRecords") else {
        return Err(OaiError::Xml {
            url: url.to_string(),
            reason: "no <ListRecords> element".to_string(),
        });
    };
    let mut records = Vec::new();
    for record in list
        .children()
        .filter(|c| c.is_element() && c.tag_name().name() == "record")
    {
        let Some(header) = child(record, "header") else {
            continue;
        };
        let mut out = OaiRecord {
            identifier: child(header, "identifier")
                .and_then(text_of)
                .unwrap_or_default(),
            datestamp: child(header, "datestamp").and_then(text_of),
            deleted: header.attribute("status") == Some("deleted"),
            ..OaiRecord::default()
        };
        if let Some(dc) =
            child(record, "metadata").and_then(|m| m.children().find(|c| c.is_element()))
        {
            for field in dc.children().filter(|c| c.is_element()) {
                let Some(value) = text_of(field) else {
                    continue;
                };
                match field.tag_name().name() {
                    "title" if out.title.is_none() => out.title = Some(value),
                    "creator" => out.creators.push(value),
                    "description" => out.descriptions.push(value),
                    "identifier" => out.identifiers.push(value),
                    "date" if out.date.is_none() => out.date = Some(value),
                    "language" if out.language.is_none() => out.language = Some(value),
                    _ => {}
                }
            }
        }
        records.push(out);
    }
    let resumption_token = child(list, "resumptionToken")
        .and_then(text_of)
        .filter(|t| !t.is_empty());
    Ok(OaiPage {
        response_date,
        records,
        resumption_token,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url() -> Url {
        Url::parse("https://repo.org/oai").unwrap()
    }

    #[test]
    fn records_deleted_records_and_the_last_page() {
        let xml = r#"<?xml version="1.0"?>
        <OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/">
          <responseDate>2024-05-01T10:00:00Z</responseDate>
          <ListRecords>
            <record><header><identifier>oai:r:1</identifier><datestamp>2024-01-01</datestamp></header>
              <metadata><oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/"
                 xmlns:dc="http://purl.org/dc/elements/1.1/">
                <dc:title>Fuzzy   duplicates</dc:title><dc:creator>Ilyinsky, S.</dc:creator>
                <dc:creator>Kuzmin, M.</dc:creator><dc:description>Abstract text.</dc:description>
                <dc:identifier>10.1000/1</dc:identifier><dc:identifier>https://repo.org/rec/1</dc:identifier>
                <dc:date>2002</dc:date><dc:language>rus</dc:language>
              </oai_dc:dc></metadata></record>
            <record><header status="deleted"><identifier>oai:r:2</identifier></header></record>
            <resumptionToken completeListSize="2" cursor="0"></resumptionToken>
          </ListRecords>
        </OAI-PMH>"#;
        let page = parse_list_records(&url(), xml).unwrap();
        assert_eq!(page.response_date.as_deref(), Some("2024-05-01T10:00:00Z"));
        assert_eq!(page.records.len(), 2);
        let r = &page.records[0];
        assert_eq!(r.title.as_deref(), Some("Fuzzy duplicates"));
        assert_eq!(r.creators, ["Ilyinsky, S.", "Kuzmin, M."]);
        assert_eq!(r.landing_page().unwrap().as_str(), "https://repo.org/rec/1");
        assert_eq!(r.language.as_deref(), Some("rus"));
        assert!(page.records[1].deleted);
        assert_eq!(page.resumption_token, None, "an empty token ends the list");
    }

    #[test]
    fn no_records_match_is_an_empty_list_and_other_errors_fail() {
        let empty = r#"<OAI-PMH><responseDate>2024-05-01</responseDate>
            <error code="noRecordsMatch">none</error></OAI-PMH>"#;
        assert!(
            parse_list_records(&url(), empty)
                .unwrap()
                .records
                .is_empty()
        );
        let bad = r#"<OAI-PMH><error code="badResumptionToken">expired</error></OAI-PMH>"#;
        let err = parse_list_records(&url(), bad).unwrap_err();
        assert!(err.is_bad_token());
    }

    #[test]
    fn resumption_requests_carry_only_the_token() {
        let next = list_records_url(
            "https://repo.org/oai?x=1",
            Some("a b&c"),
            Some("2024"),
            None,
        )
        .unwrap();
        assert_eq!(
            next.as_str(),
            "https://repo.org/oai?x=1&verb=ListRecords&resumptionToken=a+b%26c"
        );
        assert!(list_records_url("ftp://repo.org", None, None, None).is_err());
        assert_eq!(
            at_granularity("2024-05-01T10:00:00Z", "YYYY-MM-DD"),
            "2024-05-01"
        );
        assert_eq!(
            at_granularity("2024-05-01T10:00:00Z", "YYYY-MM-DDThh:mm:ssZ"),
            "2024-05-01T10:00:00Z"
        );
    }
}
