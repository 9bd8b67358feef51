//! `dupfinder dedup`: every document of a library checked against the library, the duplicates
//! clustered, the clusters printed as a table (on a terminal), JSON (otherwise, or `--json`,
//! `--format json`) or CSV; a progress bar on standard error, and Ctrl-C stops keeping what was
//! checked (the next run resumes).

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use indicatif::ProgressBar;

use super::config::{GlobalArgs, configure, open_catalog};
use super::output::progress_style;
use super::remote::{Remote, segment};
use dupfinder::batch::csv_field as csv;
use dupfinder::dedup::{ClusterSet, DedupControl, DedupOutcome, DedupStore, run_dedup};

#[derive(Args)]
pub(crate) struct DedupArgs {
    #[arg(long)]
    library: String,
    /// How the clusters are printed on standard output. Default: a table on a terminal, JSON
    /// otherwise (and with `--json`).
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Score the clusters against planted truth (OUT/truth.jsonl of `gen-tests
    /// --planted-groups`) and print the scores as JSON instead of the clusters.
    #[arg(long)]
    truth: Option<std::path::PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Table,
    Json,
    Csv,
}

impl DedupArgs {
    fn format(&self, global: &GlobalArgs) -> Format {
        use std::io::IsTerminal;
        match self.format {
            Some(format) => format,
            None if global.json || !std::io::stdout().is_terminal() => Format::Json,
            None => Format::Table,
        }
    }
}

/// The clusters as a table: one line per document, the canonical record first, then its
/// members with the verdict, the similarity and the relation; the related pairs' count.
fn print_table(clusters: &[serde_json::Value], related: usize, out: &mut impl Write) -> Result<()> {
    let mut rows = vec![[
        "cluster".to_string(),
        "document".to_string(),
        "verdict".to_string(),
        "similarity".to_string(),
        "relation".to_string(),
    ]];
    for cluster in clusters {
        let id = match &cluster["id"] {
            serde_json::Value::String(id) => id.clone(),
            other => other.to_string(),
        };
        rows.push([
            id,
            format!(
                "{} (canonical)",
                cluster["canonical"].as_str().unwrap_or("?")
            ),
            String::new(),
            String::new(),
            String::new(),
        ]);
        for member in cluster["members"].as_array().into_iter().flatten() {
            rows.push([
                String::new(),
                member["doc_id"].as_str().unwrap_or("?").to_string(),
                member["verdict"].as_str().unwrap_or_default().to_string(),
                dupfinder::reports::numbers::percent(
                    member["similarity"].as_f64().unwrap_or(0.0),
                    1,
                    "en",
                ),
                member["relation"].as_str().unwrap_or_default().to_string(),
            ]);
        }
    }
    let mut widths = [0usize; 5];
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    for row in &rows {
        let line: Vec<String> = row
            .iter()
            .zip(widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        writeln!(out, "{}", line.join("  ").trim_end())?;
    }
    writeln!(
        out,
        "{} clusters; {related} related pairs (shared passages, not duplicates)",
        clusters.len()
    )?;
    Ok(())
}

/// A cluster as JSON, as the API lists it.
fn cluster_json(c: &dupfinder::dedup::Cluster) -> serde_json::Value {
    serde_json::json!({
        "id": c.id,
        "canonical": c.canonical,
        "size": c.size(),
        "members": c.members,
    })
}

pub(crate) fn run(args: DedupArgs, global: &GlobalArgs) -> Result<ExitCode> {
    if let Some(remote) = global.remote()? {
        return run_remote(args, &remote, global);
    }
    let catalog = open_catalog(&configure(global, None)?)?;
    let store = catalog.store(&args.library)?;
    let cancel = super::ctrl_c::stop_on_ctrl_c("stopping: keeping what was checked")?;
    if dupfinder::dedup::has_unfinished(store.as_ref()) {
        eprintln!("resuming the unfinished dedup of `{}`", args.library);
    }
    let bar = ProgressBar::new(0)
        .with_style(progress_style("checking {msg} {bar:40} {pos}/{len} {rate}"));
    bar.set_message(args.library.clone());
    let started = std::time::Instant::now();
    let control = DedupControl {
        cancel: Some(&cancel),
    };
    let outcome = run_dedup(&catalog, &args.library, &control, |done, total| {
        bar.set_length(total);
        bar.set_position(done);
    })?;
    bar.finish_and_clear();
    match outcome {
        DedupOutcome::Finished {
            documents,
            edges,
            clusters,
        } => eprintln!(
            "deduplicated `{}`: {documents} documents, {edges} edges, {clusters} clusters, {:.2}s",
            args.library,
            started.elapsed().as_secs_f64()
        ),
        DedupOutcome::Cancelled { done } => {
            eprintln!(
                "dupfinder: the dedup of `{}` stopped after {done} documents; run it again to resume",
                args.library
            );
            return Ok(ExitCode::FAILURE);
        }
    }
    let set = DedupStore::of(store.as_ref())
        .clusters()?
        .unwrap_or_default();
    if let Some(path) = &args.truth {
        let truth = dupfinder::eval::read_truth(path)
            .with_context(|| format!("reading {}", path.display()))?;
        let scores = dupfinder::eval::score_clusters(&set, &truth);
        let report = serde_json::json!({
            "library": args.library,
            "seconds": started.elapsed().as_secs_f64(),
            "clusters": set.clusters.len(),
            "scores": scores,
        });
        outln!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match args.format(global) {
        Format::Table => {
            let clusters: Vec<serde_json::Value> = set.clusters.iter().map(cluster_json).collect();
            print_table(&clusters, set.related.len(), &mut out)?
        }
        Format::Json => print_json(&set, &mut out)?,
        Format::Csv => print_csv(&set, &mut out)?,
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn print_json(set: &ClusterSet, out: &mut impl Write) -> Result<()> {
    let clusters: Vec<serde_json::Value> = set.clusters.iter().map(cluster_json).collect();
    let body = serde_json::json!({
        "total": clusters.len(),
        "clusters": clusters,
        "related": set.related,
        "rule": set.rule,
    });
    serde_json::to_writer_pretty(&mut *out, &body)?;
    writeln!(out)?;
    Ok(())
}

/// One row per document of a cluster: the canonical record first, with its own id as `via`
/// left empty and no similarity.
fn print_csv(set: &ClusterSet, out: &mut impl Write) -> Result<()> {
    writeln!(out, "cluster,doc_id,role,verdict,similarity,relation,via")?;
    for cluster in &set.clusters {
        writeln!(
            out,
            "{},{},canonical,,,,",
            cluster.id,
            csv(&cluster.canonical)
        )?;
        for member in &cluster.members {
            let verdict = serde_json::to_value(member.verdict)?;
            let relation = serde_json::to_value(member.relation)?;
            writeln!(
                out,
                "{},{},member,{},{:.4},{},{}",
                cluster.id,
                csv(&member.doc_id),
                verdict.as_str().unwrap_or_default(),
                member.similarity,
                relation.as_str().unwrap_or_default(),
                member.via.as_deref().map(csv).unwrap_or_default()
            )?;
        }
    }
    Ok(())
}

/// The dedup as a job of the running server, followed until it ends; the clusters then read
/// page by page from `GET /api/v1/libraries/{id}/duplicates`.
fn run_remote(args: DedupArgs, remote: &Remote, global: &GlobalArgs) -> Result<ExitCode> {
    if args.truth.is_some() {
        anyhow::bail!("--truth scores clusters on a data directory; run it without --server");
    }
    let library = segment(&args.library);
    let job = remote.json(remote.request(
        reqwest::Method::POST,
        &format!("/api/v1/libraries/{library}/dedup"),
    ))?;
    let finished = remote.follow_job(&job, &format!("checking {}", args.library))?;
    if finished["state"] != "done" {
        eprintln!(
            "dupfinder: the dedup of `{}` ended {}: {}",
            args.library,
            finished["state"].as_str().unwrap_or("?"),
            finished["error"].as_str().unwrap_or("stopped")
        );
        return Ok(ExitCode::FAILURE);
    }
    let mut clusters = Vec::new();
    let related = loop {
        let page = remote.get(&format!(
            "/api/v1/libraries/{library}/duplicates?limit=100&offset={}",
            clusters.len()
        ))?;
        let items = page["clusters"].as_array().cloned().unwrap_or_default();
        let total = page["total"].as_u64().unwrap_or(0) as usize;
        let empty = items.is_empty();
        clusters.extend(items);
        if empty || clusters.len() >= total {
            break page["related"].as_u64().unwrap_or(0) as usize;
        }
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match args.format(global) {
        Format::Table => print_table(&clusters, related, &mut out)?,
        Format::Json => {
            let body = serde_json::json!({ "total": clusters.len(), "clusters": clusters });
            serde_json::to_writer_pretty(&mut out, &body)?;
            writeln!(out)?;
        }
        Format::Csv => {
            writeln!(out, "cluster,doc_id,role,verdict,similarity")?;
            for cluster in &clusters {
                let id = cluster["id"].to_string();
                let id = id.trim_matches('"');
                writeln!(
                    out,
                    "{id},{},canonical,,",
                    csv(cluster["canonical"].as_str().unwrap_or_default())
                )?;
                for member in cluster["members"].as_array().into_iter().flatten() {
                    writeln!(
                        out,
                        "{id},{},member,{},{:.4}",
                        csv(member["doc_id"].as_str().unwrap_or_default()),
                        member["verdict"].as_str().unwrap_or_default(),
                        member["similarity"].as_f64().unwrap_or(0.0)
                    )?;
                }
            }
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `dedup` on a terminal printed JSON; its table reads as one line per document.
    #[test]
    fn the_table_has_a_line_per_document_and_readable_figures() {
        let clusters = vec![serde_json::json!({
            "id": 1, "canonical": "paper-a",
            "members": [{"doc_id": "paper-a-v2", "verdict": "duplicate", "similarity": 0.9731, "relation": "version"}],
        })];
        let mut out = Vec::new();
        print_table(&clusters, 3, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(lines[0].starts_with("cluster  document"), "{text}");
        assert!(lines[1].contains("paper-a (canonical)"), "{text}");
        assert!(
            lines[2].contains("paper-a-v2") && lines[2].contains("97.3\u{a0}%"),
            "{text}"
        );
        assert_eq!(
            lines[3],
            "1 clusters; 3 related pairs (shared passages, not duplicates)"
        );
    }
}
