//! Hostile load: requests built to make the server do much work for little, or to leave it
//! doing work nobody waits for.

use dupfinder::check::CheckRequest;
use dupfinder::library::check;
use dupfinder::library::{
    DocumentError, DocumentInput, IdValue, LibraryError, NewLibrary, import_file,
};
use serde_json::json;

use crate::support::{
    app, catalog, catalog_with, error_code, json_request, start_server, synthetic_text,
};

/// A catalog with one library `lib` holding one document, `source`, of `text`.
fn one_document_library(
    text: &str,
) -> (
    tempfile::TempDir,
    std::sync::Arc<dupfinder::library::Catalog>,
) {
    let (dir, catalog) = catalog();
    catalog
        .create(NewLibrary {
            id: "lib".to_string(),
            ..Default::default()
        })
        .unwrap();
    let input = DocumentInput {
        id: Some(IdValue::Text("source".to_string())),
        text: Some(text.to_string()),
        lang: Some("en".to_string()),
        ..Default::default()
    };
    let report = catalog.ingest("lib", vec![(1, Ok(input))]).unwrap();
    assert!(report.rejected.is_empty(), "{:?}", report.rejected);
    (dir, catalog)
}

#[tokio::test]
async fn a_library_named_many_times_is_checked_once() {
    let text = synthetic_text(7, 120);
    let (_dir, catalog) = one_document_library(&text);
    let mut request = CheckRequest::new(text.clone());
    request.libraries = Some(vec!["lib".to_string(); 64]);
    let report = check(&catalog, &request).unwrap();
    assert_eq!(report.matches.len(), 1, "{:#?}", report.matches);

    let app = app(catalog);
    let (status, body) = json_request(
        &app,
        "POST",
        "/api/v1/check",
        json!({"text": text, "libraries": ["lib", "lib", "lib"]}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["matches"].as_array().unwrap().len(), 1, "{body}");
}

/// A check is refused with `422 work_budget_exceeded` once it would verify more candidates,
/// find more passages or take more verification steps than `[check]` allows one check; within
/// the budget the same check is answered.
#[tokio::test]
async fn a_check_past_its_work_budget_is_refused() {
    let sources: Vec<String> = (0..3).map(|i| synthetic_text(40 + i, 150)).collect();
    // Every source copied into the text, the first one twice (two passages).
    let text = format!(
        "{} {} {}",
        sources.join(" "),
        synthetic_text(90, 60),
        sources[0]
    );
    let answer = |adjust: fn(&mut dupfinder::config::Config)| {
        let (dir, catalog) = catalog_with(adjust);
        catalog
            .create(NewLibrary {
                id: "lib".to_string(),
                ..Default::default()
            })
            .unwrap();
        let lines = sources
            .iter()
            .enumerate()
            .map(|(i, source)| document(format!("s{i}"), source.clone()))
            .collect();
        catalog.ingest("lib", lines).unwrap();
        let text = text.clone();
        async move {
            let (status, body) = json_request(
                &app(catalog),
                "POST",
                "/api/v1/check",
                json!({"text": text}),
            )
            .await;
            drop(dir);
            (status.as_u16(), body)
        }
    };
    let (status, body) = answer(|_| {}).await;
    assert_eq!(status, 200, "{body}");
    assert!(body["matches"].as_array().unwrap().len() >= 2, "{body}");

    let refusals: [fn(&mut dupfinder::config::Config); 3] = [
        |c| c.check.max_checked_candidates = 1,
        |c| c.check.max_passages = 1,
        // Fewer steps than two candidates take (one per shingle of the text each).
        |c| c.check.max_verification_steps = 1_000,
    ];
    for (adjust, key) in refusals.into_iter().zip([
        "max_checked_candidates",
        "max_passages",
        "max_verification_steps",
    ]) {
        let (status, body) = answer(adjust).await;
        assert_eq!(
            (status, error_code(&body)),
            (422, "work_budget_exceeded"),
            "{key}: {body}"
        );
        assert!(
            body["error"]["message"].as_str().unwrap().contains(key),
            "{body}"
        );
    }
}

/// `POST /api/v1/libraries/{id}/writer` reopens a library's writers at their last commit and
/// answers the library; the library keeps its documents and takes writes after it.
#[tokio::test]
async fn an_operator_reopens_a_librarys_writer() {
    let text = synthetic_text(3, 120);
    let (_dir, catalog) = one_document_library(&text);
    let app = app(catalog);
    let (status, body) =
        json_request(&app, "POST", "/api/v1/libraries/lib/writer", json!(null)).await;
    assert_eq!(
        (status.as_u16(), &body["id"]),
        (200, &json!("lib")),
        "{body}"
    );
    assert_eq!(body["documents"], 1, "{body}");
    let (status, body) =
        json_request(&app, "POST", "/api/v1/libraries/nope/writer", json!(null)).await;
    assert_eq!(
        (status.as_u16(), error_code(&body)),
        (404, "library_not_found"),
        "{body}"
    );
    let (status, body) = json_request(
        &app,
        "POST",
        "/api/v1/libraries/lib/documents",
        json!({"id": "second", "text": synthetic_text(4, 120), "lang": "en"}),
    )
    .await;
    assert_eq!(status.as_u16(), 200, "{body}");
}

/// A long text that repeats a library's document many times has a passage in every
/// repetition; each passage must point at a copy of the document in the query.
#[test]
fn every_passage_of_a_long_repeated_text_points_at_a_copy() {
    let source = synthetic_text(11, 80);
    let (_dir, catalog) = one_document_library(&source);
    let separator = " Иная вставка между копиями. ";
    let query = std::iter::repeat_n(source.as_str(), 400)
        .collect::<Vec<_>>()
        .join(separator);
    let mut request = CheckRequest::new(query.clone());
    request.passages = true;
    let report = check(&catalog, &request).unwrap();
    let passages = report.matches[0].passages.as_ref().unwrap();
    assert!(passages.len() >= 300, "{} passages", passages.len());
    let chars: Vec<char> = query.chars().collect();
    let source_chars = source.chars().count();
    for passage in passages {
        let found: String = chars[passage.query.start..passage.query.end]
            .iter()
            .collect();
        assert!(source.contains(&found), "{passage:?}: {found}");
        assert!(passage.doc.end <= source_chars, "{passage:?}");
        let copy: String = source
            .chars()
            .skip(passage.doc.start)
            .take(passage.doc.end - passage.doc.start)
            .collect();
        assert_eq!(found, copy, "{passage:?}");
    }
}

fn document(id: String, text: String) -> (usize, Result<DocumentInput, DocumentError>) {
    let input = DocumentInput {
        id: Some(IdValue::Text(id)),
        text: Some(text),
        lang: Some("en".to_string()),
        ..Default::default()
    };
    (1, Ok(input))
}

fn old_documents(batch: &[String]) -> Vec<(usize, Result<DocumentInput, DocumentError>)> {
    batch
        .iter()
        .enumerate()
        .map(|(i, text)| document(format!("old-{i}"), text.clone()))
        .collect()
}

/// A library deleted and created again while a large write to it runs: the write lands whole
/// (in the old library, or in the new one when it reached the library after the new one was
/// created) or is answered `library_not_found`; it never fails otherwise, never stops the new
/// library's writer, and never damages the new library. Twenty trials, the delete landing at a
/// different moment of the write each time (spread over the time one such write takes here).
#[test]
fn a_library_deleted_and_created_again_during_a_write_starts_clean() {
    let (_dir, catalog) = catalog();
    let batch: Vec<String> = (0..400).map(|i| synthetic_text(i, 60)).collect();
    catalog
        .create(NewLibrary {
            id: "pace".to_string(),
            ..Default::default()
        })
        .unwrap();
    let started = std::time::Instant::now();
    catalog.ingest("pace", old_documents(&batch)).unwrap();
    let one_write = started.elapsed();
    for trial in 0..20u32 {
        catalog
            .create(NewLibrary {
                id: "lib".to_string(),
                ..Default::default()
            })
            .unwrap();
        let writer = {
            let catalog = catalog.clone();
            let lines = old_documents(&batch);
            std::thread::spawn(move || catalog.ingest("lib", lines))
        };
        std::thread::sleep(one_write * trial / 20);
        catalog.delete("lib").unwrap();
        catalog
            .create(NewLibrary {
                id: "lib".to_string(),
                ..Default::default()
            })
            .unwrap();
        match writer.join().unwrap() {
            Ok(report) => assert_eq!(report.accepted, batch.len(), "trial {trial}"),
            Err(LibraryError::Backend(dupfinder::storage::BackendError::NotFound(_))) => {}
            Err(e) => panic!("trial {trial}: the write failed with {e:?}"),
        }
        let fresh = catalog
            .ingest(
                "lib",
                vec![document("new".to_string(), synthetic_text(999, 60))],
            )
            .unwrap_or_else(|e| panic!("trial {trial}: the new library refused a write: {e:?}"));
        assert_eq!(fresh.accepted, 1);
        let info = catalog.describe("lib").unwrap();
        assert!(
            [1, 1 + batch.len() as u64].contains(&info.documents),
            "trial {trial}: {info:?}"
        );
        let index = catalog.index("lib").unwrap();
        assert!(
            index.view().document("new").unwrap().is_some(),
            "trial {trial}"
        );
        catalog.delete("lib").unwrap();
    }
}

fn gzip(path: &std::path::Path, write: impl FnOnce(&mut dyn std::io::Write)) {
    let file = std::fs::File::create(path).unwrap();
    let mut encoder = flate2::write::GzEncoder::new(file, flate2::Compression::fast());
    write(&mut encoder);
    encoder.finish().unwrap();
}

/// A gzip holding one enormous line (here 64 MB of an unterminated JSON string, 64 KB
/// compressed) is rejected as too large while it is read, not read whole first; the next
/// line is imported.
#[test]
fn an_enormous_line_in_a_gzip_is_rejected_while_read() {
    let (dir, catalog) = catalog_with(|c| c.limits.max_text_bytes = 100_000);
    let path = dir.path().join("bomb.jsonl.gz");
    gzip(&path, |out| {
        out.write_all(br#"{"id":"bomb","text":""#).unwrap();
        let chunk = vec![b'a'; 1 << 20];
        for _ in 0..64 {
            out.write_all(&chunk).unwrap();
        }
        out.write_all(b"\n").unwrap();
        let good = json!({"id": "good", "text": synthetic_text(5, 60), "lang": "en"});
        writeln!(out, "{good}").unwrap();
    });
    let summary = import_file(&catalog, "lib", &path, &()).unwrap();
    assert_eq!(summary.accepted, 1);
    assert_eq!(summary.rejected.len(), 1, "{:?}", summary.rejected);
    assert_eq!(summary.rejected[0].line, 1);
    assert_eq!(summary.rejected[0].error.code, "text_too_large");
}

/// Millions of rejected lines are counted, but only the first ones are kept and printed.
#[test]
fn rejections_kept_are_bounded_and_all_are_counted() {
    let (dir, catalog) = catalog();
    let path = dir.path().join("junk.jsonl.gz");
    gzip(&path, |out| {
        for _ in 0..5_000 {
            out.write_all(b"{\n").unwrap();
        }
        let good = json!({"id": "good", "text": synthetic_text(5, 60), "lang": "en"});
        writeln!(out, "{good}").unwrap();
    });
    let summary = import_file(&catalog, "lib", &path, &()).unwrap();
    assert_eq!(summary.accepted, 1);
    assert!(
        summary.rejected.len() <= 1_000,
        "{} kept",
        summary.rejected.len()
    );
    assert_eq!(summary.rejected_lines, 5_000);
    assert_eq!(summary.rejected[0].line, 1);
}

/// A check whose body trickles in is answered `408 body_timeout` as SECURITY.md says, not
/// `503 timeout`: the time to answer starts once the body has arrived.
#[tokio::test]
async fn a_check_body_that_never_ends_is_a_body_timeout() {
    use futures_util::StreamExt;
    use tower::ServiceExt;

    let (_dir, catalog) = catalog_with(|c| {
        c.limits.request_timeout_ms = 100;
        c.limits.body_timeout_ms = 400;
    });
    let app = app(catalog);
    let first = futures_util::stream::once(async {
        Ok::<_, std::io::Error>(axum::body::Bytes::from_static(b"{\"text\": \"abc"))
    });
    let body = axum::body::Body::from_stream(first.chain(futures_util::stream::pending()));
    let request = axum::http::Request::builder()
        .method("POST")
        .uri("/api/v1/check")
        .header("content-type", "application/json")
        .body(body)
        .unwrap();
    let response = app.oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = http_body_util::BodyExt::collect(response.into_body())
        .await
        .unwrap()
        .to_bytes();
    let body: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!((status.as_u16(), error_code(&body)), (408, "body_timeout"));
}

/// The server holds at most `limits.max_connections` connections: one more waits, unanswered,
/// until another closes (connections need no token, and enough of them exhausted the
/// process's file descriptors, which then failed writes).
#[test]
fn connections_past_the_limit_wait_until_one_closes() {
    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::time::Duration;

    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("dupfinder.toml");
    std::fs::write(&config, "[limits]\nmax_connections = 2\n").unwrap();
    let server = start_server(
        &dir.path().join("data"),
        &[("DUPFINDER_CONFIG", config.to_str().unwrap())],
    );
    let request = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
    let answer = |stream: &mut TcpStream, wait: Duration| -> std::io::Result<String> {
        stream.set_read_timeout(Some(wait))?;
        let mut head = [0u8; 12];
        stream.read_exact(&mut head)?;
        Ok(String::from_utf8_lossy(&head).to_string())
    };
    // Two connections take both places; the first is known to be held once it has answered.
    let mut first = TcpStream::connect(server.addr).unwrap();
    first
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .unwrap();
    assert_eq!(
        answer(&mut first, Duration::from_secs(30)).unwrap(),
        "HTTP/1.1 200"
    );
    let mut second = TcpStream::connect(server.addr).unwrap();
    second
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .unwrap();
    assert_eq!(
        answer(&mut second, Duration::from_secs(30)).unwrap(),
        "HTTP/1.1 200"
    );

    let mut third = TcpStream::connect(server.addr).unwrap();
    third.write_all(request).unwrap();
    let early = answer(&mut third, Duration::from_millis(500));
    assert!(early.is_err(), "a third connection was served: {early:?}");
    drop(first);
    assert_eq!(
        answer(&mut third, Duration::from_secs(30)).unwrap(),
        "HTTP/1.1 200"
    );
    drop(second);
}

/// A client that sends half of its headers and waits is disconnected after
/// `[server] header_read_timeout_ms`, so it cannot hold a connection place for long. (Before the
/// timeout existed the connection stayed open and the read below ran into its own guard.)
#[test]
fn a_client_sending_half_its_headers_is_disconnected() {
    use std::io::{ErrorKind, Read, Write};
    use std::net::TcpStream;
    use std::time::Duration;

    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("dupfinder.toml");
    std::fs::write(&config, "[server]\nheader_read_timeout_ms = 300\n").unwrap();
    let server = start_server(
        &dir.path().join("data"),
        &[("DUPFINDER_CONFIG", config.to_str().unwrap())],
    );
    let mut stream = TcpStream::connect(server.addr).unwrap();
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: te")
        .unwrap();
    // A guard against a test that never ends; far longer than the configured timeout.
    stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .unwrap();
    let mut answered = Vec::new();
    match stream.read_to_end(&mut answered) {
        Ok(_) => {}
        Err(e) if e.kind() == ErrorKind::ConnectionReset => {}
        Err(e) => panic!("the connection stayed open: {e}"),
    }
    assert!(
        !String::from_utf8_lossy(&answered).contains(" 200 "),
        "half a request was answered: {}",
        String::from_utf8_lossy(&answered)
    );
    // The server goes on serving whole requests.
    let mut whole = TcpStream::connect(server.addr).unwrap();
    whole
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut answer = String::new();
    whole.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

/// A re-index of a library that is deleted and created again meanwhile works on the old
/// library's files only: the new library keeps exactly what was written to it, and takes
/// writes after the job has ended.
#[test]
fn a_reindex_of_a_deleted_library_never_writes_into_the_new_one() {
    use dupfinder::library::{JobTrigger, Jobs};

    let (_dir, catalog) = catalog();
    let batch: Vec<String> = (0..600).map(|i| synthetic_text(i + 1_000, 60)).collect();
    let jobs = Jobs::new(catalog.clone());
    for trial in 0..5 {
        catalog
            .create(NewLibrary {
                id: "lib".to_string(),
                ..Default::default()
            })
            .unwrap();
        catalog.ingest("lib", old_documents(&batch)).unwrap();
        let job = jobs.start_reindex("lib", JobTrigger::Request).unwrap();
        catalog.delete("lib").unwrap();
        catalog
            .create(NewLibrary {
                id: "lib".to_string(),
                ..Default::default()
            })
            .unwrap();
        let fresh = vec![document("new".to_string(), synthetic_text(999, 60))];
        catalog.ingest("lib", fresh).unwrap();
        while jobs
            .get(&job.job)
            .is_some_and(|status| status.finished_at.is_none())
        {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let more = vec![document("more".to_string(), synthetic_text(998, 60))];
        catalog
            .ingest("lib", more)
            .unwrap_or_else(|e| panic!("trial {trial}: the new library refused a write: {e:?}"));
        let info = catalog.describe("lib").unwrap();
        assert_eq!(info.documents, 2, "trial {trial}: {info:?}");
        let index = catalog.index("lib").unwrap();
        for id in ["new", "more"] {
            assert!(
                index.view().document(id).unwrap().is_some(),
                "trial {trial}: {id}"
            );
        }
        catalog.delete("lib").unwrap();
    }
}

/// Deleting a library stops its re-index first: once `DELETE` has answered, no job of the
/// library is still running.
#[tokio::test]
async fn deleting_a_library_stops_its_reindex_first() {
    let (_dir, catalog) = catalog();
    catalog
        .create(NewLibrary {
            id: "lib".to_string(),
            ..Default::default()
        })
        .unwrap();
    let batch: Vec<String> = (0..1_500).map(|i| synthetic_text(i + 5_000, 60)).collect();
    catalog.ingest("lib", old_documents(&batch)).unwrap();
    let app = app(catalog);
    let (status, job) =
        json_request(&app, "POST", "/api/v1/libraries/lib/reindex", json!({})).await;
    assert_eq!(status, 202, "{job}");
    let (status, body) = json_request(&app, "DELETE", "/api/v1/libraries/lib", json!({})).await;
    assert_eq!(status, 204, "{body}");
    let uri = format!("/api/v1/jobs/{}", job["job"].as_str().unwrap());
    let (status, job) = json_request(&app, "GET", &uri, json!({})).await;
    assert_eq!(status, 200, "{job}");
    assert_ne!(job["state"], "running", "{job}");
}
