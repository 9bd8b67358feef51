//! The macro benchmark (not a test): builds a library, then measures what an operator and a
//! portal see — ingest (docs/s, MB/s), snapshot + signing, a full re-index, index bytes per
//! document, peak memory, check latency p50/p99 for exact copies, near copies (5 % of the words
//! replaced) and novel texts with and without passages, the floor (analyzing the query alone),
//! and throughput under concurrent load over loopback HTTP.
//!
//! ```sh
//! cargo bench --bench scale -- synthetic 10000 100000 1000000   # Zipf vocabulary, abstract lengths
//! cargo bench --bench scale -- acl ../shared/corpus/acl_abstracts.jsonl.gz
//! # options (after the sizes or the path): --dir DIR (default /tmp/dupfinder-scale)
//! #   --queries N (1000)  --load-secs S (10)  --concurrency C (16)
//! #   --reuse: measure an already built library again (no import; ingest is not reported)
//! ```
//! Each library is built and measured in its own process (the bench runs itself again), so the
//! peak memory reported is that library's alone. One JSON object per library is appended to
//! `DIR/results.jsonl`.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[path = "common/memory.rs"]
mod memory;

use dupfinder::analysis::analyze_text;
use dupfinder::api::{AppState, router};
use dupfinder::check::{CheckRequest, Verdict, check};
use dupfinder::config::Config;
use dupfinder::crawl::CrawlService;
use dupfinder::eval::synthetic::SyntheticCorpus;
use dupfinder::library::{Catalog, Jobs, import_file};
use serde_json::{Value, json};

use memory::{memory_mb, status_mb};

const LIBRARY: &str = "bench";
const VOCABULARY: usize = 200_000;

struct Options {
    dir: PathBuf,
    queries: usize,
    load_secs: u64,
    concurrency: usize,
    reuse: bool,
}

/// The texts a run needs: the library file, and the queries of each kind with their source.
struct Workload {
    label: String,
    library_file: PathBuf,
    exact: Vec<(String, String)>,
    near: Vec<(String, String)>,
    novel: Vec<String>,
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let mut positional = Vec::new();
    let mut options = Options {
        dir: PathBuf::from("/tmp/dupfinder-scale"),
        queries: 1000,
        load_secs: 10,
        concurrency: 16,
        reuse: false,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = || it.next().expect("a value after the option").clone();
        match arg.as_str() {
            "--dir" => options.dir = PathBuf::from(value()),
            "--queries" => options.queries = value().parse().expect("--queries N"),
            "--load-secs" => options.load_secs = value().parse().expect("--load-secs S"),
            "--concurrency" => options.concurrency = value().parse().expect("--concurrency C"),
            "--reuse" => options.reuse = true,
            _ => positional.push(arg.clone()),
        }
    }
    std::fs::create_dir_all(&options.dir).unwrap();
    match positional.first().map(String::as_str) {
        Some("synthetic") => {
            for size in &positional[1..] {
                run_child(&["one-synthetic", size], &options);
            }
        }
        Some("acl") => run_child(&["one-acl", &positional[1]], &options),
        Some("one-synthetic") => {
            let size: u64 = positional[1].parse().expect("a size");
            measure(synthetic_workload(size, &options), &options);
        }
        Some("one-acl") => measure(acl_workload(Path::new(&positional[1]), &options), &options),
        _ => {
            eprintln!(
                "usage: scale (synthetic SIZE… | acl PATH) [--dir D] [--queries N] [--load-secs S] [--concurrency C]"
            );
            std::process::exit(2);
        }
    }
}

/// Runs one measurement in a fresh process of this bench.
fn run_child(what: &[&str], options: &Options) {
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args(what)
        .args(["--dir", options.dir.to_str().unwrap()])
        .args(["--queries", &options.queries.to_string()])
        .args(["--load-secs", &options.load_secs.to_string()])
        .args(["--concurrency", &options.concurrency.to_string()])
        .args(options.reuse.then_some("--reuse"))
        .status()
        .unwrap();
    assert!(status.success(), "{what:?} failed");
}

fn synthetic_workload(size: u64, options: &Options) -> Workload {
    let corpus = SyntheticCorpus::new(VOCABULARY, 1.0, 42);
    let path = options.dir.join(format!("synthetic-{size}.jsonl"));
    if !path.exists() && !options.reuse {
        let started = Instant::now();
        let tmp = path.with_extension("tmp");
        let mut out = std::io::BufWriter::new(std::fs::File::create(&tmp).unwrap());
        for n in 0..size {
            let line = json!({"id": format!("s{n}"), "title": corpus.title(n), "text": corpus.document(n), "lang": "en"});
            writeln!(out, "{line}").unwrap();
        }
        out.flush().unwrap();
        std::fs::rename(&tmp, &path).unwrap();
        eprintln!(
            "generated {size} documents in {:.1}s",
            started.elapsed().as_secs_f64()
        );
    }
    let picks = spread(options.queries, size);
    Workload {
        label: format!("synthetic-{size}"),
        library_file: path,
        exact: picks
            .iter()
            .map(|&n| (format!("s{n}"), corpus.document(n)))
            .collect(),
        near: picks
            .iter()
            .map(|&n| (format!("s{n}"), corpus.near_copy(n, 0.05)))
            .collect(),
        novel: (0..options.queries as u64)
            .map(|i| corpus.document(size + 1_000_000_000 + i))
            .collect(),
    }
}

/// ACL abstracts: the last `queries` documents of 50 words or more are held out (the novel
/// queries); the rest is the library.
fn acl_workload(corpus: &Path, options: &Options) -> Workload {
    let reader = std::io::BufReader::new(flate2::read::GzDecoder::new(
        std::fs::File::open(corpus).unwrap(),
    ));
    let lines: Vec<String> = reader.lines().map(Result::unwrap).collect();
    let parsed: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let text = |v: &Value| v["text"].as_str().unwrap_or_default().to_string();
    let long: Vec<usize> = (0..parsed.len())
        .filter(|&i| text(&parsed[i]).split_whitespace().count() >= 50)
        .collect();
    let held: std::collections::HashSet<usize> =
        long.iter().rev().take(options.queries).copied().collect();
    let path = options.dir.join("acl-library.jsonl");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    for (i, line) in lines.iter().enumerate() {
        if !held.contains(&i) {
            writeln!(out, "{line}").unwrap();
        }
    }
    out.flush().unwrap();
    let in_library: Vec<usize> = long.iter().filter(|i| !held.contains(i)).copied().collect();
    let picks: Vec<usize> = spread(options.queries, in_library.len() as u64)
        .into_iter()
        .map(|k| in_library[k as usize])
        .collect();
    let id = |i: usize| parsed[i]["id"].as_str().unwrap_or_default().to_string();
    Workload {
        label: "acl_abstracts".to_string(),
        library_file: path,
        exact: picks.iter().map(|&i| (id(i), text(&parsed[i]))).collect(),
        near: picks
            .iter()
            .map(|&i| (id(i), replace_words(&text(&parsed[i]), 0.05, &parsed, i)))
            .collect(),
        novel: held.iter().map(|&i| text(&parsed[i])).collect(),
    }
}

/// `count` document numbers spread over `0..size`.
fn spread(count: usize, size: u64) -> Vec<u64> {
    let count = (count as u64).min(size);
    (0..count)
        .map(|k| (k * size / count + k * 7919) % size)
        .collect()
}

/// Replaces a share of the words of `text` with words of other documents of the corpus.
fn replace_words(text: &str, share: f64, corpus: &[Value], seed: usize) -> String {
    let mut words: Vec<String> = text.split_whitespace().map(str::to_string).collect();
    let donor = corpus[(seed * 31 + 17) % corpus.len()]["text"]
        .as_str()
        .unwrap_or("replacement words")
        .split_whitespace()
        .collect::<Vec<_>>();
    let replace = ((words.len() as f64 * share).round() as usize).max(1);
    for k in 0..replace {
        let at = (seed * 13 + k * 37) % words.len();
        words[at] = donor[(k * 11) % donor.len()].to_string();
    }
    words.join(" ")
}

/// The largest anonymous resident memory (heap and stacks, not mapped files) seen by a thread
/// sampling every 50 ms: what the process itself holds.
fn track_anonymous_peak() -> Arc<std::sync::atomic::AtomicU64> {
    let peak = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let sampled = peak.clone();
    std::thread::spawn(move || {
        loop {
            let kb = (status_mb("RssAnon:") * 1024.0) as u64;
            sampled.fetch_max(kb, std::sync::atomic::Ordering::Relaxed);
            std::thread::sleep(Duration::from_millis(50));
        }
    });
    peak
}

fn dir_bytes(path: &Path) -> u64 {
    std::fs::read_dir(path)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| match e.file_type() {
                    Ok(t) if t.is_dir() => dir_bytes(&e.path()),
                    _ => e.metadata().map(|m| m.len()).unwrap_or(0),
                })
                .sum()
        })
        .unwrap_or(0)
}

/// p50 and p99 of latencies in milliseconds.
fn percentiles(mut ms: Vec<f64>) -> Value {
    if ms.is_empty() {
        return json!(null);
    }
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| ms[((ms.len() as f64 * q).ceil() as usize).clamp(1, ms.len()) - 1];
    json!({"p50": round(at(0.5)), "p99": round(at(0.99)), "mean": round(ms.iter().sum::<f64>() / ms.len() as f64)})
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn measure(workload: Workload, options: &Options) {
    let anonymous_peak = track_anonymous_peak();
    let anonymous_mb =
        || round(anonymous_peak.load(std::sync::atomic::Ordering::Relaxed) as f64 / 1024.0);
    let data = options.dir.join(format!("data-{}", workload.label));
    if !options.reuse {
        let _ = std::fs::remove_dir_all(&data);
    }
    let mut config = Config::default();
    config.storage.data_dir = data.clone();
    let catalog = Arc::new(Catalog::open(&config).unwrap());

    let ingest = if options.reuse {
        json!(null)
    } else {
        eprintln!("{}: importing", workload.label);
        let summary = import_file(&catalog, LIBRARY, &workload.library_file, &()).unwrap();
        let (_, peak_import) = memory_mb();
        json!({
            "seconds": round(summary.import_seconds),
            "docs_per_s": round(summary.accepted as f64 / summary.import_seconds),
            "mb_per_s": round(summary.bytes as f64 / 1e6 / summary.import_seconds),
            "json_mb": round(summary.bytes as f64 / 1e6),
            "rejected": summary.rejected.len(),
            "merge_snapshot_sign_seconds": round(summary.signing_seconds),
            "peak_rss_mb": round(peak_import),
            "peak_anonymous_mb": anonymous_mb(),
        })
    };
    let index = catalog.index(LIBRARY).unwrap();
    let documents = index.summary().documents;
    eprintln!("{}: re-indexing", workload.label);
    let started = Instant::now();
    index.rebuild_statistics(|_| {}).unwrap();
    let reindex_seconds = started.elapsed().as_secs_f64();
    let index_bytes = dir_bytes(index.dir());

    eprintln!("{}: checking", workload.label);
    let latency =
        |texts: &[&str],
         passages: bool,
         expect: &dyn Fn(usize, &dupfinder::check::CheckReport) -> bool| {
            let mut ms = Vec::with_capacity(texts.len());
            let mut good = 0;
            for (i, text) in texts.iter().enumerate() {
                let mut request = CheckRequest::new(*text);
                request.passages = passages;
                let started = Instant::now();
                let report = check(&catalog, &request).unwrap();
                ms.push(started.elapsed().as_secs_f64() * 1000.0);
                good += usize::from(expect(i, &report));
            }
            (percentiles(ms), good)
        };
    let exact: Vec<&str> = workload.exact.iter().map(|(_, t)| t.as_str()).collect();
    let near: Vec<&str> = workload.near.iter().map(|(_, t)| t.as_str()).collect();
    let novel: Vec<&str> = workload.novel.iter().map(String::as_str).collect();
    let found = |sources: &[(String, String)]| {
        let ids: Vec<String> = sources.iter().map(|(id, _)| id.clone()).collect();
        move |i: usize, report: &dupfinder::check::CheckReport| {
            report
                .matches
                .iter()
                .any(|m| m.doc_id == ids[i] && m.verdict == Verdict::Duplicate)
        }
    };
    let original = |_: usize, report: &dupfinder::check::CheckReport| report.matches.is_empty();
    let mut checks = serde_json::Map::new();
    for passages in [false, true] {
        let suffix = if passages { "_passages" } else { "" };
        let (p, ok) = latency(&exact, passages, &found(&workload.exact));
        checks.insert(
            format!("exact{suffix}"),
            json!({"latency_ms": p, "found": ok, "of": exact.len()}),
        );
        let (p, ok) = latency(&near, passages, &found(&workload.near));
        checks.insert(
            format!("near{suffix}"),
            json!({"latency_ms": p, "found": ok, "of": near.len()}),
        );
        let (p, ok) = latency(&novel, passages, &original);
        checks.insert(
            format!("novel{suffix}"),
            json!({"latency_ms": p, "no_match": ok, "of": novel.len()}),
        );
    }
    // The floor: analyzing the query text alone, as every check must.
    let floor = |texts: &[&str]| {
        let ms: Vec<f64> = texts
            .iter()
            .map(|text| {
                let started = Instant::now();
                let analyzed = analyze_text(
                    catalog.analyzer(),
                    text,
                    None,
                    catalog.config().limits.text(),
                );
                std::hint::black_box(&analyzed);
                started.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        percentiles(ms)
    };
    let floor = json!({"exact": floor(&exact), "near": floor(&near), "novel": floor(&novel)});

    eprintln!("{}: load over loopback", workload.label);
    let load = load_test(&catalog, &workload, options);
    let (rss, peak) = memory_mb();
    let result = json!({
        "library": workload.label,
        "documents": documents,
        "ingest": ingest,
        "reindex_seconds": round(reindex_seconds),
        "index_bytes_per_doc": index_bytes / documents.max(1),
        "index_mb": round(index_bytes as f64 / 1e6),
        "peak_rss_mb": round(peak),
        "peak_anonymous_mb": anonymous_mb(),
        "rss_mb_end": round(rss),
        "checks": checks,
        "analysis_floor_ms": floor,
        "load": load,
    });
    println!("{}", serde_json::to_string_pretty(&result).unwrap());
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(options.dir.join("results.jsonl"))
        .unwrap();
    writeln!(out, "{result}").unwrap();
}

/// Mixed checks (exact, near, novel; no passages) from `concurrency` clients for `load_secs`
/// seconds against a real server on loopback.
fn load_test(catalog: &Arc<Catalog>, workload: &Workload, options: &Options) -> Value {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let state = AppState::new(
            catalog.clone(),
            CrawlService::open(catalog.clone()).unwrap(),
            Jobs::new(catalog.clone()),
        );
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(async move {
            axum::serve(listener, router(state))
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await
                .unwrap();
        });
        let bodies: Arc<Vec<String>> = Arc::new(
            workload
                .exact
                .iter()
                .map(|(_, t)| t)
                .chain(workload.near.iter().map(|(_, t)| t))
                .chain(workload.novel.iter())
                .map(|t| json!({"text": t, "libraries": [LIBRARY]}).to_string())
                .collect(),
        );
        let client = reqwest::Client::new();
        let url = format!("http://{addr}/api/v1/check");
        let deadline = Instant::now() + Duration::from_secs(options.load_secs);
        let started = Instant::now();
        let mut tasks = Vec::new();
        for worker in 0..options.concurrency {
            let (client, url, bodies) = (client.clone(), url.clone(), bodies.clone());
            tasks.push(tokio::spawn(async move {
                let mut ms = Vec::new();
                let mut failed = 0usize;
                let mut k = worker * 7919;
                while Instant::now() < deadline {
                    let body = bodies[k % bodies.len()].clone();
                    k += 1;
                    let sent = Instant::now();
                    let response = client
                        .post(&url)
                        .header("content-type", "application/json")
                        .body(body)
                        .send()
                        .await;
                    match response {
                        Ok(r) if r.status().is_success() => {
                            let _ = r.bytes().await;
                            ms.push(sent.elapsed().as_secs_f64() * 1000.0);
                        }
                        _ => failed += 1,
                    }
                }
                (ms, failed)
            }));
        }
        let mut all = Vec::new();
        let mut failed = 0;
        for task in tasks {
            let (ms, f) = task.await.unwrap();
            all.extend(ms);
            failed += f;
        }
        let seconds = started.elapsed().as_secs_f64();
        let _ = stop.send(());
        server.await.unwrap();
        json!({
            "concurrency": options.concurrency,
            "seconds": round(seconds),
            "requests": all.len(),
            "failed": failed,
            "checks_per_s": round(all.len() as f64 / seconds),
            "latency_ms": percentiles(all),
        })
    })
}
