//! The `dupfinder` command line: parse arguments, merge the configuration, call into the
//! library, map errors to exit codes (1: failure, 2: usage, 3: import with rejected lines).

use std::io::Read;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};

use dupfinder::check::{CheckRequest, check};
use dupfinder::config::Config;
use dupfinder::crawl::{CrawlReport, CrawlService, Outcome};
use dupfinder::index::{RebuildControl, RebuildOutcome};
use dupfinder::library::{Catalog, ImportProgress, LibraryInfo, NewLibrary, import_file};
use tokio_util::sync::CancellationToken;

#[derive(Parser)]
#[command(
    name = "dupfinder",
    version,
    about = "Near-duplicate detection for digital scientific libraries"
)]
struct Cli {
    #[command(flatten)]
    global: GlobalArgs,
    #[command(subcommand)]
    command: Command,
}

#[derive(Args)]
struct GlobalArgs {
    /// Configuration file (TOML; see config/dupfinder.toml). Without one, built-in defaults.
    #[arg(long, global = true, env = "DUPFINDER_CONFIG")]
    config: Option<PathBuf>,
    /// Data directory (registry and indexes). Default: ./data
    #[arg(long, global = true, env = "DUPFINDER_DATA_DIR")]
    data_dir: Option<PathBuf>,
    /// Allow crawling private, loopback and link-local addresses (crawl.allow_private_networks).
    #[arg(
        long,
        global = true,
        env = "DUPFINDER_CRAWL_ALLOW_PRIVATE_NETWORKS",
        value_name = "BOOL"
    )]
    crawl_allow_private_networks: Option<bool>,
}

#[derive(Subcommand)]
enum Command {
    /// Run the HTTP API.
    Serve {
        /// Address to listen on. Default: 127.0.0.1:8080
        #[arg(long, env = "DUPFINDER_LISTEN")]
        listen: Option<SocketAddr>,
        /// Bearer token operator endpoints require; needed to listen beyond loopback.
        #[arg(long, env = "DUPFINDER_TOKEN", hide_env_values = true)]
        token: Option<String>,
    },
    /// Import a JSON Lines corpus file (.jsonl or .jsonl.gz) into a library, creating it.
    Import {
        #[arg(long)]
        library: String,
        path: PathBuf,
    },
    /// Check a text file (`-` for standard input); prints the check answer as JSON.
    Check {
        /// Library to check against (repeatable). Default: every library.
        #[arg(long)]
        library: Vec<String>,
        /// Report copied passages.
        #[arg(long)]
        passages: bool,
        /// Language of the text (ISO 639-1 or 639-3). Default: detected.
        #[arg(long)]
        lang: Option<String>,
        /// Drop matches below this similarity (0..1).
        #[arg(long, default_value_t = 0.0)]
        min_similarity: f64,
        path: PathBuf,
    },
    /// Crawl a library's site now, in the foreground, until it is done (Ctrl-C stops it; the
    /// next run resumes). A missing library is created when --start-url, --sitemap-url or
    /// --oai-url is given.
    Crawl {
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
    },
    /// Rebuild statistics and re-sign every document.
    Reindex {
        #[arg(long, conflicts_with = "all", required_unless_present = "all")]
        library: Option<String>,
        #[arg(long)]
        all: bool,
    },
    /// Check every document of a corpus file against the library it was imported into: each
    /// must find itself. Prints a JSON report (counts, misses, check latency).
    SelfCheck {
        #[arg(long)]
        library: String,
        /// Only documents with at least this many words are checked.
        #[arg(long, default_value_t = 50)]
        min_words: usize,
        path: PathBuf,
    },
    /// Make test queries with known truth from a corpus: writes OUT/library.jsonl (to import)
    /// and OUT/queries.jsonl (to evaluate).
    GenTests {
        /// The corpus (JSON Lines, plain or gzip).
        corpus: PathBuf,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
        /// Share of the corpus held out of the library (negatives, additions, partial-copy hosts).
        #[arg(long, default_value_t = 0.1)]
        holdout: f64,
        /// Take foreign documents from this corpus instead of holding some out.
        #[arg(long)]
        foreign: Option<PathBuf>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Edit levels (share of the document changed).
        #[arg(long, value_delimiter = ',', default_value = "0.05,0.1,0.2")]
        levels: Vec<f64>,
        /// Queries per modification and level.
        #[arg(long, default_value_t = 30)]
        per_kind: usize,
        /// Modifications to generate (default: all), e.g. word_replacement,partial_copy.
        #[arg(long, value_delimiter = ',')]
        kinds: Vec<String>,
        /// The corpus is Clough–Stevenson: originals become the library, answers the queries.
        #[arg(long)]
        clough: bool,
        /// Keep held-out documents that share an 8-word run with the library (natural
        /// duplicates and template reuse) in the foreign pool.
        #[arg(long)]
        keep_overlapping: bool,
    },
    /// Run generated queries through the check and print precision, recall and F1 per
    /// modification, per method and for the combined verdict.
    Eval {
        #[arg(long)]
        library: String,
        /// queries.jsonl written by gen-tests.
        queries: PathBuf,
        /// Print the report as JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Print libraries with their figures as JSON.
    Stats {
        #[arg(long)]
        library: Option<String>,
    },
}

/// The configuration: file < environment < command line. Clap has already folded the
/// environment into the flags, so a flag that is set wins over the file.
fn load_config(global: &GlobalArgs) -> Result<Config> {
    let mut config = match &global.config {
        Some(path) => Config::from_file(path)?,
        None => Config::default(),
    };
    if let Some(dir) = &global.data_dir {
        config.storage.data_dir = dir.clone();
    }
    if let Some(allow) = global.crawl_allow_private_networks {
        config.crawl.allow_private_networks = allow;
    }
    Ok(config)
}

fn open_catalog(config: &Config) -> Result<Catalog> {
    Catalog::open(config).with_context(|| {
        format!(
            "cannot open the data directory {}",
            config.storage.data_dir.display()
        )
    })
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

fn run(cli: Cli) -> Result<ExitCode> {
    let mut config = load_config(&cli.global)?;
    match cli.command {
        Command::Serve { listen, token } => {
            if let Some(listen) = listen {
                config.server.listen = listen;
            }
            if let Some(token) = token {
                config.server.token = Some(token);
            }
            if config
                .server
                .token
                .as_deref()
                .is_some_and(|t| t.trim().is_empty())
            {
                bail!("the configured token is empty");
            }
            if !config.server.listen.ip().is_loopback() && config.server.token.is_none() {
                bail!(
                    "refusing to listen on {} without a token: set --token (or DUPFINDER_TOKEN, or \
                     server.token) so that only operators can write, or listen on loopback",
                    config.server.listen
                );
            }
            let catalog = Arc::new(open_catalog(&config)?);
            let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
            runtime.block_on(dupfinder::api::serve(catalog, config.server.listen, |addr| {
                tracing::info!(%addr, data_dir = %config.storage.data_dir.display(), "dupfinder listening");
                eprintln!("dupfinder listening on http://{addr}");
            }))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Import { library, path } => {
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
            let sign = ProgressBar::hidden();
            let bars = Bars { read, sign };
            let summary = import_file(&catalog, &library, &path, &bars)?;
            bars.read.finish_and_clear();
            eprintln!(
                "imported {} documents into `{}` ({} rejected) from {} ({:.1} MB) in {:.1}s, signed in {:.1}s (statistics generation {})",
                summary.accepted,
                summary.library,
                summary.rejected.len(),
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
            if summary.rejected.len() > 20 {
                eprintln!(
                    "  … and {} more rejected lines",
                    summary.rejected.len() - 20
                );
            }
            println!("{}", serde_json::to_string(&summary)?);
            Ok(if summary.rejected.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(3)
            })
        }
        Command::Check {
            library,
            passages,
            lang,
            min_similarity,
            path,
        } => {
            let mut bytes = Vec::new();
            if path.as_os_str() == "-" {
                std::io::stdin()
                    .read_to_end(&mut bytes)
                    .context("reading standard input")?;
            } else {
                bytes = std::fs::read(&path)
                    .with_context(|| format!("cannot read {}", path.display()))?;
            }
            let Ok(text) = String::from_utf8(bytes) else {
                bail!("{} is not valid UTF-8 text", path.display());
            };
            let catalog = open_catalog(&config)?;
            let request = CheckRequest {
                text,
                libraries: if library.is_empty() {
                    None
                } else {
                    Some(library)
                },
                passages,
                min_similarity,
                lang,
            };
            let report = check(&catalog, &request)?;
            println!("{}", serde_json::to_string_pretty(&report)?);
            Ok(ExitCode::SUCCESS)
        }
        Command::Crawl {
            library,
            start_url,
            clarification,
            sitemap_url,
            use_sitemaps,
            oai_url,
        } => {
            let catalog = Arc::new(open_catalog(&config)?);
            let declared = start_url.is_some() || sitemap_url.is_some() || oai_url.is_some();
            let exists = catalog.index(&library).is_ok();
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
            println!("{}", serde_json::to_string_pretty(&report)?);
            match report.outcome {
                Outcome::Done => Ok(ExitCode::SUCCESS),
                Outcome::Stopped => {
                    eprintln!(
                        "dupfinder: the crawl of `{library}` stopped; run it again to resume"
                    );
                    Ok(ExitCode::FAILURE)
                }
                Outcome::Failed { reason } => bail!("the crawl of `{library}` failed: {reason}"),
            }
        }
        Command::Reindex { library, all } => {
            let catalog = open_catalog(&config)?;
            let ids = if all {
                catalog.ids()
            } else {
                library.into_iter().collect()
            };
            reindex_with_progress(&catalog, &ids)
        }
        Command::SelfCheck {
            library,
            min_words,
            path,
        } => {
            let catalog = open_catalog(&config)?;
            let report = dupfinder::eval::self_check(&catalog, &library, &path, min_words)?;
            println!("{}", serde_json::to_string_pretty(&report)?);
            Ok(ExitCode::SUCCESS)
        }
        Command::GenTests {
            corpus,
            out,
            holdout,
            foreign,
            seed,
            levels,
            per_kind,
            kinds,
            clough,
            keep_overlapping,
        } => {
            let summary = if clough {
                dupfinder::eval::clough_stevenson(&corpus, &out)?
            } else {
                let mut options = dupfinder::eval::generate::GenOptions {
                    seed,
                    levels,
                    per_kind,
                    ..Default::default()
                };
                if !kinds.is_empty() {
                    options.kinds = kinds
                        .iter()
                        .map(|k| {
                            serde_json::from_value(serde_json::Value::String(k.clone()))
                                .with_context(|| format!("unknown modification `{k}`"))
                        })
                        .collect::<Result<_>>()?;
                }
                dupfinder::eval::gen_tests(
                    &corpus,
                    foreign.as_deref(),
                    &out,
                    holdout,
                    keep_overlapping,
                    &options,
                )
                .with_context(|| format!("generating tests from {}", corpus.display()))?
            };
            println!("{}", serde_json::to_string_pretty(&summary)?);
            Ok(ExitCode::SUCCESS)
        }
        Command::Eval {
            library,
            queries,
            json,
        } => {
            let catalog = open_catalog(&config)?;
            let queries = dupfinder::eval::read_queries(&queries)?;
            let report = dupfinder::eval::evaluate(&catalog, &library, &queries)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                dupfinder::eval::print_table(&report, &mut std::io::stdout())?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Stats { library } => {
            let catalog = Arc::new(open_catalog(&config)?);
            let crawl = CrawlService::open(catalog.clone())?;
            // A library's figures, with its crawl status as the API shows it.
            let show = |info: LibraryInfo| -> Result<serde_json::Value> {
                let mut value = serde_json::to_value(&info)?;
                if let Some(status) = crawl.status(&info.id)? {
                    value["status"] = serde_json::json!(status.status);
                    value["crawl"] = serde_json::to_value(status)?;
                }
                Ok(value)
            };
            let value = match library {
                Some(id) => show(catalog.describe(&id)?)?,
                None => serde_json::json!({
                    "libraries": catalog.list()?.into_iter().map(show).collect::<Result<Vec<_>>>()?
                }),
            };
            println!("{}", serde_json::to_string_pretty(&value)?);
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Re-indexes libraries one after the other with a progress bar on standard error. Ctrl-C stops
/// at the next document, keeping what was signed: the next run resumes from there.
fn reindex_with_progress(catalog: &Catalog, ids: &[String]) -> Result<ExitCode> {
    let cancel = Arc::new(AtomicBool::new(false));
    {
        let cancel = cancel.clone();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("starting the signal handler")?;
        std::thread::spawn(move || {
            runtime.block_on(async {
                if tokio::signal::ctrl_c().await.is_ok() {
                    eprintln!("stopping: committing what was signed");
                    cancel.store(true, Ordering::Relaxed);
                }
            })
        });
    }
    let settings = &catalog.config().reindex;
    for id in ids {
        let index = catalog.index(id)?;
        let total = index.summary().documents;
        let bar = ProgressBar::new(total).with_style(
            ProgressStyle::with_template("re-signing {msg} {bar:40} {pos}/{len} {per_sec}")
                .expect("valid template"),
        );
        bar.set_message(id.clone());
        if index.has_unfinished_rebuild() {
            eprintln!("resuming the unfinished re-index of `{id}`");
        }
        let control = RebuildControl {
            cancel: Some(&cancel),
            max_docs_per_second: settings.max_docs_per_second,
            commit_every: settings.commit_every,
        };
        let started = std::time::Instant::now();
        let outcome = index.rebuild(&control, |done| bar.set_position(done))?;
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
        "crawled `{library}`: {} pages found, {} fetched, {} parsed, {} indexed, {} failed{}",
        s.counters.pages_found,
        s.counters.pages_fetched,
        s.counters.pages_parsed,
        s.counters.pages_indexed,
        s.counters.pages_failed,
        if s.counters.failures.is_empty() {
            String::new()
        } else {
            format!(" ({:?})", s.counters.failures)
        }
    );
    Ok(report)
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("DUPFINDER_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,tantivy=warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("dupfinder: {error:#}");
            ExitCode::FAILURE
        }
    }
}
