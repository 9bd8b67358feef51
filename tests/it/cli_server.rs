//! The CLI against a running server (`--server`, `--key`), and backups: one taken from a
//! server while writes go on, restored into a new data directory and compared.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};

use crate::support::{http, start_server, synthetic_text};

const TOKEN: &str = "cli-server-test-token";

/// Runs `dupfinder ARGS` against the server at `addr` with `key`.
fn cli(addr: std::net::SocketAddr, key: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dupfinder"))
        .args(args)
        .env("DUPFINDER_SERVER", format!("http://{addr}"))
        .env("DUPFINDER_KEY", key)
        // A data directory the commands must not touch: they talk to the server.
        .env("DUPFINDER_DATA_DIR", "/nonexistent/dupfinder-cli-test")
        .output()
        .expect("running dupfinder")
}

fn stdout_json(output: &Output) -> Value {
    assert!(
        output.status.success() || output.status.code() == Some(4),
        "exit {:?}: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

fn corpus_file(dir: &Path, name: &str, ids: std::ops::Range<u64>) -> std::path::PathBuf {
    let lines: String = ids
        .map(|i| format!("{}\n", json!({"id": format!("d{i}"), "title": format!("Paper {i}"), "text": synthetic_text(i, 150)})))
        .collect();
    let path = dir.join(name);
    std::fs::write(&path, lines).unwrap();
    path
}

#[test]
fn the_cli_works_through_a_running_server() {
    let dir = tempfile::tempdir().unwrap();
    let server = start_server(&dir.path().join("data"), &[("DUPFINDER_TOKEN", TOKEN)]);
    let addr = server.addr;
    let corpus = corpus_file(dir.path(), "corpus.jsonl", 0..30);

    let imported = stdout_json(&cli(
        addr,
        TOKEN,
        &["import", "--library", "journal", corpus.to_str().unwrap()],
    ));
    assert_eq!(imported["accepted"], 30, "{imported}");

    let stats = stdout_json(&cli(addr, TOKEN, &["stats", "--library", "journal"]));
    assert_eq!(stats["documents"], 30, "{stats}");

    let copy = dir.path().join("copy.txt");
    std::fs::write(&copy, synthetic_text(7, 150)).unwrap();
    let checked = cli(
        addr,
        TOKEN,
        &["check", "--fail-on", "duplicate", copy.to_str().unwrap()],
    );
    assert_eq!(
        checked.status.code(),
        Some(4),
        "a duplicate fails the check"
    );
    let answer = stdout_json(&checked);
    assert_eq!(answer["verdict"], "duplicate");
    assert_eq!(answer["matches"][0]["doc_id"], "d7");
    let original = dir.path().join("original.txt");
    std::fs::write(&original, synthetic_text(999, 150)).unwrap();
    let passed = cli(
        addr,
        TOKEN,
        &["check", "--fail-on", "partial", original.to_str().unwrap()],
    );
    assert_eq!(passed.status.code(), Some(0));

    let found = stdout_json(&cli(
        addr,
        TOKEN,
        &["search", "--library", "journal", "title:paper"],
    ));
    assert_eq!(found["total"], 30, "{found}");

    // A copy of d7 arrives; dedup through the server clusters the two.
    let copies = dir.path().join("copies.jsonl");
    std::fs::write(
        &copies,
        format!(
            "{}\n",
            json!({"id": "d7-copy", "text": synthetic_text(7, 150)})
        ),
    )
    .unwrap();
    stdout_json(&cli(
        addr,
        TOKEN,
        &["import", "--library", "journal", copies.to_str().unwrap()],
    ));
    let clusters = stdout_json(&cli(addr, TOKEN, &["dedup", "--library", "journal"]));
    assert_eq!(clusters["total"], 1, "{clusters}");
    let members: Vec<&str> =
        std::iter::once(clusters["clusters"][0]["canonical"].as_str().unwrap())
            .chain(
                clusters["clusters"][0]["members"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|m| m["doc_id"].as_str().unwrap()),
            )
            .collect();
    assert!(
        members.contains(&"d7") && members.contains(&"d7-copy"),
        "{clusters}"
    );

    let reindexed = cli(addr, TOKEN, &["reindex", "--library", "journal"]);
    assert!(
        reindexed.status.success(),
        "{}",
        String::from_utf8_lossy(&reindexed.stderr)
    );

    // A reader key: reads pass, writes are refused with the server's code and message.
    let created = stdout_json(&cli(
        addr,
        TOKEN,
        &["keys", "create", "--name", "shelf", "--role", "reader"],
    ));
    let reader = created["key"].as_str().unwrap().to_string();
    let refused = cli(
        addr,
        &reader,
        &["delete-document", "--library", "journal", "d3"],
    );
    assert_eq!(refused.status.code(), Some(1));
    let message = String::from_utf8_lossy(&refused.stderr);
    assert!(message.contains("403 forbidden"), "{message}");
    let deleted = cli(
        addr,
        TOKEN,
        &["delete-document", "--library", "journal", "d3"],
    );
    assert!(deleted.status.success());
    let stats = stdout_json(&cli(addr, &reader, &["stats", "--library", "journal"]));
    assert_eq!(stats["documents"], 30);

    let unreachable = Command::new(env!("CARGO_BIN_EXE_dupfinder"))
        .args(["--server", "http://127.0.0.1:9", "stats"])
        .output()
        .unwrap();
    assert_eq!(unreachable.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&unreachable.stderr).contains("cannot reach the server"));
}

/// The check answer of `text` on a server, without the timing.
fn check_answer(addr: std::net::SocketAddr, text: &str) -> Value {
    let response = http(
        addr,
        "POST",
        "/api/v1/check",
        "application/json",
        json!({"text": text, "passages": true})
            .to_string()
            .as_bytes(),
    )
    .unwrap();
    assert_eq!(response.status, 200, "{}", response.body);
    let mut answer: Value = serde_json::from_str(&response.body).unwrap();
    answer.as_object_mut().unwrap().remove("took_ms");
    answer.as_object_mut().unwrap().remove("report_id");
    answer
}

#[test]
fn a_backup_taken_while_writes_go_on_restores_to_the_same_answers() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = start_server(&data, &[("DUPFINDER_TOKEN", TOKEN)]);
    let addr = server.addr;
    let corpus = corpus_file(dir.path(), "corpus.jsonl", 0..40);
    let imported = stdout_json(&cli(
        addr,
        TOKEN,
        &["import", "--library", "journal", corpus.to_str().unwrap()],
    ));
    assert_eq!(imported["accepted"], 40);
    stdout_json(&cli(
        addr,
        TOKEN,
        &["keys", "create", "--name", "portal", "--role", "checker"],
    ));

    // Batches of ten documents go on arriving while the backup is taken.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let client = reqwest::blocking::Client::new();
            let mut batch = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let lines: String = (0..10)
                    .map(|i| {
                        let n = 1000 + batch * 10 + i;
                        format!(
                            "{}\n",
                            json!({"id": format!("w{n}"), "text": synthetic_text(n, 120)})
                        )
                    })
                    .collect();
                let response = client
                    .post(format!("http://{addr}/api/v1/libraries/journal/documents"))
                    .bearer_auth(TOKEN)
                    .header("content-type", "application/x-ndjson")
                    .body(lines)
                    .send()
                    .unwrap_or_else(|e| panic!("a write failed during the backup: {e}"));
                let status = response.status().as_u16();
                assert_eq!(status, 200, "{}", response.text().unwrap_or_default());
                batch += 1;
            }
            batch
        })
    };
    std::thread::sleep(std::time::Duration::from_millis(300));
    let file = dir.path().join("backup.tar.gz");
    let backup = cli(addr, TOKEN, &["backup", "--out", file.to_str().unwrap()]);
    assert!(
        backup.status.success(),
        "{}",
        String::from_utf8_lossy(&backup.stderr)
    );
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let batches = writer.join().unwrap();
    assert!(batches > 0);

    // Offline, the data directory a server holds is refused with a message.
    let offline = Command::new(env!("CARGO_BIN_EXE_dupfinder"))
        .args(["backup", "--out"])
        .arg(dir.path().join("offline.tar.gz"))
        .arg("--data-dir")
        .arg(&data)
        .output()
        .unwrap();
    assert_eq!(offline.status.code(), Some(1));
    assert!(!dir.path().join("offline.tar.gz").exists());

    let restored = dir.path().join("restored");
    let output = Command::new(env!("CARGO_BIN_EXE_dupfinder"))
        .args(["restore"])
        .arg(&file)
        .arg("--data-dir")
        .arg(&restored)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let manifest: Value = serde_json::from_slice(&output.stdout).unwrap();
    let documents = manifest["libraries"][0]["documents"].as_u64().unwrap();
    // One commit's state: the corpus and whole batches, never part of one.
    assert!(
        documents >= 40 && (documents - 40).is_multiple_of(10),
        "{manifest}"
    );

    // A second restore into the same directory is refused.
    let again = Command::new(env!("CARGO_BIN_EXE_dupfinder"))
        .args(["restore"])
        .arg(&file)
        .arg("--data-dir")
        .arg(&restored)
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("not empty"));
    // A truncated backup is refused and leaves its target empty.
    let bytes = std::fs::read(&file).unwrap();
    let truncated = dir.path().join("truncated.tar.gz");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    let half = dir.path().join("half");
    let output = Command::new(env!("CARGO_BIN_EXE_dupfinder"))
        .args(["restore"])
        .arg(&truncated)
        .arg("--data-dir")
        .arg(&half)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(std::fs::read_dir(&half).map_or(0, |d| d.count()), 0);

    let copy = start_server(&restored, &[("DUPFINDER_TOKEN", TOKEN)]);
    for i in [0u64, 17, 39] {
        let text = synthetic_text(i, 150);
        assert_eq!(
            check_answer(copy.addr, &text),
            check_answer(addr, &text),
            "document d{i}"
        );
    }
    let library = http(copy.addr, "GET", "/api/v1/libraries/journal", "", b"").unwrap();
    let library: Value = serde_json::from_str(&library.body).unwrap();
    assert_eq!(library["documents"].as_u64(), Some(documents));
    // The keys and the audit log came along.
    let keys = stdout_json(&cli(copy.addr, TOKEN, &["keys", "list"]));
    assert!(keys.to_string().contains("\"portal\""), "{keys}");
}

#[test]
fn a_file_that_is_not_a_backup_is_refused_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let bogus = dir.path().join("bogus.tar.gz");
    std::fs::write(&bogus, b"not a backup at all").unwrap();
    let target = dir.path().join("restored");
    let output = Command::new(env!("CARGO_BIN_EXE_dupfinder"))
        .args(["restore"])
        .arg(&bogus)
        .arg("--data-dir")
        .arg(&target)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("is not a dupfinder backup"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!target.exists(), "a refused restore left {target:?} behind");
}

#[test]
fn an_answer_whose_reader_went_away_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = corpus_file(dir.path(), "corpus.jsonl", 0..30);
    let data = dir.path().join("data");
    let import = Command::new(env!("CARGO_BIN_EXE_dupfinder"))
        .arg("--data-dir")
        .arg(&data)
        .args(["import", "--library", "lib"])
        .arg(&corpus)
        .output()
        .unwrap();
    assert!(import.status.success(), "{import:?}");
    // As `dupfinder stats | head -0`: the reader is gone before the answer is written.
    let mut child = Command::new(env!("CARGO_BIN_EXE_dupfinder"))
        .arg("--data-dir")
        .arg(&data)
        .args(["stats", "--library", "lib"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(output.status.code(), Some(0), "{stderr}");
}
