//! Integration tests, compiled as one binary.

mod api;
mod crash;
mod signatures;
mod support;
