//! Graceful shutdown of a real server process: SIGTERM while a large JSON Lines ingest is in
//! flight. The request is answered 2xx, the process exits 0, and the documents are there after
//! a restart.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::{http, start_server, synthetic_text};

const DOCUMENTS: u64 = 1500;

#[test]
fn sigterm_lets_the_request_in_flight_finish_and_exits_zero() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = start_server(dir.path(), &[("DUPFINDER_LOG", "info,tantivy=warn")]);
    let created = http(
        server.addr,
        "POST",
        "/api/v1/libraries",
        "application/json",
        br#"{"id":"drain"}"#,
    )
    .unwrap();
    assert_eq!(created.status, 201, "{}", created.body);

    let body: String = (0..DOCUMENTS)
        .map(|i| {
            format!(
                "{}\n",
                json!({"id": format!("d{i}"), "text": synthetic_text(i, 300)})
            )
        })
        .collect();
    let addr = server.addr;
    let (sent_tx, sent_rx) = mpsc::channel();
    let client = std::thread::spawn(move || {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(120)))
            .unwrap();
        let head = format!(
            "POST /api/v1/libraries/drain/documents HTTP/1.1\r\nHost: {addr}\r\n\
             Content-Type: application/x-ndjson\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body.as_bytes()).unwrap();
        sent_tx.send(Instant::now()).unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        (response, Instant::now())
    });
    sent_rx.recv_timeout(Duration::from_secs(60)).unwrap();
    // The whole body is on its way; give the server a moment to be inside the handler.
    std::thread::sleep(Duration::from_millis(300));
    let status = Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let terminated = Instant::now();

    let (response, answered) = client.join().unwrap();
    assert!(
        answered > terminated,
        "the answer came before SIGTERM: the request was not in flight"
    );
    assert!(
        response.starts_with("HTTP/1.1 200"),
        "the request in flight was not answered: {response}"
    );
    assert!(
        response.contains(&format!("\"accepted\":{DOCUMENTS}")),
        "{response}"
    );
    let exit = loop {
        if let Some(exit) = server.child.try_wait().unwrap() {
            break exit;
        }
        assert!(
            terminated.elapsed() < Duration::from_secs(60),
            "the server did not exit after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(
        exit.success(),
        "exit status {exit}: {:?}",
        server.log.lock().unwrap()
    );
    assert!(
        server
            .log
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.contains("finishing requests in flight")),
        "{:?}",
        server.log.lock().unwrap()
    );

    let server = start_server(dir.path(), &[]);
    for i in [0, DOCUMENTS / 2, DOCUMENTS - 1] {
        let found = http(
            server.addr,
            "GET",
            &format!("/api/v1/libraries/drain/documents/d{i}"),
            "application/json",
            b"",
        )
        .unwrap();
        assert_eq!(found.status, 200, "d{i} lost: {}", found.body);
    }
    let library = http(
        server.addr,
        "GET",
        "/api/v1/libraries/drain",
        "application/json",
        b"",
    )
    .unwrap();
    let library: serde_json::Value = serde_json::from_str(&library.body).unwrap();
    assert_eq!(library["documents"], DOCUMENTS, "{library}");
}
