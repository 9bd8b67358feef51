//! Running the server: bind, serve, and shut down gracefully on SIGINT/SIGTERM, letting requests
//! in flight finish.
//!
//! Connections are served by hyper's HTTP/1 connection builder with a timer, so that a client
//! taking longer than `[server] header_read_timeout_ms` to send its headers is disconnected, and
//! at most `[limits] max_connections` of them are held open at once.

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::{AppState, router};
use tokio_util::sync::CancellationToken;

use dupfinder_harvest::CrawlService;
use dupfinder_service::library::{Catalog, Jobs};

/// Why the server could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("server error: {0}")]
    Serve(#[source] std::io::Error),
    #[error("cannot open the crawl queue: {0}")]
    Crawl(#[source] dupfinder_harvest::CrawlError),
}

/// Serves the API on `addr` until SIGINT or SIGTERM. `on_ready` is given the bound address
/// (useful with port 0).
/// Deletes the reports older than `[reports] keep_days`, at start and every hour.
async fn drop_old_reports(catalog: Arc<Catalog>) {
    let keep_days = catalog.config().reports.keep_days;
    if keep_days == 0 {
        return;
    }
    let mut every_hour = tokio::time::interval(std::time::Duration::from_secs(3600));
    loop {
        every_hour.tick().await;
        let catalog = catalog.clone();
        let cutoff = dupfinder_common::clock::unix_now().saturating_sub(keep_days * 86_400);
        match tokio::task::spawn_blocking(move || catalog.reports().delete_older_than(cutoff)).await
        {
            Ok(Ok(0)) => {}
            Ok(Ok(n)) => tracing::info!(reports = n, keep_days, "deleted reports past retention"),
            Ok(Err(e)) => tracing::error!(error = %e, "could not delete old reports"),
            Err(e) => tracing::error!(error = %e, "could not delete old reports"),
        }
    }
}

pub async fn serve(
    catalog: Arc<Catalog>,
    addr: SocketAddr,
    on_ready: impl FnOnce(SocketAddr),
) -> Result<(), ServeError> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError::Bind { addr, source })?;
    let bound = listener.local_addr().map_err(ServeError::Serve)?;
    let listener = CappedListener::new(listener, catalog.config().limits.max_connections);
    let header_read_timeout =
        std::time::Duration::from_millis(catalog.config().server.header_read_timeout_ms.max(1));
    let crawl = CrawlService::open(catalog.clone()).map_err(ServeError::Crawl)?;
    let jobs = Jobs::new(catalog.clone());
    // A re-index a crash interrupted goes on from its last commit.
    jobs.resume_unfinished();
    let drift = tokio::spawn(jobs.clone().watch_drift());
    // On a database other processes serve too, a re-index one of them left unfinished is taken
    // over. (A data directory has one process, whose unfinished re-indexes resumed above.)
    let sweep = catalog
        .storage()
        .shared_by_processes()
        .then(|| tokio::spawn(jobs.clone().watch_unfinished()));
    let retention = tokio::spawn(drop_old_reports(catalog.clone()));
    // Events a crash or a stop left in the outbox go out first.
    let deliveries = tokio::spawn(dupfinder_service::webhooks::deliver_forever(
        catalog.clone(),
    ));
    let extractions = catalog.clone();
    let state = AppState::new(catalog, crawl.clone(), jobs.clone());
    // Queued libraries are crawled in the background; a crawl interrupted by the shutdown stays
    // queued and resumes on the next start.
    let stop_crawling = CancellationToken::new();
    let crawler = tokio::spawn(crawl.clone().run_queue(stop_crawling.clone()));
    let schedules = tokio::spawn(crawl.queue_due_forever(stop_crawling.clone()));
    on_ready(bound);
    serve_connections(listener, router(state), header_read_timeout, async move {
        shutdown_signal().await;
        // Files being read stop at their next step: requests in flight are answered at
        // once, and no parser runs on after the process should have exited.
        extractions.extractions().stop();
    })
    .await;
    stop_crawling.cancel();
    drift.abort();
    if let Some(sweep) = sweep {
        sweep.abort();
    }
    retention.abort();
    deliveries.abort();
    schedules.abort();
    if crawler.await.is_err() {
        tracing::error!("the crawl queue stopped with a panic");
    }
    // A re-index in progress commits what it signed; the next start resumes it.
    tokio::task::spawn_blocking(move || jobs.stop_all())
        .await
        .ok();
    Ok(())
}

/// Accepts connections and serves each on a task of its own until `shutdown` completes, then
/// waits for the requests in flight to be answered (connections idle or between requests are
/// closed at once).
async fn serve_connections(
    mut listener: CappedListener,
    app: axum::Router,
    header_read_timeout: std::time::Duration,
    shutdown: impl std::future::Future<Output = ()>,
) {
    use axum::serve::Listener;
    use hyper_util::rt::{TokioIo, TokioTimer};

    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout);
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
        };
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        // No route upgrades a connection (no WebSocket), so plain HTTP/1 connections serve.
        let connection = graceful.watch(http.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            // A client that went away, or sent its headers too slowly, ends its connection.
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "connection ended with an error");
            }
        });
    }
    drop(listener);
    graceful.shutdown().await;
}

/// A listener that holds at most `max` connections open: past that it accepts no more until
/// one closes, so the waiting ones stay in the kernel's backlog and take no file descriptor of
/// the process. Running out of descriptors would fail writes too.
struct CappedListener {
    inner: tokio::net::TcpListener,
    places: Arc<Semaphore>,
}

impl CappedListener {
    fn new(inner: tokio::net::TcpListener, max: usize) -> Self {
        CappedListener {
            inner,
            places: Arc::new(Semaphore::new(max.max(1))),
        }
    }
}

impl axum::serve::Listener for CappedListener {
    type Io = CappedStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        let place = self
            .places
            .clone()
            .acquire_owned()
            .await
            .expect("the connection places are never closed");
        let (stream, addr) = axum::serve::Listener::accept(&mut self.inner).await;
        (
            CappedStream {
                stream,
                _place: place,
            },
            addr,
        )
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}

/// A connection holding its place until it is dropped.
struct CappedStream {
    stream: tokio::net::TcpStream,
    _place: OwnedSemaphorePermit,
}

impl AsyncRead for CappedStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for CappedStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut terminate =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                .expect("installing a SIGTERM handler");
        tokio::select! {
            _ = interrupt => {},
            _ = terminate.recv() => {},
        }
    }
    #[cfg(not(unix))]
    let _ = interrupt.await;
    tracing::info!("shutting down: finishing requests in flight");
}
