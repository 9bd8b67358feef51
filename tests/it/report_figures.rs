//! One set of figures: for every kind of manuscript in the fixtures (pasted text, and each file
//! format), a check over HTTP against a running server, and the same figures — the similarity
//! index, the words, the shares by kind, each source's share and what was found in it — in the
//! API's answer, the stored report, the reports list, the PDF report's text in both languages
//! (read back with the project's own PDF reader) and the CLI's summary. Regressions: the page
//! and the report counted words differently (1,513 vs 1,549), the CLI printed a containment
//! instead of the index, the "Copied" share exceeded the index, and a source of which 46 % was
//! reused was labelled "copied whole".

use std::process::Command;

use serde_json::{Value, json};

use dupfinder::reports::numbers::{count, percent};

use crate::files::{content_type, multipart};
use crate::support::{ServerProcess, call_json, start_server};

/// The manuscripts: every format of `manuscript`, the quotation manuscript as written and as
/// files, and a pasted text.
const FILES: &[&str] = &[
    "manuscript.txt",
    "manuscript.cp1251.txt",
    "manuscript.utf16.txt",
    "manuscript.docx",
    "manuscript.odt",
    "manuscript.rtf",
    "manuscript.html",
    "manuscript.jats.xml",
    "manuscript.pdf",
    "quoted.md",
    "quoted.docx",
    "quoted.pdf",
];

const KINDS: [&str; 6] = [
    "copied",
    "quoted",
    "bibliography",
    "front_matter",
    "boilerplate",
    "small",
];

fn fixture_path(name: &str) -> String {
    format!("{}/tests/fixtures/files/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Runs `dupfinder ARGS` against the server.
fn cli(server: &ServerProcess, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_dupfinder"))
        .args(args)
        .env("DUPFINDER_SERVER", format!("http://{}", server.addr))
        .env("DUPFINDER_DATA_DIR", "/nonexistent/dupfinder-figures-test")
        .output()
        .expect("running dupfinder")
}

fn get_bytes(server: &ServerProcess, path: &str) -> Vec<u8> {
    let url = format!("http://{}{path}", server.addr);
    std::thread::scope(|scope| {
        scope
            .spawn(move || {
                let response = reqwest::blocking::get(url).unwrap();
                assert_eq!(response.status().as_u16(), 200, "{path}");
                response.bytes().unwrap().to_vec()
            })
            .join()
            .unwrap()
    })
}

/// White space (the no-break space included) made one plain space.
fn flat(text: &str) -> String {
    text.split(|c: char| c.is_whitespace())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn figure(value: &Value) -> f64 {
    value
        .as_f64()
        .unwrap_or_else(|| panic!("not a figure: {value}"))
}

/// What the check found in a source, in the report's words, in `lang`.
fn finding(m: &Value, lang: &str) -> String {
    if m["counted"] == false {
        let why = m["not_counted"].as_str().unwrap();
        return match (lang, why) {
            ("en", "source_excluded") => "not counted: the source is left out",
            ("en", "too_little") => "not counted: too little in common to show copying",
            ("en", _) => {
                "not counted: only left-out passages (quotations, bibliography and the like)"
            }
            (_, "source_excluded") => "не учитывается: источник исключён",
            (_, "too_little") => {
                "не учитывается: слишком мало общего текста, чтобы говорить о заимствовании"
            }
            _ => "не учитывается: только исключённые фрагменты (цитаты, список литературы и т. п.)",
        }
        .to_string();
    }
    let reused = percent(figure(&m["containment_doc"]), 0, lang);
    if lang == "en" {
        format!("{reused} of this source reused")
    } else {
        format!("использовано {reused} источника")
    }
}

/// The figures every view must show alike.
fn figures(answer: &Value) -> Value {
    let matches: Vec<Value> = answer["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            json!({
                "doc_id": m["doc_id"], "share": m["share"], "counted": m["counted"],
                "not_counted": m["not_counted"], "containment_doc": m["containment_doc"],
                "verdict": m["verdict"],
            })
        })
        .collect();
    json!({
        "verdict": answer["verdict"], "similarity_index": answer["similarity_index"],
        "words": answer["words"], "shares": answer["shares"], "matches": matches,
    })
}

/// The figures add up: the sources' shares and the counted kinds' shares each make the index.
fn assert_they_add_up(name: &str, answer: &Value) {
    let index = figure(&answer["similarity_index"]);
    let sources: f64 = answer["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| figure(&m["share"]))
        .sum();
    let n = answer["matches"].as_array().unwrap().len() as f64;
    assert!(
        (sources - index).abs() <= 0.0001 * (n + 1.0),
        "{name}: sources {sources} vs index {index}"
    );
    let exclusions = &answer["exclusions"];
    let counted_kinds: f64 = KINDS
        .iter()
        .filter(|kind| match **kind {
            "quoted" => exclusions["quotes"] == false,
            "small" => exclusions["small_matches"] == 0,
            "copied" => true,
            other => exclusions[other] == false,
        })
        .map(|kind| figure(&answer["shares"][*kind]))
        .sum();
    assert!(
        (counted_kinds - index).abs() <= 0.0006,
        "{name}: counted kinds {counted_kinds} vs index {index}: {}",
        answer["shares"]
    );
    for kind in KINDS {
        if kind == "copied" {
            assert!(
                figure(&answer["shares"][kind]) <= index + 1e-9,
                "{name}: copied above the index"
            );
        }
    }
}

/// The PDF's text, read back by the project's own reader, carries the figures as `lang`
/// writes them.
fn assert_pdf_shows(name: &str, server: &ServerProcess, answer: &Value, lang: &str) {
    let id = answer["report_id"].as_str().unwrap();
    let pdf = get_bytes(server, &format!("/api/v1/reports/{id}/pdf?lang={lang}"));
    let text = dupfinder::extract::extract(&pdf, &Default::default())
        .expect("the report PDF reads back")
        .text;
    let text = flat(&text);
    let index = percent(figure(&answer["similarity_index"]), 1, lang);
    let words = count(answer["words"].as_u64().unwrap(), lang);
    let (words_label, share_label) = if lang == "en" {
        ("Words:", "Share of the manuscript")
    } else {
        ("Слов:", "Доля рукописи")
    };
    let expect = |wanted: String| {
        let wanted = flat(&wanted);
        assert!(
            text.contains(&wanted),
            "{name} ({lang}): `{wanted}` not in the PDF's text:\n{text}"
        );
    };
    expect(index.clone());
    expect(format!("{words_label} {words}"));
    for m in answer["matches"].as_array().unwrap() {
        expect(format!(
            "{share_label} {} · {}",
            percent(figure(&m["share"]), 1, lang),
            finding(m, lang)
        ));
    }
    for kind in KINDS {
        expect(percent(figure(&answer["shares"][kind]), 1, lang));
    }
}

/// The CLI's summary of the same check (made without keeping a report) shows the same figures.
fn assert_cli_shows(name: &str, server: &ServerProcess, path: &str, answer: &Value) {
    let (_, before) = call_json(server, "GET", "/api/v1/reports?limit=1", &Value::Null);
    let output = cli(
        server,
        &[
            "check",
            "--passages",
            "--no-store",
            "--format",
            "text",
            path,
        ],
    );
    assert!(
        output.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let printed = flat(&String::from_utf8_lossy(&output.stdout));
    let head = flat(&format!(
        "verdict: {} · similarity index {} · {} words",
        answer["verdict"].as_str().unwrap(),
        percent(figure(&answer["similarity_index"]), 1, "en"),
        count(answer["words"].as_u64().unwrap(), "en"),
    ));
    assert!(
        printed.starts_with(&head),
        "{name}: `{head}` in:\n{printed}"
    );
    assert!(!printed.contains("report "), "{name}: a report was kept");
    for (n, m) in answer["matches"].as_array().unwrap().iter().enumerate() {
        let line = flat(&format!(
            "{}. {} {} {}/{}",
            n + 1,
            percent(figure(&m["share"]), 1, "en"),
            finding(m, "en"),
            m["library"].as_str().unwrap(),
            m["doc_id"].as_str().unwrap(),
        ));
        assert!(printed.contains(&line), "{name}: `{line}` in:\n{printed}");
    }
    let (_, after) = call_json(server, "GET", "/api/v1/reports?limit=1", &Value::Null);
    assert_eq!(
        before["total"], after["total"],
        "{name}: --no-store kept a report"
    );
}

#[test]
fn every_view_of_a_report_shows_the_same_figures() {
    let dir = tempfile::tempdir().unwrap();
    let server = start_server(&dir.path().join("data"), &[]);
    let corpus = format!("{}/tests/fixtures/corpus.jsonl", env!("CARGO_MANIFEST_DIR"));
    let imported = cli(&server, &["import", "--library", "fx", &corpus]);
    assert!(
        imported.status.success(),
        "{}",
        String::from_utf8_lossy(&imported.stderr)
    );
    let pasted = std::fs::read_to_string(fixture_path("manuscript.txt")).unwrap();
    let pasted_path = dir.path().join("pasted.txt");
    std::fs::write(&pasted_path, &pasted).unwrap();

    let mut kinds_seen = std::collections::BTreeSet::new();
    let mut checked = vec![(
        "pasted text".to_string(),
        pasted_path.to_str().unwrap().to_string(),
        call_json(
            &server,
            "POST",
            "/api/v1/check",
            &json!({"text": pasted, "passages": true}),
        ),
    )];
    for name in FILES {
        let path = fixture_path(name);
        let bytes = std::fs::read(&path).unwrap();
        let body = multipart(&[
            ("file", Some(name), &bytes),
            ("options", None, br#"{"passages": true}"#),
        ]);
        let response =
            crate::support::http(server.addr, "POST", "/api/v1/check", &content_type(), &body)
                .unwrap();
        let answer: Value = serde_json::from_str(&response.body).unwrap();
        checked.push((name.to_string(), path, (response.status, answer)));
    }

    for (name, path, (status, answer)) in &checked {
        assert_eq!(*status, 200, "{name}: {answer}");
        assert_ne!(answer["verdict"], "original", "{name}: {answer}");
        assert_they_add_up(name, answer);
        for kind in KINDS {
            if figure(&answer["shares"][kind]) > 0.0 {
                kinds_seen.insert(kind);
            }
        }
        let id = answer["report_id"].as_str().unwrap();

        let (_, stored) = call_json(
            &server,
            "GET",
            &format!("/api/v1/reports/{id}"),
            &Value::Null,
        );
        assert_eq!(
            figures(&stored),
            figures(answer),
            "{name}: the stored report"
        );

        let (_, list) = call_json(&server, "GET", "/api/v1/reports?limit=100", &Value::Null);
        let line = list["reports"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["report_id"] == *id)
            .unwrap_or_else(|| panic!("{name}: not listed"));
        for field in ["similarity_index", "words", "verdict"] {
            assert_eq!(line[field], answer[field], "{name}: the list's {field}");
        }
        assert_eq!(line["matches"], answer["matches"].as_array().unwrap().len());

        for lang in ["en", "ru"] {
            assert_pdf_shows(name, &server, answer, lang);
        }
        assert_cli_shows(name, &server, path, answer);
    }
    // The fixtures hold copying and quotations: both kinds were seen and shown.
    assert!(kinds_seen.contains("copied"), "{kinds_seen:?}");
    assert!(kinds_seen.contains("quoted"), "{kinds_seen:?}");
}

#[test]
fn figures_of_a_report_made_before_answers_carried_words_fall_back_to_its_text() {
    let report = dupfinder::reports::Report {
        report_id: "r".to_string(),
        created: 0,
        order: 0,
        submitter: "-".to_string(),
        file: None,
        settings: Value::Null,
        decision: dupfinder::reports::Decision::NotChecked,
        note: None,
        history: Vec::new(),
        answer: json!({"verdict": "original", "matches": []}),
        text: "three plain words".to_string(),
    };
    assert_eq!(report.words(), 3);
    assert_eq!(report.summary().words, 3);
}
