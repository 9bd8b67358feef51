//! The commands of the `dupfinder` binary, one module each; `command` parses the arguments and
//! dispatches. Exit codes: 0 success, 1 failure, 2 usage (clap), 3 an import with rejected
//! lines, 4 a check whose verdict reached `--fail-on`.

// First, so that its macros (`outln!`, `out!`) are in scope in every command below.
#[macro_use]
mod output;

mod backup;
mod check;
mod command;
mod config;
mod crawl;
mod ctrl_c;
mod dedup;
mod delete;
mod eval;
mod eval_extract;
mod eval_methods;
mod eval_pdf_text;
mod import;
mod keys;
mod lexicon;
mod libraries;
mod phrases;
mod reindex;
mod remote;
mod search;
mod serve;
mod stats;

pub(crate) use command::{Cli, run};
pub(crate) use config::LogFormat;
