//! `POST /api/v1/check`: the request body turned into a [`CheckRequest`] under the configured
//! limits (JSON depth, number of libraries), then the check on the blocking pool.

use std::sync::atomic::Ordering;

use axum::Extension;
use axum::Json;
use axum::extract::State;
use serde::Deserialize;

use super::auth::Identity;
use super::body::{TextBody, parse_json};
use super::{ApiError, AppState, ErrorCode};
use serde_json::{Value, json};

use crate::check::{CheckRequest, check};
use crate::clock::unix_now;
use crate::config::Limits;
use crate::library::Catalog;
use crate::reports::{Decision, Report, ReportError};

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
    };
    Ok((request, body.store.unwrap_or(true)))
}

pub(super) async fn check_text(
    State(state): State<AppState>,
    identity: Option<Extension<Identity>>,
    body: TextBody,
) -> Result<Json<Value>, ApiError> {
    let (mut request, store) = parse_check_body(&body.text, &state.catalog.config().limits)?;
    let submitter = identity
        .as_ref()
        .map_or_else(|| "-".to_string(), |Extension(i)| i.name.clone());
    // A key that may touch some libraries only checks against those.
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
    let catalog = state.catalog.clone();
    let answer = tokio::task::spawn_blocking(move || -> Result<Value, ApiError> {
        let report = check(&catalog, &request)?;
        let mut answer = serde_json::to_value(&report).map_err(ApiError::internal)?;
        if store {
            // A check is a read: a data directory that cannot take the report (full,
            // read-only) leaves the answer without `report_id` rather than refusing it.
            match keep(&catalog, &request, &answer, submitter) {
                Ok(id) => answer["report_id"] = Value::String(id),
                Err(e) => tracing::error!(error = %e, "the check's report could not be kept"),
            }
        }
        Ok(answer)
    })
    .await??;
    let counter = match answer["verdict"].as_str() {
        Some("duplicate") => &state.metrics.checks_duplicate,
        Some("partial") => &state.metrics.checks_partial,
        _ => &state.metrics.checks_original,
    };
    counter.fetch_add(1, Ordering::Relaxed);
    Ok(Json(answer))
}

/// Keeps a check's answer as a report; answers its id.
fn keep(
    catalog: &Catalog,
    request: &CheckRequest,
    answer: &Value,
    submitter: String,
) -> Result<String, ReportError> {
    let reports = catalog.reports();
    let mut report = Report {
        report_id: reports.new_id()?,
        created: unix_now(),
        order: 0,
        submitter,
        file: None,
        settings: json!({
            "libraries": request.libraries,
            "passages": request.passages,
            "min_similarity": request.min_similarity,
            "lang": request.lang,
        }),
        decision: Decision::NotChecked,
        note: None,
        history: Vec::new(),
        answer: answer.clone(),
        text: request.text.clone(),
    };
    reports.insert(&mut report)?;
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
}
