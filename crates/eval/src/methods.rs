//! The seed comparison paper's protocol (seed 002, §3 and §5) run on a library or a corpus:
//! every method of `signature::methods` finds its pairs, every candidate pair is verified by the
//! direct comparison ([`super::reference`]), the verified pairs found by any method form the
//! pool that stands for 100 % recall, and each method gets recall, precision, F1 and its time;
//! the Dice coefficient between the methods' found-pair sets shows how they overlap (Table 4).
//!
//! The same methods are also scored on `gen-tests` queries with known truth ([`run_truth`]).

use std::collections::BTreeMap;
use std::time::Instant;

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use super::reference::{common_sorted, similarity_at_least};
use dupfinder_signature::methods::{
    Collection, FoundPairs, Method, MethodDoc, MethodSettings, Signed, decomposition_pairs,
    pairs_sharing_a_key, sign, three_five_pairs,
};
use dupfinder_signature::{StatsSnapshot, TermStats};
use dupfinder_text::analysis::Analyzer;

/// Seed 002's Table 2 (A0–A10 on the ROMIP web collection, ~500 000 documents) and Table 7
/// (A12): recall, precision, F-measure. A11 is reported in words only ("practically 100 %
/// recall and precision").
pub const PAPER_FIGURES: [(Method, f64, f64, f64); 12] = [
    (Method::A4, 0.84, 0.80, 0.82),
    (Method::A1, 0.60, 0.94, 0.73),
    (Method::A10, 0.59, 0.94, 0.73),
    (Method::A3, 0.59, 0.95, 0.73),
    (Method::A5, 0.62, 0.86, 0.72),
    (Method::A2, 0.54, 0.96, 0.69),
    (Method::A7, 0.50, 0.97, 0.66),
    (Method::A9, 0.44, 0.77, 0.56),
    (Method::A8, 0.39, 0.97, 0.56),
    (Method::A6, 0.36, 0.91, 0.51),
    (Method::A0, 0.23, 1.00, 0.38),
    (Method::A12, 0.96, 0.95, 0.95),
];

/// The paper's figures for `method`, if it gives them.
pub fn paper_figures(method: Method) -> Option<(f64, f64, f64)> {
    PAPER_FIGURES
        .iter()
        .find(|(m, ..)| *m == method)
        .map(|(_, r, p, f)| (*r, *p, *f))
}

/// How a run is made.
#[derive(Debug, Clone, Serialize)]
pub struct ProtocolOptions {
    pub methods: Vec<Method>,
    pub settings: MethodSettings,
    /// The reference similarity a verified pair reaches (0.8 in the paper).
    pub threshold: f64,
    /// Documents sharing one key (or one chain piece) beyond this many yield no pairs.
    pub max_group: usize,
}

/// Documents ready for the methods: each analyzed once, with its terms as numbers for the
/// direct comparison, and the statistics the library's documents give.
pub struct Prepared {
    pub ids: Vec<String>,
    pub docs: Vec<MethodDoc>,
    sequences: Vec<Vec<u32>>,
    pub snapshot: StatsSnapshot,
    /// Documents `0..library` are the library (statistics, A9's descriptor words); those after
    /// are queries.
    pub library: usize,
    /// Library documents left out for having fewer terms than asked.
    pub skipped_short: usize,
}

impl Prepared {
    /// Analyzes `library` documents (`(id, text)`), leaving out those with fewer than
    /// `min_terms` terms, then `queries`; statistics come from the library alone, or are
    /// `snapshot` when given (a stored library's own).
    pub fn new(
        analyzer: &Analyzer,
        library: impl IntoIterator<Item = (String, String)>,
        queries: impl IntoIterator<Item = (String, String)>,
        min_terms: usize,
        snapshot: Option<StatsSnapshot>,
    ) -> Prepared {
        let mut vocabulary: FxHashMap<String, u32> = FxHashMap::default();
        let mut prepared = Prepared {
            ids: Vec::new(),
            docs: Vec::new(),
            sequences: Vec::new(),
            snapshot: StatsSnapshot::empty(),
            library: 0,
            skipped_short: 0,
        };
        let mut add = |prepared: &mut Prepared, id: String, text: &str| {
            let analyzed = analyzer.analyze(text, None);
            let doc = MethodDoc::new(text, &analyzed.tokens);
            let sequence = doc
                .terms
                .iter()
                .map(|t| {
                    let next = vocabulary.len() as u32;
                    *vocabulary.entry(t.clone()).or_insert(next)
                })
                .collect();
            prepared.ids.push(id);
            prepared.docs.push(doc);
            prepared.sequences.push(sequence);
        };
        for (id, text) in library {
            // Counting terms needs the analysis; short documents are dropped after it.
            add(&mut prepared, id, &text);
            if prepared
                .docs
                .last()
                .is_some_and(|d| d.terms.len() < min_terms)
            {
                prepared.ids.pop();
                prepared.docs.pop();
                prepared.sequences.pop();
                prepared.skipped_short += 1;
            }
        }
        prepared.library = prepared.docs.len();
        for (id, text) in queries {
            add(&mut prepared, id, &text);
        }
        prepared.snapshot =
            snapshot.unwrap_or_else(|| count_statistics(&prepared.docs[..prepared.library]));
        prepared
    }

    pub fn len(&self) -> usize {
        self.docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }
}

/// `N`, `df` and `cf` of a set of documents, as the index counts them.
pub fn count_statistics(docs: &[MethodDoc]) -> StatsSnapshot {
    let mut terms: std::collections::HashMap<String, TermStats> = std::collections::HashMap::new();
    for doc in docs {
        for (term, count) in &doc.counts {
            let stats = terms
                .entry(term.clone())
                .or_insert(TermStats { df: 0, cf: 0 });
            stats.df += 1;
            stats.cf += u64::from(*count);
        }
    }
    StatsSnapshot::new(1, docs.len() as u64, terms)
}

/// The direct comparison of pairs, each computed once and remembered. Similarities below
/// `floor` are remembered as 0.
pub struct Verifier<'a> {
    sequences: &'a [Vec<u32>],
    floor: f64,
    known: FxHashMap<(u32, u32), f32>,
    pub millis: f64,
}

impl<'a> Verifier<'a> {
    pub fn new(prepared: &'a Prepared, floor: f64) -> Verifier<'a> {
        Verifier {
            sequences: &prepared.sequences,
            floor,
            known: FxHashMap::default(),
            millis: 0.0,
        }
    }

    /// The similarity of documents `a` and `b` (0 when below the floor).
    pub fn similarity(&mut self, a: u32, b: u32) -> f64 {
        let key = (a.min(b), a.max(b));
        if let Some(s) = self.known.get(&key) {
            return f64::from(*s);
        }
        let started = Instant::now();
        let s = similarity_at_least(
            &self.sequences[key.0 as usize],
            &self.sequences[key.1 as usize],
            self.floor,
        )
        .unwrap_or(0.0);
        self.millis += started.elapsed().as_secs_f64() * 1000.0;
        self.known.insert(key, s as f32);
        s
    }

    /// Pairs compared so far.
    pub fn compared(&self) -> usize {
        self.known.len()
    }
}

/// One method's pairs and what they cost.
#[derive(Debug, Clone, Serialize)]
pub struct MethodPairs {
    pub method: Method,
    pub found: FoundPairs,
    /// Documents the method could sign (a signature, keys or a record with shingles).
    pub signed: usize,
    /// Signing every document, and grouping the signatures into pairs (for A11 this includes
    /// its own direct comparisons).
    pub sign_ms: f64,
    pub pair_ms: f64,
}

/// Runs `method` over every prepared document. `pair_filter` keeps only the pairs of interest
/// (in truth mode: a library document with a query); A11 compares with the verifier.
pub fn find_pairs(
    method: Method,
    prepared: &Prepared,
    collection: &Collection<'_>,
    options: &ProtocolOptions,
    verifier: &mut Verifier<'_>,
    pair_filter: &dyn Fn(u32, u32) -> bool,
) -> MethodPairs {
    let started = Instant::now();
    let signed: Vec<Signed> = prepared
        .docs
        .iter()
        .map(|doc| sign(method, doc, collection, &options.settings))
        .collect();
    let sign_ms = started.elapsed().as_secs_f64() * 1000.0;
    let started = Instant::now();
    let verified_before = verifier.millis;
    let mut count = 0;
    let mut found = match method {
        Method::A11 => {
            let records: Vec<_> = signed
                .into_iter()
                .map(|s| match s {
                    Signed::Decomposition(r) => r,
                    _ => unreachable!("A11 signs with records"),
                })
                .collect();
            count = records.iter().filter(|r| !r.shingles.is_empty()).count();
            let threshold = options.threshold;
            decomposition_pairs(&records, &options.settings, options.max_group, |a, b| {
                pair_filter(a, b) && verifier.similarity(a, b) >= threshold
            })
        }
        Method::A12 => {
            let records: Vec<_> = signed
                .into_iter()
                .map(|s| match s {
                    Signed::ThreeFive(r) => r,
                    _ => unreachable!("A12 signs with records"),
                })
                .collect();
            count = records.iter().filter(|r| !r.sentences.is_empty()).count();
            three_five_pairs(&records, &options.settings, options.max_group)
        }
        _ => {
            let keys: Vec<Vec<u64>> = signed
                .into_iter()
                .map(|s| match s {
                    Signed::Keys(keys) => keys,
                    _ => Vec::new(),
                })
                .collect();
            count += keys.iter().filter(|k| !k.is_empty()).count();
            pairs_sharing_a_key(&keys, options.max_group)
        }
    };
    found.pairs.retain(|(a, b)| pair_filter(*a, *b));
    // A11's comparisons are its own work, but the time of the shared reference is not counted
    // twice: it is reported once, as the verification time.
    let pair_ms = started.elapsed().as_secs_f64() * 1000.0 - (verifier.millis - verified_before);
    MethodPairs {
        method,
        found,
        signed: count,
        sign_ms,
        pair_ms: pair_ms.max(0.0),
    }
}

/// Runs each of `methods` over every prepared document, all pairs kept, with the statistics
/// (and A9's descriptor words) `options`' settings give.
pub fn run_methods(
    methods: &[Method],
    prepared: &Prepared,
    options: &ProtocolOptions,
    verifier: &mut Verifier<'_>,
) -> Vec<MethodPairs> {
    let collection = collection_of(prepared, &options.settings);
    methods
        .iter()
        .map(|m| find_pairs(*m, prepared, &collection, options, verifier, &|_, _| true))
        .collect()
}

/// One row of Table 2.
#[derive(Debug, Clone, Serialize)]
pub struct PoolRow {
    pub method: Method,
    pub name: &'static str,
    pub signed: usize,
    pub found: usize,
    pub verified: usize,
    pub recall: f64,
    pub precision: f64,
    pub f1: f64,
    pub oversized_groups: usize,
    pub sign_ms: f64,
    pub pair_ms: f64,
    /// The paper's recall, precision and F for the method.
    pub paper: Option<(f64, f64, f64)>,
}

/// The pool protocol's report.
#[derive(Debug, Clone, Serialize)]
pub struct PoolReport {
    pub documents: usize,
    pub skipped_short: usize,
    pub threshold: f64,
    pub max_group: usize,
    pub settings: MethodSettings,
    /// Distinct candidate pairs of all methods, and those verified: the pool.
    pub candidates: usize,
    pub pool: usize,
    pub verify_ms: f64,
    /// Rows by decreasing F1, as the paper orders them.
    pub rows: Vec<PoolRow>,
    /// `dice[a][b]`: Dice coefficient `2|A∩B| / (|A| + |B|)` of the found-pair sets (Table 4).
    pub dice: BTreeMap<Method, BTreeMap<Method, f64>>,
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn f1(recall: f64, precision: f64) -> f64 {
    if recall + precision == 0.0 {
        0.0
    } else {
        2.0 * recall * precision / (recall + precision)
    }
}

/// Dice coefficients between the methods' found pairs.
pub fn dice_matrix(runs: &[MethodPairs]) -> BTreeMap<Method, BTreeMap<Method, f64>> {
    let mut matrix = BTreeMap::new();
    for a in runs {
        let row: &mut BTreeMap<Method, f64> = matrix.entry(a.method).or_default();
        for b in runs {
            let total = a.found.pairs.len() + b.found.pairs.len();
            let dice = if total == 0 {
                0.0
            } else {
                2.0 * common_sorted(&a.found.pairs, &b.found.pairs) as f64 / total as f64
            };
            row.insert(b.method, round3(dice));
        }
    }
    matrix
}

/// The distinct candidate pairs of `runs` and those reaching `threshold`: the pool.
pub fn verified_pool<'r>(
    runs: impl IntoIterator<Item = &'r MethodPairs>,
    verifier: &mut Verifier<'_>,
    threshold: f64,
) -> (usize, FxHashSet<(u32, u32)>) {
    let mut candidates: Vec<(u32, u32)> = runs
        .into_iter()
        .flat_map(|r| r.found.pairs.iter().copied())
        .collect();
    candidates.sort_unstable();
    candidates.dedup();
    let verified = candidates
        .iter()
        .copied()
        .filter(|(a, b)| verifier.similarity(*a, *b) >= threshold)
        .collect();
    (candidates.len(), verified)
}

/// Each run's row against `pool`, by decreasing F1 as the paper orders them.
pub fn score_against(runs: &[MethodPairs], pool: &FxHashSet<(u32, u32)>) -> Vec<PoolRow> {
    let mut rows: Vec<PoolRow> = runs
        .iter()
        .map(|r| {
            let found = r.found.pairs.len();
            let good = r.found.pairs.iter().filter(|p| pool.contains(p)).count();
            let recall = if pool.is_empty() {
                0.0
            } else {
                good as f64 / pool.len() as f64
            };
            let precision = if found == 0 {
                0.0
            } else {
                good as f64 / found as f64
            };
            PoolRow {
                method: r.method,
                name: r.method.title(),
                signed: r.signed,
                found,
                verified: good,
                recall: round3(recall),
                precision: round3(precision),
                f1: round3(f1(recall, precision)),
                oversized_groups: r.found.oversized_groups,
                sign_ms: round3(r.sign_ms),
                pair_ms: round3(r.pair_ms),
                paper: paper_figures(r.method),
            }
        })
        .collect();
    rows.sort_by(|a, b| b.f1.total_cmp(&a.f1).then(a.method.cmp(&b.method)));
    rows
}

/// Runs the methods over `prepared` (all of it a library) and scores them against the pool.
pub fn run_pool(prepared: &Prepared, options: &ProtocolOptions) -> PoolReport {
    let mut verifier = Verifier::new(prepared, options.threshold);
    let runs = run_methods(&options.methods, prepared, options, &mut verifier);
    let (candidates, pool) = verified_pool(&runs, &mut verifier, options.threshold);
    let rows = score_against(&runs, &pool);
    PoolReport {
        documents: prepared.len(),
        skipped_short: prepared.skipped_short,
        threshold: options.threshold,
        max_group: options.max_group,
        settings: options.settings.clone(),
        candidates,
        pool: pool.len(),
        verify_ms: round3(verifier.millis),
        rows,
        dice: dice_matrix(&runs),
    }
}

/// The library's statistics as the methods read them, with A9's descriptor words learned from
/// the library documents.
pub fn collection_of<'a>(prepared: &'a Prepared, settings: &MethodSettings) -> Collection<'a> {
    Collection::new(&prepared.snapshot).with_descriptors(
        prepared.docs[..prepared.library]
            .iter()
            .map(|d| d.counts.as_slice()),
        settings,
    )
}

/// A query with its truth, as the methods' truth mode reads it.
#[derive(Debug, Clone)]
pub struct TruthQuery {
    pub kind: String,
    pub level: f64,
    /// The library document the query was made from, for a near-duplicate; `None` for
    /// negatives. Partial copies are not near-duplicates and are left out by the caller.
    pub source: Option<String>,
}

/// One method on the queries.
#[derive(Debug, Clone, Serialize)]
pub struct TruthRow {
    pub method: Method,
    pub name: &'static str,
    /// Near-duplicate queries, and those whose source the method found.
    pub positives: usize,
    pub found_source: usize,
    /// Pairs (query, library document) found, and those that are right: the source, or a
    /// library document the query itself passes the direct comparison with (a natural
    /// duplicate of the source).
    pub returned: usize,
    pub right: usize,
    pub recall: f64,
    pub precision: f64,
    pub f1: f64,
    /// Recall per modification kind.
    pub recall_by_kind: BTreeMap<String, f64>,
    pub sign_ms: f64,
    pub pair_ms: f64,
    pub paper: Option<(f64, f64, f64)>,
}

/// The truth mode's report.
#[derive(Debug, Clone, Serialize)]
pub struct TruthReport {
    pub library: usize,
    pub queries: usize,
    pub positives: usize,
    pub threshold: f64,
    pub settings: MethodSettings,
    pub rows: Vec<TruthRow>,
}

/// Scores the methods on queries with truth: `prepared` holds the library then one document per
/// query of `truth`, in order. A method finds a query's source when the pair (source, query) is
/// among its pairs; pairs between two queries are ignored.
pub fn run_truth(
    prepared: &Prepared,
    truth: &[TruthQuery],
    options: &ProtocolOptions,
) -> TruthReport {
    let collection = collection_of(prepared, &options.settings);
    let library = prepared.library as u32;
    let index: FxHashMap<&str, u32> = prepared.ids[..prepared.library]
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i as u32))
        .collect();
    let sources: Vec<Option<u32>> = truth
        .iter()
        .map(|q| q.source.as_deref().and_then(|s| index.get(s).copied()))
        .collect();
    let positives = sources.iter().filter(|s| s.is_some()).count();
    let mut verifier = Verifier::new(prepared, options.threshold);
    let across = |a: u32, b: u32| (a < library) != (b < library);
    let mut rows = Vec::new();
    for method in &options.methods {
        let run = find_pairs(
            *method,
            prepared,
            &collection,
            options,
            &mut verifier,
            &across,
        );
        let mut found_source = vec![false; truth.len()];
        let mut right = 0;
        for (a, b) in &run.found.pairs {
            let (doc, query) = (a.min(b), a.max(b));
            let q = (*query - library) as usize;
            if sources[q] == Some(*doc) {
                found_source[q] = true;
                right += 1;
            } else if verifier.similarity(*doc, *query) >= options.threshold {
                right += 1;
            }
        }
        let found = found_source.iter().filter(|f| **f).count();
        let mut by_kind: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for (q, query) in truth.iter().enumerate() {
            if sources[q].is_some() {
                let entry = by_kind.entry(query.kind.clone()).or_default();
                entry.0 += 1;
                entry.1 += usize::from(found_source[q]);
            }
        }
        let returned = run.found.pairs.len();
        let recall = if positives == 0 {
            0.0
        } else {
            found as f64 / positives as f64
        };
        let precision = if returned == 0 {
            0.0
        } else {
            right as f64 / returned as f64
        };
        rows.push(TruthRow {
            method: *method,
            name: method.title(),
            positives,
            found_source: found,
            returned,
            right,
            recall: round3(recall),
            precision: round3(precision),
            f1: round3(f1(recall, precision)),
            recall_by_kind: by_kind
                .into_iter()
                .map(|(k, (n, f))| (k, round3(f as f64 / n.max(1) as f64)))
                .collect(),
            sign_ms: round3(run.sign_ms),
            pair_ms: round3(run.pair_ms),
            paper: paper_figures(*method),
        });
    }
    rows.sort_by(|a, b| b.f1.total_cmp(&a.f1).then(a.method.cmp(&b.method)));
    TruthReport {
        library: prepared.library,
        queries: truth.len(),
        positives,
        threshold: options.threshold,
        settings: options.settings.clone(),
        rows,
    }
}

fn paper_cells(paper: Option<(f64, f64, f64)>) -> String {
    match paper {
        Some((r, p, f)) => format!("{r:>5.2} {p:>5.2} {f:>5.2}"),
        None => format!("{:>5} {:>5} {:>5}", "—", "—", "—"),
    }
}

/// The header of the columns both tables open with: the method, our recall, precision and F1,
/// then the paper's.
fn write_scores_header(out: &mut impl std::io::Write) -> std::io::Result<()> {
    write!(
        out,
        "{:<4} {:<13} {:>6} {:>6} {:>6} | {:>5} {:>5} {:>5} |",
        "", "method", "recall", "prec", "F", "p.R", "p.P", "p.F"
    )
}

/// A row's cells under [`write_scores_header`]; `scores` are recall, precision and F1.
fn write_scores(
    out: &mut impl std::io::Write,
    method: Method,
    name: &str,
    [recall, precision, f1]: [f64; 3],
    paper: Option<(f64, f64, f64)>,
) -> std::io::Result<()> {
    write!(
        out,
        "{:<4} {:<13} {:>6.3} {:>6.3} {:>6.3} | {} |",
        method.to_string(),
        name,
        recall,
        precision,
        f1,
        paper_cells(paper)
    )
}

/// Table 2's layout with the paper's figures beside ours, then the Dice matrix.
pub fn print_pool(report: &PoolReport, out: &mut impl std::io::Write) -> std::io::Result<()> {
    writeln!(
        out,
        "{} documents ({} shorter than asked left out); {} candidate pairs, {} verified at similarity ≥ {} (the pool); verification {:.0} ms",
        report.documents,
        report.skipped_short,
        report.candidates,
        report.pool,
        report.threshold,
        report.verify_ms
    )?;
    write_scores_header(out)?;
    writeln!(
        out,
        " {:>8} {:>8} {:>7} {:>9} {:>9}",
        "found", "verified", "signed", "sign ms", "pair ms"
    )?;
    for row in &report.rows {
        let scores = [row.recall, row.precision, row.f1];
        write_scores(out, row.method, row.name, scores, row.paper)?;
        writeln!(
            out,
            " {:>8} {:>8} {:>7} {:>9.0} {:>9.0}",
            row.found, row.verified, row.signed, row.sign_ms, row.pair_ms
        )?;
    }
    writeln!(out, "\nDice coefficients of the found pairs:")?;
    let methods: Vec<Method> = report.dice.keys().copied().collect();
    write!(out, "{:<4}", "")?;
    for m in &methods {
        write!(out, " {:>5}", m.to_string())?;
    }
    writeln!(out)?;
    for a in &methods {
        write!(out, "{:<4}", a.to_string())?;
        for b in &methods {
            if a == b {
                write!(out, " {:>5}", "—")?;
            } else {
                write!(out, " {:>5.2}", report.dice[a][b])?;
            }
        }
        writeln!(out)?;
    }
    Ok(())
}

/// The truth mode's table.
pub fn print_truth(report: &TruthReport, out: &mut impl std::io::Write) -> std::io::Result<()> {
    writeln!(
        out,
        "{} library documents, {} queries, {} near-duplicate positives; right = the source or similarity ≥ {}",
        report.library, report.queries, report.positives, report.threshold
    )?;
    write_scores_header(out)?;
    writeln!(
        out,
        " {:>6} {:>8} {:>9} {:>9}",
        "found", "returned", "sign ms", "pair ms"
    )?;
    for row in &report.rows {
        let scores = [row.recall, row.precision, row.f1];
        write_scores(out, row.method, row.name, scores, row.paper)?;
        writeln!(
            out,
            " {:>6} {:>8} {:>9.0} {:>9.0}",
            row.found_source, row.returned, row.sign_ms, row.pair_ms
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use dupfinder_storage::index::default_analyzer;

    fn doc(id: &str, text: &str) -> (String, String) {
        (id.to_string(), text.to_string())
    }

    const BASE: &str = "Signature methods find near duplicate documents in large digital libraries. \
        Each document is reduced to a short fingerprint computed from its words. \
        Documents with equal fingerprints are reported as candidate duplicates and verified. \
        The longest sentences of a paper rarely change when its authors revise the wording slightly.";

    #[test]
    fn pool_protocol_on_a_small_library() {
        let analyzer = default_analyzer();
        let copy = BASE.replace("reduced", "shrunk");
        let docs = vec![
            doc("a", BASE),
            doc("b", &copy),
            doc(
                "c",
                "Crawlers fetch pages politely and respect robots rules for every host they visit on the web.",
            ),
            doc(
                "d",
                "Tokenizers split texts into words; stemmers reduce the words to their stems for indexing purposes.",
            ),
            doc("e", "short"),
        ];
        let prepared = Prepared::new(&analyzer, docs, Vec::new(), 5, None);
        assert_eq!((prepared.len(), prepared.skipped_short), (4, 1));
        let options = ProtocolOptions {
            methods: Method::ALL.to_vec(),
            settings: MethodSettings::default(),
            threshold: 0.8,
            max_group: 100,
        };
        let report = run_pool(&prepared, &options);
        // a and b differ in one word of the third sentence: the only near-duplicate pair.
        assert_eq!(report.pool, 1);
        let row = |m: Method| report.rows.iter().find(|r| r.method == m).unwrap();
        // A4: the two longest sentences are the same in both; A0: the texts differ.
        assert_eq!((row(Method::A4).found, row(Method::A4).verified), (1, 1));
        assert_eq!(row(Method::A4).recall, 1.0);
        assert_eq!(row(Method::A0).found, 0);
        // A11 compares directly: it finds the pair, and nothing unverified.
        assert_eq!(row(Method::A11).verified, 1);
        assert_eq!(row(Method::A11).precision, 1.0);
        assert_eq!(report.dice[&Method::A4][&Method::A11], 1.0);
        assert_eq!(report.dice[&Method::A4][&Method::A0], 0.0);
        let mut table = Vec::new();
        print_pool(&report, &mut table).unwrap();
        let table = String::from_utf8(table).unwrap();
        assert!(table.contains("LongSent"), "{table}");
    }

    #[test]
    fn truth_mode_finds_planted_sources() {
        let analyzer = default_analyzer();
        let library = vec![
            doc("a", BASE),
            doc(
                "c",
                "Crawlers fetch pages politely and respect robots rules for every host they visit on the web.",
            ),
        ];
        let copy = BASE.replace("reduced", "shrunk");
        let queries = vec![
            doc("q1", &copy),
            doc(
                "q2",
                "Tokenizers split texts into words; stemmers reduce the words to their stems for indexing purposes.",
            ),
        ];
        let truth = vec![
            TruthQuery {
                kind: "word_replacement".into(),
                level: 0.05,
                source: Some("a".into()),
            },
            TruthQuery {
                kind: "negative".into(),
                level: 0.0,
                source: None,
            },
        ];
        let prepared = Prepared::new(&analyzer, library, queries, 5, None);
        let options = ProtocolOptions {
            methods: vec![Method::A0, Method::A4],
            settings: MethodSettings::default(),
            threshold: 0.8,
            max_group: 100,
        };
        let report = run_truth(&prepared, &truth, &options);
        assert_eq!(report.positives, 1);
        let a4 = report.rows.iter().find(|r| r.method == Method::A4).unwrap();
        assert_eq!((a4.found_source, a4.returned, a4.right), (1, 1, 1));
        assert_eq!(a4.recall_by_kind["word_replacement"], 1.0);
        let a0 = report.rows.iter().find(|r| r.method == Method::A0).unwrap();
        assert_eq!((a0.found_source, a0.recall), (0, 0.0));
    }
}
