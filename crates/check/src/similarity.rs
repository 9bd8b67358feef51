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
    bag_similarity_of(pairs(query), pairs(doc))
}

/// A bag of owned terms as (term, count) pairs.
pub(crate) fn pairs(bag: &[(String, u32)]) -> impl ExactSizeIterator<Item = (&str, u32)> {
    bag.iter().map(|(term, count)| (term.as_str(), *count))
}

/// [`bag_similarity`] of two bags given as (term, count) in term order, one entry per term.
pub(crate) fn bag_similarity_of<'q, 'd>(
    query: impl IntoIterator<Item = (&'q str, u32)>,
    doc: impl IntoIterator<Item = (&'d str, u32)>,
) -> Similarity {
    let (mut query, mut doc) = (query.into_iter(), doc.into_iter());
    let (mut q_at, mut d_at) = (query.next(), doc.next());
    let (mut shared, mut q, mut d) = (0u64, 0u64, 0u64);
    while let (Some((q_term, q_count)), Some((d_term, d_count))) = (q_at, d_at) {
        match q_term.cmp(d_term) {
            std::cmp::Ordering::Less => {
                q += u64::from(q_count);
                q_at = query.next();
            }
            std::cmp::Ordering::Greater => {
                d += u64::from(d_count);
                d_at = doc.next();
            }
            std::cmp::Ordering::Equal => {
                shared += u64::from(q_count.min(d_count));
                q += u64::from(q_count);
                d += u64::from(d_count);
                (q_at, d_at) = (query.next(), doc.next());
            }
        }
    }
    q += q_at
        .into_iter()
        .chain(query)
        .map(|(_, c)| u64::from(c))
        .sum::<u64>();
    d += d_at
        .into_iter()
        .chain(doc)
        .map(|(_, c)| u64::from(c))
        .sum::<u64>();
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

    /// The merge agrees with counting each bag in a map, over bags of every overlap.
    #[test]
    fn the_merge_counts_what_a_map_counts() {
        use std::collections::BTreeMap;
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |below: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % below
        };
        for _ in 0..500 {
            let mut bags = [BTreeMap::new(), BTreeMap::new()];
            for bag in &mut bags {
                for _ in 0..next(12) {
                    bag.insert(format!("t{}", next(16)), 1 + next(5) as u32);
                }
            }
            let [query, doc] = bags.map(|b| b.into_iter().collect::<Vec<(String, u32)>>());
            let count = |bag: &[(String, u32)], term: &str| {
                bag.iter()
                    .find(|(t, _)| t == term)
                    .map_or(0, |(_, c)| u64::from(*c))
            };
            let shared: u64 = query
                .iter()
                .map(|(t, c)| u64::from(*c).min(count(&doc, t)))
                .sum();
            let (q, d) = (
                query.iter().map(|(_, c)| u64::from(*c)).sum::<u64>(),
                doc.iter().map(|(_, c)| u64::from(*c)).sum::<u64>(),
            );
            let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
            let s = bag_similarity(&query, &doc);
            assert_eq!(
                s.resemblance,
                ratio(shared, q + d - shared),
                "{query:?} {doc:?}"
            );
            assert_eq!(s.containment_query, ratio(shared, q));
            assert_eq!(s.containment_doc, ratio(shared, d));
        }
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
