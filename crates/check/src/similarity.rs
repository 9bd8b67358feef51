//! Similarity of two analyzed texts from their term counts (bags of words): resemblance and
//! containment in both directions. Robust to reordering and to edits that keep most words.

/// How much two texts share.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Similarity {
    /// Shared / all: the weighted Jaccard coefficient of the two bags.
    pub resemblance: f64,
    /// Share of the query found in the document.
    pub containment_query: f64,
    /// Share of the document found in the query.
    pub containment_doc: f64,
}

impl Similarity {
    /// The largest of the three figures: what `min_similarity` is compared with.
    pub fn best(&self) -> f64 {
        self.resemblance
            .max(self.containment_query)
            .max(self.containment_doc)
    }
}

/// How many values two sorted, deduplicated slices share.
pub fn sorted_intersection<T: Ord>(a: &[T], b: &[T]) -> usize {
    let (mut i, mut j, mut shared) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    shared
}

/// Compares two bags of words, each sorted by term with one entry per term.
pub fn bag_similarity(query: &[(String, u32)], doc: &[(String, u32)]) -> Similarity {
    let (mut i, mut j) = (0, 0);
    let mut shared = 0u64;
    while i < query.len() && j < doc.len() {
        match query[i].0.cmp(&doc[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += u64::from(query[i].1.min(doc[j].1));
                i += 1;
                j += 1;
            }
        }
    }
    let total = |bag: &[(String, u32)]| bag.iter().map(|(_, c)| u64::from(*c)).sum::<u64>();
    let (q, d) = (total(query), total(doc));
    let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    Similarity {
        resemblance: ratio(shared, q + d - shared),
        containment_query: ratio(shared, q),
        containment_doc: ratio(shared, d),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bag(pairs: &[(&str, u32)]) -> Vec<(String, u32)> {
        pairs.iter().map(|(t, c)| (t.to_string(), *c)).collect()
    }

    #[test]
    fn identical_bags_are_fully_similar() {
        let a = bag(&[("alpha", 2), ("beta", 1)]);
        let s = bag_similarity(&a, &a);
        assert_eq!(
            (s.resemblance, s.containment_query, s.containment_doc),
            (1.0, 1.0, 1.0)
        );
    }

    #[test]
    fn short_text_contained_in_long_one() {
        let short = bag(&[("alpha", 1), ("beta", 1)]);
        let long = bag(&[("alpha", 1), ("beta", 1), ("gamma", 2), ("delta", 4)]);
        let s = bag_similarity(&short, &long);
        // shared 2; query 2, doc 8: resemblance 2/8, containment 1.0 and 0.25.
        assert_eq!(s.resemblance, 0.25);
        assert_eq!(s.containment_query, 1.0);
        assert_eq!(s.containment_doc, 0.25);
        assert_eq!(s.best(), 1.0);
    }

    #[test]
    fn disjoint_and_empty_bags() {
        let s = bag_similarity(&bag(&[("alpha", 1)]), &bag(&[("beta", 1)]));
        assert_eq!(s.best(), 0.0);
        assert_eq!(bag_similarity(&[], &[]).best(), 0.0);
    }
}
