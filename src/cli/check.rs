//! `dupfinder check`: a file (or standard input) checked against the data directory or, with
//! `--server`, by a running server. The file's format is told from its content (PDF, DOCX, ODT,
//! RTF, HTML, JATS/TEI XML, plain text in any common encoding) and its text extracted as the API
//! does; the answer then carries `document` and the extracted `text`. `--fail-on` turns the
//! verdict into the exit code.
//!
//! Several paths, a folder or a `.zip` are a batch: each file checked with the same options
//! (locally, or with `--server` by the batch API), then one line per file (`--format`).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow};
use clap::Args;
use serde_json::{Value, json};

use super::config::{GlobalArgs, configure, open_catalog};
use super::output::{Output, check_summary};
use super::remote::{Remote, segment};
use dupfinder::batch::{BatchItem, items_csv};
use dupfinder::cancel::CancelFlag;
use dupfinder::check::CheckRequest;
use dupfinder::error_code::ErrorCode;
use dupfinder::library::{FileSource, SourceFileError, check_file, is_archive};

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
    /// Keep no report of the check: a server is sent `"store": false` (a check on a data
    /// directory is never kept as a report).
    #[arg(long)]
    no_store: bool,
    /// Do not look for translated copies (sends `"cross_language": false`).
    #[arg(long)]
    no_cross_language: bool,
    /// How the answer is printed: `text` (the summary, also when the output is not a
    /// terminal), `json` (also `--json`) or, for a batch, `csv`. Default: the summary on a
    /// terminal, JSON otherwise; a batch's line per file.
    #[arg(long, value_enum)]
    format: Option<BatchFormat>,
    /// A file (`-` for standard input); several files, a folder or a `.zip` make a batch.
    #[arg(required = true)]
    path: Vec<PathBuf>,
}

/// How a batch's summary is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum BatchFormat {
    Text,
    Json,
    Csv,
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
    let single = match args.path.as_slice() {
        [one] if one.as_os_str() == "-" => true,
        [one] => !one.is_dir() && !is_archive(&read_bytes(one)?),
        _ => false,
    };
    if !single {
        return run_batch(args, global);
    }
    let path = args.path[0].clone();
    let bytes = read_bytes(&path)?;
    let name = path
        .file_name()
        .map_or_else(|| "stdin".to_string(), |n| n.to_string_lossy().into_owned());
    let answer = match global.remote()? {
        Some(remote) => check_remote(&remote, bytes, name, &options(&args)?)?,
        None => {
            let config = configure(global, None)?;
            let catalog = open_catalog(&config)?;
            let request = local_request(&args, String::new())?;
            let checked = check_file(&catalog, &name, &bytes, request, &CancelFlag::new())
                .map_err(|e| anyhow!("{}: {e} ({})", path.display(), e.code()))?;
            let mut answer = checked.answer()?;
            answer["text"] = Value::String(checked.request.text);
            answer
        }
    };
    let output = match args.format {
        Some(BatchFormat::Text) => Output::human(),
        Some(BatchFormat::Json) => Output::new(true),
        _ => global.output(),
    };
    output.print(&answer, check_summary);
    Ok(exit_code(args.fail_on, &answer))
}

/// The options every file is checked with, as the API's `options` part.
fn options(args: &CheckArgs) -> Result<Value> {
    let mut options = json!({
        "passages": args.passages,
        "min_similarity": args.min_similarity,
    });
    if args.no_store {
        options["store"] = json!(false);
    }
    if !args.library.is_empty() {
        options["libraries"] = json!(args.library);
    }
    if let Some(lang) = &args.lang {
        options["lang"] = json!(lang);
    }
    if args.no_cross_language {
        options["cross_language"] = json!(false);
    }
    if let Some(exclude) = &args.exclude {
        options["exclude"] =
            serde_json::from_str(exclude).context("--exclude is not a valid exclusion object")?;
    }
    Ok(options)
}

/// The check of `text` on a data directory, with the flags' options.
fn local_request(args: &CheckArgs, text: String) -> Result<CheckRequest> {
    Ok(CheckRequest {
        text,
        libraries: (!args.library.is_empty()).then(|| args.library.clone()),
        passages: args.passages,
        min_similarity: args.min_similarity,
        lang: args.lang.clone(),
        exclude: match &args.exclude {
            Some(exclude) => serde_json::from_str(exclude)
                .context("--exclude is not a valid exclusion object")?,
            None => Default::default(),
        },
        cross_language: !args.no_cross_language,
    })
}

/// A file's name and bytes, or why it could not be read.
type ReadFile = (String, Result<Vec<u8>, SourceFileError>);

/// Every file the paths name: a folder's files (hidden ones skipped), a `.zip`'s entries, a
/// file itself; each with its name and bytes (or why it could not be read).
fn batch_files(paths: &[PathBuf], max_bytes: u64) -> Result<Vec<ReadFile>> {
    let mut files = Vec::new();
    for path in paths {
        let source =
            FileSource::open(path).with_context(|| format!("cannot read {}", path.display()))?;
        // A folder's files are named from inside it; a lone file or an archive's entries keep
        // the name they have.
        source.each_until(max_bytes, |name, bytes| {
            files.push((name, bytes));
            true
        });
    }
    Ok(files)
}

/// Several files, a folder or a `.zip`: every file checked, one line each.
fn run_batch(args: CheckArgs, global: &GlobalArgs) -> Result<ExitCode> {
    let items: Vec<BatchItem> = match global.remote()? {
        Some(remote) => {
            let files = batch_files(&args.path, u64::MAX)?;
            let mut form = reqwest::blocking::multipart::Form::new()
                .text("options", options(&args)?.to_string());
            for (name, bytes) in files {
                let bytes = bytes.map_err(|e| anyhow!("{name}: {e}"))?;
                form = form.part(
                    "file",
                    reqwest::blocking::multipart::Part::bytes(bytes).file_name(name),
                );
            }
            let job = remote.json(
                remote
                    .request(reqwest::Method::POST, "/api/v1/check")
                    .multipart(form),
            )?;
            remote.follow_job(&job, "checking")?;
            let id = segment(job["job"].as_str().unwrap_or_default());
            let summary = remote.get(&format!("/api/v1/jobs/{id}/reports?format=json"))?;
            serde_json::from_value(summary["items"].clone())
                .context("the server's batch summary")?
        }
        None => {
            let config = configure(global, None)?;
            let catalog = open_catalog(&config)?;
            let files = batch_files(&args.path, config.limits.max_body_bytes as u64)?;
            let bar = indicatif::ProgressBar::new(files.len() as u64);
            let mut items = Vec::new();
            for (name, bytes) in files {
                items.push(check_one_local(&catalog, &args, name, bytes)?);
                bar.inc(1);
            }
            bar.finish_and_clear();
            items
        }
    };
    let format = if global.json {
        BatchFormat::Json
    } else {
        args.format.unwrap_or(BatchFormat::Text)
    };
    match format {
        BatchFormat::Json => outln!(
            "{}",
            serde_json::to_string_pretty(&json!({ "items": items }))?
        ),
        BatchFormat::Csv => out!("{}", items_csv(&items)),
        BatchFormat::Text => {
            for item in &items {
                match &item.error {
                    Some(error) => {
                        outln!("{}: error {} ({})", item.file, error.code, error.message)
                    }
                    None => outln!(
                        "{}: {} (similarity index {:.2})",
                        item.file,
                        item.verdict.as_deref().unwrap_or("?"),
                        item.similarity_index.unwrap_or(0.0)
                    ),
                }
            }
        }
    }
    // The worst verdict decides, as for one file; a file that could not be checked is an
    // error.
    let reached = items.iter().any(|item| {
        exit_code(args.fail_on, &json!({ "verdict": item.verdict })) != ExitCode::SUCCESS
    });
    Ok(if reached {
        ExitCode::from(FOUND)
    } else if items.iter().any(|item| item.error.is_some()) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// One file of a local batch.
fn check_one_local(
    catalog: &dupfinder::library::Catalog,
    args: &CheckArgs,
    file: String,
    bytes: Result<Vec<u8>, SourceFileError>,
) -> Result<BatchItem> {
    let bytes = match bytes {
        Ok(bytes) => bytes,
        Err(e) => {
            return Ok(BatchItem::failed(
                file,
                ErrorCode::UnreadableDocument,
                e.to_string(),
            ));
        }
    };
    let request = local_request(args, String::new())?;
    match check_file(catalog, &file, &bytes, request, &CancelFlag::new()) {
        Ok(checked) => Ok(BatchItem::checked(file, &checked)),
        Err(e) => Ok(BatchItem::failed(file, e.code(), e.to_string())),
    }
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
