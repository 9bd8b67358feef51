//! Files instead of text: every format of one manuscript (generated from one source with
//! pandoc, LibreOffice and iconv; see tests/fixtures/files/README.md) checked as multipart
//! uploads answers like its plain text; each kind of bad file answers its own code; files
//! uploaded to a library and imported from a folder or a ZIP become documents.

use std::io::Write;

use axum::http::StatusCode;
use serde_json::{Value, json};

use dupfinder::library::{DocumentInput, FileSource, IdValue, NewLibrary, import_files};

use crate::support::{app, catalog, catalog_with, corpus, error_code, json_request, send};

const BOUNDARY: &str = "dupfinder-test-boundary";

fn file_bytes(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/files/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A multipart body: each part is (part name, file name, bytes).
pub(crate) fn multipart(parts: &[(&str, Option<&str>, &[u8])]) -> Vec<u8> {
    let mut body = Vec::new();
    for (name, file_name, bytes) in parts {
        write!(
            body,
            "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\""
        )
        .unwrap();
        if let Some(file_name) = file_name {
            write!(
                body,
                "; filename=\"{file_name}\"\r\nContent-Type: application/octet-stream"
            )
            .unwrap();
        }
        body.extend_from_slice(b"\r\n\r\n");
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    write!(body, "--{BOUNDARY}--\r\n").unwrap();
    body
}

pub(crate) fn content_type() -> String {
    format!("multipart/form-data; boundary={BOUNDARY}")
}

async fn upload_check(
    app: &axum::Router,
    name: &str,
    options: Option<&str>,
) -> (StatusCode, Value) {
    let bytes = file_bytes(name);
    let mut parts: Vec<(&str, Option<&str>, &[u8])> = vec![("file", Some(name), &bytes)];
    if let Some(options) = options {
        parts.push(("options", None, options.as_bytes()));
    }
    send(
        app,
        "POST",
        "/api/v1/check",
        &content_type(),
        multipart(&parts),
    )
    .await
}

/// The fixture corpus as library `fx`; the manuscript copies `ru-01`.
fn corpus_library(catalog: &dupfinder::library::Catalog) {
    catalog
        .create(NewLibrary {
            id: "fx".to_string(),
            ..Default::default()
        })
        .unwrap();
    let lines = corpus()
        .into_iter()
        .enumerate()
        .map(|(i, d)| {
            let input = DocumentInput {
                id: Some(IdValue::Text(d["id"].as_str().unwrap().to_string())),
                title: d["title"].as_str().map(str::to_string),
                text: d["text"].as_str().map(str::to_string),
                lang: d["lang"].as_str().map(str::to_string),
                ..Default::default()
            };
            (i + 1, Ok(input))
        })
        .collect();
    let report = catalog.ingest("fx", lines).unwrap();
    assert!(report.rejected.is_empty(), "{:?}", report.rejected);
}

/// A passage: its start and end in the library document, and its words in the query.
type PassageFinding = (u64, u64, String);
/// The verdict, and per match its document and passages.
type Findings = (String, Vec<(String, Vec<PassageFinding>)>);

/// What must agree between formats: the verdict, and per match its document and each passage's
/// place in the library document and its words in the query (white space aside).
fn findings(answer: &Value) -> Findings {
    let text: Vec<char> = answer["text"].as_str().unwrap().chars().collect();
    let matches = answer["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let passages = m["passages"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    let start = p["query"]["start"].as_u64().unwrap() as usize;
                    let end = p["query"]["end"].as_u64().unwrap() as usize;
                    let words: String = text[start..end].iter().collect();
                    let words = words.split_whitespace().collect::<Vec<_>>().join(" ");
                    (
                        p["doc"]["start"].as_u64().unwrap(),
                        p["doc"]["end"].as_u64().unwrap(),
                        words,
                    )
                })
                .collect();
            (m["doc_id"].as_str().unwrap().to_string(), passages)
        })
        .collect();
    (answer["verdict"].as_str().unwrap().to_string(), matches)
}

#[tokio::test]
async fn every_format_of_a_manuscript_answers_like_its_plain_text() {
    let (_dir, catalog) = catalog();
    corpus_library(&catalog);
    let app = app(catalog);
    let options = Some(r#"{"passages": true}"#);
    let (status, plain) = upload_check(&app, "manuscript.txt", options).await;
    assert_eq!(status, StatusCode::OK, "{plain}");
    assert_eq!(plain["document"]["format"], "text");
    let expected = findings(&plain);
    assert_eq!(
        expected.1[0].0, "ru-01",
        "the manuscript copies ru-01: {plain}"
    );
    assert!(!expected.1[0].1.is_empty(), "passages are reported");

    for (name, format, pages) in [
        ("manuscript.pdf", "pdf", json!(1)),
        ("manuscript.docx", "docx", Value::Null),
        ("manuscript.odt", "odt", Value::Null),
        ("manuscript.rtf", "rtf", Value::Null),
        ("manuscript.html", "html", Value::Null),
        ("manuscript.jats.xml", "jats", Value::Null),
        ("manuscript.cp1251.txt", "text", Value::Null),
        ("manuscript.koi8r.txt", "text", Value::Null),
        ("manuscript.utf16.txt", "text", Value::Null),
    ] {
        let (status, answer) = upload_check(&app, name, options).await;
        assert_eq!(status, StatusCode::OK, "{name}: {answer}");
        assert_eq!(answer["document"]["name"], name);
        assert_eq!(answer["document"]["format"], format, "{name}");
        assert_eq!(answer["document"]["pages"], pages, "{name}");
        let words = answer["document"]["words"].as_u64().unwrap();
        assert!((190..=205).contains(&words), "{name}: {words} words");
        assert_eq!(
            findings(&answer),
            expected,
            "{name} answers like the plain text"
        );
    }
}

#[tokio::test]
async fn the_format_is_told_by_content_not_by_name() {
    let (_dir, catalog) = catalog();
    corpus_library(&catalog);
    let app = app(catalog);
    let bytes = file_bytes("manuscript.pdf");
    let body = multipart(&[("file", Some("manuscript.docx"), &bytes)]);
    let (status, answer) = send(&app, "POST", "/api/v1/check", &content_type(), body).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["document"]["format"], "pdf");
    assert_eq!(answer["verdict"], "duplicate");
}

#[tokio::test]
async fn each_bad_file_answers_its_code() {
    // The zip bomb unpacks to 64 MB; the default bound is 32 MB.
    let (_dir, catalog) = catalog();
    let app = app(catalog);
    for (name, status, code, says) in [
        (
            "truncated.pdf",
            StatusCode::UNPROCESSABLE_ENTITY,
            "unreadable_document",
            "truncated",
        ),
        (
            "encrypted.pdf",
            StatusCode::UNPROCESSABLE_ENTITY,
            "unreadable_document",
            "password",
        ),
        (
            "empty.pdf",
            StatusCode::UNPROCESSABLE_ENTITY,
            "unreadable_document",
            "empty",
        ),
        (
            "zipbomb.docx",
            StatusCode::PAYLOAD_TOO_LARGE,
            "document_too_large",
            "max_decompressed_bytes",
        ),
        (
            "image.png",
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "PNG",
        ),
        (
            "scan.pdf",
            StatusCode::UNPROCESSABLE_ENTITY,
            "no_text_layer",
            "OCR",
        ),
    ] {
        let (got, body) = upload_check(&app, name, None).await;
        assert_eq!(got, status, "{name}: {body}");
        assert_eq!(error_code(&body), code, "{name}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{name}: {message}");
        assert!(
            message.starts_with(name),
            "the message names the file: {message}"
        );
    }
}

/// Whether poppler's pdftotext is installed (`.ci/run` installs poppler-utils).
fn pdftotext_installed() -> bool {
    std::process::Command::new("pdftotext")
        .arg("-v")
        .output()
        .is_ok()
}

#[tokio::test]
async fn a_pdf_the_built_in_reader_cannot_interpret_is_read_by_pdftotext_or_refused_clearly() {
    // Without the second reader: pdf-extract panics on a page without a MediaBox and on a
    // damaged font map; the panics are caught and answered.
    let (_dir, off) = catalog_with(|config| config.extract.pdftotext = String::new());
    let without = app(off);
    for name in ["no_mediabox.pdf", "damaged_font_map.pdf"] {
        let (status, body) = upload_check(&without, name, None).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{name}: {body}");
        assert_eq!(error_code(&body), "unreadable_document", "{name}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains("damaged"), "{name}: {message}");
    }

    // With it, the damaged font map's page is read; a damaged file stays refused.
    let (_dir2, on) = catalog();
    let with = app(on);
    let (status, body) = upload_check(&with, "damaged_font_map.pdf", None).await;
    if pdftotext_installed() {
        assert_eq!(status, StatusCode::OK, "{body}");
        assert!(
            body["text"]
                .as_str()
                .unwrap()
                .contains("loop fusion and cost models"),
            "{body}"
        );
        assert_eq!(body["document"]["pages"], 1);
    } else {
        assert_eq!(error_code(&body), "unreadable_document", "{body}");
    }
    let (_, body) = upload_check(&with, "truncated.pdf", None).await;
    assert_eq!(error_code(&body), "unreadable_document", "{body}");
}

#[tokio::test]
async fn page_bound_and_malformed_multipart_bodies_have_their_codes() {
    let (_dir, catalog) = catalog_with(|config| config.extract.max_pages = 0);
    let app = app(catalog);
    let (status, body) = upload_check(&app, "manuscript.pdf", None).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{body}");
    assert_eq!(error_code(&body), "too_many_pages");

    let options_only = multipart(&[("options", None, b"{}")]);
    let (status, body) = send(&app, "POST", "/api/v1/check", &content_type(), options_only).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(error_code(&body), "missing_file");

    let text = file_bytes("manuscript.txt");
    let stray = multipart(&[("file", Some("m.txt"), &text), ("colour", None, b"blue")]);
    let (_, body) = send(&app, "POST", "/api/v1/check", &content_type(), stray).await;
    assert_eq!(error_code(&body), "invalid_body");

    let (_, body) = upload_check(&app, "manuscript.txt", Some(r#"{"text": "x"}"#)).await;
    assert_eq!(error_code(&body), "invalid_body");
    let (_, body) = upload_check(&app, "manuscript.txt", Some("{not json")).await;
    assert_eq!(error_code(&body), "invalid_json");
    // The options are read before the file: bad ones are answered without extracting it (this
    // PDF has more pages than `max_pages` allows).
    let options = Some(r#"{"min_similarity": "x"}"#);
    let (_, body) = upload_check(&app, "manuscript.pdf", options).await;
    assert_eq!(error_code(&body), "invalid_json", "{body}");
}

#[tokio::test]
async fn files_uploaded_to_a_library_become_documents_with_their_titles() {
    let (_dir, catalog) = catalog();
    let app = app(catalog);
    let (status, _) = json_request(&app, "POST", "/api/v1/libraries", json!({"id": "up"})).await;
    assert_eq!(status, StatusCode::CREATED);
    let docx = file_bytes("manuscript.docx");
    let jats = file_bytes("manuscript.jats.xml");
    let body = multipart(&[
        ("file", Some("dir/manuscript.docx"), &docx),
        ("file", Some("manuscript.jats.xml"), &jats),
    ]);
    let (status, report) = send(
        &app,
        "POST",
        "/api/v1/libraries/up/documents",
        &content_type(),
        body,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{report}");
    assert_eq!(report["accepted"], 2);
    let (status, document) = json_request(
        &app,
        "GET",
        "/api/v1/libraries/up/documents/manuscript.docx",
        Value::Null,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{document}");
    assert_eq!(
        document["title"],
        "Наблюдение за работниками и судебная практика"
    );
    assert!(
        document["text"]
            .as_str()
            .unwrap()
            .contains("Настоящая статья рассматривает")
    );

    let png = file_bytes("image.png");
    let body = multipart(&[("file", Some("image.png"), &png)]);
    let (status, body) = send(
        &app,
        "POST",
        "/api/v1/libraries/up/documents",
        &content_type(),
        body,
    )
    .await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(error_code(&body), "unsupported_media_type");
}

#[test]
fn a_folder_and_a_zip_of_files_are_imported_with_relative_paths_as_ids() {
    let (dir, catalog) = catalog();
    let folder = dir.path().join("papers");
    std::fs::create_dir_all(folder.join("2024")).unwrap();
    std::fs::write(
        folder.join("2024/manuscript.pdf"),
        file_bytes("manuscript.pdf"),
    )
    .unwrap();
    std::fs::write(folder.join("manuscript.odt"), file_bytes("manuscript.odt")).unwrap();
    std::fs::write(folder.join("image.png"), file_bytes("image.png")).unwrap();
    std::fs::write(folder.join(".hidden"), b"not a paper").unwrap();
    let source = FileSource::open(&folder).unwrap();
    assert_eq!(source.len(), 3, "hidden files are skipped");
    let summary = import_files(&catalog, "folder", &source, &()).unwrap();
    assert_eq!(summary.accepted, 2, "{summary:?}");
    assert_eq!(summary.rejected.len(), 1);
    assert_eq!(summary.rejected[0].file, "image.png");
    assert_eq!(summary.rejected[0].error.code, "unsupported_media_type");
    let index = catalog.index("folder").unwrap();
    let pdf = index
        .document("2024/manuscript.pdf")
        .unwrap()
        .expect("stored under its path");
    assert_eq!(
        pdf.meta.title.as_deref(),
        Some("Наблюдение за работниками и судебная практика")
    );

    let zip_path = dir.path().join("papers.zip");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&zip_path).unwrap());
    let options = zip::write::SimpleFileOptions::default();
    zip.start_file("a/manuscript.rtf", options).unwrap();
    zip.write_all(&file_bytes("manuscript.rtf")).unwrap();
    zip.start_file("b/manuscript.cp1251.txt", options).unwrap();
    zip.write_all(&file_bytes("manuscript.cp1251.txt")).unwrap();
    zip.start_file("b/scan.pdf", options).unwrap();
    zip.write_all(&file_bytes("scan.pdf")).unwrap();
    zip.finish().unwrap();
    let source = FileSource::open(&zip_path).unwrap();
    let summary = import_files(&catalog, "zipped", &source, &()).unwrap();
    assert_eq!(summary.accepted, 2, "{summary:?}");
    assert_eq!(summary.rejected[0].file, "b/scan.pdf");
    assert_eq!(summary.rejected[0].error.code, "no_text_layer");
    let index = catalog.index("zipped").unwrap();
    assert!(index.document("a/manuscript.rtf").unwrap().is_some());
    let text = index
        .document("b/manuscript.cp1251.txt")
        .unwrap()
        .unwrap()
        .text;
    assert!(
        text.contains("Настоящая статья"),
        "decoded from Windows-1251: {text}"
    );
}

/// `dupfinder check FILE` and `dupfinder import FOLDER` on the command line: the format is told
/// from the content, HTML is stripped to its article text, and a bad file exits non-zero with its
/// code.
#[test]
fn the_command_line_checks_and_imports_files() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_dupfinder"))
            .arg("--data-dir")
            .arg(&data)
            .args(args)
            .output()
            .unwrap()
    };
    let folder = dir.path().join("library");
    std::fs::create_dir_all(&folder).unwrap();
    let source = corpus().into_iter().find(|d| d["id"] == "ru-01").unwrap();
    std::fs::write(folder.join("ru-01.txt"), source["text"].as_str().unwrap()).unwrap();
    let output = run(&["import", "--library", "cli", folder.to_str().unwrap()]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(summary["accepted"], 1);

    let fixtures = format!("{}/tests/fixtures/files", env!("CARGO_MANIFEST_DIR"));
    // One DOCX is one document, not a ZIP of its parts.
    let output = run(&[
        "import",
        "--library",
        "one",
        &format!("{fixtures}/manuscript.docx"),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        (summary["files"].clone(), summary["accepted"].clone()),
        (json!(1), json!(1))
    );

    for (name, format) in [("manuscript.pdf", "pdf"), ("manuscript.html", "html")] {
        let output = run(&[
            "check",
            "--library",
            "cli",
            "--passages",
            &format!("{fixtures}/{name}"),
        ]);
        assert!(
            output.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(answer["document"]["format"], format);
        assert_eq!(answer["verdict"], "duplicate", "{name}: {answer}");
        assert_eq!(answer["matches"][0]["doc_id"], "ru-01.txt");
        let text = answer["text"].as_str().unwrap();
        assert!(
            !text.contains('<') && text.contains("Настоящая статья"),
            "{name}: markup stripped: {text}"
        );
    }
    let output = run(&["check", &format!("{fixtures}/image.png")]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("unsupported_media_type"), "{stderr}");
}
