//! The `dupfinder` command line: parse the arguments, run the command (`cli/`), and turn an
//! error into a one-line reason and a non-zero exit.

mod cli;

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    let filter =
        tracing_subscriber::EnvFilter::try_from_env("DUPFINDER_LOG").unwrap_or_else(|_| {
            tracing_subscriber::EnvFilter::new("info,tantivy=warn,pdf_extract=off,lopdf=off")
        });
    let logs = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    // Colour codes only for a person at a terminal, never into a file.
    match cli.log_format() {
        cli::LogFormat::Json => logs.json().init(),
        cli::LogFormat::Text => logs.with_ansi(std::io::stderr().is_terminal()).init(),
    }
    match cli::run(cli) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("dupfinder: {error:#}");
            ExitCode::FAILURE
        }
    }
}
