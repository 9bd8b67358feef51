//! The two storage backends side by side (not a test): the same synthetic abstracts written
//! through the storage seam into tantivy and into a PostgreSQL server this bench starts itself
//! (`initdb`/`pg_ctl` of the installed packages, a Unix socket, a temporary directory), then per
//! backend: ingest docs/s (the write alone; analysis is the same for both and reported apart),
//! re-index time, bytes per document, and check latency p50/p99 for exact copies and near
//! copies (5 % of the words replaced), through the same check code, and full-text search latency
//! p50/p99 (two words of a document, and a three-word phrase of it); then where the PostgreSQL
//! checks' time went on the server (pg_stat_statements: calls and time per statement).
//!
//! ```sh
//! cargo bench --bench storage -- 100000            # documents; more sizes: 100000 1000000
//! # options: --queries N (500)  --dir DIR (target/tmp/storage-bench)
//! #          --no-reindex (a re-index needs a second copy of each index on disk: at 1,000,000
//! #          documents, ~16 GB more beside the ~45 GB both backends hold)
//! #          --keep (the PostgreSQL cluster is kept in DIR/postgres-N beside DIR/tantivy-N, and a
//! #          run that finds both resumes writing where each backend stopped: a 1,000,000 run
//! #          takes hours; ingest rates then cover the documents written by the run that ends)
//! ```

use std::path::{Path, PathBuf};
use std::time::Instant;

#[path = "../tests/it/support/postgres.rs"]
#[allow(dead_code, unreachable_pub)]
mod postgres;

use dupfinder::analysis::Analyzer;
use dupfinder::check::{CancelFlag, CheckRequest, Checker, check_stores};
use dupfinder::config::{Config, PostgresConfig};
use dupfinder::eval::synthetic::SyntheticCorpus;
use dupfinder::index::{IndexOptions, PreparedDocument, RebuildControl, default_analyzer};
use dupfinder::library::{parse_document, prepare};
use dupfinder::signature::RobustScheme;
use dupfinder::storage::postgres::PgStorage;
use dupfinder::storage::tantivy::TantivyStorage;
use dupfinder::storage::{LibraryStore, Storage};
use serde_json::json;

const BATCH: u64 = 2_000;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let mut sizes = Vec::new();
    let mut queries = 500usize;
    let mut dir = PathBuf::from("target/tmp/storage-bench");
    let mut reindex = true;
    let mut keep = false;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--queries" => {
                queries = args[i + 1].parse().expect("--queries N");
                i += 1;
            }
            "--no-reindex" => reindex = false,
            "--keep" => keep = true,
            "--dir" => {
                dir = PathBuf::from(&args[i + 1]);
                i += 1;
            }
            size => sizes.push(size.parse::<u64>().expect("a number of documents")),
        }
        i += 1;
    }
    if sizes.is_empty() {
        sizes.push(100_000);
    }
    std::fs::create_dir_all(&dir).unwrap();
    for size in sizes {
        run(size, queries, &dir, reindex, keep);
    }
}

fn run(size: u64, queries: usize, dir: &Path, reindex_too: bool, keep: bool) {
    let corpus = SyntheticCorpus::new(200_000, 1.0, 7);
    let analyzer = default_analyzer();
    let config = Config::default();
    let tantivy_dir = dir.join(format!("tantivy-{size}"));
    let cluster_dir = dir.join(format!("postgres-{size}"));
    if !keep {
        let _ = std::fs::remove_dir_all(&tantivy_dir);
    }
    let embedded = TantivyStorage::open(
        &tantivy_dir,
        analyzer.clone(),
        IndexOptions {
            writer_memory: 64_000_000,
            robust: RobustScheme::default(),
        },
    )
    .unwrap();
    let server = if keep {
        postgres::PgServer::start_durable_in("storage bench", &cluster_dir)
    } else {
        postgres::PgServer::start_durable("storage bench")
    }
    .expect("PostgreSQL server binaries");
    let resumed = !server
        .psql(
            "postgres",
            "SELECT 1 FROM pg_database WHERE datname = 'bench'",
        )
        .is_empty();
    let url = if resumed {
        server.url("bench")
    } else {
        server.create_database("bench")
    };
    let pg = PgStorage::connect(
        &PostgresConfig {
            url: Some(url),
            max_connections: 4,
        },
        RobustScheme::default(),
    )
    .unwrap();
    let backends: [(&str, &dyn Storage); 2] = [("tantivy", &embedded), ("postgres", &pg)];
    let stores: Vec<_> = backends
        .iter()
        .map(|(_, s)| match s.open("bench").unwrap() {
            Some(store) => store,
            None => s.create("bench").unwrap(),
        })
        .collect();
    // Documents are written in order, a batch at a time, so a backend holding n of them (a run
    // killed and started again with --keep) goes on from document n.
    let held: Vec<u64> = stores
        .iter()
        .map(|store| store.summary().unwrap().documents)
        .collect();
    if held.iter().any(|&n| n > 0) {
        println!(
            "resumed: tantivy held {} documents, postgres {}",
            held[0], held[1]
        );
    }

    // Ingest: analysis once per batch, then the same batch written to each backend that lacks it.
    let mut analysis = 0.0;
    let mut write = [0.0f64; 2];
    let mut text_bytes = 0u64;
    let first = held.iter().copied().min().unwrap_or(0);
    let mut start = first;
    while start < size {
        let end = (start + BATCH).min(size);
        let began = Instant::now();
        let batch: Vec<PreparedDocument> = (start..end)
            .map(|n| {
                let text = corpus.document(n);
                text_bytes += text.len() as u64;
                document(&analyzer, &config, n, &corpus.title(n), &text)
            })
            .collect();
        analysis += began.elapsed().as_secs_f64();
        for (i, store) in stores.iter().enumerate() {
            if held[i] >= end {
                continue;
            }
            let began = Instant::now();
            store
                .write(&batch[(held[i].max(start) - start) as usize..])
                .unwrap();
            write[i] += began.elapsed().as_secs_f64();
        }
        start = end;
    }
    // NaN (printed as such) when the re-index was left out.
    let mut reindex = [f64::NAN; 2];
    if reindex_too {
        for (i, store) in stores.iter().enumerate() {
            let began = Instant::now();
            store
                .reindex(&RebuildControl::default(), &mut |_| {})
                .unwrap();
            reindex[i] = began.elapsed().as_secs_f64();
        }
    }
    let bytes = [
        // The library's folder, without the data directory's registry.
        directory_bytes(&tantivy_dir.join("libraries")),
        server
            .psql("bench", "SELECT pg_database_size('bench')")
            .parse::<u64>()
            .unwrap(),
    ];
    // Where PostgreSQL's bytes go, table by table (with its indexes and TOAST): what the
    // sizing in DISTRIBUTED.md is made from.
    let tables = server.psql(
        "bench",
        "SELECT c.relname || ' ' || pg_total_relation_size(c.oid) FROM pg_class c \
         JOIN pg_namespace n ON n.oid = c.relnamespace \
         WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY 1",
    );
    let rows = server.psql(
        "bench",
        "SELECT 'shingles ' || (SELECT count(*) FROM shingles) || ', robust_signatures ' || \
         (SELECT count(*) FROM robust_signatures) || ', term_stats ' || \
         (SELECT count(*) FROM term_stats)",
    );
    println!(
        "\nPostgreSQL tables (name, bytes with indexes): {}",
        tables.replace('\n', "; ")
    );
    println!("PostgreSQL rows: {rows}");
    println!(
        "\n{size} synthetic abstracts ({:.0} bytes of text each); analysis {:.0} docs/s",
        text_bytes as f64 / (size - first) as f64,
        (size - first) as f64 / analysis
    );
    println!(
        "| backend | ingest (write) docs/s | re-index s | bytes/doc | exact p50 / p99 ms | near p50 / p99 ms | search p50 / p99 ms | phrase p50 / p99 ms |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let mut checks_ms = 0.0;
    for (i, (name, _)) in backends.iter().enumerate() {
        let store = stores[i].as_ref();
        // Searches first: the server profile below is of the checks alone.
        let words = |n: u64| -> Vec<String> {
            let text = corpus.document(n);
            text.split_whitespace()
                .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_string())
                .filter(|w| w.chars().count() > 3)
                .take(12)
                .collect()
        };
        let search = search_latencies(store, queries, size, |n| {
            let words = words(n);
            format!("{} {}", words[2], words[7])
        });
        let phrase = search_latencies(store, queries, size, |n| {
            let text = corpus.document(n);
            let words: Vec<&str> = text.split_whitespace().skip(4).take(3).collect();
            format!("\"{}\"", words.join(" ").replace('"', ""))
        });
        if *name == "postgres" {
            server.psql(
                "bench",
                "CREATE EXTENSION IF NOT EXISTS pg_stat_statements; \
                 SELECT pg_stat_statements_reset()",
            );
        }
        let began = Instant::now();
        let exact = latencies(
            store,
            &analyzer,
            &config,
            queries,
            |n| corpus.document(n),
            size,
        );
        let near = latencies(
            store,
            &analyzer,
            &config,
            queries,
            |n| corpus.near_copy(n, 0.05),
            size,
        );
        if *name == "postgres" {
            checks_ms = began.elapsed().as_secs_f64() * 1000.0;
        }
        println!(
            "| {name} | {:.0} | {:.1} | {:.0} | {:.2} / {:.2} | {:.2} / {:.2} | {:.2} / {:.2} | {:.2} / {:.2} |",
            (size - held[i]) as f64 / write[i],
            reindex[i],
            bytes[i] as f64 / size as f64,
            exact.0,
            exact.1,
            near.0,
            near.1,
            search.0,
            search.1,
            phrase.0,
            phrase.1
        );
    }
    server_profile(&server, checks_ms);
}

/// Where the PostgreSQL checks' time went on the server: each statement's calls, its total and
/// mean execution time, against the checks' wall time (the rest is round trips and the check's
/// own work).
fn server_profile(server: &postgres::PgServer, checks_ms: f64) {
    let profile = server.psql(
        "bench",
        "SELECT calls || ' calls, ' || round(total_exec_time::numeric, 1) || ' ms total, ' || \
         round(mean_exec_time::numeric, 3) || ' ms mean, ' || rows || ' rows: ' || \
         left(regexp_replace(query, '\\s+', ' ', 'g'), 110) \
         FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%' \
         ORDER BY total_exec_time DESC LIMIT 10",
    );
    println!("\nPostgreSQL checks: {checks_ms:.0} ms wall time; statements by server time:");
    for line in profile.lines() {
        println!("  {line}");
    }
}

fn document(
    analyzer: &Analyzer,
    config: &Config,
    n: u64,
    title: &str,
    text: &str,
) -> PreparedDocument {
    let json = json!({"id": format!("doc-{n}"), "title": title, "text": text, "lang": "en"});
    prepare(
        analyzer,
        config.limits.text(),
        parse_document(&json.to_string()).unwrap(),
    )
    .unwrap()
}

/// p50 and p99 of `queries` checks of texts made by `text` from documents spread over the
/// library, in ms (the check's own time, analysis included).
fn latencies(
    store: &dyn LibraryStore,
    analyzer: &Analyzer,
    config: &Config,
    queries: usize,
    text: impl Fn(u64) -> String,
    size: u64,
) -> (f64, f64) {
    let mut times = Vec::with_capacity(queries);
    for q in 0..queries as u64 {
        let n = (q * 7_919) % size;
        let request = CheckRequest::new(text(n));
        let began = Instant::now();
        let report = check_stores(
            &Checker {
                analyzer,
                config: &config.check,
                text_limits: config.limits.text(),
            },
            &[("bench", store)],
            None,
            &request,
            &CancelFlag::new(),
            began,
        )
        .unwrap();
        times.push(began.elapsed().as_secs_f64() * 1000.0);
        assert!(!report.matches.is_empty(), "query {q} found nothing");
    }
    percentiles(times)
}

/// p50 and p99 of `queries` searches (the first page of ten hits) made by `query` from documents
/// spread over the library, in ms.
fn search_latencies(
    store: &dyn LibraryStore,
    queries: usize,
    size: u64,
    query: impl Fn(u64) -> String,
) -> (f64, f64) {
    let mut times = Vec::with_capacity(queries);
    for q in 0..queries as u64 {
        let n = (q * 7_919) % size;
        let query = query(n);
        let began = Instant::now();
        let results = store.search(&query, 10, 0).unwrap();
        times.push(began.elapsed().as_secs_f64() * 1000.0);
        assert!(results.total > 0, "`{query}` found nothing");
    }
    percentiles(times)
}

fn percentiles(mut times: Vec<f64>) -> (f64, f64) {
    times.sort_by(f64::total_cmp);
    let at = |p: f64| times[((times.len() as f64 * p) as usize).min(times.len() - 1)];
    (at(0.50), at(0.99))
}

fn directory_bytes(dir: &Path) -> u64 {
    let mut total = 0;
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        total += if path.is_dir() {
            directory_bytes(&path)
        } else {
            entry.metadata().map_or(0, |m| m.len())
        };
    }
    total
}
