//! The schema's migrations, embedded in the binary and applied at start, each in its own
//! transaction, under an advisory lock so that two processes starting together apply each once.

use crate::StorageError;
use crate::index::IndexError;

/// Every migration, in order: (version, SQL).
const MIGRATIONS: &[(i32, &str)] = &[
    (1, include_str!("migrations/0001_libraries.sql")),
    (2, include_str!("migrations/0002_document_links.sql")),
    (3, include_str!("migrations/0003_shared_serving.sql")),
    (4, include_str!("migrations/0004_search.sql")),
    (5, include_str!("migrations/0005_dedup_and_phrases.sql")),
    (6, include_str!("migrations/0006_service_records.sql")),
    (7, include_str!("migrations/0007_phrase_pairs.sql")),
    (8, include_str!("migrations/0008_shingle_selection.sql")),
];

/// The advisory lock key of migrations ("dupfinder" in the first bytes).
const MIGRATION_LOCK: i64 = 0x6475_7066_696e_6401;

/// Applies the migrations the database lacks.
pub(super) async fn apply(client: &mut deadpool_postgres::Object) -> Result<(), IndexError> {
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS dupfinder_migrations (
             version    integer PRIMARY KEY,
             applied_at timestamptz NOT NULL DEFAULT now()
         )",
    )
    .await?;
    tx.commit().await?;
    for (version, sql) in MIGRATIONS {
        let tx = client.transaction().await?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
            .await?;
        let applied = tx
            .query_opt(
                "SELECT 1 FROM dupfinder_migrations WHERE version = $1",
                &[version],
            )
            .await?;
        if applied.is_some() {
            continue;
        }
        tx.batch_execute(sql)
            .await
            .map_err(|e| StorageError::Migration {
                version: *version,
                reason: e
                    .as_db_error()
                    .map_or(e.to_string(), |d| d.message().to_string()),
            })?;
        tx.execute(
            "INSERT INTO dupfinder_migrations (version) VALUES ($1)",
            &[version],
        )
        .await?;
        tx.commit().await?;
    }
    Ok(())
}
