//! A PostgreSQL server of its own for a test: `initdb` and `pg_ctl` of the installed Debian
//! packages (`/usr/lib/postgresql/<version>/bin`), a cluster in a temporary directory, reached
//! over a Unix socket in that directory only (no TCP port), stopped and removed when dropped.
//!
//! `initdb` refuses to run as root, so as root the server runs as the `postgres` user (through
//! `runuser`), in a directory handed over to it. Where the binaries are missing the tests say so
//! loudly on standard error and return; set `DUPFINDER_REQUIRE_POSTGRES=1` (CI does, through
//! `.ci/run` installing the package) to make that a failure instead.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A running PostgreSQL server.
pub(crate) struct PgServer {
    bin: PathBuf,
    dir: ClusterDir,
    as_postgres: bool,
}

/// Where the cluster lives: a temporary directory removed with the server, or one that outlives
/// it (a benchmark that takes hours resumes in it after a kill).
enum ClusterDir {
    Temporary(tempfile::TempDir),
    Kept(PathBuf),
}

impl ClusterDir {
    fn path(&self) -> &Path {
        match self {
            ClusterDir::Temporary(dir) => dir.path(),
            ClusterDir::Kept(dir) => dir,
        }
    }
}

/// The port in the socket's name (`.s.PGSQL.<port>`): the socket directory is the server's own,
/// so every server can use the same.
const PORT: u16 = 5432;

/// Where the server binaries are: the newest installed version.
fn server_binaries() -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("bin"))
        .filter(|bin| bin.join("initdb").is_file() && bin.join("pg_ctl").is_file())
        .collect();
    found.sort();
    found.pop()
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

impl PgServer {
    /// Starts a server for `test`, or explains loudly why it cannot (no server binaries).
    /// Tests need no durability: the server skips fsync.
    pub(crate) fn start(test: &str) -> Option<PgServer> {
        Self::start_with(test, false, None)
    }

    /// Starts a server that fsyncs its commits as a production server does and counts its
    /// statements' time (for benchmarks).
    #[allow(dead_code)] // benches/storage.rs includes this file
    pub(crate) fn start_durable(test: &str) -> Option<PgServer> {
        Self::start_with(test, true, None)
    }

    /// A durable server (as [`PgServer::start_durable`]) whose cluster is kept in `dir`: made
    /// there when `dir` holds none, started again on what it holds otherwise.
    #[allow(dead_code)] // benches/storage.rs includes this file
    pub(crate) fn start_durable_in(test: &str, dir: &Path) -> Option<PgServer> {
        Self::start_with(test, true, Some(dir))
    }

    fn start_with(test: &str, durable: bool, kept: Option<&Path>) -> Option<PgServer> {
        let Some(bin) = server_binaries() else {
            let message = format!(
                "SKIPPED {test}: no PostgreSQL server binaries under /usr/lib/postgresql/*/bin \
                 (apt-get install postgresql)"
            );
            assert!(
                std::env::var_os("DUPFINDER_REQUIRE_POSTGRES").is_none(),
                "{message}"
            );
            eprintln!("\n!!!!!!!! {message}\n");
            return None;
        };
        let dir = match kept {
            Some(dir) => {
                std::fs::create_dir_all(dir).unwrap();
                ClusterDir::Kept(dir.to_path_buf())
            }
            None => ClusterDir::Temporary(tempfile::Builder::new().prefix("pg").tempdir().unwrap()),
        };
        let as_postgres = is_root();
        let server = PgServer {
            bin,
            dir,
            as_postgres,
        };
        if as_postgres {
            let status = Command::new("chown")
                .args(["postgres:postgres"])
                .arg(server.dir.path())
                .status()
                .unwrap();
            assert!(status.success(), "chown of the cluster directory failed");
        }
        let data = server.data();
        // A kept cluster made before is started again as it is.
        if !data.join("PG_VERSION").is_file() {
            server.run(
                "initdb",
                &[
                    "-D",
                    data.to_str().unwrap(),
                    "-A",
                    "trust",
                    "-U",
                    "postgres",
                    "-E",
                    "UTF8",
                    "--locale=C.UTF-8",
                    "--no-sync",
                ],
            );
        }
        // A benchmark's server also counts the time of every statement (pg_stat_statements, part
        // of the server package): where a check's time goes on the server.
        let durability = if durable {
            " -c shared_preload_libraries=pg_stat_statements"
        } else {
            " -c fsync=off -c full_page_writes=off"
        };
        let options = format!(
            "-k {} -c listen_addresses= -p {PORT} -c max_connections=100{durability}",
            server.socket_dir().display()
        );
        let log = server.dir.path().join("server.log");
        server.run(
            "pg_ctl",
            &[
                "-D",
                data.to_str().unwrap(),
                "-l",
                log.to_str().unwrap(),
                "-w",
                "-o",
                &options,
                "start",
            ],
        );
        Some(server)
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn socket_dir(&self) -> &Path {
        self.dir.path()
    }

    /// Runs one of the server's programs (as `postgres` when we are root); panics with its
    /// output when it fails.
    fn run(&self, program: &str, args: &[&str]) -> Output {
        let path = self.bin.join(program);
        let output = if self.as_postgres {
            Command::new("runuser")
                .args(["-u", "postgres", "--"])
                .arg(&path)
                .args(args)
                .output()
        } else {
            Command::new(&path).args(args).output()
        }
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            output.status.success(),
            "{program} failed: {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        output
    }

    /// The path of the installed PostgreSQL program `program` (`pg_dump`, `pg_restore`) of this
    /// server's version.
    #[allow(dead_code)] // benches/storage.rs includes this file
    pub(crate) fn binary(&self, program: &str) -> PathBuf {
        self.bin.join(program)
    }

    /// A libpq connection string to the database `dbname` of this server.
    pub(crate) fn url(&self, dbname: &str) -> String {
        format!(
            "host={} port={PORT} user=postgres dbname={dbname}",
            self.socket_dir().display()
        )
    }

    /// Creates the database `name` and returns its connection string.
    pub(crate) fn create_database(&self, name: &str) -> String {
        self.psql("postgres", &format!("CREATE DATABASE {name}"));
        self.url(name)
    }

    /// Runs `sql` with psql against `dbname`; returns its unaligned output.
    pub(crate) fn psql(&self, dbname: &str, sql: &str) -> String {
        let socket = self.socket_dir().display().to_string();
        let port = PORT.to_string();
        let output = self.run(
            "psql",
            &[
                "-h",
                &socket,
                "-p",
                &port,
                "-U",
                "postgres",
                "-d",
                dbname,
                "-X",
                "-A",
                "-t",
                "-v",
                "ON_ERROR_STOP=1",
                "-c",
                sql,
            ],
        );
        String::from_utf8_lossy(&output.stdout).trim().to_string()
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        let data = self.data();
        let path = self.bin.join("pg_ctl");
        let args = ["-D", data.to_str().unwrap(), "-m", "immediate", "stop"];
        let _ = if self.as_postgres {
            Command::new("runuser")
                .args(["-u", "postgres", "--"])
                .arg(&path)
                .args(args)
                .output()
        } else {
            Command::new(&path).args(args).output()
        };
    }
}
