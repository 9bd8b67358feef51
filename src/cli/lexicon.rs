//! `dupfinder lexicon build`: the bilingual lexicon of translated-copy checks, built from
//! dictionaries in the dictd format that the system's packages installed.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};

use dupfinder_check::build_lexicon;
use dupfinder_storage::index::default_analyzer;

/// The thesauri Debian's `mythes-ru` and `mythes-en-us` install.
const DEFAULT_THESAURI: [&str; 2] = [
    "/usr/share/mythes/th_ru_RU_v2.dat",
    "/usr/share/mythes/th_en_US_v2.dat",
];

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
    /// Build the lexicon file from English–Russian dictd dictionaries (`.dict` or `.dict.dz`;
    /// by default those of the `mueller7-dict` and `dict-freedict-eng-rus` packages) and MyThes
    /// thesauri for synonyms (by default those of `mythes-ru` and `mythes-en-us`, when
    /// installed).
    Build {
        /// A dictionary (repeat for several).
        #[arg(long = "dict", value_name = "FILE")]
        dictionaries: Vec<PathBuf>,
        /// A MyThes thesaurus, `th_*.dat` (repeat for several).
        #[arg(long = "thesaurus", value_name = "FILE")]
        thesauri: Vec<PathBuf>,
        /// Where the lexicon is written; name it in `[check.cross_language] lexicon`.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
}

pub(crate) fn run(args: LexiconArgs) -> Result<ExitCode> {
    let LexiconCommand::Build {
        dictionaries,
        thesauri,
        out,
    } = args.command;
    let thesauri = if thesauri.is_empty() {
        DEFAULT_THESAURI
            .iter()
            .map(PathBuf::from)
            .filter(|p| p.exists())
            .collect()
    } else {
        thesauri
    };
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
    let lexicon = build_lexicon(&analyzer, &dictionaries, &thesauri)?;
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
        "{}: {} Russian stems with English translations, {} stems with synonyms",
        out.display(),
        lexicon.len(),
        lexicon.synonym_entries()
    );
    Ok(ExitCode::SUCCESS)
}
