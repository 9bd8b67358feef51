//! Sweeps: one parameter of the methods (or the reference threshold) over a range of values,
//! the pool protocol at each value, and the curves of recall, precision, F1 and the pool's size.
//!
//! For a method parameter, the methods it affects run once per value; the pool is every
//! verified pair found by any method at any value (plus the methods asked for at the base
//! settings), so every point is scored against the same pool. For `threshold`, the pairs are
//! found once and each point re-verifies them at its threshold: the pool is then, by definition,
//! what reaches that threshold (seed 004's curve of duplicates against the threshold).

use serde::Serialize;

use super::methods::{
    MethodPairs, PoolRow, Prepared, ProtocolOptions, Verifier, run_methods, score_against,
    verified_pool,
};
use dupfinder_signature::methods::{Method, MethodSettings, SettingError};

/// A parameter and the values to sweep it over.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepSpec {
    pub name: String,
    pub values: Vec<String>,
}

/// A sweep that cannot be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SweepError {
    #[error(
        "cannot read the sweep `{0}`: expected name=FROM..TO (integers), name=FROM..TO:STEP, or name=V1,V2,…"
    )]
    Syntax(String),
    #[error("the sweep `{0}` has more than 100 values")]
    TooMany(String),
    #[error(transparent)]
    Setting(#[from] SettingError),
}

impl std::str::FromStr for SweepSpec {
    type Err = SweepError;

    /// `shingle_len=3..15`, `threshold=0.5..0.95:0.05`, `imatch_band=0.1-0.99,0.2-0.99`.
    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let syntax = || SweepError::Syntax(spec.to_string());
        let (name, range) = spec.split_once('=').ok_or_else(syntax)?;
        let name = name.trim().to_string();
        let values: Vec<String> = if let Some((from, to)) = range.split_once("..") {
            let (to, step) = match to.split_once(':') {
                Some((to, step)) => (to, Some(step)),
                None => (to, None),
            };
            match step {
                None => {
                    let from: i64 = from.trim().parse().map_err(|_| syntax())?;
                    let to: i64 = to.trim().parse().map_err(|_| syntax())?;
                    if to < from || to - from > 100 {
                        return Err(SweepError::TooMany(spec.to_string()));
                    }
                    (from..=to).map(|v| v.to_string()).collect()
                }
                Some(step) => {
                    let from: f64 = from.trim().parse().map_err(|_| syntax())?;
                    let to: f64 = to.trim().parse().map_err(|_| syntax())?;
                    let step: f64 = step.trim().parse().map_err(|_| syntax())?;
                    if step.is_nan() || step <= 0.0 || to < from {
                        return Err(syntax());
                    }
                    let count = ((to - from) / step + 1e-9).floor() as usize + 1;
                    if count > 100 {
                        return Err(SweepError::TooMany(spec.to_string()));
                    }
                    (0..count)
                        .map(|i| format!("{}", ((from + step * i as f64) * 1e6).round() / 1e6))
                        .collect()
                }
            }
        } else {
            range
                .split(',')
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
                .collect()
        };
        if name.is_empty() || values.is_empty() {
            return Err(syntax());
        }
        if values.len() > 100 {
            return Err(SweepError::TooMany(spec.to_string()));
        }
        if name != "threshold" {
            // Every value must be a valid setting before anything runs.
            let mut probe = MethodSettings::default();
            for value in &values {
                probe.set(&name, value)?;
            }
        }
        Ok(SweepSpec { name, values })
    }
}

/// The methods a parameter changes; `None` for the threshold (all of them).
fn affected(name: &str) -> Option<Vec<Method>> {
    use Method::*;
    Some(match name {
        "threshold" => return None,
        "shingle_len" => vec![A6, A8, A11],
        "sampling" => vec![A11],
        "imatch_band" | "lexicons" | "lexicon_drop" | "imatch_min_terms" => vec![A7],
        "top_terms" => vec![A1, A2, A3, A10],
        "top_sentences" => vec![A4, A5],
        "bm25_k" | "bm25_b" => vec![A2, A5],
        "opt_idf" => vec![A10],
        "log_min_shingles" => vec![A8],
        "descr_words" | "descr_delta" | "descr_min_bits" => vec![A9],
        "length_ratio" => vec![A11, A12],
        "sentence_ratio" | "common_words" => vec![A12],
        _ => return None,
    })
}

/// One value of the swept parameter.
#[derive(Debug, Clone, Serialize)]
pub struct SweepPoint {
    pub value: String,
    /// Verified pairs in the pool at this point.
    pub pool: usize,
    pub rows: Vec<PoolRow>,
}

/// The sweep's curves.
#[derive(Debug, Clone, Serialize)]
pub struct SweepReport {
    pub parameter: String,
    pub methods: Vec<Method>,
    pub documents: usize,
    pub threshold: f64,
    pub points: Vec<SweepPoint>,
}

/// Runs the sweep over `prepared` (all of it a library).
pub fn run_sweep(
    prepared: &Prepared,
    base: &ProtocolOptions,
    spec: &SweepSpec,
) -> Result<SweepReport, SweepError> {
    if spec.name == "threshold" {
        return threshold_sweep(prepared, base, spec);
    }
    let swept: Vec<Method> = match affected(&spec.name) {
        Some(methods) => {
            let asked: Vec<Method> = methods
                .iter()
                .copied()
                .filter(|m| base.methods.contains(m))
                .collect();
            if asked.is_empty() { methods } else { asked }
        }
        None => base.methods.clone(),
    };
    let mut verifier = Verifier::new(prepared, base.threshold);
    let base_runs = run_methods(&base.methods, prepared, base, &mut verifier);
    let mut point_runs: Vec<(String, Vec<MethodPairs>)> = Vec::new();
    for value in &spec.values {
        let mut options = base.clone();
        options.settings.set(&spec.name, value)?;
        // A9's descriptor words depend on its settings: `run_methods` learns them per point.
        let runs = run_methods(&swept, prepared, &options, &mut verifier);
        point_runs.push((value.clone(), runs));
    }
    let all = base_runs
        .iter()
        .chain(point_runs.iter().flat_map(|(_, runs)| runs.iter()));
    let (_, pool) = verified_pool(all, &mut verifier, base.threshold);
    let points = point_runs
        .into_iter()
        .map(|(value, runs)| SweepPoint {
            value,
            pool: pool.len(),
            rows: score_against(&runs, &pool),
        })
        .collect();
    Ok(SweepReport {
        parameter: spec.name.clone(),
        methods: swept,
        documents: prepared.len(),
        threshold: base.threshold,
        points,
    })
}

fn threshold_sweep(
    prepared: &Prepared,
    base: &ProtocolOptions,
    spec: &SweepSpec,
) -> Result<SweepReport, SweepError> {
    let thresholds: Vec<f64> = spec
        .values
        .iter()
        .map(|v| {
            v.parse::<f64>()
                .ok()
                .filter(|t| (0.0..=1.0).contains(t))
                .ok_or_else(|| SweepError::Syntax(format!("threshold={v}")))
        })
        .collect::<Result<_, _>>()?;
    let floor = thresholds.iter().copied().fold(1.0, f64::min);
    let mut options = base.clone();
    // A11 compares with the reference itself: run at the lowest threshold, its pairs are then
    // cut at each point's.
    options.threshold = floor;
    let mut verifier = Verifier::new(prepared, floor);
    let runs = run_methods(&base.methods, prepared, &options, &mut verifier);
    let mut points = Vec::new();
    for (value, threshold) in spec.values.iter().zip(&thresholds) {
        let mut at: Vec<MethodPairs> = runs.clone();
        for run in at.iter_mut().filter(|r| r.method == Method::A11) {
            run.found
                .pairs
                .retain(|(a, b)| verifier.similarity(*a, *b) >= *threshold);
        }
        let (_, pool) = verified_pool(&at, &mut verifier, *threshold);
        points.push(SweepPoint {
            value: value.clone(),
            pool: pool.len(),
            rows: score_against(&at, &pool),
        });
    }
    Ok(SweepReport {
        parameter: spec.name.clone(),
        methods: base.methods.clone(),
        documents: prepared.len(),
        threshold: floor,
        points,
    })
}

/// The sweep as a table: one line per value, recall/precision/F1 per method.
pub fn print_sweep(report: &SweepReport, out: &mut impl std::io::Write) -> std::io::Result<()> {
    writeln!(
        out,
        "sweep of {} over {} documents (recall / precision / F1 against the pool)",
        report.parameter, report.documents
    )?;
    write!(out, "{:<12} {:>7}", report.parameter, "pool")?;
    for m in &report.methods {
        write!(out, " {:>17}", m.to_string())?;
    }
    writeln!(out)?;
    for point in &report.points {
        write!(out, "{:<12} {:>7}", point.value, point.pool)?;
        for m in &report.methods {
            match point.rows.iter().find(|r| r.method == *m) {
                Some(r) => write!(out, " {:>5.2} {:>5.2} {:>5.2}", r.recall, r.precision, r.f1)?,
                None => write!(out, " {:>17}", "—")?,
            }
        }
        writeln!(out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweep_specs_parse() {
        let s: SweepSpec = "shingle_len=3..6".parse().unwrap();
        assert_eq!(s.values, ["3", "4", "5", "6"]);
        let s: SweepSpec = "threshold=0.5..0.7:0.1".parse().unwrap();
        assert_eq!(s.values, ["0.5", "0.6", "0.7"]);
        let s: SweepSpec = "imatch_band=0.1-0.9, 0.2-0.99".parse().unwrap();
        assert_eq!(s.values, ["0.1-0.9", "0.2-0.99"]);
        assert!(matches!(
            "nonsense=1,2".parse::<SweepSpec>(),
            Err(SweepError::Setting(_))
        ));
        assert!(matches!(
            "shingle_len=0..3".parse::<SweepSpec>(),
            Err(SweepError::Setting(_))
        ));
        assert!("shingle_len".parse::<SweepSpec>().is_err());
        assert!(matches!(
            "sampling=1..1000".parse::<SweepSpec>(),
            Err(SweepError::TooMany(_))
        ));
    }
}
