//! `dupfinder eval --methods …` and `--sweep …`: the seed comparison paper's methods on a
//! stored library or a JSON Lines corpus.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};

use super::config::open_catalog;
use dupfinder::config::Config;
use dupfinder::eval::methods::{
    Prepared, ProtocolOptions, TruthQuery, print_pool, print_truth, run_pool, run_truth,
};
use dupfinder::eval::sweep::{SweepSpec, print_sweep, run_sweep};
use dupfinder::signature::StatsSnapshot;
use dupfinder::signature::methods::{Method, MethodSettings};

/// The arguments of `eval` that concern the methods.
pub(crate) struct MethodsArgs {
    pub(crate) library: Option<String>,
    pub(crate) queries: Option<PathBuf>,
    pub(crate) json: bool,
    pub(crate) methods: Option<String>,
    pub(crate) corpus: Option<PathBuf>,
    pub(crate) sweep: Option<String>,
    pub(crate) plot: Option<PathBuf>,
    pub(crate) settings: Vec<String>,
    pub(crate) threshold: f64,
    pub(crate) max_group: usize,
    pub(crate) min_terms: usize,
    pub(crate) limit: Option<usize>,
}

type Documents = Vec<(String, String)>;

/// The library's documents and, for a stored library, its own statistics snapshot.
fn library_documents(
    args: &MethodsArgs,
    config: &Config,
) -> Result<(Documents, Option<StatsSnapshot>)> {
    let limit = args.limit.unwrap_or(usize::MAX);
    if let Some(corpus) = &args.corpus {
        let objects = dupfinder::eval::read_objects(corpus)
            .with_context(|| format!("reading the corpus {}", corpus.display()))?;
        let field = |v: &serde_json::Value, key: &str| match &v[key] {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Number(n) => n.to_string(),
            _ => String::new(),
        };
        let docs = objects
            .iter()
            .take(limit)
            .map(|v| (field(v, "id"), field(v, "text")))
            .collect();
        return Ok((docs, None));
    }
    let Some(name) = &args.library else {
        bail!("--methods and --sweep need --library NAME or --corpus FILE");
    };
    let catalog = open_catalog(config)?;
    let index = catalog
        .index(name)
        .with_context(|| format!("opening the library {name}"))?;
    let view = index.view();
    let mut docs = Vec::new();
    for key in view.keys()?.into_iter().take(limit) {
        if let Some(doc) = view.stored(key)? {
            docs.push((doc.meta.doc_id, doc.text));
        }
    }
    // The statistics of a partial read would not be the library's: recounted from what is read.
    let snapshot = args.limit.is_none().then(|| view.snapshot().clone());
    Ok((docs, snapshot))
}

pub(crate) fn eval_methods(args: MethodsArgs, config: Config) -> Result<ExitCode> {
    let methods = Method::parse_list(args.methods.as_deref().unwrap_or("all"))?;
    let mut settings = MethodSettings::default();
    for setting in &args.settings {
        let (name, value) = setting
            .split_once('=')
            .with_context(|| format!("--set `{setting}`: expected NAME=VALUE"))?;
        settings.set(name.trim(), value.trim())?;
    }
    if !(0.0..=1.0).contains(&args.threshold) {
        bail!("--threshold {} is not between 0 and 1", args.threshold);
    }
    let sweep: Option<SweepSpec> = args.sweep.as_deref().map(str::parse).transpose()?;
    if sweep.is_some() && args.queries.is_some() {
        bail!("--sweep runs the pool protocol on the library; drop QUERIES");
    }
    let options = ProtocolOptions {
        methods,
        settings,
        threshold: args.threshold,
        max_group: args.max_group.max(2),
    };
    let (library, snapshot) = library_documents(&args, &config)?;
    let analyzer = dupfinder::index::default_analyzer();
    let mut out = std::io::stdout().lock();

    if let Some(queries_path) = &args.queries {
        let queries = dupfinder::eval::read_queries(queries_path)?;
        // Partial copies are not near-duplicates of their source: left out, as the paper's
        // methods are not meant to find them.
        let kept: Vec<_> = queries
            .into_iter()
            .filter(|q| q.expect_duplicate || q.source.is_none())
            .collect();
        let truth: Vec<TruthQuery> = kept
            .iter()
            .map(|q| TruthQuery {
                kind: q.kind.clone(),
                level: q.level,
                source: q.source.clone(),
            })
            .collect();
        let texts = kept.into_iter().map(|q| (q.id, q.text));
        let prepared = Prepared::new(&analyzer, library, texts, args.min_terms, snapshot);
        let report = run_truth(&prepared, &truth, &options);
        if args.json {
            serde_json::to_writer_pretty(&mut out, &report)?;
        } else {
            print_truth(&report, &mut out)?;
        }
        return Ok(ExitCode::SUCCESS);
    }

    let prepared = Prepared::new(&analyzer, library, Vec::new(), args.min_terms, snapshot);
    if prepared.is_empty() {
        bail!(
            "no documents with at least {} terms to evaluate",
            args.min_terms
        );
    }
    if let Some(spec) = sweep {
        let report = run_sweep(&prepared, &options, &spec)?;
        if let Some(path) = &args.plot {
            dupfinder::eval::plots::plot_sweep(&report, path)?;
        }
        if args.json {
            serde_json::to_writer_pretty(&mut out, &report)?;
        } else {
            print_sweep(&report, &mut out)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let report = run_pool(&prepared, &options);
    if args.json {
        serde_json::to_writer_pretty(&mut out, &report)?;
    } else {
        print_pool(&report, &mut out)?;
    }
    Ok(ExitCode::SUCCESS)
}
