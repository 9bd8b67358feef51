//! One file checked three ways — `POST /api/v1/check` with the file, a batch holding it, and
//! `dupfinder check` on the data directory — gets the same verdict, figures and flags: all
//! three check a file through `library::check_file`. Regression: a batch's report once lacked
//! the `hidden_text` flag, which only the API added.

use std::net::SocketAddr;

use lopdf::content::{Content, Operation};
use lopdf::{Document, Object, Stream, dictionary};
use serde_json::{Value, json};

use crate::batch::zip;
use crate::reindex::add_synthetic;
use crate::support::{catalog_with, serve_in_process, synthetic_text};

/// A one-page PDF showing `visible` (eight words a line, Helvetica 12 pt), then words drawn
/// white (10 letters) and words drawn invisibly (render mode 7, 6 letters).
fn pdf_with_hidden_text(visible: &str) -> Vec<u8> {
    let words: Vec<&str> = visible.split_whitespace().collect();
    let mut runs: Vec<(i64, f32, String)> = words
        .chunks(8)
        .map(|line| (0, 0.0, line.join(" ")))
        .collect();
    runs.push((0, 1.0, "white words".to_string()));
    runs.push((7, 0.0, "unseen".to_string()));
    let mut operations = Vec::new();
    for (line, (mode, gray, text)) in runs.iter().enumerate() {
        operations.extend([
            Operation::new("BT", vec![]),
            Operation::new("Tf", vec![Object::Name(b"F1".to_vec()), 12.into()]),
            Operation::new("Tr", vec![(*mode).into()]),
            Operation::new("g", vec![(*gray).into()]),
            Operation::new("Td", vec![72.into(), (780 - 16 * line as i64).into()]),
            Operation::new("Tj", vec![Object::string_literal(text.as_str())]),
            Operation::new("ET", vec![]),
        ]);
    }
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font_id = doc.add_object(dictionary! {
        "Type" => "Font",
        "Subtype" => "Type1",
        "BaseFont" => "Helvetica",
        "Encoding" => "WinAnsiEncoding",
    });
    let content = Content { operations }.encode().unwrap();
    let content_id = doc.add_object(Stream::new(dictionary! {}, content));
    let page_id = doc.add_object(dictionary! {
        "Type" => "Page",
        "Parent" => pages_id,
        "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
        "Contents" => content_id,
        "Resources" => dictionary! { "Font" => dictionary! { "F1" => font_id } },
    });
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages",
            "Kids" => vec![Object::Reference(page_id)],
            "Count" => 1,
        }),
    );
    let catalog_id = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog_id);
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).unwrap();
    bytes
}

/// What a check's answer says about the file and the library: everything but its timing and
/// report id.
fn figures(answer: &Value) -> Value {
    let keys = [
        "verdict",
        "signature",
        "similarity_index",
        "query_coverage",
        "shares",
        "exclusions",
        "hidden_matches",
        "matches",
        "generations",
        "flags",
        "document",
    ];
    keys.iter()
        .map(|key| (key.to_string(), answer[key].clone()))
        .collect::<serde_json::Map<_, _>>()
        .into()
}

async fn get(addr: SocketAddr, path: &str) -> Value {
    let response = reqwest::get(format!("http://{addr}{path}")).await.unwrap();
    assert!(
        response.status().is_success(),
        "{path}: {}",
        response.status()
    );
    response.json().await.unwrap()
}

async fn post_files(addr: SocketAddr, files: Vec<(&str, Vec<u8>)>) -> (u16, Value) {
    let mut form = reqwest::multipart::Form::new();
    for (name, bytes) in files {
        let part = reqwest::multipart::Part::bytes(bytes).file_name(name.to_string());
        form = form.part("file", part);
    }
    let response = reqwest::Client::new()
        .post(format!("http://{addr}/api/v1/check"))
        .multipart(form)
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pdf_with_hidden_text_gets_the_same_check_from_the_api_a_batch_and_the_cli() {
    let (dir, catalog) = catalog_with(|_| {});
    add_synthetic(&catalog, "lib", 0, 10);
    let config = catalog.config().clone();
    drop(catalog);
    // The visible text copies the library's document `d3`.
    let pdf = pdf_with_hidden_text(&synthetic_text(3, 40 + 3 * 13));
    let path = dir.path().join("paper.pdf");
    std::fs::write(&path, &pdf).unwrap();

    // The CLI first: it opens the data directory alone.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_dupfinder"))
        .arg("--data-dir")
        .arg(dir.path())
        .arg("check")
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let cli: Value = serde_json::from_slice(&output.stdout).unwrap();

    let catalog = std::sync::Arc::new(dupfinder::library::Catalog::open(&config).unwrap());
    let addr = serve_in_process(catalog.clone()).await;
    let (status, api) = post_files(addr, vec![("paper.pdf", pdf.clone())]).await;
    assert_eq!(status, 200, "{api}");

    let (status, started) = post_files(
        addr,
        vec![("papers.zip", zip(&[("paper.pdf", pdf.clone())]))],
    )
    .await;
    assert_eq!(status, 202, "{started}");
    let job = started["job"].as_str().unwrap();
    let mut state = Value::Null;
    for _ in 0..600 {
        state = get(addr, &format!("/api/v1/jobs/{job}")).await;
        if state["state"] != "queued" && state["state"] != "running" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(state["state"], "done", "{state}");
    let summary = get(addr, &format!("/api/v1/jobs/{job}/reports?format=json")).await;
    let item = &summary["items"][0];
    let report_id = item["report_id"]
        .as_str()
        .unwrap_or_else(|| panic!("{summary}"));
    let batch = get(addr, &format!("/api/v1/reports/{report_id}")).await;

    let expected = figures(&api);
    assert_eq!(expected["verdict"], "duplicate", "{api}");
    assert_eq!(expected["matches"][0]["doc_id"], "d3", "{api}");
    assert_eq!(expected["document"]["hidden_characters"], 16, "{api}");
    let hidden: Vec<&Value> = expected["flags"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|flag| flag["kind"] == "hidden_text")
        .collect();
    assert_eq!(hidden.len(), 1, "{api}");
    assert_eq!(hidden[0]["count"], 16, "{api}");
    assert_eq!(figures(&batch), expected, "the batch's report");
    assert_eq!(figures(&cli), expected, "the CLI's answer");
    assert_eq!(
        (&item["verdict"], &item["similarity_index"]),
        (&api["verdict"], &api["similarity_index"]),
        "the batch's line: {summary}"
    );
    assert_eq!((&batch["text"], &cli["text"]), (&api["text"], &api["text"]));
    assert_eq!(json!(batch["file"]), json!("paper.pdf"));
}
