//! How a command prints its answer: JSON for scripts (`--json`, or whenever standard output is
//! not a terminal), a short human-readable form on a terminal.

use std::io::IsTerminal;

use serde_json::Value;

use dupfinder::reports::match_similarity;

#[derive(Debug, Clone, Copy)]
pub(crate) struct Output {
    json: bool,
}

impl Output {
    pub(crate) fn new(json_flag: bool) -> Output {
        Output {
            json: json_flag || !std::io::stdout().is_terminal(),
        }
    }

    /// Prints `value` as JSON, or as `human` renders it.
    pub(crate) fn print(self, value: &Value, human: impl FnOnce(&Value) -> String) {
        if self.json {
            println!(
                "{}",
                serde_json::to_string_pretty(value).expect("a JSON value serializes")
            );
        } else {
            println!("{}", human(value));
        }
    }
}

/// A check answer in a few lines: the verdict, then one line per match.
pub(crate) fn check_summary(answer: &Value) -> String {
    let mut lines = vec![format!(
        "verdict: {}",
        answer["verdict"].as_str().unwrap_or("?")
    )];
    for m in answer["matches"].as_array().into_iter().flatten() {
        lines.push(format!(
            "  {:<9} {:>5.1} %  {}/{}  {}",
            m["verdict"].as_str().unwrap_or("?"),
            match_similarity(m) * 100.0,
            m["library"].as_str().unwrap_or("?"),
            m["doc_id"].as_str().unwrap_or("?"),
            m["title"].as_str().unwrap_or_default(),
        ));
    }
    lines.join("\n")
}

/// Libraries in a few lines: id, documents, words, generation.
pub(crate) fn libraries_summary(answer: &Value) -> String {
    let one = [answer.clone()];
    let libraries = answer["libraries"]
        .as_array()
        .map_or(&one[..], |l| l.as_slice());
    libraries
        .iter()
        .map(|l| {
            format!(
                "{:<24} {:>9} documents {:>12} words  statistics version {}",
                l["id"].as_str().unwrap_or("?"),
                l["documents"].as_u64().unwrap_or(0),
                l["words"].as_u64().unwrap_or(0),
                l["stats_generation"].as_u64().unwrap_or(0),
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}
