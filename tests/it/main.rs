//! Integration tests, compiled as one binary.

mod api;
mod check;
mod crash;
mod crawl;
mod crawl_queue;
mod crawl_resume;
mod limits;
mod signatures;
mod sites;
mod storage;
mod support;
