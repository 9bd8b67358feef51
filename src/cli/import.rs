//! `dupfinder import`: a JSON Lines corpus into a library, with a progress bar.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use super::config::open_catalog;
use dupfinder::config::Config;
use dupfinder::library::{ImportProgress, import_file};

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
pub(crate) fn run(args: ImportArgs, config: Config) -> Result<ExitCode> {
    let ImportArgs { library, path } = args;
    let catalog = open_catalog(&config)?;
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
    println!("{}", serde_json::to_string(&summary)?);
    Ok(if summary.rejected_lines == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    })
}
