//! `dupfinder delete-document`: one document removed from a library on a data directory.

use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Args;

use super::config::open_catalog;
use dupfinder::config::Config;

#[derive(Args)]
pub(crate) struct DeleteDocumentArgs {
    #[arg(long)]
    library: String,
    /// The document's id.
    doc_id: String,
}

pub(crate) fn run(args: DeleteDocumentArgs, config: Config) -> Result<ExitCode> {
    let catalog = open_catalog(&config)?;
    if !catalog.delete_document(&args.library, &args.doc_id)? {
        bail!(
            "library `{}` has no document `{}`",
            args.library,
            args.doc_id
        );
    }
    eprintln!("deleted `{}` from `{}`", args.doc_id, args.library);
    Ok(ExitCode::SUCCESS)
}
