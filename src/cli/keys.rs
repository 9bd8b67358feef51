//! `dupfinder keys`: API keys on a data directory (the server must not hold it), or through a
//! running server's `/api/v1/keys` with `--server` and an admin key. On a data directory the
//! command is the operator's way back in, so it creates and revokes what it is asked to; it
//! warns when that leaves keys but no admin key to manage them (which the server's API refuses).

use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::{Args, Subcommand};

use serde_json::json;

use super::config::{GlobalArgs, configure, open_catalog};
use super::remote::{Remote, segment};
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

pub(crate) fn run(args: KeysArgs, global: &GlobalArgs) -> Result<ExitCode> {
    if let Some(remote) = global.remote()? {
        return run_remote(args, &remote, global);
    }
    let config = configure(global, None)?;
    let catalog = open_catalog(&config)?;
    let keys = catalog.keys();
    // With a token configured, the token manages keys.
    let needs_admin_key = config.server.token.is_none();
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
            outln!("{}", serde_json::to_string_pretty(&key)?);
            eprintln!("the secret is shown this once; send it as `Authorization: Bearer <key>`");
            if needs_admin_key && !keys.has_key_manager() {
                eprintln!(
                    "warning: no admin key exists: from now on the server asks for a key, and \
                     only an admin key manages keys, backups and reports; create one with \
                     `dupfinder keys create --name admin --role admin`"
                );
            }
        }
        KeysCommand::List => outln!("{}", serde_json::to_string_pretty(&keys.list()?)?),
        KeysCommand::Revoke { name } => {
            let leaves_no_admin = needs_admin_key && keys.revoking_leaves_no_manager(&name);
            keys.revoke(&name)?;
            eprintln!("revoked `{name}`");
            if leaves_no_admin {
                eprintln!(
                    "warning: no admin key is left for the other keys: only an admin key \
                     manages keys, backups and reports; create one with \
                     `dupfinder keys create --name admin --role admin`"
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The same through the server's `/api/v1/keys` (an admin key).
fn run_remote(args: KeysArgs, remote: &Remote, global: &GlobalArgs) -> Result<ExitCode> {
    match args.command {
        KeysCommand::Create {
            name,
            role,
            library,
        } => {
            let mut body = json!({ "name": name, "role": role });
            if !library.is_empty() {
                body["libraries"] = json!(library);
            }
            let key = remote.post("/api/v1/keys", &body)?;
            global
                .output()
                .print(&key, |k| k["key"].as_str().unwrap_or_default().to_string());
            eprintln!("the secret is shown this once; send it as `Authorization: Bearer <key>`");
        }
        KeysCommand::List => {
            let keys = remote.get("/api/v1/keys")?;
            global.output().print(&keys, |k| {
                serde_json::to_string_pretty(k).expect("a JSON value serializes")
            });
        }
        KeysCommand::Revoke { name } => {
            remote.delete(&format!("/api/v1/keys/{}", segment(&name)))?;
            eprintln!("revoked `{name}`");
        }
    }
    Ok(ExitCode::SUCCESS)
}
