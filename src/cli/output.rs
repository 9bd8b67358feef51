//! How a command prints its answer: JSON for scripts (`--json`, or whenever standard output is
//! not a terminal), a short human-readable form on a terminal.

use std::io::{IsTerminal, Write};

use serde_json::Value;

use dupfinder::reports::numbers;

/// `println!` for the commands' answers: a reader that went away (`dupfinder … | head`) ends
/// the process quietly instead of a panic (see [`write_stdout`]).
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::output::write_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` for the commands' answers, as [`outln!`].
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::output::write_stdout(format_args!($($arg)*))
    };
}

/// Writes a command's answer to standard output. Rust ignores SIGPIPE, so a write to a reader
/// that went away (`dupfinder check … | head`) fails with `BrokenPipe`, and `println!` would
/// panic; here the process ends quietly with success instead, as a tool killed by SIGPIPE
/// would have stopped: nobody reads the rest. Any other failure to write is a failure.
pub(crate) fn write_stdout(text: std::fmt::Arguments<'_>) {
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_fmt(text).and_then(|()| stdout.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("dupfinder: cannot write to standard output: {e}");
        std::process::exit(1);
    }
}

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

    /// The human-readable form whatever standard output is (asked for by name).
    pub(crate) fn human() -> Output {
        Output { json: false }
    }

    /// Prints `value` as JSON, or as `human` renders it.
    pub(crate) fn print(self, value: &Value, human: impl FnOnce(&Value) -> String) {
        if self.json {
            outln!(
                "{}",
                serde_json::to_string_pretty(value).expect("a JSON value serializes")
            );
        } else {
            outln!("{}", human(value));
        }
    }
}

/// A progress bar's style from `template`, where `{rate}` is items per second as a whole
/// number (`190/s`; indicatif's own `{per_sec}` prints `189.6861/s`).
pub(crate) fn progress_style(template: &str) -> indicatif::ProgressStyle {
    indicatif::ProgressStyle::with_template(template)
        .expect("valid template")
        .with_key(
            "rate",
            |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.0}/s", state.per_sec());
            },
        )
}

/// A check answer in a few lines: the verdict, the similarity index and the words it is a
/// share of, then one line per source with its share of the manuscript and what was found in
/// it — the figures the report page and the PDF show.
pub(crate) fn check_summary(answer: &Value) -> String {
    let percent = |x: &Value| numbers::percent(x.as_f64().unwrap_or(0.0), 1, "en");
    let mut head = format!(
        "verdict: {} · similarity index {} · {} words",
        answer["verdict"].as_str().unwrap_or("?"),
        percent(&answer["similarity_index"]),
        numbers::count(answer["words"].as_u64().unwrap_or(0), "en"),
    );
    if let Some(id) = answer["report_id"].as_str() {
        head.push_str(&format!(" · report {id}"));
    }
    let mut lines = vec![head];
    if answer["cross_language"] == "unavailable" {
        lines.push(format!(
            "  translated copies not looked for: {}",
            answer["cross_language_reason"]
                .as_str()
                .unwrap_or("unavailable")
        ));
    }
    for (n, m) in answer["matches"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        lines.push(format!(
            "  {:>2}. {:>7}  {:<44} {}/{}  {}",
            n + 1,
            percent(&m["share"]),
            finding(m),
            m["library"].as_str().unwrap_or("?"),
            m["doc_id"].as_str().unwrap_or("?"),
            m["title"].as_str().unwrap_or_default(),
        ));
    }
    lines.join("\n")
}

/// What was found in a source, as the report page says it.
fn finding(m: &Value) -> String {
    if m["counted"] == false {
        return match m["not_counted"].as_str() {
            Some("source_excluded") => "not counted: the source is left out",
            Some("too_little") => "not counted: too little in common",
            _ => "not counted: only left-out passages",
        }
        .to_string();
    }
    let share = numbers::percent(m["containment_doc"].as_f64().unwrap_or(0.0), 0, "en");
    let methods = m["methods"].as_array().into_iter().flatten();
    let reworded = methods.clone().any(|method| method == "synonyms");
    match (
        &m["cross_language"]["doc_lang"],
        &m["cross_language"]["query_lang"],
    ) {
        (Value::String(from), Value::String(to)) => {
            format!("{share} of this source translated ({from} → {to})")
        }
        _ if reworded => format!("{share} of this source reused, reworded"),
        _ => format!("{share} of this source reused"),
    }
}

/// Libraries in a few lines: id, documents, words, generation, whether paused; how many of how
/// many when the answer is a page.
pub(crate) fn libraries_summary(answer: &Value) -> String {
    let one = [answer.clone()];
    let libraries = answer["libraries"]
        .as_array()
        .map_or(&one[..], |l| l.as_slice());
    let mut lines: Vec<String> = libraries
        .iter()
        .map(|l| {
            format!(
                "{:<24} {:>9} documents {:>12} words  statistics version {}{}",
                l["id"].as_str().unwrap_or("?"),
                l["documents"].as_u64().unwrap_or(0),
                l["words"].as_u64().unwrap_or(0),
                l["stats_generation"].as_u64().unwrap_or(0),
                if l["paused"] == true { "  paused" } else { "" },
            )
        })
        .collect();
    if let Some(total) = answer["total"].as_u64()
        && total as usize != libraries.len()
    {
        lines.push(format!("({} of {total} libraries shown)", libraries.len()));
    }
    lines.join("\n")
}
