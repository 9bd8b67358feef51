//! `dupfinder search`: the library's search, as `GET /api/v1/libraries/{id}/search` answers it.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use serde_json::Value;

use super::config::{GlobalArgs, configure, open_catalog};
use super::remote::segment;

#[derive(Args)]
pub(crate) struct SearchArgs {
    #[arg(long)]
    library: String,
    /// Results to show.
    #[arg(long, default_value_t = 10)]
    limit: usize,
    /// The query (words, "phrases", field:term as in the API).
    query: String,
}

pub(crate) fn run(args: SearchArgs, global: &GlobalArgs) -> Result<ExitCode> {
    let value = match global.remote()? {
        Some(remote) => remote.get(&format!(
            "/api/v1/libraries/{}/search?q={}&limit={}",
            segment(&args.library),
            segment(&args.query),
            args.limit
        ))?,
        None => {
            let catalog = open_catalog(&configure(global, None)?)?;
            let results = catalog
                .store(&args.library)?
                .search(&args.query, args.limit, 0)?;
            serde_json::to_value(results)?
        }
    };
    global.output().print(&value, hits);
    Ok(ExitCode::SUCCESS)
}

/// One line per hit: its id and title.
fn hits(answer: &Value) -> String {
    let total = answer["total"].as_u64().unwrap_or(0);
    // A phrase confirmed in part of the full papers holding its words: the total is a floor.
    let mut lines = vec![match answer["total_exact"].as_bool() {
        Some(false) => format!("at least {total} found"),
        _ => format!("{total} found"),
    }];
    for hit in answer["hits"].as_array().into_iter().flatten() {
        lines.push(format!(
            "  {}  {}",
            hit["doc_id"].as_str().unwrap_or("?"),
            hit["title"].as_str().unwrap_or_default()
        ));
    }
    lines.join("\n")
}
