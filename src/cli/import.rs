//! `dupfinder import`: a JSON Lines corpus, a folder of files or a `.zip` of files into a
//! library, with a progress bar. Files (PDF, DOCX, ODT, RTF, HTML, JATS/TEI, plain text) get
//! their relative path as id, their title and authors from metadata or the first heading.

use std::io::BufRead;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{Value, json};

use super::config::{GlobalArgs, configure, open_catalog};
use super::output::progress_style;
use super::remote::{Remote, ServerError, segment};
use dupfinder::error_code::ErrorCode;
use dupfinder::library::{FileSource, ImportProgress, import_file, import_files};

#[derive(Args)]
pub(crate) struct ImportArgs {
    #[arg(long)]
    library: String,
    path: PathBuf,
}

struct Bars {
    read: ProgressBar,
    sign: ProgressBar,
}

impl ImportProgress for Bars {
    fn read(&self, bytes: u64) {
        self.read.set_position(bytes);
    }
    fn signing(&self, documents: u64) {
        self.sign.set_position(documents);
    }
}

/// Imports; exits 3 when some lines were rejected (the summary says which).
pub(crate) fn run(args: ImportArgs, global: &GlobalArgs) -> Result<ExitCode> {
    if let Some(remote) = global.remote()? {
        return run_remote(args, &remote);
    }
    let ImportArgs { library, path } = args;
    let catalog = open_catalog(&configure(global, None)?)?;
    if is_file_collection(&path) {
        return import_file_collection(&catalog, &library, &path);
    }
    let size = std::fs::metadata(&path)
        .with_context(|| format!("cannot read {}", path.display()))?
        .len();
    let read = ProgressBar::new(size).with_style(
        ProgressStyle::with_template(
            "importing {bar:40} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
        )
        .expect("valid template"),
    );
    let bars = Bars {
        read,
        sign: ProgressBar::hidden(),
    };
    let summary = import_file(&catalog, &library, &path, &bars)?;
    bars.read.finish_and_clear();
    eprintln!(
        "imported {} documents into `{}` ({} rejected) from {} ({:.1} MB) in {:.1}s, signed in {:.1}s (statistics generation {})",
        summary.accepted,
        summary.library,
        summary.rejected_lines,
        path.display(),
        summary.bytes as f64 / 1e6,
        summary.import_seconds,
        summary.signing_seconds,
        summary.stats_generation,
    );
    for rejected in summary.rejected.iter().take(20) {
        eprintln!(
            "  line {}: {} ({})",
            rejected.line, rejected.error.message, rejected.error.code
        );
    }
    if summary.rejected_lines > 20 {
        eprintln!(
            "  … and {} more rejected lines",
            summary.rejected_lines - 20
        );
    }
    outln!("{}", serde_json::to_string(&summary)?);
    Ok(if summary.rejected_lines == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    })
}

/// Lines sent in one request, and the bytes a request may reach (well under the server's
/// default body limit).
const BATCH_LINES: usize = 1_000;
const BATCH_BYTES: usize = 8 << 20;

/// The same corpus sent to a running server in batches of JSON Lines; the library is created
/// when missing. Rejected lines keep their line numbers in the file.
fn run_remote(args: ImportArgs, remote: &Remote) -> Result<ExitCode> {
    let ImportArgs { library, path } = args;
    if is_file_collection(&path) {
        anyhow::bail!(
            "{}: through --server, import takes a JSON Lines corpus; send files with \
             POST /api/v1/libraries/{{id}}/documents (multipart), or import the folder on the \
             data directory",
            path.display()
        );
    }
    let file =
        std::fs::File::open(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut reader = std::io::BufReader::new(file);
    let gzip = reader.fill_buf()?.starts_with(&[0x1f, 0x8b]);
    let lines: Box<dyn BufRead> = if gzip {
        Box::new(std::io::BufReader::new(flate2::read::GzDecoder::new(
            reader,
        )))
    } else {
        Box::new(reader)
    };
    match remote.post("/api/v1/libraries", &json!({ "id": library })) {
        Ok(_) => eprintln!("created library `{library}`"),
        Err(e) if ServerError::answered(&e, ErrorCode::LibraryExists) => {}
        Err(e) => return Err(e),
    }
    let url = format!("/api/v1/libraries/{}/documents", segment(&library));
    let bar = ProgressBar::new_spinner().with_style(progress_style("importing {pos} lines {rate}"));
    let (mut accepted, mut rejected) = (0u64, Vec::<Value>::new());
    let (mut batch, mut batch_lines, mut first_line) = (String::new(), 0usize, 1usize);
    let mut send = |batch: &mut String, first_line: usize| -> Result<()> {
        let answer = remote.json(
            remote
                .request(reqwest::Method::POST, &url)
                .header(reqwest::header::CONTENT_TYPE, "application/x-ndjson")
                .body(std::mem::take(batch)),
        )?;
        accepted += answer["accepted"].as_u64().unwrap_or(0);
        for mut line in answer["rejected"].as_array().cloned().unwrap_or_default() {
            let number = line["line"].as_u64().unwrap_or(0) as usize + first_line - 1;
            line["line"] = json!(number);
            rejected.push(line);
        }
        Ok(())
    };
    for (number, line) in lines.lines().enumerate() {
        let line = line.with_context(|| format!("reading {}", path.display()))?;
        batch.push_str(&line);
        batch.push('\n');
        batch_lines += 1;
        bar.inc(1);
        if batch_lines == BATCH_LINES || batch.len() >= BATCH_BYTES {
            send(&mut batch, first_line)?;
            first_line = number + 2;
            batch_lines = 0;
        }
    }
    if batch_lines > 0 {
        send(&mut batch, first_line)?;
    }
    bar.finish_and_clear();
    eprintln!(
        "imported {accepted} documents into `{library}` ({} rejected) through the server",
        rejected.len()
    );
    outln!(
        "{}",
        json!({ "library": library, "accepted": accepted, "rejected": rejected })
    );
    Ok(if rejected.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    })
}

/// A folder, a ZIP archive of files, or one document file (PDF, DOCX, ODT, RTF, HTML, JATS,
/// TEI), told by its first bytes, not its name; anything else is read as JSON Lines.
fn is_file_collection(path: &std::path::Path) -> bool {
    use dupfinder::extract::{Format, sniff};
    if path.is_dir() {
        return true;
    }
    let mut head = vec![0u8; 64 * 1024];
    let read = std::fs::File::open(path).and_then(|mut f| std::io::Read::read(&mut f, &mut head));
    let Ok(read) = read else { return false };
    head.truncate(read);
    if head.starts_with(b"PK\x03\x04") {
        return true;
    }
    matches!(
        sniff(&head),
        Ok(Format::Pdf | Format::Rtf | Format::Html | Format::Jats | Format::Tei)
    )
}

fn import_file_collection(
    catalog: &dupfinder::library::Catalog,
    library: &str,
    path: &std::path::Path,
) -> Result<ExitCode> {
    let source =
        FileSource::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    if source.is_empty() {
        anyhow::bail!("{} holds no files", path.display());
    }
    let read = ProgressBar::new(source.len() as u64).with_style(progress_style(
        "importing {bar:40} {pos}/{len} files {rate} eta {eta}",
    ));
    let bars = Bars {
        read,
        sign: ProgressBar::hidden(),
    };
    let summary = import_files(catalog, library, &source, &bars)?;
    bars.read.finish_and_clear();
    eprintln!(
        "imported {} of {} files into `{}` from {} in {:.1}s, signed in {:.1}s (statistics generation {})",
        summary.accepted,
        summary.files,
        summary.library,
        path.display(),
        summary.import_seconds,
        summary.signing_seconds,
        summary.stats_generation,
    );
    for rejected in summary.rejected.iter().take(20) {
        eprintln!(
            "  {}: {} ({})",
            rejected.file, rejected.error.message, rejected.error.code
        );
    }
    if summary.rejected.len() > 20 {
        eprintln!(
            "  … and {} more rejected files",
            summary.rejected.len() - 20
        );
    }
    outln!("{}", serde_json::to_string(&summary)?);
    Ok(if summary.rejected.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    })
}
