//! The library statistics the methods read: `N`, `df` and `cf` from the snapshot, the average
//! document length derived from them, and A9's descriptor words learned from the documents.

use rustc_hash::FxHashMap;

use super::MethodSettings;
use crate::StatsSnapshot;

/// A library's statistics as the methods use them.
#[derive(Debug, Clone)]
pub struct Collection<'a> {
    pub snapshot: &'a StatsSnapshot,
    /// `dl_avg`: the mean number of terms per document, `Σ cf / N`.
    pub avg_len: f64,
    /// A9's descriptor words; empty unless [`Collection::with_descriptors`] built them.
    pub descriptors: DescriptorWords,
}

impl<'a> Collection<'a> {
    pub fn new(snapshot: &'a StatsSnapshot) -> Collection<'a> {
        let total: u64 = snapshot.iter().map(|(_, s)| s.cf).sum();
        let docs = snapshot.docs().max(1) as f64;
        Collection {
            snapshot,
            avg_len: (total as f64 / docs).max(1.0),
            descriptors: DescriptorWords::default(),
        }
    }

    /// The same collection with A9's descriptor words learned from `documents` (each document's
    /// term counts, as in [`MethodDoc::counts`](super::MethodDoc)).
    pub fn with_descriptors<'d>(
        mut self,
        documents: impl IntoIterator<Item = &'d [(String, u32)]>,
        settings: &MethodSettings,
    ) -> Collection<'a> {
        self.descriptors = DescriptorWords::learn(documents, self.snapshot.docs(), settings);
        self
    }

    /// `N`, at least 1.
    pub fn docs(&self) -> f64 {
        self.snapshot.docs().max(1) as f64
    }

    /// `(df, cf)` of a term; a term the library lacks counts as `df = 1, cf = tf`, as if the
    /// document being signed had been added (the same rule as the seed signature).
    pub fn df_cf(&self, term: &str, tf: u32) -> (f64, f64) {
        match self.snapshot.get(term) {
            Some(stats) => (f64::from(stats.df.max(1)), stats.cf.max(1) as f64),
            None => (1.0, f64::from(tf)),
        }
    }
}

/// Buckets of a term's relative frequency `tf / tf_max` in a document: `(0, 0.05]` is bucket 0,
/// `(0.95, 1]` bucket 19.
const BUCKETS: usize = 20;

fn bucket(relative: f64) -> usize {
    ((relative * BUCKETS as f64).ceil() as usize).clamp(1, BUCKETS) - 1
}

/// A9's "descriptor" words (Ilyinsky et al.): each with the threshold of relative frequency
/// above which it sets its bit of a document's binary vector.
///
/// The paper's construction alternates, over several iterations, maximizing the coverage of
/// documents at bounded "precision" and the precision at fixed coverage, where a threshold is
/// precise when few documents have the word at a relative frequency within `±Δ` of it. It gives
/// no more detail; ours is one pass of the same two criteria:
///
/// 1. for each word in at least two documents, the threshold is the bucket boundary that
///    minimizes the documents within `±Δ` of it among those leaving at least two documents
///    above it (ties: the lower threshold);
/// 2. each word is scored by the documents above its threshold times the threshold's precision
///    (`1 − near / df`), and the [`MethodSettings::descr_words`] best words are kept.
#[derive(Debug, Clone, Default)]
pub struct DescriptorWords {
    thresholds: FxHashMap<String, f64>,
}

impl DescriptorWords {
    /// Learns the descriptor words of a library of `docs` documents.
    pub fn learn<'d>(
        documents: impl IntoIterator<Item = &'d [(String, u32)]>,
        docs: u64,
        settings: &MethodSettings,
    ) -> DescriptorWords {
        let mut histograms: FxHashMap<&'d str, [u32; BUCKETS]> = FxHashMap::default();
        for counts in documents {
            let tf_max = counts.iter().map(|(_, c)| *c).max().unwrap_or(0);
            if tf_max == 0 {
                continue;
            }
            for (term, tf) in counts {
                let relative = f64::from(*tf) / f64::from(tf_max);
                histograms.entry(term.as_str()).or_insert([0; BUCKETS])[bucket(relative)] += 1;
            }
        }
        let delta_buckets = ((settings.descr_delta * BUCKETS as f64).round() as usize).max(1);
        let mut scored: Vec<(f64, &str, f64)> = Vec::new();
        for (term, histogram) in &histograms {
            let df: u32 = histogram.iter().sum();
            // A word in (nearly) every document separates none of them.
            if df < 2 || f64::from(df) > docs as f64 / 2.0 {
                continue;
            }
            let mut best: Option<(u32, u32, usize)> = None; // (near, above, boundary)
            for boundary in 1..BUCKETS {
                let above: u32 = histogram[boundary..].iter().sum();
                if above < 2 {
                    break;
                }
                let near: u32 = histogram[boundary.saturating_sub(delta_buckets)
                    ..(boundary + delta_buckets).min(BUCKETS)]
                    .iter()
                    .sum();
                if best.is_none_or(|(n, _, _)| near < n) {
                    best = Some((near, above, boundary));
                }
            }
            if let Some((near, above, boundary)) = best {
                let precision = 1.0 - f64::from(near) / f64::from(df);
                let threshold = boundary as f64 / BUCKETS as f64;
                scored.push((f64::from(above) * precision, term, threshold));
            }
        }
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        scored.truncate(settings.descr_words);
        DescriptorWords {
            thresholds: scored
                .into_iter()
                .map(|(_, term, threshold)| (term.to_string(), threshold))
                .collect(),
        }
    }

    /// A descriptor word's threshold, if `term` is one.
    pub fn threshold(&self, term: &str) -> Option<f64> {
        self.thresholds.get(term).copied()
    }

    pub fn len(&self) -> usize {
        self.thresholds.len()
    }

    pub fn is_empty(&self) -> bool {
        self.thresholds.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::{docs, library};

    #[test]
    fn average_length_is_total_occurrences_over_documents() {
        // The fixture's four documents hold 4 + 3 + 2 + 4 = 13 terms.
        let snapshot = library();
        assert!((Collection::new(&snapshot).avg_len - 13.0 / 4.0).abs() < 1e-12);
    }

    #[test]
    fn descriptor_words_by_hand() {
        // Four documents of term counts; tf_max and relative frequencies:
        //   d1 apple 2, banana 1 → apple 1.0, banana 0.5
        //   d2 apple 1, banana 1 → 1.0, 1.0
        //   d3 apple 1, cherry 2 → apple 0.5, cherry 1.0
        //   d4 banana 2, cherry 2 → 1.0, 1.0
        // apple and banana are in 3 of 4 documents, more than N/2: with N = 4 only cherry (in
        // 2) is kept …
        let d = docs(&[
            &[("apple", 2), ("banana", 1)],
            &[("apple", 1), ("banana", 1)],
            &[("apple", 1), ("cherry", 2)],
            &[("banana", 2), ("cherry", 2)],
        ]);
        let settings = MethodSettings::default();
        let words = DescriptorWords::learn(d.iter().map(Vec::as_slice), 4, &settings);
        assert_eq!(words.len(), 1);
        assert!(words.threshold("cherry").is_some());
        // … but with N = 8 all three are. apple: buckets 19 (×2) and 9 (×1). With Δ = 0.1
        // (two buckets), boundary 1 has near = 0 (buckets 0–2 empty) and 3 above: the lowest
        // boundary with nothing near wins, threshold 0.05. cherry: relative 1.0 twice; boundary
        // 1 has near 0 and 2 above. banana: 0.5, 1.0, 1.0, likewise threshold 0.05.
        let words = DescriptorWords::learn(d.iter().map(Vec::as_slice), 8, &settings);
        assert_eq!(words.len(), 3);
        assert_eq!(words.threshold("apple"), Some(0.05));
        assert_eq!(words.threshold("cherry"), Some(0.05));
        // Keeping one word keeps the best scored: apple and banana cover 3 documents each with
        // precision 1, cherry 2; the tie goes to the first term, apple.
        let one = MethodSettings {
            descr_words: 1,
            ..settings
        };
        let words = DescriptorWords::learn(d.iter().map(Vec::as_slice), 8, &one);
        assert_eq!(words.len(), 1);
        assert!(words.threshold("apple").is_some());
    }
}
