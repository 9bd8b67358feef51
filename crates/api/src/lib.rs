//! The HTTP API (axum), one file per resource (`libraries`, `documents`, `search`, `check`,
//! `queue`, `jobs`, `dedup`, `operations`, `web`), with what they share: routes, request bodies and
//! parameters, the error table, access control, time limits, metrics and the server.

mod auth;
mod body;
mod check;
mod dedup;
mod documents;
mod error;
mod jobs;
mod keys;
mod libraries;
mod limits;
mod metrics;
mod operations;
mod origin;
mod params;
mod path;
mod phrases;
mod queue;
mod reports;
mod routes;
mod search;
mod server;
mod state;
mod upload;
mod web;
mod webhooks;

pub use check::parse_check_request;
pub use error::{ApiError, ErrorCode};
pub use limits::CheckSlots;
pub use metrics::Metrics;
pub use routes::{route_paths, router};
pub use server::{ServeError, serve};
pub use state::AppState;
pub use web::OPENAPI;
