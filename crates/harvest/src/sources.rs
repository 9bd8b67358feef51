//! Discovery from the sources a library declares: sitemaps (declared, or found in robots.txt,
//! or at `/sitemap.xml`) put their article URLs into the frontier; OAI-PMH records are indexed
//! directly from their Dublin Core metadata, and a record too short to index sends its landing
//! page to the frontier instead. Both are resumable: known URLs are not queued twice, and the
//! OAI-PMH resumption token is saved after every page.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

use url::Url;

use super::error::CrawlError;
use super::fetch::FetchKind;
use super::frontier::record_failure;
use super::oai::{
    OaiRecord, at_granularity, identify_url, list_records_url, parse_granularity,
    parse_list_records,
};
use super::pattern::normalize;
use super::sitemap::{Sitemap, parse_sitemap};
use super::worker::CrawlContext;
use dupfinder_common::error_code::ErrorCode;
use dupfinder_service::library::{
    Authors, DocumentInput, IdValue, normalize_doi, parse_lang, prepare,
};
use dupfinder_storage::index::PreparedDocument;

/// At most this many sitemap files are read per crawl (a sitemap index may list 50,000).
const MAX_SITEMAPS: usize = 1_000;

/// Harvests every source the library declares.
pub(crate) async fn harvest(ctx: &Arc<CrawlContext>) -> Result<(), CrawlError> {
    if let Some(base) = ctx.library.oai_url.clone() {
        harvest_oai(ctx, &base).await?;
    }
    let sitemaps = sitemap_locations(ctx).await;
    if !sitemaps.is_empty() {
        harvest_sitemaps(ctx, sitemaps).await?;
    }
    Ok(())
}

async fn count_failure(ctx: &Arc<CrawlContext>, code: ErrorCode) -> Result<(), CrawlError> {
    ctx.on_frontier(move |f| f.update_job(false, |job| record_failure(job, code.as_str())))
        .await
        .map(|_| ())
}

/// The declared sitemap, or (with `use_sitemaps`) those robots.txt names, else `/sitemap.xml`.
async fn sitemap_locations(ctx: &Arc<CrawlContext>) -> Vec<Url> {
    let library = &ctx.library;
    let mut locations: Vec<Url> = library
        .sitemap_url
        .as_deref()
        .and_then(|u| Url::parse(u).ok())
        .into_iter()
        .collect();
    if library.use_sitemaps
        && let Some(start) = library
            .start_url
            .as_deref()
            .and_then(|u| Url::parse(u).ok())
    {
        if let Ok(robots) = ctx.fetcher.robots(&start).await {
            locations.extend(
                robots
                    .sitemaps
                    .iter()
                    .filter_map(|s| start.join(s).ok())
                    .filter(|s| ctx.frontier.site().contains(s)),
            );
        }
        if locations.is_empty()
            && let Ok(fallback) = start.join("/sitemap.xml")
        {
            locations.push(fallback);
        }
    }
    locations
}

async fn harvest_sitemaps(ctx: &Arc<CrawlContext>, start: Vec<Url>) -> Result<(), CrawlError> {
    let mut pending: VecDeque<Url> = start.into_iter().collect();
    let mut seen: HashSet<String> = pending.iter().map(|u| u.to_string()).collect();
    let mut read = 0;
    while let Some(location) = pending.pop_front() {
        if ctx.cancel.is_cancelled() || read >= MAX_SITEMAPS {
            break;
        }
        read += 1;
        let fetched = tokio::select! {
            fetched = ctx.fetcher.fetch(&location, FetchKind::Data) => fetched,
            _ = ctx.cancel.cancelled() => break,
        };
        let fetched = match fetched {
            Ok(fetched) => fetched,
            Err(e) => {
                tracing::warn!(library = %ctx.id(), error = %e, "sitemap not read");
                count_failure(ctx, ErrorCode::SitemapUnavailable).await?;
                continue;
            }
        };
        match parse_sitemap(location.as_str(), &fetched.body) {
            Ok(Sitemap::Index(children)) => {
                for child in children {
                    if let Some(url) = location.join(&child).ok().and_then(normalize)
                        && ctx.frontier.site().contains(&url)
                        && seen.insert(url.to_string())
                    {
                        pending.push_back(url);
                    }
                }
            }
            Ok(Sitemap::Pages(entries)) => {
                let urls: Vec<Url> = entries
                    .iter()
                    .filter_map(|e| location.join(&e.loc).ok().and_then(normalize))
                    .collect();
                let queued = ctx.on_frontier(move |f| f.add_articles(&urls)).await?;
                tracing::info!(library = %ctx.id(), sitemap = %location, queued, "sitemap read");
            }
            Err(e) => {
                tracing::warn!(library = %ctx.id(), error = %e, "sitemap not parsed");
                count_failure(ctx, e.code()).await?;
            }
        }
    }
    Ok(())
}

/// The repository's datestamp granularity; day granularity when `Identify` fails.
async fn granularity(ctx: &Arc<CrawlContext>, base: &str) -> String {
    let Ok(url) = identify_url(base) else {
        return "YYYY-MM-DD".to_string();
    };
    match ctx.fetcher.fetch(&url, FetchKind::Data).await {
        Ok(fetched) => parse_granularity(&url, &fetched.text()).unwrap_or_else(|e| {
            tracing::warn!(library = %ctx.id(), error = %e, "OAI-PMH Identify not understood");
            "YYYY-MM-DD".to_string()
        }),
        Err(e) => {
            tracing::warn!(library = %ctx.id(), error = %e, "OAI-PMH Identify failed");
            "YYYY-MM-DD".to_string()
        }
    }
}

async fn harvest_oai(ctx: &Arc<CrawlContext>, base: &str) -> Result<(), CrawlError> {
    if ctx.frontier.job().oai.finished {
        return Ok(());
    }
    let granularity = granularity(ctx, base).await;
    let set = ctx.library.oai_set.clone();
    let mut restarted = false;
    loop {
        if ctx.cancel.is_cancelled() {
            return Ok(());
        }
        let oai = ctx.frontier.job().oai;
        let url = match list_records_url(
            base,
            oai.token.as_deref(),
            oai.from.as_deref(),
            set.as_deref(),
        ) {
            Ok(url) => url,
            Err(e) => {
                tracing::warn!(library = %ctx.id(), error = %e, "OAI-PMH harvest skipped");
                return count_failure(ctx, e.code()).await;
            }
        };
        let fetched = tokio::select! {
            fetched = ctx.fetcher.fetch(&url, FetchKind::Data) => fetched,
            _ = ctx.cancel.cancelled() => return Ok(()),
        };
        let fetched = match fetched {
            Ok(fetched) => fetched,
            Err(e) => {
                tracing::warn!(library = %ctx.id(), error = %e, "OAI-PMH request failed");
                return count_failure(ctx, ErrorCode::OaiUnavailable).await;
            }
        };
        let page = match parse_list_records(&url, &fetched.text()) {
            Ok(page) => page,
            Err(e) if e.is_bad_token() && oai.token.is_some() && !restarted => {
                // A token from an earlier process may have expired: start the list again.
                tracing::warn!(library = %ctx.id(), error = %e, "resumption token refused; restarting the harvest");
                restarted = true;
                ctx.on_frontier(|f| {
                    f.update_job(true, |job| {
                        job.oai.token = None;
                        job.oai.started = None;
                    })
                })
                .await?;
                continue;
            }
            Err(e) => {
                tracing::warn!(library = %ctx.id(), error = %e, "OAI-PMH answer not understood");
                return count_failure(ctx, e.code()).await;
            }
        };
        let records = page.records.len() as u64;
        let worker_ctx = ctx.clone();
        let (documents, landing_pages, failures) =
            tokio::task::spawn_blocking(move || prepare_records(&worker_ctx, page.records))
                .await
                .map_err(|e| CrawlError::Worker {
                    id: ctx.id().to_string(),
                    reason: e.to_string(),
                })?;
        let indexed = documents.len() as u64;
        ctx.ingest(documents).await?;
        if !landing_pages.is_empty() {
            ctx.on_frontier(move |f| f.add_articles(&landing_pages))
                .await?;
        }
        let token = page.resumption_token;
        let started = page
            .response_date
            .as_deref()
            .map(|d| at_granularity(d, &granularity));
        let done = token.is_none();
        ctx.on_frontier(move |f| {
            f.update_job(true, |job| {
                job.counters.pages_found += records;
                job.counters.pages_parsed += records;
                job.counters.pages_indexed += indexed;
                for code in &failures {
                    record_failure(job, code.as_str());
                }
                if job.oai.started.is_none() {
                    job.oai.started = started;
                }
                job.oai.token = token;
                if done {
                    job.oai.finished = true;
                    job.oai.next_from = job.oai.started.clone().or(job.oai.next_from.take());
                }
            })
        })
        .await?;
        tracing::info!(library = %ctx.id(), records, indexed, "OAI-PMH page harvested");
        if done {
            return Ok(());
        }
    }
}

/// Documents from records; landing pages of records too short to index; failure codes.
fn prepare_records(
    ctx: &CrawlContext,
    records: Vec<OaiRecord>,
) -> (Vec<PreparedDocument>, Vec<Url>, Vec<ErrorCode>) {
    let mut documents = Vec::new();
    let mut landing_pages = Vec::new();
    let mut failures = Vec::new();
    for record in records {
        if record.deleted {
            continue;
        }
        let landing = record.landing_page().and_then(normalize);
        let id = landing
            .as_ref()
            .map(|u| u.to_string())
            .unwrap_or_else(|| record.identifier.clone());
        let lang = record
            .language
            .clone()
            .filter(|code| parse_lang(Some(code)).ok().flatten().is_some());
        let year = record
            .date
            .as_deref()
            .and_then(|d| d.get(..4))
            .and_then(|y| y.parse::<u64>().ok());
        let input = DocumentInput {
            id: Some(IdValue::Text(id)),
            url: landing.as_ref().map(|u| u.to_string()),
            title: record.title.clone(),
            authors: (!record.creators.is_empty()).then(|| Authors::Many(record.creators.clone())),
            text: Some(record.descriptions.join("\n\n")),
            lang,
            year: year.map(IdValue::Number),
            pdf_url: None,
            doi: record.identifiers.iter().find_map(|i| normalize_doi(i)),
        };
        match prepare(
            ctx.catalog.analyzer(),
            ctx.catalog.config().limits.text(),
            input,
        ) {
            Ok(document) => documents.push(document),
            Err(e) => match landing {
                // The metadata is too thin: the landing page may carry the article.
                Some(url) if ctx.frontier.is_article(&url) => landing_pages.push(url),
                _ => failures.push(e.code()),
            },
        }
    }
    (documents, landing_pages, failures)
}
