//! Duplicates inside a library over HTTP: starting the dedup job
//! (`POST /api/v1/libraries/{id}/dedup`), its clusters page by page
//! (`GET /api/v1/libraries/{id}/duplicates`), one document's cluster and related documents
//! (`GET /api/v1/libraries/{id}/documents/{doc_id}/duplicates`, answered inside the document
//! route, whose id may hold slashes), and the alerts of arriving duplicates
//! (`GET /api/v1/alerts`).

use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde::Deserialize;
use serde_json::{Value, json};

use super::auth::{Identity, require_library};
use super::params::{page_limit, page_offset, query_params};
use super::path::Path;
use super::{ApiError, AppState, ErrorCode};
use dupfinder_service::dedup::{Cluster, DedupError, DedupStore, Link};
use dupfinder_service::library::{JobStatus, JobTrigger, LibraryError};
use dupfinder_storage::index::DocKey;

/// The suffix of a document path that asks for the document's duplicates.
pub(super) const DUPLICATES_SUFFIX: &str = "/duplicates";

/// Deepest page of clusters or alerts.
const MAX_OFFSET: usize = 10_000_000;

impl From<DedupError> for ApiError {
    fn from(e: DedupError) -> Self {
        match e {
            DedupError::Library(e) => e.into(),
            e => {
                tracing::error!(error = %e, "dedup store error");
                ApiError::new(
                    ErrorCode::Internal,
                    "internal error; the details are in the server log",
                )
            }
        }
    }
}

pub(super) async fn start_dedup(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<(StatusCode, Json<JobStatus>), ApiError> {
    let job = state.jobs.start_dedup(&id, JobTrigger::Request)?;
    Ok((StatusCode::ACCEPTED, Json(job)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PageParams {
    limit: Option<usize>,
    offset: Option<usize>,
}

/// A cluster as the API shows it (without the edges kept to split it again).
fn cluster_json(cluster: &Cluster) -> Value {
    json!({
        "id": cluster.id,
        "canonical": cluster.canonical,
        "size": cluster.size(),
        "members": cluster.members,
    })
}

/// Related pairs listed with a library's clusters, at most (the most similar).
const RELATED_PAIRS: usize = 100;

pub(super) async fn list_duplicates(
    State(state): State<AppState>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, ApiError> {
    let params: PageParams = query_params(raw.as_deref().unwrap_or_default())?;
    let limit = page_limit(params.limit, 20)?;
    let offset = page_offset(params.offset, MAX_OFFSET)?;
    let catalog = state.catalog.clone();
    let set = tokio::task::spawn_blocking(move || -> Result<_, ApiError> {
        let store = catalog.store(&id)?;
        Ok(DedupStore::of(store.as_ref()).clusters()?)
    })
    .await??;
    let Some(set) = set else {
        return Ok(Json(json!({
            "total": 0,
            "clusters": [],
            "related": 0,
            "related_pairs": [],
            "updated_at": null,
        })));
    };
    let clusters: Vec<Value> = set
        .clusters
        .iter()
        .skip(offset)
        .take(limit)
        .map(cluster_json)
        .collect();
    // The related pairs themselves, most similar first: the page lists them beside the count.
    let mut related: Vec<&Link> = set.related.iter().collect();
    related.sort_by(|x, y| y.similarity.total_cmp(&x.similarity));
    let related_pairs: Vec<Value> = related
        .into_iter()
        .take(RELATED_PAIRS)
        .map(|link| {
            json!({
                "a": link.a, "b": link.b, "verdict": link.verdict, "similarity": link.similarity,
            })
        })
        .collect();
    Ok(Json(json!({
        "total": set.clusters.len(),
        "clusters": clusters,
        "related": set.related.len(),
        "related_pairs": related_pairs,
        "updated_at": set.updated_at,
        "rule": set.rule,
    })))
}

/// The cluster of document `doc_id` and the documents it partly shares text with.
pub(super) async fn document_duplicates(
    state: AppState,
    id: String,
    doc_id: String,
) -> Result<Json<Value>, ApiError> {
    let (exists, set) = tokio::task::spawn_blocking({
        let (catalog, id, doc_id) = (state.catalog.clone(), id.clone(), doc_id.clone());
        move || -> Result<_, ApiError> {
            let store = catalog.store(&id)?;
            let exists = store
                .view()
                .and_then(|view| view.stored(DocKey::of(&doc_id)))
                .map_err(LibraryError::from)?
                .is_some_and(|document| document.meta.doc_id == doc_id);
            Ok((exists, DedupStore::of(store.as_ref()).clusters()?))
        }
    })
    .await??;
    if !exists {
        return Err(ApiError::new(
            ErrorCode::DocumentNotFound,
            format!("library `{id}` has no document `{doc_id}`"),
        ));
    }
    let cluster = set
        .as_ref()
        .and_then(|set| set.cluster_of(&doc_id))
        .map(cluster_json);
    let related: Vec<Value> = set
        .as_ref()
        .map(|set| {
            set.related_of(&doc_id)
                .map(|link| {
                    let other = if link.a == doc_id { &link.b } else { &link.a };
                    json!({
                        "doc_id": other,
                        "verdict": link.verdict,
                        "similarity": link.similarity,
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(Json(json!({
        "doc_id": doc_id,
        "deduplicated": set.is_some(),
        "cluster": cluster,
        "related": related,
    })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AlertParams {
    library: Option<String>,
    limit: Option<usize>,
    offset: Option<usize>,
}

pub(super) async fn list_alerts(
    State(state): State<AppState>,
    identity: Option<Extension<Identity>>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, ApiError> {
    let params: AlertParams = query_params(raw.as_deref().unwrap_or_default())?;
    let limit = page_limit(params.limit, 20)?;
    let offset = page_offset(params.offset, MAX_OFFSET)?;
    if let Some(library) = &params.library {
        require_library(&identity, library)?;
        state.catalog.store(library)?;
    }
    let catalog = state.catalog.clone();
    let library = params.library.clone();
    let mut alerts = tokio::task::spawn_blocking(move || {
        dupfinder_service::dedup::alerts(&catalog, library.as_deref())
    })
    .await??;
    // A key limited to some libraries sees their alerts only.
    if let Some(Extension(identity)) = identity {
        alerts.retain(|alert| identity.may_touch(&alert.library));
    }
    let total = alerts.len();
    let page: Vec<_> = alerts.into_iter().skip(offset).take(limit).collect();
    Ok(Json(json!({ "total": total, "alerts": page })))
}
