//! `dupfinder reindex`: statistics counted again and every document re-signed, with a progress
//! bar; Ctrl-C stops and keeps what was signed.

use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use super::config::{GlobalArgs, configure, open_catalog};
use super::remote::{Remote, segment};
use dupfinder::index::{RebuildControl, RebuildOutcome};
use dupfinder::library::Catalog;
use dupfinder::storage::UnfinishedReindex;

#[derive(Args)]
pub(crate) struct ReindexArgs {
    #[arg(long, conflicts_with = "all", required_unless_present = "all")]
    library: Option<String>,
    #[arg(long)]
    all: bool,
}

pub(crate) fn run(args: ReindexArgs, global: &GlobalArgs) -> Result<ExitCode> {
    if let Some(remote) = global.remote()? {
        return run_remote(args, &remote);
    }
    let catalog = open_catalog(&configure(global, None)?)?;
    let ids = if args.all {
        catalog.ids()?
    } else {
        args.library.into_iter().collect()
    };
    reindex_with_progress(&catalog, &ids)
}

/// Re-indexes libraries one after the other with a progress bar on standard error. Ctrl-C stops
/// at the next document, keeping what was signed: the next run resumes from there.
fn reindex_with_progress(catalog: &Catalog, ids: &[String]) -> Result<ExitCode> {
    let cancel = super::ctrl_c::stop_on_ctrl_c("stopping: committing what was signed")?;
    let settings = &catalog.config().reindex;
    for id in ids {
        let store = catalog.store(id)?;
        let total = store.summary()?.documents;
        let bar = ProgressBar::new(total).with_style(
            ProgressStyle::with_template("re-signing {msg} {bar:40} {pos}/{len} {per_sec}")
                .expect("valid template"),
        );
        bar.set_message(id.clone());
        if store.unfinished_reindex()? != UnfinishedReindex::None {
            eprintln!("resuming the unfinished re-index of `{id}`");
        }
        let control = RebuildControl {
            cancel: Some(&cancel),
            max_docs_per_second: settings.max_docs_per_second,
            commit_every: settings.commit_every,
        };
        let started = std::time::Instant::now();
        let Some(mut claim) = store.clone().claim_reindex()? else {
            bar.finish_and_clear();
            bail!("`{id}` is being re-indexed by a server on the same database; follow it there");
        };
        let outcome = claim.reindex(&control, &mut |done| bar.set_position(done))?;
        bar.finish_and_clear();
        match outcome {
            RebuildOutcome::Finished { generation } => eprintln!(
                "re-indexed `{id}`: {total} documents, statistics generation {generation}, {:.2}s",
                started.elapsed().as_secs_f64()
            ),
            RebuildOutcome::Cancelled { signed, .. } => {
                eprintln!(
                    "dupfinder: the re-index of `{id}` stopped after {signed} of {total} documents; run it again to resume"
                );
                return Ok(ExitCode::FAILURE);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The re-index as a job of the running server, followed until it ends.
fn run_remote(args: ReindexArgs, remote: &Remote) -> Result<ExitCode> {
    let ids = if args.all {
        let libraries = remote.get("/api/v1/libraries")?;
        libraries["libraries"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|l| l["id"].as_str().map(str::to_string))
            .collect()
    } else {
        args.library.into_iter().collect::<Vec<_>>()
    };
    for id in ids {
        let job = remote.json(remote.request(
            reqwest::Method::POST,
            &format!("/api/v1/libraries/{}/reindex", segment(&id)),
        ))?;
        let finished = remote.follow_job(&job, &format!("re-signing {id}"))?;
        match finished["state"].as_str() {
            Some("done") => eprintln!(
                "re-indexed `{id}`: statistics generation {}",
                finished["generation"].as_u64().unwrap_or(0)
            ),
            state => {
                eprintln!(
                    "dupfinder: the re-index of `{id}` ended {}: {}",
                    state.unwrap_or("?"),
                    finished["error"].as_str().unwrap_or("stopped")
                );
                return Ok(ExitCode::FAILURE);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
