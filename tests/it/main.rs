//! Integration tests, compiled as one binary.

mod api;
mod check;
mod crash;
mod crawl;
mod crawl_queue;
mod crawl_resume;
mod openapi;
mod reindex;
mod search;
mod signatures;
mod sites;
mod support;
