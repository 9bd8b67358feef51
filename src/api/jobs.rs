//! Jobs over HTTP: starting a re-index (`POST /api/v1/libraries/{id}/reindex`), following and
//! aborting jobs (`/api/v1/jobs`).

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde_json::{Value, json};

use super::{ApiError, AppState, ErrorCode};
use crate::library::{JobStatus, JobTrigger};

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
        format!("no job `{job}` is known (finished jobs are forgotten at restart)"),
    )
}
