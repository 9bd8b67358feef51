//! `dupfinder eval-extract`: PDF text extraction measured against reference texts (word and
//! 4-gram recall, pages per second), for one or more extractors.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Args;

use dupfinder::eval::extraction::{Extractor, evaluate_extraction, pdf_files};

#[derive(Args)]
pub(crate) struct EvalExtractArgs {
    /// A PDF, or a folder searched for PDFs.
    #[arg(long)]
    pdf_dir: PathBuf,
    /// Folder of reference texts `<stem>.txt`. Default: `../Documents_TXT/` beside each
    /// PDF's folder (the ACL scisumm layout).
    #[arg(long)]
    txt_dir: Option<PathBuf>,
    /// Extractors to compare: dupfinder, pdf-extract, pdftotext (needs poppler-utils).
    #[arg(long, value_delimiter = ',', default_value = "dupfinder")]
    extractor: Vec<String>,
    /// Print every file's figures too.
    #[arg(long)]
    per_file: bool,
}

pub(crate) fn run(args: EvalExtractArgs) -> Result<ExitCode> {
    let files = pdf_files(&args.pdf_dir)?;
    if files.is_empty() {
        bail!("no PDF under {}", args.pdf_dir.display());
    }
    let mut reports = Vec::new();
    for name in &args.extractor {
        let Some(extractor) = Extractor::parse(name) else {
            bail!("unknown extractor `{name}`: dupfinder, pdf-extract or pdftotext");
        };
        let mut report = evaluate_extraction(extractor, &files, args.txt_dir.as_deref())?;
        let fmt = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.3}"));
        eprintln!(
            "{name:<12} files {:>3} (failed {}) pages {:>4} {:>7.1} pages/s | born-digital {:>3}: median word recall {} (min {}), 4-gram {}, order problems {} | OCR layer {:>3}: median word recall {}, 4-gram {}",
            report.files,
            report.failed,
            report.pages,
            report.pages_per_second,
            report.born_digital.files,
            fmt(report.born_digital.median_word_recall),
            fmt(report.born_digital.min_word_recall),
            fmt(report.born_digital.median_gram_recall),
            report.born_digital.order_problems,
            report.ocr_layer.files,
            fmt(report.ocr_layer.median_word_recall),
            fmt(report.ocr_layer.median_gram_recall),
        );
        if args.per_file {
            for file in &report.per_file {
                eprintln!(
                    "  {:<70} {:>3}p {:>6.2}s {} words {} 4-grams {} {}",
                    file.file,
                    file.pages,
                    file.seconds,
                    fmt(file.word_recall),
                    fmt(file.gram_recall),
                    if file.ocr_layer { "ocr" } else { "" },
                    file.error.as_deref().unwrap_or_default()
                );
            }
        } else {
            report.per_file.clear();
        }
        reports.push(report);
    }
    outln!("{}", serde_json::to_string_pretty(&reports)?);
    Ok(ExitCode::SUCCESS)
}
