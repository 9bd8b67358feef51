//! `dupfinder check`: a text file (or standard input) checked; the answer as JSON.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Args;

use super::config::open_catalog;
use dupfinder::check::{CheckRequest, check};
use dupfinder::config::Config;

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
    /// Exclusions as JSON, e.g. '{"quotes": false, "small_matches": 8}'; what it leaves out
    /// comes from `[check]`.
    #[arg(long)]
    exclude: Option<String>,
    path: PathBuf,
}

pub(crate) fn run(args: CheckArgs, config: Config) -> Result<ExitCode> {
    let mut bytes = Vec::new();
    if args.path.as_os_str() == "-" {
        std::io::stdin()
            .read_to_end(&mut bytes)
            .context("reading standard input")?;
    } else {
        bytes = std::fs::read(&args.path)
            .with_context(|| format!("cannot read {}", args.path.display()))?;
    }
    let Ok(text) = String::from_utf8(bytes) else {
        bail!("{} is not valid UTF-8 text", args.path.display());
    };
    let exclude = match &args.exclude {
        Some(json) => {
            serde_json::from_str(json).context("--exclude is not a valid exclusion object")?
        }
        None => Default::default(),
    };
    let catalog = open_catalog(&config)?;
    let request = CheckRequest {
        text,
        libraries: (!args.library.is_empty()).then_some(args.library),
        passages: args.passages,
        min_similarity: args.min_similarity,
        lang: args.lang,
        exclude,
    };
    let report = check(&catalog, &request)?;
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(ExitCode::SUCCESS)
}
