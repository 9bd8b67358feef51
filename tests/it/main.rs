//! Integration tests, compiled as one binary.

mod api;
mod check;
mod crash;
mod signatures;
mod support;
