//! Many libraries, one check (not a test): the same documents spread over K libraries, for each
//! K in one run, measured by the check itself (`took_ms`, in process, release build).
//!
//! ```sh
//! cargo bench --bench libraries -- ../shared/corpus/acl_abstracts.jsonl.gz \
//!     --docs 51200 --libraries 1,100,1000,10000 --queries 300
//! # options: --dir DIR (default /tmp/dupfinder-libraries), --reuse (measure what was built)
//! ```
//! The corpus is JSON Lines (gzip or not) with `id` and `text`. The last `queries` documents of
//! 50 words or more are held out as the novel queries; the first `docs` of the others are the
//! library documents, dealt round-robin to the K libraries (`lib00000`, `lib00001`, …). Queries:
//! exact copies of library documents, near copies (5 % of their words replaced) and the novel
//! texts, each checked against every library (no `libraries` in the request).
//!
//! Each K is built and measured in its own process (the bench runs itself again), so that its
//! memory, descriptors and threads are its own. Reported per K: build time, the time to open
//! the data directory (a server's start), resident memory, open descriptors and threads after
//! opening and after the queries, how many libraries were open then, check p50 and p99 per kind,
//! how many libraries a check looked in, and how often the source was found. One JSON object
//! per K is appended to `DIR/results.jsonl`, and a table printed at the end.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[path = "common/memory.rs"]
mod memory;

use dupfinder::check::{CheckRequest, Verdict};
use dupfinder::config::Config;
use dupfinder::library::{Catalog, check};
use dupfinder::storage::ingest::{DocumentInput, IdValue, prepare};
use serde_json::{Value, json};

use memory::{memory_mb, status_mb};

struct Options {
    corpus: PathBuf,
    docs: usize,
    libraries: Vec<usize>,
    queries: usize,
    dir: PathBuf,
    reuse: bool,
}

fn parse() -> Options {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let mut options = Options {
        corpus: PathBuf::new(),
        docs: 51_200,
        libraries: vec![1, 100, 1000, 10_000],
        queries: 300,
        dir: PathBuf::from("/tmp/dupfinder-libraries"),
        reuse: false,
    };
    let mut i = 0;
    while i < args.len() {
        let value = |i: usize| args.get(i + 1).cloned().expect("a value after the option");
        match args[i].as_str() {
            "--docs" => options.docs = value(i).parse().expect("--docs N"),
            "--libraries" => {
                options.libraries = value(i)
                    .split(',')
                    .map(|k| k.parse().expect("--libraries K,K,…"))
                    .collect()
            }
            "--queries" => options.queries = value(i).parse().expect("--queries N"),
            "--dir" => options.dir = PathBuf::from(value(i)),
            "--reuse" => {
                options.reuse = true;
                i += 1;
                continue;
            }
            path => {
                options.corpus = PathBuf::from(path);
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    assert!(
        options.corpus.is_file(),
        "give the corpus path (JSON Lines with id and text)"
    );
    options
}

/// The corpus: the library documents and the queries of each kind.
struct Workload {
    documents: Vec<(String, String)>,
    exact: Vec<(String, String)>,
    near: Vec<(String, String)>,
    novel: Vec<String>,
}

fn workload(options: &Options) -> Workload {
    let mut raw = Vec::new();
    std::fs::File::open(&options.corpus)
        .and_then(|mut f| f.read_to_end(&mut raw))
        .expect("the corpus reads");
    let text = if raw.starts_with(&[0x1f, 0x8b]) {
        let mut out = String::new();
        flate2::read::GzDecoder::new(&raw[..])
            .read_to_string(&mut out)
            .expect("the corpus inflates");
        out
    } else {
        String::from_utf8(raw).expect("the corpus is UTF-8")
    };
    let parsed: Vec<(String, String)> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|v| {
            (
                v["id"].as_str().unwrap_or_default().to_string(),
                v["text"].as_str().unwrap_or_default().to_string(),
            )
        })
        .filter(|(id, text)| !id.is_empty() && text.split_whitespace().count() >= 20)
        .collect();
    let long = |t: &str| t.split_whitespace().count() >= 50;
    let mut novel = Vec::new();
    let mut held = std::collections::HashSet::new();
    for (i, (_, t)) in parsed.iter().enumerate().rev() {
        if novel.len() == options.queries {
            break;
        }
        if long(t) {
            novel.push(t.clone());
            held.insert(i);
        }
    }
    let documents: Vec<(String, String)> = parsed
        .iter()
        .enumerate()
        .filter(|(i, _)| !held.contains(i))
        .map(|(_, d)| d.clone())
        .take(options.docs)
        .collect();
    let candidates: Vec<usize> = (0..documents.len())
        .filter(|&i| long(&documents[i].1))
        .collect();
    let picks: Vec<usize> = (0..options.queries.min(candidates.len()))
        .map(|k| candidates[(k * 7919 + k * candidates.len() / options.queries) % candidates.len()])
        .collect();
    let exact = picks.iter().map(|&i| documents[i].clone()).collect();
    let near = picks
        .iter()
        .map(|&i| {
            let (id, text) = &documents[i];
            let donor = &documents[(i * 31 + 17) % documents.len()].1;
            (id.clone(), replace_words(text, 0.05, donor, i))
        })
        .collect();
    Workload {
        documents,
        exact,
        near,
        novel,
    }
}

/// Replaces a share of the words of `text` with words of `donor`.
fn replace_words(text: &str, share: f64, donor: &str, seed: usize) -> String {
    let mut words: Vec<&str> = text.split_whitespace().collect();
    let donor: Vec<&str> = donor.split_whitespace().collect();
    let replace = ((words.len() as f64 * share).round() as usize).max(1);
    for k in 0..replace {
        let at = (seed * 13 + k * 37) % words.len();
        words[at] = donor[(k * 11) % donor.len()];
    }
    words.join(" ")
}

fn library_id(k: usize) -> String {
    format!("lib{k:05}")
}

fn config(dir: &Path) -> Config {
    let mut config = Config::default();
    config.storage.data_dir = dir.to_path_buf();
    config
}

/// Threads writing libraries while the benchmark builds its data directory.
const WRITERS: usize = 8;

/// Creates library `id` and writes `documents` into it in batches.
fn write_library(
    storage: &dyn dupfinder::storage::Storage,
    analyzer: &dupfinder::analysis::Analyzer,
    limits: dupfinder::analysis::TextLimits,
    id: &str,
    documents: &[&(String, String)],
) {
    storage.create(id).expect("a library is created");
    for batch in documents.chunks(2000) {
        // A corpus line the analyzer finds no terms in is skipped, as an import would.
        let prepared: Vec<_> = batch
            .iter()
            .filter_map(|(doc_id, text)| {
                let input = DocumentInput {
                    id: Some(IdValue::Text(doc_id.clone())),
                    text: Some(text.clone()),
                    lang: Some("en".to_string()),
                    ..Default::default()
                };
                prepare(analyzer, limits, input).ok()
            })
            .collect();
        storage.write(id, &prepared).expect("documents are written");
    }
}

/// Writes the documents, dealt round-robin to `libraries` libraries.
fn build(dir: &Path, workload: &Workload, libraries: usize) -> f64 {
    let started = Instant::now();
    let catalog = Catalog::open(&config(dir)).expect("the data directory opens");
    let storage = catalog.storage();
    let analyzer = catalog.analyzer();
    let limits = catalog.config().limits.text();
    let mut dealt: Vec<Vec<&(String, String)>> = vec![Vec::new(); libraries];
    for (n, document) in workload.documents.iter().enumerate() {
        dealt[n % libraries].push(document);
    }
    // Libraries are written by several threads: each write waits for its fsyncs.
    let written = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for worker in 0..WRITERS {
            let (dealt, written) = (&dealt, &written);
            scope.spawn(move || {
                for k in (worker..libraries).step_by(WRITERS) {
                    write_library(storage, analyzer, limits, &library_id(k), &dealt[k]);
                    let done = written.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                    if done % 1000 == 0 {
                        eprintln!("  {done} of {libraries} libraries written");
                    }
                }
            });
        }
    });
    // Statistics of the whole library, as an operator would have after an import (a library
    // written in one batch has them from its first write).
    for (k, documents) in dealt.iter().enumerate() {
        if documents.len() > 2000 {
            let store = catalog.store(&library_id(k)).unwrap();
            store.reindex(&Default::default(), &mut |_| {}).unwrap();
        }
    }
    started.elapsed().as_secs_f64()
}

/// Open descriptors and threads of this process.
fn descriptors_and_threads() -> (usize, f64) {
    let fds = std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count());
    let threads = std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("Threads:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0.0);
    (fds, threads)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Checks every query of one kind: p50, p99, mean libraries looked in, and found share.
fn measure(catalog: &Catalog, queries: &[(Option<&str>, &str)]) -> Value {
    let mut took = Vec::new();
    let mut looked = 0usize;
    let mut found = 0usize;
    for (source, text) in queries {
        let report = check(catalog, &CheckRequest::new(*text)).expect("the check runs");
        took.push(report.took_ms);
        looked += report.generations.len();
        let hit = match source {
            Some(source) => report.matches.iter().any(|m| m.doc_id == *source),
            None => report.verdict == Verdict::Original,
        };
        found += usize::from(hit);
    }
    took.sort_by(f64::total_cmp);
    json!({
        "p50_ms": percentile(&took, 0.5),
        "p99_ms": percentile(&took, 0.99),
        "libraries_looked_in": looked as f64 / queries.len().max(1) as f64,
        "as_expected": found as f64 / queries.len().max(1) as f64,
    })
}

/// One K, in its own process.
fn run_one(options: &Options, libraries: usize) -> Value {
    let workload = workload(options);
    let dir = options.dir.join(format!("k{libraries}"));
    let built = if options.reuse && dir.exists() {
        None
    } else {
        let _ = std::fs::remove_dir_all(&dir);
        Some(build(&dir, &workload, libraries))
    };
    let (fds_before, threads_before) = descriptors_and_threads();
    let rss_before = status_mb("VmRSS:");
    let started = Instant::now();
    let catalog = Catalog::open(&config(&dir)).expect("the data directory opens");
    let open_secs = started.elapsed().as_secs_f64();
    let (fds_open, threads_open) = descriptors_and_threads();
    let rss_open = status_mb("VmRSS:");

    let exact: Vec<(Option<&str>, &str)> = workload
        .exact
        .iter()
        .map(|(id, t)| (Some(id.as_str()), t.as_str()))
        .collect();
    let near: Vec<(Option<&str>, &str)> = workload
        .near
        .iter()
        .map(|(id, t)| (Some(id.as_str()), t.as_str()))
        .collect();
    let novel: Vec<(Option<&str>, &str)> =
        workload.novel.iter().map(|t| (None, t.as_str())).collect();
    // One warm-up pass, as a server that has served for a while.
    measure(&catalog, &exact[..exact.len().min(20)]);
    // Opening a library nobody used yet (at most 100 of them): what a check pays the first time
    // it looks in one.
    let mut opens = Vec::new();
    for k in 0..libraries {
        let id = library_id(k);
        if opens.len() == 100 {
            break;
        }
        if catalog.storage().is_open(&id) {
            continue;
        }
        let started = Instant::now();
        catalog.store(&id).expect("a library opens");
        opens.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    opens.sort_by(f64::total_cmp);
    let maps = std::fs::read_to_string("/proc/self/maps").map_or(0, |m| m.lines().count());
    let result = json!({
        "open_library_ms_p50": percentile(&opens, 0.5),
        "memory_maps": maps,
        "libraries": libraries,
        "documents": workload.documents.len(),
        "build_secs": built,
        "open_secs": open_secs,
        "rss_mb_open": rss_open - rss_before,
        "fds_open": fds_open - fds_before,
        "threads_open": threads_open - threads_before,
        "exact": measure(&catalog, &exact),
        "near": measure(&catalog, &near),
        "novel": measure(&catalog, &novel),
        "rss_mb_after": status_mb("VmRSS:") - rss_before,
        "peak_rss_mb": memory_mb().1,
        "fds_after": descriptors_and_threads().0 - fds_before,
        "threads_after": descriptors_and_threads().1 - threads_before,
    });
    result
}

fn main() {
    let options = parse();
    if let Ok(k) = std::env::var("DUPFINDER_BENCH_K") {
        let result = run_one(&options, k.parse().expect("a library count"));
        println!("RESULT {result}");
        return;
    }
    std::fs::create_dir_all(&options.dir).unwrap();
    let mut results = Vec::new();
    for &k in &options.libraries {
        eprintln!("K = {k}");
        let output = std::process::Command::new(std::env::current_exe().unwrap())
            .args(std::env::args().skip(1))
            .env("DUPFINDER_BENCH_K", k.to_string())
            .stderr(std::process::Stdio::inherit())
            .output()
            .expect("the bench runs itself");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let Some(line) = stdout.lines().find_map(|l| l.strip_prefix("RESULT ")) else {
            panic!("K = {k} failed: {stdout}");
        };
        let result: Value = serde_json::from_str(line).unwrap();
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(options.dir.join("results.jsonl"))
            .unwrap();
        writeln!(file, "{result}").unwrap();
        eprintln!("{result}");
        results.push(result);
    }
    println!(
        "| libraries | exact p50 / p99 ms | near p50 / p99 ms | novel p50 / p99 ms | looked in (exact/near/novel) | found (exact/near), novel original | open s | RSS MB | fds | threads |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for r in &results {
        let kind = |k: &str| {
            format!(
                "{:.2} / {:.2}",
                r[k]["p50_ms"].as_f64().unwrap_or(f64::NAN),
                r[k]["p99_ms"].as_f64().unwrap_or(f64::NAN)
            )
        };
        let looked = |k: &str| r[k]["libraries_looked_in"].as_f64().unwrap_or(f64::NAN);
        let share = |k: &str| r[k]["as_expected"].as_f64().unwrap_or(f64::NAN);
        println!(
            "| {} | {} | {} | {} | {:.1} / {:.1} / {:.1} | {:.2} / {:.2}, {:.2} | {:.2} | {:.0} | {} | {} |",
            r["libraries"],
            kind("exact"),
            kind("near"),
            kind("novel"),
            looked("exact"),
            looked("near"),
            looked("novel"),
            share("exact"),
            share("near"),
            share("novel"),
            r["open_secs"].as_f64().unwrap_or(f64::NAN),
            r["rss_mb_after"].as_f64().unwrap_or(f64::NAN),
            r["fds_after"],
            r["threads_after"],
        );
    }
    let _ = std::io::stdout().flush();
}
