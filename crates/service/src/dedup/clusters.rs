//! Clusters from edges: the connected components of the `duplicate` edges (a `partial` edge
//! only relates two documents and never joins clusters, so one document quoting many others
//! does not chain them together), a canonical member per cluster chosen by a
//! [`CanonicalRule`], and each other member attached to the cluster by its strongest path
//! (a maximum spanning tree from the canonical member).

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap};

use serde::{Deserialize, Serialize};

use super::CanonicalRule;
use super::store::{EdgeRecord, EdgeVerdict};
use dupfinder_storage::index::StoredDocument;

/// An undirected edge between two documents (`a` < `b`): the stronger verdict and the higher
/// similarity of the two directions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Link {
    pub a: String,
    pub b: String,
    pub verdict: EdgeVerdict,
    pub similarity: f64,
    /// Joins clusters: a strong `duplicate` in either direction.
    #[serde(default)]
    pub strong: bool,
}

impl Link {
    /// The link between `x` and `y`, ends ordered; a `duplicate` is strong.
    pub fn new(x: &str, y: &str, verdict: EdgeVerdict, similarity: f64) -> Link {
        let (a, b) = if x <= y { (x, y) } else { (y, x) };
        Link {
            a: a.to_string(),
            b: b.to_string(),
            verdict,
            similarity,
            strong: verdict == EdgeVerdict::Duplicate,
        }
    }

    /// The link of an edge.
    pub fn of(edge: &EdgeRecord) -> Link {
        Link {
            strong: edge.strong,
            ..Link::new(&edge.a, &edge.b, edge.verdict, edge.similarity)
        }
    }

    fn touches(&self, doc_id: &str) -> bool {
        self.a == doc_id || self.b == doc_id
    }

    fn other(&self, doc_id: &str) -> &str {
        if self.a == doc_id { &self.b } else { &self.a }
    }
}

/// How a member relates to its cluster's canonical record, where the metadata tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Relation {
    /// The same title: the same work in another venue, year or form.
    Version,
    /// A duplicate text under another title (or without one).
    Copy,
}

/// A member of a cluster other than its canonical record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Member {
    pub doc_id: String,
    /// The verdict of the edge that attaches the member: always `duplicate`.
    pub verdict: EdgeVerdict,
    /// The similarity of that edge.
    pub similarity: f64,
    /// The member the edge leads to, when it is not the canonical record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
    pub relation: Relation,
}

/// Documents that are duplicates of each other.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cluster {
    /// Stable while the cluster's smallest document id stays in it.
    pub id: String,
    pub canonical: String,
    /// The other members, the most similar first.
    pub members: Vec<Member>,
    /// The `duplicate` edges among the members, kept so the cluster can be split again when a
    /// member leaves.
    pub links: Vec<Link>,
}

impl Cluster {
    /// Every document of the cluster, the canonical one included.
    pub fn size(&self) -> usize {
        self.members.len() + 1
    }

    fn contains(&self, doc_id: &str) -> bool {
        self.canonical == doc_id || self.members.iter().any(|m| m.doc_id == doc_id)
    }
}

/// The clusters of a library and the edges that do not join clusters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClusterSet {
    /// Seconds since the Unix epoch of the last change.
    pub updated_at: u64,
    pub rule: CanonicalRule,
    /// The largest first, then by id.
    pub clusters: Vec<Cluster>,
    /// Related documents, not merged into clusters: `partial` edges and `duplicate` edges too
    /// weak to join clusters.
    pub related: Vec<Link>,
}

/// What one arrival or deletion changed in a [`ClusterSet`]: appended to the store's change
/// log instead of rewriting every cluster, and replayed on load.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// When it was made (seconds since the Unix epoch).
    pub at: u64,
    /// Clusters taken out, by id (before `add` goes in).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub drop: Vec<String>,
    /// Clusters put in.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub add: Vec<Cluster>,
    /// The related edges of this document are dropped (first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unrelate: Option<String>,
    /// Related edges added.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relate: Vec<Link>,
}

/// Reads a document's metadata, `None` when it is no longer live.
pub(super) type Lookup<'a> = dyn Fn(&str) -> Option<StoredDocument> + 'a;

impl ClusterSet {
    /// Builds the clusters of `links` (one per pair) whose both ends `lookup` finds.
    pub(super) fn build(links: Vec<Link>, rule: CanonicalRule, lookup: &Lookup<'_>) -> ClusterSet {
        let mut live: HashMap<String, bool> = HashMap::new();
        let mut is_live = |doc: &str| {
            *live
                .entry(doc.to_string())
                .or_insert_with(|| lookup(doc).is_some())
        };
        let (mut duplicates, mut related) = (Vec::new(), Vec::new());
        for link in links {
            if !(is_live(&link.a) && is_live(&link.b)) {
                continue;
            }
            if link.strong {
                duplicates.push(link);
            } else {
                related.push(link);
            }
        }
        let mut set = ClusterSet {
            updated_at: dupfinder_common::clock::unix_now(),
            rule,
            clusters: components(duplicates, rule, lookup),
            related,
        };
        set.sort();
        set
    }

    /// The cluster holding `doc_id`.
    pub fn cluster_of(&self, doc_id: &str) -> Option<&Cluster> {
        self.clusters.iter().find(|c| c.contains(doc_id))
    }

    /// The related (non-cluster) edges of `doc_id`.
    pub fn related_of<'s>(&'s self, doc_id: &'s str) -> impl Iterator<Item = &'s Link> + 's {
        self.related.iter().filter(move |l| l.touches(doc_id))
    }

    /// Makes `change` (replaying the change log).
    pub(super) fn apply(&mut self, change: &Change) {
        if let Some(doc_id) = &change.unrelate {
            self.related.retain(|l| !l.touches(doc_id));
        }
        self.clusters.retain(|c| !change.drop.contains(&c.id));
        self.clusters.extend(change.add.iter().cloned());
        for link in &change.relate {
            if !self.related.iter().any(|r| r.a == link.a && r.b == link.b) {
                self.related.push(link.clone());
            }
        }
        self.updated_at = change.at;
        self.sort();
    }

    /// Takes `doc_id` out of its cluster (splitting what only it held together) and out of
    /// the related edges: the document was deleted, or replaced and is checked again. `None`
    /// when it was in neither.
    pub(super) fn remove_document(&mut self, doc_id: &str, lookup: &Lookup<'_>) -> Option<Change> {
        let before = self.related.len();
        self.related.retain(|l| !l.touches(doc_id));
        let unrelated = before != self.related.len();
        let mut change = Change {
            at: dupfinder_common::clock::unix_now(),
            unrelate: Some(doc_id.to_string()),
            ..Change::default()
        };
        let Some(position) = self.clusters.iter().position(|c| c.contains(doc_id)) else {
            if unrelated {
                self.updated_at = change.at;
                self.sort();
                return Some(change);
            }
            return None;
        };
        let cluster = self.clusters.swap_remove(position);
        let links = cluster
            .links
            .into_iter()
            .filter(|l| !l.touches(doc_id))
            .collect();
        let added = components(links, self.rule, lookup);
        self.clusters.extend(added.iter().cloned());
        change.drop.push(cluster.id);
        change.add = added;
        self.updated_at = change.at;
        self.sort();
        Some(change)
    }

    /// Adds the edges found for an arriving document: its `duplicate` edges merge it with the
    /// clusters of the documents it duplicates (and those clusters with each other); its
    /// `partial` edges are related. Returns the cluster the document is in now, and the change.
    pub(super) fn add_links(
        &mut self,
        doc_id: &str,
        links: Vec<Link>,
        lookup: &Lookup<'_>,
    ) -> (Option<String>, Change) {
        let mut change = Change {
            at: dupfinder_common::clock::unix_now(),
            ..Change::default()
        };
        let (duplicates, partial): (Vec<Link>, Vec<Link>) =
            links.into_iter().partition(|l| l.strong);
        for link in partial {
            if !self.related.iter().any(|r| r.a == link.a && r.b == link.b) {
                self.related.push(link.clone());
                change.relate.push(link);
            }
        }
        if !duplicates.is_empty() {
            let ends: BTreeSet<&str> = duplicates
                .iter()
                .flat_map(|l| [l.a.as_str(), l.b.as_str()])
                .collect();
            let (touched, kept): (Vec<Cluster>, Vec<Cluster>) = std::mem::take(&mut self.clusters)
                .into_iter()
                .partition(|c| ends.iter().any(|doc| c.contains(doc)));
            self.clusters = kept;
            change.drop = touched.iter().map(|c| c.id.clone()).collect();
            let mut links: Vec<Link> = touched.into_iter().flat_map(|c| c.links).collect();
            links.extend(duplicates);
            let added = components(links, self.rule, lookup);
            self.clusters.extend(added.iter().cloned());
            change.add = added;
        }
        self.updated_at = change.at;
        self.sort();
        (self.cluster_of(doc_id).map(|c| c.id.clone()), change)
    }

    fn sort(&mut self) {
        self.clusters
            .sort_by(|x, y| y.size().cmp(&x.size()).then_with(|| x.id.cmp(&y.id)));
        self.related.sort_by(|x, y| (&x.a, &x.b).cmp(&(&y.a, &y.b)));
    }
}

/// The clusters of the connected components of `links` (all `duplicate`), live members only.
fn components(links: Vec<Link>, rule: CanonicalRule, lookup: &Lookup<'_>) -> Vec<Cluster> {
    let mut names: BTreeMap<String, usize> = BTreeMap::new();
    for link in &links {
        for end in [&link.a, &link.b] {
            let next = names.len();
            names.entry(end.clone()).or_insert(next);
        }
    }
    let mut parent: Vec<usize> = (0..names.len()).collect();
    fn root(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    for link in &links {
        let (x, y) = (
            root(&mut parent, names[&link.a]),
            root(&mut parent, names[&link.b]),
        );
        if x != y {
            parent[x.max(y)] = x.min(y);
        }
    }
    let mut groups: BTreeMap<usize, Vec<Link>> = BTreeMap::new();
    for link in links {
        let r = root(&mut parent, names[&link.a]);
        groups.entry(r).or_default().push(link);
    }
    groups
        .into_values()
        .filter_map(|links| assemble(links, rule, lookup))
        .collect()
}

/// One cluster from the links of one component: its live members, its canonical record and
/// each member's strongest attachment. `None` when fewer than two members are live.
fn assemble(links: Vec<Link>, rule: CanonicalRule, lookup: &Lookup<'_>) -> Option<Cluster> {
    let ends: BTreeSet<&str> = links
        .iter()
        .flat_map(|l| [l.a.as_str(), l.b.as_str()])
        .collect();
    let documents: BTreeMap<String, StoredDocument> = ends
        .into_iter()
        .filter_map(|doc| lookup(doc).map(|d| (doc.to_string(), d)))
        .collect();
    let links: Vec<Link> = links
        .into_iter()
        .filter(|l| documents.contains_key(&l.a) && documents.contains_key(&l.b))
        .collect();
    if links.is_empty() {
        return None;
    }
    let canonical = canonical_of(rule, documents.values())?;
    let mut adjacent: HashMap<&str, Vec<&Link>> = HashMap::new();
    for link in &links {
        adjacent.entry(&link.a).or_default().push(link);
        adjacent.entry(&link.b).or_default().push(link);
    }
    // Prim's algorithm from the canonical record, strongest edge first: each member is attached
    // by the best path there is. Deleting a member may leave others without any path, and
    // those fall out of this cluster (the caller rebuilt the components first).
    let canonical_ref: &str = documents.get_key_value(&canonical)?.0;
    let mut attached: BTreeMap<&str, Option<(&str, f64)>> = BTreeMap::new();
    attached.insert(canonical_ref, None);
    let mut frontier = BinaryHeap::new();
    reach(&adjacent, canonical_ref, &mut frontier);
    while let Some((similarity, Reverse(to), from)) = frontier.pop() {
        if attached.contains_key(to) {
            continue;
        }
        attached.insert(to, Some((from, similarity.0)));
        reach(&adjacent, to, &mut frontier);
    }
    let title_of = |doc: &str| {
        documents
            .get(doc)
            .and_then(|d| d.meta.title.as_deref())
            .map(normalized_title)
    };
    let canonical_title = title_of(&canonical).filter(|t| !t.is_empty());
    let mut members: Vec<Member> = attached
        .iter()
        .filter_map(|(doc, edge)| edge.map(|(from, similarity)| (*doc, from, similarity)))
        .map(|(doc, from, similarity)| Member {
            doc_id: doc.to_string(),
            verdict: EdgeVerdict::Duplicate,
            similarity,
            via: (from != canonical).then(|| from.to_string()),
            relation: if canonical_title.is_some() && title_of(doc) == canonical_title {
                Relation::Version
            } else {
                Relation::Copy
            },
        })
        .collect();
    members.sort_by(|x, y| {
        y.similarity
            .total_cmp(&x.similarity)
            .then_with(|| x.doc_id.cmp(&y.doc_id))
    });
    let in_cluster: BTreeSet<&str> = attached.keys().copied().collect();
    let smallest = *in_cluster.first()?;
    let id = format!(
        "c{:012x}",
        xxhash_rust::xxh3::xxh3_64(smallest.as_bytes()) & 0xffff_ffff_ffff
    );
    let links = links
        .iter()
        .filter(|l| in_cluster.contains(l.a.as_str()) && in_cluster.contains(l.b.as_str()))
        .cloned()
        .collect();
    Some(Cluster {
        id,
        canonical,
        members,
        links,
    })
}

/// The edges out of `from`, onto the frontier of Prim's algorithm.
fn reach<'l>(
    adjacent: &HashMap<&'l str, Vec<&'l Link>>,
    from: &'l str,
    frontier: &mut BinaryHeap<(OrderedSimilarity, Reverse<&'l str>, &'l str)>,
) {
    for link in adjacent.get(from).into_iter().flatten() {
        frontier.push((
            OrderedSimilarity(link.similarity),
            Reverse(link.other(from)),
            from,
        ));
    }
}

/// A similarity ordered as a number (similarities are finite).
#[derive(Debug, Clone, Copy, PartialEq)]
struct OrderedSimilarity(f64);

impl Eq for OrderedSimilarity {}

impl PartialOrd for OrderedSimilarity {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OrderedSimilarity {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// A title compared without case, punctuation or spacing.
fn normalized_title(title: &str) -> String {
    title
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The canonical record of `documents` by `rule`.
fn canonical_of<'d>(
    rule: CanonicalRule,
    documents: impl Iterator<Item = &'d StoredDocument>,
) -> Option<String> {
    let completeness = |d: &StoredDocument| {
        let m = &d.meta;
        usize::from(m.title.as_deref().is_some_and(|t| !t.trim().is_empty()))
            + usize::from(!m.authors.is_empty())
            + usize::from(m.year.is_some())
            + usize::from(m.url.is_some())
    };
    let year = |d: &StoredDocument| d.meta.year.unwrap_or(u64::MAX);
    documents
        .min_by(|x, y| {
            let order = match rule {
                CanonicalRule::Complete => completeness(y)
                    .cmp(&completeness(x))
                    .then(year(x).cmp(&year(y)))
                    .then(y.words.cmp(&x.words)),
                CanonicalRule::Earliest => year(x).cmp(&year(y)).then(x.added_at.cmp(&y.added_at)),
                CanonicalRule::Longest => y.words.cmp(&x.words),
            };
            order.then_with(|| x.meta.doc_id.cmp(&y.meta.doc_id))
        })
        .map(|d| d.meta.doc_id.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use dupfinder_storage::index::DocumentMeta;

    fn doc(id: &str, title: Option<&str>, year: Option<u64>, words: u64) -> StoredDocument {
        StoredDocument {
            meta: DocumentMeta {
                doc_id: id.to_string(),
                url: None,
                title: title.map(str::to_string),
                authors: Vec::new(),
                lang: "en".to_string(),
                year,
                pdf_url: None,
                doi: None,
            },
            words,
            content_hash: 0,
            added_at: 0,
            text: String::new(),
        }
    }

    fn library(docs: Vec<StoredDocument>) -> impl Fn(&str) -> Option<StoredDocument> {
        move |id: &str| docs.iter().find(|d| d.meta.doc_id == id).cloned()
    }

    fn dup(x: &str, y: &str, s: f64) -> Link {
        Link::new(x, y, EdgeVerdict::Duplicate, s)
    }

    #[test]
    fn partial_edges_never_join_clusters() {
        let lookup = library(
            ["a", "b", "c", "d", "hub"]
                .iter()
                .map(|id| doc(id, None, None, 100))
                .collect(),
        );
        let links = vec![
            dup("a", "b", 0.9),
            dup("c", "d", 0.95),
            Link::new("hub", "a", EdgeVerdict::Partial, 0.4),
            Link::new("hub", "c", EdgeVerdict::Partial, 0.4),
        ];
        let set = ClusterSet::build(links, CanonicalRule::Longest, &lookup);
        assert_eq!(set.clusters.len(), 2);
        assert!(set.cluster_of("hub").is_none());
        assert_eq!(set.related_of("hub").count(), 2);
    }

    #[test]
    fn the_canonical_rule_and_the_version_label() {
        let lookup = library(vec![
            doc("w", Some("Graph Parsing"), Some(2022), 120),
            doc("f", Some("graph parsing."), Some(2021), 150),
            doc("x", None, Some(2020), 200),
        ]);
        let links = vec![dup("w", "f", 0.97), dup("f", "x", 0.9)];
        let complete = ClusterSet::build(links.clone(), CanonicalRule::Complete, &lookup);
        let cluster = &complete.clusters[0];
        assert_eq!(cluster.canonical, "f", "titled, then the earliest year");
        assert_eq!(cluster.members[0].relation, Relation::Version);
        assert_eq!(cluster.members[1].relation, Relation::Copy);
        let earliest = ClusterSet::build(links.clone(), CanonicalRule::Earliest, &lookup);
        assert_eq!(earliest.clusters[0].canonical, "x");
        // `w` reaches `x` only through `f`.
        let w = earliest.clusters[0]
            .members
            .iter()
            .find(|m| m.doc_id == "w")
            .unwrap();
        assert_eq!(w.via.as_deref(), Some("f"));
        let longest = ClusterSet::build(links, CanonicalRule::Longest, &lookup);
        assert_eq!(longest.clusters[0].canonical, "x");
    }

    #[test]
    fn removing_a_bridge_splits_the_cluster_and_arrivals_merge_clusters() {
        let lookup = library(
            ["a", "b", "c", "d", "e", "n"]
                .iter()
                .map(|id| doc(id, None, None, 100))
                .collect(),
        );
        let links = vec![dup("a", "b", 0.9), dup("b", "c", 0.9), dup("c", "d", 0.9)];
        let mut set = ClusterSet::build(links, CanonicalRule::Longest, &lookup);
        assert_eq!(set.clusters.len(), 1);
        assert_eq!(set.clusters[0].size(), 4);
        let change = set.remove_document("b", &lookup).unwrap();
        let mut replayed = ClusterSet::build(
            vec![dup("a", "b", 0.9), dup("b", "c", 0.9), dup("c", "d", 0.9)],
            CanonicalRule::Longest,
            &lookup,
        );
        replayed.apply(&change);
        assert_eq!(
            replayed.clusters, set.clusters,
            "a replayed change makes the same clusters"
        );
        let sizes: Vec<usize> = set.clusters.iter().map(Cluster::size).collect();
        assert_eq!(sizes, [2], "a is alone now; c–d stay together");
        assert!(set.cluster_of("a").is_none());
        // `n` duplicates both `a` and `d`: one cluster of a, c, d, n.
        let (joined, change) =
            set.add_links("n", vec![dup("n", "a", 0.92), dup("n", "d", 0.91)], &lookup);
        replayed.apply(&change);
        assert_eq!(replayed.clusters, set.clusters);
        assert_eq!(set.clusters.len(), 1);
        assert_eq!(set.clusters[0].size(), 4);
        assert_eq!(joined, Some(set.clusters[0].id.clone()));
        // A member deleted from the library (not live) is left out when a cluster is rebuilt.
        let gone = library(
            ["a", "c", "d"]
                .iter()
                .map(|id| doc(id, None, None, 100))
                .collect(),
        );
        set.remove_document("n", &gone);
        let members: BTreeSet<String> = set
            .clusters
            .iter()
            .flat_map(|c| {
                std::iter::once(c.canonical.clone())
                    .chain(c.members.iter().map(|m| m.doc_id.clone()))
            })
            .collect();
        assert_eq!(members, BTreeSet::from(["c".to_string(), "d".to_string()]));
    }
}
