//! The evaluation commands: `self-check`, `gen-tests` and `eval`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
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
    /// The library the check is evaluated on (with QUERIES); with --methods or --sweep, the
    /// stored library whose documents and statistics the methods run on.
    #[arg(long)]
    library: Option<String>,
    /// queries.jsonl written by gen-tests (with --methods: score the methods on its truth).
    queries: Option<PathBuf>,
    /// Print the report as JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Run the seed comparison paper's methods instead of the check: `all` or a list such as
    /// A3,A7 (A0–A12). Without QUERIES: the pool protocol (Table 2, Dice matrix, times).
    #[arg(long)]
    methods: Option<String>,
    /// With --methods or --sweep: the documents as a JSON Lines corpus (plain or gzip) instead
    /// of a stored library; with QUERIES, gen-tests' library.jsonl.
    #[arg(long, conflicts_with = "library")]
    corpus: Option<PathBuf>,
    /// Sweep one parameter and print its curves, e.g. shingle_len=3..15, sampling=1,2,4,8,
    /// imatch_band=0.1-0.99,0.2-0.99, threshold=0.5..0.95:0.05.
    #[arg(long)]
    sweep: Option<String>,
    /// With --sweep: draw the curves into this SVG file.
    #[arg(long, requires = "sweep")]
    plot: Option<PathBuf>,
    /// A method setting, NAME=VALUE (repeatable), e.g. --set shingle_len=4.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    settings: Vec<String>,
    /// The reference: a candidate pair is a near-duplicate when 2·LCS/(|a|+|b|) of its term
    /// sequences reaches this.
    #[arg(long, default_value_t = 0.8)]
    threshold: f64,
    /// Documents sharing one key (or chain piece) beyond this many yield no pairs.
    #[arg(long, default_value_t = 100)]
    max_group: usize,
    /// Library documents with fewer terms than this are left out.
    #[arg(long, default_value_t = 10)]
    min_terms: usize,
    /// Only the first N library documents.
    #[arg(long)]
    limit: Option<usize>,
}

impl From<EvalArgs> for super::eval_methods::MethodsArgs {
    fn from(args: EvalArgs) -> Self {
        super::eval_methods::MethodsArgs {
            library: args.library,
            queries: args.queries,
            json: args.json,
            methods: args.methods,
            corpus: args.corpus,
            sweep: args.sweep,
            plot: args.plot,
            settings: args.settings,
            threshold: args.threshold,
            max_group: args.max_group,
            min_terms: args.min_terms,
            limit: args.limit,
        }
    }
}

pub(crate) fn self_check(args: SelfCheckArgs, config: Config) -> Result<ExitCode> {
    let catalog = open_catalog(&config)?;
    let report = dupfinder::eval::self_check(&catalog, &args.library, &args.path, args.min_words)?;
    outln!("{}", serde_json::to_string_pretty(&report)?);
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn gen_tests(args: GenTestsArgs) -> Result<ExitCode> {
    if let Some(groups) = args.planted_groups {
        let summary = dupfinder::eval::gen_planted(&args.corpus, &args.out, groups, args.seed)
            .with_context(|| format!("planting groups in {}", args.corpus.display()))?;
        outln!("{}", serde_json::to_string_pretty(&summary)?);
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
    outln!("{}", serde_json::to_string_pretty(&summary)?);
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn eval(args: EvalArgs, config: Config) -> Result<ExitCode> {
    if args.methods.is_some() || args.sweep.is_some() {
        return super::eval_methods::eval_methods(args.into(), config);
    }
    let (Some(library), Some(queries)) = (args.library, args.queries) else {
        bail!("eval needs --library and QUERIES (or --methods / --sweep)");
    };
    let catalog = open_catalog(&config)?;
    let queries = dupfinder::eval::read_queries(&queries)?;
    let report = dupfinder::eval::evaluate(&catalog, &library, &queries)?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        dupfinder::eval::print_table(&report, &mut std::io::stdout())?;
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Args)]
pub(crate) struct EvalSectionsArgs {
    /// A folder of JATS XML articles: their tags are the truth.
    #[arg(long, required_unless_present_any = ["files", "explain"], conflicts_with = "files")]
    jats: Option<PathBuf>,
    /// A folder of files of any format (PDFs above all), measured against --truth.
    #[arg(long, requires = "truth")]
    files: Option<PathBuf>,
    /// The hand-made truth for --files: a JSON object from file name to its parts, each part
    /// a list of `{"from": "…", "to": "…"}` spans of the extracted text, and
    /// `reference_entries` the text each entry starts with.
    #[arg(long, requires = "files")]
    truth: Option<PathBuf>,
    /// Print the report as JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Instead of measuring, show this file line by line with the detected part (and, for a
    /// JATS article, its tag).
    #[arg(long)]
    explain: Option<PathBuf>,
}

pub(crate) fn eval_sections(args: EvalSectionsArgs) -> Result<ExitCode> {
    if let Some(path) = args.explain {
        let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        let explained = match dupfinder::extract::sniff(&bytes) {
            Ok(dupfinder::extract::Format::Jats) => {
                dupfinder::eval::explain_article(&String::from_utf8_lossy(&bytes))?
            }
            _ => dupfinder::eval::explain_file(&bytes)
                .with_context(|| format!("reading {}", path.display()))?,
        };
        out!("{explained}");
        return Ok(ExitCode::SUCCESS);
    }
    let report = match (args.jats, args.files, args.truth) {
        (Some(jats), _, _) => dupfinder::eval::evaluate_sections(&jats)?,
        (None, Some(files), Some(truth)) => dupfinder::eval::evaluate_anchored(&files, &truth)?,
        _ => bail!("give --jats DIR, or --files DIR with --truth FILE"),
    };
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
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
        outln!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        dupfinder::eval::print_false_positives(&rows);
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Args)]
pub(crate) struct EvalTranslatedArgs {
    /// The folder of `tico19.{en,ru}`, `tico19.info.tsv`, `flores200.devtest.{en,ru}` and
    /// `flores200.devtest.metadata.tsv`: libraries `xl-en` and `xl-ru` of the data directory are
    /// made from them (once).
    corpus: PathBuf,
    /// The lexicon (default: `[check.cross_language] lexicon`).
    #[arg(long)]
    lexicon: Option<PathBuf>,
    /// Print the rows as JSON instead of a table.
    #[arg(long)]
    json: bool,
}

pub(crate) fn eval_translated(args: EvalTranslatedArgs, mut config: Config) -> Result<ExitCode> {
    if let Some(lexicon) = args.lexicon {
        config.check.cross_language.lexicon = Some(lexicon);
    }
    let catalog = open_catalog(&config)?;
    let rows = dupfinder::eval::evaluate_translated(&catalog, &args.corpus)?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        dupfinder::eval::print_translated(&rows);
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Args)]
pub(crate) struct EvalSynonymsArgs {
    /// The folder of `ru_sci_480.jsonl.gz` and `acl_abstracts.jsonl.gz`: a library `syn` of the
    /// data directory is made from them (once).
    corpus: PathBuf,
    /// The thesauri the swaps are made with (MyThes `.dat`).
    #[arg(long, default_value = "/usr/share/mythes/th_ru_RU_v2.dat")]
    thesaurus_ru: PathBuf,
    #[arg(long, default_value = "/usr/share/mythes/th_en_US_v2.dat")]
    thesaurus_en: PathBuf,
    /// The lexicon (default: `[check.cross_language] lexicon`).
    #[arg(long)]
    lexicon: Option<PathBuf>,
    /// Print the rows as JSON instead of a table.
    #[arg(long)]
    json: bool,
}

pub(crate) fn eval_synonyms(args: EvalSynonymsArgs, mut config: Config) -> Result<ExitCode> {
    if let Some(lexicon) = args.lexicon {
        config.check.cross_language.lexicon = Some(lexicon);
    }
    let catalog = open_catalog(&config)?;
    let rows = dupfinder::eval::evaluate_synonym_swaps(
        &catalog,
        &args.corpus,
        &args.thesaurus_ru,
        &args.thesaurus_en,
    )?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        dupfinder::eval::print_synonym_swaps(&rows);
    }
    Ok(ExitCode::SUCCESS)
}
