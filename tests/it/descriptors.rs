//! Running out of file descriptors is a passing fault, not damage: a server process started
//! with a low limit on open files, held at that limit by idle connections, fails a write with
//! `503 transient_fault` (and `Retry-After`), and once the connections are gone the next write
//! succeeds without a restart. (Before write faults were classified, the failed write was a
//! `500` and every later write `503 writer_stopped` until the process restarted.)
//!
//! Linux only: the test watches the process's descriptors in `/proc/<pid>/fd`.

#![cfg(target_os = "linux")]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{ServerProcess, http, start_server_with_file_limit, synthetic_text};

/// The server's limit on open files.
const MAX_FILES: u32 = 256;

fn open_descriptors(server: &ServerProcess) -> usize {
    std::fs::read_dir(format!("/proc/{}/fd", server.child.id()))
        .map(|entries| entries.count())
        .unwrap_or(0)
}

fn batch(n: u64) -> String {
    (0..5)
        .map(|i| {
            json!({"id": format!("d{n}-{i}"), "text": synthetic_text(n * 10 + i, 200), "lang": "en"})
                .to_string()
                + "\n"
        })
        .collect()
}

/// One request on a connection opened earlier (kept alive): status, `Retry-After`, body.
fn send_on(
    stream: &mut BufReader<TcpStream>,
    path: &str,
    body: &str,
) -> (u16, Option<String>, Value) {
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-ndjson\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.get_mut().write_all(request.as_bytes()).unwrap();
    let mut status_line = String::new();
    stream.read_line(&mut status_line).unwrap();
    let status: u16 = status_line.split(' ').nth(1).unwrap().parse().unwrap();
    let (mut length, mut retry_after) = (0usize, None);
    loop {
        let mut line = String::new();
        stream.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').unwrap();
        match name.to_ascii_lowercase().as_str() {
            "content-length" => length = value.trim().parse().unwrap(),
            "retry-after" => retry_after = Some(value.trim().to_string()),
            _ => {}
        }
    }
    let mut answer = vec![0u8; length];
    stream.read_exact(&mut answer).unwrap();
    (
        status,
        retry_after,
        serde_json::from_slice(&answer).unwrap(),
    )
}

fn keep_alive_connection(addr: SocketAddr) -> BufReader<TcpStream> {
    let stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .unwrap();
    BufReader::new(stream)
}

#[test]
fn a_write_after_running_out_of_descriptors_succeeds_without_restart() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("dupfinder.toml");
    // No cap on connections below the file limit, and no header timeout to close idle ones:
    // the misconfiguration that lets connections take every descriptor.
    std::fs::write(
        &config,
        "[server]\nheader_read_timeout_ms = 600000\n[limits]\nmax_connections = 100000\n",
    )
    .unwrap();
    let server = start_server_with_file_limit(
        &dir.path().join("data"),
        &[("DUPFINDER_CONFIG", config.to_str().unwrap())],
        MAX_FILES,
    );
    let documents = "/api/v1/libraries/lib/documents";
    let created = http(
        server.addr,
        "POST",
        "/api/v1/libraries",
        "application/json",
        br#"{"id":"lib"}"#,
    )
    .unwrap();
    assert_eq!(created.status, 201, "{}", created.body);
    // The connection the write will use, accepted while descriptors are left.
    let mut writer = keep_alive_connection(server.addr);
    let (status, _, body) = send_on(&mut writer, documents, &batch(0));
    assert_eq!((status, &body["accepted"]), (200, &json!(5)), "{body}");

    // Idle connections until the process holds every descriptor it may.
    let mut idle = Vec::new();
    while open_descriptors(&server) < MAX_FILES as usize {
        assert!(
            idle.len() < 4 * MAX_FILES as usize,
            "{} connections and the server holds {} descriptors",
            idle.len(),
            open_descriptors(&server)
        );
        for _ in 0..8 {
            idle.push(TcpStream::connect(server.addr).unwrap());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let (status, retry_after, body) = send_on(&mut writer, documents, &batch(1));
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (503, Some("transient_fault")),
        "{body}; server log: {:?}",
        server.log.lock().unwrap()
    );
    assert!(retry_after.is_some(), "no Retry-After");

    // The episode ends: the connections close and the descriptors come back.
    drop(idle);
    while open_descriptors(&server) > MAX_FILES as usize / 2 {
        std::thread::sleep(Duration::from_millis(50));
    }
    let written = http(
        server.addr,
        "POST",
        documents,
        "application/x-ndjson",
        batch(2).as_bytes(),
    )
    .unwrap();
    assert_eq!(
        written.status,
        200,
        "{}; server log: {:?}",
        written.body,
        server.log.lock().unwrap()
    );
    for id in ["d0-0", "d2-4"] {
        let read = http(server.addr, "GET", &format!("{documents}/{id}"), "", b"").unwrap();
        assert_eq!(read.status, 200, "{id}: {}", read.body);
    }
}
