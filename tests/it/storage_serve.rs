//! Several `dupfinder serve` processes on one PostgreSQL database, started as real processes on
//! a real server: a library created and written through one is seen, read and checked through
//! the other at once; a re-index runs in one process only (the other answers `409
//! job_running_elsewhere`), is taken over by the other when its process is killed, with exact
//! statistics afterwards, and is left alone once an operator aborted it; what is not built on
//! PostgreSQL (search, crawling, backups, reopening a writer) answers `501
//! unsupported_on_backend`; the data-directory commands built on the storage seam (among them
//! `dedup` and `phrases`) run on the same database.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::files::{content_type, multipart};
use crate::support::{PgServer, ServerProcess, call_json, http, start_server, synthetic_text};

/// The library every test here works on.
pub(crate) const LIBRARY: &str = "journal";

/// A database and the folder holding each server's data directory and configuration.
pub(crate) struct Shared {
    pg: PgServer,
    pub(crate) url: String,
    pub(crate) dir: tempfile::TempDir,
}

impl Shared {
    pub(crate) fn start(test: &str) -> Option<Shared> {
        let pg = PgServer::start(test)?;
        let url = pg.create_database("dupfinder");
        Some(Shared {
            pg,
            url,
            dir: tempfile::tempdir().unwrap(),
        })
    }

    /// Writes the configuration of a process named `name` on the database, with `reindex`
    /// settings (TOML lines of the `[reindex]` table) beside a one-second resume sweep.
    pub(crate) fn config(&self, name: &str, reindex: &str) -> PathBuf {
        let config = self.dir.path().join(format!("{name}.toml"));
        std::fs::write(
            &config,
            format!(
                "[storage]\nbackend = \"postgres\"\n\n[storage.postgres]\nurl = \"{}\"\n\
                 max_connections = 8\n\n[reindex]\nauto_drift = 0.0\nresume_interval_secs = 1\n{reindex}\n",
                self.url
            ),
        )
        .unwrap();
        config
    }

    /// Starts a server named `name` on the database (see [`Shared::config`]).
    pub(crate) fn serve(&self, name: &str, reindex: &str) -> ServerProcess {
        let config = self.config(name, reindex);
        let data: PathBuf = self.dir.path().join(name);
        start_server(
            &data,
            &[
                ("DUPFINDER_CONFIG", config.to_str().unwrap()),
                // The crawl test's fixture site is on the loopback interface.
                ("DUPFINDER_CRAWL_ALLOW_PRIVATE_NETWORKS", "true"),
            ],
        )
    }

    /// Runs a data-directory command of a process named `name` on the database, with `stdin`;
    /// its exit code, standard output and standard error.
    pub(crate) fn command(&self, name: &str, args: &[&str], stdin: &str) -> (i32, String, String) {
        use std::io::Write;
        let config = self.config(name, "");
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_dupfinder"))
            .arg("--config")
            .arg(&config)
            .arg("--data-dir")
            .arg(self.dir.path().join(name))
            .args(args)
            .env("DUPFINDER_LOG", "warn")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        let output = child.wait_with_output().unwrap();
        (
            output.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }

    /// One value of a query run on the database.
    pub(crate) fn sql(&self, query: &str) -> String {
        self.pg.psql("dupfinder", query)
    }

    /// The database server.
    pub(crate) fn pg(&self) -> &PgServer {
        &self.pg
    }
}

pub(crate) fn call(
    server: &ServerProcess,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    call_json(server, method, path, &body.unwrap_or(Value::Null))
}

/// Documents `first..first + count` of the library as JSON Lines, `words` words each.
fn documents(first: u64, count: u64, words: usize) -> String {
    (first..first + count)
        .map(|i| {
            json!({"id": format!("d{i}"), "title": format!("Paper {i}"), "lang": "en",
                   "text": synthetic_text(i, words)})
            .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

pub(crate) fn import(server: &ServerProcess, first: u64, count: u64) {
    let response = http(
        server.addr,
        "POST",
        &format!("/api/v1/libraries/{LIBRARY}/documents"),
        "application/x-ndjson",
        documents(first, count, 120).as_bytes(),
    )
    .unwrap();
    assert_eq!(response.status, 200, "{}", response.body);
    let report: Value = serde_json::from_str(&response.body).unwrap();
    assert_eq!(report["accepted"], count, "{report}");
}

pub(crate) fn create_library(server: &ServerProcess) {
    let (status, body) = call(
        server,
        "POST",
        "/api/v1/libraries",
        Some(json!({"id": LIBRARY, "name": "The Journal",
                    "clarifications": ["/article/"]})),
    );
    assert_eq!(status, 201, "{body}");
}

/// Waits until `done` answers `Some`, for at most `limit`.
pub(crate) fn wait_for<T>(limit: Duration, what: &str, mut done: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(value) = done() {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The re-index jobs a server knows of for the library.
fn reindex_jobs(server: &ServerProcess) -> Vec<Value> {
    let (status, body) = call(server, "GET", "/api/v1/jobs", None);
    assert_eq!(status, 200, "{body}");
    body["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|job| job["kind"] == "reindex" && job["library"] == LIBRARY)
        .cloned()
        .collect()
}

pub(crate) fn job(server: &ServerProcess, job: &str) -> Value {
    let (status, body) = call(server, "GET", &format!("/api/v1/jobs/{job}"), None);
    assert_eq!(status, 200, "{body}");
    body
}

/// Starts a re-index on `server` and waits until it has signed at least `signed` documents.
fn reindex_until(server: &ServerProcess, signed: u64) -> String {
    let (status, body) = ask_reindex(server);
    assert_eq!(status, 202, "{body}");
    let name = body["job"].as_str().unwrap().to_string();
    wait_for(Duration::from_secs(60), "the re-index to get going", || {
        let status = job(server, &name);
        assert_ne!(status["state"], "failed", "{status}");
        (status["done"].as_u64().unwrap() >= signed).then_some(())
    });
    name
}

/// Asks `server` for a re-index of the library.
fn ask_reindex(server: &ServerProcess) -> (u16, Value) {
    call(
        server,
        "POST",
        &format!("/api/v1/libraries/{LIBRARY}/reindex"),
        None,
    )
}

/// Aborts the job `name` of `server` as an operator does, and waits until it has stopped.
fn abort(server: &ServerProcess, name: &str) {
    let (status, body) = call(server, "DELETE", &format!("/api/v1/jobs/{name}"), None);
    assert_eq!(status, 202, "{body}");
    wait_for(Duration::from_secs(30), "the abort", || {
        (job(server, name)["state"] == "aborted").then_some(())
    });
}

/// Waits until the job `name` of `server` has ended; its last status.
pub(crate) fn finished(server: &ServerProcess, name: &str) -> Value {
    wait_for(Duration::from_secs(60), "the job to end", || {
        let status = job(server, name);
        (status["state"] != "running" && status["state"] != "queued").then_some(status)
    })
}

/// Server A, whose re-indexes go slowly (40 documents a second, committed ten at a time), and
/// server B with `b_reindex` settings, on the database with the library created.
fn slow_and_other(shared: &Shared, b_reindex: &str) -> (ServerProcess, ServerProcess) {
    let a = shared.serve("a", "max_docs_per_second = 40\ncommit_every = 10");
    let b = shared.serve("b", b_reindex);
    create_library(&a);
    (a, b)
}

/// The hits of a search through `server` for the first eight words of `text`, ANDed.
fn search_hits(server: &ServerProcess, text: &str) -> Vec<Value> {
    let words: Vec<&str> = text.split_whitespace().take(8).collect();
    let (status, results) = call(
        server,
        "GET",
        &format!("/api/v1/libraries/{LIBRARY}/search?q={}", words.join("+")),
        None,
    );
    assert_eq!(status, 200, "{results}");
    results["hits"].as_array().unwrap().clone()
}

/// What a check answers, without what differs between two asks (time, report id).
pub(crate) fn check(server: &ServerProcess, text: &str) -> Value {
    let (status, mut body) = call(
        server,
        "POST",
        "/api/v1/check",
        Some(json!({"text": text, "libraries": [LIBRARY], "passages": true, "store": false})),
    );
    assert_eq!(status, 200, "{body}");
    let object = body.as_object_mut().unwrap();
    object.remove("took_ms");
    object.remove("report_id");
    body
}

/// The library's live generation and whether its term statistics, `N` and signatures are
/// exactly those counted afresh from its live documents now.
fn statistics_are_exact(shared: &Shared) -> (u64, bool) {
    let generation: u64 = shared
        .sql(&format!(
            "SELECT generation FROM libraries WHERE library = '{LIBRARY}'"
        ))
        .parse()
        .unwrap();
    let differing = shared.sql(&format!(
        "WITH fresh AS (SELECT t.term, count(*) AS df, sum(t.tf) AS cf \
                        FROM documents d CROSS JOIN LATERAL unnest(d.terms, d.tfs) AS t(term, tf) \
                        WHERE d.library = '{LIBRARY}' GROUP BY t.term), \
              kept AS (SELECT term, df, cf FROM term_stats \
                       WHERE library = '{LIBRARY}' AND generation = {generation}) \
         SELECT (SELECT count(*) FROM ((SELECT * FROM fresh EXCEPT SELECT * FROM kept) \
                                       UNION ALL (SELECT * FROM kept EXCEPT SELECT * FROM fresh)) x) \
              || ' ' || (SELECT count(*) FROM fresh) \
              || ' ' || (SELECT docs FROM generations \
                         WHERE library = '{LIBRARY}' AND generation = {generation}) \
              || ' ' || (SELECT count(*) FROM documents WHERE library = '{LIBRARY}') \
              || ' ' || (SELECT count(*) FROM signatures \
                         WHERE library = '{LIBRARY}' AND generation = {generation})"
    ));
    let figures: Vec<u64> = differing.split(' ').map(|n| n.parse().unwrap()).collect();
    let [wrong_terms, terms, n, documents, signatures] = figures[..] else {
        panic!("unexpected figures {differing}");
    };
    (
        generation,
        wrong_terms == 0 && terms > 0 && n == documents && signatures == documents,
    )
}

/// Signatures already committed into the generation being built.
fn signed_in_building_generation(shared: &Shared) -> u64 {
    shared
        .sql(&format!(
            "SELECT count(*) FROM signatures s JOIN libraries l ON l.library = s.library \
             WHERE s.library = '{LIBRARY}' AND s.generation = l.generation + 1"
        ))
        .parse()
        .unwrap()
}

#[test]
fn two_servers_on_one_database_see_each_others_libraries_and_writes_at_once() {
    let Some(shared) = Shared::start("two_servers_share_a_database") else {
        return;
    };
    let a = shared.serve("a", "");
    let b = shared.serve("b", "");

    create_library(&a);
    let (status, library) = call(&b, "GET", &format!("/api/v1/libraries/{LIBRARY}"), None);
    assert_eq!(status, 200, "{library}");
    assert_eq!(library["name"], "The Journal");
    assert_eq!(library["clarifications"], json!(["/article/"]));
    let (status, body) = call(
        &b,
        "POST",
        "/api/v1/libraries",
        Some(json!({"id": LIBRARY})),
    );
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (409, json!("library_exists"))
    );

    import(&a, 0, 40);
    let (_, library) = call(&b, "GET", &format!("/api/v1/libraries/{LIBRARY}"), None);
    assert_eq!(library["documents"], 40, "{library}");
    assert_eq!(library["stats_generation"], 1, "{library}");
    assert!(library["last_indexed"].as_u64().is_some(), "{library}");
    let (status, document) = call(
        &b,
        "GET",
        &format!("/api/v1/libraries/{LIBRARY}/documents/d7"),
        None,
    );
    assert_eq!(status, 200, "{document}");
    assert_eq!(document["text"], synthetic_text(7, 120));
    let (_, page) = call(
        &b,
        "GET",
        &format!("/api/v1/libraries/{LIBRARY}/documents?sort=doc_id&limit=3"),
        None,
    );
    assert_eq!(page["total"], 40, "{page}");
    assert_eq!(page["items"][0]["doc_id"], "d0", "{page}");
    // A search through B finds what was written through A.
    let hits = search_hits(&b, &synthetic_text(7, 120));
    assert!(hits.iter().any(|hit| hit["doc_id"] == "d7"), "{hits:?}");

    // The same check answers the same through both servers, and finds the copied document.
    let copied = synthetic_text(12, 120);
    let through_a = check(&a, &copied);
    let through_b = check(&b, &copied);
    assert_eq!(through_a, through_b);
    assert_eq!(through_b["verdict"], "duplicate", "{through_b}");
    assert_eq!(through_b["matches"][0]["doc_id"], "d12", "{through_b}");
    let unrelated = check(&b, &synthetic_text(9_999, 120));
    assert_eq!(unrelated["verdict"], "original", "{unrelated}");

    // A document written through B is checkable through A when B has answered.
    let response = http(
        b.addr,
        "POST",
        &format!("/api/v1/libraries/{LIBRARY}/documents"),
        "application/json",
        json!({"id": "late", "text": synthetic_text(500, 120), "lang": "en"})
            .to_string()
            .as_bytes(),
    )
    .unwrap();
    assert_eq!(response.status, 200, "{}", response.body);
    let late = check(&a, &synthetic_text(500, 120));
    assert_eq!(late["matches"][0]["doc_id"], "late", "{late}");

    // Files: one stored through A, checked as a file through B; the report is shared.
    let paper = synthetic_text(700, 150);
    let response = http(
        a.addr,
        "POST",
        &format!("/api/v1/libraries/{LIBRARY}/documents"),
        &content_type(),
        &multipart(&[("file", Some("paper.txt"), paper.as_bytes())]),
    )
    .unwrap();
    assert_eq!(response.status, 200, "{}", response.body);
    let response = http(
        b.addr,
        "POST",
        "/api/v1/check",
        &content_type(),
        &multipart(&[("file", Some("manuscript.txt"), paper.as_bytes())]),
    )
    .unwrap();
    assert_eq!(response.status, 200, "{}", response.body);
    let answer: Value = serde_json::from_str(&response.body).unwrap();
    assert_eq!(answer["matches"][0]["doc_id"], "paper.txt", "{answer}");
    let report = format!("/api/v1/reports/{}", answer["report_id"].as_str().unwrap());
    assert_eq!(call(&b, "GET", &report, None).0, 200);
    assert_eq!(call(&a, "GET", &report, None).0, 200);

    // Deletes through one are seen by the other.
    let (status, _) = call(
        &b,
        "DELETE",
        &format!("/api/v1/libraries/{LIBRARY}/documents/d12"),
        None,
    );
    assert_eq!(status, 204);
    let after = check(&a, &copied);
    assert!(
        after["matches"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["doc_id"] != "d12"),
        "{after}"
    );
    let (status, _) = call(&a, "DELETE", &format!("/api/v1/libraries/{LIBRARY}"), None);
    assert_eq!(status, 204);
    let (status, body) = call(&b, "GET", &format!("/api/v1/libraries/{LIBRARY}"), None);
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (404, json!("library_not_found"))
    );
    let (_, listed) = call(&b, "GET", "/api/v1/libraries", None);
    assert_eq!(listed["libraries"], json!([]));
    // Nothing of the libraries was kept in the processes' data directories.
    for name in ["a", "b"] {
        assert!(!shared.dir.path().join(name).join("libraries").exists());
    }
}

/// `stats`, `check` and `reindex` run from the command line on the database a server writes;
/// `import` says it is not available there yet.
#[test]
fn the_commands_built_on_the_seam_run_on_the_shared_database() {
    let Some(shared) = Shared::start("commands_on_postgres") else {
        return;
    };
    let a = shared.serve("a", "");
    create_library(&a);
    import(&a, 0, 30);
    import(&a, 30, 10);

    let (code, stdout, stderr) = shared.command("cli", &["stats", "--library", LIBRARY], "");
    assert_eq!(code, 0, "{stderr}");
    let stats: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(stats["documents"], 40, "{stats}");
    assert_eq!(stats["name"], "The Journal", "{stats}");

    let (code, stdout, stderr) = shared.command(
        "cli",
        &["check", "--library", LIBRARY, "-"],
        &synthetic_text(33, 120),
    );
    assert_eq!(code, 0, "{stderr}");
    let answer: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(answer["matches"][0]["doc_id"], "d33", "{answer}");

    let text = synthetic_text(33, 120);
    let query = text
        .split_whitespace()
        .take(8)
        .collect::<Vec<_>>()
        .join(" ");
    let (code, stdout, stderr) =
        shared.command("cli", &["search", "--library", LIBRARY, &query], "");
    assert_eq!(code, 0, "{stderr}");
    let results: Value = serde_json::from_str(&stdout).unwrap();
    assert!(
        results["hits"]
            .as_array()
            .unwrap()
            .iter()
            .any(|hit| hit["doc_id"] == "d33"),
        "{results}"
    );

    let (code, _, stderr) = shared.command("cli", &["reindex", "--library", LIBRARY], "");
    assert_eq!(code, 0, "{stderr}");
    let (_, library) = call(&a, "GET", &format!("/api/v1/libraries/{LIBRARY}"), None);
    assert_eq!(library["stats_generation"], 2, "{library}");
    assert_eq!(statistics_are_exact(&shared), (2, true));

    // The dedup job and the phrases keep their state in the database: the server sees what
    // the command did.
    let (code, _, stderr) = shared.command("cli", &["dedup", "--library", LIBRARY], "");
    assert_eq!(code, 0, "{stderr}");
    let (_, duplicates) = call(
        &a,
        "GET",
        &format!("/api/v1/libraries/{LIBRARY}/duplicates"),
        None,
    );
    assert!(duplicates["updated_at"].is_u64(), "{duplicates}");
    let phrase = "funded by the foundation of the journal";
    let (code, _, stderr) =
        shared.command("cli", &["phrases", "add", "--library", LIBRARY, phrase], "");
    assert_eq!(code, 0, "{stderr}");
    let (_, phrases) = call(
        &a,
        "GET",
        &format!("/api/v1/libraries/{LIBRARY}/phrases"),
        None,
    );
    assert_eq!(phrases["phrases"][0]["text"], phrase, "{phrases}");

    // A corpus imported from the command line (one document replaced, a bad line refused)
    // is served by the running server at once, signed against fresh statistics.
    let corpus = shared.dir.path().join("more.jsonl");
    let lines = format!("{}\nnot json\n", documents(39, 5, 120));
    std::fs::write(&corpus, lines).unwrap();
    let (code, stdout, stderr) = shared.command(
        "cli",
        &["import", "--library", LIBRARY, corpus.to_str().unwrap()],
        "",
    );
    // Exit code 3: some lines were rejected.
    assert_eq!(code, 3, "{stderr}");
    let summary: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(summary["accepted"], 5, "{summary}");
    assert_eq!(summary["rejected_lines"], 1, "{summary}");
    let (_, library) = call(&a, "GET", &format!("/api/v1/libraries/{LIBRARY}"), None);
    assert_eq!(library["documents"], 44, "{library}");
    assert_eq!(library["stats_generation"], 3, "{library}");
    assert_eq!(statistics_are_exact(&shared), (3, true));
    assert_eq!(
        check(&a, &synthetic_text(42, 120))["matches"][0]["doc_id"],
        "d42"
    );
    // A library the import names that does not exist is created.
    let (code, _, stderr) = shared.command(
        "cli",
        &["import", "--library", "fresh", corpus.to_str().unwrap()],
        "",
    );
    assert_eq!(code, 3, "{stderr}");
    let (_, fresh) = call(&a, "GET", "/api/v1/libraries/fresh", None);
    assert_eq!(fresh["documents"], 5, "{fresh}");
}

/// A library crawled through one process lands in the database: the other process lists its
/// articles, searches and checks them, and the crawl re-signed the library at its end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_library_crawled_through_one_server_is_served_by_the_other() {
    let Some(shared) = Shared::start("crawl_on_postgres") else {
        return;
    };
    let site = crate::support::sites::FixtureServer::start(crate::crawl_resume::site()).await;
    let crawl = "\n[crawl]\nrequests_per_second = 1000.0\nfetchers = 2\nparsers = 1\n\
                 index_batch = 8\nretry_backoff_ms = 10\n";
    let a = shared.serve("a", crawl);
    let b = shared.serve("b", crawl);
    let library = json!({
        "id": LIBRARY,
        "start_url": site.url("/"),
        "clarifications": ["/article/n/"],
    });
    let (status, body) = call(&a, "POST", "/api/v1/libraries", Some(library));
    assert_eq!(status, 201, "{body}");
    let (status, body) = call(
        &a,
        "POST",
        "/api/v1/queue",
        Some(json!({"library": LIBRARY})),
    );
    assert_eq!(status, 202, "{body}");

    let started = Instant::now();
    loop {
        let (_, library) = call(&a, "GET", &format!("/api/v1/libraries/{LIBRARY}"), None);
        if library["status"] == "done" {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the crawl did not finish: {library}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let articles = crate::crawl_resume::ARTICLES;
    let (_, library) = call(&b, "GET", &format!("/api/v1/libraries/{LIBRARY}"), None);
    assert_eq!(library["documents"], articles, "{library}");
    assert!(
        library["stats_generation"].as_u64() >= Some(2),
        "the crawl re-signed the library at its end: {library}"
    );
    let hits = search_hits(&b, &synthetic_text(17, 150));
    assert!(
        hits.iter().any(|hit| hit["title"] == "Article 17"),
        "{hits:?}"
    );
    let answer = check(&b, &synthetic_text(17, 150));
    assert_eq!(answer["verdict"], "duplicate", "{answer}");
    assert_eq!(answer["matches"][0]["title"], "Article 17", "{answer}");
}

#[test]
fn what_is_not_built_on_postgres_answers_501_naming_the_backend() {
    let Some(shared) = Shared::start("unsupported_on_postgres") else {
        return;
    };
    let a = shared.serve("a", "");
    create_library(&a);
    import(&a, 0, 12);
    let library = format!("/api/v1/libraries/{LIBRARY}");
    let requests: Vec<(&str, String, Option<Value>)> = vec![
        ("POST", "/api/v1/backup".to_string(), None),
        ("POST", format!("{library}/writer"), None),
    ];
    for (method, path, body) in requests {
        let (status, answer) = call(&a, method, &path, body);
        assert_eq!(status, 501, "{method} {path}: {answer}");
        assert_eq!(answer["error"]["code"], "unsupported_on_backend", "{path}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("backend = \"postgres\""),
            "{path}: {message}"
        );
    }
    // What is built keeps answering.
    let (status, _) = call(&a, "GET", "/healthz", None);
    assert_eq!(status, 200);
    assert_eq!(
        check(&a, &synthetic_text(3, 120))["matches"][0]["doc_id"],
        "d3"
    );
    let metrics = http(a.addr, "GET", "/metrics", "text/plain", b"").unwrap();
    assert_eq!(metrics.status, 200);
    let metrics = metrics.body;
    assert!(
        metrics.contains("dupfinder_library_documents{library=\"journal\"} 12"),
        "{metrics}"
    );
    assert!(
        !metrics.contains("dupfinder_library_disk_bytes{"),
        "{metrics}"
    );
}

#[test]
fn a_reindex_asked_of_one_server_while_another_runs_it_is_refused_with_409() {
    let Some(shared) = Shared::start("reindex_runs_once") else {
        return;
    };
    let (a, b) = slow_and_other(&shared, "");
    import(&a, 0, 200);
    let running = reindex_until(&a, 10);

    let (status, body) = ask_reindex(&b);
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"]["code"], "job_running_elsewhere");
    assert!(reindex_jobs(&b).is_empty(), "B started a job of its own");
    assert_eq!(job(&a, &running)["state"], "running");

    // Once A lets go (an abort), B may run it.
    abort(&a, &running);
    let (status, body) = ask_reindex(&b);
    assert_eq!(status, 202, "{body}");
}

#[test]
fn a_reindex_of_a_killed_server_is_resumed_by_the_other_with_exact_statistics() {
    let Some(shared) = Shared::start("reindex_resumed_elsewhere") else {
        return;
    };
    let (mut a, b) = slow_and_other(&shared, "commit_every = 10");
    // The first documents make generation 1; those after it drift from it, so the re-index's
    // statistics differ from generation 1's.
    import(&a, 0, 150);
    import(&a, 150, 150);
    let (before, exact) = statistics_are_exact(&shared);
    assert_eq!(before, 1);
    assert!(!exact, "generation 1 already counted every document");

    // Progress counts documents signed; they are committed ten at a time.
    reindex_until(&a, 40);
    a.kill();
    let left = signed_in_building_generation(&shared);
    assert!(
        left >= 30,
        "only {left} signatures were committed before the kill"
    );
    assert!(left < 300, "the re-index had finished before the kill");

    let resumed = wait_for(
        Duration::from_secs(30),
        "B to take the re-index over",
        || reindex_jobs(&b).into_iter().next(),
    );
    assert_eq!(resumed["trigger"], "resume", "{resumed}");
    let ended = finished(&b, resumed["job"].as_str().unwrap());
    assert_eq!(ended["state"], "done", "{ended}");
    assert_eq!(ended["done"], 300, "{ended}");

    let (after, exact) = statistics_are_exact(&shared);
    assert_eq!(after, 2);
    assert!(
        exact,
        "the resumed generation's statistics are not those of its documents"
    );
    let (_, library) = call(&b, "GET", &format!("/api/v1/libraries/{LIBRARY}"), None);
    assert_eq!(library["stats_generation"], 2, "{library}");
    assert_eq!(library["drift"], 0.0, "{library}");
    for i in [3, 160, 299] {
        let answer = check(&b, &synthetic_text(i, 120));
        assert_eq!(answer["matches"][0]["doc_id"], format!("d{i}"), "{answer}");
        assert_eq!(answer["generations"][LIBRARY], 2, "{answer}");
    }
}

#[test]
fn an_aborted_reindex_is_left_alone_by_the_resume_sweep_until_asked_again() {
    let Some(shared) = Shared::start("aborted_reindex_paused") else {
        return;
    };
    let (a, b) = slow_and_other(&shared, "commit_every = 10");
    // Ten seconds of signing at A's pace: the abort lands well before the end even on a
    // loaded machine.
    import(&a, 0, 400);
    let running = reindex_until(&a, 20);
    abort(&a, &running);
    assert_eq!(
        shared.sql(&format!(
            "SELECT paused FROM generations WHERE library = '{LIBRARY}' AND state = 'building'"
        )),
        "t"
    );
    let signed = signed_in_building_generation(&shared);
    assert!(signed > 0 && signed < 400, "{signed} signed");

    // Several sweeps of both servers pass (one a second).
    std::thread::sleep(Duration::from_secs(4));
    assert!(reindex_jobs(&b).is_empty(), "B resumed a paused re-index");
    assert_eq!(reindex_jobs(&a).len(), 1, "A resumed a paused re-index");
    assert_eq!(signed_in_building_generation(&shared), signed);
    let (_, library) = call(&b, "GET", &format!("/api/v1/libraries/{LIBRARY}"), None);
    assert_eq!(library["stats_generation"], 1, "{library}");

    // An operator asking again resumes it, from where it stopped.
    let (status, body) = ask_reindex(&b);
    assert_eq!(status, 202, "{body}");
    let ended = finished(&b, body["job"].as_str().unwrap());
    assert_eq!(ended["state"], "done", "{ended}");
    let (generation, exact) = statistics_are_exact(&shared);
    assert_eq!(generation, 2);
    assert!(exact);
}
