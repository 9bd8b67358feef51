//! The catalog's registry in the database: a library's record kept as JSON in
//! `libraries.record`, so that every process serving the database reads the same one.

use super::LibraryError;
use crate::library::{LibraryRecord, RegistryError};
use dupfinder_storage::StorageError;
use dupfinder_storage::index::IndexError;
use dupfinder_storage::postgres::PgStorage;

/// Creates the library `record` declares, with its record; refused when the id exists.
pub(super) fn create(postgres: &PgStorage, record: &LibraryRecord) -> Result<(), LibraryError> {
    let json = serde_json::to_string(record)
        .map_err(|e| IndexError::from(StorageError::Config(e.to_string())))?;
    if !postgres.insert_library(&record.id, Some(&json))? {
        return Err(RegistryError::Exists(record.id.clone()).into());
    }
    Ok(())
}

/// The record of library `id`, if it exists. A library created without one (by an earlier
/// release, or through the storage seam alone) is described by its id.
pub(super) fn record(
    postgres: &PgStorage,
    id: &str,
) -> Result<Option<LibraryRecord>, LibraryError> {
    let Some(json) = postgres.record(id)? else {
        return Ok(None);
    };
    let Some(json) = json else {
        return Ok(Some(LibraryRecord {
            id: id.to_string(),
            name: id.to_string(),
            start_url: None,
            clarifications: Vec::new(),
            sitemap_url: None,
            use_sitemaps: false,
            oai_url: None,
            oai_set: None,
            created_at: 0,
            last_indexed: None,
            dir: None,
        }));
    };
    let record = serde_json::from_str(&json).map_err(|e| {
        IndexError::from(StorageError::Config(format!(
            "the record of library `{id}` cannot be read: {e}"
        )))
    })?;
    Ok(Some(record))
}
