//! `dupfinder check`: a file (or standard input) checked; the answer as JSON. The file's format
//! is told from its content (PDF, DOCX, ODT, RTF, HTML, JATS/TEI XML, plain text in any common
//! encoding) and its text extracted as the API does; the answer then carries `document` and the
//! extracted `text`.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow};
use clap::Args;

use super::config::open_catalog;
use dupfinder::check::{CheckRequest, check};
use dupfinder::config::Config;
use dupfinder::extract::{DocumentSummary, extract};

#[derive(serde::Serialize)]
struct FileCheckReport {
    #[serde(flatten)]
    report: dupfinder::check::CheckReport,
    document: DocumentSummary,
    text: String,
}

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
    let name = args
        .path
        .file_name()
        .map_or_else(|| "stdin".to_string(), |n| n.to_string_lossy().into_owned());
    let document = extract(&bytes, &config.extract)
        .map_err(|e| anyhow!("{}: {e} ({})", args.path.display(), e.code()))?;
    let summary = document.summary(&name);
    let text = document.text;
    let catalog = open_catalog(&config)?;
    let request = CheckRequest {
        text: text.clone(),
        libraries: (!args.library.is_empty()).then_some(args.library),
        passages: args.passages,
        min_similarity: args.min_similarity,
        lang: args.lang,
    };
    let report = check(&catalog, &request)?;
    let answer = FileCheckReport {
        report,
        document: summary,
        text,
    };
    println!("{}", serde_json::to_string_pretty(&answer)?);
    Ok(ExitCode::SUCCESS)
}
