//! The holders of a passage the library repeats, counted as works rather than documents.
//!
//! A passage held by `boilerplate_min_docs` library documents reads as boilerplate: a journal
//! repeats its templates, affiliations and statements across papers of different authors. A
//! paper that the library holds in several versions — a workshop abstract, the Findings paper,
//! the journal article — repeats its own abstract just as often, yet copying it is copying one
//! work. So before a passage is called boilerplate, the documents that hold it are grouped:
//! two holders are one work when their normalized titles are equal or when they are
//! near-duplicates of each other by the check's own duplicate rule (shingle resemblance or
//! containment). The passage is boilerplate when at least `boilerplate_min_docs` works hold
//! most of it: counting documents per shingle is not enough, because each of a passage's
//! three-word shingles may recur in a few unrelated papers of a large library (`text mining
//! task`, `model outperforms both`) while the passage as a whole is held by one paper alone.
//!
//! This runs only for passages that already look repeated. A full paper's front matter and
//! reference entries are repeated passages of every source it shares them with, so one check
//! asks about the same passages and the same holders many times: [`Works`] remembers, for one
//! read view, each passage's answer and each holder it read.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::CheckConfig;
use dupfinder_storage::ReadView;
use dupfinder_storage::index::{DocKey, IndexError, ShingleQuery};

/// Holders read at most; a passage held by more documents is boilerplate whatever their works.
const MAX_HOLDERS: usize = 64;

/// A holder as works are told apart: its normalized title and its distinct shingles, sorted.
type Holder = (Option<String>, Vec<u64>);

/// What one check learnt about works through one read view.
#[derive(Default)]
pub(super) struct Works {
    /// A passage's looked-up shingles (sorted) to how many works hold it.
    answers: RefCell<HashMap<Vec<u64>, Option<usize>>>,
    holders: RefCell<HashMap<DocKey, Rc<Holder>>>,
}

impl Works {
    /// How many distinct works hold a passage: the documents that hold most of `passage` (its
    /// selected shingles that are not too frequent to be looked up), grouped into works. `None`
    /// when more than [`MAX_HOLDERS`] documents hold it: as many as that are never one work.
    pub(super) fn holding(
        &self,
        view: &dyn ReadView,
        passage: &[u64],
        config: &CheckConfig,
    ) -> Result<Option<usize>, IndexError> {
        let mut key = passage.to_vec();
        key.sort_unstable();
        key.dedup();
        if let Some(answer) = self.answers.borrow().get(&key) {
            return Ok(*answer);
        }
        let answer = self.count(view, &key, config)?;
        self.answers.borrow_mut().insert(key, answer);
        Ok(answer)
    }

    fn count(
        &self,
        view: &dyn ReadView,
        passage: &[u64],
        config: &CheckConfig,
    ) -> Result<Option<usize>, IndexError> {
        if passage.is_empty() {
            return Ok(Some(0));
        }
        // A holder of most of the passage's shingles holds the passage.
        let min_hits = u32::try_from(passage.len().div_ceil(2)).unwrap_or(u32::MAX);
        let search = view.shingle_search(&ShingleQuery {
            shingles: passage,
            max_df: u64::MAX,
            min_hits,
            limit: MAX_HOLDERS + 1,
        })?;
        if search.hits.len() > MAX_HOLDERS {
            return Ok(None);
        }
        let keys: Vec<DocKey> = search.hits.iter().map(|(key, _)| *key).collect();
        let unread: Vec<DocKey> = {
            let known = self.holders.borrow();
            keys.iter()
                .copied()
                .filter(|k| !known.contains_key(k))
                .collect()
        };
        if !unread.is_empty() {
            let read = view.stored_for_check_each(&unread)?;
            let mut known = self.holders.borrow_mut();
            for (key, stored) in unread.into_iter().zip(read) {
                let Some(stored) = stored else { continue };
                let title = stored
                    .meta()
                    .title
                    .as_deref()
                    .map(normalized_title)
                    .filter(|t| !t.is_empty());
                let mut shingles = stored.shingles;
                shingles.sort_unstable();
                shingles.dedup();
                known.insert(key, Rc::new((title, shingles)));
            }
        }
        let known = self.holders.borrow();
        let holders: Vec<&Holder> = keys
            .iter()
            .filter_map(|k| known.get(k).map(|h| h.as_ref()))
            .collect();
        Ok(Some(count_works(&holders, config)))
    }
}

/// The number of distinct works among `holders`: the groups of holders joined by an equal
/// title or by being near-duplicates.
fn count_works(holders: &[&Holder], config: &CheckConfig) -> usize {
    let mut parent: Vec<usize> = (0..holders.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for i in 0..holders.len() {
        for j in i + 1..holders.len() {
            // Already one work through others: nothing to compare.
            if root(&mut parent, i) == root(&mut parent, j) {
                continue;
            }
            if same_work(holders[i], holders[j], config) {
                let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                parent[a] = b;
            }
        }
    }
    (0..holders.len())
        .filter(|&i| root(&mut parent, i) == i)
        .count()
}

/// Whether two holders are versions of one work.
fn same_work(a: &Holder, b: &Holder, config: &CheckConfig) -> bool {
    if a.0.is_some() && a.0 == b.0 {
        return true;
    }
    let (small, large) = if a.1.len() <= b.1.len() {
        (&a.1, &b.1)
    } else {
        (&b.1, &a.1)
    };
    if small.is_empty() {
        return false;
    }
    let shared = crate::similarity::sorted_intersection(small, large);
    let union = small.len() + large.len() - shared;
    shared as f64 >= config.duplicate_resemblance * union as f64
        || shared as f64 >= config.duplicate_containment * small.len() as f64
}

/// A title as versions of one paper share it: lowercase letters and digits, words separated
/// by one space.
fn normalized_title(title: &str) -> String {
    let mut out = String::with_capacity(title.len());
    for word in title
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(word.chars().flat_map(char::to_lowercase));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holder(title: Option<&str>, shingles: std::ops::Range<u64>) -> Holder {
        (title.map(normalized_title), shingles.collect())
    }

    fn works(holders: &[Holder], config: &CheckConfig) -> usize {
        count_works(&holders.iter().collect::<Vec<_>>(), config)
    }

    #[test]
    fn versions_of_one_paper_are_one_work() {
        let config = CheckConfig::default();
        let holders = [
            holder(Some("Parsing French, a Study."), 0..100),
            holder(Some("parsing  french: a study"), 500..600),
            holder(Some("A journal version"), 0..90),
            holder(Some("An unrelated paper"), 1000..1100),
        ];
        // The first two by title, the third contained in the first: two works.
        assert_eq!(works(&holders, &config), 2);
    }

    #[test]
    fn papers_sharing_a_template_block_are_distinct_works() {
        let config = CheckConfig::default();
        // Four papers share shingles 0..10 (an affiliation block) and nothing else.
        let holders: Vec<_> = (0..4)
            .map(|i| {
                let mut shingles: Vec<u64> = (0..10).collect();
                shingles.extend(1000 * (i + 1)..1000 * (i + 1) + 200);
                (Some(format!("paper {i}")), shingles)
            })
            .collect();
        assert_eq!(works(&holders, &config), 4);
    }

    #[test]
    fn untitled_holders_are_grouped_by_their_text_alone() {
        let config = CheckConfig::default();
        let holders = [holder(None, 0..100), holder(None, 200..300)];
        assert_eq!(works(&holders, &config), 2);
    }
}
