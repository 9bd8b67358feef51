//! `dupfinder backup` and `dupfinder restore`: a consistent copy of a data directory in one
//! `.tar.gz` file, taken from a running server (`--server`, an admin key) or from a data
//! directory no server holds; restored into a new data directory and opened to prove it whole.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::Args;
use serde_json::json;

use super::config::{GlobalArgs, configure, open_catalog};
use dupfinder::backup::{BackupError, restore, write_backup};
use dupfinder::crawl::CrawlService;

#[derive(Args)]
pub(crate) struct BackupArgs {
    /// The file to write (`.tar.gz`); written whole or not at all.
    #[arg(long)]
    out: PathBuf,
}

#[derive(Args)]
pub(crate) struct RestoreArgs {
    /// A file written by `dupfinder backup`.
    file: PathBuf,
}

pub(crate) fn backup(args: BackupArgs, global: &GlobalArgs) -> Result<ExitCode> {
    let partial = partial_path(&args.out);
    let mut file = std::fs::File::create(&partial)
        .with_context(|| format!("cannot write {}", partial.display()))?;
    let written = match global.remote()? {
        Some(remote) => remote
            .send(remote.request(reqwest::Method::POST, "/api/v1/backup"))
            .and_then(|mut response| {
                response
                    .copy_to(&mut file)
                    .context("the backup stopped before its end")
            })
            .map(|_| json!({ "file": args.out, "from": "server" })),
        None => (|| {
            let catalog = Arc::new(open_catalog(&configure(global, None)?).context(
                "a running server holds its data directory: back it up with --server URL and an \
                 admin --key",
            )?);
            let crawl = CrawlService::open(catalog.clone())?;
            let manifest = write_backup(&catalog, Some(crawl.store()), &mut file)?;
            Ok(json!({ "file": args.out, "manifest": manifest }))
        })(),
    };
    let answer = match written.and_then(|answer| {
        file.flush()?;
        file.sync_all()?;
        Ok(answer)
    }) {
        Ok(answer) => answer,
        Err(e) => {
            let _ = std::fs::remove_file(&partial);
            return Err(e);
        }
    };
    std::fs::rename(&partial, &args.out)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    eprintln!("backup written to {}", args.out.display());
    outln!("{answer}");
    Ok(ExitCode::SUCCESS)
}

/// `out.part`, beside `out`: the backup is renamed into place only once whole.
fn partial_path(out: &Path) -> PathBuf {
    let mut name = out.file_name().unwrap_or_default().to_os_string();
    name.push(".part");
    out.with_file_name(name)
}

pub(crate) fn restore_command(args: RestoreArgs, global: &GlobalArgs) -> Result<ExitCode> {
    // A restore always writes a data directory (a server is started on it afterwards), so a
    // --server in the environment, as the README's walk-through sets it, does not matter here.
    let config = configure(global, None)?;
    let data_dir = config.storage.data_dir.clone();
    let file = std::fs::File::open(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    // Opened as a server would open it, where it was unpacked, before it is moved into place:
    // every library, its signatures and its documents.
    let manifest = restore(
        std::io::BufReader::new(file),
        &args.file.display().to_string(),
        &data_dir,
        |unpacked, manifest| {
            let mut config = config.clone();
            config.storage.data_dir = unpacked.to_path_buf();
            let catalog =
                open_catalog(&config).map_err(|e| BackupError::NotWhole(format!("{e:#}")))?;
            for library in &manifest.libraries {
                let documents = catalog
                    .describe(&library.id)
                    .map_err(|e| BackupError::NotWhole(e.to_string()))?
                    .documents;
                if documents != library.documents {
                    return Err(BackupError::NotWhole(format!(
                        "library `{}` holds {documents} documents; the backup says {}",
                        library.id, library.documents
                    )));
                }
            }
            Ok(())
        },
    )?;
    eprintln!(
        "restored {} libraries into {}",
        manifest.libraries.len(),
        data_dir.display()
    );
    outln!("{}", serde_json::to_string(&manifest)?);
    Ok(ExitCode::SUCCESS)
}
