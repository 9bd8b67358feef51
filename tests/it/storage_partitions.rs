//! Libraries spread over two PostgreSQL servers by PostgreSQL's own means: on the first server
//! every table is partitioned by library (declarative `PARTITION BY LIST (library)`), the
//! libraries kept there in a default partition, and the library `east` a partition that is a
//! `postgres_fdw` foreign table on the second server. The service connects to the first server
//! only; one check spanning both libraries must answer as it does with both libraries local.
//! The DDL is the one DISTRIBUTED.md gives operators.

use dupfinder::analysis::Analyzer;
use dupfinder::check::{CancelFlag, CheckRequest, Checker, check_stores};
use dupfinder::config::{Config, PostgresConfig};
use dupfinder::index::{PreparedDocument, RebuildControl, RebuildOutcome, default_analyzer};
use dupfinder::library::{parse_document, prepare};
use dupfinder::signature::RobustScheme;
use dupfinder::storage::postgres::PgStorage;
use dupfinder::storage::{LibraryStore, Storage};
use serde_json::json;

use crate::support::{PgServer, synthetic_text};

/// Every table of the schema, each keyed by library.
const TABLES: [&str; 7] = [
    "libraries",
    "generations",
    "documents",
    "term_stats",
    "signatures",
    "robust_signatures",
    "shingles",
];

/// Partitions every table of the first server's database by library and makes `library`'s
/// partitions foreign tables on the server whose socket directory is `host`.
fn partition_with_foreign_library(library: &str, host: &str) -> String {
    let mut sql = format!(
        "CREATE EXTENSION postgres_fdw;\n\
         CREATE SERVER {library}_server FOREIGN DATA WRAPPER postgres_fdw \
           OPTIONS (host '{host}', port '5432', dbname 'dupfinder');\n\
         CREATE USER MAPPING FOR CURRENT_USER SERVER {library}_server \
           OPTIONS (user 'postgres');\n"
    );
    for table in TABLES {
        sql.push_str(&format!(
            "ALTER TABLE {table} RENAME TO {table}_local;\n\
             CREATE TABLE {table} (LIKE {table}_local INCLUDING DEFAULTS INCLUDING CONSTRAINTS) \
               PARTITION BY LIST (library);\n\
             ALTER TABLE {table} ATTACH PARTITION {table}_local DEFAULT;\n\
             CREATE FOREIGN TABLE {table}_{library} PARTITION OF {table} \
               FOR VALUES IN ('{library}') SERVER {library}_server \
               OPTIONS (table_name '{table}');\n"
        ));
    }
    sql
}

fn connect(url: String) -> PgStorage {
    let config = PostgresConfig {
        url: Some(url),
        max_connections: 4,
    };
    PgStorage::connect(&config, RobustScheme::default()).unwrap()
}

/// The socket directory in a libpq connection string (`host=<dir> …`).
fn host_of(url: &str) -> &str {
    url.split_whitespace()
        .find_map(|part| part.strip_prefix("host="))
        .expect("a host in the connection string")
}

fn analyzer() -> Analyzer {
    default_analyzer()
}

fn document(id: &str, text: &str) -> PreparedDocument {
    let json = json!({"id": id, "title": format!("Title {id}"), "text": text, "lang": "en"});
    let input = parse_document(&json.to_string()).unwrap();
    prepare(&analyzer(), Config::default().limits.text(), input).unwrap()
}

/// Writes `documents` into a new library `id` of `storage` and re-indexes it.
fn fill(storage: &dyn Storage, id: &str, documents: &[PreparedDocument]) {
    let store = storage.create(id).unwrap();
    store.write(documents).unwrap();
    let outcome = store
        .reindex(&RebuildControl::default(), &mut |_| {})
        .unwrap();
    assert!(
        matches!(outcome, RebuildOutcome::Finished { .. }),
        "{outcome:?}"
    );
}

/// One check against `west` and `east`, without the time it took.
fn answer(west: &dyn LibraryStore, east: &dyn LibraryStore, text: &str) -> serde_json::Value {
    let mut request = CheckRequest::new(text);
    request.passages = true;
    let report = check_stores(
        &Checker {
            analyzer: &analyzer(),
            config: &Config::default().check,
            text_limits: Config::default().limits.text(),
        },
        &[("west", west), ("east", east)],
        None,
        &request,
        &CancelFlag::new(),
        std::time::Instant::now(),
    )
    .unwrap();
    let mut value = serde_json::to_value(&report).unwrap();
    value.as_object_mut().unwrap().remove("took_ms");
    value
}

#[test]
fn a_check_spans_a_local_library_and_a_foreign_partition_on_another_server() {
    let test = "a_check_spans_a_local_library_and_a_foreign_partition_on_another_server";
    let Some(first) = PgServer::start(test) else {
        return;
    };
    let Some(second) = PgServer::start(test) else {
        return;
    };
    // Papers of each library, and papers copied across: a text of the west extended by one of
    // the east, and the other way round.
    let west_docs: Vec<PreparedDocument> = (0..12)
        .map(|i| document(&format!("w{i}"), &synthetic_text(600 + i, 140)))
        .collect();
    let east_docs: Vec<PreparedDocument> = (0..12)
        .map(|i| document(&format!("e{i}"), &synthetic_text(700 + i, 140)))
        .collect();

    // The east library is written on the second server, by a service connected to it.
    let second_url = second.create_database("dupfinder");
    fill(&connect(second_url.clone()), "east", &east_docs);

    // The first server holds the west, then is partitioned with the east's partition foreign.
    let first_url = first.create_database("dupfinder");
    fill(&connect(first_url.clone()), "west", &west_docs);
    first.psql(
        "dupfinder",
        &partition_with_foreign_library("east", host_of(&second_url)),
    );
    let spread = connect(first_url);
    assert_eq!(spread.list().unwrap(), ["east", "west"]);
    let west = spread.open("west").unwrap().expect("west, local");
    let east = spread
        .open("east")
        .unwrap()
        .expect("east, through its foreign partition");
    assert_eq!(east.summary().unwrap().documents, 12);
    // The foreign partition is not a copy: the rows stay on the second server.
    assert_eq!(
        first.psql("dupfinder", "SELECT count(*) FROM documents_local"),
        "12"
    );
    assert_eq!(
        second.psql("dupfinder", "SELECT count(*) FROM documents"),
        "12"
    );

    // The same two libraries in one database of one server, for comparison.
    let local_url = first.create_database("both_local");
    let local = connect(local_url);
    fill(&local, "west", &west_docs);
    fill(&local, "east", &east_docs);
    let west_local = local.open("west").unwrap().unwrap();
    let east_local = local.open("east").unwrap().unwrap();

    let mut queries: Vec<String> = Vec::new();
    for i in 0..4 {
        queries.push(west_docs[i].text.clone());
        queries.push(east_docs[i].text.clone());
        queries.push(format!(
            "{} {}",
            west_docs[i + 4].text,
            east_docs[i + 4].text
        ));
    }
    queries.push(synthetic_text(4243, 150));
    let mut spanning = 0;
    for query in &queries {
        let across = answer(west.as_ref(), east.as_ref(), query);
        let together = answer(west_local.as_ref(), east_local.as_ref(), query);
        assert_eq!(across, together, "the answers differ for: {query}");
        let libraries: std::collections::BTreeSet<&str> = across["matches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["library"].as_str().unwrap())
            .collect();
        if libraries.len() == 2 {
            spanning += 1;
        }
    }
    assert_eq!(spanning, 4, "each joined text matches both libraries");
}
