//! The direct comparison that verifies the methods' candidate pairs: the seed comparison paper's
//! 80 % similarity reference.
//!
//! The paper verifies with Perl's `String::Similarity` (the matched share of both strings,
//! `2·matched / (|a| + |b|)`) on the preprocessed text. Ours is the same measure over the
//! analyzed terms instead of characters: `2·LCS(a, b) / (|a| + |b|)`, where `LCS` is the longest
//! common subsequence of the two term sequences. A pair is a near-duplicate when its similarity
//! reaches the threshold (0.8 by default).
//!
//! Cost is bounded: with `t` the lowest similarity of interest, a pair is refused without
//! alignment when its lengths or its bags of terms already rule `t` out, and otherwise aligned by
//! a dynamic program restricted to the band of `(1 − t)·(|a| + |b|)` insertions and deletions
//! around the diagonal (any alignment reaching `t` stays inside it).

/// The similarity `2·LCS / (|a| + |b|)` of two term sequences when it is at least `floor`;
/// `None` below it. Two empty sequences are identical (1.0).
pub(crate) fn similarity_at_least(a: &[u32], b: &[u32], floor: f64) -> Option<f64> {
    let total = a.len() + b.len();
    if total == 0 {
        return Some(1.0);
    }
    let floor = floor.clamp(0.0, 1.0);
    // Insertions plus deletions: `total − 2·LCS`; similarity ≥ floor ⇔ distance ≤ (1−floor)·total.
    let max_distance = ((1.0 - floor) * total as f64 + 1e-9).floor() as usize;
    if a.len().abs_diff(b.len()) > max_distance {
        return None;
    }
    if total - 2 * common_terms(a, b) > max_distance {
        return None;
    }
    let distance = banded_distance(a, b, max_distance)?;
    Some((total - distance) as f64 / total as f64)
}

/// The size of the multiset intersection of two sequences: an upper bound on their LCS.
fn common_terms(a: &[u32], b: &[u32]) -> usize {
    let (mut x, mut y) = (a.to_vec(), b.to_vec());
    x.sort_unstable();
    y.sort_unstable();
    common_sorted(&x, &y)
}

/// The size of the multiset intersection of two sorted lists, walked together once.
pub(crate) fn common_sorted<T: Ord>(a: &[T], b: &[T]) -> usize {
    let (mut i, mut j, mut common) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    common
}

/// The insert/delete edit distance between `a` and `b` if it is at most `max`, else `None`.
/// Cell `(i, j)` is kept only when `|i − j| ≤ max`: an alignment with at most `max` edits never
/// leaves that band. Two rows of `2·max + 1` cells.
fn banded_distance(a: &[u32], b: &[u32], max: usize) -> Option<usize> {
    const FAR: usize = usize::MAX / 2;
    let (n, m) = (a.len(), b.len());
    let width = 2 * max + 1;
    // Row i holds cells j = i − max ..= i + max at index j + max − i.
    let mut previous = vec![FAR; width];
    let mut current = vec![FAR; width];
    for (idx, cell) in previous.iter_mut().enumerate() {
        // Row 0: distance j for j = idx − max in 0..=m.
        if let Some(j) = idx.checked_sub(max)
            && j <= m
        {
            *cell = j;
        }
    }
    for i in 1..=n {
        let mut row_min = FAR;
        for (idx, cell) in current.iter_mut().enumerate() {
            *cell = FAR;
            let Some(j) = (i + idx).checked_sub(max) else {
                continue;
            };
            if j > m {
                continue;
            }
            let value = if j == 0 {
                i
            } else {
                // (i−1, j−1) is at the same index of the previous row; (i−1, j) one to the right;
                // (i, j−1) one to the left of this row.
                let diagonal = if a[i - 1] == b[j - 1] {
                    previous[idx]
                } else {
                    FAR
                };
                let up = previous
                    .get(idx + 1)
                    .copied()
                    .unwrap_or(FAR)
                    .saturating_add(1);
                diagonal.min(up)
            };
            *cell = value;
        }
        // Left neighbours need this row's cells, so they are taken in a second sweep.
        for idx in 1..width {
            if (i + idx).checked_sub(max).is_none_or(|j| j > m) {
                continue;
            }
            let left = current[idx - 1].saturating_add(1);
            if left < current[idx] {
                current[idx] = left;
            }
        }
        for cell in current.iter() {
            row_min = row_min.min(*cell);
        }
        if row_min > max {
            return None;
        }
        std::mem::swap(&mut previous, &mut current);
    }
    let idx = (m + max).checked_sub(n)?;
    previous.get(idx).copied().filter(|d| *d <= max)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The unbounded quadratic LCS, to check the banded one against.
    fn lcs(a: &[u32], b: &[u32]) -> usize {
        let mut table = vec![vec![0usize; b.len() + 1]; a.len() + 1];
        for i in 1..=a.len() {
            for j in 1..=b.len() {
                table[i][j] = if a[i - 1] == b[j - 1] {
                    table[i - 1][j - 1] + 1
                } else {
                    table[i - 1][j].max(table[i][j - 1])
                };
            }
        }
        table[a.len()][b.len()]
    }

    #[test]
    fn similarity_by_hand() {
        // a = 1 2 3 4 5, b = 1 2 9 4 5: LCS 4, similarity 8/10.
        let (a, b) = ([1, 2, 3, 4, 5], [1, 2, 9, 4, 5]);
        assert_eq!(similarity_at_least(&a, &b, 0.8), Some(0.8));
        assert_eq!(similarity_at_least(&a, &b, 0.81), None);
        // Swapped halves: 1 2 3 4 5 6 vs 4 5 6 1 2 3: LCS 3, similarity 0.5, though every term
        // is shared (the bag bound passes, the alignment refuses).
        let (c, d) = ([1, 2, 3, 4, 5, 6], [4, 5, 6, 1, 2, 3]);
        assert_eq!(similarity_at_least(&c, &d, 0.5), Some(0.5));
        assert_eq!(similarity_at_least(&c, &d, 0.8), None);
        // Lengths 2 and 8: at most 4/10.
        assert_eq!(
            similarity_at_least(&[1, 2], &[1, 2, 3, 4, 5, 6, 7, 8], 0.5),
            None
        );
        assert_eq!(similarity_at_least(&[], &[], 0.8), Some(1.0));
        assert_eq!(similarity_at_least(&[1], &[], 0.0), Some(0.0));
    }

    #[test]
    fn banded_alignment_agrees_with_the_full_one() {
        // Pseudo-random sequences over a small alphabet, many thresholds.
        let mut state = 7u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as u32
        };
        for _ in 0..300 {
            let n = (next() % 12) as usize;
            let m = (next() % 12) as usize;
            let a: Vec<u32> = (0..n).map(|_| next() % 4).collect();
            let b: Vec<u32> = (0..m).map(|_| next() % 4).collect();
            let total = n + m;
            if total == 0 {
                continue;
            }
            let exact = 2.0 * lcs(&a, &b) as f64 / total as f64;
            for floor in [0.0, 0.3, 0.5, 0.7, 0.8, 0.9, 1.0] {
                let got = similarity_at_least(&a, &b, floor);
                if exact + 1e-12 >= floor {
                    assert_eq!(got, Some(exact), "{a:?} {b:?} {floor}");
                } else {
                    assert_eq!(got, None, "{a:?} {b:?} {floor}");
                }
            }
        }
    }
}
