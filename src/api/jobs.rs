//! Jobs over HTTP: starting a re-index (`POST /api/v1/libraries/{id}/reindex`), following and
//! aborting jobs (`/api/v1/jobs`), and the summary of a batch (`/api/v1/jobs/{job}/reports`).

use axum::extract::{RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde_json::{Value, json};

use super::auth::Identity;
use super::params::query_params;
use super::path::Path;
use super::{ApiError, AppState, ErrorCode};
use crate::batch::items_csv;
use crate::library::{JobStatus, JobTrigger, Role};

pub(super) async fn start_reindex(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<(StatusCode, Json<JobStatus>), ApiError> {
    let job = state.jobs.start_reindex(&id, JobTrigger::Request)?;
    Ok((StatusCode::ACCEPTED, Json(job)))
}

pub(super) async fn list_jobs(State(state): State<AppState>) -> Json<Value> {
    Json(json!({ "jobs": state.jobs.list() }))
}

pub(super) async fn get_job(
    State(state): State<AppState>,
    Path(job): Path<String>,
) -> Result<Json<JobStatus>, ApiError> {
    state.jobs.get(&job).map(Json).ok_or_else(|| unknown(&job))
}

/// Asks a job to stop. A re-index keeps what it signed; the next one resumes from there.
pub(super) async fn abort_job(
    State(state): State<AppState>,
    Path(job): Path<String>,
) -> Result<(StatusCode, Json<JobStatus>), ApiError> {
    let status = state.jobs.abort(&job).ok_or_else(|| unknown(&job))?;
    Ok((StatusCode::ACCEPTED, Json(status)))
}

fn unknown(job: &str) -> ApiError {
    ApiError::new(
        ErrorCode::JobNotFound,
        format!(
            "no job `{job}` is known (finished re-index and dedup jobs are forgotten at restart)"
        ),
    )
}

#[derive(serde::Deserialize)]
struct ReportsParams {
    format: Option<String>,
}

/// `GET /api/v1/jobs/{job}/reports?format=json|csv`: the summary of a batch, one line per file
/// checked so far, in the order the files were sent. A checker sees only its own batches.
pub(super) async fn batch_reports(
    State(state): State<AppState>,
    identity: Option<Extension<Identity>>,
    Path(job): Path<String>,
    RawQuery(raw): RawQuery,
) -> Result<Response, ApiError> {
    let params: ReportsParams = query_params(raw.as_deref().unwrap_or_default())?;
    let csv = match params.format.as_deref() {
        None | Some("json") => false,
        Some("csv") => true,
        Some(other) => {
            return Err(ApiError::new(
                ErrorCode::InvalidParameter,
                format!("`format` is json or csv, not `{other}`"),
            ));
        }
    };
    let catalog = state.catalog.clone();
    let wanted = job.clone();
    let found = tokio::task::spawn_blocking(move || {
        let batches = catalog.batches();
        Ok::<_, crate::batch::BatchError>((batches.get(&wanted)?, batches.items(&wanted)?))
    })
    .await?;
    let (batch, items) = match found {
        Ok(found) => found,
        Err(crate::batch::BatchError::NotFound(_)) => return Err(unknown(&job)),
        Err(e) => return Err(e.into()),
    };
    let checker = identity
        .as_ref()
        .filter(|Extension(i)| i.role == Role::Checker);
    if let Some(Extension(checker)) = checker
        && checker.name != batch.submitter
    {
        return Err(unknown(&job));
    }
    if csv {
        let name = format!("dupfinder-{job}.csv");
        return Ok((
            [
                (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_string()),
                (
                    header::CONTENT_DISPOSITION,
                    format!("attachment; filename=\"{name}\""),
                ),
            ],
            items_csv(&items),
        )
            .into_response());
    }
    let status = state.jobs.get(&job);
    Ok(Json(json!({
        "job": job,
        "state": status.map(|s| s.state),
        "total": batch.names.len(),
        "done": items.len(),
        "items": items,
    }))
    .into_response())
}
