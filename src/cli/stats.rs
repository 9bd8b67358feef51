//! `dupfinder stats`: libraries with their figures, as the API shows them (from the data
//! directory, or from a running server with `--server`): one library, every library, or a page
//! of them (`--limit`, `--offset`) filtered by id or name (`--q`), as
//! `GET /api/v1/libraries?limit=&offset=&q=` pages them.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Result;
use clap::Args;
use serde_json::{Value, json};

use super::config::{GlobalArgs, configure, open_catalog};
use super::output::libraries_summary;
use super::remote::{Remote, segment};
use dupfinder::crawl::CrawlService;
use dupfinder::library::LibraryQuery;

#[derive(Args)]
pub(crate) struct StatsArgs {
    /// One library.
    #[arg(long, conflicts_with_all = ["limit", "offset", "q"])]
    library: Option<String>,
    /// Show at most this many libraries (1–1000); without it, --offset or --q, every library.
    #[arg(long)]
    limit: Option<usize>,
    /// Skip this many libraries of the list (sorted by id).
    #[arg(long)]
    offset: Option<usize>,
    /// Only the libraries whose id or name holds this text, in any case.
    #[arg(long)]
    q: Option<String>,
}

/// Libraries a page holds when the command walks every page of a server's list.
const PAGE: usize = 1_000;

pub(crate) fn run(args: StatsArgs, global: &GlobalArgs) -> Result<ExitCode> {
    let value = match global.remote()? {
        Some(remote) => match &args.library {
            Some(id) => remote.get(&format!("/api/v1/libraries/{}", segment(id)))?,
            None => remote_list(&args, &remote)?,
        },
        None => local(args, global)?,
    };
    global.output().print(&value, libraries_summary);
    Ok(ExitCode::SUCCESS)
}

/// The page asked for; without --limit, every page from --offset on.
fn remote_list(args: &StatsArgs, remote: &Remote) -> Result<Value> {
    let page = |limit: usize, offset: usize| {
        let mut path = format!("/api/v1/libraries?limit={limit}&offset={offset}");
        if let Some(q) = &args.q {
            path.push_str(&format!("&q={}", segment(q)));
        }
        remote.get(&path)
    };
    let offset = args.offset.unwrap_or(0);
    if let Some(limit) = args.limit {
        return page(limit, offset);
    }
    let mut libraries = Vec::new();
    loop {
        let answer = page(PAGE, offset + libraries.len())?;
        let total = answer["total"].as_u64().unwrap_or(0) as usize;
        let got = answer["libraries"].as_array().cloned().unwrap_or_default();
        let done = got.is_empty() || offset + libraries.len() + got.len() >= total;
        libraries.extend(got);
        if done {
            return Ok(json!({ "libraries": libraries, "total": total }));
        }
    }
}

fn local(args: StatsArgs, global: &GlobalArgs) -> Result<Value> {
    let catalog = Arc::new(open_catalog(&configure(global, None)?)?);
    let crawl = CrawlService::open(catalog.clone())?;
    if let Some(id) = args.library {
        return Ok(crawl.describe(catalog.describe(&id)?)?);
    }
    let query = LibraryQuery {
        q: args.q,
        offset: args.offset.unwrap_or(0),
        limit: args.limit.unwrap_or(usize::MAX),
    };
    if args.limit.is_some_and(|limit| !(1..=PAGE).contains(&limit)) {
        anyhow::bail!("--limit must be between 1 and {PAGE}");
    }
    let page = catalog.list_page(&query, &|_| true)?;
    let libraries = page
        .libraries
        .into_iter()
        .map(|info| crawl.describe(info))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(json!({ "libraries": libraries, "total": page.total }))
}
