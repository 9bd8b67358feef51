//! The service's own records in the database of `[storage] backend = "postgres"` (migration 6
//! of `dupfinder-storage`: keys, the audit log, reports, batches, webhooks): the one way their
//! stores run statements there, and the failure they all answer.

use dupfinder_storage::postgres::PgDatabase;

/// A pooled connection of the database.
pub(crate) type Client = deadpool_postgres::Object;

/// Why a statement of a store failed: the database's message, or a value that could not be
/// read or written.
#[derive(Debug)]
pub(crate) struct DbFail(pub(crate) String);

impl std::fmt::Display for DbFail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "database: {}", self.0)
    }
}

impl From<tokio_postgres::Error> for DbFail {
    fn from(e: tokio_postgres::Error) -> Self {
        DbFail(
            e.as_db_error()
                .map_or(e.to_string(), |d| d.message().to_string()),
        )
    }
}

impl From<serde_json::Error> for DbFail {
    fn from(e: serde_json::Error) -> Self {
        DbFail(e.to_string())
    }
}

impl From<std::io::Error> for DbFail {
    fn from(e: std::io::Error) -> Self {
        DbFail(e.to_string())
    }
}

/// Runs `work` on one pooled connection of `db`, blocking until it ends.
pub(crate) fn run<T>(
    db: &PgDatabase,
    work: impl AsyncFnOnce(&mut Client) -> Result<T, DbFail>,
) -> Result<T, DbFail> {
    db.block_on(async {
        let mut client = db.client().await.map_err(|e| DbFail(e.to_string()))?;
        work(&mut client).await
    })
}

/// Milliseconds since the Unix epoch, as the database's lease columns hold them.
pub(crate) fn millis_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}
