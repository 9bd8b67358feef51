//! `dupfinder serve`: the HTTP API on the configured address.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use clap::Args;

use super::config::{ServerFlags, open_catalog};
use dupfinder::config::Config;

#[derive(Args)]
pub(crate) struct ServeArgs {
    /// Address to listen on. Default: 127.0.0.1:8080
    #[arg(long, env = "DUPFINDER_LISTEN")]
    listen: Option<SocketAddr>,
    /// Bearer token operator endpoints require; needed to listen beyond loopback.
    #[arg(long, env = "DUPFINDER_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Host names the server answers for besides loopback names and its listen address
    /// (server.allowed_hosts), comma-separated: a reverse proxy's names.
    #[arg(
        long,
        env = "DUPFINDER_ALLOWED_HOSTS",
        value_delimiter = ',',
        value_name = "HOSTS"
    )]
    allowed_hosts: Option<Vec<String>>,
}

impl ServeArgs {
    /// What the flags set of the configuration.
    pub(crate) fn flags(&self) -> ServerFlags {
        ServerFlags {
            listen: self.listen,
            token: self.token.clone(),
            allowed_hosts: self.allowed_hosts.clone(),
        }
    }
}

/// Serves until SIGINT or SIGTERM, with the configuration the flags were merged into.
pub(crate) fn run(config: Config) -> Result<ExitCode> {
    if config
        .server
        .token
        .as_deref()
        .is_some_and(|t| t.trim().is_empty())
    {
        bail!("the configured token is empty");
    }
    if !config.server.listen.ip().is_loopback() && config.server.token.is_none() {
        bail!(
            "refusing to listen on {} without a token: set --token (or DUPFINDER_TOKEN, or \
             server.token) so that only operators can write, or listen on loopback",
            config.server.listen
        );
    }
    if let Some(host) = config.server.invalid_allowed_host() {
        bail!(
            "server.allowed_hosts: `{host}` is not a host name; give names or addresses alone, \
             without a scheme, a path or a port (dupfinder.example.org, 10.0.0.5)"
        );
    }
    let catalog = Arc::new(open_catalog(&config)?);
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    runtime.block_on(dupfinder::api::serve(catalog, config.server.listen, |addr| {
        tracing::info!(%addr, data_dir = %config.storage.data_dir.display(), "dupfinder listening");
        eprintln!("dupfinder listening on http://{addr}");
    }))?;
    Ok(ExitCode::SUCCESS)
}
