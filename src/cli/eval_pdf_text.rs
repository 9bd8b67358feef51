//! `dupfinder eval-pdf-text`: whole words and whole paragraphs of PDFs against the text they
//! were printed from (or against pdftotext), per language and producer, per extractor.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Args;

use dupfinder::eval::extraction::Extractor;
use dupfinder::eval::pdf_text::evaluate_pdf_text;

#[derive(Args)]
pub(crate) struct EvalPdfTextArgs {
    /// A folder of `<stem>.<producer>.pdf` beside `<stem>.txt` (benches/scripts/pdf_text_set.py
    /// makes one), or of PDFs alone, measured against pdftotext.
    #[arg(long)]
    set: PathBuf,
    /// Extractors to compare: dupfinder (the built-in reader alone), pdftotext.
    #[arg(long, value_delimiter = ',', default_value = "dupfinder,pdftotext")]
    extractor: Vec<String>,
    /// Print every file's figures and broken words too.
    #[arg(long)]
    per_file: bool,
}

pub(crate) fn run(args: EvalPdfTextArgs) -> Result<ExitCode> {
    let mut extractors = Vec::new();
    for name in &args.extractor {
        match Extractor::parse(name) {
            Some(extractor) => extractors.push(extractor),
            None => bail!("unknown extractor `{name}`: dupfinder, pdf-extract or pdftotext"),
        }
    }
    if !args.set.is_dir() {
        bail!("{} is not a folder", args.set.display());
    }
    let (groups, files) = evaluate_pdf_text(&args.set, &extractors)?;
    if files.is_empty() {
        bail!("no PDF with a reference under {}", args.set.display());
    }
    for group in &groups {
        eprintln!(
            "{:<22} {:<11} files {:>3} (failed {}) whole words {:>7.3} % of {:>6} | whole paragraphs {}",
            group.group,
            format!("{:?}", group.extractor).to_lowercase(),
            group.files,
            group.failed,
            group.whole_word_rate * 100.0,
            group.words,
            group
                .whole_paragraph_rate
                .map_or("-".to_string(), |r| format!(
                    "{:.1} % of {}",
                    r * 100.0,
                    group.paragraphs
                )),
        );
    }
    if args.per_file {
        for file in &files {
            eprintln!(
                "  {:<60} {:<10} {}/{} words, {}/{} paragraphs {} {:?}",
                file.file,
                format!("{:?}", file.extractor).to_lowercase(),
                file.whole_words,
                file.words,
                file.whole_paragraphs,
                file.paragraphs,
                file.error.as_deref().unwrap_or_default(),
                file.broken
            );
        }
    }
    outln!(
        "{}",
        serde_json::to_string_pretty(
            &serde_json::json!({ "groups": groups, "files": if args.per_file { serde_json::to_value(&files)? } else { serde_json::Value::Null } })
        )?
    );
    Ok(ExitCode::SUCCESS)
}
