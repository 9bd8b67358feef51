//! A stored report seen under other exclusions, without a new check: every passage keeps the
//! kind its place in the manuscript gave it (quoted, bibliography, front matter, boilerplate),
//! copied and small passages are sorted again by length, and the figures — `similarity_index`,
//! `shares`, each match's `share`, `counted` and verdict, the report's verdict — are computed
//! by the check's own code ([`dupfinder_check::figures`], [`dupfinder_check::decide`]).

use serde_json::{Value, json};

use crate::config::CheckConfig;
use dupfinder_check::{
    Exclusions, KindedRange, NotCounted, PassageKind, Scores, Span, Verdict, by_length, decide,
    figures, round, token_spans,
};
use dupfinder_text::analysis::Analyzer;

use super::Report;

/// Why a report's exclusions cannot be applied again.
#[derive(Debug, thiserror::Error)]
pub enum ReapplyError {
    /// The check was made without passages: there is nothing to give a kind to.
    #[error(
        "report `{0}` was checked without passages, so its exclusions cannot be applied again; \
         check the text again with \"passages\": true"
    )]
    NoPassages(String),
}

/// One passage of a stored match, as the answer keeps it.
struct StoredPassage {
    query: Span,
    words: usize,
    shared_shingles: usize,
    kind: PassageKind,
}

impl StoredPassage {
    fn read(passage: &Value) -> Option<StoredPassage> {
        let span = |side: &str| -> Option<Span> {
            Some(Span {
                start: passage[side]["start"].as_u64()? as usize,
                end: passage[side]["end"].as_u64()? as usize,
            })
        };
        Some(StoredPassage {
            query: span("query")?,
            words: passage["words"].as_u64()? as usize,
            shared_shingles: passage["shared_shingles"].as_u64().unwrap_or(0) as usize,
            kind: serde_json::from_value(passage["kind"].clone()).ok()?,
        })
    }

    /// The kind under `exclusions`: only length decides between copied and small; every
    /// other kind comes from where the passage lies, which exclusions do not change.
    fn kind_under(&self, exclusions: &Exclusions) -> PassageKind {
        match self.kind {
            PassageKind::Copied | PassageKind::Small => by_length(self.words, exclusions),
            kind => kind,
        }
    }
}

/// The exclusions a report was made with (the configured defaults for a report older than
/// exclusions).
pub fn stored_exclusions(report: &Report, config: &CheckConfig) -> Exclusions {
    serde_json::from_value(report.answer["exclusions"].clone())
        .unwrap_or_else(|_| dupfinder_check::ExcludeRequest::default().resolve(config))
}

/// The report's answer with `exclusions` applied to its stored passages. Applying the
/// exclusions the report was made with answers its figures unchanged.
pub fn reapply(
    report: &Report,
    exclusions: &Exclusions,
    analyzer: &Analyzer,
    config: &CheckConfig,
) -> Result<Value, ReapplyError> {
    let mut answer = report.answer.clone();
    let before = stored_exclusions(report, config);
    let lang = report.settings["lang"]
        .as_str()
        .and_then(|code| dupfinder_text::analysis::Language::from_code(code.trim()));
    let tokens = analyzer.analyze(&report.text, lang).tokens;
    let token_chars = token_spans(&report.text, &tokens);
    let matches = answer["matches"].as_array_mut();
    let mut kinded: Vec<(bool, Vec<KindedRange>)> = Vec::new();
    let mut verdicts = Vec::new();
    for m in matches.into_iter().flatten() {
        let passages: Vec<StoredPassage> = match m["passages"].as_array() {
            Some(list) => list.iter().filter_map(StoredPassage::read).collect(),
            None => return Err(ReapplyError::NoPassages(report.report_id.clone())),
        };
        let kinds: Vec<PassageKind> = passages.iter().map(|p| p.kind_under(exclusions)).collect();
        if let Some(list) = m["passages"].as_array_mut() {
            for (passage, kind) in list.iter_mut().zip(&kinds) {
                passage["kind"] = json!(kind);
            }
        }
        let (library, doc_id) = (
            m["library"].as_str().unwrap_or_default(),
            m["doc_id"].as_str().unwrap_or_default(),
        );
        let counted_now: Vec<bool> = kinds.iter().map(|k| exclusions.counts(*k)).collect();
        let counted_before: Vec<bool> = passages
            .iter()
            .map(|p| before.counts(p.kind_under(&before)))
            .collect();
        let stored_verdict: Verdict =
            serde_json::from_value(m["verdict"].clone()).unwrap_or(Verdict::Partial);
        let stored_counted = m["counted"].as_bool().unwrap_or(true);
        let source_counts = exclusions.counts_source(library, doc_id);
        // The same passages count as when the check was made: its verdict stands. Otherwise the
        // verdict is decided again, as the check decides it, on the counted passages.
        let (counted, verdict) = if counted_now == counted_before
            && source_counts == before.counts_source(library, doc_id)
        {
            (stored_counted, stored_verdict)
        } else {
            let decided = decide(&counted_scores(m, &passages, &counted_now), config);
            (
                source_counts && decided.is_some(),
                decided.unwrap_or(stored_verdict),
            )
        };
        m["counted"] = json!(counted);
        let not_counted = if counted {
            None
        } else if !source_counts {
            Some(NotCounted::SourceExcluded)
        } else {
            Some(NotCounted::of(&kinds, exclusions))
        };
        match (not_counted, m.as_object_mut()) {
            (Some(why), _) => m["not_counted"] = json!(why),
            (None, Some(fields)) => {
                fields.remove("not_counted");
            }
            (None, None) => {}
        }
        m["verdict"] = json!(verdict);
        if counted {
            verdicts.push(verdict);
        }
        let ranges = passages
            .iter()
            .zip(&kinds)
            .map(|(p, kind)| (query_tokens(&token_chars, p), *kind))
            .collect();
        kinded.push((counted, ranges));
    }
    let (index, shares, per_match) = figures(&kinded, exclusions, tokens.len());
    for (m, share) in answer["matches"]
        .as_array_mut()
        .into_iter()
        .flatten()
        .zip(per_match)
    {
        m["share"] = json!(round(share));
    }
    let shares = json!({
        "copied": round(shares.copied),
        "quoted": round(shares.quoted),
        "bibliography": round(shares.bibliography),
        "front_matter": round(shares.front_matter),
        "boilerplate": round(shares.boilerplate),
        "small": round(shares.small),
    });
    answer["similarity_index"] = json!(round(index));
    answer["words"] = json!(tokens.len());
    answer["shares"] = shares;
    answer["exclusions"] = json!(exclusions);
    answer["verdict"] = json!(verdicts.into_iter().max().unwrap_or(Verdict::Original));
    Ok(answer)
}

/// The query tokens a stored passage covers: from the token its span starts at, as many as
/// its words.
fn query_tokens(token_chars: &[Span], passage: &StoredPassage) -> std::ops::Range<usize> {
    let first = token_chars.partition_point(|t| t.start < passage.query.start);
    let end = (first + passage.words).min(token_chars.len());
    first.min(end)..end
}

/// The scores the verdict reads when other passages count than when the check was made: the
/// stored scores, with the shared shingles and the longest passage of the counted passages
/// alone, and the query's containment scaled down to them.
fn counted_scores(m: &Value, passages: &[StoredPassage], counted: &[bool]) -> Scores {
    let figure = |field: &str| m[field].as_f64().unwrap_or(0.0);
    let all: usize = passages.iter().map(|p| p.shared_shingles).sum();
    let kept = passages.iter().zip(counted).filter(|(_, c)| **c);
    let shared: usize = kept.clone().map(|(p, _)| p.shared_shingles).sum();
    let longest = kept.map(|(p, _)| p.shared_shingles).max().unwrap_or(0);
    let scale = if all == 0 {
        0.0
    } else {
        shared as f64 / all as f64
    };
    Scores {
        exact: m["methods"]
            .as_array()
            .is_some_and(|methods| methods.iter().any(|x| x == "exact")),
        resemblance: figure("resemblance"),
        containment_query: figure("containment_query") * scale,
        containment_doc: figure("containment_doc"),
        shared,
        // The document's size is not kept; a match was only ever listed for a document that
        // could vouch for its containment.
        doc_shingles: usize::MAX,
        longest_passage: longest,
        word_similarity: Some(figure("word_similarity")),
    }
}
