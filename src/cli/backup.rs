//! `dupfinder backup` and `dupfinder restore`: a consistent copy of a data directory in one
//! `.tar.gz` file, taken from a running server (`--server`, an admin key) or from a data
//! directory no server holds; restored into a new data directory and opened to prove it whole.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use clap::Args;
use serde_json::json;

use super::config::{GlobalArgs, configure, open_catalog};
use dupfinder::backup::{restore, write_backup};
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
    println!("{answer}");
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
    let manifest = restore(
        std::io::BufReader::new(file),
        &args.file.display().to_string(),
        &data_dir,
    )?;
    // Opened as a server would open it: every library, its signatures and its documents.
    let catalog = open_catalog(&config)?;
    for library in &manifest.libraries {
        let documents = catalog.describe(&library.id)?.documents;
        if documents != library.documents {
            bail!(
                "library `{}` holds {documents} documents after the restore; the backup says {}",
                library.id,
                library.documents
            );
        }
    }
    eprintln!(
        "restored {} libraries into {}",
        manifest.libraries.len(),
        data_dir.display()
    );
    println!("{}", serde_json::to_string(&manifest)?);
    Ok(ExitCode::SUCCESS)
}
