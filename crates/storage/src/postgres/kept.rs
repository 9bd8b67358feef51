//! What is kept with a library on PostgreSQL (see `storage::kept`): its dedup state in
//! `dedup_documents` and `dedup_lines`, its phrases in `phrases`, and the advisory locks of its
//! dedup job and cluster changes. Every statement names the library, so under Citus each runs
//! on the library's shard.

use std::sync::Arc;

use super::claim::AdvisoryLock;
use super::library::PgLibrary;
use crate::index::IndexError;
use crate::{AddedPhrase, Held, KeptLock, KeptRows, Phrase};

/// The first key of the advisory lock held by a library's running dedup job ("dfdd"); the
/// second is the hash of the library's id. Not the re-index's key: a library may be
/// re-indexed and deduplicated at once.
const DEDUP_JOB_LOCK: i32 = 0x6466_6464;
/// The first key of the advisory lock held while a library's clusters change ("dfds").
const DEDUP_STATE_LOCK: i32 = 0x6466_6473;
/// The first key of the transaction lock that serializes additions to a library's phrases
/// ("dfph"), so that two processes adding at once cannot pass the limit together.
const PHRASES_LOCK: i32 = 0x6466_7068;

/// Lines of a log read per round trip.
const LINES_PER_READ: i64 = 5_000;

impl KeptRows for PgLibrary {
    fn place(&self) -> String {
        format!("postgres:{:p}/{}", Arc::as_ptr(&self.shared), self.library)
    }

    fn document(&self, name: &str) -> Result<Option<String>, IndexError> {
        self.shared.block_on(async {
            let client = self.shared.client().await?;
            let row = client
                .query_opt(
                    "SELECT doc::text FROM dedup_documents WHERE library = $1 AND name = $2",
                    &[&self.library, &name],
                )
                .await?;
            Ok(row.map(|r| r.get(0)))
        })
    }

    fn put_document(&self, name: &str, json: &str, emptied: &[&str]) -> Result<(), IndexError> {
        let emptied: Vec<&str> = emptied.to_vec();
        self.shared.block_on(async {
            let mut client = self.shared.client().await?;
            let tx = client.transaction().await?;
            tx.execute(
                "INSERT INTO dedup_documents (library, name, doc) VALUES ($1, $2, $3::text::jsonb) \
                 ON CONFLICT (library, name) DO UPDATE \
                 SET doc = EXCLUDED.doc, version = nextval('dedup_writes')",
                &[&self.library, &name, &json],
            )
            .await?;
            if !emptied.is_empty() {
                tx.execute(
                    "DELETE FROM dedup_lines WHERE library = $1 AND log = ANY($2)",
                    &[&self.library, &emptied],
                )
                .await?;
            }
            tx.commit().await?;
            Ok(())
        })
    }

    fn remove_document(&self, name: &str) -> Result<(), IndexError> {
        self.shared.block_on(async {
            let client = self.shared.client().await?;
            client
                .execute(
                    "DELETE FROM dedup_documents WHERE library = $1 AND name = $2",
                    &[&self.library, &name],
                )
                .await?;
            Ok(())
        })
    }

    fn append(&self, log: &str, lines: &[String]) -> Result<(), IndexError> {
        if lines.is_empty() {
            return Ok(());
        }
        self.shared.block_on(async {
            let client = self.shared.client().await?;
            // The rows take their sequence numbers in the order of the array.
            client
                .execute(
                    "INSERT INTO dedup_lines (library, log, line) \
                     SELECT $1, $2, l::jsonb FROM unnest($3::text[]) WITH ORDINALITY AS t(l, n) \
                     ORDER BY n",
                    &[&self.library, &log, &lines],
                )
                .await?;
            Ok(())
        })
    }

    fn lines(&self, log: &str, visit: &mut dyn FnMut(String)) -> Result<(), IndexError> {
        let mut after = 0i64;
        loop {
            let rows = self.shared.block_on(async {
                let client = self.shared.client().await?;
                Ok::<_, IndexError>(
                    client
                        .query(
                            "SELECT seq, line::text FROM dedup_lines \
                             WHERE library = $1 AND log = $2 AND seq > $3 ORDER BY seq LIMIT $4",
                            &[&self.library, &log, &after, &LINES_PER_READ],
                        )
                        .await?,
                )
            })?;
            let Some(last) = rows.last() else {
                return Ok(());
            };
            after = last.get(0);
            let full = rows.len() as i64 == LINES_PER_READ;
            for row in rows {
                visit(row.get(1));
            }
            if !full {
                return Ok(());
            }
        }
    }

    fn mark(&self, log: &str) -> Result<u64, IndexError> {
        self.shared.block_on(async {
            let client = self.shared.client().await?;
            let row = client
                .query_one(
                    "SELECT coalesce(max(seq), 0) FROM dedup_lines WHERE library = $1 AND log = $2",
                    &[&self.library, &log],
                )
                .await?;
            Ok(row.get::<_, i64>(0) as u64)
        })
    }

    fn cut(&self, log: &str, mark: u64) -> Result<(), IndexError> {
        self.shared.block_on(async {
            let client = self.shared.client().await?;
            client
                .execute(
                    "DELETE FROM dedup_lines WHERE library = $1 AND log = $2 AND seq > $3",
                    &[&self.library, &log, &(mark as i64)],
                )
                .await?;
            Ok(())
        })
    }

    fn stamp(&self, name: &str, log: &str) -> Result<(Option<i64>, Option<i64>), IndexError> {
        self.shared.block_on(async {
            let client = self.shared.client().await?;
            let row = client
                .query_one(
                    "SELECT (SELECT version FROM dedup_documents WHERE library = $1 AND name = $2), \
                            (SELECT max(seq) FROM dedup_lines WHERE library = $1 AND log = $3)",
                    &[&self.library, &name, &log],
                )
                .await?;
            Ok((row.get(0), row.get(1)))
        })
    }

    fn hold(&self, lock: KeptLock, wait: bool) -> Result<Option<Held>, IndexError> {
        let key = match lock {
            KeptLock::DedupJob => DEDUP_JOB_LOCK,
            KeptLock::DedupState => DEDUP_STATE_LOCK,
        };
        let lock = AdvisoryLock::take(&self.shared, key, &self.library, wait)?;
        Ok(lock.map(|lock| Box::new(lock) as Held))
    }

    fn phrases(&self) -> Result<Vec<Phrase>, IndexError> {
        self.shared.block_on(async {
            let client = self.shared.client().await?;
            let rows = client
                .query(
                    "SELECT id, text, added, added_by FROM phrases WHERE library = $1 \
                     ORDER BY position",
                    &[&self.library],
                )
                .await?;
            Ok(rows.iter().map(phrase_of).collect())
        })
    }

    fn add_phrase(&self, phrase: &Phrase, most: usize) -> Result<AddedPhrase, IndexError> {
        self.shared.block_on(async {
            let mut client = self.shared.client().await?;
            let tx = client.transaction().await?;
            tx.execute(
                "SELECT pg_advisory_xact_lock($1, hashtext($2))",
                &[&PHRASES_LOCK, &self.library],
            )
            .await?;
            let held = tx
                .query_opt(
                    "SELECT id, text, added, added_by FROM phrases WHERE library = $1 AND id = $2",
                    &[&self.library, &phrase.id],
                )
                .await?;
            if let Some(row) = held {
                return Ok(AddedPhrase::Held(phrase_of(&row)));
            }
            let count: i64 = tx
                .query_one(
                    "SELECT count(*) FROM phrases WHERE library = $1",
                    &[&self.library],
                )
                .await?
                .get(0);
            if count as usize >= most {
                return Ok(AddedPhrase::Full);
            }
            tx.execute(
                "INSERT INTO phrases (library, id, text, added, added_by) \
                 VALUES ($1, $2, $3, $4, $5)",
                &[
                    &self.library,
                    &phrase.id,
                    &phrase.text,
                    &(phrase.added as i64),
                    &phrase.by,
                ],
            )
            .await?;
            tx.commit().await?;
            Ok(AddedPhrase::New)
        })
    }

    fn remove_phrase(&self, id: &str) -> Result<Option<Phrase>, IndexError> {
        self.shared.block_on(async {
            let client = self.shared.client().await?;
            let row = client
                .query_opt(
                    "DELETE FROM phrases WHERE library = $1 AND id = $2 \
                     RETURNING id, text, added, added_by",
                    &[&self.library, &id],
                )
                .await?;
            Ok(row.as_ref().map(phrase_of))
        })
    }
}

/// A phrase from a row of `id, text, added, added_by`.
fn phrase_of(row: &tokio_postgres::Row) -> Phrase {
    Phrase {
        id: row.get(0),
        text: row.get(1),
        added: row.get::<_, i64>(2) as u64,
        by: row.get(3),
    }
}
