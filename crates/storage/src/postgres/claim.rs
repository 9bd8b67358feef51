//! The right to re-index one library on PostgreSQL: a session advisory lock keyed by the
//! library, held on one pooled connection for as long as the claim lives. Every process serving
//! the database asks for the same lock, so a re-index runs once; a killed process's connection
//! closes and the server releases its lock, so another process can resume the generation.

use std::sync::Arc;

use super::database::Shared;
use super::library::PgLibrary;
use crate::index::{IndexError, RebuildControl, RebuildOutcome};
use crate::{ReindexClaim, UnfinishedReindex};

/// The first key of the advisory lock that serializes a library's re-indexes ("dfri"); the
/// second is the hash of the library's id.
const REINDEX_LOCK: i32 = 0x6466_7269;

/// A held re-index lock of one library, released when dropped.
pub struct PgReindexClaim {
    library: Arc<PgLibrary>,
    lock: AdvisoryLock,
}

/// A session advisory lock `(key, hashtext(library))` held on one pooled connection, released
/// when dropped (or, if unlocking fails, by closing the connection).
pub(super) struct AdvisoryLock {
    shared: Arc<Shared>,
    key: i32,
    library: String,
    /// The connection holding the lock; `None` once released.
    client: Option<deadpool_postgres::Object>,
}

impl AdvisoryLock {
    /// Takes the lock: waits for it when `wait`, else answers `None` at once when another
    /// session holds it.
    pub(super) fn take(
        shared: &Arc<Shared>,
        key: i32,
        library: &str,
        wait: bool,
    ) -> Result<Option<AdvisoryLock>, IndexError> {
        let client = shared.block_on(async {
            let client = shared.client().await?;
            let locked = if wait {
                client
                    .execute(
                        "SELECT pg_advisory_lock($1, hashtext($2))",
                        &[&key, &library],
                    )
                    .await?;
                true
            } else {
                client
                    .query_one(
                        "SELECT pg_try_advisory_lock($1, hashtext($2))",
                        &[&key, &library],
                    )
                    .await?
                    .get(0)
            };
            Ok::<_, IndexError>(locked.then_some(client))
        })?;
        Ok(client.map(|client| AdvisoryLock {
            shared: shared.clone(),
            key,
            library: library.to_string(),
            client: Some(client),
        }))
    }

    /// The connection holding the lock.
    fn client(&mut self) -> &mut deadpool_postgres::Object {
        self.client
            .as_mut()
            .expect("a lock holds its connection until dropped")
    }
}

impl Drop for AdvisoryLock {
    fn drop(&mut self) {
        let Some(client) = self.client.take() else {
            return;
        };
        let unlocked = self.shared.block_on(client.execute(
            "SELECT pg_advisory_unlock($1, hashtext($2))",
            &[&self.key, &self.library],
        ));
        if unlocked.is_err() {
            // Closing the connection releases its locks.
            drop(deadpool_postgres::Object::take(client));
        }
    }
}

impl PgLibrary {
    /// Takes the library's re-index lock: waits for it when `wait`, else answers `None` at
    /// once when another session holds it.
    pub(super) fn claim(self: Arc<Self>, wait: bool) -> Result<Option<PgReindexClaim>, IndexError> {
        let lock = AdvisoryLock::take(&self.shared, REINDEX_LOCK, &self.library, wait)?;
        Ok(lock.map(|lock| PgReindexClaim {
            library: self,
            lock,
        }))
    }

    /// What is left of the library's last re-index: its next generation still being built,
    /// paused by an operator or not.
    pub(super) fn unfinished(&self) -> Result<UnfinishedReindex, IndexError> {
        self.shared.block_on(async {
            let client = self.shared.client().await?;
            let row = client
                .query_opt(
                    "SELECT g.paused FROM generations g JOIN libraries l ON l.library = g.library \
                     WHERE g.library = $1 AND g.generation = l.generation + 1 \
                       AND g.state = 'building'",
                    &[&self.library],
                )
                .await?;
            Ok(match row.map(|r| r.get::<_, bool>(0)) {
                None => UnfinishedReindex::None,
                Some(false) => UnfinishedReindex::Interrupted,
                Some(true) => UnfinishedReindex::Paused,
            })
        })
    }
}

impl ReindexClaim for PgReindexClaim {
    fn reindex(
        &mut self,
        control: &RebuildControl<'_>,
        progress: &mut dyn FnMut(u64),
    ) -> Result<RebuildOutcome, IndexError> {
        let library = &self.library;
        let client = self.lock.client();
        library
            .shared
            .block_on(library.reindex_locked(client, control, progress))
    }

    fn set_paused(&mut self, paused: bool) -> Result<(), IndexError> {
        let library = &self.library;
        let client = self.lock.client();
        library.shared.block_on(async {
            client
                .execute(
                    "UPDATE generations g SET paused = $2 FROM libraries l \
                     WHERE g.library = $1 AND l.library = $1 \
                       AND g.generation = l.generation + 1 AND g.state = 'building'",
                    &[&library.library, &paused],
                )
                .await?;
            Ok(())
        })
    }
}
