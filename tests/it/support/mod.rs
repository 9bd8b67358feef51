//! What the integration tests share: a catalog and fixture texts (`fixtures`), the router with
//! requests sent to it without a socket (`app`), a server process with requests over HTTP
//! (`process`), fixture sites for the crawler (`sites`), a webhook receiver with the server run
//! in the test's own process (`receiver`), and PostgreSQL servers of their own (`postgres`).

mod app;
mod fixtures;
mod postgres;
mod process;
mod receiver;
pub(crate) mod sites;

pub(crate) use app::{app, error_code, json_request, send, send_with_headers, send_with_token};
pub(crate) use fixtures::{catalog, catalog_with, corpus, fixture, synthetic_text};
pub(crate) use postgres::PgServer;
pub(crate) use process::{
    ServerProcess, call_json, http, start_server, start_server_with_file_limit,
};
pub(crate) use receiver::{WebhookReceiver, serve_in_process};
