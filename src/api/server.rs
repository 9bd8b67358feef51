//! Running the server: bind, serve, and shut down gracefully on SIGINT/SIGTERM, letting requests
//! in flight finish.

use std::net::SocketAddr;
use std::sync::Arc;

use super::{AppState, Metrics, router};
use crate::library::Catalog;

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
}

/// Serves the API on `addr` until SIGINT or SIGTERM. `on_ready` is given the bound address
/// (useful with port 0).
pub async fn serve(
    catalog: Arc<Catalog>,
    addr: SocketAddr,
    on_ready: impl FnOnce(SocketAddr),
) -> Result<(), ServeError> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError::Bind { addr, source })?;
    let bound = listener.local_addr().map_err(ServeError::Serve)?;
    let state = AppState {
        catalog,
        metrics: Arc::new(Metrics::default()),
    };
    on_ready(bound);
    axum::serve(listener, router(state))
        .with_graceful_shutdown(shutdown_signal())
        .await
        .map_err(ServeError::Serve)
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
