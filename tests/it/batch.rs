//! Batches: a hundred files in one request become a job with a report per file; a file that
//! cannot be read is a line with its error and the batch goes on; a `.zip` is a batch of its
//! entries; the summary comes as JSON and CSV.

use std::io::Write;
use std::net::SocketAddr;

use serde_json::{Value, json};

use crate::reindex::add_synthetic;
use crate::support::{catalog_with, serve_in_process, synthetic_text};

async fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let response = reqwest::get(format!("http://{addr}{path}")).await.unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

/// Follows job `job` until it is finished; answers its last status.
async fn finished(addr: SocketAddr, job: &str) -> Value {
    for _ in 0..1200 {
        let (status, body) = get(addr, &format!("/api/v1/jobs/{job}")).await;
        assert_eq!(status, 200, "{body}");
        let status: Value = serde_json::from_str(&body).unwrap();
        if ["done", "failed", "aborted"].contains(&status["state"].as_str().unwrap()) {
            return status;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("the batch {job} did not finish");
}

async fn send(addr: SocketAddr, form: reqwest::multipart::Form) -> (u16, Value) {
    let response = reqwest::Client::new()
        .post(format!("http://{addr}/api/v1/check"))
        .multipart(form)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_of_a_hundred_files_has_a_report_for_each_and_a_bad_file_does_not_stop_it() {
    let (_dir, catalog) = catalog_with(|_| {});
    add_synthetic(&catalog, "lib", 0, 20);
    let addr = serve_in_process(catalog.clone()).await;

    let mut form = reqwest::multipart::Form::new().text("options", r#"{"passages": true}"#);
    for n in 0..100u64 {
        let (name, bytes) = if n == 37 {
            // A PNG image: not a document.
            (
                "figure.png".to_string(),
                b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec(),
            )
        } else {
            // Every fifth file copies a library document; the others are new texts.
            let text = if n % 5 == 0 {
                synthetic_text(n % 20, 40 + (n as usize % 20 * 13) % 120)
            } else {
                synthetic_text(1_000 + n, 150)
            };
            (format!("paper-{n:03}.txt"), text.into_bytes())
        };
        form = form.part(
            "file",
            reqwest::multipart::Part::bytes(bytes).file_name(name),
        );
    }
    let (status, started) = send(addr, form).await;
    assert_eq!(status, 202, "{started}");
    assert_eq!(started["kind"], "batch");
    assert_eq!(started["total"], 100);
    let job = started["job"].as_str().unwrap();
    let status = finished(addr, job).await;
    assert_eq!(status["state"], "done", "{status}");
    assert_eq!(
        (status["done"].as_u64(), status["total"].as_u64()),
        (Some(100), Some(100))
    );

    let (code, body) = get(addr, &format!("/api/v1/jobs/{job}/reports?format=json")).await;
    assert_eq!(code, 200, "{body}");
    let summary: Value = serde_json::from_str(&body).unwrap();
    let items = summary["items"].as_array().unwrap();
    assert_eq!(items.len(), 100);
    for (n, item) in items.iter().enumerate() {
        if n == 37 {
            assert_eq!(item["file"], "figure.png");
            assert!(item["report_id"].is_null(), "{item}");
            assert_eq!(item["error"]["code"], "unsupported_media_type", "{item}");
            assert!(
                item["error"]["message"].as_str().unwrap().contains("PNG"),
                "{item}"
            );
            continue;
        }
        assert_eq!(item["file"], format!("paper-{n:03}.txt"));
        assert!(item["error"].is_null(), "{item}");
        let id = item["report_id"].as_str().unwrap();
        let expected = if n % 5 == 0 { "duplicate" } else { "original" };
        assert_eq!(item["verdict"], expected, "{item}");
        // Each report is kept and says what the line says.
        let (code, report) = get(addr, &format!("/api/v1/reports/{id}")).await;
        assert_eq!(code, 200, "{report}");
        let report: Value = serde_json::from_str(&report).unwrap();
        assert_eq!(report["file"], item["file"]);
        assert_eq!(report["verdict"], item["verdict"]);
        assert_eq!(report["similarity_index"], item["similarity_index"]);
    }

    let (code, csv) = get(addr, &format!("/api/v1/jobs/{job}/reports?format=csv")).await;
    assert_eq!(code, 200);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 101);
    assert_eq!(
        lines[0],
        "file,report_id,verdict,similarity_index,words,error_code,error_message"
    );
    assert!(
        lines[38].starts_with("figure.png,,,,,unsupported_media_type,"),
        "{}",
        lines[38]
    );
    let (code, _) = get(addr, &format!("/api/v1/jobs/{job}/reports?format=xml")).await;
    assert_eq!(code, 400);
}

/// A ZIP archive of `entries` (name, bytes).
pub(crate) fn zip(entries: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    let mut writer = zip::ZipWriter::new(&mut out);
    for (name, bytes) in entries {
        writer
            .start_file(*name, zip::write::SimpleFileOptions::default())
            .unwrap();
        writer.write_all(bytes).unwrap();
    }
    writer.finish().unwrap();
    out.into_inner()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_zip_named_anything_is_a_batch_of_its_entries_within_the_bounds() {
    let (_dir, catalog) = catalog_with(|config| config.batch.max_files = 3);
    add_synthetic(&catalog, "lib", 0, 10);
    let addr = serve_in_process(catalog.clone()).await;
    let archive = zip(&[
        ("a/one.txt", synthetic_text(2, 40 + 26).into_bytes()),
        ("two.txt", synthetic_text(5_000, 120).into_bytes()),
    ]);
    // Told by content: the name says PDF.
    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(archive).file_name("papers.pdf"),
    );
    let (status, started) = send(addr, form).await;
    assert_eq!(status, 202, "{started}");
    assert_eq!(started["total"], 2);
    let job = started["job"].as_str().unwrap();
    assert_eq!(finished(addr, job).await["state"], "done");
    let (_, body) = get(addr, &format!("/api/v1/jobs/{job}/reports")).await;
    let summary: Value = serde_json::from_str(&body).unwrap();
    let files: Vec<&str> = summary["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["file"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["a/one.txt", "two.txt"]);
    assert_eq!(summary["items"][0]["verdict"], "duplicate");

    let many = zip(&[
        ("1.txt", b"a".to_vec()),
        ("2.txt", b"b".to_vec()),
        ("3.txt", b"c".to_vec()),
        ("4.txt", b"d".to_vec()),
    ]);
    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(many).file_name("many.zip"),
    );
    let (status, refused) = send(addr, form).await;
    assert_eq!(
        (status, &refused["error"]["code"]),
        (413, &json!("too_many_files"))
    );
    // One ordinary file still answers at once.
    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(synthetic_text(3, 40 + 39).into_bytes())
            .file_name("one.txt"),
    );
    let (status, answer) = send(addr, form).await;
    assert_eq!(status, 200, "{answer}");
    assert!(answer["report_id"].is_string());
}

#[test]
fn a_batch_stopped_midway_resumes_at_the_next_start_and_checks_no_file_twice() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

    use dupfinder::batch::{BatchControl, BatchFile, BatchSettings, BatchState, run_batch};
    use dupfinder::check::CheckRequest;
    use dupfinder::library::{Catalog, JobTrigger, Jobs};

    let (dir, catalog) = catalog_with(|_| {});
    add_synthetic(&catalog, "lib", 0, 10);
    // Enough files that the stop comes well before the last.
    let files: Vec<BatchFile> = (0..40)
        .map(|n| BatchFile {
            name: format!("f{n}.txt"),
            bytes: synthetic_text(500 + n, 120).into_bytes(),
        })
        .collect();
    let settings = BatchSettings::of(&CheckRequest::new(""), true);
    let record = catalog
        .batches()
        .create("-".to_string(), settings, files)
        .unwrap();
    // The server stops once the first file is checked.
    let (cancel, stopping, done) = (
        AtomicBool::new(false),
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicU64::new(0)),
    );
    let watcher = {
        let (stopping, done) = (stopping.clone(), done.clone());
        std::thread::spawn(move || {
            while done.load(Ordering::SeqCst) == 0 {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            stopping.store(true, Ordering::SeqCst);
        })
    };
    let control = BatchControl {
        cancel: &cancel,
        stopping: &stopping,
        done: &done,
    };
    let state = run_batch(&catalog, &record.job, &control).unwrap();
    watcher.join().unwrap();
    let checked_before = catalog.batches().items(&record.job).unwrap().len();
    assert!(
        state == BatchState::Running && checked_before < 40,
        "{state:?} {checked_before}"
    );
    drop(catalog);

    // The next start: the batch is found and goes on.
    let mut config = dupfinder::config::Config::default();
    config.storage.data_dir = dir.path().to_path_buf();
    config.storage.writer_memory_mb = 15;
    let catalog = Arc::new(Catalog::open(&config).unwrap());
    let jobs = Jobs::new(catalog.clone());
    jobs.resume_unfinished();
    let mut status = jobs.get(&record.job).unwrap();
    for _ in 0..1200 {
        if status.state == dupfinder::library::JobState::Done {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
        status = jobs.get(&record.job).unwrap();
    }
    assert_eq!(status.trigger, JobTrigger::Resume);
    assert_eq!((status.done, status.total), (40, 40), "{status:?}");
    let items = catalog.batches().items(&record.job).unwrap();
    let names: Vec<String> = items.iter().map(|i| i.file.clone()).collect();
    let expected: Vec<String> = (0..40).map(|n| format!("f{n}.txt")).collect();
    assert_eq!(names, expected);
    // One report per file: none was checked twice.
    let (reports, _) = catalog.reports().list(&Default::default(), 100, 0).unwrap();
    assert_eq!(reports, 40);
    assert!(
        items
            .iter()
            .all(|i| i.report_id.is_some() && i.error.is_none())
    );
    // Known after a restart, finished: the job answers from the store.
    drop(jobs);
    let fresh = Jobs::new(catalog.clone());
    assert_eq!(
        fresh.get(&record.job).unwrap().state,
        dupfinder::library::JobState::Done
    );
}

#[test]
fn the_cli_checks_a_folder_and_prints_a_line_per_file_with_the_exit_code_of_the_worst() {
    let (dir, catalog) = catalog_with(|_| {});
    add_synthetic(&catalog, "lib", 0, 10);
    drop(catalog);
    let folder = dir.path().join("manuscripts");
    std::fs::create_dir_all(folder.join("sub")).unwrap();
    std::fs::write(folder.join("copy.txt"), synthetic_text(2, 66)).unwrap();
    std::fs::write(folder.join("sub/new.txt"), synthetic_text(9_000, 120)).unwrap();
    std::fs::write(folder.join("scan.png"), b"\x89PNG\r\n\x1a\n\0\0\0\r").unwrap();
    let run = |extra: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_dupfinder"))
            .arg("--data-dir")
            .arg(dir.path())
            .arg("check")
            .arg(&folder)
            .args(extra)
            .output()
            .unwrap()
    };
    let output = run(&["--format", "csv"]);
    let csv = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 4, "{csv}");
    assert!(lines[1].starts_with("copy.txt,,duplicate,"), "{csv}");
    assert!(
        lines[2].starts_with("scan.png,,,,,unsupported_media_type,"),
        "{csv}"
    );
    assert!(lines[3].starts_with("sub/new.txt,,original,"), "{csv}");
    // A file that could not be checked fails the run; a verdict at `--fail-on` says 4.
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(run(&["--fail-on", "duplicate"]).status.code(), Some(4));
}

#[tokio::test]
async fn a_batch_summary_is_its_senders_and_webhooks_are_the_admins() {
    use axum::http::StatusCode;
    use dupfinder::batch::{BatchFile, BatchSettings};
    use dupfinder::check::CheckRequest;
    use dupfinder::library::Role;

    use crate::support::{app, send_with_token};

    const ADMIN: &str = "admin-token-for-batches";
    let (_dir, catalog) = catalog_with(|config| {
        config.server.token = Some(ADMIN.to_string());
        config.webhooks.allow_private_networks = true;
    });
    let alice = catalog
        .keys()
        .create("alice", Role::Checker, None)
        .unwrap()
        .key;
    let bob = catalog
        .keys()
        .create("bob", Role::Checker, None)
        .unwrap()
        .key;
    let record = catalog
        .batches()
        .create(
            "alice".to_string(),
            BatchSettings::of(&CheckRequest::new(""), true),
            vec![BatchFile {
                name: "a.txt".into(),
                bytes: b"text".to_vec(),
            }],
        )
        .unwrap();
    let app = app(catalog);
    let uri = format!("/api/v1/jobs/{}/reports", record.job);
    for (key, expected) in [
        (Some(alice.as_str()), StatusCode::OK),
        (Some(bob.as_str()), StatusCode::NOT_FOUND),
        (None, StatusCode::UNAUTHORIZED),
        (Some(ADMIN), StatusCode::OK),
    ] {
        let (status, body) = send_with_token(&app, "GET", &uri, key, Value::Null).await;
        assert_eq!(status, expected, "{key:?}: {body}");
    }

    let hook = json!({"url": "http://127.0.0.1:9/hook", "secret": "sixteen characters", "events": ["report.completed"]});
    let (status, _) =
        send_with_token(&app, "POST", "/api/v1/webhooks", Some(&alice), hook.clone()).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, created) =
        send_with_token(&app, "POST", "/api/v1/webhooks", Some(ADMIN), hook).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let (status, _) = send_with_token(&app, "GET", "/api/v1/webhooks", None, Value::Null).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}
