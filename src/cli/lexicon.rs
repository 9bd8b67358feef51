//! `dupfinder lexicon build`: the bilingual lexicon of translated-copy checks, built from
//! dictionaries in the dictd format that the system's packages installed.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};

use dupfinder_check::build_from_dictd;
use dupfinder_storage::index::default_analyzer;

/// The English–Russian dictionaries Debian's `mueller7-dict` and `dict-freedict-eng-rus` install.
const DEFAULT_DICTIONARIES: [&str; 2] = [
    "/usr/share/dictd/mueller7.dict.dz",
    "/usr/share/dictd/freedict-eng-rus.dict.dz",
];

#[derive(Args)]
pub(crate) struct LexiconArgs {
    #[command(subcommand)]
    command: LexiconCommand,
}

#[derive(Subcommand)]
enum LexiconCommand {
    /// Build the lexicon file from English–Russian dictd dictionaries (`.dict` or `.dict.dz`);
    /// by default those of the `mueller7-dict` and `dict-freedict-eng-rus` packages.
    Build {
        /// A dictionary (repeat for several).
        #[arg(long = "dict", value_name = "FILE")]
        dictionaries: Vec<PathBuf>,
        /// Where the lexicon is written; name it in `[check.cross_language] lexicon`.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
}

pub(crate) fn run(args: LexiconArgs) -> Result<ExitCode> {
    let LexiconCommand::Build { dictionaries, out } = args.command;
    let dictionaries = if dictionaries.is_empty() {
        let found: Vec<PathBuf> = DEFAULT_DICTIONARIES
            .iter()
            .map(PathBuf::from)
            .filter(|p| p.exists())
            .collect();
        if found.is_empty() {
            bail!(
                "no dictionary given and none installed at {}: install the mueller7-dict \
                 package (apt-get install mueller7-dict) or pass --dict FILE",
                DEFAULT_DICTIONARIES.join(" or ")
            );
        }
        found
    } else {
        dictionaries
    };
    let analyzer = default_analyzer();
    let lexicon = build_from_dictd(&analyzer, &dictionaries)?;
    if lexicon.is_empty() {
        bail!(
            "no English–Russian translation found in {}",
            dictionaries
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let file =
        std::fs::File::create(&out).with_context(|| format!("cannot write {}", out.display()))?;
    let mut writer = std::io::BufWriter::new(file);
    lexicon
        .write(&mut writer)
        .and_then(|()| writer.flush())
        .with_context(|| format!("cannot write {}", out.display()))?;
    eprintln!(
        "{}: {} Russian stems with English translations",
        out.display(),
        lexicon.len()
    );
    Ok(ExitCode::SUCCESS)
}
