//! Integration tests, compiled as one binary.

mod api;
mod check;
mod cli_server;
mod crash;
mod crawl;
mod crawl_queue;
mod crawl_resume;
mod crawl_serve_resume;
mod dedup;
mod files;
mod hostile;
mod html_bombs;
mod import;
mod keys;
mod limits;
mod openapi;
mod operations;
mod reindex;
mod reports;
mod search;
mod shutdown;
mod signatures;
mod storage;
mod storage_contract;
mod structure;
mod support;
