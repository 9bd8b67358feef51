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
//!
//! The dedup mode measures the search for duplicates inside a library:
//!
//! ```sh
//! cargo bench --bench scale -- dedup 10000 100000 1000000   # --dir DIR, --reuse as above
//! ```
//! For each size, a library of about SIZE synthetic abstracts with planted duplicate groups
//! (one group per 100 documents, sizes 2–5, copies made with the generator's near-duplicate
//! modifications, and a partial copy per four groups; `eval::gen_planted`) is written and
//! imported in one process, then the dedup job runs in a fresh one, which prints the job's
//! time, its peak memory, the edges and clusters found, and the clusters' pairwise precision,
//! recall and F1 against the planted truth. `--reuse` runs the job again on the library built
//! before.
//!
//! The full-text mode measures full papers, not abstracts:
//!
//! ```sh
//! cargo bench --bench scale -- fulltext 10000 50000 --queries 200   # --dir DIR, --reuse
//! ```
//! The library holds synthetic full papers of about 5,000 words (front matter with authors,
//! affiliations shared across papers, e-mail, dates and keywords; an abstract; six numbered
//! sections of body text citing references; a reference list drawn from a pool the whole
//! library cites). The queries are 5,000-word manuscripts checked with passages (and so with
//! structure): ones that copy a paragraph from each of three library papers, and novel ones
//! that share only front-matter wording and references with the library. It reports ingest,
//! index and JSON bytes per document, check p50 and p99, and what was found.
//! `fulltext-corpus SIZE PATH` only writes such papers as JSON Lines (for `benches/libraries.rs`).

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[path = "common/memory.rs"]
mod memory;

use dupfinder::analysis::analyze_text;
use dupfinder::api::{AppState, router};
use dupfinder::check::{CheckRequest, Verdict};
use dupfinder::config::Config;
use dupfinder::crawl::CrawlService;
use dupfinder::dedup::{DedupControl, DedupOutcome, DedupStore, run_dedup};
use dupfinder::eval::synthetic::SyntheticCorpus;
use dupfinder::eval::{gen_planted, read_truth, score_clusters};
use dupfinder::library::check;
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
        Some("dedup") => {
            for size in &positional[1..] {
                if !options.reuse {
                    run_child(&["one-dedup-library", size], &options);
                }
                run_child(&["one-dedup", size], &options);
            }
        }
        Some("one-dedup-library") => {
            build_planted_library(positional[1].parse().expect("a size"), &options)
        }
        Some("one-dedup") => measure_dedup(positional[1].parse().expect("a size"), &options),
        Some("fulltext") => {
            for size in &positional[1..] {
                run_child(&["one-fulltext", size], &options);
            }
        }
        Some("one-fulltext") => measure_full_text(positional[1].parse().expect("a size"), &options),
        Some("fulltext-corpus") => write_full_papers(
            positional[1].parse().expect("a size"),
            Path::new(positional.get(2).expect("a path to write")),
        ),
        Some("one-synthetic") => {
            let size: u64 = positional[1].parse().expect("a size");
            measure(synthetic_workload(size, &options), &options);
        }
        Some("one-acl") => measure(acl_workload(Path::new(&positional[1]), &options), &options),
        _ => {
            eprintln!(
                "usage: scale (synthetic SIZE… | acl PATH | dedup SIZE… | fulltext SIZE… | fulltext-corpus SIZE PATH) [--dir D] [--queries N] [--load-secs S] [--concurrency C]"
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

/// Planted duplicate groups: one per this many documents.
const DOCUMENTS_PER_GROUP: u64 = 100;

/// Where the dedup mode keeps the library of `size` documents: its files and its data directory.
fn dedup_dir(size: u64, options: &Options) -> PathBuf {
    options.dir.join(format!("dedup-{size}"))
}

/// Writes a synthetic corpus, plants duplicate groups in it (`library.jsonl`, `truth.jsonl`)
/// and imports it into a fresh data directory.
fn build_planted_library(size: u64, options: &Options) {
    let dir = dedup_dir(size, options);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let groups = (size / DOCUMENTS_PER_GROUP).max(1);
    // Each group adds 1–4 copies (2.5 on average) and a quarter of a partial copy.
    let corpus_size = size - groups * 11 / 4;
    let started = Instant::now();
    let corpus = SyntheticCorpus::new(VOCABULARY, 1.0, 42);
    let corpus_file = dir.join("corpus.jsonl");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&corpus_file).unwrap());
    for n in 0..corpus_size {
        let line = json!({"id": format!("s{n}"), "title": corpus.title(n), "text": corpus.document(n), "lang": "en"});
        writeln!(out, "{line}").unwrap();
    }
    out.flush().unwrap();
    drop(out);
    let planted = gen_planted(&corpus_file, &dir, groups as usize, 42).unwrap();
    std::fs::remove_file(&corpus_file).unwrap();
    eprintln!(
        "dedup-{size}: {} documents, {} groups ({} documents), {} partial copies, written in {:.1}s",
        planted.library_documents,
        planted.groups,
        planted.grouped_documents,
        planted.partial_copies,
        started.elapsed().as_secs_f64()
    );
    let mut config = Config::default();
    config.storage.data_dir = dir.join("data");
    let catalog = Catalog::open(&config).unwrap();
    eprintln!("dedup-{size}: importing");
    let summary = import_file(&catalog, LIBRARY, &planted.library_file, &()).unwrap();
    eprintln!(
        "dedup-{size}: imported {} documents in {:.1}s (+{:.1}s statistics and signing)",
        summary.accepted, summary.import_seconds, summary.signing_seconds
    );
}

/// The 1-minute load average, as the kernel reports it.
fn load_average() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|l| l.parse().ok()))
        .unwrap_or(f64::NAN)
}

/// Runs the dedup job on the library [`build_planted_library`] made and scores its clusters.
fn measure_dedup(size: u64, options: &Options) {
    let anonymous_peak = track_anonymous_peak();
    let dir = dedup_dir(size, options);
    let mut config = Config::default();
    config.storage.data_dir = dir.join("data");
    let catalog = Catalog::open(&config).unwrap();
    let index = catalog.index(LIBRARY).unwrap();
    let documents = index.summary().documents;
    let load_before = load_average();
    eprintln!("dedup-{size}: the dedup job on {documents} documents");
    let reported = std::sync::atomic::AtomicU64::new(0);
    let started = Instant::now();
    let outcome = run_dedup(
        &catalog,
        LIBRARY,
        &DedupControl::default(),
        |done, total| {
            // About every 5 %.
            let step = (total / 20).max(1);
            if done / step > reported.load(std::sync::atomic::Ordering::Relaxed) {
                reported.store(done / step, std::sync::atomic::Ordering::Relaxed);
                eprintln!(
                    "  {done} of {total} in {:.0}s",
                    started.elapsed().as_secs_f64()
                );
            }
        },
    )
    .unwrap();
    let job_seconds = started.elapsed().as_secs_f64();
    let load_after = load_average();
    let DedupOutcome::Finished {
        edges, clusters, ..
    } = outcome
    else {
        panic!("the dedup job did not finish: {outcome:?}");
    };
    let (rss, peak) = memory_mb();
    let set = DedupStore::of(&*index)
        .clusters()
        .unwrap()
        .expect("the job saved its clusters");
    let truth = read_truth(&dir.join("truth.jsonl")).unwrap();
    let scores = score_clusters(&set, &truth);
    let largest = set.clusters.first().map_or(0, |c| c.size());
    let result = json!({
        "library": format!("dedup-{size}"),
        "documents": documents,
        "job_seconds": round(job_seconds),
        "docs_per_s": round(documents as f64 / job_seconds),
        "edges": edges,
        "clusters": clusters,
        "largest_cluster": largest,
        "related_pairs": set.related.len(),
        "peak_rss_mb": round(peak),
        "peak_anonymous_mb": round(anonymous_peak.load(std::sync::atomic::Ordering::Relaxed) as f64 / 1024.0),
        "rss_mb_end": round(rss),
        "load_average": {"start": load_before, "end": load_after},
        "planted": scores,
    });
    println!("{}", serde_json::to_string_pretty(&result).unwrap());
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(options.dir.join("results.jsonl"))
        .unwrap();
    writeln!(out, "{result}").unwrap();
}

/// Words of a synthetic full paper's body and references.
const PAPER_WORDS: usize = 5_000;
const PAPER_SECTIONS: [&str; 6] = [
    "Introduction",
    "Related work",
    "Materials and methods",
    "Results",
    "Discussion",
    "Conclusion",
];
/// Institutions the authors work at: few enough that papers share them, as a journal's do.
const INSTITUTIONS: u64 = 300;
/// Works the papers cite, the first ones far more often.
const CITED_WORKS: u64 = 50_000;
const REFERENCES_PER_PAPER: u64 = 30;
/// Number spaces of the synthetic corpus kept apart from the abstracts' own numbers.
const PARAGRAPHS_FROM: u64 = 1 << 40;
const NAMES_FROM: u64 = 1 << 41;
const WORKS_FROM: u64 = 1 << 42;
const PLACES_FROM: u64 = 1 << 43;
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// splitmix64: a well-mixed number of `x`, for choices that must be the same every run.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Syllables of the names of people, places and journals in the front matter and references.
const NAME_SYLLABLES: [&str; 24] = [
    "ka", "lo", "mer", "an", "sel", "ti", "ver", "do", "ra", "nik", "bel", "or", "sa", "hol", "mi",
    "den", "ga", "rus", "le", "tan", "vo", "ber", "is", "ko",
];

/// A capitalized name of two or three syllables, numbered `n` in the space `from`.
fn made_up_name(from: u64, n: u64) -> String {
    let h = mix(from ^ n.wrapping_mul(0x2545_F491_4F6C_DD1D));
    let syllables = 2 + h % 2;
    let mut name: String = (0..syllables)
        .map(|k| NAME_SYLLABLES[((h >> (8 + 5 * k)) % NAME_SYLLABLES.len() as u64) as usize])
        .collect();
    if let Some(first) = name.get(..1).map(str::to_uppercase) {
        name.replace_range(..1, &first);
    }
    name
}

/// Synthetic full papers made of the synthetic corpus's sentences.
struct FullPapers {
    corpus: SyntheticCorpus,
    /// The reference entry of every citable work, made once.
    references: Vec<String>,
}

impl FullPapers {
    fn new(corpus: SyntheticCorpus) -> Self {
        let mut papers = FullPapers {
            corpus,
            references: Vec::new(),
        };
        papers.references = (0..CITED_WORKS).map(|w| papers.reference(w)).collect();
        papers
    }

    fn author(&self, n: u64) -> String {
        let initial = made_up_name(NAMES_FROM + 1, n)
            .chars()
            .next()
            .unwrap_or('A');
        format!("{initial}. {}", made_up_name(NAMES_FROM, n))
    }

    fn institution(&self, n: u64) -> String {
        let place = made_up_name(PLACES_FROM, n);
        let field = self.corpus.title(PLACES_FROM + n);
        let field = field
            .split_whitespace()
            .next()
            .unwrap_or("word")
            .to_lowercase();
        format!("Department of {field} studies, University of {place}, {place} 10{n:03}")
    }

    /// Reference entry of cited work `w`.
    fn reference(&self, w: u64) -> String {
        let title = self.corpus.title(WORKS_FROM + w);
        let journal = made_up_name(PLACES_FROM + 1, w % 400);
        format!(
            "{}, {} ({}). {title}. Journal of {journal} studies {}({}), {}–{}.",
            self.author(3 * w + 1),
            self.author(3 * w + 2),
            1980 + w % 44,
            1 + w % 60,
            1 + w % 12,
            100 + w % 800,
            110 + w % 800 + w % 17,
        )
    }

    /// Body paragraph `k` of paper `n`: a synthetic abstract's worth of sentences.
    fn paragraph(&self, n: u64, k: u64) -> String {
        self.corpus.document(PARAGRAPHS_FROM + n * 1_000 + k)
    }

    /// Paper `n` with `inserted` paragraphs placed at the start of its sections 2, 3, 4, …
    fn paper(&self, n: u64, inserted: &[String]) -> String {
        let h = |k: u64| mix(n.wrapping_mul(1_000).wrapping_add(k));
        let mut text = self.corpus.title(n);
        let authors = 1 + h(1) % 4;
        let names: Vec<String> = (0..authors)
            .map(|a| format!("{}{}", self.author(h(10 + a) % 200_000), a % 2 + 1))
            .collect();
        text += &format!("\n{}\n", names.join(", "));
        for a in 0..2 {
            text += &format!("{} {}\n", a + 1, self.institution(h(20 + a) % INSTITUTIONS));
        }
        let year = 2000 + h(3) % 24;
        text += &format!(
            "E-mail: {}@university.edu\nReceived {} {} {year}; accepted {} {} {}\n\nAbstract\n{}\n",
            made_up_name(NAMES_FROM, h(10) % 200_000).to_lowercase(),
            1 + h(4) % 28,
            MONTHS[(h(5) % 12) as usize],
            1 + h(6) % 28,
            MONTHS[(h(7) % 12) as usize],
            year + 1,
            self.corpus.document(n),
        );
        let keywords: Vec<String> = (0..5)
            .map(|k| made_up_name(PLACES_FROM + 2, h(30 + k) % 5_000).to_lowercase())
            .collect();
        text += &format!("Keywords: {}\n", keywords.join(", "));
        let reference_words = 20 * REFERENCES_PER_PAPER as usize;
        let mut words = 0usize;
        let mut k = 0u64;
        for (s, heading) in PAPER_SECTIONS.iter().enumerate() {
            text += &format!("\n{}. {heading}\n", s + 1);
            if let Some(copied) = s.checked_sub(1).and_then(|i| inserted.get(i)) {
                text += &format!("\n{copied}\n");
                words += copied.split_whitespace().count();
            }
            let until = (PAPER_WORDS - reference_words) * (s + 1) / PAPER_SECTIONS.len();
            while words < until {
                let mut paragraph = self.paragraph(n, k);
                words += paragraph.split_whitespace().count();
                // Cite a work or two at the paragraph's end.
                if k.is_multiple_of(2) {
                    paragraph.pop();
                    paragraph += &format!(" [{}].", 1 + h(100 + k) % REFERENCES_PER_PAPER);
                }
                text += &format!("\n{paragraph}\n");
                k += 1;
            }
        }
        text += "\nReferences\n";
        for r in 0..REFERENCES_PER_PAPER {
            // Squaring a uniform number favours the first works: some are cited everywhere.
            let u = (h(200 + r) >> 11) as f64 / (1u64 << 53) as f64;
            let work = (u * u * CITED_WORKS as f64) as u64;
            text += &format!("{}. {}\n", r + 1, self.references[work as usize]);
        }
        text
    }
}

/// Writes `size` synthetic full papers as JSON Lines to `path` (for other benches to read).
fn write_full_papers(size: u64, path: &Path) {
    let papers = FullPapers::new(SyntheticCorpus::new(VOCABULARY, 1.0, 42));
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    for n in 0..size {
        let line = json!({"id": format!("p{n}"), "title": papers.corpus.title(n), "text": papers.paper(n, &[]), "lang": "en"});
        writeln!(out, "{line}").unwrap();
    }
    out.flush().unwrap();
}

/// A library of `size` full papers: ingest, bytes per document, and checks of 5,000-word
/// manuscripts with passages.
fn measure_full_text(size: u64, options: &Options) {
    let anonymous_peak = track_anonymous_peak();
    let papers = FullPapers::new(SyntheticCorpus::new(VOCABULARY, 1.0, 42));
    let label = format!("fulltext-{size}");
    let path = options.dir.join(format!("{label}.jsonl"));
    let data = options.dir.join(format!("data-{label}"));
    let mut config = Config::default();
    config.storage.data_dir = data.clone();
    let ingest = if options.reuse {
        json!(null)
    } else {
        let _ = std::fs::remove_dir_all(&data);
        let started = Instant::now();
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        for n in 0..size {
            let line = json!({"id": format!("p{n}"), "title": papers.corpus.title(n), "text": papers.paper(n, &[]), "lang": "en"});
            writeln!(out, "{line}").unwrap();
        }
        out.flush().unwrap();
        drop(out);
        eprintln!(
            "{label}: written in {:.1}s",
            started.elapsed().as_secs_f64()
        );
        let catalog = Catalog::open(&config).unwrap();
        eprintln!("{label}: importing");
        let summary = import_file(&catalog, LIBRARY, &path, &()).unwrap();
        std::fs::remove_file(&path).unwrap();
        json!({
            "seconds": round(summary.import_seconds),
            "docs_per_s": round(summary.accepted as f64 / summary.import_seconds),
            "mb_per_s": round(summary.bytes as f64 / 1e6 / summary.import_seconds),
            "json_bytes_per_doc": summary.bytes / summary.accepted.max(1) as u64,
            "rejected": summary.rejected_lines,
            "merge_snapshot_sign_seconds": round(summary.signing_seconds),
        })
    };
    let catalog = Catalog::open(&config).unwrap();
    let index = catalog.index(LIBRARY).unwrap();
    let documents = index.summary().documents;
    let index_bytes = dir_bytes(index.dir());

    let queries = options.queries as u64;
    let sources = spread(3 * options.queries, size);
    let copying: Vec<(Vec<String>, String)> = (0..queries)
        .map(|i| {
            let from: Vec<u64> = sources[(3 * i) as usize..(3 * i + 3) as usize].to_vec();
            // Paragraph 3 of each source, as the library holds it (without its citation).
            let copied: Vec<String> = from.iter().map(|&n| papers.paragraph(n, 3)).collect();
            let ids = from.iter().map(|n| format!("p{n}")).collect();
            (ids, papers.paper(size + 1_000_000_000 + i, &copied))
        })
        .collect();
    let novel: Vec<String> = (0..queries)
        .map(|i| papers.paper(size + 2_000_000_000 + i, &[]))
        .collect();
    let words = copying
        .iter()
        .map(|(_, t)| t.split_whitespace().count())
        .sum::<usize>()
        / copying.len().max(1);
    let load_before = load_average();
    eprintln!("{label}: checking {queries} + {queries} manuscripts of {words} words");
    let run = |text: &str| {
        let mut request = CheckRequest::new(text);
        request.passages = true;
        let started = Instant::now();
        let report = check(&catalog, &request).unwrap();
        (started.elapsed().as_secs_f64() * 1000.0, report)
    };
    let (mut ms, mut found, mut of) = (Vec::new(), 0usize, 0usize);
    for (ids, text) in &copying {
        let (took, report) = run(text);
        ms.push(took);
        of += ids.len();
        found += ids
            .iter()
            .filter(|id| report.matches.iter().any(|m| &m.doc_id == *id && m.counted))
            .count();
    }
    let copying_ms = percentiles(ms);
    // A novel manuscript shares front-matter wording and cited works with the library: those
    // are listed as matches that do not count.
    let (mut ms, mut clean, mut listed) = (Vec::new(), 0usize, 0usize);
    // What the counted matches of novel manuscripts rest on: their passages by kind, and the
    // first few counted passages' text, to be read.
    let mut kinds: std::collections::BTreeMap<String, usize> = Default::default();
    let mut shown = 0;
    for text in &novel {
        let (took, report) = run(text);
        ms.push(took);
        clean += usize::from(!report.matches.iter().any(|m| m.counted));
        listed += report.matches.len();
        for found in report.matches.iter().filter(|m| m.counted) {
            for passage in found.passages.iter().flatten() {
                let kind = serde_json::to_value(passage.kind).unwrap();
                *kinds
                    .entry(kind.as_str().unwrap_or("?").to_string())
                    .or_default() += 1;
                if shown < 5 && kind == "copied" {
                    shown += 1;
                    let words: String = text
                        .chars()
                        .skip(passage.query.start)
                        .take(passage.query.end - passage.query.start)
                        .collect();
                    eprintln!(
                        "{label}: counted passage ({} words) shared with {}: {words:?}",
                        passage.words, found.doc_id
                    );
                }
            }
        }
    }
    let novel_ms = percentiles(ms);
    let (rss, peak) = memory_mb();
    let result = json!({
        "library": label,
        "documents": documents,
        "ingest": ingest,
        "index_bytes_per_doc": index_bytes / documents.max(1),
        "index_mb": round(index_bytes as f64 / 1e6),
        "manuscript_words": words,
        "copying_three_sources": {"latency_ms": copying_ms, "sources_found": found, "of": of},
        "novel": {"latency_ms": novel_ms, "no_counted_match": clean, "of": novel.len(), "matches_listed": listed, "passages_of_counted_matches": kinds},
        "peak_rss_mb": round(peak),
        "peak_anonymous_mb": round(anonymous_peak.load(std::sync::atomic::Ordering::Relaxed) as f64 / 1024.0),
        "rss_mb_end": round(rss),
        "load_average": {"start": load_before, "end": load_average()},
    });
    println!("{}", serde_json::to_string_pretty(&result).unwrap());
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(options.dir.join("results.jsonl"))
        .unwrap();
    writeln!(out, "{result}").unwrap();
}
