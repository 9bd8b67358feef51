//! `dupfinder phrases`: a library's own boilerplate phrases, on a data directory or through a
//! running server's `/api/v1/libraries/{id}/phrases` with `--server`.

use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};
use serde_json::{Value, json};

use super::config::{GlobalArgs, configure, open_catalog};
use super::remote::segment;
use dupfinder::library::phrases;

#[derive(Args)]
pub(crate) struct PhrasesArgs {
    #[command(subcommand)]
    command: PhrasesCommand,
}

#[derive(Subcommand)]
enum PhrasesCommand {
    /// List the library's phrases with their ids.
    List {
        #[arg(long)]
        library: String,
    },
    /// Add a phrase: passages made of it are boilerplate from the next check on.
    Add {
        #[arg(long)]
        library: String,
        /// The phrase (at least three words the analyzer keeps).
        text: String,
    },
    /// Remove a phrase by its id (as `list` shows it).
    Remove {
        #[arg(long)]
        library: String,
        id: String,
    },
}

/// One line per phrase: its id, then its text.
fn lines(listed: &Value) -> String {
    listed["phrases"]
        .as_array()
        .map(|phrases| {
            phrases
                .iter()
                .map(|p| {
                    format!(
                        "{}  {}",
                        p["id"].as_str().unwrap_or("?"),
                        p["text"].as_str().unwrap_or("")
                    )
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

pub(crate) fn run(args: PhrasesArgs, global: &GlobalArgs) -> Result<ExitCode> {
    let output = global.output();
    if let Some(remote) = global.remote()? {
        match args.command {
            PhrasesCommand::List { library } => {
                let listed =
                    remote.get(&format!("/api/v1/libraries/{}/phrases", segment(&library)))?;
                output.print(&listed, lines);
            }
            PhrasesCommand::Add { library, text } => {
                let path = format!("/api/v1/libraries/{}/phrases", segment(&library));
                let phrase = remote.post(&path, &json!({ "text": text }))?;
                output.print(&phrase, |p| {
                    format!("added {}", p["id"].as_str().unwrap_or("?"))
                });
            }
            PhrasesCommand::Remove { library, id } => {
                remote.delete(&format!(
                    "/api/v1/libraries/{}/phrases/{}",
                    segment(&library),
                    segment(&id)
                ))?;
                eprintln!("removed {id}");
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let catalog = open_catalog(&configure(global, None)?)?;
    match args.command {
        PhrasesCommand::List { library } => {
            let listed = phrases::list(&catalog.store(&library)?.kept())?;
            output.print(&json!({ "library": library, "phrases": listed }), lines);
        }
        PhrasesCommand::Add { library, text } => {
            let kept = catalog.store(&library)?.kept();
            let (phrase, new) = phrases::add(&kept, &text, "-", catalog.analyzer())?;
            output.print(&json!(phrase), |p| {
                let verb = if new { "added" } else { "already listed:" };
                format!("{verb} {}", p["id"].as_str().unwrap_or("?"))
            });
        }
        PhrasesCommand::Remove { library, id } => {
            phrases::remove(&catalog.store(&library)?.kept(), &id)?;
            eprintln!("removed {id}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
