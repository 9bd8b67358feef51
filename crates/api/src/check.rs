//! `POST /api/v1/check`: the request body turned into a [`CheckRequest`] under the configured
//! limits (JSON depth, number of libraries), then the check on the blocking pool. A
//! `multipart/form-data` body carries a file (part `file`) and the same options as the JSON
//! body without `text` (part `options`); the file's text is extracted, and the answer adds
//! `document` and the extracted `text` that the passages' offsets refer to. The answer is kept
//! as a report unless the request says `"store": false`. Several `file` parts, or one file
//! that is a `.zip` (told by content), are a batch: kept, answered `202` with a job, and
//! checked file by file (see [`dupfinder_service::batch`]).

use std::sync::atomic::Ordering;

use axum::Extension;
use axum::Json;
use axum::extract::{FromRequest, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use super::auth::Identity;
use super::body::{TextBody, parse_json};
use super::upload::{Upload, extract_file, is_multipart, read_upload};
use super::{ApiError, AppState, ErrorCode};
use dupfinder_check::{CancelFlag, CheckRequest, Verdict};
use dupfinder_service::batch::{BatchError, BatchFile, BatchSettings, is_archive, unpack_zip};
use dupfinder_service::config::Limits;
use dupfinder_service::library::{Catalog, JobTrigger, check_cancellable, check_extracted};
use dupfinder_service::reports::{Report, ReportError};
use dupfinder_text::extract::ExtractedDocument;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckBody {
    text: String,
    libraries: Option<Vec<String>>,
    #[serde(default)]
    passages: bool,
    #[serde(default)]
    min_similarity: f64,
    lang: Option<String>,
    /// Keep the answer as a report (the default).
    store: Option<bool>,
    #[serde(default)]
    exclude: dupfinder_check::ExcludeRequest,
    /// `false` skips the search for translated copies.
    cross_language: Option<bool>,
}

/// Parses and validates a check body: at most `limits.max_json_depth` levels of JSON, at most
/// `limits.max_libraries_per_check` libraries named. The text itself is validated by the check.
pub fn parse_check_request(body: &str, limits: &Limits) -> Result<CheckRequest, ApiError> {
    parse_check_body(body, limits).map(|(request, _)| request)
}

/// [`parse_check_request`], and whether the answer is to be kept as a report.
fn parse_check_body(body: &str, limits: &Limits) -> Result<(CheckRequest, bool), ApiError> {
    let body: CheckBody = parse_json(body, limits)?;
    if let Some(libraries) = &body.libraries
        && libraries.len() > limits.max_libraries_per_check
    {
        return Err(ApiError::new(
            ErrorCode::TooManyLibraries,
            format!(
                "{} libraries named; a check may name at most {} (leave `libraries` out to \
                 check against all)",
                libraries.len(),
                limits.max_libraries_per_check
            ),
        ));
    }
    let request = CheckRequest {
        text: body.text,
        libraries: body.libraries,
        passages: body.passages,
        min_similarity: body.min_similarity,
        lang: body.lang,
        exclude: body.exclude,
        cross_language: body.cross_language.unwrap_or(true),
    };
    Ok((request, body.store.unwrap_or(true)))
}

/// Builds the JSON body of a file check from the `options` part: the same object as the JSON
/// body, without `text`, which comes from the file.
fn options_with_text(options: Option<&str>, text: &str) -> Result<String, ApiError> {
    let mut object = match options.map(str::trim).filter(|o| !o.is_empty()) {
        None => serde_json::Map::new(),
        Some(options) => match serde_json::from_str::<serde_json::Value>(options) {
            Ok(serde_json::Value::Object(object)) => object,
            Ok(_) => {
                return Err(ApiError::new(
                    ErrorCode::InvalidJson,
                    "the `options` part must be a JSON object",
                ));
            }
            Err(e) => {
                return Err(ApiError::new(
                    ErrorCode::InvalidJson,
                    format!("invalid JSON in the `options` part: {e}"),
                ));
            }
        },
    };
    if object.contains_key("text") {
        return Err(ApiError::new(
            ErrorCode::InvalidBody,
            "the `options` part must not hold `text`: the text comes from the file",
        ));
    }
    object.insert(
        "text".to_string(),
        serde_json::Value::String(text.to_string()),
    );
    Ok(serde_json::Value::Object(object).to_string())
}

pub(super) async fn check_text(
    State(state): State<AppState>,
    identity: Option<Extension<Identity>>,
    request: Request,
) -> Result<Response, ApiError> {
    let limits = &state.catalog.config().limits;
    if is_multipart(request.headers()) {
        let upload = read_upload(request, &state, &["options"]).await?;
        if let Some(options) = upload.options.as_deref() {
            super::body::check_depth(options, limits)?;
        }
        if upload.files.len() > 1 || is_archive(&upload.files[0].bytes) {
            return start_batch(&state, identity, upload).await;
        }
        // The options are the JSON body's, read before the file's (costlier) extraction; the
        // text is the file's, set by the file's check.
        let body = options_with_text(upload.options.as_deref(), "")?;
        let (request, store) = parse_check_body(&body, limits)?;
        let file = &upload.files[0];
        let document = extract_file(&state, file).await?;
        let file = Some((file.name.clone(), document));
        let answer = run_check(&state, identity, request, store, file).await?;
        return Ok(Json(answer).into_response());
    }
    let body = TextBody::from_request(request, &state).await?;
    let (request, store) = parse_check_body(&body.text, limits)?;
    Ok(Json(run_check(&state, identity, request, store, None).await?).into_response())
}

/// Several files, or one `.zip`: kept durably as a batch, then checked file by file by a
/// job; answers `202` with the job.
async fn start_batch(
    state: &AppState,
    identity: Option<Extension<Identity>>,
    upload: Upload,
) -> Result<Response, ApiError> {
    let limits = &state.catalog.config().limits;
    let config = state.catalog.config().batch.clone();
    let body = options_with_text(upload.options.as_deref(), "")?;
    let (mut request, store) = parse_check_body(&body, limits)?;
    let submitter = submitter(&identity);
    restrict_libraries(&identity, &mut request)?;
    if upload.files.len() > config.max_files {
        return Err(BatchError::TooManyFiles {
            files: upload.files.len(),
            limit: config.max_files,
        }
        .into());
    }
    let catalog = state.catalog.clone();
    let settings = BatchSettings::of(&request, store);
    let files = upload.files;
    let record = tokio::task::spawn_blocking(move || {
        let files = if files.len() == 1 {
            let only = files.into_iter().next().expect("one file");
            unpack_zip(only.bytes.to_vec(), &config)?
        } else {
            files
                .into_iter()
                .map(|f| BatchFile {
                    name: f.name,
                    bytes: f.bytes.to_vec(),
                })
                .collect()
        };
        catalog.batches().create(submitter, settings, files)
    })
    .await??;
    let job = state.jobs.start_batch(&record.job, JobTrigger::Request)?;
    Ok((
        StatusCode::ACCEPTED,
        Json(json!({"job": job.job, "kind": "batch", "total": job.total})),
    )
        .into_response())
}

/// The name reports record for the caller (`-` on an open server).
fn submitter(identity: &Option<Extension<Identity>>) -> String {
    identity
        .as_ref()
        .map_or_else(|| "-".to_string(), |Extension(i)| i.name.clone())
}

/// A key that may touch some libraries only checks against those.
fn restrict_libraries(
    identity: &Option<Extension<Identity>>,
    request: &mut CheckRequest,
) -> Result<(), ApiError> {
    if let Some(Extension(identity)) = identity
        && let Some(allowed) = &identity.libraries
    {
        match &request.libraries {
            None => request.libraries = Some(allowed.clone()),
            Some(named) => {
                if let Some(id) = named.iter().find(|id| !identity.may_touch(id)) {
                    return Err(ApiError::new(
                        ErrorCode::Forbidden,
                        format!("the key `{}` may not check against `{id}`", identity.name),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Checks under the key's library limits — a file (its name and extracted document) as
/// [`check_extracted`] checks one — keeps the answer as a report when `store`, and answers it
/// (with the file's summary and text when a file was checked).
async fn run_check(
    state: &AppState,
    identity: Option<Extension<Identity>>,
    mut request: CheckRequest,
    store: bool,
    file: Option<(String, ExtractedDocument)>,
) -> Result<Value, ApiError> {
    let submitter = submitter(&identity);
    restrict_libraries(&identity, &mut request)?;
    let place = state.checks.place().await?;
    // Dropped with this future when the client goes away or the time limit passes: the check
    // then stops at its next step instead of computing an answer nobody reads.
    let cancel = CancelFlag::new();
    let _cancel_when_abandoned = cancel.cancel_on_drop();
    let catalog = state.catalog.clone();
    let answer = tokio::task::spawn_blocking(move || -> Result<(Value, Verdict), ApiError> {
        let _place = place;
        let (mut answer, verdict, request, name) = match file {
            Some((name, document)) => {
                let checked = check_extracted(&catalog, &name, document, request, &cancel)?;
                let answer = checked.answer().map_err(ApiError::internal)?;
                (answer, checked.report.verdict, checked.request, Some(name))
            }
            None => {
                let report = check_cancellable(&catalog, &request, &cancel)?;
                let answer = serde_json::to_value(&report).map_err(ApiError::internal)?;
                (answer, report.verdict, request, None)
            }
        };
        if store {
            // A check is a read: a data directory that cannot take the report (full,
            // read-only) leaves the answer without `report_id` rather than refusing it.
            match keep(&catalog, &request, &answer, submitter, name) {
                Ok(id) => answer["report_id"] = Value::String(id),
                Err(e) => tracing::error!(error = %e, "the check's report could not be kept"),
            }
        }
        if answer.get("document").is_some() {
            answer["text"] = Value::String(request.text);
        }
        Ok((answer, verdict))
    })
    .await??;
    let (answer, verdict) = answer;
    let counter = match verdict {
        Verdict::Duplicate => &state.metrics.checks_duplicate,
        Verdict::Partial => &state.metrics.checks_partial,
        Verdict::Original => &state.metrics.checks_original,
    };
    counter.fetch_add(1, Ordering::Relaxed);
    Ok(answer)
}

/// Keeps a check's answer as a report (announced to the webhooks in the same commit);
/// answers its id.
fn keep(
    catalog: &Catalog,
    request: &CheckRequest,
    answer: &Value,
    submitter: String,
    file: Option<String>,
) -> Result<String, ReportError> {
    let id = catalog.reports().new_id()?;
    let mut report = Report::of_check(id, request, answer.clone(), submitter, file);
    catalog.keep_report(&mut report)?;
    Ok(report.report_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_many_libraries_and_too_deep_bodies_have_their_codes() {
        let limits = Limits {
            max_libraries_per_check: 2,
            ..Limits::default()
        };
        let ok = parse_check_request(r#"{"text":"t","libraries":["a","b"]}"#, &limits).unwrap();
        assert_eq!(ok.libraries.unwrap().len(), 2);
        let err =
            parse_check_request(r#"{"text":"t","libraries":["a","b","c"]}"#, &limits).unwrap_err();
        assert_eq!(err.code, "too_many_libraries");
        let deep = format!(r#"{{"text":"t","x":{}{}}}"#, "[".repeat(40), "]".repeat(40));
        assert_eq!(
            parse_check_request(&deep, &limits).unwrap_err().code,
            "json_too_deep"
        );
    }

    #[test]
    fn file_options_are_the_json_body_without_text() {
        let limits = Limits::default();
        let body = options_with_text(
            Some(r#"{"passages": true, "libraries": ["a"]}"#),
            "extracted",
        )
        .unwrap();
        let request = parse_check_request(&body, &limits).unwrap();
        assert_eq!(request.text, "extracted");
        assert!(request.passages);
        assert_eq!(request.libraries.unwrap(), ["a"]);
        assert_eq!(
            options_with_text(Some(r#"{"text": "x"}"#), "t")
                .unwrap_err()
                .code,
            "invalid_body"
        );
        assert_eq!(
            options_with_text(Some("[1]"), "t").unwrap_err().code,
            "invalid_json"
        );
        let unknown = options_with_text(Some(r#"{"colour": 1}"#), "t").unwrap();
        assert_eq!(
            parse_check_request(&unknown, &limits).unwrap_err().code,
            "invalid_json"
        );
    }
}
