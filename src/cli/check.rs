//! `dupfinder check`: a text file (or standard input) checked against the data directory or,
//! with `--server`, by a running server; `--fail-on` turns the verdict into the exit code.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Args;

use serde_json::{Value, json};

use super::config::{GlobalArgs, configure, open_catalog};
use super::output::check_summary;
use dupfinder::check::{CheckRequest, check};

#[derive(Args)]
pub(crate) struct CheckArgs {
    /// Library to check against (repeatable). Default: every library.
    #[arg(long)]
    library: Vec<String>,
    /// Report copied passages.
    #[arg(long)]
    passages: bool,
    /// Language of the text (ISO 639-1 or 639-3). Default: detected.
    #[arg(long)]
    lang: Option<String>,
    /// Drop matches below this similarity (0..1).
    #[arg(long, default_value_t = 0.0)]
    min_similarity: f64,
    /// Exit with code 4 when the verdict is this or worse (`partial` also fails on
    /// `duplicate`).
    #[arg(long, value_name = "VERDICT")]
    fail_on: Option<FailOn>,
    path: PathBuf,
}

/// The verdict from which `check` exits with [`FOUND`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub(crate) enum FailOn {
    Partial,
    Duplicate,
}

/// The exit code of a check whose verdict reached `--fail-on`.
pub(crate) const FOUND: u8 = 4;

/// The exit code the answer's verdict calls for.
fn exit_code(fail_on: Option<FailOn>, answer: &Value) -> ExitCode {
    let verdict = match answer["verdict"].as_str() {
        Some("duplicate") => Some(FailOn::Duplicate),
        Some("partial") => Some(FailOn::Partial),
        _ => None,
    };
    match (fail_on, verdict) {
        (Some(threshold), Some(verdict)) if verdict >= threshold => ExitCode::from(FOUND),
        _ => ExitCode::SUCCESS,
    }
}

pub(crate) fn run(args: CheckArgs, global: &GlobalArgs) -> Result<ExitCode> {
    let text = read_text(&args.path)?;
    let libraries = (!args.library.is_empty()).then_some(args.library);
    let answer = match global.remote()? {
        Some(remote) => {
            let mut body = json!({
                "text": text,
                "passages": args.passages,
                "min_similarity": args.min_similarity,
            });
            if let Some(libraries) = libraries {
                body["libraries"] = json!(libraries);
            }
            if let Some(lang) = args.lang {
                body["lang"] = json!(lang);
            }
            remote.post("/api/v1/check", &body)?
        }
        None => {
            let catalog = open_catalog(&configure(global, None)?)?;
            let request = CheckRequest {
                text,
                libraries,
                passages: args.passages,
                min_similarity: args.min_similarity,
                lang: args.lang,
            };
            serde_json::to_value(check(&catalog, &request)?)?
        }
    };
    global.output().print(&answer, check_summary);
    Ok(exit_code(args.fail_on, &answer))
}

/// The file's text, or standard input's for `-`.
fn read_text(path: &Path) -> Result<String> {
    let mut bytes = Vec::new();
    if path.as_os_str() == "-" {
        std::io::stdin()
            .read_to_end(&mut bytes)
            .context("reading standard input")?;
    } else {
        bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    }
    let Ok(text) = String::from_utf8(bytes) else {
        bail!("{} is not valid UTF-8 text", path.display());
    };
    Ok(text)
}
