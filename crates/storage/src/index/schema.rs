//! The index schemas declared in `index_schema/`: parsed, validated and turned into tantivy
//! schemas. The declarations are embedded in the binary so a release runs from any directory.

use serde::Deserialize;
use tantivy::schema::{
    BytesOptions, Field, IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions,
};

use super::IndexError;

const CONTENT_DECLARATION: &str = include_str!("../../../../index_schema/content.toml");
const SIGNATURES_DECLARATION: &str = include_str!("../../../../index_schema/signatures.toml");

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Declaration {
    version: u32,
    field: Vec<FieldDeclaration>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FieldDeclaration {
    name: String,
    #[serde(rename = "type")]
    kind: FieldKind,
    #[serde(default)]
    indexed: bool,
    #[serde(default)]
    stored: bool,
    #[serde(default)]
    fast: bool,
    tokenizer: Option<String>,
    record: Option<Record>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum FieldKind {
    String,
    Text,
    U64,
    Bytes,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Record {
    Basic,
    Freqs,
    Positions,
}

impl From<Record> for IndexRecordOption {
    fn from(record: Record) -> Self {
        match record {
            Record::Basic => IndexRecordOption::Basic,
            Record::Freqs => IndexRecordOption::WithFreqs,
            Record::Positions => IndexRecordOption::WithFreqsAndPositions,
        }
    }
}

fn parse(name: &str, source: &str) -> Result<Declaration, IndexError> {
    toml::from_str(source).map_err(|e| IndexError::Schema {
        schema: name.to_string(),
        reason: e.to_string(),
    })
}

/// The flags tantivy's numeric and bytes field options share.
trait FieldFlags: Default {
    fn indexed(self) -> Self;
    fn stored(self) -> Self;
    fn fast(self) -> Self;
}

/// Numeric and bytes options spell the three flags alike.
macro_rules! field_flags {
    ($($options:ty),*) => {$(
        impl FieldFlags for $options {
            fn indexed(self) -> Self {
                self.set_indexed()
            }
            fn stored(self) -> Self {
                self.set_stored()
            }
            fn fast(self) -> Self {
                self.set_fast()
            }
        }
    )*};
}

field_flags!(NumericOptions, BytesOptions);

/// The options a declaration asks for.
fn flagged<O: FieldFlags>(field: &FieldDeclaration) -> O {
    let mut options = O::default();
    if field.indexed {
        options = options.indexed();
    }
    if field.stored {
        options = options.stored();
    }
    if field.fast {
        options = options.fast();
    }
    options
}

fn build(name: &str, declaration: &Declaration) -> Result<Schema, IndexError> {
    let invalid = |reason: String| IndexError::Schema {
        schema: name.to_string(),
        reason,
    };
    let mut builder = Schema::builder();
    for field in &declaration.field {
        match field.kind {
            FieldKind::String | FieldKind::Text => {
                let mut options = TextOptions::default();
                let tokenizer = match (field.kind, &field.tokenizer) {
                    (FieldKind::String, None) if field.indexed => Some("raw"),
                    (FieldKind::String, None) => None,
                    (FieldKind::String, Some(_)) => {
                        return Err(invalid(format!(
                            "string field `{}` takes no tokenizer",
                            field.name
                        )));
                    }
                    (_, tokenizer) => tokenizer.as_deref(),
                };
                if let Some(tokenizer) = tokenizer {
                    let record = field
                        .record
                        .map(IndexRecordOption::from)
                        .unwrap_or(IndexRecordOption::Basic);
                    options = options.set_indexing_options(
                        TextFieldIndexing::default()
                            .set_tokenizer(tokenizer)
                            .set_index_option(record),
                    );
                }
                if field.stored {
                    options = options.set_stored();
                }
                if field.fast {
                    options = options.set_fast(tokenizer.unwrap_or("raw"));
                }
                builder.add_text_field(&field.name, options);
            }
            FieldKind::U64 => {
                builder.add_u64_field(&field.name, flagged::<NumericOptions>(field));
            }
            FieldKind::Bytes => {
                builder.add_bytes_field(&field.name, flagged::<BytesOptions>(field));
            }
        }
    }
    Ok(builder.build())
}

/// Names of the fields dupfinder reads by name (fast-field columns, the declarations).
pub(crate) mod field_names {
    pub(crate) const DOC_ID: &str = "doc_id";
    pub(crate) const DOC_KEY: &str = "doc_key";
    pub(crate) const CONTENT_HASH: &str = "content_hash";
    pub(crate) const ADDED_AT: &str = "added_at";
}

/// The declaration `source` of schema `name`: its version and the tantivy schema.
fn declared(name: &str, source: &str) -> Result<(u32, Schema), IndexError> {
    let declaration = parse(name, source)?;
    Ok((declaration.version, build(name, &declaration)?))
}

fn require(schema: &Schema, schema_name: &str, field: &str) -> Result<Field, IndexError> {
    schema.get_field(field).map_err(|_| IndexError::Schema {
        schema: schema_name.to_string(),
        reason: format!("the field `{field}` that dupfinder needs is not declared"),
    })
}

/// A schema parsed once per process; a declaration that does not parse is refused every time
/// with the first error's message.
fn loaded<T: Clone>(
    cell: &std::sync::OnceLock<Result<T, (String, String)>>,
    parse: impl FnOnce() -> Result<T, IndexError>,
    name: &'static str,
) -> Result<T, IndexError> {
    cell.get_or_init(|| {
        parse().map_err(|e| match e {
            IndexError::Schema { schema, reason } => (schema, reason),
            other => (name.to_string(), other.to_string()),
        })
    })
    .clone()
    .map_err(|(schema, reason)| IndexError::Schema { schema, reason })
}

/// The content index's schema with its fields resolved by name.
#[derive(Debug, Clone)]
pub struct ContentSchema {
    pub schema: Schema,
    pub version: u32,
    pub doc_id: Field,
    pub doc_key: Field,
    pub url: Field,
    pub title: Field,
    pub authors: Field,
    pub body: Field,
    /// A long document's analysed text, without positions (see `index_schema/content.toml`).
    pub body_terms: Field,
    /// [`LONG_TEXT`](super::LONG_TEXT) for a document whose analysed text is in `body_terms`.
    pub text_kind: Field,
    pub text: Field,
    pub lang: Field,
    pub year: Field,
    pub words: Field,
    pub content_hash: Field,
    pub shingles: Field,
    pub shingle_seq: Field,
    pub term_counts: Field,
    pub term_seq: Field,
    pub added_at: Field,
    pub pdf_url: Field,
    pub doi: Field,
}

impl ContentSchema {
    /// The fields of the analysed text: `body` (with positions) and `body_terms` (a long
    /// text's, without). A document holds one of them.
    pub fn analysed_fields(&self) -> [Field; 2] {
        [self.body, self.body_terms]
    }

    /// Loads and validates the embedded declaration of `index_schema/content.toml` (once per
    /// process: every library opened after the first gets a copy).
    pub fn load() -> Result<Self, IndexError> {
        static LOADED: std::sync::OnceLock<Result<ContentSchema, (String, String)>> =
            std::sync::OnceLock::new();
        loaded(
            &LOADED,
            || Self::from_declaration(CONTENT_DECLARATION),
            "content",
        )
    }

    fn from_declaration(source: &str) -> Result<Self, IndexError> {
        let (version, schema) = declared("content", source)?;
        let field = |name: &str| require(&schema, "content", name);
        Ok(ContentSchema {
            version,
            doc_id: field(field_names::DOC_ID)?,
            doc_key: field(field_names::DOC_KEY)?,
            url: field("url")?,
            title: field("title")?,
            authors: field("authors")?,
            body: field("body")?,
            body_terms: field("body_terms")?,
            text_kind: field("text_kind")?,
            text: field("text")?,
            lang: field("lang")?,
            year: field("year")?,
            words: field("words")?,
            content_hash: field("content_hash")?,
            shingles: field("shingles")?,
            shingle_seq: field("shingle_seq")?,
            term_counts: field("term_counts")?,
            term_seq: field("term_seq")?,
            added_at: field(field_names::ADDED_AT)?,
            pdf_url: field("pdf_url")?,
            doi: field("doi")?,
            schema,
        })
    }
}

/// The signature index's schema with its fields resolved by name.
#[derive(Debug, Clone)]
pub struct SignatureSchema {
    pub schema: Schema,
    pub version: u32,
    pub doc_id: Field,
    pub doc_key: Field,
    pub seed: Field,
    pub robust: Field,
    pub generation: Field,
}

impl SignatureSchema {
    /// Loads and validates the embedded declaration of `index_schema/signatures.toml` (once per
    /// process).
    pub fn load() -> Result<Self, IndexError> {
        static LOADED: std::sync::OnceLock<Result<SignatureSchema, (String, String)>> =
            std::sync::OnceLock::new();
        loaded(&LOADED, Self::parse, "signatures")
    }

    fn parse() -> Result<Self, IndexError> {
        let (version, schema) = declared("signatures", SIGNATURES_DECLARATION)?;
        let field = |name: &str| require(&schema, "signatures", name);
        Ok(SignatureSchema {
            version,
            doc_id: field(field_names::DOC_ID)?,
            doc_key: field(field_names::DOC_KEY)?,
            seed: field("seed")?,
            robust: field("robust")?,
            generation: field("generation")?,
            schema,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_declarations_are_valid() {
        let content = ContentSchema::load().unwrap();
        let body = content.schema.get_field_entry(content.body);
        assert!(body.is_indexed());
        assert!(!body.is_stored());
        let hash = content.schema.get_field_entry(content.content_hash);
        assert!(hash.is_indexed() && hash.is_fast());
        let signatures = SignatureSchema::load().unwrap();
        let seed = signatures.schema.get_field_entry(signatures.seed);
        assert!(seed.is_indexed() && seed.is_fast());
    }

    #[test]
    fn missing_field_is_reported_by_name() {
        let source = CONTENT_DECLARATION.replace("name = \"content_hash\"", "name = \"checksum\"");
        let err = ContentSchema::from_declaration(&source).unwrap_err();
        assert!(err.to_string().contains("content_hash"), "{err}");
    }

    #[test]
    fn unknown_option_is_rejected() {
        let source = CONTENT_DECLARATION.replace("stored = true", "stord = true");
        assert!(ContentSchema::from_declaration(&source).is_err());
    }
}
