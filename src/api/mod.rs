//! The HTTP API (axum): routes, handlers, request bodies, errors, metrics, the crawl queue,
//! search and listings, the OpenAPI document, the web UI's assets and the server.

mod auth;
mod body;
mod check;
mod crawl;
mod error;
mod handlers;
mod jobs;
mod limits;
mod metrics;
mod routes;
mod search;
mod server;
mod state;
mod web;

pub use check::parse_check_request;
pub use error::ApiError;
pub use metrics::Metrics;
pub use routes::router;
pub use server::{ServeError, serve};
pub use state::AppState;
pub use web::OPENAPI;
