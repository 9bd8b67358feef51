//! `dupfinder delete-document`: one document removed from a library (on the data directory,
//! or through a running server with `--server`).

use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Args;

use super::config::{GlobalArgs, configure, open_catalog};
use super::remote::segment;

#[derive(Args)]
pub(crate) struct DeleteDocumentArgs {
    #[arg(long)]
    library: String,
    /// The document's id.
    doc_id: String,
}

pub(crate) fn run(args: DeleteDocumentArgs, global: &GlobalArgs) -> Result<ExitCode> {
    match global.remote()? {
        Some(remote) => {
            remote.delete(&format!(
                "/api/v1/libraries/{}/documents/{}",
                segment(&args.library),
                segment(&args.doc_id)
            ))?;
        }
        None => {
            let catalog = open_catalog(&configure(global, None)?)?;
            if !catalog.delete_document(&args.library, &args.doc_id)? {
                bail!(
                    "library `{}` has no document `{}`",
                    args.library,
                    args.doc_id
                );
            }
        }
    }
    eprintln!("deleted `{}` from `{}`", args.doc_id, args.library);
    Ok(ExitCode::SUCCESS)
}
