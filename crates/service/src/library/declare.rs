//! Libraries as operators declare them: one library object (id, name, where to harvest it, its
//! re-harvest schedule, whether it is paused), read the same way for a single create and for
//! every line of a registry import, which creates the libraries it names and updates the
//! declaration of those that exist, line by line.

use serde::Serialize;
use serde_json::{Map, Value};

use super::catalog::{Catalog, LibraryError, NewLibrary, RejectedLine, RejectedReason};
use dupfinder_common::clock::unix_now;
use dupfinder_common::error_code::ErrorCode;
use dupfinder_storage::ingest::check_json_depth;
use dupfinder_storage::{
    BackendError, LibraryId, LibraryRecord, RecordChange, RegistryError, Schedule,
};

/// The fields a library object may hold, as messages list them.
const FIELDS: &str = "id, name, start_url, clarifications, sitemap_url, use_sitemaps, oai_pmh (or \
                      oai_url), oai_set, schedule, paused";

/// Why a library object was refused.
#[derive(Debug, Clone, thiserror::Error)]
pub enum DeclarationError {
    #[error("invalid JSON: {0}")]
    InvalidJson(String),
    #[error("JSON nested deeper than {max} levels")]
    JsonTooDeep { max: usize },
    #[error("a library is a JSON object, not {0}")]
    NotAnObject(&'static str),
    #[error("the field `id` is required")]
    MissingId,
    #[error("{0}")]
    InvalidId(String),
    #[error("unknown field `{0}`; a library has {FIELDS}")]
    UnknownField(String),
    #[error("`{field}` must be {expected}, not {found}")]
    WrongType {
        field: &'static str,
        expected: &'static str,
        found: String,
    },
    #[error("`oai_pmh` and `oai_url` name the same endpoint; give one of them")]
    TwoOaiEndpoints,
    #[error("{field} `{url}` must be an http:// or https:// address with a host")]
    InvalidUrl { field: &'static str, url: String },
    #[error(
        "`schedule` must be {{\"every_hours\": N}} with N a whole number of hours from 1 to {max}, not {found}",
        max = Schedule::MAX_HOURS,
        found = .0
    )]
    InvalidSchedule(String),
    /// A registry import none of whose lines is a JSON object.
    #[error("not JSON Lines of libraries: no line holds a JSON object ({0})")]
    NotJsonLines(String),
}

impl DeclarationError {
    /// The stable code of this refusal.
    pub fn code(&self) -> ErrorCode {
        match self {
            DeclarationError::JsonTooDeep { .. } => ErrorCode::JsonTooDeep,
            DeclarationError::MissingId => ErrorCode::MissingField,
            DeclarationError::InvalidId(_) => ErrorCode::InvalidLibraryId,
            DeclarationError::InvalidUrl { field, .. } => match *field {
                "start_url" => ErrorCode::InvalidStartUrl,
                "sitemap_url" => ErrorCode::InvalidSitemapUrl,
                _ => ErrorCode::InvalidOaiUrl,
            },
            DeclarationError::InvalidSchedule(_) => ErrorCode::InvalidSchedule,
            DeclarationError::InvalidJson(_)
            | DeclarationError::NotAnObject(_)
            | DeclarationError::UnknownField(_)
            | DeclarationError::WrongType { .. }
            | DeclarationError::TwoOaiEndpoints
            | DeclarationError::NotJsonLines(_) => ErrorCode::InvalidJson,
        }
    }
}

/// A library object as sent. A field it leaves out is `None`: a new library takes the field's
/// default, an existing one keeps its value; a field given as `null` is the default
/// (`Some(None)`, `Some(false)`, an empty list), which clears an existing value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LibraryDeclaration {
    pub id: String,
    /// `Some(None)`: the id.
    pub name: Option<Option<String>>,
    pub start_url: Option<Option<String>>,
    pub clarifications: Option<Vec<String>>,
    pub sitemap_url: Option<Option<String>>,
    pub use_sitemaps: Option<bool>,
    /// Sent as `oai_pmh` or `oai_url`.
    pub oai_url: Option<Option<String>>,
    pub oai_set: Option<Option<String>>,
    pub schedule: Option<Option<Schedule>>,
    pub paused: Option<bool>,
}

impl LibraryDeclaration {
    /// Reads one library object from JSON, refusing JSON nested deeper than `max_depth` before
    /// parsing it.
    pub fn parse(json: &str, max_depth: usize) -> Result<LibraryDeclaration, DeclarationError> {
        check_json_depth(json, max_depth)
            .map_err(|_| DeclarationError::JsonTooDeep { max: max_depth })?;
        let value: Value =
            serde_json::from_str(json).map_err(|e| DeclarationError::InvalidJson(e.to_string()))?;
        match value {
            Value::Object(object) => LibraryDeclaration::from_object(object),
            other => Err(DeclarationError::NotAnObject(kind_of(&other))),
        }
    }

    /// Reads one library object, checking every field it holds.
    pub fn from_object(object: Map<String, Value>) -> Result<LibraryDeclaration, DeclarationError> {
        if object.contains_key("oai_pmh") && object.contains_key("oai_url") {
            return Err(DeclarationError::TwoOaiEndpoints);
        }
        let mut declaration = LibraryDeclaration::default();
        let mut id = None;
        for (key, value) in object {
            match key.as_str() {
                "id" => id = Some(text("id", value)?.ok_or(DeclarationError::MissingId)?),
                "name" => declaration.name = Some(text("name", value)?),
                "start_url" => declaration.start_url = Some(url("start_url", value)?),
                "clarifications" => declaration.clarifications = Some(texts(value)?),
                "sitemap_url" => declaration.sitemap_url = Some(url("sitemap_url", value)?),
                "use_sitemaps" => declaration.use_sitemaps = Some(flag("use_sitemaps", value)?),
                "oai_pmh" => declaration.oai_url = Some(url("oai_pmh", value)?),
                "oai_url" => declaration.oai_url = Some(url("oai_url", value)?),
                "oai_set" => declaration.oai_set = Some(text("oai_set", value)?),
                "schedule" => declaration.schedule = Some(schedule(value)?),
                "paused" => declaration.paused = Some(flag("paused", value)?),
                _ => return Err(DeclarationError::UnknownField(key)),
            }
        }
        let id = id.ok_or(DeclarationError::MissingId)?;
        LibraryId::parse(&id).map_err(DeclarationError::InvalidId)?;
        declaration.id = id;
        Ok(declaration)
    }

    /// Sets in `record` every field this declaration names.
    pub fn apply(&self, record: &mut LibraryRecord) {
        if let Some(name) = &self.name {
            record.name = name.clone().unwrap_or_else(|| record.id.clone());
        }
        set(&mut record.start_url, &self.start_url);
        set(&mut record.clarifications, &self.clarifications);
        set(&mut record.sitemap_url, &self.sitemap_url);
        set(&mut record.use_sitemaps, &self.use_sitemaps);
        set(&mut record.oai_url, &self.oai_url);
        set(&mut record.oai_set, &self.oai_set);
        set(&mut record.schedule, &self.schedule);
        set(&mut record.paused, &self.paused);
    }

    /// The new library this declaration makes: what it leaves out takes the default.
    pub fn into_new(self) -> NewLibrary {
        NewLibrary {
            id: self.id,
            name: self.name.flatten(),
            start_url: self.start_url.flatten(),
            clarifications: self.clarifications.unwrap_or_default(),
            sitemap_url: self.sitemap_url.flatten(),
            use_sitemaps: self.use_sitemaps.unwrap_or_default(),
            oai_url: self.oai_url.flatten(),
            oai_set: self.oai_set.flatten(),
            schedule: self.schedule.flatten(),
            paused: self.paused.unwrap_or_default(),
        }
    }
}

fn set<T: Clone>(field: &mut T, value: &Option<T>) {
    if let Some(value) = value {
        *field = value.clone();
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn wrong(field: &'static str, expected: &'static str, value: &Value) -> DeclarationError {
    DeclarationError::WrongType {
        field,
        expected,
        found: value.to_string(),
    }
}

/// A string, or `None` for `null`.
fn text(field: &'static str, value: Value) -> Result<Option<String>, DeclarationError> {
    match value {
        Value::Null => Ok(None),
        Value::String(text) => Ok(Some(text)),
        other => Err(wrong(field, "a string", &other)),
    }
}

fn texts(value: Value) -> Result<Vec<String>, DeclarationError> {
    const EXPECTED: &str = "a list of strings";
    match value {
        Value::Null => Ok(Vec::new()),
        Value::Array(items) => items
            .into_iter()
            .map(|item| match item {
                Value::String(text) => Ok(text),
                other => Err(wrong("clarifications", EXPECTED, &other)),
            })
            .collect(),
        other => Err(wrong("clarifications", EXPECTED, &other)),
    }
}

fn flag(field: &'static str, value: Value) -> Result<bool, DeclarationError> {
    match value {
        Value::Null => Ok(false),
        Value::Bool(flag) => Ok(flag),
        other => Err(wrong(field, "true or false", &other)),
    }
}

/// An http(s) address with a host, or `None` for `null`.
fn url(field: &'static str, value: Value) -> Result<Option<String>, DeclarationError> {
    let address = text(field, value)?;
    if let Some(address) = &address {
        check_url(field, address)?;
    }
    Ok(address)
}

/// Refuses an address the crawler could not fetch: not http(s), or without a host.
pub(super) fn check_url(field: &'static str, address: &str) -> Result<(), DeclarationError> {
    let fetchable = url::Url::parse(address)
        .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some());
    if fetchable {
        Ok(())
    } else {
        Err(DeclarationError::InvalidUrl {
            field,
            url: address.to_string(),
        })
    }
}

/// `{"every_hours": N}`, or `None` for `null`.
fn schedule(value: Value) -> Result<Option<Schedule>, DeclarationError> {
    let hours = match &value {
        Value::Null => return Ok(None),
        Value::Object(object) if object.len() == 1 => object.get("every_hours"),
        _ => None,
    };
    let every_hours = hours
        .and_then(Value::as_u64)
        .and_then(|hours| u32::try_from(hours).ok())
        .ok_or_else(|| DeclarationError::InvalidSchedule(value.to_string()))?;
    let schedule = Schedule { every_hours };
    check_schedule(&schedule).map_err(|_| DeclarationError::InvalidSchedule(value.to_string()))?;
    Ok(Some(schedule))
}

/// Refuses a schedule outside one hour to [`Schedule::MAX_HOURS`].
pub(super) fn check_schedule(schedule: &Schedule) -> Result<(), DeclarationError> {
    if (1..=Schedule::MAX_HOURS).contains(&schedule.every_hours) {
        Ok(())
    } else {
        Err(DeclarationError::InvalidSchedule(format!(
            "{{\"every_hours\":{}}}",
            schedule.every_hours
        )))
    }
}

/// What a registry import did: libraries created, declarations changed, lines that named an
/// existing library and changed nothing, and the lines refused.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RegistryImport {
    pub created: usize,
    pub updated: usize,
    pub unchanged: usize,
    pub rejected: Vec<RejectedLine>,
    /// The ids of the libraries created, in line order.
    #[serde(skip)]
    pub created_ids: Vec<String>,
}

impl Catalog {
    /// Imports library declarations, one JSON object per line (`line` numbers as the caller
    /// counts them; blank lines are skipped), in order: a line naming a library that does not
    /// exist creates it, a line naming one that exists changes the fields it names and never
    /// touches its documents. A line that is not a valid library is rejected with its code and
    /// the others go on; input none of whose lines holds a JSON object at all is refused whole
    /// ([`DeclarationError::NotJsonLines`]). A failure of the storage stops the import with
    /// that error; the lines before it stay applied, and importing the same lines again is
    /// harmless.
    pub fn import_libraries<'a>(
        &self,
        lines: impl IntoIterator<Item = (usize, &'a str)>,
    ) -> Result<RegistryImport, LibraryError> {
        let max_depth = self.config().limits.max_json_depth;
        let parsed: Vec<(usize, Result<LibraryDeclaration, DeclarationError>)> = lines
            .into_iter()
            .filter(|(_, text)| !text.trim().is_empty())
            .map(|(line, text)| (line, LibraryDeclaration::parse(text, max_depth)))
            .collect();
        let holds_an_object = parsed.iter().any(|(_, declaration)| {
            !matches!(
                declaration,
                Err(DeclarationError::InvalidJson(_) | DeclarationError::NotAnObject(_))
            )
        });
        if !holds_an_object {
            let first = match parsed.first() {
                Some((line, Err(e))) => format!("line {line}: {e}"),
                _ => "it is empty".to_string(),
            };
            return Err(DeclarationError::NotJsonLines(first).into());
        }
        let mut import = RegistryImport::default();
        for (line, declaration) in parsed {
            let declaration = match declaration {
                Ok(declaration) => declaration,
                Err(e) => {
                    import.rejected.push(RejectedLine {
                        line,
                        error: RejectedReason {
                            code: e.code(),
                            message: e.to_string(),
                        },
                    });
                    continue;
                }
            };
            match self.declare(&declaration)? {
                Declared::Created => {
                    import.created += 1;
                    import.created_ids.push(declaration.id);
                }
                Declared::Updated => import.updated += 1,
                Declared::Unchanged => import.unchanged += 1,
            }
        }
        Ok(import)
    }

    /// Creates the library `declaration` names, or changes the declaration of the one that
    /// exists.
    fn declare(&self, declaration: &LibraryDeclaration) -> Result<Declared, LibraryError> {
        let id = declaration.id.as_str();
        let write = |e| self.storage().write_failed(id, e);
        // Created by another process between the two steps: changed the next time round.
        for _ in 0..2 {
            let changed = self
                .storage()
                .change_record(id, &mut |record| declaration.apply(record))
                .map_err(write)?;
            match changed {
                RecordChange::Changed => return Ok(Declared::Updated),
                RecordChange::Unchanged => return Ok(Declared::Unchanged),
                RecordChange::NotFound => {}
            }
            let mut record = LibraryRecord::of_id(id, unix_now());
            declaration.apply(&mut record);
            match self.storage().register(record) {
                Ok(()) => return Ok(Declared::Created),
                Err(BackendError::Registry(RegistryError::Exists(_))) => {}
                Err(e) => return Err(write(e).into()),
            }
        }
        Err(BackendError::Registry(RegistryError::Exists(id.to_string())).into())
    }
}

/// What one declaration did.
enum Declared {
    Created,
    Updated,
    Unchanged,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<LibraryDeclaration, DeclarationError> {
        LibraryDeclaration::parse(json, 32)
    }

    #[test]
    fn a_field_left_out_is_kept_and_a_null_clears_it() {
        let mut record = LibraryRecord {
            name: "Old name".to_string(),
            start_url: Some("https://old.example/".to_string()),
            clarifications: vec!["/a/".to_string()],
            paused: true,
            schedule: Some(Schedule { every_hours: 24 }),
            ..LibraryRecord::of_id("j", 1)
        };
        parse(r#"{"id":"j","oai_pmh":"https://j.example/oai","paused":false}"#)
            .unwrap()
            .apply(&mut record);
        assert_eq!(record.name, "Old name");
        assert_eq!(record.start_url.as_deref(), Some("https://old.example/"));
        assert_eq!(record.oai_url.as_deref(), Some("https://j.example/oai"));
        assert_eq!(
            (record.paused, record.schedule),
            (false, Some(Schedule { every_hours: 24 }))
        );
        parse(r#"{"id":"j","name":null,"start_url":null,"clarifications":null,"schedule":null}"#)
            .unwrap()
            .apply(&mut record);
        assert_eq!((record.name.as_str(), record.start_url), ("j", None));
        assert!(record.clarifications.is_empty());
        assert_eq!(record.schedule, None);
    }

    #[test]
    fn every_refusal_names_the_field_and_has_its_code() {
        for (json, code, says) in [
            ("{", ErrorCode::InvalidJson, "invalid JSON"),
            ("[1]", ErrorCode::InvalidJson, "not an array"),
            (r#"{"name":"x"}"#, ErrorCode::MissingField, "`id`"),
            (r#"{"id":"Bad Id"}"#, ErrorCode::InvalidLibraryId, "Bad Id"),
            (
                r#"{"id":"a","colour":1}"#,
                ErrorCode::InvalidJson,
                "unknown field `colour`",
            ),
            (
                r#"{"id":"a","paused":"yes"}"#,
                ErrorCode::InvalidJson,
                "`paused` must be true or false",
            ),
            (
                r#"{"id":"a","clarifications":"/a/"}"#,
                ErrorCode::InvalidJson,
                "`clarifications`",
            ),
            (
                r#"{"id":"a","start_url":"ftp://x/"}"#,
                ErrorCode::InvalidStartUrl,
                "ftp://x/",
            ),
            (
                r#"{"id":"a","sitemap_url":"https://"}"#,
                ErrorCode::InvalidSitemapUrl,
                "sitemap_url",
            ),
            (
                r#"{"id":"a","oai_pmh":"oai.example"}"#,
                ErrorCode::InvalidOaiUrl,
                "oai_pmh",
            ),
            (
                r#"{"id":"a","oai_pmh":"https://o/","oai_url":"https://o/"}"#,
                ErrorCode::InvalidJson,
                "same endpoint",
            ),
            (
                r#"{"id":"a","schedule":{"every_hours":0}}"#,
                ErrorCode::InvalidSchedule,
                "every_hours",
            ),
            (
                r#"{"id":"a","schedule":{"every_hours":9000}}"#,
                ErrorCode::InvalidSchedule,
                "9000",
            ),
            (
                r#"{"id":"a","schedule":24}"#,
                ErrorCode::InvalidSchedule,
                "24",
            ),
            (
                r#"{"id":"a","schedule":{"every_hours":2,"at":1}}"#,
                ErrorCode::InvalidSchedule,
                "at",
            ),
        ] {
            let error = parse(json).expect_err(json);
            assert_eq!(error.code(), code, "{json}: {error}");
            assert!(error.to_string().contains(says), "{json}: {error}");
        }
        let deep = format!(
            r#"{{"id":"a","clarifications":{}{}}}"#,
            "[".repeat(40),
            "]".repeat(40)
        );
        assert_eq!(parse(&deep).unwrap_err().code(), ErrorCode::JsonTooDeep);
    }

    #[test]
    fn a_new_library_takes_the_defaults_of_what_is_left_out() {
        let new = parse(r#"{"id":"j","schedule":{"every_hours":168},"oai_url":null}"#)
            .unwrap()
            .into_new();
        assert_eq!(new.name, None);
        assert_eq!(new.schedule, Some(Schedule { every_hours: 168 }));
        assert!(!new.paused && new.clarifications.is_empty() && new.oai_url.is_none());
    }
}
