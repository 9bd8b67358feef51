//! `dupfinder stats`: libraries with their figures, as the API shows them.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Result;
use clap::Args;

use super::config::open_catalog;
use dupfinder::config::Config;
use dupfinder::crawl::CrawlService;

#[derive(Args)]
pub(crate) struct StatsArgs {
    #[arg(long)]
    library: Option<String>,
}

pub(crate) fn run(args: StatsArgs, config: Config) -> Result<ExitCode> {
    let catalog = Arc::new(open_catalog(&config)?);
    let crawl = CrawlService::open(catalog.clone())?;
    let value = match args.library {
        Some(id) => crawl.describe(catalog.describe(&id)?)?,
        None => {
            let libraries = catalog
                .list()?
                .into_iter()
                .map(|info| crawl.describe(info))
                .collect::<Result<Vec<_>, _>>()?;
            serde_json::json!({ "libraries": libraries })
        }
    };
    println!("{}", serde_json::to_string_pretty(&value)?);
    Ok(ExitCode::SUCCESS)
}
