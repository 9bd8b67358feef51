//! Full-text search on PostgreSQL does bounded work per query: a query of a word every document
//! holds reads, ranks and counts the first 1,000 matches, no more (`total` stops there); the
//! pages within them are pages of one ranking.

use std::collections::BTreeSet;

use dupfinder::config::{Config, PostgresConfig};
use dupfinder::index::default_analyzer;
use dupfinder::library::{parse_document, prepare};
use dupfinder::signature::RobustScheme;
use dupfinder::storage::Storage;
use dupfinder::storage::postgres::PgStorage;
use serde_json::json;

use crate::support::PgServer;

#[test]
fn a_search_of_a_common_word_ranks_and_counts_the_first_thousand_matches() {
    let Some(server) = PgServer::start("search_ranks_the_first_matches") else {
        return;
    };
    let config = PostgresConfig {
        url: Some(server.create_database("dupfinder")),
        max_connections: 4,
    };
    let storage = PgStorage::connect(&config, RobustScheme::default()).unwrap();
    let store = storage.create("papers").unwrap();
    let analyzer = default_analyzer();
    let documents: Vec<_> = (0..1_100u64)
        .map(|i| {
            let value = json!({"id": format!("d{i:04}"), "lang": "en",
                               "text": format!("Nitrogen fixation by free-living soil bacteria was measured in \
                                                sample {i} of the long field trial on wheat, \
                                                barley and clover plots.")});
            let input = parse_document(&value.to_string()).unwrap();
            prepare(&analyzer, Config::default().limits.text(), input).unwrap()
        })
        .collect();
    for chunk in documents.chunks(250) {
        store.write(chunk).unwrap();
    }

    let first = store.search("nitrogen", 10, 0).unwrap();
    assert_eq!((first.total, first.hits.len()), (1_000, 10));
    // Pages within the first thousand are pages of one ranking: none found twice.
    let mut seen = BTreeSet::new();
    for offset in (0..1_000).step_by(250) {
        let page = store.search("nitrogen", 250, offset).unwrap();
        assert_eq!((page.total, page.hits.len()), (1_000, 250));
        seen.extend(page.hits.into_iter().map(|h| h.meta.doc_id));
    }
    assert_eq!(seen.len(), 1_000);
    let past = store.search("nitrogen", 10, 1_000).unwrap();
    assert_eq!((past.total, past.hits.len()), (1_000, 0));
}
