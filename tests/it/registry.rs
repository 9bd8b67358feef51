//! The registry at size: libraries declared in bulk (`POST /api/v1/libraries` as JSON Lines, and
//! `dupfinder libraries import` of JSON Lines or CSV on a data directory and through a server),
//! created, updated without losing their documents, rejected line by line; the library list
//! paged and filtered with its total; a paused library's crawl refused; the same on PostgreSQL,
//! where records written before schedules existed still read.

use std::process::{Command, Output};

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::storage_serve::Shared;
use crate::support::{
    app, call_json, catalog, catalog_with, error_code, http, json_request, send, send_with_headers,
    start_server, synthetic_text,
};

const NDJSON: &str = "application/x-ndjson";

/// Sends a registry import.
async fn import(app: &axum::Router, body: &str) -> (StatusCode, Value) {
    send(app, "POST", "/api/v1/libraries", NDJSON, body.to_string()).await
}

async fn get(app: &axum::Router, uri: &str) -> (StatusCode, Value) {
    send(app, "GET", uri, "application/json", "").await
}

fn ids(page: &Value) -> Vec<&str> {
    page["libraries"]
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {page}"))
        .iter()
        .map(|l| l["id"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn a_registry_import_creates_updates_and_rejects_line_by_line() {
    let (_dir, catalog) = catalog();
    let app = app(catalog);
    let body = [
        r#"{"id":"acl","name":"ACL Anthology"}"#,
        r#"{"id":"vestnik","name":"Вестник","oai_pmh":"https://vestnik.example/oai","schedule":{"every_hours":168},"paused":true,"clarifications":["/article/"]}"#,
        r#"{"id":"Bad Id"}"#,
        "",
        r#"{"id":"x","colour":"red"}"#,
        r#"{"id":"y","start_url":"ftp://y.example/"}"#,
        r#"{"id":"z","schedule":{"every_hours":0}}"#,
        r#"not json"#,
        r#"{"id":"acl","start_url":"https://aclanthology.example/"}"#,
    ]
    .join("\n");
    let (status, answer) = import(&app, &body).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(
        (&answer["created"], &answer["updated"], &answer["unchanged"]),
        (&json!(2), &json!(1), &json!(0)),
        "{answer}"
    );
    let rejected: Vec<(u64, &str)> = answer["rejected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["line"].as_u64().unwrap(),
                r["error"]["code"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rejected,
        [
            (3, "invalid_library_id"),
            (5, "invalid_json"),
            (6, "invalid_start_url"),
            (7, "invalid_schedule"),
            (8, "invalid_json"),
        ]
    );
    for line in answer["rejected"].as_array().unwrap() {
        assert!(
            !line["error"]["message"].as_str().unwrap().is_empty(),
            "{line}"
        );
    }

    let (_, vestnik) = get(&app, "/api/v1/libraries/vestnik").await;
    assert_eq!(vestnik["name"], "Вестник");
    assert_eq!(vestnik["oai_url"], "https://vestnik.example/oai");
    assert_eq!(vestnik["schedule"], json!({"every_hours": 168}));
    assert_eq!(vestnik["paused"], true);
    assert_eq!(vestnik["clarifications"], json!(["/article/"]));
    let (_, acl) = get(&app, "/api/v1/libraries/acl").await;
    assert_eq!(acl["name"], "ACL Anthology", "a field left out is kept");
    assert_eq!(acl["start_url"], "https://aclanthology.example/");
    assert_eq!(
        (&acl["schedule"], &acl["paused"]),
        (&Value::Null, &json!(false))
    );
    let (_, all) = get(&app, "/api/v1/libraries").await;
    assert_eq!(ids(&all), ["acl", "vestnik"]);

    // A single create takes the same object, and refuses what a line would be refused for.
    let (status, one) = json_request(
        &app,
        "POST",
        "/api/v1/libraries",
        json!({"id": "single", "oai_pmh": "https://s.example/oai", "schedule": {"every_hours": 24}}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{one}");
    assert_eq!(
        (&one["oai_url"], &one["schedule"]["every_hours"]),
        (&json!("https://s.example/oai"), &json!(24))
    );
    let (status, refused) = json_request(
        &app,
        "POST",
        "/api/v1/libraries",
        json!({"id": "single2", "schedule": {"every_hours": -1}}),
    )
    .await;
    assert_eq!(
        (status, error_code(&refused)),
        (StatusCode::BAD_REQUEST, "invalid_schedule")
    );
}

#[tokio::test]
async fn an_update_keeps_the_library_s_documents() {
    let (_dir, catalog) = catalog();
    let app = app(catalog);
    let (_, answer) = import(&app, r#"{"id":"journal","name":"Journal"}"#).await;
    assert_eq!(answer["created"], 1, "{answer}");
    let documents: String = (0..5)
        .map(|i| {
            format!(
                "{}\n",
                json!({"id": format!("d{i}"), "text": synthetic_text(i, 120)})
            )
        })
        .collect();
    let (status, added) = send(
        &app,
        "POST",
        "/api/v1/libraries/journal/documents",
        NDJSON,
        documents,
    )
    .await;
    assert_eq!(
        (status, &added["accepted"]),
        (StatusCode::OK, &json!(5)),
        "{added}"
    );

    let update = r#"{"id":"journal","name":"The Journal","start_url":"https://journal.example/","paused":true}"#;
    let (_, answer) = import(&app, update).await;
    assert_eq!(
        (&answer["created"], &answer["updated"]),
        (&json!(0), &json!(1)),
        "{answer}"
    );
    let (_, answer) = import(&app, update).await;
    assert_eq!(
        (&answer["updated"], &answer["unchanged"]),
        (&json!(0), &json!(1)),
        "{answer}"
    );

    let (_, journal) = get(&app, "/api/v1/libraries/journal").await;
    assert_eq!(
        (&journal["name"], &journal["documents"]),
        (&json!("The Journal"), &json!(5))
    );
    assert_eq!(journal["paused"], true);
    let (_, checked) = json_request(
        &app,
        "POST",
        "/api/v1/check",
        json!({"text": synthetic_text(3, 120), "store": false}),
    )
    .await;
    assert_eq!(checked["verdict"], "duplicate", "{checked}");
    assert_eq!(checked["matches"][0]["doc_id"], "d3");
}

#[tokio::test]
async fn a_body_that_is_not_json_lines_or_too_large_is_refused_whole() {
    let (_dir, catalog) = catalog_with(|config| {
        config.limits.max_registry_lines = 2;
        config.limits.max_registry_bytes = 200;
    });
    let app = app(catalog);
    for body in ["id,name\nacl,ACL\n", "", "\n\n", "[1, 2]\n"] {
        let (status, answer) = import(&app, body).await;
        assert_eq!(
            (status, error_code(&answer)),
            (StatusCode::BAD_REQUEST, "invalid_json"),
            "{body:?}: {answer}"
        );
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains("JSON Lines"),
            "{answer}"
        );
    }
    let (status, answer) = import(&app, "{\"id\":\"a\"}\n{\"id\":\"b\"}\n{\"id\":\"c\"}\n").await;
    assert_eq!(
        (status, error_code(&answer)),
        (StatusCode::PAYLOAD_TOO_LARGE, "too_many_lines"),
        "{answer}"
    );
    let long = format!("{{\"id\":\"a\",\"name\":\"{}\"}}\n", "n".repeat(300));
    let (status, answer) = import(&app, &long).await;
    assert_eq!(
        (status, error_code(&answer)),
        (StatusCode::PAYLOAD_TOO_LARGE, "body_too_large"),
        "{answer}"
    );
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("max_registry_bytes")
    );
    let (_, all) = get(&app, "/api/v1/libraries").await;
    assert_eq!(
        all["total"], 0,
        "nothing of a refused import is applied: {all}"
    );
}

#[tokio::test]
async fn the_library_list_pages_and_filters_with_its_total() {
    let (_dir, catalog) = catalog();
    let app = app(catalog);
    let mut body: Vec<String> = (0..25)
        .map(|i| json!({"id": format!("lib-{i:02}"), "name": format!("Journal {i}")}).to_string())
        .collect();
    body.push(json!({"id": "vestnik-msu", "name": "Вестник МГУ"}).to_string());
    let (_, answer) = import(&app, &body.join("\n")).await;
    assert_eq!(answer["created"], 26, "{answer}");

    let (_, page) = get(&app, "/api/v1/libraries?limit=10").await;
    assert_eq!((page["total"].as_u64(), ids(&page).len()), (Some(26), 10));
    assert_eq!(ids(&page)[0], "lib-00");
    let (_, page) = get(&app, "/api/v1/libraries?limit=10&offset=20").await;
    assert_eq!(
        ids(&page),
        [
            "lib-20",
            "lib-21",
            "lib-22",
            "lib-23",
            "lib-24",
            "vestnik-msu"
        ]
    );
    let (_, page) = get(&app, "/api/v1/libraries?offset=100").await;
    assert_eq!((page["total"].as_u64(), ids(&page).len()), (Some(26), 0));
    // By id or name, in any case; Cyrillic names too.
    let (_, page) = get(&app, "/api/v1/libraries?q=JOURNAL%201").await;
    assert_eq!(page["total"], 11, "Journal 1 and 10–19: {page}");
    let (_, page) = get(
        &app,
        "/api/v1/libraries?q=%D0%B2%D0%B5%D1%81%D1%82%D0%BD%D0%B8%D0%BA",
    )
    .await;
    assert_eq!(ids(&page), ["vestnik-msu"], "«вестник» finds «Вестник МГУ»");
    let (_, page) = get(&app, "/api/v1/libraries?q=lib-2&limit=2&offset=1").await;
    assert_eq!(
        (ids(&page), &page["total"]),
        (vec!["lib-21", "lib-22"], &json!(5))
    );
    // Without parameters: the first page of the default size, every library here.
    let (_, page) = get(&app, "/api/v1/libraries").await;
    assert_eq!((ids(&page).len(), &page["total"]), (26, &json!(26)));

    for (query, code) in [
        ("limit=0", "invalid_limit"),
        ("limit=1001", "invalid_limit"),
        ("limit=ten", "invalid_parameter"),
        ("offset=-1", "invalid_parameter"),
        ("offset=10000001", "invalid_offset"),
        ("order=asc", "invalid_parameter"),
    ] {
        let (status, answer) = get(&app, &format!("/api/v1/libraries?{query}")).await;
        assert_eq!(
            (status, error_code(&answer)),
            (StatusCode::BAD_REQUEST, code),
            "{query}"
        );
    }
    let (status, answer) = get(&app, &format!("/api/v1/libraries?q={}", "a".repeat(2001))).await;
    assert_eq!(
        (status, error_code(&answer)),
        (StatusCode::BAD_REQUEST, "query_too_long")
    );
}

#[tokio::test]
async fn a_key_limited_to_libraries_pages_through_its_own() {
    const ADMIN: &str = "registry-admin";
    let (_dir, catalog) = catalog_with(|config| config.server.token = Some(ADMIN.to_string()));
    let app = app(catalog);
    let lines: String = (0..6).map(|i| format!("{{\"id\":\"lib{i}\"}}\n")).collect();
    let auth = format!("Bearer {ADMIN}");
    let (status, answer) = send_with_headers(
        &app,
        "POST",
        "/api/v1/libraries",
        &[("content-type", NDJSON), ("authorization", &auth)],
        lines.clone(),
    )
    .await;
    assert_eq!(
        (status, &answer["created"]),
        (StatusCode::OK, &json!(6)),
        "{answer}"
    );
    // The same rules as a single create: a write needs a key.
    let (status, answer) = import(&app, &lines).await;
    assert_eq!(
        (status, error_code(&answer)),
        (StatusCode::UNAUTHORIZED, "missing_token")
    );
    let (_, key) = send_with_headers(
        &app,
        "POST",
        "/api/v1/keys",
        &[
            ("content-type", "application/json"),
            ("authorization", &auth),
        ],
        json!({"name": "portal", "role": "operator", "libraries": ["lib1", "lib4", "lib5"]})
            .to_string(),
    )
    .await;
    let portal = format!("Bearer {}", key["key"].as_str().unwrap());
    let (_, page) = send_with_headers(
        &app,
        "GET",
        "/api/v1/libraries?limit=2&offset=1",
        &[("authorization", &portal)],
        "",
    )
    .await;
    assert_eq!(
        (ids(&page), &page["total"]),
        (vec!["lib4", "lib5"], &json!(3))
    );
    // A key limited to libraries declares none: that spans every library.
    let (status, answer) = send_with_headers(
        &app,
        "POST",
        "/api/v1/libraries",
        &[("content-type", NDJSON), ("authorization", &portal)],
        "{\"id\":\"lib1\",\"paused\":true}\n",
    )
    .await;
    assert_eq!(
        (status, error_code(&answer)),
        (StatusCode::FORBIDDEN, "forbidden")
    );
}

#[tokio::test]
async fn a_paused_library_is_not_queued_for_crawling_until_it_is_resumed() {
    let (_dir, catalog) = catalog_with(|config| config.crawl.allow_private_networks = true);
    let app = app(catalog);
    let (_, answer) = import(
        &app,
        r#"{"id":"site","start_url":"http://127.0.0.1:9/","paused":true}"#,
    )
    .await;
    assert_eq!(answer["created"], 1, "{answer}");
    let (status, answer) =
        json_request(&app, "POST", "/api/v1/queue", json!({"library": "site"})).await;
    assert_eq!(
        (status, error_code(&answer)),
        (StatusCode::CONFLICT, "library_paused"),
        "{answer}"
    );
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("paused")
    );
    let (_, answer) = import(&app, r#"{"id":"site","paused":false}"#).await;
    assert_eq!(answer["updated"], 1, "{answer}");
    let (status, answer) =
        json_request(&app, "POST", "/api/v1/queue", json!({"library": "site"})).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{answer}");
    let (status, _) = send(&app, "DELETE", "/api/v1/queue/site", "application/json", "").await;
    assert_eq!(status, StatusCode::NO_CONTENT);
}

/// Runs `dupfinder ARGS`, on the data directory `data` or, with `server`, through it.
fn cli(data: &std::path::Path, server: Option<std::net::SocketAddr>, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_dupfinder"));
    command
        .arg("--data-dir")
        .arg(data)
        .args(args)
        .env("DUPFINDER_LOG", "warn")
        .env_remove("DUPFINDER_SERVER")
        .env_remove("DUPFINDER_KEY");
    if let Some(addr) = server {
        command.env("DUPFINDER_SERVER", format!("http://{addr}"));
    }
    command.output().expect("running dupfinder")
}

fn answer_of(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// A registry in CSV, with a rejected row: every column, a name with a comma, a list of
/// clarifications, a schedule and a pause.
const CSV: &str = "id,name,start_url,clarifications,oai_pmh,schedule_every_hours,paused\n\
                   acl,\"ACL, Anthology\",https://acl.example/,/anthology/|/papers/,,24,no\n\
                   vestnik,Вестник,,,https://vestnik.example/oai,168,yes\n\
                   Bad Id,Bad,,,,,\n\
                   rare,Rare,,,,every week,\n";

fn check_csv_import(answer: &Value) {
    assert_eq!(
        (&answer["created"], &answer["updated"]),
        (&json!(2), &json!(0)),
        "{answer}"
    );
    assert_eq!(answer["rejected"][0]["line"], 4, "{answer}");
    assert_eq!(answer["rejected"][0]["error"]["code"], "invalid_library_id");
    assert_eq!(answer["rejected"][1]["line"], 5, "{answer}");
    assert_eq!(answer["rejected"][1]["error"]["code"], "invalid_schedule");
}

#[test]
fn the_cli_imports_a_csv_registry_on_a_data_directory_and_through_a_server() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("registry.csv");
    std::fs::write(&csv, CSV).unwrap();
    let csv = csv.to_str().unwrap();

    // On a data directory.
    let local = dir.path().join("local");
    let output = cli(&local, None, &["--json", "libraries", "import", csv]);
    assert_eq!(output.status.code(), Some(3), "rejected rows: exit 3");
    check_csv_import(&answer_of(&output));
    let stats = answer_of(&cli(&local, None, &["stats", "--library", "acl"]));
    assert_eq!(stats["name"], "ACL, Anthology");
    assert_eq!(stats["clarifications"], json!(["/anthology/", "/papers/"]));
    assert_eq!(
        (&stats["schedule"]["every_hours"], &stats["paused"]),
        (&json!(24), &json!(false))
    );
    // Imported again: nothing changes.
    let again = answer_of(&cli(&local, None, &["libraries", "import", csv]));
    assert_eq!(
        (&again["created"], &again["unchanged"]),
        (&json!(0), &json!(2)),
        "{again}"
    );
    // A page of the list, filtered.
    let page = answer_of(&cli(
        &local,
        None,
        &["stats", "--q", "ВЕСТ", "--limit", "5"],
    ));
    assert_eq!(
        (&page["total"], &page["libraries"][0]["id"]),
        (&json!(1), &json!("vestnik"))
    );

    // Through a server: the same answer, and a JSON Lines update that keeps documents.
    let server = start_server(&dir.path().join("served"), &[]);
    let output = cli(&local, Some(server.addr), &["libraries", "import", csv]);
    assert_eq!(output.status.code(), Some(3));
    check_csv_import(&answer_of(&output));
    let lines = json!({"id": "acl", "name": "ACL"}).to_string()
        + "\n"
        + &json!({"id": "fresh"}).to_string();
    let jsonl = dir.path().join("update.jsonl");
    std::fs::write(&jsonl, lines).unwrap();
    let documents = format!("{}\n", json!({"id": "d1", "text": synthetic_text(1, 120)}));
    let added = http(
        server.addr,
        "POST",
        "/api/v1/libraries/acl/documents",
        NDJSON,
        documents.as_bytes(),
    )
    .unwrap();
    assert_eq!(added.status, 200, "{}", added.body);
    let output = cli(
        &local,
        Some(server.addr),
        &["libraries", "import", jsonl.to_str().unwrap()],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let answer = answer_of(&output);
    assert_eq!(
        (&answer["created"], &answer["updated"]),
        (&json!(1), &json!(1)),
        "{answer}"
    );
    let (_, acl) = call_json(&server, "GET", "/api/v1/libraries/acl", &Value::Null);
    assert_eq!(
        (&acl["name"], &acl["documents"]),
        (&json!("ACL"), &json!(1))
    );
    let page = answer_of(&cli(
        &local,
        Some(server.addr),
        &["stats", "--limit", "2", "--offset", "1"],
    ));
    assert_eq!(
        (&page["total"], page["libraries"].as_array().unwrap().len()),
        (&json!(3), 2)
    );
    let all = answer_of(&cli(&local, Some(server.addr), &["stats"]));
    assert_eq!(all["libraries"].as_array().unwrap().len(), 3, "{all}");
}

#[test]
fn the_cli_refuses_a_file_it_cannot_read_as_a_registry() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    for (name, content, says) in [
        ("bad.csv", "id,colour\na,red\n", "unknown column `colour`"),
        ("unclosed.csv", "id,name\n\"unclosed,x\na,b\n", "CSV"),
        (
            "bad.jsonl",
            "this is not JSON\nnor this\n",
            "not JSON Lines",
        ),
        ("empty.jsonl", "\n\n", "declares no library"),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, content).unwrap();
        let output = cli(
            &data,
            None,
            &["libraries", "import", path.to_str().unwrap()],
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{name}: {stderr}");
        assert!(stderr.contains(says), "{name}: {stderr}");
    }
    let missing = dir.path().join("nowhere.csv");
    let output = cli(
        &data,
        None,
        &["libraries", "import", missing.to_str().unwrap()],
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot read"));
}

/// The same on PostgreSQL: an import and an update through a server on the database, the list
/// paged and filtered, and a record written before schedules existed read as unscheduled.
#[test]
fn on_postgres_an_import_pages_and_old_records_read() {
    let Some(shared) = Shared::start("registry_on_postgres") else {
        return;
    };
    let server = shared.serve("one", "");
    let lines: String = (0..12)
        .map(|i| {
            format!(
                "{}\n",
                json!({"id": format!("j{i:02}"), "name": format!("Journal {i}")})
            )
        })
        .collect();
    let post = |body: &str| {
        let response = http(
            server.addr,
            "POST",
            "/api/v1/libraries",
            NDJSON,
            body.as_bytes(),
        )
        .unwrap();
        (
            response.status,
            serde_json::from_str::<Value>(&response.body).unwrap(),
        )
    };
    let (status, answer) = post(&lines);
    assert_eq!((status, &answer["created"]), (200, &json!(12)), "{answer}");
    let documents = format!("{}\n", json!({"id": "d1", "text": synthetic_text(1, 120)}));
    let added = http(
        server.addr,
        "POST",
        "/api/v1/libraries/j03/documents",
        NDJSON,
        documents.as_bytes(),
    )
    .unwrap();
    assert_eq!(added.status, 200, "{}", added.body);
    let (_, answer) = post(
        "{\"id\":\"j03\",\"schedule\":{\"every_hours\":12},\"paused\":true}\n{\"id\":\"j04\"}\n{\"id\":\"BAD\"}\n",
    );
    assert_eq!(
        (
            &answer["updated"],
            &answer["unchanged"],
            &answer["rejected"][0]["line"]
        ),
        (&json!(1), &json!(1), &json!(3)),
        "{answer}"
    );
    let (_, j03) = call_json(&server, "GET", "/api/v1/libraries/j03", &Value::Null);
    assert_eq!(
        (
            &j03["documents"],
            &j03["paused"],
            &j03["schedule"]["every_hours"]
        ),
        (&json!(1), &json!(true), &json!(12))
    );
    assert_eq!(j03["name"], "Journal 3");
    let (_, page) = call_json(
        &server,
        "GET",
        "/api/v1/libraries?q=journal%201&limit=2",
        &Value::Null,
    );
    assert_eq!(
        (ids(&page), &page["total"]),
        (vec!["j01", "j10"], &json!(3))
    );

    // A record as an earlier release wrote it, without `schedule` and `paused`.
    shared
        .sql("UPDATE libraries SET record = record - 'schedule' - 'paused' WHERE library = 'j05'");
    assert_eq!(
        shared.sql("SELECT record ? 'paused' FROM libraries WHERE library = 'j05'"),
        "f"
    );
    let (status, j05) = call_json(&server, "GET", "/api/v1/libraries/j05", &Value::Null);
    assert_eq!(status, 200, "{j05}");
    assert_eq!(
        (&j05["schedule"], &j05["paused"], &j05["name"]),
        (&Value::Null, &json!(false), &json!("Journal 5"))
    );
    let (_, answer) = post("{\"id\":\"j05\",\"paused\":true}\n");
    assert_eq!(answer["updated"], 1, "{answer}");
}
