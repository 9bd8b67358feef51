//! The evaluation commands: `self-check`, `gen-tests` and `eval`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;

use super::config::open_catalog;
use dupfinder::config::Config;

#[derive(Args)]
pub(crate) struct SelfCheckArgs {
    #[arg(long)]
    library: String,
    /// Only documents with at least this many words are checked.
    #[arg(long, default_value_t = 50)]
    min_words: usize,
    path: PathBuf,
}

#[derive(Args)]
pub(crate) struct GenTestsArgs {
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
    /// Plant this many duplicate groups (sizes 2–5, copies made by the near-duplicate
    /// modifications) and a quarter as many partial copies beside the whole corpus: writes
    /// OUT/library.jsonl and OUT/truth.jsonl, scored by `dupfinder dedup --truth`.
    #[arg(long, conflicts_with = "clough")]
    planted_groups: Option<usize>,
}

#[derive(Args)]
pub(crate) struct EvalArgs {
    #[arg(long)]
    library: String,
    /// queries.jsonl written by gen-tests.
    queries: PathBuf,
    /// Print the report as JSON instead of a table.
    #[arg(long)]
    json: bool,
}

pub(crate) fn self_check(args: SelfCheckArgs, config: Config) -> Result<ExitCode> {
    let catalog = open_catalog(&config)?;
    let report = dupfinder::eval::self_check(&catalog, &args.library, &args.path, args.min_words)?;
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn gen_tests(args: GenTestsArgs) -> Result<ExitCode> {
    if let Some(groups) = args.planted_groups {
        let summary = dupfinder::eval::gen_planted(&args.corpus, &args.out, groups, args.seed)
            .with_context(|| format!("planting groups in {}", args.corpus.display()))?;
        println!("{}", serde_json::to_string_pretty(&summary)?);
        return Ok(ExitCode::SUCCESS);
    }
    let summary = if args.clough {
        dupfinder::eval::clough_stevenson(&args.corpus, &args.out)?
    } else {
        let mut options = dupfinder::eval::generate::GenOptions {
            seed: args.seed,
            levels: args.levels,
            per_kind: args.per_kind,
            ..Default::default()
        };
        if !args.kinds.is_empty() {
            options.kinds = args
                .kinds
                .iter()
                .map(|k| {
                    serde_json::from_value(serde_json::Value::String(k.clone()))
                        .with_context(|| format!("unknown modification `{k}`"))
                })
                .collect::<Result<_>>()?;
        }
        dupfinder::eval::gen_tests(
            &args.corpus,
            args.foreign.as_deref(),
            &args.out,
            args.holdout,
            args.keep_overlapping,
            &options,
        )
        .with_context(|| format!("generating tests from {}", args.corpus.display()))?
    };
    println!("{}", serde_json::to_string_pretty(&summary)?);
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn eval(args: EvalArgs, config: Config) -> Result<ExitCode> {
    let catalog = open_catalog(&config)?;
    let queries = dupfinder::eval::read_queries(&args.queries)?;
    let report = dupfinder::eval::evaluate(&catalog, &args.library, &queries)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        dupfinder::eval::print_table(&report, &mut std::io::stdout())?;
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Args)]
pub(crate) struct EvalSectionsArgs {
    /// A folder of JATS XML articles: their tags are the truth.
    #[arg(long)]
    jats: PathBuf,
    /// Print the report as JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Instead of measuring, show this article paragraph by paragraph: its tag and the
    /// detected part.
    #[arg(long)]
    explain: Option<PathBuf>,
}

pub(crate) fn eval_sections(args: EvalSectionsArgs) -> Result<ExitCode> {
    if let Some(path) = args.explain {
        let xml = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        print!("{}", dupfinder::eval::explain_article(&xml)?);
        return Ok(ExitCode::SUCCESS);
    }
    let report = dupfinder::eval::evaluate_sections(&args.jats)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        dupfinder::eval::print_sections(&report);
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Args)]
pub(crate) struct EvalFullPapersArgs {
    /// A folder of PLOS JATS articles (`journal.<journal>.<number>.xml`): each journal's
    /// articles become a library `plos-<journal>` of the data directory (imported once).
    #[arg(long)]
    jats: PathBuf,
    /// Print the rows as JSON instead of a table.
    #[arg(long)]
    json: bool,
}

pub(crate) fn eval_full_papers(args: EvalFullPapersArgs, config: Config) -> Result<ExitCode> {
    let catalog = open_catalog(&config)?;
    let rows = dupfinder::eval::full_paper_false_positives(&catalog, &args.jats)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        dupfinder::eval::print_false_positives(&rows);
    }
    Ok(ExitCode::SUCCESS)
}
