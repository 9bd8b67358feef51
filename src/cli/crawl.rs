//! `dupfinder crawl`: one library's site crawled in the foreground, with a progress bar.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use tokio_util::sync::CancellationToken;

use super::config::open_catalog;
use dupfinder::config::Config;
use dupfinder::crawl::{CrawlReport, CrawlService, Outcome};
use dupfinder::library::{Catalog, NewLibrary};

#[derive(Args)]
pub(crate) struct CrawlArgs {
    #[arg(long)]
    library: String,
    /// The page link discovery starts from.
    #[arg(long)]
    start_url: Option<String>,
    /// A URL substring article pages contain (repeatable; `*` matches anything).
    #[arg(long)]
    clarification: Vec<String>,
    /// A sitemap or sitemap index listing the articles.
    #[arg(long)]
    sitemap_url: Option<String>,
    /// Use the sitemaps named by the site's robots.txt (else /sitemap.xml).
    #[arg(long)]
    use_sitemaps: bool,
    /// An OAI-PMH base URL.
    #[arg(long)]
    oai_url: Option<String>,
}

pub(crate) fn run(args: CrawlArgs, config: Config) -> Result<ExitCode> {
    let CrawlArgs {
        library,
        start_url,
        clarification,
        sitemap_url,
        use_sitemaps,
        oai_url,
    } = args;
    let catalog = Arc::new(open_catalog(&config)?);
    let declared = start_url.is_some() || sitemap_url.is_some() || oai_url.is_some();
    let exists = catalog.store(&library).is_ok();
    if declared && exists {
        eprintln!(
            "dupfinder: library `{library}` exists; its declared start URL and sources are used, the flags are ignored"
        );
    }
    if declared && !exists {
        catalog.create(NewLibrary {
            id: library.clone(),
            start_url,
            clarifications: clarification,
            sitemap_url,
            use_sitemaps,
            oai_url,
            ..Default::default()
        })?;
    }
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let report = runtime.block_on(crawl_with_progress(catalog, &library))?;
    outln!("{}", serde_json::to_string_pretty(&report)?);
    match report.outcome {
        Outcome::Done => Ok(ExitCode::SUCCESS),
        Outcome::Stopped => {
            eprintln!("dupfinder: the crawl of `{library}` stopped; run it again to resume");
            Ok(ExitCode::FAILURE)
        }
        Outcome::Failed { reason } => bail!("the crawl of `{library}` failed: {reason}"),
    }
}

/// Crawls one library with a progress bar on standard error; Ctrl-C stops it cleanly.
async fn crawl_with_progress(catalog: Arc<Catalog>, library: &str) -> Result<CrawlReport> {
    let service = CrawlService::open(catalog)?;
    let cancel = CancellationToken::new();
    let interrupt = {
        let cancel = cancel.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                eprintln!("stopping: finishing pages in flight");
                cancel.cancel();
            }
        })
    };
    let bar = ProgressBar::new(0).with_style(
        ProgressStyle::with_template("crawling {prefix} {bar:30} {pos}/{len} pages {msg}")
            .expect("valid template"),
    );
    bar.set_prefix(library.to_string());
    let ticker = {
        let service = service.clone();
        let bar = bar.clone();
        let library = library.to_string();
        tokio::spawn(async move {
            loop {
                if let Ok(Some(status)) = service.status(&library) {
                    bar.set_length(status.counters.pages_found);
                    bar.set_position(
                        status
                            .counters
                            .pages_parsed
                            .max(status.counters.pages_fetched)
                            + status.counters.pages_failed,
                    );
                    bar.set_message(format!(
                        "[{}] fetched {} parsed {} indexed {} failed {}",
                        status.stage,
                        status.counters.pages_fetched,
                        status.counters.pages_parsed,
                        status.counters.pages_indexed,
                        status.counters.pages_failed
                    ));
                }
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            }
        })
    };
    let report = service.crawl(library, cancel).await;
    ticker.abort();
    interrupt.abort();
    bar.finish_and_clear();
    let report = report?;
    let s = &report.status;
    eprintln!(
        "crawled `{library}`: {} pages found, {} fetched, {} parsed, {} indexed, {} failed, {} full texts read ({} failed){}",
        s.counters.pages_found,
        s.counters.pages_fetched,
        s.counters.pages_parsed,
        s.counters.pages_indexed,
        s.counters.pages_failed,
        s.counters.full_texts,
        s.counters.full_text_failures,
        if s.counters.failures.is_empty() {
            String::new()
        } else {
            format!(" ({:?})", s.counters.failures)
        }
    );
    Ok(report)
}
