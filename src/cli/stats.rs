//! `dupfinder stats`: libraries with their figures, as the API shows them (from the data
//! directory, or from a running server with `--server`).

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Result;
use clap::Args;
use serde_json::Value;

use super::config::{GlobalArgs, configure, open_catalog};
use super::output::libraries_summary;
use super::remote::segment;
use dupfinder::crawl::CrawlService;

#[derive(Args)]
pub(crate) struct StatsArgs {
    #[arg(long)]
    library: Option<String>,
}

pub(crate) fn run(args: StatsArgs, global: &GlobalArgs) -> Result<ExitCode> {
    let value = match global.remote()? {
        Some(remote) => match &args.library {
            Some(id) => remote.get(&format!("/api/v1/libraries/{}", segment(id)))?,
            None => remote.get("/api/v1/libraries")?,
        },
        None => local(args, global)?,
    };
    global.output().print(&value, libraries_summary);
    Ok(ExitCode::SUCCESS)
}

fn local(args: StatsArgs, global: &GlobalArgs) -> Result<Value> {
    let catalog = Arc::new(open_catalog(&configure(global, None)?)?);
    let crawl = CrawlService::open(catalog.clone())?;
    Ok(match args.library {
        Some(id) => crawl.describe(catalog.describe(&id)?)?,
        None => {
            let libraries = catalog
                .list()?
                .into_iter()
                .map(|info| crawl.describe(info))
                .collect::<Result<Vec<_>, _>>()?;
            serde_json::json!({ "libraries": libraries })
        }
    })
}
