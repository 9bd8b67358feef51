//! A `dupfinder serve` child process on a loopback port, and requests to it over HTTP
//! (reqwest).

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

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
    spawn_server(Command::new(env!("CARGO_BIN_EXE_dupfinder")), data_dir, env)
}

/// [`start_server`] with the process's limit on open files (`RLIMIT_NOFILE`) set to
/// `max_files`, through the shell's `ulimit` (the server's pid is the shell's, which execs it).
pub(crate) fn start_server_with_file_limit(
    data_dir: &Path,
    env: &[(&str, &str)],
    max_files: u32,
) -> ServerProcess {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(format!("ulimit -n {max_files} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_dupfinder"));
    spawn_server(command, data_dir, env)
}

fn spawn_server(mut command: Command, data_dir: &Path, env: &[(&str, &str)]) -> ServerProcess {
    let mut child = command
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

/// Sends one request to a server process and reads the whole answer. The blocking client runs
/// on a thread of its own, so this may be called from async tests too.
pub(crate) fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    content_type: &str,
    body: &[u8],
) -> reqwest::Result<HttpResponse> {
    let url = format!("http://{addr}{path}");
    let method = reqwest::Method::from_bytes(method.as_bytes()).expect("an HTTP method");
    let (content_type, body) = (content_type.to_string(), body.to_vec());
    std::thread::scope(|scope| {
        scope
            .spawn(move || {
                let client = reqwest::blocking::Client::builder()
                    .timeout(Duration::from_secs(60))
                    .build()?;
                let response = client
                    .request(method, url)
                    .header(reqwest::header::CONTENT_TYPE, content_type)
                    .body(body)
                    .send()?;
                Ok(HttpResponse {
                    status: response.status().as_u16(),
                    body: response.text()?,
                })
            })
            .join()
            .expect("the HTTP client thread")
    })
}

/// Sends `body` as JSON (none when it is `null`) to a server process; answers the status and
/// the answer's JSON (`null` when it is not JSON).
pub(crate) fn call_json(
    server: &ServerProcess,
    method: &str,
    path: &str,
    body: &serde_json::Value,
) -> (u16, serde_json::Value) {
    let body = if body.is_null() {
        String::new()
    } else {
        body.to_string()
    };
    let response = http(
        server.addr,
        method,
        path,
        "application/json",
        body.as_bytes(),
    )
    .unwrap();
    let value = serde_json::from_str(&response.body).unwrap_or(serde_json::Value::Null);
    (response.status, value)
}
