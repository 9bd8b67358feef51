//! Micro benchmarks (criterion) of the stages a check and a re-index are made of: analysis
//! throughput, signing one document, building a snapshot and re-signing a library, and a whole
//! check by library size. Texts come from the synthetic corpus (`eval::synthetic`).
//!
//! ```sh
//! cargo bench --bench core                 # everything
//! cargo bench --bench core -- check        # one group
//! ```

use std::hint::black_box;
use std::sync::Arc;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use dupfinder::analysis::analyze_text;
use dupfinder::check::CheckRequest;
use dupfinder::config::Config;
use dupfinder::eval::synthetic::SyntheticCorpus;
use dupfinder::library::check;
use dupfinder::library::{Catalog, DocumentInput, IdValue, NewLibrary};
use dupfinder::signature::{RobustScheme, robust_signatures, seed_signature};

fn corpus() -> SyntheticCorpus {
    SyntheticCorpus::new(200_000, 1.0, 42)
}

/// A library of `size` synthetic documents in a temporary data directory.
fn library(corpus: &SyntheticCorpus, size: u64) -> (tempfile::TempDir, Arc<Catalog>) {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::default();
    config.storage.data_dir = dir.path().to_path_buf();
    let catalog = Arc::new(Catalog::open(&config).unwrap());
    catalog
        .create(NewLibrary {
            id: "bench".to_string(),
            ..Default::default()
        })
        .unwrap();
    for first in (0..size).step_by(2_000) {
        let lines = (first..(first + 2_000).min(size))
            .enumerate()
            .map(|(i, n)| {
                let input = DocumentInput {
                    id: Some(IdValue::Text(format!("s{n}"))),
                    text: Some(corpus.document(n)),
                    ..Default::default()
                };
                (i + 1, Ok(input))
            })
            .collect();
        catalog.ingest("bench", lines).unwrap();
    }
    let index = catalog.index("bench").unwrap();
    index.optimize().unwrap();
    index.rebuild_statistics(|_| {}).unwrap();
    (dir, catalog)
}

fn analysis(c: &mut Criterion) {
    let corpus = corpus();
    let catalog_dir = tempfile::tempdir().unwrap();
    let mut config = Config::default();
    config.storage.data_dir = catalog_dir.path().to_path_buf();
    let catalog = Catalog::open(&config).unwrap();
    let abstract_text = corpus.document(1);
    let paper: String = (0..20).map(|n| corpus.document(n) + "\n\n").collect();
    let mut group = c.benchmark_group("analysis");
    for (name, text) in [("abstract", &abstract_text), ("paper", &paper)] {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                analyze_text(
                    catalog.analyzer(),
                    black_box(text),
                    None,
                    catalog.config().limits.text(),
                )
                .unwrap()
            })
        });
    }
    group.finish();
}

fn signing(c: &mut Criterion) {
    let corpus = corpus();
    let (_dir, catalog) = library(&corpus, 2_000);
    let snapshot = catalog
        .index("bench")
        .unwrap()
        .signatures()
        .snapshot()
        .clone();
    let query = analyze_text(
        catalog.analyzer(),
        &corpus.document(7),
        None,
        catalog.config().limits.text(),
    )
    .unwrap();
    let mut group = c.benchmark_group("signing");
    group.bench_function("seed", |b| {
        b.iter(|| seed_signature(black_box(&query.term_counts), &snapshot))
    });
    let scheme = RobustScheme::Both { lexicons: 10 };
    group.bench_function("robust_both_10", |b| {
        b.iter(|| robust_signatures(black_box(&query.term_counts), &snapshot, scheme))
    });
    group.finish();
}

fn reindex(c: &mut Criterion) {
    let corpus = corpus();
    let (_dir, catalog) = library(&corpus, 5_000);
    let index = catalog.index("bench").unwrap();
    let mut group = c.benchmark_group("reindex");
    group.sample_size(10);
    group.throughput(Throughput::Elements(5_000));
    group.bench_function("snapshot_and_resign_5000", |b| {
        b.iter(|| index.rebuild_statistics(|_| {}).unwrap())
    });
    group.finish();
}

fn check_by_size(c: &mut Criterion) {
    let corpus = corpus();
    let mut group = c.benchmark_group("check");
    for size in [1_000u64, 10_000] {
        let (_dir, catalog) = library(&corpus, size);
        let exact = CheckRequest::new(corpus.document(size / 2));
        let near = CheckRequest::new(corpus.near_copy(size / 3, 0.05));
        let novel = CheckRequest::new(corpus.document(size + 1_000_000));
        for (kind, request) in [("exact", &exact), ("near", &near), ("novel", &novel)] {
            group.bench_with_input(BenchmarkId::new(kind, size), request, |b, request| {
                b.iter(|| check(&catalog, request).unwrap())
            });
        }
    }
    group.finish();
}

criterion_group!(benches, analysis, signing, reindex, check_by_size);
criterion_main!(benches);
