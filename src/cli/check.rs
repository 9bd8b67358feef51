//! `dupfinder check`: a file (or standard input) checked against the data directory or, with
//! `--server`, by a running server. The file's format is told from its content (PDF, DOCX, ODT,
//! RTF, HTML, JATS/TEI XML, plain text in any common encoding) and its text extracted as the API
//! does; the answer then carries `document` and the extracted `text`. `--fail-on` turns the
//! verdict into the exit code.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow};
use clap::Args;
use serde_json::{Value, json};

use super::config::{GlobalArgs, configure, open_catalog};
use super::output::check_summary;
use super::remote::Remote;
use dupfinder::check::{CheckRequest, check};
use dupfinder::extract::extract;

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
    /// Exclusions as JSON, e.g. '{"quotes": false, "small_matches": 8}'; what it leaves out
    /// comes from `[check]`.
    #[arg(long)]
    exclude: Option<String>,
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
    let bytes = read_bytes(&args.path)?;
    let name = args
        .path
        .file_name()
        .map_or_else(|| "stdin".to_string(), |n| n.to_string_lossy().into_owned());
    let libraries = (!args.library.is_empty()).then_some(args.library);
    let exclude: Option<Value> = args
        .exclude
        .as_deref()
        .map(serde_json::from_str)
        .transpose()
        .context("--exclude is not a valid exclusion object")?;
    let answer = match global.remote()? {
        Some(remote) => {
            let mut options = json!({
                "passages": args.passages,
                "min_similarity": args.min_similarity,
            });
            if let Some(libraries) = libraries {
                options["libraries"] = json!(libraries);
            }
            if let Some(lang) = args.lang {
                options["lang"] = json!(lang);
            }
            if let Some(exclude) = exclude {
                options["exclude"] = exclude;
            }
            check_remote(&remote, bytes, name, &options)?
        }
        None => {
            let config = configure(global, None)?;
            let document = extract(&bytes, &config.extract)
                .map_err(|e| anyhow!("{}: {e} ({})", args.path.display(), e.code()))?;
            let summary = document.summary(&name);
            let catalog = open_catalog(&config)?;
            let request = CheckRequest {
                text: document.text.clone(),
                libraries,
                passages: args.passages,
                min_similarity: args.min_similarity,
                lang: args.lang,
                exclude: match exclude {
                    Some(exclude) => serde_json::from_value(exclude)
                        .context("--exclude is not a valid exclusion object")?,
                    None => Default::default(),
                },
            };
            let mut answer = serde_json::to_value(check(&catalog, &request)?)?;
            answer["document"] = serde_json::to_value(summary)?;
            answer["text"] = Value::String(document.text);
            answer
        }
    };
    global.output().print(&answer, check_summary);
    Ok(exit_code(args.fail_on, &answer))
}

/// The file sent as `multipart/form-data` (parts `file` and `options`): the server tells its
/// format and extracts it.
fn check_remote(remote: &Remote, bytes: Vec<u8>, name: String, options: &Value) -> Result<Value> {
    let form = reqwest::blocking::multipart::Form::new()
        .part(
            "file",
            reqwest::blocking::multipart::Part::bytes(bytes).file_name(name),
        )
        .text("options", options.to_string());
    remote.json(
        remote
            .request(reqwest::Method::POST, "/api/v1/check")
            .multipart(form),
    )
}

/// The file's bytes, or standard input's for `-`.
fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    if path.as_os_str() == "-" {
        std::io::stdin()
            .read_to_end(&mut bytes)
            .context("reading standard input")?;
    } else {
        bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    }
    Ok(bytes)
}
