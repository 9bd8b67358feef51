//! The HTTP API (axum): routes, handlers, request bodies, errors, metrics, the crawl queue and
//! the server.

mod auth;
mod body;
mod check;
mod crawl;
mod error;
mod handlers;
mod limits;
mod metrics;
mod routes;
mod server;
mod state;

pub use check::parse_check_request;
pub use error::ApiError;
pub use metrics::Metrics;
pub use routes::router;
pub use server::{ServeError, serve};
pub use state::AppState;
