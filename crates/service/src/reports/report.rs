//! A stored report — the check's answer, the checked text and what they were made of — and
//! its line in a list.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::decision::{Decision, DecisionChange};

/// A stored report: the check's answer and what it was made of.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub report_id: String,
    /// Seconds since the Unix epoch.
    pub created: u64,
    /// The report's place in the list, newest last: set by the store when it keeps the report
    /// (nanoseconds since the epoch, unique).
    #[serde(default)]
    pub order: u64,
    /// The key that asked (`-` on an open server).
    pub submitter: String,
    /// The checked file's name, when a file was checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The request's settings (libraries asked for, passages, thresholds, language, …).
    pub settings: Value,
    pub decision: Decision,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub history: Vec<DecisionChange>,
    /// The answer as the check sent it.
    pub answer: Value,
    /// The checked text, which every query offset of the answer refers to.
    pub text: String,
}

/// A match's similarity in a JSON answer, as [`dupfinder_check::MatchReport::similarity`] gives
/// it: the largest of its shingle figures.
pub fn match_similarity(m: &Value) -> f64 {
    ["resemblance", "containment_query", "containment_doc"]
        .iter()
        .filter_map(|field| m[*field].as_f64())
        .fold(0.0, f64::max)
}

/// A report as the list shows it: no text, no passages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportSummary {
    pub report_id: String,
    pub created: u64,
    pub submitter: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    pub verdict: String,
    pub decision: Decision,
    /// The libraries checked, with the statistics generation each was read at.
    pub libraries: BTreeMap<String, u64>,
    pub matches: usize,
    /// The largest similarity of a match (0 without matches).
    pub similarity: f64,
    /// The check's similarity index: the share of the text's words in counted passages.
    #[serde(default)]
    pub similarity_index: f64,
    /// Words of the checked text: the answer's `words`, which its figures are shares of.
    pub words: usize,
}

impl Report {
    /// A new report of a check's `answer` to `request`, asked by `submitter` (with the file's
    /// name when a file was checked).
    pub fn of_check(
        report_id: String,
        request: &dupfinder_check::CheckRequest,
        answer: Value,
        submitter: String,
        file: Option<String>,
    ) -> Report {
        Report {
            report_id,
            created: dupfinder_common::clock::unix_now(),
            order: 0,
            submitter,
            file,
            settings: serde_json::json!({
                "libraries": request.libraries,
                "passages": request.passages,
                "min_similarity": request.min_similarity,
                "lang": request.lang,
            }),
            decision: Decision::NotChecked,
            note: None,
            history: Vec::new(),
            answer,
            text: request.text.clone(),
        }
    }

    /// The libraries the check was made on (its answer's `generations`).
    pub fn libraries(&self) -> impl Iterator<Item = &str> {
        self.answer["generations"]
            .as_object()
            .into_iter()
            .flat_map(|generations| generations.keys().map(String::as_str))
    }

    /// The words the report's figures are shares of: the answer's `words` (for a report kept
    /// before answers carried it, the words of the text split at white space).
    pub fn words(&self) -> usize {
        self.answer["words"]
            .as_u64()
            .map_or_else(|| self.text.split_whitespace().count(), |n| n as usize)
    }

    /// The report's line in a list.
    pub fn summary(&self) -> ReportSummary {
        let matches = self.answer["matches"].as_array();
        let similarity = matches
            .into_iter()
            .flatten()
            .map(match_similarity)
            .fold(0.0, f64::max);
        ReportSummary {
            report_id: self.report_id.clone(),
            created: self.created,
            submitter: self.submitter.clone(),
            file: self.file.clone(),
            verdict: self.answer["verdict"]
                .as_str()
                .unwrap_or("original")
                .to_string(),
            decision: self.decision,
            libraries: serde_json::from_value(self.answer["generations"].clone())
                .unwrap_or_default(),
            matches: matches.map_or(0, Vec::len),
            similarity,
            similarity_index: self.answer["similarity_index"].as_f64().unwrap_or(0.0),
            words: self.words(),
        }
    }

    /// The report as the API answers it: the check's answer with the report's own fields.
    pub fn to_json(&self) -> Value {
        let mut out = match &self.answer {
            Value::Object(answer) => answer.clone(),
            _ => serde_json::Map::new(),
        };
        let own = serde_json::to_value(self).expect("a report serializes");
        if let Value::Object(own) = own {
            for (key, value) in own {
                if key != "answer" && key != "order" {
                    out.insert(key, value);
                }
            }
        }
        Value::Object(out)
    }
}
