//! `gen-tests`: splits a corpus into a library and held-out documents, and writes the library
//! (to import) and generated queries with their truth. Also turns the labeled Clough–Stevenson
//! corpus into the same two files.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use super::generate::{GenOptions, SourceDoc, generate, to_json_lines};
use super::quality::EvalQuery;

/// What `gen-tests` wrote.
#[derive(Debug, Clone, Serialize)]
pub struct GenSummary {
    pub library_file: PathBuf,
    pub queries_file: PathBuf,
    pub library_documents: usize,
    pub held_out: usize,
    /// Held-out documents dropped from the foreign pool because they share a run of
    /// [`CLEAN_RUN_WORDS`] words with a library document: real corpora hold natural duplicates
    /// and template reuse, which would otherwise be labeled negatives.
    pub held_out_overlapping: usize,
    pub queries: usize,
}

/// Foreign documents sharing a run of this many words with the library are not used.
pub(super) const CLEAN_RUN_WORDS: usize = 8;

fn word_runs(text: &str) -> impl Iterator<Item = u64> + '_ {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let hashes: Vec<u64> = words
        .windows(CLEAN_RUN_WORDS)
        .map(|w| xxhash_rust::xxh3::xxh3_64(w.join(" ").as_bytes()))
        .collect();
    hashes.into_iter()
}

/// Splits off the foreign documents that share a run of [`CLEAN_RUN_WORDS`] words (a criterion
/// independent of the checker's stemmed shingles) with any library document.
fn without_shared_runs(library: &[SourceDoc], foreign: Vec<SourceDoc>) -> (Vec<SourceDoc>, usize) {
    let runs: std::collections::HashSet<u64> =
        library.iter().flat_map(|d| word_runs(&d.text)).collect();
    let before = foreign.len();
    let clean: Vec<SourceDoc> = foreign
        .into_iter()
        .filter(|d| !word_runs(&d.text).any(|h| runs.contains(&h)))
        .collect();
    let dropped = before - clean.len();
    (clean, dropped)
}

/// Reads every JSON object of a JSON Lines corpus (plain or gzip), skipping unusable lines.
pub fn read_objects(path: &Path) -> std::io::Result<Vec<Value>> {
    let file = File::open(path)?;
    let reader: Box<dyn BufRead> = if path.extension().is_some_and(|e| e == "gz") {
        Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(file)))
    } else {
        Box::new(BufReader::new(file))
    };
    let mut objects = Vec::new();
    for line in reader.lines() {
        let line = line?;
        if let Ok(value @ Value::Object(_)) = serde_json::from_str::<Value>(&line) {
            objects.push(value);
        }
    }
    Ok(objects)
}

fn text_of(value: &Value, key: &str) -> String {
    match &value[key] {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => String::new(),
    }
}

fn write_lines(path: &Path, lines: impl IntoIterator<Item = String>) -> std::io::Result<()> {
    let mut out = BufWriter::new(File::create(path)?);
    for line in lines {
        out.write_all(line.as_bytes())?;
        out.write_all(b"\n")?;
    }
    out.flush()
}

/// A seeded pseudo-random order, so the split is reproducible.
pub(super) fn shuffled(n: usize, seed: u64) -> Vec<usize> {
    let mut state = seed ^ 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        order.swap(i, (next() % (i as u64 + 1)) as usize);
    }
    order
}

/// Splits `corpus`: a seeded `holdout` share of its documents is kept out of the library (the
/// foreign pool for negatives, additions and partial-copy hosts) unless `foreign` names another
/// corpus; foreign documents that share a long word run with the library are dropped unless
/// `keep_overlapping`; writes `out/library.jsonl` and `out/queries.jsonl`.
pub fn gen_tests(
    corpus: &Path,
    foreign: Option<&Path>,
    out: &Path,
    holdout: f64,
    keep_overlapping: bool,
    options: &GenOptions,
) -> std::io::Result<GenSummary> {
    let objects = read_objects(corpus)?;
    let order = shuffled(objects.len(), options.seed);
    let held = match foreign {
        Some(_) => 0,
        None => ((objects.len() as f64) * holdout.clamp(0.0, 0.9)).round() as usize,
    };
    let (held_idx, library_idx) = order.split_at(held);
    let mut library_idx = library_idx.to_vec();
    library_idx.sort_unstable();
    let to_source = |v: &Value| SourceDoc {
        id: text_of(v, "id"),
        text: text_of(v, "text"),
    };
    let library: Vec<SourceDoc> = library_idx
        .iter()
        .map(|&i| to_source(&objects[i]))
        .collect();
    let foreign_docs: Vec<SourceDoc> = match foreign {
        Some(path) => read_objects(path)?.iter().map(to_source).collect(),
        None => held_idx.iter().map(|&i| to_source(&objects[i])).collect(),
    };
    let (foreign_docs, overlapping) = if keep_overlapping {
        (foreign_docs, 0)
    } else {
        without_shared_runs(&library, foreign_docs)
    };
    let queries = generate(&library, &foreign_docs, options);
    std::fs::create_dir_all(out)?;
    let library_file = out.join("library.jsonl");
    let queries_file = out.join("queries.jsonl");
    write_lines(
        &library_file,
        library_idx.iter().map(|&i| objects[i].to_string()),
    )?;
    std::fs::write(&queries_file, to_json_lines(&queries))?;
    Ok(GenSummary {
        library_file,
        queries_file,
        library_documents: library.len(),
        held_out: foreign_docs.len(),
        held_out_overlapping: overlapping,
        queries: queries.len(),
    })
}

/// The Clough–Stevenson corpus as a library (the five Wikipedia originals) and queries (the 95
/// answers): `cut`, `light` and `heavy` answers derive from their task's original; `non` answers
/// are negatives written on the same topic.
pub fn clough_stevenson(corpus: &Path, out: &Path) -> std::io::Result<GenSummary> {
    let objects = read_objects(corpus)?;
    let originals: Vec<&Value> = objects
        .iter()
        .filter(|v| text_of(v, "category") == "orig")
        .collect();
    let original_of_task = |task: &str| {
        originals
            .iter()
            .find(|o| text_of(o, "task") == task)
            .map(|o| text_of(o, "id"))
    };
    let queries: Vec<EvalQuery> = objects
        .iter()
        .filter(|v| text_of(v, "category") != "orig")
        .map(|v| {
            let category = text_of(v, "category");
            let derived = category != "non";
            EvalQuery {
                id: text_of(v, "id"),
                kind: format!("clough_{category}"),
                level: 0.0,
                text: text_of(v, "text"),
                source: if derived {
                    original_of_task(&text_of(v, "task"))
                } else {
                    None
                },
                // A derived answer copies part of an original: any match counts as found.
                expect_duplicate: false,
                query_span: None,
                source_span: None,
            }
        })
        .collect();
    std::fs::create_dir_all(out)?;
    let library_file = out.join("library.jsonl");
    let queries_file = out.join("queries.jsonl");
    write_lines(&library_file, originals.iter().map(|v| v.to_string()))?;
    write_lines(
        &queries_file,
        queries
            .iter()
            .map(|q| serde_json::to_string(q).expect("queries serialize")),
    )?;
    Ok(GenSummary {
        library_file,
        queries_file,
        library_documents: originals.len(),
        held_out: 0,
        held_out_overlapping: 0,
        queries: queries.len(),
    })
}

/// Reads a queries file written by `gen-tests`.
pub fn read_queries(path: &Path) -> std::io::Result<Vec<EvalQuery>> {
    let text = std::fs::read_to_string(path)?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, line)| {
            serde_json::from_str(line).map_err(|e| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("{}:{}: {e}", path.display(), i + 1),
                )
            })
        })
        .collect()
}
