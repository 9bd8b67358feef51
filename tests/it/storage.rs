//! Storage faults against a real server process, on a small tmpfs mounted for the test: a full
//! data directory answers `507 storage_full` and a read-only one `503 storage_unavailable`;
//! the server keeps serving reads, later writes succeed once there is room again (or the
//! directory is writable again) without a restart, and every acknowledged document is there
//! after one.
//!
//! Mounting needs root (CAP_SYS_ADMIN). Where it is not permitted the tests say so on standard
//! error (past the test harness's capture) and return; set `DUPFINDER_REQUIRE_MOUNTS=1` to make
//! that a failure instead.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::support::{ServerProcess, http, start_server, synthetic_text};

/// A tmpfs mounted on a temporary directory, unmounted when dropped.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    /// Mounts a tmpfs of `megabytes`, or explains loudly why it cannot.
    fn mount(megabytes: u32, test: &str) -> Option<Tmpfs> {
        let dir = tempfile::tempdir().unwrap();
        let output = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={megabytes}m"), "tmpfs"])
            .arg(dir.path())
            .output();
        let reason = match output {
            Ok(out) if out.status.success() => return Some(Tmpfs { dir }),
            Ok(out) => String::from_utf8_lossy(&out.stderr).trim().to_string(),
            Err(e) => e.to_string(),
        };
        assert!(
            std::env::var_os("DUPFINDER_REQUIRE_MOUNTS").is_none(),
            "{test}: cannot mount a tmpfs: {reason}"
        );
        // Straight to the process's standard error, so that the skip shows in `cargo test`.
        let _ = writeln!(
            std::io::stderr(),
            "\n*** SKIPPED {test}: cannot mount a tmpfs ({reason}); run as root to test \
             storage faults ***\n"
        );
        None
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn remount(&self, options: &str) {
        let status = Command::new("mount")
            .args(["-o", &format!("remount,{options}")])
            .arg(self.dir.path())
            .status()
            .unwrap();
        assert!(status.success(), "remount {options} failed");
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}

fn post(server: &ServerProcess, path: &str, content_type: &str, body: &str) -> (u16, Value) {
    let response = http(server.addr, "POST", path, content_type, body.as_bytes()).unwrap();
    let value = serde_json::from_str(&response.body).unwrap_or(Value::Null);
    (response.status, value)
}

fn get(server: &ServerProcess, path: &str) -> (u16, Value) {
    let response = http(server.addr, "GET", path, "application/json", b"").unwrap();
    let value = serde_json::from_str(&response.body).unwrap_or(Value::Null);
    (response.status, value)
}

/// A JSON Lines batch of 20 documents of about 400 words; their ids.
fn batch(n: u64) -> (String, Vec<String>) {
    let ids: Vec<String> = (0..20).map(|i| format!("b{n}-{i}")).collect();
    let body = ids
        .iter()
        .enumerate()
        .map(|(i, id)| {
            let text = synthetic_text(n * 1000 + i as u64, 400);
            format!("{}\n", json!({"id": id, "text": text}))
        })
        .collect();
    (body, ids)
}

fn ingest(server: &ServerProcess, n: u64) -> (u16, Value, Vec<String>) {
    let (body, ids) = batch(n);
    let (status, value) = post(
        server,
        "/api/v1/libraries/lib/documents",
        "application/x-ndjson",
        &body,
    );
    (status, value, ids)
}

fn create_library(server: &ServerProcess) {
    let (status, body) = post(
        server,
        "/api/v1/libraries",
        "application/json",
        r#"{"id":"lib"}"#,
    );
    assert_eq!(status, 201, "{body}");
}

fn assert_all_present(server: &ServerProcess, ids: &[String]) {
    for id in ids {
        let (status, body) = get(server, &format!("/api/v1/libraries/lib/documents/{id}"));
        assert_eq!(status, 200, "acknowledged document {id} lost: {body}");
    }
    let (status, body) = get(server, "/api/v1/libraries/lib");
    assert_eq!(status, 200, "{body}");
    assert!(
        body["documents"].as_u64().unwrap() >= ids.len() as u64,
        "{body}"
    );
}

/// A configuration file (outside the mount) with a small index writer.
fn small_writer_config() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dupfinder.toml");
    std::fs::write(&path, "[storage]\nwriter_memory_mb = 15\n").unwrap();
    let path = path.to_str().unwrap().to_string();
    (dir, path)
}

fn data_dir(mount: &Tmpfs) -> PathBuf {
    mount.path().join("data")
}

#[test]
fn a_full_data_directory_is_storage_full_and_loses_nothing_acknowledged() {
    let Some(mount) = Tmpfs::mount(24, "storage::full") else {
        return;
    };
    let data = data_dir(&mount);
    let (_config_dir, config) = small_writer_config();
    let env = [("DUPFINDER_CONFIG", config.as_str())];
    let mut server = start_server(&data, &env);
    create_library(&server);
    let mut acknowledged = Vec::new();
    let mut refused = None;
    for n in 0..400 {
        let (status, body, ids) = ingest(&server, n);
        if status == 200 {
            assert_eq!(body["accepted"], 20, "{body}");
            acknowledged.extend(ids);
        } else {
            refused = Some((status, body));
            break;
        }
    }
    let (status, body) = refused.expect("24 MB never filled up");
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (507, Some("storage_full")),
        "{body}; server log: {:?}",
        server.log.lock().unwrap()
    );
    assert!(acknowledged.len() >= 20, "the disk filled before any batch");
    // Still serving: health, reads, checks of what was acknowledged.
    assert_eq!(get(&server, "/healthz").0, 200);
    assert_all_present(&server, &acknowledged);
    let check = json!({"text": synthetic_text(0, 400)}).to_string();
    let (status, report) = post(&server, "/api/v1/check", "application/json", &check);
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["matches"][0]["doc_id"], "b0-0", "{report}");
    // More writes on the full disk are refused the same way, never a 500. (What a refused write
    // had begun to write is freed when its library's writers are reset, so one more batch may
    // fit: acknowledged then, and kept like the others.)
    let mut refused_again = false;
    for n in 1000..1020 {
        let (status, body, ids) = ingest(&server, n);
        match status {
            200 => acknowledged.extend(ids),
            507 => {
                refused_again = true;
                break;
            }
            _ => panic!("a write on a full disk answered {status}: {body}"),
        }
    }
    assert!(refused_again, "the full disk took every later batch");

    // Room again: the next write resets the library's writers to their last commit (after a
    // failed commit a writer's state is unknown; a later commit on it has been seen to answer
    // without storing anything) and succeeds, without a restart.
    mount.remount("size=256m");
    let (status, body, ids) = ingest(&server, 2000);
    assert_eq!(status, 200, "a write once there is room: {body}");
    acknowledged.extend(ids);
    assert_all_present(&server, &acknowledged);
    // After a restart everything acknowledged is there, and writes work.
    server.kill();
    let server = start_server(&data, &env);
    assert_all_present(&server, &acknowledged);
    let (status, body, _) = ingest(&server, 3000);
    assert_eq!(status, 200, "a write after the restart: {body}");
}

#[test]
fn a_data_directory_turned_read_only_is_storage_unavailable_and_loses_nothing() {
    let Some(mount) = Tmpfs::mount(128, "storage::read_only") else {
        return;
    };
    let data = data_dir(&mount);
    let (_config_dir, config) = small_writer_config();
    let env = [("DUPFINDER_CONFIG", config.as_str())];
    let mut server = start_server(&data, &env);
    create_library(&server);
    let (status, body, acknowledged) = ingest(&server, 0);
    assert_eq!(status, 200, "{body}");

    // The directory turns read-only under the running server: a read-only bind mount over it,
    // so that no new file can be created there (files already open stay writable).
    let bind = ReadOnlyBind::over(&data);
    let (status, body, _) = ingest(&server, 1);
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (503, Some("storage_unavailable")),
        "{body}; server log: {:?}",
        server.log.lock().unwrap()
    );
    let (status, body) = post(
        &server,
        "/api/v1/libraries",
        "application/json",
        r#"{"id":"other"}"#,
    );
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (503, Some("storage_unavailable")),
        "{body}; server log: {:?}",
        server.log.lock().unwrap()
    );
    // Reads go on.
    assert_all_present(&server, &acknowledged);
    let check = json!({"text": synthetic_text(0, 400)}).to_string();
    let (status, report) = post(&server, "/api/v1/check", "application/json", &check);
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["verdict"], "duplicate", "{report}");

    // Writable again: the next write resets the writers and succeeds, without a restart; it
    // is there after one.
    drop(bind);
    let (status, body, ids) = ingest(&server, 2);
    assert_eq!(status, 200, "a write once writable again: {body}");
    server.kill();
    let mut server = start_server(&data, &env);
    assert_all_present(&server, &acknowledged);
    assert_all_present(&server, &ids);
    server.kill();

    // Started on a read-only file system, the server refuses with a one-line reason.
    mount.remount("ro");
    let output = Command::new(env!("CARGO_BIN_EXE_dupfinder"))
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(&data)
        .env("DUPFINDER_CONFIG", &config)
        .env("DUPFINDER_LOG", "warn")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success(),
        "served a read-only directory: {stderr}"
    );
    assert!(stderr.contains("Read-only file system"), "{stderr}");
    mount.remount("rw");

    let server = start_server(&data, &env);
    assert_all_present(&server, &acknowledged);
    let (status, body, _) = ingest(&server, 3);
    assert_eq!(status, 200, "a write after the restart: {body}");
}

/// A read-only bind mount of a directory over itself, removed when dropped.
struct ReadOnlyBind {
    path: PathBuf,
}

impl ReadOnlyBind {
    fn over(path: &Path) -> ReadOnlyBind {
        for args in [&["--bind"][..], &["-o", "remount,ro,bind"][..]] {
            let status = Command::new("mount")
                .args(args)
                .arg(path)
                .arg(path)
                .status()
                .unwrap();
            assert!(status.success(), "mount {args:?} failed");
        }
        ReadOnlyBind {
            path: path.to_path_buf(),
        }
    }
}

impl Drop for ReadOnlyBind {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.path).status();
    }
}
