//! Jobs over HTTP: starting a re-index (`POST /api/v1/libraries/{id}/reindex`), following and
//! aborting jobs (`/api/v1/jobs`), and the summary of a batch (`/api/v1/jobs/{job}/reports`).
//! A key limited to libraries sees the re-index and dedup jobs of its libraries and the batches
//! checked against its libraries alone; another job answers 404, as a missing one does.

use axum::extract::{RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde_json::{Value, json};

use super::auth::{Identity, limited};
use super::params::query_params;
use super::path::Path;
use super::{ApiError, AppState, ErrorCode};
use dupfinder_service::batch::{BatchRecord, items_csv};
use dupfinder_service::library::{Catalog, JobStatus, JobTrigger, Role};

pub(super) async fn start_reindex(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<(StatusCode, Json<JobStatus>), ApiError> {
    let job = state.jobs.start_reindex(&id, JobTrigger::Request)?;
    Ok((StatusCode::ACCEPTED, Json(job)))
}

/// The libraries a batch is checked against (none named: every library).
fn batch_libraries(batch: &BatchRecord) -> impl Iterator<Item = &str> {
    batch
        .settings
        .libraries
        .iter()
        .flatten()
        .map(String::as_str)
}

/// Whether the caller may see `job` (reads the batch store for a batch: call it off the
/// async runtime).
fn may_see_job(catalog: &Catalog, identity: &Option<Extension<Identity>>, job: &JobStatus) -> bool {
    let Some(key) = limited(identity) else {
        return true;
    };
    if !job.library.is_empty() {
        return key.may_touch(&job.library);
    }
    catalog
        .batches()
        .get(&job.job)
        .is_ok_and(|batch| key.may_see(batch_libraries(&batch)))
}

/// Job `job`, if the caller may see it.
async fn visible_job(
    state: &AppState,
    identity: Option<Extension<Identity>>,
    job: &str,
) -> Result<JobStatus, ApiError> {
    let status = state.jobs.get(job).ok_or_else(|| unknown(job))?;
    let catalog = state.catalog.clone();
    let (status, visible) = tokio::task::spawn_blocking(move || {
        let visible = may_see_job(&catalog, &identity, &status);
        (status, visible)
    })
    .await?;
    visible.then_some(status).ok_or_else(|| unknown(job))
}

pub(super) async fn list_jobs(
    State(state): State<AppState>,
    identity: Option<Extension<Identity>>,
) -> Result<Json<Value>, ApiError> {
    let mut jobs = state.jobs.list();
    if limited(&identity).is_some() {
        let catalog = state.catalog.clone();
        jobs = tokio::task::spawn_blocking(move || {
            jobs.retain(|job| may_see_job(&catalog, &identity, job));
            jobs
        })
        .await?;
    }
    Ok(Json(json!({ "jobs": jobs })))
}

pub(super) async fn get_job(
    State(state): State<AppState>,
    identity: Option<Extension<Identity>>,
    Path(job): Path<String>,
) -> Result<Json<JobStatus>, ApiError> {
    visible_job(&state, identity, &job).await.map(Json)
}

/// Asks a job to stop. A re-index keeps what it signed; the next one resumes from there.
pub(super) async fn abort_job(
    State(state): State<AppState>,
    identity: Option<Extension<Identity>>,
    Path(job): Path<String>,
) -> Result<(StatusCode, Json<JobStatus>), ApiError> {
    visible_job(&state, identity, &job).await?;
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
/// checked so far, in the order the files were sent. A checker sees only its own batches, a key
/// limited to libraries only those checked against its libraries alone.
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
        Ok::<_, dupfinder_service::batch::BatchError>((
            batches.get(&wanted)?,
            batches.items(&wanted)?,
        ))
    })
    .await?;
    let (batch, items) = match found {
        Ok(found) => found,
        Err(dupfinder_service::batch::BatchError::NotFound(_)) => return Err(unknown(&job)),
        Err(e) => return Err(e.into()),
    };
    let others = identity
        .as_ref()
        .is_some_and(|Extension(i)| i.role == Role::Checker && i.name != batch.submitter);
    let outside = limited(&identity).is_some_and(|key| !key.may_see(batch_libraries(&batch)));
    if others || outside {
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
