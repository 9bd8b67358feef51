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
            eprintln!("dupfinder: {}", reason(&error));
            ExitCode::FAILURE
        }
    }
}

/// An error and its causes on one line, each cause after a colon — but a cause that the
/// message before it already ends with (an error that names its source in its own text) is
/// said once, not twice.
fn reason(error: &anyhow::Error) -> String {
    let mut line = error.to_string();
    for cause in error.chain().skip(1) {
        let cause = cause.to_string();
        if !line.ends_with(&cause) {
            line.push_str(": ");
            line.push_str(&cause);
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::reason;

    #[derive(Debug, thiserror::Error)]
    #[error("I/O error at corpus.jsonl.gz: {0}")]
    struct NamesItsSource(#[source] std::io::Error);

    #[test]
    fn a_cause_is_said_once() {
        let io = || std::io::Error::other("incomplete deflate stream");
        let error = anyhow::Error::new(NamesItsSource(io()));
        assert_eq!(
            reason(&error),
            "I/O error at corpus.jsonl.gz: incomplete deflate stream"
        );
        let error = anyhow::Error::new(io()).context("reading the corpus");
        assert_eq!(
            reason(&error),
            "reading the corpus: incomplete deflate stream"
        );
    }
}
