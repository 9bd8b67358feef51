//! The `dupfinder` command line: parse the arguments, run the command (`cli/`), and turn an
//! error into a one-line reason and a non-zero exit.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("DUPFINDER_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,tantivy=warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    match cli::run(cli::Cli::parse()) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("dupfinder: {error:#}");
            ExitCode::FAILURE
        }
    }
}
