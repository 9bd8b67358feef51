//! `dupfinder backup` and `dupfinder restore`: a consistent copy of a data directory in one
//! `.tar.gz` file, taken from a running server (`--server`, an admin key) or from a data
//! directory no server holds; restored into a new data directory and opened to prove it whole.
//! With `[storage] backend = "postgres"` everything the service keeps is in the database:
//! `backup` runs `pg_dump` on it (or, without one, says the command and how to restore).

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
    /// The file to write (`.tar.gz`; on PostgreSQL, `pg_dump`'s custom format); written whole
    /// or not at all.
    #[arg(long)]
    out: PathBuf,
    /// On PostgreSQL: the `pg_dump` to run (of the server's major version or newer).
    #[arg(long, default_value = "pg_dump")]
    pg_dump: PathBuf,
}

/// What a restore of a `pg_dump` backup must do.
const PG_RESTORE: &str = "restore: stop every `dupfinder serve` of the database; create an \
    empty database (createdb NAME); pg_restore --no-owner --dbname NAME FILE; point \
    [storage.postgres] url at it and start the servers (they apply any newer migration). Keys, \
    reports, batches, webhooks with their outbox and the audit log are in the dump; each \
    server's data directory keeps only its crawl queue";

/// `pg_dump` of the database of `url` into `out` (through `out.part`), or the command to run
/// when `pg_dump` cannot be run.
fn backup_postgres(args: &BackupArgs, url: &str) -> Result<ExitCode> {
    let partial = partial_path(&args.out);
    let command = format!(
        "{} --format=custom --no-owner --file={} --dbname='{url}'",
        args.pg_dump.display(),
        args.out.display()
    );
    let ran = std::process::Command::new(&args.pg_dump)
        .args(["--format=custom", "--no-owner", "--file"])
        .arg(&partial)
        .arg("--dbname")
        .arg(url)
        .output();
    let output = match ran {
        Ok(output) => output,
        Err(e) => {
            anyhow::bail!(
                "the libraries and the service's records are in PostgreSQL, and {} cannot be \
                 run ({e}); back the database up with:\n  {command}\n{PG_RESTORE}",
                args.pg_dump.display()
            );
        }
    };
    if !output.status.success() {
        let _ = std::fs::remove_file(&partial);
        anyhow::bail!(
            "pg_dump failed ({}): {}\nthe command: {command}\n{PG_RESTORE}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    std::fs::File::open(&partial)
        .and_then(|file| file.sync_all())
        .with_context(|| format!("cannot sync {}", partial.display()))?;
    std::fs::rename(&partial, &args.out)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    eprintln!("backup written to {} by pg_dump", args.out.display());
    outln!(
        "{}",
        json!({ "file": args.out, "from": "pg_dump", "format": "custom", "restore": PG_RESTORE })
    );
    Ok(ExitCode::SUCCESS)
}

#[derive(Args)]
pub(crate) struct RestoreArgs {
    /// A file written by `dupfinder backup`.
    file: PathBuf,
}

pub(crate) fn backup(args: BackupArgs, global: &GlobalArgs) -> Result<ExitCode> {
    if global.remote()?.is_none() {
        let config = configure(global, None)?;
        if config.storage.backend == dupfinder::storage::Backend::Postgres {
            let url = config
                .storage
                .postgres
                .url
                .clone()
                .context("[storage] backend = \"postgres\" needs [storage.postgres] url")?;
            return backup_postgres(&args, &url);
        }
    }
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
