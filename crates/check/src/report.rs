//! The answer to a check: the verdict, each matching document with its scores and passages.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use dupfinder_text::analysis::Disguises;

use super::{Exclusions, PassageMatch, Shares};

/// The overall or per-match verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Original,
    Partial,
    Duplicate,
}

impl Verdict {
    /// The verdict as answered: `original`, `partial` or `duplicate`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Original => "original",
            Verdict::Partial => "partial",
            Verdict::Duplicate => "duplicate",
        }
    }
}

/// How a match was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// The same analyzed text (content hash).
    Exact,
    /// The same seed TF-RIDF signature.
    Signature,
    /// A shared robust signature variant.
    Robust,
    /// Shared word shingles.
    Shingles,
    /// Sentences aligned across languages through the bilingual lexicon.
    Translation,
    /// Words swapped for synonyms (a thesaurus), found in a match of the text's own language.
    Synonyms,
}

/// One matching document.
#[derive(Debug, Clone, Serialize)]
pub struct MatchReport {
    pub library: String,
    pub doc_id: String,
    pub url: Option<String>,
    pub title: Option<String>,
    /// Where the document's full text can be read, as the library stored it.
    pub pdf_url: Option<String>,
    /// The document's DOI (`10.xxxx/...`), as the library stored it.
    pub doi: Option<String>,
    pub methods: Vec<Method>,
    pub verdict: Verdict,
    /// Jaccard coefficient of the two texts' shingle sets.
    pub resemblance: f64,
    /// Share of the query's shingles found in the document.
    pub containment_query: f64,
    /// Share of the document's shingles found in the query.
    pub containment_doc: f64,
    /// Weighted Jaccard coefficient of the two bags of words: robust to word-level edits.
    pub word_similarity: f64,
    /// Share of the query's words inside passages shared with this document.
    pub coverage: f64,
    /// The query's words credited to this source when each counted word is credited to one
    /// source only (the first in answer order): the matches' shares add up to the check's
    /// `similarity_index` (hidden matches included).
    pub share: f64,
    /// Whether the match counts: `false` when the source is excluded, when every passage is of
    /// a left-out kind, or when its counted passages are too little for a verdict; such a
    /// match is listed but enters neither the figures nor the verdict.
    pub counted: bool,
    /// Why the match does not count (absent when it counts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_counted: Option<NotCounted>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub passages: Option<Vec<PassageMatch>>,
    /// The languages of a match found across them (a translated copy).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cross_language: Option<super::LanguagePair>,
}

/// Why a match is listed but does not count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotCounted {
    /// The request's exclusions name the source.
    SourceExcluded,
    /// Every passage is of a left-out kind (quotations, bibliography, …).
    LeftOutKinds,
    /// The counted passages are too short or too few to show copying.
    TooLittle,
}

impl NotCounted {
    /// Why a match whose source counts does not: every passage left out, or too little left.
    pub fn of(kinds: &[super::PassageKind], exclusions: &Exclusions) -> NotCounted {
        if kinds.iter().all(|k| !exclusions.counts(*k)) {
            NotCounted::LeftOutKinds
        } else {
            NotCounted::TooLittle
        }
    }
}

impl MatchReport {
    /// The figure `min_similarity` is compared with.
    pub fn similarity(&self) -> f64 {
        self.resemblance
            .max(self.containment_query)
            .max(self.containment_doc)
    }
}

/// The answer to a check.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    pub verdict: Verdict,
    /// The seed signature of the text against the first library checked.
    pub signature: Option<u32>,
    /// Share of the query's words inside passages shared with any match.
    pub query_coverage: f64,
    /// Share of the query's words inside counted passages of counted matches, each word once.
    pub similarity_index: f64,
    /// The words of the text the figures are shares of: its words after analysis (stop words
    /// and one-letter words aside), as every passage's `words` counts them.
    pub words: usize,
    /// Shares of the query's words in passages of each kind.
    pub shares: Shares,
    /// The exclusions applied.
    pub exclusions: Exclusions,
    /// Matches left out of `matches` by `min_similarity`; they still count in the verdict and
    /// the figures, so a filter never turns a copied text into `original`.
    pub hidden_matches: usize,
    pub matches: Vec<MatchReport>,
    /// The statistics generation each library that held a candidate was checked against: one
    /// per library, as a check reads one generation from start to end even while a re-index
    /// switches.
    pub generations: BTreeMap<String, u64>,
    /// The libraries the check went to, those without a candidate included.
    pub libraries_checked: usize,
    /// Disguises seen through in the text (hidden characters, look-alike letters,
    /// transliteration, letter spacing); empty for an honest text.
    pub flags: Vec<Flag>,
    /// Whether the check looked for translated copies (`on`, `off`, `unavailable` and why).
    #[serde(flatten)]
    pub cross_language: super::CrossLanguage,
    pub took_ms: f64,
}

/// Mixed-script words that make a flag, at least (and at least 0.5 % of the words).
pub(super) const MIXED_SCRIPT_FLAG: usize = 5;

/// Letter-spaced words that make a flag, at least.
pub(super) const LETTER_SPACING_FLAG: usize = 3;

/// One kind of disguise found in a checked text, and how often.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Flag {
    /// `hidden_characters`, `letter_spacing`, `mixed_script`, `look_alike_words`,
    /// `transliteration` (or `hidden_text` for a file's invisible text).
    pub kind: &'static str,
    pub message: String,
    pub count: usize,
}

impl Flag {
    /// The flag of matches whose words were swapped for synonyms.
    pub fn rewording(count: usize) -> Flag {
        Flag {
            kind: "rewording",
            message: format!(
                "{count} matching sources differ from the text by words swapped for synonyms (rewording)"
            ),
            count,
        }
    }

    /// The flag of a file's hidden text (white, invisible, tiny or off-page characters in a PDF).
    pub fn hidden_text(count: usize) -> Flag {
        Flag {
            kind: "hidden_text",
            message: format!(
                "{count} letters and digits in the file are hidden from its reader (white or invisible text, or glyphs too small to read or outside the page)"
            ),
            count,
        }
    }

    /// The flags of the disguises of a text of `words` words, in a fixed order.
    ///
    /// Honest texts hold a few of some of them: mixed-script words are common typing slips
    /// and Roman numerals (`ХVII` with a Latin `V`) — 25 of the 90 unmodified ru_sci_480
    /// papers have one or more — and runs of single letters occur in lists and formulas. Those
    /// two are flagged only past [`MIXED_SCRIPT_FLAG`] words and 0.5 % of the text, and past
    /// [`LETTER_SPACING_FLAG`] words; the others at the first one seen.
    pub fn of(disguises: &Disguises, words: u64) -> Vec<Flag> {
        let share = usize::try_from(words / 200).unwrap_or(usize::MAX);
        let thresholds = |kind: &str| match kind {
            "mixed_script" => MIXED_SCRIPT_FLAG.max(share),
            "letter_spacing" => LETTER_SPACING_FLAG,
            _ => 1,
        };
        let flag = |kind: &'static str, count: usize, what: &str| {
            (count >= thresholds(kind)).then(|| Flag {
                kind,
                message: format!("{count} {what}"),
                count,
            })
        };
        [
            flag(
                "hidden_characters",
                disguises.hidden_characters,
                "invisible characters (zero-width, direction marks) inside words were removed",
            ),
            flag(
                "letter_spacing",
                disguises.letter_spacing,
                "words written with spaces between their letters were joined",
            ),
            flag(
                "mixed_script",
                disguises.mixed_script,
                "words mixing Latin and Cyrillic letters were read in one script",
            ),
            flag(
                "look_alike_words",
                disguises.look_alike_words,
                "whole words in look-alike letters of the other script were read in the script around them",
            ),
            flag(
                "transliteration",
                disguises.transliterated,
                "words of Russian transliterated into Latin letters were read back into Cyrillic",
            ),
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}

/// Rounds a score to four decimals, as answers show them.
pub fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// `a / b`, at most 1, and 0 when `b` is 0.
pub(super) fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        (a as f64 / b as f64).min(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(flags: &[Flag]) -> Vec<&str> {
        flags.iter().map(|f| f.kind).collect()
    }

    /// A source whose only counted passage is too short for a verdict was labelled as holding
    /// "only left-out passages": the reason must say what happened.
    #[test]
    fn a_match_that_does_not_count_says_why() {
        use super::super::PassageKind::{Copied, Quoted};
        let exclusions =
            super::super::ExcludeRequest::default().resolve(&crate::CheckConfig::default());
        assert_eq!(
            NotCounted::of(&[Quoted, Quoted], &exclusions),
            NotCounted::LeftOutKinds
        );
        assert_eq!(
            NotCounted::of(&[Quoted, Copied], &exclusions),
            NotCounted::TooLittle
        );
    }

    #[test]
    fn an_honest_text_has_no_flags() {
        assert!(Flag::of(&Disguises::default(), 1_000).is_empty());
    }

    #[test]
    fn slips_need_a_few_words_and_disguises_one() {
        let slips = Disguises {
            mixed_script: 2,
            letter_spacing: 1,
            ..Disguises::default()
        };
        assert!(Flag::of(&slips, 1_000).is_empty());
        let disguised = Disguises {
            mixed_script: 40,
            letter_spacing: 3,
            look_alike_words: 1,
            transliterated: 120,
            hidden_characters: 1,
        };
        let flags = Flag::of(&disguised, 2_000);
        assert_eq!(
            kinds(&flags),
            [
                "hidden_characters",
                "letter_spacing",
                "mixed_script",
                "look_alike_words",
                "transliteration"
            ]
        );
        assert_eq!(flags[4].count, 120);
        // Mixed-script words must also be 0.5 % of a long text.
        let long = Disguises {
            mixed_script: 40,
            ..Disguises::default()
        };
        assert!(Flag::of(&long, 10_000).is_empty());
        assert_eq!(Flag::hidden_text(7).kind, "hidden_text");
    }
}
