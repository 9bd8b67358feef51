//! `dupfinder libraries import FILE`: many libraries declared at once, from JSON Lines (one
//! library object per line, as `POST /api/v1/libraries` takes them) or CSV with a header row,
//! on a data directory or through a running server (`--server`, in requests of at most
//! [`BATCH_LINES`] lines). A library that exists has the fields the file names changed; its
//! documents stay.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand, ValueEnum};
use serde_json::{Map, Value, json};

use super::config::{GlobalArgs, configure, open_catalog};
use super::remote::Remote;

/// The columns a CSV file may have, and what each holds.
const CSV_COLUMNS: &str = "id, name, start_url, clarifications (several separated by |), \
                           sitemap_url, use_sitemaps, oai_pmh (or oai_url), oai_set, \
                           schedule_every_hours, paused";

#[derive(Args)]
pub(crate) struct LibrariesArgs {
    #[command(subcommand)]
    command: LibrariesCommand,
}

#[derive(Subcommand)]
enum LibrariesCommand {
    /// Declare libraries from FILE (`-` for standard input): JSON Lines, one library object per
    /// line ({"id", "name", "start_url", "clarifications", "sitemap_url", "use_sitemaps",
    /// "oai_pmh", "oai_set", "schedule": {"every_hours": N}, "paused"}), or CSV with a header
    /// row naming some of the columns id (required), name, start_url, clarifications (several
    /// separated by |), sitemap_url, use_sitemaps, oai_pmh (or oai_url), oai_set,
    /// schedule_every_hours, paused (true/false, yes/no, 1/0). A library that does not exist
    /// is created; one that exists has the fields the line names changed (null or an empty
    /// cell clears one; a field or column left out keeps its value) and keeps its documents.
    /// Prints how many were created, updated, unchanged and rejected (with --json, as JSON);
    /// exits 3 when lines were rejected, 1 when the file cannot be read as either format.
    Import {
        /// The file: JSON Lines or CSV.
        path: PathBuf,
        /// Its format; `auto` reads a name ending in .csv as CSV, one ending in .jsonl,
        /// .ndjson or .json as JSON Lines, and otherwise looks at the first character (`{`:
        /// JSON Lines).
        #[arg(long, value_enum, default_value_t = Format::Auto)]
        format: Format,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Auto,
    Jsonl,
    Csv,
}

/// Lines sent to a server in one request, and the bytes one may reach (under the server's
/// default `max_registry_bytes`).
const BATCH_LINES: usize = 1_000;
const BATCH_BYTES: usize = 4 << 20;

pub(crate) fn run(args: LibrariesArgs, global: &GlobalArgs) -> Result<ExitCode> {
    let LibrariesCommand::Import { path, format } = args.command;
    let text = read(&path)?;
    let lines = match resolve(format, &path, &text) {
        Format::Csv => csv_lines(&text).with_context(|| format!("{} as CSV", path.display()))?,
        _ => json_lines(&text),
    };
    if lines.is_empty() {
        bail!("{} declares no library", path.display());
    }
    let answer = match global.remote()? {
        Some(remote) => send(&remote, &lines)?,
        None => {
            let catalog = open_catalog(&configure(global, None)?)?;
            let import = catalog.import_libraries(lines.iter().map(|(n, l)| (*n, l.as_str())))?;
            serde_json::to_value(import)?
        }
    };
    global.output().print(&answer, summary);
    let rejected = answer["rejected"].as_array().is_some_and(|r| !r.is_empty());
    Ok(if rejected {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    })
}

fn read(path: &Path) -> Result<String> {
    let mut bytes = Vec::new();
    if path == Path::new("-") {
        std::io::stdin()
            .read_to_end(&mut bytes)
            .context("reading standard input")?;
    } else {
        bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    }
    let text = String::from_utf8(bytes)
        .map_err(|e| anyhow::anyhow!("{} is not UTF-8 text: {e}", path.display()))?;
    Ok(text.trim_start_matches('\u{feff}').to_string())
}

fn resolve(format: Format, path: &Path, text: &str) -> Format {
    if format != Format::Auto {
        return format;
    }
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("csv") => Format::Csv,
        Some("jsonl" | "ndjson" | "json") => Format::Jsonl,
        _ if text.trim_start().starts_with('{') => Format::Jsonl,
        _ => Format::Csv,
    }
}

/// The non-blank lines of a JSON Lines file, with their numbers in the file.
fn json_lines(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| (i + 1, line.to_string()))
        .collect()
}

/// Each row of a CSV file as a library object, with the row's line in the file. A cell left
/// empty is `null` (the field cleared); a column the header leaves out is not named at all.
/// Values the service refuses (an address, a schedule that is not a number) are passed on as
/// written, so that the line is rejected with the service's own code and message.
fn csv_lines(text: &str) -> Result<Vec<(usize, String)>> {
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let columns: Vec<String> = reader
        .headers()
        .context("reading the header row")?
        .iter()
        .map(|name| name.to_ascii_lowercase())
        .collect();
    for (i, column) in columns.iter().enumerate() {
        if column_field(column).is_none() {
            bail!("unknown column `{column}`; the columns are {CSV_COLUMNS}");
        }
        if columns[..i].contains(column) {
            bail!("the column `{column}` appears twice");
        }
    }
    if !columns.iter().any(|c| c == "id") {
        bail!("the header row has no `id` column; the columns are {CSV_COLUMNS}");
    }
    let mut lines = Vec::new();
    for row in reader.records() {
        let row = row?;
        let line = line_of(text, row.position().map_or(0, |p| p.byte() as usize));
        if row.iter().all(str::is_empty) {
            continue;
        }
        let mut object = Map::new();
        for (column, cell) in columns.iter().zip(row.iter()) {
            object.insert(
                column_field(column).unwrap_or(column).to_string(),
                cell_value(column, cell),
            );
        }
        lines.push((line, Value::Object(object).to_string()));
    }
    Ok(lines)
}

/// The line in `text` of the row the reader started at byte `start`: the reader's own line
/// count leaves blank lines out, and its row starts before the blank lines it skipped.
fn line_of(text: &str, start: usize) -> usize {
    let bytes = text.as_bytes();
    let start = start.min(bytes.len());
    let before = bytes[..start].iter().filter(|b| **b == b'\n').count();
    let skipped = bytes[start..]
        .iter()
        .take_while(|b| matches!(b, b'\n' | b'\r'))
        .filter(|b| **b == b'\n')
        .count();
    before + skipped + 1
}

/// The library object's field a CSV column fills.
fn column_field(column: &str) -> Option<&'static str> {
    Some(match column {
        "id" => "id",
        "name" => "name",
        "start_url" => "start_url",
        "clarifications" => "clarifications",
        "sitemap_url" => "sitemap_url",
        "use_sitemaps" => "use_sitemaps",
        "oai_pmh" | "oai_url" => "oai_pmh",
        "oai_set" => "oai_set",
        "schedule_every_hours" => "schedule",
        "paused" => "paused",
        _ => return None,
    })
}

fn cell_value(column: &str, cell: &str) -> Value {
    if cell.is_empty() {
        return Value::Null;
    }
    match column {
        "clarifications" => cell
            .split('|')
            .map(str::trim)
            .filter(|part| !part.is_empty())
            .collect::<Vec<_>>()
            .into(),
        "use_sitemaps" | "paused" => match cell.to_ascii_lowercase().as_str() {
            "true" | "yes" | "1" => Value::Bool(true),
            "false" | "no" | "0" => Value::Bool(false),
            _ => Value::String(cell.to_string()),
        },
        "schedule_every_hours" => match cell.parse::<u64>() {
            Ok(hours) => json!({ "every_hours": hours }),
            Err(_) => json!({ "every_hours": cell }),
        },
        _ => Value::String(cell.to_string()),
    }
}

/// The lines sent to the server in requests of at most [`BATCH_LINES`] lines and about
/// [`BATCH_BYTES`] bytes; the answers added up, rejected lines numbered as in the file.
fn send(remote: &Remote, lines: &[(usize, String)]) -> Result<Value> {
    let mut total = json!({ "created": 0, "updated": 0, "unchanged": 0, "rejected": [] });
    let mut start = 0;
    while start < lines.len() {
        let mut end = start;
        let mut bytes = 0;
        while end < lines.len()
            && end - start < BATCH_LINES
            && (bytes < BATCH_BYTES || end == start)
        {
            bytes += lines[end].1.len() + 1;
            end += 1;
        }
        let batch = &lines[start..end];
        let body: String = batch.iter().map(|(_, line)| format!("{line}\n")).collect();
        let answer = remote.json(
            remote
                .request(reqwest::Method::POST, "/api/v1/libraries")
                .header(reqwest::header::CONTENT_TYPE, "application/x-ndjson")
                .body(body),
        )?;
        for count in ["created", "updated", "unchanged"] {
            let sum = total[count].as_u64().unwrap_or(0) + answer[count].as_u64().unwrap_or(0);
            total[count] = json!(sum);
        }
        for mut rejected in answer["rejected"].as_array().cloned().unwrap_or_default() {
            let in_batch = rejected["line"].as_u64().unwrap_or(1).max(1) as usize;
            rejected["line"] = json!(batch.get(in_batch - 1).map_or(0, |(n, _)| *n));
            total["rejected"]
                .as_array_mut()
                .expect("an array")
                .push(rejected);
        }
        start = end;
    }
    Ok(total)
}

/// The counts in one line, then one line per rejected line.
fn summary(answer: &Value) -> String {
    let count = |name: &str| answer[name].as_u64().unwrap_or(0);
    let rejected = answer["rejected"]
        .as_array()
        .map_or(&[][..], |r| r.as_slice());
    let mut lines = vec![format!(
        "{} created, {} updated, {} unchanged, {} rejected",
        count("created"),
        count("updated"),
        count("unchanged"),
        rejected.len()
    )];
    for line in rejected {
        lines.push(format!(
            "  line {}: {} ({})",
            line["line"],
            line["error"]["message"].as_str().unwrap_or_default(),
            line["error"]["code"].as_str().unwrap_or_default()
        ));
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_csv_row_becomes_the_library_object_its_columns_name() {
        let csv = "ID,name,start_url,clarifications,schedule_every_hours,paused,oai_url\n\
                   vestnik,\"Вестник, серия 1\",https://v.example/,/article/ | /view/,24,yes,\n\
                   \n\
                   bare,,,,,,https://b.example/oai\n\
                   odd,Odd,,,weekly,maybe,\n";
        let lines = csv_lines(csv).unwrap();
        let objects: Vec<(usize, Value)> = lines
            .iter()
            .map(|(n, l)| (*n, serde_json::from_str(l).unwrap()))
            .collect();
        assert_eq!(objects.len(), 3);
        assert_eq!(
            objects[0],
            (
                2,
                json!({"id": "vestnik", "name": "Вестник, серия 1", "start_url": "https://v.example/",
                       "clarifications": ["/article/", "/view/"], "schedule": {"every_hours": 24},
                       "paused": true, "oai_pmh": null})
            )
        );
        assert_eq!(objects[1].0, 4);
        assert_eq!(objects[1].1["name"], Value::Null);
        assert_eq!(objects[1].1["oai_pmh"], "https://b.example/oai");
        assert_eq!(objects[2].1["schedule"], json!({"every_hours": "weekly"}));
        assert_eq!(objects[2].1["paused"], "maybe");
    }

    #[test]
    fn a_csv_header_must_name_known_columns_once_and_the_id() {
        for (csv, says) in [
            ("id,colour\na,red\n", "unknown column `colour`"),
            ("id,name,Name\na,b,c\n", "appears twice"),
            ("name\nA\n", "no `id` column"),
        ] {
            let error = csv_lines(csv).unwrap_err().to_string();
            assert!(error.contains(says), "{csv}: {error}");
        }
    }

    #[test]
    fn the_format_follows_the_name_then_the_first_character() {
        let path = |name: &str| PathBuf::from(name);
        assert_eq!(resolve(Format::Auto, &path("l.CSV"), "{"), Format::Csv);
        assert_eq!(
            resolve(Format::Auto, &path("l.ndjson"), "id"),
            Format::Jsonl
        );
        assert_eq!(
            resolve(Format::Auto, &path("-"), "  {\"id\":1}"),
            Format::Jsonl
        );
        assert_eq!(resolve(Format::Auto, &path("list"), "id,name"), Format::Csv);
        assert_eq!(resolve(Format::Jsonl, &path("l.csv"), "id"), Format::Jsonl);
    }
}
