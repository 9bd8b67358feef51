//! Integration tests, compiled as one binary.

mod api;
mod check;
mod crash;
mod crawl;
mod crawl_queue;
mod crawl_resume;
mod crawl_serve_resume;
mod hostile;
mod html_bombs;
mod import;
mod keys;
mod limits;
mod openapi;
mod operations;
mod reindex;
mod search;
mod shutdown;
mod signatures;
mod storage;
mod support;
