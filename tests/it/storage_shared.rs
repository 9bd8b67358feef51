//! Two `dupfinder serve` processes on one PostgreSQL database share what a portal and an
//! editor rely on besides the libraries: a key made through one works through the other and is
//! refused there right after it is revoked; a report and its decision made through one are read
//! and listed through the other; a webhook event is delivered exactly once with both serving; a
//! batch sent to one is aborted through the other, and another is followed through the other,
//! which finishes it when the first is killed in the middle.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{Value, json};

use crate::files::{content_type, multipart};
use crate::storage_serve::{LIBRARY, Shared, call, create_library, import, job, wait_for};
use crate::support::{ServerProcess, WebhookReceiver, http, synthetic_text};

/// Settings of both servers: every request needs a key while keys exist, batch files held two
/// seconds, webhooks to the loopback receiver.
const SETTINGS: &str = "\n[server]\nprotect_reads = true\n\n[batch]\nlease_secs = 2\n\n[webhooks]\nallow_private_networks = true\n";

/// Sends `body` (JSON) with `Authorization: Bearer <key>`; the status and the answer.
fn with_key(addr: SocketAddr, method: &str, path: &str, key: &str, body: Value) -> (u16, Value) {
    let url = format!("http://{addr}{path}");
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let key = key.to_string();
    std::thread::scope(|scope| {
        scope
            .spawn(move || {
                let response = reqwest::blocking::Client::new()
                    .request(method, url)
                    .bearer_auth(key)
                    .json(&body)
                    .send()
                    .unwrap();
                let status = response.status().as_u16();
                (status, response.json().unwrap_or(Value::Null))
            })
            .join()
            .unwrap()
    })
}

/// Checks `text` through `server`, keeping the answer as a report; its id.
fn stored_check(server: &ServerProcess, text: &str) -> String {
    let (status, answer) = call(
        server,
        "POST",
        "/api/v1/check",
        Some(json!({"text": text, "libraries": [LIBRARY]})),
    );
    assert_eq!(status, 200, "{answer}");
    answer["report_id"].as_str().unwrap().to_string()
}

/// Sends `files` to `server` as one batch; its job.
fn send_batch(server: &ServerProcess, files: &[(String, Vec<u8>)]) -> String {
    let options = json!({"libraries": [LIBRARY]}).to_string();
    let mut parts: Vec<(&str, Option<&str>, &[u8])> = vec![("options", None, options.as_bytes())];
    parts.extend(
        files
            .iter()
            .map(|(name, bytes)| ("file", Some(name.as_str()), bytes.as_slice())),
    );
    let response = http(
        server.addr,
        "POST",
        "/api/v1/check",
        &content_type(),
        &multipart(&parts),
    )
    .unwrap();
    assert_eq!(response.status, 202, "{}", response.body);
    let started: Value = serde_json::from_str(&response.body).unwrap();
    started["job"].as_str().unwrap().to_string()
}

#[test]
fn keys_reports_webhooks_and_batches_are_shared_by_two_servers() {
    let Some(shared) = Shared::start("two_servers_share_records") else {
        return;
    };
    let mut a = shared.serve("a", SETTINGS);
    let b = shared.serve("b", SETTINGS);
    create_library(&a);
    import(&a, 0, 40);

    // A key made through A works through B, and is refused there as soon as A revoked it.
    let (status, admin) = call(
        &a,
        "POST",
        "/api/v1/keys",
        Some(json!({"name": "admin", "role": "admin"})),
    );
    assert_eq!(status, 201, "{admin}");
    let admin = admin["key"].as_str().unwrap().to_string();
    let (status, portal) = with_key(
        a.addr,
        "POST",
        "/api/v1/keys",
        &admin,
        json!({"name": "portal", "role": "checker"}),
    );
    assert_eq!(status, 201, "{portal}");
    let portal = portal["key"].as_str().unwrap().to_string();
    let ask = json!({"text": synthetic_text(3, 120), "libraries": [LIBRARY], "store": false});
    let (status, _) = call(&b, "POST", "/api/v1/check", Some(ask.clone()));
    assert_eq!(status, 401, "B does not know that keys exist");
    let (status, answer) = with_key(b.addr, "POST", "/api/v1/check", &portal, ask.clone());
    assert_eq!(status, 200, "{answer}");
    let (status, listed) = with_key(b.addr, "GET", "/api/v1/keys", &admin, Value::Null);
    assert_eq!(status, 200, "{listed}");
    assert_eq!(listed["keys"].as_array().unwrap().len(), 2, "{listed}");
    let (status, _) = with_key(a.addr, "DELETE", "/api/v1/keys/portal", &admin, Value::Null);
    assert_eq!(status, 204);
    let (status, refused) = with_key(b.addr, "POST", "/api/v1/check", &portal, ask);
    assert_eq!(status, 401, "{refused}");
    // The audit log read through B holds the writes made through A.
    let (status, audit) = with_key(b.addr, "GET", "/api/v1/audit", &admin, Value::Null);
    assert_eq!(status, 200, "{audit}");
    let targets: Vec<&str> = audit["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["target"].as_str())
        .collect();
    assert!(targets.contains(&"/api/v1/keys/portal"), "{audit}");
    // The last key revoked (through B): both servers are open again.
    let (status, _) = with_key(b.addr, "DELETE", "/api/v1/keys/admin", &admin, Value::Null);
    assert_eq!(status, 204);
    assert_eq!(call(&a, "GET", "/api/v1/reports", None).0, 200);

    // A report made through A is read and listed through B, and so is its decision.
    let report = stored_check(&a, &synthetic_text(12, 120));
    let path = format!("/api/v1/reports/{report}");
    let (status, read) = call(&b, "GET", &path, None);
    assert_eq!(status, 200, "{read}");
    assert_eq!(read["matches"][0]["doc_id"], "d12", "{read}");
    let (status, decided) = call(
        &a,
        "PATCH",
        &path,
        Some(json!({"decision": "duplicate", "note": "copied from d12"})),
    );
    assert_eq!(status, 200, "{decided}");
    let (_, read) = call(&b, "GET", &path, None);
    assert_eq!(read["decision"], "duplicate", "{read}");
    assert_eq!(read["history"][0]["note"], "copied from d12", "{read}");
    let (status, listed) = call(&b, "GET", "/api/v1/reports?decision=duplicate", None);
    assert_eq!(status, 200, "{listed}");
    assert_eq!(listed["total"], 1, "{listed}");
    assert_eq!(
        listed["reports"][0]["report_id"],
        report.as_str(),
        "{listed}"
    );

    // A webhook registered through A hears of the reports made through either server, each
    // delivered once though both servers' workers read the outbox.
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let secret = "a shared secret of the portal";
    let receiver = runtime.block_on(WebhookReceiver::start(
        "127.0.0.1:0".parse().unwrap(),
        secret,
        &[],
    ));
    let (status, webhook) = call(
        &a,
        "POST",
        "/api/v1/webhooks",
        Some(json!({"url": receiver.url(), "secret": secret, "events": ["report.completed"]})),
    );
    assert_eq!(status, 201, "{webhook}");
    let webhook = webhook["id"].as_str().unwrap().to_string();
    let mut made = BTreeSet::new();
    for i in 0..8 {
        let server = if i % 2 == 0 { &a } else { &b };
        made.insert(stored_check(server, &synthetic_text(i, 120)));
    }
    let deliveries = format!("/api/v1/webhooks/{webhook}/deliveries?limit=100");
    wait_for(
        Duration::from_secs(120),
        "every delivery to be made",
        || {
            let (status, log) = call(&b, "GET", &deliveries, None);
            assert_eq!(status, 200, "{log}");
            let log = log["deliveries"].as_array().unwrap().clone();
            (log.len() == made.len() && log.iter().all(|d| d["state"] == "delivered")).then_some(())
        },
    );
    let received = receiver.received();
    let heard: BTreeSet<String> = received
        .iter()
        .map(|r| r.body["data"]["report_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(heard, made);
    assert_eq!(received.len(), made.len(), "an event was delivered twice");
    assert!(received.iter().all(|r| r.signature_valid));
    let (_, hooks) = call(&b, "GET", "/api/v1/webhooks", None);
    assert_eq!(hooks["webhooks"][0]["id"], webhook.as_str(), "{hooks}");
    let (status, _) = call(&b, "DELETE", &format!("/api/v1/webhooks/{webhook}"), None);
    assert_eq!(status, 204);

    // A batch sent to A and aborted through B: every file left is listed as aborted.
    let long: Vec<(String, Vec<u8>)> = (0..12u64)
        .map(|i| {
            (
                format!("l{i}.txt"),
                synthetic_text(300 + i, 20_000).into_bytes(),
            )
        })
        .collect();
    let name = send_batch(&a, &long);
    let (status, aborting) = call(&b, "DELETE", &format!("/api/v1/jobs/{name}"), None);
    assert_eq!(status, 202, "{aborting}");
    let ended = wait_for(Duration::from_secs(300), "the abort", || {
        let (_, lines) = call(&b, "GET", &format!("/api/v1/jobs/{name}/reports"), None);
        let lines = lines["items"].as_array().unwrap().clone();
        (lines.len() == long.len()).then_some(lines)
    });
    assert_eq!(job(&a, &name)["state"], "aborted");
    assert_eq!(job(&b, &name)["state"], "aborted");
    assert!(
        ended.iter().any(|l| l["error"]["code"] == "aborted"),
        "{ended:?}"
    );

    // A batch sent to A is followed through B; A is killed in the middle of it, and B checks
    // what A left, each file once.
    let files: Vec<(String, Vec<u8>)> = (0..24u64)
        .map(|i| {
            // Every fourth file long, so that A is killed while it still has files to check.
            let words = if i % 4 == 1 { 20_000 } else { 150 };
            (
                format!("m{i}.txt"),
                synthetic_text(100 + i, words).into_bytes(),
            )
        })
        .collect();
    let name = send_batch(&a, &files);
    let followed = wait_for(Duration::from_secs(120), "the batch to get going", || {
        let status = job(&b, &name);
        (status["done"].as_u64().unwrap() >= 1).then_some(status)
    });
    assert_eq!(followed["kind"], "batch", "{followed}");
    assert_eq!(followed["total"], files.len(), "{followed}");
    a.kill();
    let finished = wait_for(Duration::from_secs(300), "B to finish the batch", || {
        let status = job(&b, &name);
        (status["state"] == "done").then_some(status)
    });
    assert_eq!(finished["done"], files.len(), "{finished}");
    let (status, lines) = call(&b, "GET", &format!("/api/v1/jobs/{name}/reports"), None);
    assert_eq!(status, 200, "{lines}");
    let lines = lines["items"].as_array().unwrap().clone();
    let names: Vec<&str> = lines.iter().map(|l| l["file"].as_str().unwrap()).collect();
    let sent: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, sent, "each file has one line, in the order sent");
    let reports: BTreeSet<&str> = lines
        .iter()
        .map(|l| l["report_id"].as_str().unwrap())
        .collect();
    assert_eq!(reports.len(), files.len());
    // One report per file, none twice: the batch's reports are exactly its lines' ones.
    assert_eq!(
        shared.sql("SELECT count(*) FROM reports WHERE summary::jsonb->>'file' LIKE 'm%'"),
        files.len().to_string()
    );
    assert_eq!(
        shared.sql(&format!(
            "SELECT count(*) FROM batch_files WHERE job = '{name}'"
        )),
        "0"
    );
    for report in reports {
        let (status, _) = call(&b, "GET", &format!("/api/v1/reports/{report}"), None);
        assert_eq!(status, 200);
    }
}

/// `dupfinder backup` on PostgreSQL runs `pg_dump`; the dump restored into an empty database
/// holds the libraries and the service's records. Without a `pg_dump` it says the command to
/// run and what a restore must do, and fails.
#[test]
fn a_backup_on_postgres_is_a_pg_dump_that_restores() {
    let Some(shared) = Shared::start("backup_on_postgres") else {
        return;
    };
    let a = shared.serve("a", "");
    create_library(&a);
    import(&a, 0, 20);
    let report = stored_check(&a, &synthetic_text(5, 120));
    let (status, _) = call(
        &a,
        "POST",
        "/api/v1/keys",
        Some(json!({"name": "admin", "role": "admin"})),
    );
    assert_eq!(status, 201);

    let out = shared.dir.path().join("dupfinder.dump");
    let pg_dump = shared.pg().binary("pg_dump");
    let (code, stdout, stderr) = shared.command(
        "cli",
        &[
            "backup",
            "--out",
            out.to_str().unwrap(),
            "--pg-dump",
            pg_dump.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(code, 0, "{stderr}");
    let answer: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(answer["from"], "pg_dump", "{answer}");
    assert!(
        answer["restore"].as_str().unwrap().contains("pg_restore"),
        "{answer}"
    );
    assert!(!shared.dir.path().join("dupfinder.dump.part").exists());

    let restored = shared.pg().create_database("restored");
    let output = std::process::Command::new(shared.pg().binary("pg_restore"))
        .args(["--no-owner", "--dbname", &restored])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let count = |table: &str| {
        shared
            .pg()
            .psql("restored", &format!("SELECT count(*) FROM {table}"))
    };
    assert_eq!(count("documents"), "20");
    assert_eq!(count("api_keys"), "1");
    assert_eq!(
        shared.pg().psql(
            "restored",
            &format!("SELECT count(*) FROM reports WHERE report_id = '{report}'")
        ),
        "1"
    );

    // No pg_dump: the command to run and what a restore must do, and a failure.
    let missing = shared.dir.path().join("no-such-pg_dump");
    let (code, _, stderr) = shared.command(
        "cli",
        &[
            "backup",
            "--out",
            out.with_extension("other").to_str().unwrap(),
            "--pg-dump",
            missing.to_str().unwrap(),
        ],
        "",
    );
    assert_ne!(code, 0);
    assert!(stderr.contains("--format=custom"), "{stderr}");
    assert!(stderr.contains("pg_restore --no-owner"), "{stderr}");
}

/// The leases under both claims, at the stores: a batch's file taken by one process is not
/// handed to another until its lease has passed; then the other takes it, and whichever records
/// it second keeps nothing (its transaction fails, the file has one line). A webhook delivery
/// taken by one process is not handed to another until its lease has passed, and then under
/// the same event id.
#[test]
fn a_file_or_a_delivery_is_held_by_the_process_that_took_it() {
    use dupfinder::batch::{BatchFile, BatchItem, BatchLine, BatchSettings, BatchStore, PgBatches};
    use dupfinder::check::CheckRequest;
    use dupfinder::error_code::ErrorCode;
    use dupfinder::signature::RobustScheme;
    use dupfinder::storage::PostgresConfig;
    use dupfinder::storage::postgres::PgStorage;
    use dupfinder::webhooks::{
        Attempt, DeliveryState, Event, EventKind, NewWebhook, PgWebhooks, WebhookStore,
        WebhooksConfig,
    };

    let Some(server) = crate::support::PgServer::start("leases_at_the_stores") else {
        return;
    };
    let config = PostgresConfig {
        url: Some(server.create_database("dupfinder")),
        max_connections: 4,
    };
    let (one, two) = (
        PgStorage::connect(&config, RobustScheme::default()).unwrap(),
        PgStorage::connect(&config, RobustScheme::default()).unwrap(),
    );
    let (a, b) = (
        PgBatches::new(one.database(), 1),
        PgBatches::new(two.database(), 1),
    );
    let files = (0..2)
        .map(|n| BatchFile {
            name: format!("f{n}.txt"),
            bytes: format!("file {n}").into_bytes(),
        })
        .collect();
    let settings = BatchSettings::of(&CheckRequest::new(""), false);
    let record = a.create("-".to_string(), settings, files).unwrap();
    let job = record.job.as_str();
    let (first, _) = a.claim(job).unwrap().unwrap();
    let (second, _) = b.claim(job).unwrap().unwrap();
    assert_eq!((first, second), (0, 1), "each process takes its own file");
    assert!(a.claim(job).unwrap().is_none() && !b.claimable(job).unwrap());
    // A's lease on file 0 passes (A is stuck, or killed): B takes it and records it.
    std::thread::sleep(Duration::from_millis(1_100));
    let (taken, _) = b.claim(job).unwrap().unwrap();
    assert_eq!(taken, 0);
    let item = BatchItem::failed("f0.txt".to_string(), ErrorCode::Internal, "checked");
    let recorded = BatchLine {
        job,
        number: 0,
        item: &item,
    };
    b.finish(recorded).unwrap();
    assert!(a.finish(recorded).is_err(), "file 0 recorded twice");
    assert!(a.recorded(job, 0).unwrap());
    assert_eq!((a.done(job).unwrap(), a.remaining(job).unwrap()), (1, 1));

    let config = WebhooksConfig::default();
    let (a, b) = (
        PgWebhooks::new(one.database(), &config),
        PgWebhooks::new(two.database(), &config),
    );
    a.create(NewWebhook {
        url: "https://portal.example/hook".to_string(),
        secret: "a secret of sixteen+".to_string(),
        events: vec![EventKind::ReportCompleted],
    })
    .unwrap();
    let event = Event {
        id: "evt_1".to_string(),
        event: EventKind::ReportCompleted,
        created: 5,
        data: json!({"report_id": "r"}),
    };
    assert_eq!(b.announce(&event).unwrap(), 1);
    // Far past the announcement, with room for the leases below in the database's bigint.
    let now = 4_000_000_000_000u64;
    let (taken, _) = a.due(now, 10).unwrap();
    assert_eq!(taken.len(), 1);
    assert_eq!(
        b.due(now, 10).unwrap().0.len(),
        0,
        "a delivery handed out twice"
    );
    assert_eq!(a.due(now, 10).unwrap().0.len(), 0);
    // A dies between sending and recording: once its lease has passed, B sends the delivery
    // again under the same event id (`X-Dupfinder-Delivery`), by which the receiver tells the
    // repeat; once B records it delivered, no process has it due.
    let lease = config.timeout_ms + 60_000;
    let (again, _) = b.due(now + lease + 1, 10).unwrap();
    assert_eq!(
        again.len(),
        1,
        "a delivery its sender never recorded is lost"
    );
    assert_eq!(again[0].delivery().event_id, "evt_1");
    assert_eq!(
        again[0].delivery().event_id,
        taken[0].delivery().event_id,
        "a repeat the receiver cannot tell"
    );
    let state = b
        .record(again[0].key(), Attempt::Answered(200), &config, 0.0)
        .unwrap();
    assert_eq!(state, DeliveryState::Delivered);
    let much_later = now + 10 * lease;
    assert!(a.due(much_later, 10).unwrap().0.is_empty());
    assert!(b.due(much_later, 10).unwrap().0.is_empty());
}
