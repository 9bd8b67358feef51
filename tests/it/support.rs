//! Shared test helpers: a catalog in a temporary directory, a router, a tiny HTTP/1.1 client
//! for tests against a real server process, and fixture texts.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use dupfinder::api::{AppState, Metrics, router};
use dupfinder::config::Config;
use dupfinder::crawl::CrawlService;
use dupfinder::library::{Catalog, Jobs};

/// A catalog on a fresh temporary data directory.
pub(crate) fn catalog() -> (tempfile::TempDir, Arc<Catalog>) {
    catalog_with(|_| {})
}

/// A catalog on a fresh temporary data directory, with the configuration adjusted by `adjust`.
pub(crate) fn catalog_with(adjust: impl FnOnce(&mut Config)) -> (tempfile::TempDir, Arc<Catalog>) {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::default();
    adjust(&mut config);
    config.storage.data_dir = dir.path().to_path_buf();
    config.storage.writer_memory_mb = 15;
    let catalog = Catalog::open(&config).unwrap();
    (dir, Arc::new(catalog))
}

/// The application router over `catalog`.
pub(crate) fn app(catalog: Arc<Catalog>) -> axum::Router {
    let crawl = CrawlService::open(catalog.clone()).unwrap();
    let jobs = Jobs::new(catalog.clone());
    router(AppState {
        catalog,
        metrics: Arc::new(Metrics::default()),
        crawl,
        jobs,
    })
}

/// Texts of the fixtures in tests/fixtures.
pub(crate) fn fixture(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The fixture corpus: one JSON object per line.
pub(crate) fn corpus() -> Vec<serde_json::Value> {
    fixture("corpus.jsonl")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A `dupfinder serve` child process.
pub(crate) struct ServerProcess {
    pub(crate) child: Child,
    pub(crate) addr: SocketAddr,
    /// The server's standard error, line by line, as it is drained.
    pub(crate) log: Arc<std::sync::Mutex<Vec<String>>>,
}

impl ServerProcess {
    /// SIGKILL, and wait for the process to go.
    pub(crate) fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Starts `dupfinder serve` on a free loopback port over `data_dir`, with extra environment
/// variables, and waits until it listens.
pub(crate) fn start_server(data_dir: &Path, env: &[(&str, &str)]) -> ServerProcess {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dupfinder"))
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(data_dir)
        .env("DUPFINDER_LOG", "warn")
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting dupfinder serve");
    let stderr = child.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    let log: Arc<std::sync::Mutex<Vec<String>>> = Arc::default();
    let addr = loop {
        let Some(line) = lines.next() else {
            let status = child.wait().unwrap();
            panic!(
                "the server exited ({status}) before listening: {:?}",
                log.lock().unwrap()
            );
        };
        let line = line.unwrap();
        if let Some(addr) = line.strip_prefix("dupfinder listening on http://") {
            break addr.trim().parse().unwrap();
        }
        log.lock().unwrap().push(line);
    };
    // Keep draining stderr so the server never blocks on a full pipe.
    let drained = log.clone();
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            drained.lock().unwrap().push(line);
        }
    });
    ServerProcess { child, addr, log }
}

/// A response from [`http`].
pub(crate) struct HttpResponse {
    pub(crate) status: u16,
    pub(crate) body: String,
}

/// Sends one HTTP/1.1 request and reads the whole response (the connection is closed after it).
pub(crate) fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    content_type: &str,
    body: &[u8],
) -> std::io::Result<HttpResponse> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    let text = String::from_utf8_lossy(&raw).to_string();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("no status line in {text:?}")))?;
    let body = match text.split_once("\r\n\r\n") {
        Some((head, rest))
            if head
                .to_ascii_lowercase()
                .contains("transfer-encoding: chunked") =>
        {
            dechunk(rest)
        }
        Some((_, rest)) => rest.to_string(),
        None => String::new(),
    };
    Ok(HttpResponse { status, body })
}

fn dechunk(mut rest: &str) -> String {
    let mut out = String::new();
    while let Some((size, tail)) = rest.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || tail.len() < size {
            break;
        }
        out.push_str(&tail[..size]);
        rest = tail[size..].trim_start_matches("\r\n");
    }
    out
}

/// A deterministic pseudo-text of `words` words drawn from a Zipf-like vocabulary of made-up
/// words, different for every `seed`.
pub(crate) fn synthetic_text(seed: u64, words: usize) -> String {
    const SYLLABLES: [&str; 24] = [
        "ka", "lo", "mir", "sen", "tal", "vor", "pe", "dun", "gra", "hel", "ix", "jo", "ber",
        "cos", "fin", "ulm", "nar", "qui", "ros", "tem", "vi", "wex", "yal", "zor",
    ];
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut out = String::new();
    for i in 0..words {
        // Skewed choice of a word id: small ids are frequent.
        let r = next() % 4000;
        let id = (r * r) / 4000 + (next() % 3);
        let mut word = String::new();
        let mut n = id + 7;
        for _ in 0..3 {
            word.push_str(SYLLABLES[(n % SYLLABLES.len() as u64) as usize]);
            n /= SYLLABLES.len() as u64;
        }
        if i > 0 {
            out.push(if i % 12 == 0 { '.' } else { ' ' });
            if i % 12 == 0 {
                out.push(' ');
            }
        }
        out.push_str(&word);
    }
    out.push('.');
    out
}
