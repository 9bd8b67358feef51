//! The configuration a command runs with, and its precedence in one place: the built-in
//! defaults, then the file (`--config`), then the environment, then the flags. clap has
//! already folded each `DUPFINDER_*` variable into its flag, so a flag or its variable wins
//! over the file.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use dupfinder::config::Config;
use dupfinder::library::Catalog;

/// Flags every command takes.
#[derive(Args)]
pub(crate) struct GlobalArgs {
    /// Configuration file (TOML; see config/dupfinder.toml). Without one, built-in defaults.
    #[arg(long, global = true, env = "DUPFINDER_CONFIG")]
    config: Option<PathBuf>,
    /// Data directory (registry and indexes). Default: ./data
    #[arg(long, global = true, env = "DUPFINDER_DATA_DIR")]
    data_dir: Option<PathBuf>,
    /// Allow crawling private, loopback and link-local addresses (crawl.allow_private_networks).
    #[arg(
        long,
        global = true,
        env = "DUPFINDER_CRAWL_ALLOW_PRIVATE_NETWORKS",
        value_name = "BOOL"
    )]
    crawl_allow_private_networks: Option<bool>,
    /// Talk to a running server at this address (`http://host:port`) instead of opening the
    /// data directory: check, import, libraries, stats, search, reindex, dedup, delete-document,
    /// keys, phrases and backup.
    #[arg(long, global = true, env = "DUPFINDER_SERVER", value_name = "URL")]
    pub(crate) server: Option<String>,
    /// The API key to present to --server.
    #[arg(long, global = true, env = "DUPFINDER_KEY", hide_env_values = true)]
    pub(crate) key: Option<String>,
    /// Print answers as JSON (the default when standard output is not a terminal).
    #[arg(long, global = true)]
    pub(crate) json: bool,
    /// How log lines are written to standard error: `text` (coloured only on a terminal) or
    /// `json`, one object per line.
    #[arg(
        long,
        global = true,
        env = "DUPFINDER_LOG_FORMAT",
        default_value = "text"
    )]
    pub(crate) log_format: LogFormat,
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum LogFormat {
    Text,
    Json,
}

/// The server's own flags (`dupfinder serve`).
#[derive(Debug, Default)]
pub(crate) struct ServerFlags {
    pub(crate) listen: Option<SocketAddr>,
    pub(crate) token: Option<String>,
    pub(crate) allowed_hosts: Option<Vec<String>>,
}

/// The configuration: defaults < file < environment < flags.
pub(crate) fn configure(global: &GlobalArgs, server: Option<&ServerFlags>) -> Result<Config> {
    let mut config = match &global.config {
        Some(path) => Config::from_file(path)?,
        None => Config::default(),
    };
    if let Some(dir) = &global.data_dir {
        config.storage.data_dir = dir.clone();
    }
    if let Some(allow) = global.crawl_allow_private_networks {
        config.crawl.allow_private_networks = allow;
    }
    if let Some(server) = server {
        if let Some(listen) = server.listen {
            config.server.listen = listen;
        }
        if let Some(token) = &server.token {
            config.server.token = Some(token.clone());
        }
        if let Some(hosts) = &server.allowed_hosts {
            config.server.allowed_hosts = hosts.clone();
        }
    }
    Ok(config)
}

impl GlobalArgs {
    /// The server the command talks to, when `--server` names one.
    pub(crate) fn remote(&self) -> Result<Option<super::remote::Remote>> {
        self.server
            .as_deref()
            .map(|server| {
                // An empty `DUPFINDER_KEY` means no key: a server refuses a presented key that
                // is not valid, even where it needs none.
                let key = self.key.clone().filter(|key| !key.trim().is_empty());
                super::remote::Remote::new(server, key)
            })
            .transpose()
    }

    /// How answers are printed.
    pub(crate) fn output(&self) -> super::output::Output {
        super::output::Output::new(self.json)
    }
}

/// Opens the data directory the configuration names.
pub(crate) fn open_catalog(config: &Config) -> Result<Catalog> {
    Catalog::open(config).with_context(|| {
        format!(
            "cannot open the data directory {}",
            config.storage.data_dir.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::cli::Cli;

    #[test]
    fn flags_win_over_the_file_and_the_file_over_the_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("dupfinder.toml");
        std::fs::write(
            &file,
            "[storage]\ndata_dir = \"/from/file\"\n[server]\nlisten = \"127.0.0.1:9000\"\n\
             allowed_hosts = [\"file.example\"]\n",
        )
        .unwrap();
        let file = file.to_str().unwrap();
        let from_file = Cli::try_parse_from(["dupfinder", "--config", file, "serve"]).unwrap();
        let config = configure(&from_file.global, Some(&ServerFlags::default())).unwrap();
        assert_eq!(config.storage.data_dir, PathBuf::from("/from/file"));
        assert_eq!(config.server.listen.port(), 9000);
        assert_eq!(config.server.allowed_hosts, ["file.example"]);

        let flags = Cli::try_parse_from([
            "dupfinder",
            "--config",
            file,
            "--data-dir",
            "/from/flag",
            "serve",
        ])
        .unwrap();
        let server = ServerFlags {
            listen: Some("127.0.0.1:9100".parse().unwrap()),
            token: None,
            allowed_hosts: Some(vec!["flag.example".to_string()]),
        };
        let config = configure(&flags.global, Some(&server)).unwrap();
        assert_eq!(config.storage.data_dir, PathBuf::from("/from/flag"));
        assert_eq!(config.server.listen.port(), 9100);
        assert_eq!(config.server.allowed_hosts, ["flag.example"]);

        let defaults = configure(
            &Cli::try_parse_from(["dupfinder", "stats"]).unwrap().global,
            None,
        )
        .unwrap();
        assert_eq!(
            defaults.storage.data_dir,
            Config::default().storage.data_dir
        );
    }
}
