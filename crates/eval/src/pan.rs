//! PAN's text-alignment measures (Potthast et al., 2010): character-level macro precision and
//! recall, granularity and plagdet, over copied cases with known spans. Characters are those of
//! the query (the suspicious document); a detection covers a case only when it names the case's
//! source document.

use serde::Serialize;

/// A copied case or a detection: a span of one query, attributed to one source document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Aligned {
    /// Which query (any id unique among the queries measured together).
    pub query: usize,
    pub source: String,
    /// Code points of the query, start inclusive, end exclusive.
    pub start: usize,
    pub end: usize,
}

impl Aligned {
    fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }

    /// Characters this and `other` share when they are about the same query and source.
    fn shared(&self, other: &Aligned) -> (usize, usize) {
        if self.query != other.query || self.source != other.source {
            return (0, 0);
        }
        (self.start.max(other.start), self.end.min(other.end))
    }
}

/// The four measures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct PanMeasures {
    pub cases: usize,
    pub detections: usize,
    pub precision: f64,
    pub recall: f64,
    pub granularity: f64,
    pub plagdet: f64,
}

/// The members of `others` that share characters with `a`.
fn overlapping<'a>(a: &Aligned, others: &'a [Aligned]) -> Vec<&'a Aligned> {
    others
        .iter()
        .filter(|o| {
            let (s, e) = a.shared(o);
            s < e
        })
        .collect()
}

/// Characters of `within` covered by the union of `others`' overlaps with it.
fn covered(within: &Aligned, others: &[&Aligned]) -> usize {
    let mut ranges: Vec<(usize, usize)> = others
        .iter()
        .map(|o| within.shared(o))
        .filter(|(s, e)| s < e)
        .collect();
    ranges.sort_unstable();
    let (mut total, mut reach) = (0, 0);
    for (start, end) in ranges {
        let start = start.max(reach);
        if end > start {
            total += end - start;
            reach = end;
        }
    }
    total
}

/// PAN's measures of `detections` against `cases`. With no detections precision is 1 (nothing
/// claimed wrongly), with no cases recall is 1; granularity is 1 when nothing is detected.
pub fn pan_measures(cases: &[Aligned], detections: &[Aligned]) -> PanMeasures {
    let mean = |values: Vec<f64>| {
        if values.is_empty() {
            1.0
        } else {
            values.iter().sum::<f64>() / values.len() as f64
        }
    };
    let recall = mean(
        cases
            .iter()
            .map(|c| covered(c, &overlapping(c, detections)) as f64 / c.len().max(1) as f64)
            .collect(),
    );
    let precision = mean(
        detections
            .iter()
            .map(|d| covered(d, &overlapping(d, cases)) as f64 / d.len().max(1) as f64)
            .collect(),
    );
    let detected: Vec<usize> = cases
        .iter()
        .map(|c| overlapping(c, detections).len())
        .filter(|n| *n > 0)
        .collect();
    let granularity = if detected.is_empty() {
        1.0
    } else {
        detected.iter().sum::<usize>() as f64 / detected.len() as f64
    };
    let f1 = if precision + recall == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    };
    PanMeasures {
        cases: cases.len(),
        detections: detections.len(),
        precision,
        recall,
        granularity,
        plagdet: f1 / (1.0 + granularity).log2(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(query: usize, source: &str, start: usize, end: usize) -> Aligned {
        Aligned {
            query,
            source: source.to_string(),
            start,
            end,
        }
    }

    #[test]
    fn exact_detections_score_one() {
        let cases = [at(0, "a", 10, 110), at(1, "b", 0, 50)];
        let m = pan_measures(&cases, &cases);
        assert_eq!(
            (m.precision, m.recall, m.granularity, m.plagdet),
            (1.0, 1.0, 1.0, 1.0)
        );
    }

    #[test]
    fn split_shifted_and_misattributed_detections() {
        // One case found in two halves: full recall and precision, granularity 2.
        let cases = [at(0, "a", 0, 100)];
        let split = [at(0, "a", 0, 50), at(0, "a", 50, 100)];
        let m = pan_measures(&cases, &split);
        assert_eq!((m.precision, m.recall, m.granularity), (1.0, 1.0, 2.0));
        assert!((m.plagdet - 1.0 / 3f64.log2()).abs() < 1e-12);

        // Shifted by 20 characters: 80 of 100 found, 80 of 100 right.
        let m = pan_measures(&cases, &[at(0, "a", 20, 120)]);
        assert!((m.recall - 0.8).abs() < 1e-12 && (m.precision - 0.8).abs() < 1e-12);

        // The right characters attributed to another source find nothing.
        let m = pan_measures(&cases, &[at(0, "b", 0, 100)]);
        assert_eq!((m.precision, m.recall, m.plagdet), (0.0, 0.0, 0.0));

        // Overlapping detections are not counted twice.
        let m = pan_measures(&cases, &[at(0, "a", 0, 60), at(0, "a", 40, 100)]);
        assert_eq!(m.recall, 1.0);
    }
}
