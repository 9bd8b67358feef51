//! `dupfinder keys`: API keys on a data directory (the server must not hold it; over HTTP,
//! `POST /api/v1/keys` does the same).

use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::{Args, Subcommand};

use super::config::open_catalog;
use dupfinder::config::Config;
use dupfinder::library::Role;

#[derive(Args)]
pub(crate) struct KeysArgs {
    #[command(subcommand)]
    command: KeysCommand,
}

#[derive(Subcommand)]
enum KeysCommand {
    /// Create a key; its secret is printed once.
    Create {
        /// How logs and the audit log call the key's holder.
        #[arg(long)]
        name: String,
        /// admin, operator, checker or reader.
        #[arg(long)]
        role: String,
        /// A library the key may touch (repeatable). Default: all.
        #[arg(long)]
        library: Vec<String>,
    },
    /// List the keys (names, roles, libraries; never secrets).
    List,
    /// Revoke a key: refused from the next request on.
    Revoke { name: String },
}

pub(crate) fn run(args: KeysArgs, config: Config) -> Result<ExitCode> {
    let catalog = open_catalog(&config)?;
    let keys = catalog.keys();
    match args.command {
        KeysCommand::Create {
            name,
            role,
            library,
        } => {
            let Some(role) = Role::parse(&role) else {
                bail!("`{role}` is not a role: use admin, operator, checker or reader");
            };
            let libraries = (!library.is_empty()).then_some(library);
            let key = keys.create(&name, role, libraries)?;
            println!("{}", serde_json::to_string_pretty(&key)?);
            eprintln!("the secret is shown this once; send it as `Authorization: Bearer <key>`");
        }
        KeysCommand::List => println!("{}", serde_json::to_string_pretty(&keys.list()?)?),
        KeysCommand::Revoke { name } => {
            keys.revoke(&name)?;
            eprintln!("revoked `{name}`");
        }
    }
    Ok(ExitCode::SUCCESS)
}
