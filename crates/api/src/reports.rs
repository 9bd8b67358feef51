//! Stored reports over HTTP: `GET /api/v1/reports` (newest first, filtered, paged),
//! `GET/PATCH/DELETE /api/v1/reports/{id}`, `GET /api/v1/reports/{id}/pdf`. A checker key sees
//! and decides only the reports it asked for; operators and admins see all. A key limited to
//! libraries sees only the reports made on its libraries alone. A report the caller may not
//! see answers 404, as a missing one does.

use axum::extract::{RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::{Extension, Json};
use serde::Deserialize;
use serde_json::{Value, json};

use super::auth::{Identity, limited, require_library};
use super::body::JsonBody;
use super::params::{page_limit, page_offset, query_params};
use super::path::Path;
use super::{ApiError, AppState, ErrorCode};
use dupfinder_check::ExcludeRequest;
use dupfinder_service::library::Role;
use dupfinder_service::reports::{
    Decision, ReapplyError, Report, ReportError, ReportFilter, reapply, render_pdf,
    stored_exclusions,
};

/// The longest note a decision takes, in characters.
const MAX_NOTE_CHARS: usize = 4000;

/// The key a checker's reports are limited to; `None` for every other caller.
fn own_reports_only(identity: &Option<Extension<Identity>>) -> Option<String> {
    identity
        .as_ref()
        .filter(|Extension(i)| i.role == Role::Checker)
        .map(|Extension(i)| i.name.clone())
}

/// The caller's name for the decision trail.
fn caller_name(identity: &Option<Extension<Identity>>) -> String {
    identity
        .as_ref()
        .map_or_else(|| "-".to_string(), |Extension(i)| i.name.clone())
}

/// Report `id`, if the caller may see it. Another key's report, or one made on a library the
/// key may not touch, answers 404, as a missing one does: a key learns nothing of reports
/// that are not its to see.
async fn visible(
    state: &AppState,
    identity: &Option<Extension<Identity>>,
    id: String,
) -> Result<Report, ApiError> {
    let catalog = state.catalog.clone();
    let wanted = id.clone();
    let report = tokio::task::spawn_blocking(move || catalog.reports().get(&wanted)).await??;
    let others = own_reports_only(identity).is_some_and(|owner| owner != report.submitter);
    let outside = limited(identity).is_some_and(|key| !key.may_see(report.libraries()));
    if others || outside {
        return Err(ReportError::NotFound(id).into());
    }
    Ok(report)
}

#[derive(Deserialize)]
struct ListParams {
    limit: Option<usize>,
    offset: Option<usize>,
    verdict: Option<String>,
    decision: Option<String>,
    library: Option<String>,
    from: Option<u64>,
    to: Option<u64>,
}

pub(super) async fn list_reports(
    State(state): State<AppState>,
    identity: Option<Extension<Identity>>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, ApiError> {
    let params: ListParams = query_params(raw.as_deref().unwrap_or_default())?;
    let limit = page_limit(params.limit, 20)?;
    let offset = page_offset(params.offset, 10_000_000)?;
    if let Some(verdict) = &params.verdict
        && !["original", "partial", "duplicate"].contains(&verdict.as_str())
    {
        return Err(ApiError::new(
            ErrorCode::InvalidParameter,
            format!("`verdict` is original, partial or duplicate, not `{verdict}`"),
        ));
    }
    let decision = params
        .decision
        .as_deref()
        .map(|d| Decision::parse(d).ok_or_else(|| invalid_decision(d)))
        .transpose()?;
    if let Some(library) = &params.library {
        require_library(&identity, library)?;
    }
    let filter = ReportFilter {
        within: limited(&identity).and_then(|key| key.libraries.clone()),
        verdict: params.verdict,
        decision,
        library: params.library,
        from: params.from,
        to: params.to,
        submitter: own_reports_only(&identity),
    };
    let catalog = state.catalog.clone();
    let (total, reports) =
        tokio::task::spawn_blocking(move || catalog.reports().list(&filter, limit, offset))
            .await??;
    Ok(Json(json!({ "total": total, "reports": reports })))
}

fn invalid_decision(value: &str) -> ApiError {
    ApiError::new(
        ErrorCode::InvalidDecision,
        format!("`decision` is not_checked, candidate, unique or duplicate, not `{value}`"),
    )
}

/// The kinds `?exclude=` names, as the request body's `exclude` names them.
const EXCLUDABLE: [&str; 4] = ["quotes", "bibliography", "front_matter", "boilerplate"];

/// Exclusions asked for in a report's address: `exclude` lists the kinds left out (every kind
/// it does not list counts; `exclude=` with nothing counts all), `small_matches` the words under
/// which a passage is small (0: none is), `sources` the `library/doc_id` sources left out,
/// comma-separated. What the address does not mention stays as the report was made; `None`
/// when it mentions none of them.
fn exclusions_in_address(raw: &str) -> Result<Option<ExcludeRequest>, ApiError> {
    let mut request = ExcludeRequest::default();
    let mut mentioned = false;
    let list = |value: &str| -> Vec<String> {
        value
            .split(',')
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_string)
            .collect()
    };
    for (key, value) in url::form_urlencoded::parse(raw.as_bytes()) {
        match key.as_ref() {
            "exclude" => {
                let kinds = list(&value);
                if let Some(unknown) = kinds.iter().find(|k| !EXCLUDABLE.contains(&k.as_str())) {
                    return Err(ApiError::new(
                        ErrorCode::InvalidParameter,
                        format!("`exclude` lists {}, not `{unknown}`", EXCLUDABLE.join(", ")),
                    ));
                }
                let has = |kind: &str| Some(kinds.iter().any(|k| k == kind));
                request.quotes = has("quotes");
                request.bibliography = has("bibliography");
                request.front_matter = has("front_matter");
                request.boilerplate = has("boilerplate");
            }
            "small_matches" => {
                let words = value.trim().parse::<usize>().map_err(|_| {
                    ApiError::new(
                        ErrorCode::InvalidParameter,
                        format!("`small_matches` is a number of words, not `{value}`"),
                    )
                })?;
                request.small_matches = Some(words);
            }
            "sources" => request.sources = Some(list(&value)),
            _ => continue,
        }
        mentioned = true;
    }
    Ok(mentioned.then_some(request))
}

/// Report `id` as the caller may see it, with the exclusions its address asks for applied.
async fn visible_with_exclusions(
    state: &AppState,
    identity: &Option<Extension<Identity>>,
    id: String,
    raw: &str,
) -> Result<Report, ApiError> {
    let asked = exclusions_in_address(raw)?;
    let report = visible(state, identity, id).await?;
    let Some(asked) = asked else {
        return Ok(report);
    };
    let catalog = state.catalog.clone();
    Ok(tokio::task::spawn_blocking(move || {
        let config = &catalog.config().check;
        let exclusions = asked.resolve_over(&stored_exclusions(&report, config));
        let answer = reapply(&report, &exclusions, catalog.analyzer(), config)?;
        Ok::<_, ReapplyError>(Report { answer, ..report })
    })
    .await??)
}

pub(super) async fn get_report(
    State(state): State<AppState>,
    identity: Option<Extension<Identity>>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, ApiError> {
    let raw = raw.unwrap_or_default();
    Ok(Json(
        visible_with_exclusions(&state, &identity, id, &raw)
            .await?
            .to_json(),
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct DecisionBody {
    decision: Option<String>,
    note: Option<String>,
}

pub(super) async fn patch_report(
    State(state): State<AppState>,
    identity: Option<Extension<Identity>>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<DecisionBody>,
) -> Result<Json<Value>, ApiError> {
    let report = visible(&state, &identity, id.clone()).await?;
    let decision = match body.decision.as_deref() {
        Some(d) => Decision::parse(d).ok_or_else(|| invalid_decision(d))?,
        None if body.note.is_some() => report.decision,
        None => {
            return Err(ApiError::new(
                ErrorCode::MissingField,
                "give `decision`, `note` or both",
            ));
        }
    };
    if let Some(note) = &body.note
        && note.chars().count() > MAX_NOTE_CHARS
    {
        return Err(ApiError::new(
            ErrorCode::InvalidParameter,
            format!("`note` is longer than {MAX_NOTE_CHARS} characters"),
        ));
    }
    let by = caller_name(&identity);
    let catalog = state.catalog.clone();
    let report = tokio::task::spawn_blocking(move || {
        catalog.reports().decide(&id, decision, body.note, &by)
    })
    .await??;
    Ok(Json(report.to_json()))
}

pub(super) async fn delete_report(
    State(state): State<AppState>,
    identity: Option<Extension<Identity>>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    visible(&state, &identity, id.clone()).await?;
    let catalog = state.catalog.clone();
    let wanted = id.clone();
    if tokio::task::spawn_blocking(move || catalog.reports().delete(&wanted)).await?? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ReportError::NotFound(id).into())
    }
}

/// The PDF's language; the address's exclusions are read as for the report itself.
#[derive(Deserialize)]
struct PdfParams {
    lang: Option<String>,
}

pub(super) async fn report_pdf(
    State(state): State<AppState>,
    identity: Option<Extension<Identity>>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> Result<impl IntoResponse, ApiError> {
    let raw = raw.unwrap_or_default();
    let params: PdfParams = query_params(&raw)?;
    let lang = params.lang.unwrap_or_else(|| "en".to_string());
    if !["en", "ru"].contains(&lang.as_str()) {
        return Err(ApiError::new(
            ErrorCode::InvalidParameter,
            format!("`lang` is en or ru, not `{lang}`"),
        ));
    }
    let report = visible_with_exclusions(&state, &identity, id, &raw).await?;
    let name = format!("dupfinder-report-{}.pdf", report.report_id);
    let catalog = state.catalog.clone();
    let pdf = tokio::task::spawn_blocking(move || {
        // Each source's side of its passages, read from its library as it is now.
        let source_text = |library: &str, doc_id: &str| {
            let store = catalog.store(library).ok()?;
            let document = store.view().ok()?.document(doc_id).ok()??;
            Some(document.text)
        };
        render_pdf(&report, &lang, &source_text)
    })
    .await?
    .map_err(ApiError::internal)?;
    Ok((
        [
            (header::CONTENT_TYPE, "application/pdf".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("inline; filename=\"{name}\""),
            ),
        ],
        pdf,
    ))
}
