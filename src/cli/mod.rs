//! The commands of the `dupfinder` binary, one module each; this file parses the arguments and
//! dispatches. Exit codes: 0 success, 1 failure, 2 usage (clap), 3 an import with rejected
//! lines.

mod check;
mod config;
mod crawl;
mod delete;
mod eval;
mod import;
mod keys;
mod reindex;
mod serve;
mod stats;

use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

use config::GlobalArgs;
pub(crate) use config::LogFormat;

#[derive(Parser)]
#[command(
    name = "dupfinder",
    version,
    about = "Near-duplicate detection for digital scientific libraries"
)]
pub(crate) struct Cli {
    #[command(flatten)]
    global: GlobalArgs,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the HTTP API.
    Serve(serve::ServeArgs),
    /// Import a JSON Lines corpus file (.jsonl or .jsonl.gz) into a library, creating it.
    Import(import::ImportArgs),
    /// Check a text file (`-` for standard input); prints the check answer as JSON.
    Check(check::CheckArgs),
    /// Crawl a library's site now, in the foreground, until it is done (Ctrl-C stops it; the
    /// next run resumes). A missing library is created when --start-url, --sitemap-url or
    /// --oai-url is given.
    Crawl(crawl::CrawlArgs),
    /// Rebuild statistics and re-sign every document.
    Reindex(reindex::ReindexArgs),
    /// Check every document of a corpus file against the library it was imported into: each
    /// must find itself. Prints a JSON report (counts, misses, check latency).
    SelfCheck(eval::SelfCheckArgs),
    /// Make test queries with known truth from a corpus: writes OUT/library.jsonl (to import)
    /// and OUT/queries.jsonl (to evaluate).
    GenTests(eval::GenTestsArgs),
    /// Run generated queries through the check and print precision, recall and F1 per
    /// modification, per method and for the combined verdict.
    Eval(eval::EvalArgs),
    /// Measure section detection on tagged articles: each JATS article is read as plain text,
    /// its structure detected and compared with the tags; prints precision and recall.
    EvalSections(eval::EvalSectionsArgs),
    /// Full-paper false positives: each journal's JATS articles become a library, every
    /// article is checked against its journal; prints the share of papers with a counted
    /// match to another paper, with the default exclusions and with each one off.
    EvalFullPapers(eval::EvalFullPapersArgs),
    /// Print libraries with their figures as JSON.
    Stats(stats::StatsArgs),
    /// Delete one document from a library.
    DeleteDocument(delete::DeleteDocumentArgs),
    /// Create, list and revoke API keys.
    Keys(keys::KeysArgs),
}

impl Cli {
    /// How log lines are written.
    pub(crate) fn log_format(&self) -> LogFormat {
        self.global.log_format
    }
}

/// Runs the command the arguments name.
pub(crate) fn run(cli: Cli) -> Result<ExitCode> {
    let global = &cli.global;
    match cli.command {
        Command::Serve(args) => serve::run(config::configure(global, Some(&args.flags()))?),
        Command::Import(args) => import::run(args, config::configure(global, None)?),
        Command::Check(args) => check::run(args, config::configure(global, None)?),
        Command::Crawl(args) => crawl::run(args, config::configure(global, None)?),
        Command::Reindex(args) => reindex::run(args, config::configure(global, None)?),
        Command::SelfCheck(args) => eval::self_check(args, config::configure(global, None)?),
        Command::GenTests(args) => eval::gen_tests(args),
        Command::Eval(args) => eval::eval(args, config::configure(global, None)?),
        Command::EvalSections(args) => eval::eval_sections(args),
        Command::EvalFullPapers(args) => {
            eval::eval_full_papers(args, config::configure(global, None)?)
        }
        Command::Stats(args) => stats::run(args, config::configure(global, None)?),
        Command::DeleteDocument(args) => delete::run(args, config::configure(global, None)?),
        Command::Keys(args) => keys::run(args, config::configure(global, None)?),
    }
}
