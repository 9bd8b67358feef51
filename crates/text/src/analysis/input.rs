//! Why a document, or a checked text, is not accepted: one error with a stable code for every
//! field a document is read from, and the language code's parsing.

use dupfinder_common::error_code::ErrorCode;

use super::{Language, TextError};

/// Why a document (or a checked text) was not accepted. Each case has a stable code.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DocumentError {
    #[error("invalid JSON: {0}")]
    InvalidJson(String),
    #[error("the field `{0}` is required")]
    MissingField(&'static str),
    #[error("the text is empty")]
    TextEmpty,
    #[error("the text has {terms} indexable words after analysis; at least {min} are needed")]
    TextTooShort { terms: usize, min: usize },
    #[error("the text is {bytes} bytes; at most {max} are accepted")]
    TextTooLarge { bytes: usize, max: usize },
    #[error(
        "`{0}` is not a supported language code (use ISO 639-1 or 639-3, e.g. en, eng, ru, rus)"
    )]
    InvalidLang(String),
    #[error("invalid document id: {0}")]
    InvalidDocId(String),
    #[error("invalid year `{0}`: expected a number such as 2021")]
    InvalidYear(String),
    #[error("invalid DOI `{0}`: expected one such as 10.1234/abc or https://doi.org/10.1234/abc")]
    InvalidDoi(String),
    #[error("invalid pdf_url `{0}`: expected an absolute http or https address")]
    InvalidPdfUrl(String),
    #[error("JSON nested deeper than {max} levels")]
    JsonTooDeep { max: usize },
}

impl From<TextError> for DocumentError {
    fn from(e: TextError) -> Self {
        match e {
            TextError::Empty => DocumentError::TextEmpty,
            TextError::TooShort { terms, min } => DocumentError::TextTooShort { terms, min },
            TextError::TooLarge { bytes, max } => DocumentError::TextTooLarge { bytes, max },
        }
    }
}

impl DocumentError {
    /// The stable snake_case code of this error.
    pub fn code(&self) -> ErrorCode {
        match self {
            DocumentError::InvalidJson(_) => ErrorCode::InvalidJson,
            DocumentError::MissingField(_) => ErrorCode::MissingField,
            DocumentError::TextEmpty => ErrorCode::TextEmpty,
            DocumentError::TextTooShort { .. } => ErrorCode::TextTooShort,
            DocumentError::TextTooLarge { .. } => ErrorCode::TextTooLarge,
            DocumentError::InvalidLang(_) => ErrorCode::InvalidLang,
            DocumentError::InvalidDocId(_) => ErrorCode::InvalidDocId,
            DocumentError::InvalidYear(_) => ErrorCode::InvalidYear,
            DocumentError::InvalidDoi(_) => ErrorCode::InvalidDoi,
            DocumentError::InvalidPdfUrl(_) => ErrorCode::InvalidPdfUrl,
            DocumentError::JsonTooDeep { .. } => ErrorCode::JsonTooDeep,
        }
    }
}

/// Parses an optional language code.
pub fn parse_lang(lang: Option<&str>) -> Result<Option<Language>, DocumentError> {
    match lang.map(str::trim) {
        None | Some("") => Ok(None),
        Some(code) => Language::from_code(code)
            .map(Some)
            .ok_or_else(|| DocumentError::InvalidLang(code.to_string())),
    }
}
