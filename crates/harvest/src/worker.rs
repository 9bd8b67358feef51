//! One crawl of one library, stage by stage: discovery, pattern analysis, crawling, signing.
//!
//! The crawling machinery is a pump: it reserves pages from the [`Frontier`], hands each to a
//! fetch task (at most `fetchers` at once, paced per host by the [`Fetcher`]), parses fetched
//! pages on the blocking pool (at most `parsers` at once: extraction, link collection, text
//! analysis), and sends articles to one indexer thread that writes them in batches and then
//! marks them indexed. The pump ends when the frontier is empty and nothing is in flight, when a
//! stop condition holds (discovery has its articles), or when the crawl is cancelled; pages it
//! reserved but did not start go back to the frontier.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};

use parking_lot::Mutex;
use std::time::Duration;

use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;
use url::Url;

use super::error::CrawlError;
use super::fetch::{FetchKind, Fetched, Fetcher};
use super::frontier::{Frontier, Reserved};
use super::job::{CrawlMode, IdRange, Outcome, Stage};
use super::pattern::IdPattern;
use super::sources;
use super::store::{Failure, StoreError};
use dupfinder_common::clock::unix_now;
use dupfinder_common::error_code::ErrorCode;
use dupfinder_service::config::CrawlConfig;
use dupfinder_service::library::{
    Authors, Catalog, DocumentInput, IdValue, IngestPath, LibraryRecord, parse_lang, prepare,
};
use dupfinder_storage::index::{IndexError, PreparedDocument, RebuildControl, RebuildOutcome};
use dupfinder_text::extract::ExtractError;
use dupfinder_text::extract::read_page;

/// Everything one crawl needs.
pub(crate) struct CrawlContext {
    pub(crate) catalog: Arc<Catalog>,
    pub(crate) library: LibraryRecord,
    pub(crate) frontier: Arc<Frontier>,
    pub(crate) fetcher: Arc<Fetcher>,
    pub(crate) config: CrawlConfig,
    pub(crate) cancel: CancellationToken,
    /// The first error that must end the crawl (the index or the store failed).
    pub(crate) fatal: Mutex<Option<CrawlError>>,
}

impl CrawlContext {
    pub(crate) fn id(&self) -> &str {
        &self.library.id
    }

    fn set_fatal(&self, error: CrawlError) {
        tracing::error!(library = %self.library.id, %error, "crawl failed");
        let mut fatal = self.fatal.lock();
        if fatal.is_none() {
            *fatal = Some(error);
        }
    }

    fn take_fatal(&self) -> Option<CrawlError> {
        self.fatal.lock().take()
    }

    fn has_fatal(&self) -> bool {
        self.fatal.lock().is_some()
    }

    /// Runs a frontier operation on the blocking pool.
    pub(crate) async fn on_frontier<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Frontier) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, CrawlError> {
        let frontier = self.frontier.clone();
        tokio::task::spawn_blocking(move || f(&frontier))
            .await
            .map_err(|e| CrawlError::Worker {
                id: self.library.id.clone(),
                reason: e.to_string(),
            })?
            .map_err(CrawlError::Store)
    }

    /// Writes prepared documents on the blocking pool.
    pub(crate) async fn ingest(&self, documents: Vec<PreparedDocument>) -> Result<(), CrawlError> {
        if documents.is_empty() {
            return Ok(());
        }
        let catalog = self.catalog.clone();
        let id = self.library.id.clone();
        tokio::task::spawn_blocking(move || {
            let report = catalog.ingest_prepared(&id, documents, Vec::new())?;
            catalog.count_ingested(IngestPath::Crawl, report.accepted as u64);
            Ok::<_, dupfinder_service::library::LibraryError>(report)
        })
        .await
        .map_err(|e| CrawlError::Worker {
            id: self.library.id.clone(),
            reason: e.to_string(),
        })?
        .map(|_| ())
        .map_err(|source| CrawlError::Index {
            id: self.library.id.clone(),
            source,
        })
    }
}

/// Whether the library harvests sitemaps or OAI-PMH instead of walking links.
pub(crate) fn has_sources(library: &LibraryRecord) -> bool {
    library.sitemap_url.is_some() || library.use_sitemaps || library.oai_url.is_some()
}

/// Runs the crawl from the stage it is at until it is done, stopped or failed.
pub(crate) async fn run(ctx: &Arc<CrawlContext>) -> Result<Outcome, CrawlError> {
    begin(ctx).await?;
    loop {
        if ctx.cancel.is_cancelled() {
            return Ok(Outcome::Stopped);
        }
        let stage = ctx.frontier.job().stage;
        tracing::info!(library = %ctx.id(), stage = stage.as_str(), "crawl stage");
        let next = match stage {
            Stage::Discovering => {
                discover(ctx).await?;
                Stage::Analyzing
            }
            Stage::Analyzing => {
                analyze(ctx).await?;
                Stage::Crawling
            }
            Stage::Crawling => {
                crawl(ctx).await?;
                Stage::Signing
            }
            Stage::Signing => {
                sign(ctx).await?;
                // `Frontier::finish` records the stage `done` in the same transaction that
                // takes the library out of the queue, so `done` is never seen in the queue.
                return Ok(Outcome::Done);
            }
            Stage::Done => return Ok(Outcome::Done),
        };
        if ctx.cancel.is_cancelled() {
            return Ok(Outcome::Stopped);
        }
        ctx.on_frontier(move |f| f.update_job(true, |job| job.stage = next))
            .await?;
    }
}

/// Starts a new run of a finished library (a re-crawl) or resumes an unfinished one, and puts
/// pages left half-way back into the frontier.
async fn begin(ctx: &Arc<CrawlContext>) -> Result<(), CrawlError> {
    let start_url = ctx.library.start_url.clone();
    let finished = ctx.frontier.job().stage == Stage::Done;
    let job = ctx
        .on_frontier(move |f| {
            f.update_job(true, |job| {
                job.outcome = None;
                job.finished_at = None;
                if !finished {
                    job.started_at = job.started_at.or(Some(unix_now()));
                    return;
                }
                job.run += 1;
                job.counters = Default::default();
                job.started_at = Some(unix_now());
                job.oai.finished = false;
                job.oai.token = None;
                job.oai.started = None;
                job.oai.from = job.oai.next_from.clone();
                job.stage = match job.mode.as_mut() {
                    Some(CrawlMode::Enumerate(range)) => {
                        range.restart_probe();
                        Stage::Crawling
                    }
                    Some(CrawlMode::Recursive) => Stage::Crawling,
                    Some(CrawlMode::Sources) | None => Stage::Discovering,
                };
            })
        })
        .await?;
    let recovered = ctx.on_frontier(|f| f.recover()).await?;
    tracing::info!(library = %ctx.id(), run = job.run, recovered, "crawl run");
    if finished
        && job.mode == Some(CrawlMode::Recursive)
        && let Some(start) = start_url.as_deref().and_then(|u| Url::parse(u).ok())
    {
        // Walk through the known pages again from the start page to reach new articles.
        ctx.on_frontier(move |f| f.seed(&start, 0)).await?;
    }
    Ok(())
}

/// Link discovery: walk the site from the start page until enough article URLs are known. A
/// library with sitemaps or OAI-PMH harvests them instead.
async fn discover(ctx: &Arc<CrawlContext>) -> Result<(), CrawlError> {
    if has_sources(&ctx.library) {
        ctx.on_frontier(|f| f.update_job(true, |job| job.mode = Some(CrawlMode::Sources)))
            .await?;
        return sources::harvest(ctx).await;
    }
    let Some(start) = ctx
        .library
        .start_url
        .as_deref()
        .and_then(|u| Url::parse(u).ok())
    else {
        return Err(CrawlError::NotCrawlable {
            id: ctx.id().to_string(),
        });
    };
    ctx.on_frontier(move |f| f.seed(&start, 0)).await?;
    let target = ctx.config.discovery_articles as u64;
    let budget = ctx.config.discovery_max_pages as u64;
    let counted = |f: &Frontier| {
        let c = f.job().counters;
        c.pages_fetched + c.pages_failed
    };
    let before = counted(&ctx.frontier);
    pump(
        ctx,
        Pump {
            follow_links: true,
            enumerate: false,
            stop: Box::new(move |f| {
                f.articles_known() >= target || counted(f).saturating_sub(before) >= budget
            }),
        },
    )
    .await
}

/// Pattern analysis: a numeric id shared by the article URLs switches the crawl to id
/// enumeration; otherwise it crawls recursively.
async fn analyze(ctx: &Arc<CrawlContext>) -> Result<(), CrawlError> {
    if ctx.frontier.job().mode == Some(CrawlMode::Sources) {
        return Ok(());
    }
    let urls = ctx.on_frontier(|f| f.article_urls()).await?;
    let range = IdPattern::infer(urls.iter().map(String::as_str)).and_then(|pattern| {
        let ids: Vec<u64> = urls.iter().filter_map(|u| pattern.id_of(u)).collect();
        IdRange::new(pattern, &ids)
    });
    match range {
        Some(range) => {
            tracing::info!(
                library = %ctx.id(),
                prefix = %range.pattern.prefix,
                suffix = %range.pattern.suffix,
                low = range.seen_low,
                high = range.seen_high,
                "article URLs carry a numeric id: enumerating"
            );
            ctx.on_frontier(move |f| f.start_enumeration(CrawlMode::Enumerate(range)))
                .await
        }
        None => {
            tracing::info!(library = %ctx.id(), articles = urls.len(), "no numeric id: crawling recursively");
            ctx.on_frontier(|f| f.update_job(true, |job| job.mode = Some(CrawlMode::Recursive)))
                .await
                .map(|_| ())
        }
    }
}

/// The crawl proper, in the mode analysis chose.
async fn crawl(ctx: &Arc<CrawlContext>) -> Result<(), CrawlError> {
    let mode = ctx.frontier.job().mode;
    let (follow_links, enumerate) = match mode {
        Some(CrawlMode::Enumerate(_)) => (false, true),
        Some(CrawlMode::Sources) => (false, false),
        Some(CrawlMode::Recursive) | None => (true, false),
    };
    pump(
        ctx,
        Pump {
            follow_links,
            enumerate,
            stop: Box::new(|_| false),
        },
    )
    .await
}

/// Refreshes the library's statistics snapshot and re-signs its documents. On a database
/// another process is re-indexing, that re-index does it (the crawl's documents were written
/// before it switches), and the crawl leaves it alone.
async fn sign(ctx: &Arc<CrawlContext>) -> Result<(), CrawlError> {
    let store = ctx.catalog.store(ctx.id())?;
    let id = ctx.id().to_string();
    let signed = tokio::task::spawn_blocking(move || {
        if store.summary()?.documents == 0 {
            return Ok(None);
        }
        let Some(mut claim) = store.claim_reindex()? else {
            return Ok(None);
        };
        claim
            .reindex(&RebuildControl::default(), &mut |_| {})
            .map(Some)
    })
    .await
    .map_err(|e| CrawlError::Worker {
        id: id.clone(),
        reason: e.to_string(),
    })?
    .map_err(|e: IndexError| CrawlError::Index {
        id,
        source: e.into(),
    })?;
    if let Some(RebuildOutcome::Finished { generation }) = signed {
        tracing::info!(library = %ctx.id(), generation, "statistics and signatures refreshed");
    }
    Ok(())
}

struct Pump {
    follow_links: bool,
    enumerate: bool,
    stop: Box<dyn Fn(&Frontier) -> bool + Send + Sync>,
}

/// Pages in flight: from the moment they leave the frontier until they are finished.
#[derive(Default)]
struct Tracker {
    in_flight: AtomicUsize,
    changed: Notify,
}

impl Tracker {
    fn start(&self) {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
    }

    fn finish(&self, n: usize) {
        self.in_flight.fetch_sub(n, Ordering::SeqCst);
        self.changed.notify_waiters();
    }

    fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::SeqCst)
    }

    async fn changed(&self, at_most: Duration) {
        let _ = tokio::time::timeout(at_most, self.changed.notified()).await;
    }

    async fn idle(&self) {
        while self.in_flight() > 0 {
            self.changed(Duration::from_millis(20)).await;
        }
    }
}

/// An article on its way to the index.
struct IndexItem {
    url: String,
    document: PreparedDocument,
}

async fn pump(ctx: &Arc<CrawlContext>, options: Pump) -> Result<(), CrawlError> {
    let tracker = Arc::new(Tracker::default());
    let (index_tx, index_rx) = std::sync::mpsc::channel::<IndexItem>();
    let indexer = {
        let ctx = ctx.clone();
        let tracker = tracker.clone();
        tokio::task::spawn_blocking(move || index_loop(&ctx, index_rx, &tracker))
    };
    let fetch_slots = Arc::new(Semaphore::new(ctx.config.fetchers.max(1)));
    let parse_slots = Arc::new(Semaphore::new(ctx.config.parsers.max(1)));
    let batch = ctx.config.fetchers.max(1) * 4;
    let misses = ctx.config.id_probe_misses;
    let mut buffer: VecDeque<Reserved> = VecDeque::new();
    let mut result = Ok(());
    loop {
        if ctx.cancel.is_cancelled() || ctx.has_fatal() || (options.stop)(&ctx.frontier) {
            break;
        }
        if buffer.is_empty() {
            match ctx.on_frontier(move |f| f.reserve(batch)).await {
                Ok(pages) => buffer.extend(pages),
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
            if buffer.is_empty() && options.enumerate {
                let reserved = ctx
                    .on_frontier(move |f| {
                        f.generate(batch, misses)?;
                        f.reserve(batch)
                    })
                    .await;
                match reserved {
                    Ok(pages) => buffer.extend(pages),
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                }
            }
            if buffer.is_empty() {
                if tracker.in_flight() == 0 {
                    break;
                }
                tracker.changed(Duration::from_millis(50)).await;
                continue;
            }
        }
        let permit = tokio::select! {
            permit = fetch_slots.clone().acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
            _ = ctx.cancel.cancelled() => break,
        };
        let Some(page) = buffer.pop_front() else {
            continue;
        };
        tracker.start();
        let span = tracing::debug_span!("page", url = %page.url);
        tokio::spawn(
            process_page(
                ctx.clone(),
                page,
                permit,
                parse_slots.clone(),
                index_tx.clone(),
                tracker.clone(),
                options.follow_links,
            )
            .instrument(span),
        );
    }
    let leftover: Vec<Reserved> = buffer.into_iter().collect();
    if let Err(e) = ctx.on_frontier(move |f| f.release(leftover)).await {
        result = result.and(Err(e));
    }
    tracker.idle().await;
    drop(index_tx);
    match indexer.await {
        Ok(()) => {}
        Err(e) => ctx.set_fatal(CrawlError::Worker {
            id: ctx.id().to_string(),
            reason: e.to_string(),
        }),
    }
    if let Some(fatal) = ctx.take_fatal() {
        return Err(fatal);
    }
    result
}

fn failure_of(error: &super::fetch::FetchError) -> Failure {
    Failure {
        code: error.code().to_string(),
        message: error.to_string(),
        transient: error.is_transient(),
    }
}

async fn process_page(
    ctx: Arc<CrawlContext>,
    page: Reserved,
    fetch_permit: OwnedSemaphorePermit,
    parse_slots: Arc<Semaphore>,
    index_tx: Sender<IndexItem>,
    tracker: Arc<Tracker>,
    follow_links: bool,
) {
    let fetched = match Url::parse(&page.url) {
        Ok(url) => {
            tokio::select! {
                result = ctx.fetcher.fetch(&url, FetchKind::Page) => result.map_err(|e| failure_of(&e)),
                _ = ctx.cancel.cancelled() => {
                    // The page stays reserved; the next run puts it back into the frontier.
                    tracker.finish(1);
                    return;
                }
            }
        }
        Err(e) => Err(Failure {
            code: ErrorCode::InvalidUrl.to_string(),
            message: format!("{}: {e}", page.url),
            transient: false,
        }),
    };
    drop(fetch_permit);
    let fetched = match fetched {
        Ok(fetched) => fetched,
        Err(failure) => {
            tracing::debug!(url = %page.url, reason = %failure.message, "page failed");
            let url = page.url.clone();
            if let Err(e) = ctx.on_frontier(move |f| f.failed(&url, failure)).await {
                ctx.set_fatal(e);
            }
            tracker.finish(1);
            return;
        }
    };
    let Ok(parse_permit) = parse_slots.acquire_owned().await else {
        tracker.finish(1);
        return;
    };
    let worker_ctx = ctx.clone();
    let url = page.url.clone();
    let parsed = tokio::task::spawn_blocking(move || {
        let _permit = parse_permit;
        parse_and_record(&worker_ctx, page, fetched, follow_links)
    })
    .await;
    let article = match parsed {
        Ok(Ok(Some(article))) => article,
        Ok(Ok(None)) => {
            tracker.finish(1);
            return;
        }
        Ok(Err(e)) => {
            ctx.set_fatal(CrawlError::Store(e));
            tracker.finish(1);
            return;
        }
        Err(e) if e.is_panic() => {
            // A page that breaks the parser fails alone; the crawl goes on.
            tracing::error!(url = %url, "extraction panicked");
            let failure = Failure {
                code: ErrorCode::ExtractFailed.to_string(),
                message: format!("{url}: the page could not be parsed"),
                transient: false,
            };
            if let Err(e) = ctx.on_frontier(move |f| f.failed(&url, failure)).await {
                ctx.set_fatal(e);
            }
            tracker.finish(1);
            return;
        }
        Err(e) => {
            ctx.set_fatal(CrawlError::Worker {
                id: ctx.id().to_string(),
                reason: e.to_string(),
            });
            tracker.finish(1);
            return;
        }
    };
    let full_text = match &article.full_text {
        Some(url) if ctx.config.full_texts => match read_full_text(&ctx, url).await {
            Some(outcome) => Some(outcome),
            None => {
                // Cancelled: the page stays reserved, and the next run reads it again.
                tracker.finish(1);
                return;
            }
        },
        _ => None,
    };
    let worker_ctx = ctx.clone();
    let sent = tokio::task::spawn_blocking(move || {
        index_article(&worker_ctx, *article, full_text, &index_tx)
    })
    .await;
    match sent {
        Ok(Ok(true)) => {} // the indexer finishes the page
        Ok(Ok(false)) => tracker.finish(1),
        Ok(Err(e)) => {
            ctx.set_fatal(CrawlError::Store(e));
            tracker.finish(1);
        }
        Err(e) => {
            ctx.set_fatal(CrawlError::Worker {
                id: ctx.id().to_string(),
                reason: e.to_string(),
            });
            tracker.finish(1);
        }
    }
}

/// An article page, read and waiting for its full text (if it links one) to be indexed.
struct Article {
    /// The URL the page was reserved under.
    page_url: String,
    final_url: Url,
    input: DocumentInput,
    /// The article's full text: `citation_pdf_url`, or a link to a PDF, DOCX or ODT file.
    full_text: Option<Url>,
}

/// Fetches an article's full text within the site's politeness and the full-text size
/// limit, and extracts its text through the process's extraction places and bounds. `None`
/// when the crawl was cancelled (or the server stopped) meanwhile.
async fn read_full_text(ctx: &CrawlContext, url: &Url) -> Option<Result<String, Failure>> {
    let fetched = tokio::select! {
        fetched = ctx.fetcher.fetch(url, FetchKind::FullText) => fetched,
        _ = ctx.cancel.cancelled() => return None,
    };
    let fetched = match fetched {
        Ok(fetched) => fetched,
        Err(e) => return Some(Err(failure_of(&e))),
    };
    // A crawl cancelled meanwhile drops the extraction, which stops at its next step.
    let extracted = tokio::select! {
        extracted = ctx.catalog.extractions().extract(fetched.body) => extracted,
        _ = ctx.cancel.cancelled() => return None,
    };
    let outcome = match extracted {
        Ok(document) => Ok(document.text),
        Err(ExtractError::Cancelled) => return None,
        Err(e) => Err(Failure {
            code: e.code().to_string(),
            message: format!("{url}: {e}"),
            transient: matches!(e, ExtractError::Busy),
        }),
    };
    Some(outcome)
}

/// Sends an article to the indexer: with its full text when it was read, else with the
/// landing page's own text (the abstract), counting the full text's fate. Returns whether it
/// was sent.
fn index_article(
    ctx: &CrawlContext,
    mut article: Article,
    full_text: Option<Result<String, Failure>>,
    index_tx: &Sender<IndexItem>,
) -> Result<bool, StoreError> {
    let frontier = &ctx.frontier;
    match full_text {
        Some(Ok(text)) => {
            article.input.text = Some(text);
            frontier.full_text_read(true)?;
        }
        Some(Err(failure)) => {
            tracing::debug!(url = %article.final_url, reason = %failure.message, "full text failed");
            frontier.full_text_read(false)?;
        }
        None => {}
    }
    let final_url = article.final_url;
    match prepare(
        ctx.catalog.analyzer(),
        ctx.catalog.config().limits.text(),
        article.input,
    ) {
        Ok(document) => Ok(index_tx
            .send(IndexItem {
                url: article.page_url,
                document,
            })
            .is_ok()),
        Err(e) => {
            frontier.failed(
                &article.page_url,
                Failure {
                    code: e.code().to_string(),
                    message: format!("{final_url}: {e}"),
                    transient: false,
                },
            )?;
            Ok(false)
        }
    }
}

/// Extracts a fetched page and records its links. Returns the article, when the page is one.
fn parse_and_record(
    ctx: &CrawlContext,
    page: Reserved,
    fetched: Fetched,
    follow_links: bool,
) -> Result<Option<Box<Article>>, StoreError> {
    let frontier = &ctx.frontier;
    frontier.fetched(&page.url)?;
    let text = fetched.text();
    let extracted = match read_page(&text, &fetched.url) {
        Ok(extracted) => extracted,
        Err(e) => {
            frontier.failed(
                &page.url,
                Failure {
                    code: e.code().to_string(),
                    message: format!("{}: {e}", page.url),
                    transient: false,
                },
            )?;
            return Ok(None);
        }
    };
    let final_url = fetched.url;
    let article = frontier.is_article(&final_url);
    let links = if follow_links {
        extracted.links.as_slice()
    } else {
        &[]
    };
    frontier.collected(&page.url, links, article)?;
    if !article {
        if page.record.article {
            frontier.failed(
                &page.url,
                Failure {
                    code: ErrorCode::NotArticle.to_string(),
                    message: format!("{} led to {final_url}, not an article page", page.url),
                    transient: false,
                },
            )?;
        }
        return Ok(None);
    }
    let lang = extracted
        .lang
        .filter(|code| parse_lang(Some(code)).ok().flatten().is_some());
    let full_text = extracted
        .pdf_url
        .as_deref()
        .and_then(|url| Url::parse(url).ok());
    let input = DocumentInput {
        id: Some(IdValue::Text(final_url.to_string())),
        url: Some(final_url.to_string()),
        title: extracted.title,
        authors: (!extracted.authors.is_empty()).then_some(Authors::Many(extracted.authors)),
        text: Some(extracted.text),
        lang,
        year: extracted.year.map(IdValue::Number),
        pdf_url: extracted.pdf_url,
        doi: extracted.doi,
    };
    Ok(Some(Box::new(Article {
        page_url: page.url,
        final_url,
        input,
        full_text,
    })))
}

/// The indexer: writes articles in batches (a batch is flushed when full or when no article
/// arrived for a moment), then marks them indexed.
fn index_loop(ctx: &CrawlContext, rx: Receiver<IndexItem>, tracker: &Tracker) {
    let batch_size = ctx.config.index_batch.max(1);
    let mut batch: Vec<IndexItem> = Vec::with_capacity(batch_size);
    loop {
        let message = rx.recv_timeout(Duration::from_millis(100));
        let disconnected = matches!(message, Err(RecvTimeoutError::Disconnected));
        let idle = message.is_err();
        if let Ok(item) = message {
            batch.push(item);
        }
        if !batch.is_empty() && (batch.len() >= batch_size || idle) {
            flush(ctx, &mut batch, tracker);
        }
        if disconnected {
            return;
        }
    }
}

fn flush(ctx: &CrawlContext, batch: &mut Vec<IndexItem>, tracker: &Tracker) {
    let n = batch.len();
    let (urls, documents): (Vec<String>, Vec<PreparedDocument>) = batch
        .drain(..)
        .map(|item| (item.url, item.document))
        .unzip();
    match ctx.catalog.ingest_prepared(ctx.id(), documents, Vec::new()) {
        Ok(report) => {
            ctx.catalog
                .count_ingested(IngestPath::Crawl, report.accepted as u64);
            if let Err(e) = ctx.frontier.indexed(&urls) {
                ctx.set_fatal(CrawlError::Store(e));
            }
        }
        Err(source) => {
            for url in &urls {
                let _ = ctx.frontier.failed(
                    url,
                    Failure {
                        code: ErrorCode::IndexFailed.to_string(),
                        message: source.to_string(),
                        transient: true,
                    },
                );
            }
            ctx.set_fatal(CrawlError::Index {
                id: ctx.id().to_string(),
                source,
            });
        }
    }
    tracker.finish(n);
}
