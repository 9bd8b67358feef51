//! Keeping clusters current between dedup jobs: a document that arrives (ingest, import or
//! crawl) in a library deduplicated once is checked against it at once, joins or forms a
//! cluster, and its matches are recorded as an alert; a deleted document leaves its cluster.
//! A library never deduplicated is left alone, so a bulk import costs no checks.

use super::DedupError;
use super::clusters::Link;
use super::store::{Alert, AlertMatch, DedupStore, EdgeRecord, Log, Sync};
use crate::library::Catalog;
use dupfinder_check::check_stored;
use dupfinder_common::clock::unix_now;
use dupfinder_storage::index::DocKey;
use std::time::{Duration, Instant};

/// Checks the documents `doc_ids` just written to `library` against it; returns the alerts
/// recorded (documents with matches).
pub fn arrived(
    catalog: &Catalog,
    library: &str,
    doc_ids: &[String],
) -> Result<Vec<Alert>, DedupError> {
    if !catalog.config().dedup.incremental || doc_ids.is_empty() {
        return Ok(Vec::new());
    }
    let library_store = catalog.store(library)?;
    let store = DedupStore::of(library_store.as_ref());
    if !store.active()? {
        return Ok(Vec::new());
    }
    let started = Instant::now();
    let mut checking = Duration::ZERO;
    let lock = store.lock();
    let mut cache = lock.lock();
    // Other processes on the same database change the clusters under the same lock.
    let _shared = store.hold()?;
    let view = library_store.view()?;
    let lookup = |doc: &str| view.document(doc).ok().flatten();
    // Before the first job finished there are no clusters to keep: the edges are kept for it.
    let mut set = store.current(&mut cache)?;
    let job_running = store.job_running()?;
    let mut changes = Vec::new();
    let mut alerts = Vec::new();
    for doc_id in doc_ids {
        // A replaced document is checked anew: what its old text matched no longer holds.
        if let Some(set) = set.as_mut() {
            changes.extend(set.remove_document(doc_id, &lookup));
        }
        let check_started = Instant::now();
        let checked = check_stored(
            &catalog.checker(),
            library,
            view.as_ref(),
            DocKey::of(doc_id),
        )?;
        checking += check_started.elapsed();
        let Some(checked) = checked else {
            continue;
        };
        let settings = &catalog.config().dedup;
        let edges: Vec<EdgeRecord> = checked
            .matches
            .iter()
            .filter_map(|m| EdgeRecord::of(doc_id, checked.title.as_deref(), m, settings))
            .collect();
        if edges.is_empty() {
            continue;
        }
        // A running job builds its clusters from its edges and these; otherwise the clusters
        // are kept current here, and the next job finds these edges again.
        if job_running {
            store.append(Log::Arrivals, &edges, Sync::Now)?;
        }
        let cluster = set.as_mut().and_then(|set| {
            let links = edges.iter().map(Link::of).collect();
            let (cluster, change) = set.add_links(doc_id, links, &lookup);
            changes.push(change);
            cluster
        });
        let alert = Alert {
            library: library.to_string(),
            doc_id: doc_id.clone(),
            time: unix_now(),
            cluster,
            matches: edges
                .iter()
                .map(|e| AlertMatch {
                    doc_id: e.b.clone(),
                    verdict: e.verdict,
                    similarity: e.similarity,
                })
                .collect(),
        };
        store.add_alert(&alert)?;
        // Written before the arrival is answered, so a crash cannot lose it; a failure leaves
        // the alert in the list and is logged.
        if let Err(e) = catalog
            .webhooks()
            .announce(&crate::webhooks::Event::duplicate_found(&alert))
        {
            tracing::error!(library, doc_id, error = %e, "duplicate.found not written to the outbox");
        }
        tracing::info!(
            library,
            doc_id,
            matches = alert.matches.len(),
            "duplicate arrived"
        );
        alerts.push(alert);
    }
    store.record(&mut cache, &changes)?;
    // What an arrival adds to its ingest, split into its checks and the rest (reading the
    // clusters, recording alerts and cluster changes durably).
    let took = started.elapsed();
    tracing::debug!(
        library,
        documents = doc_ids.len(),
        alerts = alerts.len(),
        check_ms = checking.as_secs_f64() * 1e3,
        rest_ms = took.saturating_sub(checking).as_secs_f64() * 1e3,
        "arrivals checked"
    );
    Ok(alerts)
}

/// Takes the deleted document `doc_id` out of `library`'s clusters.
pub fn removed(catalog: &Catalog, library: &str, doc_id: &str) -> Result<(), DedupError> {
    let library_store = catalog.store(library)?;
    let store = DedupStore::of(library_store.as_ref());
    if !store.active()? {
        return Ok(());
    }
    let lock = store.lock();
    let mut cache = lock.lock();
    let _shared = store.hold()?;
    let view = library_store.view()?;
    let lookup = |doc: &str| view.document(doc).ok().flatten();
    let Some(set) = store.current(&mut cache)? else {
        return Ok(());
    };
    let change = set.remove_document(doc_id, &lookup);
    store.record(&mut cache, change.as_slice())
}
