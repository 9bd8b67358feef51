//! Every passage has a kind — copied, quoted, bibliography, front matter, boilerplate, small —
//! read from the query's structure (and, for bibliography, the source's), and exclusions
//! decide which kinds count: only counted passages enter `similarity_index`, `shares`, each
//! match's `share` and the verdict. Nothing is hidden: every passage is listed with its kind.

use std::ops::Range;

use serde::{Deserialize, Serialize};

use super::Span;
use crate::CheckConfig;
use dupfinder_text::structure::{Part, Structure, overlap};

/// What a passage shared with a source is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PassageKind {
    /// Text taken without marks: copying.
    Copied,
    /// Inside quotation marks or a block quotation (usually with a citation).
    Quoted,
    /// A reference entry matching the source's own reference entry.
    Bibliography,
    /// Authors, affiliations, keywords, e-mails, dates, funding and competing-interest lines,
    /// acknowledgements.
    FrontMatter,
    /// Text the library repeats across documents by different authors.
    Boilerplate,
    /// Shorter than the small-match threshold.
    Small,
}

/// Exclusions as a request states them; what it leaves out comes from `[check]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExcludeRequest {
    pub quotes: Option<bool>,
    pub bibliography: Option<bool>,
    pub front_matter: Option<bool>,
    pub boilerplate: Option<bool>,
    /// Passages of fewer words are `small`.
    pub small_matches: Option<usize>,
    /// Sources (`library/doc_id`) whose matches do not count.
    pub sources: Option<Vec<String>>,
}

/// The exclusions a check applies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exclusions {
    pub quotes: bool,
    pub bibliography: bool,
    pub front_matter: bool,
    pub boilerplate: bool,
    pub small_matches: usize,
    pub sources: Vec<String>,
}

impl ExcludeRequest {
    /// The request's exclusions, the configured defaults where it says nothing.
    pub fn resolve(&self, config: &CheckConfig) -> Exclusions {
        self.resolve_over(&Exclusions {
            quotes: config.exclude_quotes,
            bibliography: config.exclude_bibliography,
            front_matter: config.exclude_front_matter,
            boilerplate: config.exclude_boilerplate,
            small_matches: config.exclude_small_matches,
            sources: Vec::new(),
        })
    }

    /// The request's exclusions, `base` where it says nothing: a stored report's own
    /// exclusions when they are applied again.
    pub fn resolve_over(&self, base: &Exclusions) -> Exclusions {
        Exclusions {
            quotes: self.quotes.unwrap_or(base.quotes),
            bibliography: self.bibliography.unwrap_or(base.bibliography),
            front_matter: self.front_matter.unwrap_or(base.front_matter),
            boilerplate: self.boilerplate.unwrap_or(base.boilerplate),
            small_matches: self.small_matches.unwrap_or(base.small_matches),
            sources: self.sources.clone().unwrap_or_else(|| base.sources.clone()),
        }
    }
}

impl Exclusions {
    /// Whether passages of this kind count.
    pub fn counts(&self, kind: PassageKind) -> bool {
        match kind {
            PassageKind::Copied => true,
            PassageKind::Quoted => !self.quotes,
            PassageKind::Bibliography => !self.bibliography,
            PassageKind::FrontMatter => !self.front_matter,
            PassageKind::Boilerplate => !self.boilerplate,
            PassageKind::Small => self.small_matches == 0,
        }
    }

    /// Whether a source's matches count.
    pub fn counts_source(&self, library: &str, doc_id: &str) -> bool {
        !self
            .sources
            .iter()
            .any(|s| s.split_once('/') == Some((library, doc_id)))
    }
}

/// Shares of the query's words in passages of each kind, each word in one kind only: the kind
/// of the counted passage it is credited to, else (a word in left-out passages alone) the kind
/// of the first left-out passage that holds it. The counted kinds' shares thus add up to the
/// similarity index, and a word in a counted passage of a source that does not count is in
/// none of them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Shares {
    pub copied: f64,
    pub quoted: f64,
    pub bibliography: f64,
    pub front_matter: f64,
    pub boilerplate: f64,
    pub small: f64,
}

/// The kind of a passage and, for a quotation, whether a citation stands next to it.
pub(super) struct Classified {
    pub(super) kind: PassageKind,
    pub(super) cited: Option<bool>,
}

/// More than this share of a passage inside a part makes it that part's passage.
const INSIDE: f64 = 0.5;

pub(super) fn mostly_in(inside: usize, span: Span) -> bool {
    let len = span.end.saturating_sub(span.start).max(1);
    inside as f64 > INSIDE * len as f64
}

/// The kind of a passage from where it lies in the query. Two answers are asked for only when
/// the place does not settle the kind already, as they cost reads of the library:
/// `doc_in_references`, whether its source side lies in the source's reference list (for a
/// passage in the query's), and `boilerplate`, whether the library repeats it across works
/// (for a passage in no part of its own).
pub(super) fn classify<E>(
    query: &Structure,
    span: Span,
    words: usize,
    exclusions: &Exclusions,
    doc_in_references: impl FnOnce() -> bool,
    boilerplate: impl FnOnce() -> Result<bool, E>,
) -> Result<Classified, E> {
    let plain = |kind| Ok(Classified { kind, cited: None });
    if mostly_in(query.overlap_with_part(span, Part::References), span) && doc_in_references() {
        return plain(PassageKind::Bibliography);
    }
    let front = query.overlap_with_part(span, Part::FrontMatter)
        + query.overlap_with_part(span, Part::Acknowledgements);
    if mostly_in(front, span) {
        return plain(PassageKind::FrontMatter);
    }
    let quoted = query
        .quotations
        .iter()
        .filter(|q| overlap([q.span], span) > 0)
        .collect::<Vec<_>>();
    let inside: usize = quoted.iter().map(|q| overlap([q.span], span)).sum();
    if mostly_in(inside, span) {
        return Ok(Classified {
            kind: PassageKind::Quoted,
            cited: Some(quoted.iter().any(|q| q.cited)),
        });
    }
    if boilerplate()? {
        return plain(PassageKind::Boilerplate);
    }
    plain(by_length(words, exclusions))
}

/// The kind of a passage that lies in no part of its own (not quoted, not in the references or
/// the front matter, not boilerplate): `small` below the small-match threshold, else `copied`.
/// A stored report's passages are given their kind again by this when its exclusions change.
pub fn by_length(words: usize, exclusions: &Exclusions) -> PassageKind {
    if words < exclusions.small_matches {
        PassageKind::Small
    } else {
        PassageKind::Copied
    }
}

/// A passage's query tokens and its kind.
pub type KindedRange = (Range<usize>, PassageKind);

/// The figures of a check: `similarity_index` (query words in counted passages of counted
/// matches, each once), `shares` per kind (each word in one kind, see [`Shares`]), and each
/// match's `share` (each counted word credited to the first match, in answer order, whose
/// counted passages hold it). The matches' shares and the counted kinds' shares both add up to
/// the index. A check and a stored report whose exclusions change both compute their figures
/// here.
pub fn figures(
    matches: &[(bool, Vec<KindedRange>)],
    exclusions: &Exclusions,
    tokens: usize,
) -> (f64, Shares, Vec<f64>) {
    let share = |n: usize| {
        if tokens == 0 {
            0.0
        } else {
            n as f64 / tokens as f64
        }
    };
    // The kind each word is given: a counted passage's first, else a left-out passage's.
    let mut credited: Vec<Option<PassageKind>> = vec![None; tokens];
    let mut left_out: Vec<Option<PassageKind>> = vec![None; tokens];
    let mut per_match = Vec::with_capacity(matches.len());
    for (counted, ranges) in matches {
        let mut mine = 0;
        for (range, kind) in ranges {
            let end = range.end.min(tokens);
            let start = range.start.min(end);
            if !exclusions.counts(*kind) {
                for slot in &mut left_out[start..end] {
                    slot.get_or_insert(*kind);
                }
            } else if *counted {
                for slot in &mut credited[start..end] {
                    if slot.is_none() {
                        *slot = Some(*kind);
                        mine += 1;
                    }
                }
            }
        }
        per_match.push(share(mine));
    }
    let mut counts = [0usize; 6];
    for kind in credited
        .iter()
        .zip(&left_out)
        .filter_map(|(credited, left_out)| credited.or(*left_out))
    {
        counts[kind as usize] += 1;
    }
    let shares = Shares {
        copied: share(counts[PassageKind::Copied as usize]),
        quoted: share(counts[PassageKind::Quoted as usize]),
        bibliography: share(counts[PassageKind::Bibliography as usize]),
        front_matter: share(counts[PassageKind::FrontMatter as usize]),
        boilerplate: share(counts[PassageKind::Boilerplate as usize]),
        small: share(counts[PassageKind::Small as usize]),
    };
    let index = share(credited.iter().flatten().count());
    (index, shares, per_match)
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::convert::Infallible;

    /// The library repeats no passage.
    fn plain() -> Result<bool, Infallible> {
        Ok(false)
    }

    /// The library repeats every passage.
    fn repeated() -> Result<bool, Infallible> {
        Ok(true)
    }

    fn exclusions() -> Exclusions {
        ExcludeRequest::default().resolve(&CheckConfig::default())
    }

    fn span_of(text: &str, needle: &str) -> Span {
        let byte = text.find(needle).unwrap();
        let start = text[..byte].chars().count();
        Span {
            start,
            end: start + needle.chars().count(),
        }
    }

    /// The kind of the passage `needle` of [`PAPER`], its source side in the source's reference
    /// list or not, the library's answer about repeats from `boilerplate`.
    fn kind_in_paper(
        structure: &Structure,
        exclusions: &Exclusions,
        needle: &str,
        in_refs: bool,
        boilerplate: impl FnOnce() -> Result<bool, Infallible>,
    ) -> PassageKind {
        classify(
            structure,
            span_of(PAPER, needle),
            10,
            exclusions,
            || in_refs,
            boilerplate,
        )
        .unwrap()
        .kind
    }

    const PAPER: &str = "Иванов И. И.\nСПбГУ, Санкт-Петербург\n\nВведение\n\n\
Как писал автор, «всякое заимствование должно быть оформлено как цитата со ссылкой» [1]. \
Далее идёт собственный текст статьи без всяких кавычек и ссылок.\n\n\
Список литературы\n\n1. Петров П. П. О цитатах // Вопросы языкознания. 2019. № 3.";

    #[test]
    fn a_passage_takes_the_kind_of_the_part_it_lies_in() {
        let structure = Structure::detect(PAPER);
        let ex = exclusions();
        let kind =
            |needle: &str, in_refs: bool| kind_in_paper(&structure, &ex, needle, in_refs, plain);
        assert_eq!(
            kind("СПбГУ, Санкт-Петербург", false),
            PassageKind::FrontMatter
        );
        assert_eq!(
            kind(
                "всякое заимствование должно быть оформлено как цитата",
                false
            ),
            PassageKind::Quoted
        );
        assert_eq!(
            kind("собственный текст статьи без всяких кавычек", false),
            PassageKind::Copied
        );
        assert_eq!(
            kind("Петров П. П. О цитатах", true),
            PassageKind::Bibliography
        );
        // A reference entry that matches the source's body is not bibliography.
        assert_eq!(kind("Петров П. П. О цитатах", false), PassageKind::Copied);
        let quoted = classify(
            &structure,
            span_of(PAPER, "заимствование должно быть"),
            10,
            &ex,
            || false,
            plain,
        )
        .unwrap();
        assert_eq!(quoted.cited, Some(true));
        let small = Exclusions {
            small_matches: 20,
            ..ex.clone()
        };
        let copied = span_of(PAPER, "собственный текст");
        assert_eq!(
            classify(&structure, copied, 10, &small, || false, plain)
                .unwrap()
                .kind,
            PassageKind::Small
        );
        assert_eq!(
            classify(&structure, copied, 10, &ex, || false, repeated)
                .unwrap()
                .kind,
            PassageKind::Boilerplate
        );
    }

    /// A passage whose place gives its kind is not asked about the library: bibliography,
    /// front matter and quotations never ask whether the library repeats them.
    #[test]
    fn the_library_is_asked_only_about_passages_in_no_part_of_their_own() {
        let structure = Structure::detect(PAPER);
        let ex = exclusions();
        let asked = std::cell::Cell::new(0);
        let boilerplate = || {
            asked.set(asked.get() + 1);
            Ok::<_, Infallible>(true)
        };
        let kind = |needle: &str, in_refs: bool| {
            kind_in_paper(&structure, &ex, needle, in_refs, boilerplate)
        };
        assert_eq!(
            kind("СПбГУ, Санкт-Петербург", false),
            PassageKind::FrontMatter
        );
        assert_eq!(
            kind("Петров П. П. О цитатах", true),
            PassageKind::Bibliography
        );
        assert_eq!(
            kind("всякое заимствование должно быть оформлено", false),
            PassageKind::Quoted
        );
        assert_eq!(asked.get(), 0);
        assert_eq!(
            kind("Петров П. П. О цитатах", false),
            PassageKind::Boilerplate
        );
        assert_eq!(
            kind("собственный текст статьи", false),
            PassageKind::Boilerplate
        );
        assert_eq!(asked.get(), 2);
    }

    #[test]
    fn each_counted_word_is_credited_to_one_source() {
        let ex = exclusions();
        let matches = vec![
            (
                true,
                vec![(0..10, PassageKind::Copied), (20..30, PassageKind::Quoted)],
            ),
            (true, vec![(5..15, PassageKind::Copied)]),
            (false, vec![(40..50, PassageKind::Copied)]),
        ];
        let (index, shares, per_match) = figures(&matches, &ex, 100);
        assert_eq!(per_match, [0.10, 0.05, 0.0]);
        assert!((index - 0.15).abs() < 1e-9);
        assert!((per_match.iter().sum::<f64>() - index).abs() < 1e-9);
        // The copied passage of the source that does not count is in no kind's share: the
        // counted kinds add up to the index.
        assert!((shares.copied - 0.15).abs() < 1e-9);
        assert!((shares.quoted - 0.10).abs() < 1e-9);
        // A word both quoted (left out) and copied (counted) is copied only.
        let both = vec![
            (true, vec![(0..10, PassageKind::Quoted)]),
            (true, vec![(5..15, PassageKind::Copied)]),
        ];
        let (index, shares, _) = figures(&both, &ex, 100);
        assert!((index - 0.10).abs() < 1e-9);
        assert!((shares.copied - 0.10).abs() < 1e-9);
        assert!((shares.quoted - 0.05).abs() < 1e-9);
        let keep_quotes = Exclusions {
            quotes: false,
            ..ex
        };
        let (index, _, _) = figures(&matches, &keep_quotes, 100);
        assert!((index - 0.25).abs() < 1e-9);
        let by_source = Exclusions {
            sources: vec!["lib/x".to_string()],
            ..keep_quotes
        };
        assert!(!by_source.counts_source("lib", "x"));
        assert!(by_source.counts_source("lib", "y"));
        assert!(by_source.counts_source("other", "x"));
    }
}
