//! Detection quality on queries with known truth: recall, precision and F1 per modification and
//! level, for each method on its own (unverified candidates) and for the combined verdict;
//! passage accuracy for partial copies; verdicts on negatives.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::pan::{Aligned, PanMeasures, pan_measures};
use super::self_check::Latency;
use dupfinder_check::{CheckError, CheckRequest, Method, Verdict};
use dupfinder_service::library::{Catalog, LibraryError};
use dupfinder_service::library::{check, raw_candidates};

/// A query with its truth, as `gen-tests` writes it (one JSON object per line).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EvalQuery {
    pub id: String,
    pub kind: String,
    #[serde(default)]
    pub level: f64,
    pub text: String,
    /// The library document the query derives from; `None` for negatives.
    pub source: Option<String>,
    /// Whether the query should be judged a duplicate of its source (else: a partial copy, or
    /// a negative when `source` is `None`).
    pub expect_duplicate: bool,
    /// For partial copies: where the copied passage lies in `text` (code points).
    #[serde(default)]
    pub query_span: Option<TruthSpan>,
    /// For partial copies: where the copied passage lies in the source (code points).
    #[serde(default)]
    pub source_span: Option<TruthSpan>,
}

/// A span of code points, start inclusive, end exclusive.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct TruthSpan {
    pub start: usize,
    pub end: usize,
}

/// Found / returned counts for one method over a group of queries.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MethodStats {
    /// Queries with a source (positives).
    pub positives: usize,
    /// Positives whose source was returned.
    pub found: usize,
    /// Returned documents that are neither the source nor something the source itself
    /// duplicates (for negatives: every returned document).
    pub wrong: usize,
    pub recall: f64,
    pub precision: f64,
    pub f1: f64,
}

impl MethodStats {
    fn add(&mut self, other: &MethodStats) {
        self.positives += other.positives;
        self.found += other.found;
        self.wrong += other.wrong;
    }

    fn finish(&mut self) {
        self.recall = ratio(self.found, self.positives);
        self.precision = if self.found + self.wrong == 0 {
            1.0
        } else {
            ratio(self.found, self.found + self.wrong)
        };
        self.f1 = if self.recall + self.precision == 0.0 {
            0.0
        } else {
            2.0 * self.recall * self.precision / (self.recall + self.precision)
        };
        for x in [&mut self.recall, &mut self.precision, &mut self.f1] {
            *x = (*x * 1000.0).round() / 1000.0;
        }
    }
}

/// The methods reported, in table order: each method's own candidates, then the verdict.
const COLUMNS: [&str; 4] = ["seed", "robust", "shingles", "combined"];

/// One row of the table: a modification at one level.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub kind: String,
    pub level: f64,
    pub queries: usize,
    pub methods: BTreeMap<&'static str, MethodStats>,
    /// Queries whose answer raised a disguise flag.
    pub flagged: usize,
}

impl Row {
    /// A row that has counted nothing yet, with every column.
    fn empty(kind: String, level: f64) -> Row {
        Row {
            kind,
            level,
            queries: 0,
            methods: COLUMNS
                .iter()
                .map(|c| (*c, MethodStats::default()))
                .collect(),
            flagged: 0,
        }
    }
}

/// Partial copies: found, and how well the passages match the truth.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PassageStats {
    pub queries: usize,
    pub found: usize,
    pub found_share: f64,
    /// Queries whose best passage starts and ends within 5 words of the truth.
    pub boundaries_within_5_words: usize,
    pub boundaries_share: f64,
    /// Character overlap of all reported passages with the true span.
    pub char_precision: f64,
    pub char_recall: f64,
    pub duplicate_verdicts: usize,
    pub latency_ms: Latency,
}

/// Query-level detection counts and figures.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Detection {
    pub true_positives: usize,
    pub false_positives: usize,
    pub false_negatives: usize,
    pub true_negatives: usize,
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
}

impl Detection {
    fn finish(&mut self) {
        self.precision = round3(ratio(
            self.true_positives,
            self.true_positives + self.false_positives,
        ));
        self.recall = round3(ratio(
            self.true_positives,
            self.true_positives + self.false_negatives,
        ));
        self.f1 = if self.precision + self.recall == 0.0 {
            0.0
        } else {
            round3(2.0 * self.precision * self.recall / (self.precision + self.recall))
        };
    }
}

/// Verdicts on negatives.
#[derive(Debug, Clone, Default, Serialize)]
pub struct NegativeStats {
    pub queries: usize,
    pub duplicate_verdicts: usize,
    pub partial_verdicts: usize,
}

/// Whether every answer's `similarity_index` equals the sum of its matches' `share`: the
/// figure a report shows large must add up from the sources listed under it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct IndexShareCheck {
    /// Answers looked at.
    pub answers: usize,
    /// Answers whose index and sum of shares differ by more than [`INDEX_SHARE_TOLERANCE`].
    pub violations: usize,
    /// The largest difference seen.
    pub worst: f64,
}

/// How far a report's index may be from the sum of its sources' shares (rounding).
pub const INDEX_SHARE_TOLERANCE: f64 = 0.01;

impl IndexShareCheck {
    /// Looks at one answer.
    pub fn add(&mut self, answer: &dupfinder_check::CheckReport) {
        self.add_figures(
            answer.similarity_index,
            answer.matches.iter().map(|m| m.share),
        );
    }

    /// Looks at one answer's index and its sources' shares.
    pub fn add_figures(&mut self, index: f64, shares: impl IntoIterator<Item = f64>) {
        let sum: f64 = shares.into_iter().sum();
        let difference = (index - sum).abs();
        self.answers += 1;
        self.violations += usize::from(difference > INDEX_SHARE_TOLERANCE);
        self.worst = self.worst.max(round3(difference));
    }
}

/// The whole evaluation.
#[derive(Debug, Clone, Serialize)]
pub struct EvalReport {
    pub library: String,
    pub queries: usize,
    pub rejected: usize,
    pub rows: Vec<Row>,
    pub overall: Row,
    pub partial_copies: PassageStats,
    pub negatives: NegativeStats,
    /// Query-level detection: a query with a source should get some match, one without none
    /// (Clough–Stevenson's "derived vs non").
    pub detection: Detection,
    /// Check latency of the queries checked without passages.
    pub latency_ms: Latency,
    /// For partial and quoted copies: the kind of the source's passage that covers most of
    /// the true span (`missed` when there is none), per query kind.
    pub passage_kinds: BTreeMap<String, BTreeMap<String, usize>>,
    /// PAN's measures on the partial copies: every reported passage a detection, the copied
    /// passage the one case of its query.
    pub pan: PanMeasures,
    /// The index equals the sum of the sources' shares, on every answer.
    pub index_share: IndexShareCheck,
    /// Copies of text the query repeats (`repeated_copy`): how many were aligned to the right
    /// occurrence.
    pub repeated: RepeatedAlignment,
}

/// Copies whose text the query holds more than once, and how many of them a passage places
/// on the copied occurrence in both texts: it covers at least half of the true span in the
/// query and at least half of the true span in the source.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RepeatedAlignment {
    pub cases: usize,
    pub aligned: usize,
    pub share: f64,
}

/// Whether a passage lies on the true occurrence in both texts.
fn on_the_copied_occurrence(
    passage: &dupfinder_check::PassageMatch,
    query: TruthSpan,
    source: TruthSpan,
) -> bool {
    let half = |truth: TruthSpan, start: usize, end: usize| {
        let covered = overlap(&[(start, end)], (truth.start, truth.end)).0;
        2 * covered >= truth.end - truth.start
    };
    half(query, passage.query.start, passage.query.end)
        && half(source, passage.doc.start, passage.doc.end)
}

/// Runs every query through the real check path against `library`.
pub fn evaluate(
    catalog: &Catalog,
    library: &str,
    queries: &[EvalQuery],
) -> Result<EvalReport, LibraryError> {
    let index = catalog.index(library)?;
    let mut twins_of: HashMap<String, HashSet<String>> = HashMap::new();
    let mut rows: BTreeMap<(String, u64), Row> = BTreeMap::new();
    let mut partial = PassageStats::default();
    let mut negatives = NegativeStats::default();
    let (mut latencies, mut passage_latencies) = (Vec::new(), Vec::new());
    let (mut char_hit, mut char_predicted, mut char_truth) = (0usize, 0usize, 0usize);
    let mut rejected = 0;
    let mut detection = Detection::default();
    let mut passage_kinds: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    let (mut pan_cases, mut pan_detections) = (Vec::new(), Vec::new());
    let mut index_share = IndexShareCheck::default();
    let mut repeated = RepeatedAlignment::default();

    for query in queries {
        let is_partial = query.source.is_some() && !query.expect_duplicate;
        let raw = match raw_candidates(catalog, library, &query.text) {
            Ok(raw) => raw,
            Err(LibraryError::Check(CheckError::Text(_))) => {
                rejected += 1;
                continue;
            }
            Err(LibraryError::Check(e)) => unreachable!("a valid request failed: {e}"),
            Err(e) => return Err(e),
        };
        let mut request = CheckRequest::new(query.text.clone());
        request.libraries = Some(vec![library.to_string()]);
        let kinded = matches!(
            query.kind.as_str(),
            "partial_copy" | "quoted_copy" | "repeated_copy" | "many_sources"
        );
        request.passages = kinded;
        let answer = match check(catalog, &request) {
            Ok(answer) => answer,
            Err(LibraryError::Check(_)) => {
                rejected += 1;
                continue;
            }
            Err(e) => return Err(e),
        };
        // Reports are made with passages, which the figures come from: a query checked
        // without them is checked once more with them for this count.
        if kinded {
            index_share.add(&answer);
        } else {
            let mut with_passages = request.clone();
            with_passages.passages = true;
            if let Ok(full) = check(catalog, &with_passages) {
                index_share.add(&full);
            }
        }
        let is_partial_copy = query.kind == "partial_copy";
        if is_partial_copy {
            passage_latencies.push(answer.took_ms);
        } else {
            latencies.push(answer.took_ms);
        }

        // What counts as correct: the source, or a document the source itself duplicates
        // (the corpora hold natural duplicates).
        let twins: HashSet<String> = match &query.source {
            None => HashSet::new(),
            Some(source) => {
                if !twins_of.contains_key(source) {
                    let mut twins = HashSet::from([source.clone()]);
                    if let Some(doc) = index.document(source)? {
                        let mut request = CheckRequest::new(doc.text);
                        request.libraries = Some(vec![library.to_string()]);
                        if let Ok(own) = check(catalog, &request) {
                            twins.extend(
                                own.matches
                                    .into_iter()
                                    .filter(|m| m.verdict == Verdict::Duplicate)
                                    .map(|m| m.doc_id),
                            );
                        }
                    }
                    twins_of.insert(source.clone(), twins);
                }
                twins_of[source].clone()
            }
        };

        let row = rows
            .entry((query.kind.clone(), (query.level * 1000.0).round() as u64))
            .or_insert_with(|| Row::empty(query.kind.clone(), query.level));
        row.queries += 1;
        row.flagged += usize::from(!answer.flags.is_empty());
        let score = |returned: &mut dyn Iterator<Item = &String>| -> MethodStats {
            let returned: HashSet<&String> = returned.collect();
            let positive = query.source.is_some();
            MethodStats {
                positives: usize::from(positive),
                found: usize::from(
                    positive && query.source.as_ref().is_some_and(|s| returned.contains(s)),
                ),
                wrong: returned.iter().filter(|id| !twins.contains(**id)).count(),
                ..Default::default()
            }
        };
        let empty = Vec::new();
        for (column, method) in [
            ("seed", Method::Signature),
            ("robust", Method::Robust),
            ("shingles", Method::Shingles),
        ] {
            let stats = score(&mut raw.get(&method).unwrap_or(&empty).iter());
            row.methods
                .get_mut(column)
                .expect("column exists")
                .add(&stats);
        }
        // The verdict: duplicates claimed for duplicate-kind queries and negatives; any match
        // for partial copies.
        let claimed: Vec<&String> = answer
            .matches
            .iter()
            .filter(|m| is_partial || m.verdict == Verdict::Duplicate)
            .map(|m| &m.doc_id)
            .collect();
        let combined = score(&mut claimed.into_iter());
        row.methods
            .get_mut("combined")
            .expect("column exists")
            .add(&combined);

        if query.source.is_none() {
            negatives.queries += 1;
            negatives.duplicate_verdicts += answer
                .matches
                .iter()
                .filter(|m| m.verdict == Verdict::Duplicate)
                .count();
            negatives.partial_verdicts += answer
                .matches
                .iter()
                .filter(|m| m.verdict == Verdict::Partial)
                .count();
        }
        let predicted = !answer.matches.is_empty();
        let actual = query.source.is_some();
        detection.true_positives += usize::from(predicted && actual);
        detection.false_positives += usize::from(predicted && !actual);
        detection.false_negatives += usize::from(!predicted && actual);
        detection.true_negatives += usize::from(!predicted && !actual);
        if kinded {
            let source = query.source.as_deref().unwrap_or_default();
            let kind = query
                .query_span
                .and_then(|truth| {
                    let found = answer.matches.iter().find(|m| m.doc_id == source)?;
                    let best = found.passages.iter().flatten().max_by_key(|p| {
                        overlap(&[(p.query.start, p.query.end)], (truth.start, truth.end)).0
                    })?;
                    (overlap(
                        &[(best.query.start, best.query.end)],
                        (truth.start, truth.end),
                    )
                    .0 > 0)
                        .then(|| serde_json::to_value(best.kind).ok())
                        .flatten()
                        .and_then(|v| v.as_str().map(str::to_string))
                })
                .unwrap_or_else(|| "missed".to_string());
            *passage_kinds
                .entry(query.kind.clone())
                .or_default()
                .entry(kind)
                .or_default() += 1;
        }
        if query.kind == "repeated_copy"
            && let (Some(source), Some(truth), Some(source_truth)) =
                (&query.source, query.query_span, query.source_span)
        {
            repeated.cases += 1;
            let aligned = answer
                .matches
                .iter()
                .filter(|m| twins.contains(&m.doc_id) || &m.doc_id == source)
                .flat_map(|m| m.passages.iter().flatten())
                .any(|p| on_the_copied_occurrence(p, truth, source_truth));
            repeated.aligned += usize::from(aligned);
        }
        if is_partial_copy && let (Some(source), Some(truth)) = (&query.source, query.query_span) {
            let case = pan_cases.len();
            pan_cases.push(Aligned {
                query: case,
                source: source.clone(),
                start: truth.start,
                end: truth.end,
            });
            for m in &answer.matches {
                // A natural duplicate of the source is the source.
                let named = if twins.contains(&m.doc_id) {
                    source.clone()
                } else {
                    m.doc_id.clone()
                };
                for p in m.passages.iter().flatten() {
                    pan_detections.push(Aligned {
                        query: case,
                        source: named.clone(),
                        start: p.query.start,
                        end: p.query.end,
                    });
                }
            }
        }
        if is_partial_copy {
            partial.queries += 1;
            let source = query.source.as_deref().unwrap_or_default();
            let found = answer.matches.iter().find(|m| m.doc_id == source);
            if let Some(found) = found {
                partial.found += 1;
                partial.duplicate_verdicts += usize::from(found.verdict == Verdict::Duplicate);
                if let (Some(truth), Some(passages)) = (query.query_span, &found.passages) {
                    let spans: Vec<(usize, usize)> = passages
                        .iter()
                        .map(|p| (p.query.start, p.query.end))
                        .collect();
                    let (hit, predicted) = overlap(&spans, (truth.start, truth.end));
                    char_hit += hit;
                    char_predicted += predicted;
                    let best = spans
                        .iter()
                        .max_by_key(|(s, e)| overlap(&[(*s, *e)], (truth.start, truth.end)).0);
                    if let Some(&(start, end)) = best {
                        let chars: Vec<char> = query.text.chars().collect();
                        let within = words_between(&chars, start, truth.start) <= 5
                            && words_between(&chars, end, truth.end) <= 5;
                        partial.boundaries_within_5_words += usize::from(within);
                    }
                }
            }
            if let Some(truth) = query.query_span {
                char_truth += truth.end - truth.start;
            }
        }
    }

    let mut overall = Row::empty("overall".to_string(), 0.0);
    let mut rows: Vec<Row> = rows.into_values().collect();
    for row in &mut rows {
        overall.queries += row.queries;
        overall.flagged += row.flagged;
        for (column, stats) in &mut row.methods {
            overall
                .methods
                .get_mut(column)
                .expect("column exists")
                .add(stats);
            stats.finish();
        }
    }
    overall.methods.values_mut().for_each(MethodStats::finish);
    partial.found_share = round3(ratio(partial.found, partial.queries));
    partial.boundaries_share = round3(ratio(partial.boundaries_within_5_words, partial.queries));
    partial.char_precision = round3(ratio(char_hit, char_predicted));
    partial.char_recall = round3(ratio(char_hit, char_truth));
    partial.latency_ms = Latency::of(&mut passage_latencies);
    detection.finish();
    Ok(EvalReport {
        library: library.to_string(),
        queries: queries.len(),
        rejected,
        rows,
        overall,
        partial_copies: partial,
        negatives,
        detection,
        latency_ms: Latency::of(&mut latencies),
        passage_kinds,
        pan: pan_measures(&pan_cases, &pan_detections),
        index_share,
        repeated: RepeatedAlignment {
            share: round3(ratio(repeated.aligned, repeated.cases)),
            ..repeated
        },
    })
}

/// Characters of `spans` (merged) inside `truth`, and characters of `spans` in all.
fn overlap(spans: &[(usize, usize)], truth: (usize, usize)) -> (usize, usize) {
    let mut sorted = spans.to_vec();
    sorted.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (s, e) in sorted {
        match merged.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    let total = merged.iter().map(|(s, e)| e - s).sum();
    let hit = merged
        .iter()
        .map(|(s, e)| e.min(&truth.1).saturating_sub(*s.max(&truth.0)))
        .sum();
    (hit, total)
}

/// Words (runs of alphanumeric characters) that start between two code point offsets.
fn words_between(chars: &[char], a: usize, b: usize) -> usize {
    let (lo, hi) = (a.min(b).min(chars.len()), a.max(b).min(chars.len()));
    (lo..hi)
        .filter(|&i| chars[i].is_alphanumeric() && (i == 0 || !chars[i - 1].is_alphanumeric()))
        .count()
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The report as a table, like seed 002's Table 2: recall / precision per method.
pub fn print_table(report: &EvalReport, out: &mut impl std::io::Write) -> std::io::Result<()> {
    writeln!(
        out,
        "library `{}`: {} queries ({} rejected)",
        report.library, report.queries, report.rejected
    )?;
    writeln!(
        out,
        "{:<22} {:>5} {:>4} | {:>13} | {:>13} | {:>13} | {:>19} | {:>7}",
        "modification",
        "level",
        "n",
        "seed R / P",
        "robust R / P",
        "shingles R / P",
        "combined R / P / F1",
        "flagged"
    )?;
    let line = |out: &mut dyn std::io::Write, row: &Row| -> std::io::Result<()> {
        let m = |c: &str| &row.methods[c];
        writeln!(
            out,
            "{:<22} {:>5.2} {:>4} | {:>5.3} / {:>5.3} | {:>5.3} / {:>5.3} | {:>5.3} / {:>5.3} | {:>5.3} / {:>5.3} / {:>5.3} | {:>7}",
            row.kind,
            row.level,
            row.queries,
            m("seed").recall,
            m("seed").precision,
            m("robust").recall,
            m("robust").precision,
            m("shingles").recall,
            m("shingles").precision,
            m("combined").recall,
            m("combined").precision,
            m("combined").f1,
            row.flagged,
        )
    };
    for row in &report.rows {
        line(out, row)?;
    }
    line(out, &report.overall)?;
    let p = &report.partial_copies;
    writeln!(
        out,
        "partial copies: {} queries, found {} ({:.3}), passage boundaries within 5 words {} ({:.3}), character precision {:.3} recall {:.3}, p50 {:.2} ms with passages",
        p.queries,
        p.found,
        p.found_share,
        p.boundaries_within_5_words,
        p.boundaries_share,
        p.char_precision,
        p.char_recall,
        p.latency_ms.p50
    )?;
    let d = &report.detection;
    writeln!(
        out,
        "query-level detection (source found or not): precision {:.3} recall {:.3} F1 {:.3} (TP {} FP {} FN {} TN {})",
        d.precision,
        d.recall,
        d.f1,
        d.true_positives,
        d.false_positives,
        d.false_negatives,
        d.true_negatives
    )?;
    let n = &report.negatives;
    writeln!(
        out,
        "negatives: {} queries, {} duplicate verdicts, {} partial verdicts; check latency p50 {:.2} ms, p99 {:.2} ms",
        n.queries,
        n.duplicate_verdicts,
        n.partial_verdicts,
        report.latency_ms.p50,
        report.latency_ms.p99
    )?;
    let pan = &report.pan;
    writeln!(
        out,
        "PAN measures of partial copies: {} cases, {} detections, precision {:.3}, recall {:.3}, granularity {:.3}, plagdet {:.3}",
        pan.cases, pan.detections, pan.precision, pan.recall, pan.granularity, pan.plagdet
    )?;
    let s = &report.index_share;
    writeln!(
        out,
        "similarity index = sum of the sources' shares (within {INDEX_SHARE_TOLERANCE}): {} answers, {} violations, largest difference {:.4}",
        s.answers, s.violations, s.worst
    )?;
    let r = &report.repeated;
    if r.cases > 0 {
        writeln!(
            out,
            "repeated text: {} copies, aligned to the right occurrence {} ({:.3})",
            r.cases, r.aligned, r.share
        )?;
    }
    for (kind, counts) in &report.passage_kinds {
        let total: usize = counts.values().sum();
        let parts: Vec<String> = counts
            .iter()
            .map(|(k, n)| format!("{k} {n} ({:.3})", ratio(*n, total)))
            .collect();
        writeln!(out, "passage kinds of {kind}: {}", parts.join(", "))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_that_is_not_the_sum_of_the_shares_is_a_violation() {
        let mut check = IndexShareCheck::default();
        check.add_figures(0.45, [0.3, 0.15]);
        check.add_figures(0.0, []);
        // Rounding of each share to four places stays within the tolerance.
        check.add_figures(0.3333, [0.1111, 0.1111, 0.1112]);
        assert_eq!((check.answers, check.violations), (3, 0));
        // The page said 63 % above sources adding up to 45 %.
        check.add_figures(0.63, [0.45]);
        assert_eq!((check.answers, check.violations, check.worst), (4, 1, 0.18));
    }

    #[test]
    fn overlap_merges_spans() {
        assert_eq!(overlap(&[(0, 10), (5, 20)], (10, 30)), (10, 20));
        assert_eq!(overlap(&[], (0, 5)), (0, 0));
    }

    #[test]
    fn words_between_counts_word_starts() {
        let chars: Vec<char> = "one two, three  four".chars().collect();
        assert_eq!(words_between(&chars, 0, 20), 4);
        assert_eq!(words_between(&chars, 4, 0), 1);
        assert_eq!(words_between(&chars, 3, 5), 1);
        assert_eq!(words_between(&chars, 3, 4), 0);
    }
}
