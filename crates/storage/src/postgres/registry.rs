//! The library registry in the database: each library's record (how it was declared, when it
//! was last written) as JSON in `libraries.record`, read afresh at every request, so that every
//! process serving the database sees a library as soon as one of them created or changed it.

use super::database::PgStorage;
use crate::index::IndexError;
use crate::{BackendError, LibraryId, LibraryRecord, RecordChange, RegistryError, StorageError};
use dupfinder_common::clock::unix_now;
use dupfinder_text::analysis::ShingleSelection;

impl PgStorage {
    /// Creates the library `record` declares, with the record; refused when the id exists.
    pub(super) fn insert_record(&self, record: &LibraryRecord) -> Result<(), BackendError> {
        let json = serde_json::to_string(record)
            .map_err(|e| IndexError::from(StorageError::Config(e.to_string())))?;
        if !self.insert_library(&record.id, Some(&json))? {
            return Err(RegistryError::Exists(record.id.clone()).into());
        }
        Ok(())
    }

    /// The record of library `id`, if it exists. A library created without one (by an earlier
    /// release, or through [`crate::Storage::create`]) is described by its id.
    pub(super) fn read_record(&self, id: &str) -> Result<Option<LibraryRecord>, BackendError> {
        let Some(json) = self.record_json(id)? else {
            return Ok(None);
        };
        Ok(Some(parse_record(id, json)?))
    }

    /// Every library's record, ordered by id, in one statement.
    pub(super) fn read_records(&self) -> Result<Vec<LibraryRecord>, BackendError> {
        let rows: Vec<(String, Option<String>)> = self.shared.block_on(async {
            let client = self.shared.client().await?;
            let rows = client
                .query(
                    "SELECT library, record::text FROM libraries ORDER BY library",
                    &[],
                )
                .await?;
            Ok::<_, IndexError>(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
        })?;
        rows.into_iter()
            .map(|(id, json)| parse_record(&id, json))
            .collect()
    }

    /// Changes library `id`'s record by `change` under the row's lock (`FOR UPDATE`), so that
    /// another process's change made meanwhile — a write's `last_indexed`, a declaration — is
    /// never lost; written only when it changed.
    pub(super) fn modify_record(
        &self,
        id: &str,
        change: &mut dyn FnMut(&mut LibraryRecord),
    ) -> Result<RecordChange, BackendError> {
        LibraryId::parse(id).map_err(BackendError::InvalidId)?;
        self.shared.block_on(async {
            let mut client = self.shared.client().await?;
            let tx = client.transaction().await.map_err(IndexError::from)?;
            let row = tx
                .query_opt(
                    "SELECT record::text FROM libraries WHERE library = $1 FOR UPDATE",
                    &[&id],
                )
                .await
                .map_err(IndexError::from)?;
            let Some(row) = row else {
                return Ok(RecordChange::NotFound);
            };
            let before = parse_record(id, row.get(0))?;
            let mut after = before.clone();
            change(&mut after);
            if after == before {
                return Ok(RecordChange::Unchanged);
            }
            let json = serde_json::to_string(&after)
                .map_err(|e| IndexError::from(StorageError::Config(e.to_string())))?;
            tx.execute(
                "UPDATE libraries SET record = $2::text::jsonb WHERE library = $1",
                &[&id, &json],
            )
            .await
            .map_err(IndexError::from)?;
            tx.commit().await.map_err(IndexError::from)?;
            Ok(RecordChange::Changed)
        })
    }

    /// Creates the library `id` with its generation 0 and `record` (JSON); whether it was
    /// created (`false`: it existed, and is left as it was).
    pub(super) fn insert_library(
        &self,
        id: &str,
        record: Option<&str>,
    ) -> Result<bool, IndexError> {
        LibraryId::parse(id).map_err(StorageError::Config)?;
        self.shared.block_on(async {
            let mut client = self.shared.client().await?;
            let tx = client.transaction().await?;
            let created = tx
                .execute(
                    "INSERT INTO libraries (library, created_at, record, search_pairs, shingles) \
                     VALUES ($1, $2, $3::text::jsonb, true, $4) ON CONFLICT (library) DO NOTHING",
                    &[
                        &id,
                        &(unix_now() as i64),
                        &record,
                        &ShingleSelection::NEW.marker(),
                    ],
                )
                .await?;
            if created == 1 {
                tx.execute(
                    "INSERT INTO generations (library, generation, state, docs, mark) \
                     VALUES ($1, 0, 'live', 0, 0)",
                    &[&id],
                )
                .await?;
            }
            tx.commit().await?;
            Ok(created == 1)
        })
    }

    /// The record of library `id` as JSON: `None` when the library does not exist,
    /// `Some(None)` when it exists without a record (created by an earlier release, or through
    /// [`crate::Storage::create`]).
    fn record_json(&self, id: &str) -> Result<Option<Option<String>>, IndexError> {
        self.shared.block_on(async {
            let client = self.shared.client().await?;
            let row = client
                .query_opt(
                    "SELECT record::text FROM libraries WHERE library = $1",
                    &[&id],
                )
                .await?;
            Ok(row.map(|r| r.get(0)))
        })
    }

    /// Records that library `id` was written to at `when` (seconds since the epoch), in its
    /// record's `last_indexed`.
    pub(super) fn set_last_indexed(&self, id: &str, when: u64) -> Result<(), IndexError> {
        self.shared.block_on(async {
            let client = self.shared.client().await?;
            client
                .execute(
                    "UPDATE libraries \
                     SET record = jsonb_set(record, '{last_indexed}', to_jsonb($2::bigint)) \
                     WHERE library = $1 AND record IS NOT NULL",
                    &[&id, &(when as i64)],
                )
                .await?;
            Ok(())
        })
    }
}

/// A library's record from its JSON; a library without one is described by its id.
fn parse_record(id: &str, json: Option<String>) -> Result<LibraryRecord, BackendError> {
    let Some(json) = json else {
        return Ok(LibraryRecord::of_id(id, 0));
    };
    serde_json::from_str(&json).map_err(|e| {
        IndexError::from(StorageError::Config(format!(
            "the record of library `{id}` cannot be read: {e}"
        )))
        .into()
    })
}
