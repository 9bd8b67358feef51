//! What an editor decided about a checked manuscript, and the trail of changes to it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What an editor decided about a checked manuscript (seed 003's four states).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Nobody has looked yet.
    #[default]
    NotChecked,
    /// Worth a closer look.
    Candidate,
    /// Looked at: the manuscript is original.
    Unique,
    /// Looked at: the manuscript is a duplicate.
    Duplicate,
}

impl Decision {
    pub fn parse(value: &str) -> Option<Decision> {
        serde_json::from_value(Value::String(value.to_string())).ok()
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Decision::NotChecked => "not_checked",
            Decision::Candidate => "candidate",
            Decision::Unique => "unique",
            Decision::Duplicate => "duplicate",
        }
    }
}

/// One change of a report's decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecisionChange {
    pub decision: Decision,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The key that made the change (`-` on an open server).
    pub by: String,
    /// Seconds since the Unix epoch.
    pub at: u64,
}
