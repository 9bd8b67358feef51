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
use crate::check::{CancelFlag, CheckReport, CheckRequest, Verdict, check_cancellable};
use crate::config::Limits;

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
}

/// Parses and validates a check body: at most `limits.max_json_depth` levels of JSON, at most
/// `limits.max_libraries_per_check` libraries named. The text itself is validated by the check.
pub fn parse_check_request(body: &str, limits: &Limits) -> Result<CheckRequest, ApiError> {
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
    Ok(CheckRequest {
        text: body.text,
        libraries: body.libraries,
        passages: body.passages,
        min_similarity: body.min_similarity,
        lang: body.lang,
    })
}

pub(super) async fn check_text(
    State(state): State<AppState>,
    identity: Option<Extension<Identity>>,
    body: TextBody,
) -> Result<Json<CheckReport>, ApiError> {
    let mut request = parse_check_request(&body.text, &state.catalog.config().limits)?;
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
    let place = state.checks.place().await?;
    // Dropped with this future when the client goes away or the time limit passes: the check
    // then stops at its next step instead of computing an answer nobody reads.
    let cancel = CancelFlag::new();
    let _cancel_when_abandoned = cancel.cancel_on_drop();
    let catalog = state.catalog.clone();
    let report = tokio::task::spawn_blocking(move || {
        let _place = place;
        check_cancellable(&catalog, &request, &cancel)
    })
    .await??;
    let counter = match report.verdict {
        Verdict::Duplicate => &state.metrics.checks_duplicate,
        Verdict::Partial => &state.metrics.checks_partial,
        Verdict::Original => &state.metrics.checks_original,
    };
    counter.fetch_add(1, Ordering::Relaxed);
    Ok(Json(report))
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
