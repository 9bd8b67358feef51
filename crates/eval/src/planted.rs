//! Planted duplicate groups: a corpus made into a library that holds, beside every corpus
//! document, groups of known duplicates (a source and 1–4 modified copies, made by the
//! generator's near-duplicate modifications) and partial copies of other sources (passages in
//! foreign texts, which must not join any group); and the pairwise precision, recall and F1
//! (and purity) of a library's clusters against that truth.
//!
//! Scores look only at planted documents (sources, copies, partial copies): the corpus's own
//! natural duplicates are neither rewarded nor punished.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::generate::{GenOptions, Modification, SourceDoc, generate};
use super::read_objects;
use dupfinder_service::dedup::ClusterSet;

/// What `gen-tests --planted-groups` wrote.
#[derive(Debug, Clone, Serialize)]
pub struct PlantedSummary {
    pub library_file: PathBuf,
    pub truth_file: PathBuf,
    /// Corpus documents and planted ones.
    pub library_documents: usize,
    pub groups: usize,
    /// Documents in groups: sources and their copies.
    pub grouped_documents: usize,
    pub partial_copies: usize,
}

/// One line of the truth file: a group of duplicates, or a partial copy that belongs to none.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PlantedTruth {
    Group { group: usize, members: Vec<String> },
    Partial { partial: String, source: String },
}

/// The modifications copies are made with: the near-duplicate kinds `gen-tests` makes by
/// default, in their order, but paragraph addition.
fn copy_kinds() -> Vec<Modification> {
    let defaults = GenOptions::default().kinds;
    defaults
        .into_iter()
        .filter(|kind| kind.expects_duplicate() && *kind != Modification::ParagraphAddition)
        .collect()
}

/// Foreign documents (hosts of partial copies, substitute words) taken from the corpus.
const FOREIGN_DOCS: usize = 2_000;

/// A seeded order of `0..n`, as gen-tests shuffles (its own seed space).
fn shuffled(n: usize, seed: u64) -> Vec<usize> {
    super::gen_tests::shuffled(n, seed ^ 0x005e_edd0_c50f_u64 ^ 0x9e37_79b9_7f4a_7c15)
}

fn text_of(value: &Value, key: &str) -> String {
    match &value[key] {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => String::new(),
    }
}

/// Writes `out/library.jsonl` (the corpus and the planted documents) and `out/truth.jsonl`:
/// `groups` groups of sizes 2–5 (a source of at least `min_words` words and its copies, each
/// made by one modification at 5 % or 10 %) and `groups / 4` partial copies of other sources.
pub fn gen_planted(
    corpus: &Path,
    out: &Path,
    groups: usize,
    seed: u64,
) -> std::io::Result<PlantedSummary> {
    let objects = read_objects(corpus)?;
    let min_words = GenOptions::default().min_source_words;
    let order = shuffled(objects.len(), seed);
    let eligible: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&i| text_of(&objects[i], "text").split_whitespace().count() >= min_words)
        .collect();
    let partials = groups / 4;
    let take = (groups + partials).min(eligible.len());
    let (chosen, rest) = eligible.split_at(take);
    let source = |i: usize| SourceDoc {
        id: text_of(&objects[i], "id"),
        text: text_of(&objects[i], "text"),
    };
    let foreign: Vec<SourceDoc> = rest.iter().take(FOREIGN_DOCS).map(|&i| source(i)).collect();
    let group_sources: Vec<SourceDoc> = chosen.iter().take(groups).map(|&i| source(i)).collect();
    let partial_sources: Vec<SourceDoc> = chosen.iter().skip(groups).map(|&i| source(i)).collect();

    // Round-robin over the sources: with at least four copies per source, every group can
    // take the copies its size needs.
    let levels = vec![0.05, 0.10];
    let kinds = copy_kinds();
    let per_kind = (group_sources.len() * 4).div_ceil(kinds.len() * levels.len());
    let copies = generate(
        &group_sources,
        &foreign,
        &GenOptions {
            seed,
            levels: levels.clone(),
            per_kind,
            kinds,
            ..GenOptions::default()
        },
    );
    let mut by_source: HashMap<&str, Vec<&str>> = HashMap::new();
    for query in &copies {
        if let Some(source) = &query.source {
            by_source.entry(source).or_default().push(&query.text);
        }
    }
    let partial_queries = generate(
        &partial_sources,
        &foreign,
        &GenOptions {
            seed,
            levels: vec![0.0],
            per_kind: partial_sources.len(),
            kinds: vec![Modification::PartialCopy],
            ..GenOptions::default()
        },
    );

    std::fs::create_dir_all(out)?;
    let library_file = out.join("library.jsonl");
    let truth_file = out.join("truth.jsonl");
    let mut library = BufWriter::new(File::create(&library_file)?);
    let mut truth = BufWriter::new(File::create(&truth_file)?);
    let mut written = 0usize;
    let mut line = |out: &mut BufWriter<File>, value: &Value| -> std::io::Result<()> {
        written += 1;
        writeln!(out, "{value}")
    };
    for object in &objects {
        line(&mut library, object)?;
    }
    let originals: HashMap<String, &Value> = chosen
        .iter()
        .map(|&i| (text_of(&objects[i], "id"), &objects[i]))
        .collect();
    // A copy keeps its source's metadata (a version under the same title), with its own id.
    let planted_object = |source: &str, id: &str, text: &str| {
        let mut object = originals[source].clone();
        object["id"] = Value::String(id.to_string());
        object["text"] = Value::String(text.to_string());
        object
    };
    let mut grouped = 0usize;
    let mut group_count = 0usize;
    let sizes = shuffled(group_sources.len(), seed ^ 0x0005_12e5);
    for (n, doc) in group_sources.iter().enumerate() {
        let Some(texts) = by_source.get(doc.id.as_str()) else {
            continue;
        };
        // Sizes 2 to 5, a quarter of the groups each.
        let size = 2 + sizes[n] % 4;
        let mut members = vec![doc.id.clone()];
        for (k, text) in texts.iter().take(size - 1).enumerate() {
            let id = format!("{}~copy{k}", doc.id);
            line(&mut library, &planted_object(&doc.id, &id, text))?;
            members.push(id);
        }
        grouped += members.len();
        let entry = PlantedTruth::Group {
            group: group_count,
            members,
        };
        group_count += 1;
        writeln!(truth, "{}", serde_json::to_string(&entry)?)?;
    }
    let mut partial_count = 0usize;
    for query in &partial_queries {
        let Some(source) = &query.source else {
            continue;
        };
        let id = format!("{source}~partial");
        line(&mut library, &planted_object(source, &id, &query.text))?;
        let entry = PlantedTruth::Partial {
            partial: id,
            source: source.clone(),
        };
        writeln!(truth, "{}", serde_json::to_string(&entry)?)?;
        partial_count += 1;
    }
    library.flush()?;
    truth.flush()?;
    Ok(PlantedSummary {
        library_file,
        truth_file,
        library_documents: written,
        groups: group_count,
        grouped_documents: grouped,
        partial_copies: partial_count,
    })
}

/// Reads a truth file written by [`gen_planted`].
pub fn read_truth(path: &Path) -> std::io::Result<Vec<PlantedTruth>> {
    let reader = BufReader::new(File::open(path)?);
    let mut truth = Vec::new();
    for (number, line) in reader.lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        truth.push(serde_json::from_str(&line).map_err(|e| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{}:{}: {e}", path.display(), number + 1),
            )
        })?);
    }
    Ok(truth)
}

/// How a library's clusters compare with planted truth.
#[derive(Debug, Clone, Serialize)]
pub struct ClusterScores {
    /// Planted documents (sources, copies, partial copies).
    pub planted_documents: usize,
    /// Pairs of planted documents in one truth group.
    pub true_pairs: usize,
    /// Pairs of planted documents in one cluster.
    pub predicted_pairs: usize,
    pub correct_pairs: usize,
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
    /// Planted documents in a cluster whose largest truth group they belong to, over the planted
    /// documents in clusters.
    pub purity: f64,
    /// Partial copies placed in a cluster (each one a false merge).
    pub partial_copies_clustered: usize,
}

/// Scores `groups` of document ids (the clusters of a run) against `truth`.
pub fn score_groups<'a>(
    groups: impl IntoIterator<Item = Vec<&'a str>>,
    truth: &[PlantedTruth],
) -> ClusterScores {
    let mut group_of: HashMap<&str, usize> = HashMap::new();
    let mut partials: HashSet<&str> = HashSet::new();
    let mut true_pairs = 0usize;
    for entry in truth {
        match entry {
            PlantedTruth::Group { group, members } => {
                true_pairs += members.len() * members.len().saturating_sub(1) / 2;
                for member in members {
                    group_of.insert(member, *group);
                }
            }
            PlantedTruth::Partial { partial, .. } => {
                partials.insert(partial);
            }
        }
    }
    let planted = |doc: &str| group_of.contains_key(doc) || partials.contains(doc);
    let (mut predicted_pairs, mut correct_pairs) = (0usize, 0usize);
    let (mut clustered, mut pure, mut partial_clustered) = (0usize, 0usize, 0usize);
    for cluster in groups {
        let members: Vec<&str> = cluster.into_iter().filter(|d| planted(d)).collect();
        if members.len() < 2 {
            continue;
        }
        predicted_pairs += members.len() * (members.len() - 1) / 2;
        let mut per_group: BTreeMap<usize, usize> = BTreeMap::new();
        for member in &members {
            match group_of.get(member) {
                Some(g) => *per_group.entry(*g).or_default() += 1,
                None => partial_clustered += 1,
            }
        }
        correct_pairs += per_group.values().map(|n| n * (n - 1) / 2).sum::<usize>();
        clustered += members.len();
        pure += per_group.values().max().copied().unwrap_or(0);
    }
    let ratio = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    let precision = ratio(correct_pairs, predicted_pairs);
    let recall = ratio(correct_pairs, true_pairs);
    let f1 = if precision + recall == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    };
    ClusterScores {
        planted_documents: group_of.len() + partials.len(),
        true_pairs,
        predicted_pairs,
        correct_pairs,
        precision,
        recall,
        f1,
        purity: ratio(pure, clustered),
        partial_copies_clustered: partial_clustered,
    }
}

/// Scores a library's clusters against `truth`.
pub fn score_clusters(set: &ClusterSet, truth: &[PlantedTruth]) -> ClusterScores {
    score_groups(
        set.clusters.iter().map(|c| {
            std::iter::once(c.canonical.as_str())
                .chain(c.members.iter().map(|m| m.doc_id.as_str()))
                .collect()
        }),
        truth,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(group: usize, members: &[&str]) -> PlantedTruth {
        PlantedTruth::Group {
            group,
            members: members.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn pairwise_scores_count_pairs_of_planted_documents_only() {
        let truth = vec![
            group(0, &["a", "a1", "a2"]),
            group(1, &["b", "b1"]),
            PlantedTruth::Partial {
                partial: "p".to_string(),
                source: "b".to_string(),
            },
        ];
        // One cluster right, one merging b's group with a partial copy and a natural document.
        let scores = score_groups(
            vec![vec!["a", "a1", "a2"], vec!["b", "b1", "p", "natural"]],
            &truth,
        );
        assert_eq!(scores.true_pairs, 4);
        assert_eq!(scores.predicted_pairs, 3 + 3);
        assert_eq!(scores.correct_pairs, 4);
        assert_eq!(scores.recall, 1.0);
        assert!((scores.precision - 4.0 / 6.0).abs() < 1e-9);
        assert_eq!(scores.partial_copies_clustered, 1);
        assert!((scores.purity - 5.0 / 6.0).abs() < 1e-9);
        let missed = score_groups(vec![vec!["a", "a1"]], &truth);
        assert_eq!((missed.correct_pairs, missed.precision), (1, 1.0));
        assert!((missed.recall - 0.25).abs() < 1e-9);
    }
}
