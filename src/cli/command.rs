//! The arguments: the global flags and one subcommand, and the dispatch to the command's module.

use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

use super::config::{self, GlobalArgs, LogFormat};
use super::{
    backup, check, crawl, dedup, delete, eval, eval_extract, eval_pdf_text, import, keys, lexicon,
    libraries, phrases, reindex, search, serve, stats,
};

#[derive(Parser)]
#[command(
    name = "dupfinder",
    version,
    about = "Near-duplicate detection for digital scientific libraries",
    after_help = "Exit codes: 0 success; 1 failure (the message says why); 2 usage; 3 an import \
                  with rejected lines; 4 a check whose verdict reached --fail-on.\n\
                  With --server URL (or DUPFINDER_SERVER) and --key (or DUPFINDER_KEY), check, \
                  import, libraries, stats, search, reindex, dedup, delete-document, keys, phrases \
                  and backup go through a running server."
)]
pub(crate) struct Cli {
    #[command(flatten)]
    pub(super) global: GlobalArgs,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the HTTP API.
    Serve(serve::ServeArgs),
    /// Import a JSON Lines corpus file (.jsonl or .jsonl.gz), a folder of files or a .zip of
    /// files (PDF, DOCX, ODT, RTF, HTML, JATS/TEI, text; id = relative path) into a library,
    /// creating it. With --server, a JSON Lines corpus is sent to the server in batches.
    Import(import::ImportArgs),
    /// Check a file (`-` for standard input): PDF, DOCX, ODT, RTF, HTML, JATS/TEI XML or text in
    /// any common encoding, told by content. The verdict and matches on a terminal, the answer
    /// as JSON otherwise (or with --json).
    Check(check::CheckArgs),
    /// Crawl a library's site now, in the foreground, until it is done (Ctrl-C stops it; the
    /// next run resumes). A missing library is created when --start-url, --sitemap-url or
    /// --oai-url is given.
    Crawl(crawl::CrawlArgs),
    /// Rebuild statistics and re-sign every document.
    Reindex(reindex::ReindexArgs),
    /// Find the duplicates inside a library: every document checked against the library, the
    /// duplicates clustered with a canonical record each; prints the clusters (Ctrl-C stops;
    /// the next run resumes).
    Dedup(dedup::DedupArgs),
    /// Check every document of a corpus file against the library it was imported into: each
    /// must find itself. Prints a JSON report (counts, misses, check latency).
    SelfCheck(eval::SelfCheckArgs),
    /// Make test queries with known truth from a corpus: writes OUT/library.jsonl (to import)
    /// and OUT/queries.jsonl (to evaluate).
    GenTests(eval::GenTestsArgs),
    /// Run generated queries through the check and print precision, recall and F1 per
    /// modification, per method and for the combined verdict.
    Eval(eval::EvalArgs),
    /// Measure PDF text extraction against reference texts: word and 4-gram recall, pages
    /// per second, per extractor (dupfinder, pdf-extract, pdftotext).
    EvalExtract(eval_extract::EvalExtractArgs),
    /// Measure whether PDFs read as written: the share of the source's words of six letters or
    /// more found whole, and of its paragraphs found whole, per language and producer (files
    /// `<stem>.<producer>.pdf` beside `<stem>.txt`; a PDF without one against pdftotext).
    EvalPdfText(eval_pdf_text::EvalPdfTextArgs),
    /// Measure section detection on tagged articles: each JATS article is read as plain text,
    /// its structure detected and compared with the tags; prints precision and recall.
    EvalSections(eval::EvalSectionsArgs),
    /// Full-paper false positives: each journal's JATS articles become a library, every
    /// article is checked against its journal; prints the share of papers with a counted
    /// match to another paper, with the default exclusions and with each one off.
    EvalFullPapers(eval::EvalFullPapersArgs),
    /// Translated copies on Russian–English parallel text (TICO-19, FLORES-200): recall and
    /// precision of whole translated documents both ways, PAN measures of translated passages,
    /// documents of the same topic claimed wrongly. Needs a lexicon (`lexicon build`).
    EvalTranslated(eval::EvalTranslatedArgs),
    /// Synonym swaps: Russian and English abstracts with 20 % and 30 % of their content words
    /// swapped for thesaurus synonyms, checked against the originals; prints recall and how
    /// often the match is flagged as rewording. Needs a lexicon built with thesauri.
    EvalSynonyms(eval::EvalSynonymsArgs),
    /// Print libraries with their figures (every library, or a page of those whose id or
    /// name holds --q).
    Stats(stats::StatsArgs),
    /// Build the bilingual lexicon that translated-copy checks use (`lexicon build`).
    Lexicon(lexicon::LexiconArgs),
    /// Declare many libraries at once from a JSON Lines or CSV file (`libraries import`).
    Libraries(libraries::LibrariesArgs),
    /// Delete one document from a library.
    DeleteDocument(delete::DeleteDocumentArgs),
    /// Create, list and revoke API keys.
    Keys(keys::KeysArgs),
    /// List, add and remove a library's own boilerplate phrases.
    Phrases(phrases::PhrasesArgs),
    /// Search a library.
    Search(search::SearchArgs),
    /// Write a consistent backup of the data directory (or, with --server, of a running
    /// server's) to one .tar.gz file.
    Backup(backup::BackupArgs),
    /// Restore a backup into a new, empty data directory (--data-dir) and open it to prove it
    /// whole; always local, whatever --server says.
    Restore(backup::RestoreArgs),
}

impl Cli {
    /// How log lines are written.
    pub(crate) fn log_format(&self) -> LogFormat {
        self.global.log_format
    }
}

/// Runs the command the arguments name.
pub(crate) fn run(cli: Cli) -> Result<ExitCode> {
    let global = &cli.global;
    match cli.command {
        Command::Serve(args) => serve::run(config::configure(global, Some(&args.flags()))?),
        Command::Import(args) => import::run(args, global),
        Command::Check(args) => check::run(args, global),
        Command::Crawl(args) => crawl::run(args, config::configure(global, None)?),
        Command::Reindex(args) => reindex::run(args, global),
        Command::Dedup(args) => dedup::run(args, global),
        Command::SelfCheck(args) => eval::self_check(args, config::configure(global, None)?),
        Command::GenTests(args) => eval::gen_tests(args),
        Command::Eval(args) => eval::eval(args, config::configure(global, None)?),
        Command::EvalSections(args) => eval::eval_sections(args),
        Command::EvalSynonyms(args) => eval::eval_synonyms(args, config::configure(global, None)?),
        Command::EvalTranslated(args) => {
            eval::eval_translated(args, config::configure(global, None)?)
        }
        Command::EvalFullPapers(args) => {
            eval::eval_full_papers(args, config::configure(global, None)?)
        }
        Command::Stats(args) => stats::run(args, global),
        Command::Libraries(args) => libraries::run(args, global),
        Command::Lexicon(args) => lexicon::run(args),
        Command::DeleteDocument(args) => delete::run(args, global),
        Command::Keys(args) => keys::run(args, global),
        Command::Phrases(args) => phrases::run(args, global),
        Command::Search(args) => search::run(args, global),
        Command::Backup(args) => backup::backup(args, global),
        Command::Restore(args) => backup::restore_command(args, global),
        Command::EvalExtract(args) => eval_extract::run(args),
        Command::EvalPdfText(args) => eval_pdf_text::run(args),
    }
}
