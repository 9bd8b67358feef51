//! Upgrading an index written by an older release in place, when the declared schema only adds
//! fields after the old ones that a segment written before them can simply lack: stored fields
//! (as version 7 added `pdf_url` and `doi`) and analysed text fields without a column (as version
//! 8 added `body_terms`).
//!
//! A segment written before such a field existed holds no value for it: tantivy reads its
//! documents with the field absent, reads its postings of the field as an empty inverted index
//! and scores it at a constant length where it has no norms. So the upgrade rewrites the schema
//! in `meta.json` (atomically, under tantivy's writer lock) and touches no segment; it is instant
//! whatever the library's size, and opening the index again finds nothing left to do. Any other
//! difference (a fast field, a changed or removed field) is left for tantivy to refuse
//! ([`IndexError::SchemaMismatch`](super::IndexError::SchemaMismatch)).

use std::path::Path;

use tantivy::directory::{Directory, INDEX_WRITER_LOCK, MmapDirectory};
use tantivy::schema::{Field, Schema};

use super::IndexError;

/// The file where tantivy keeps the index's schema and segment list.
const META_FILE: &str = "meta.json";

/// Brings the index in `directory` (at `path`) to `schema` when it was written with a prefix of
/// it followed only by fields a segment can lack (stored fields, indexed text and string fields
/// without a fast column). Returns the names of the fields added; empty when there was nothing
/// to upgrade (no index yet, the same schema, or a difference it cannot bridge).
pub(crate) fn upgrade_schema(
    path: &Path,
    directory: &MmapDirectory,
    schema: &Schema,
) -> Result<Vec<String>, IndexError> {
    let meta_path = path.join(META_FILE);
    let Some(mut meta) = read_meta(&meta_path)? else {
        return Ok(Vec::new());
    };
    let declared = serde_json::to_value(schema).map_err(|e| IndexError::Io {
        path: meta_path.clone(),
        source: std::io::Error::other(e),
    })?;
    let (Some(on_disk), Some(declared_fields)) = (meta["schema"].as_array(), declared.as_array())
    else {
        return Ok(Vec::new());
    };
    let added = on_disk.len()..declared_fields.len();
    if added.is_empty() || declared_fields[..on_disk.len()] != on_disk[..] {
        return Ok(Vec::new());
    }
    let mut names = Vec::new();
    for id in added {
        let entry = schema.get_field_entry(Field::from_field_id(id as u32));
        let text = matches!(entry.field_type(), tantivy::schema::FieldType::Str(_));
        if entry.is_fast() || (entry.is_indexed() && !text) {
            return Ok(Vec::new());
        }
        names.push(entry.name().to_string());
    }
    let _lock = directory
        .acquire_lock(&INDEX_WRITER_LOCK)
        .map_err(|_| IndexError::Locked {
            path: path.to_path_buf(),
        })?;
    meta["schema"] = declared;
    let bytes = serde_json::to_vec_pretty(&meta).map_err(|e| IndexError::Io {
        path: meta_path.clone(),
        source: std::io::Error::other(e),
    })?;
    dupfinder_common::durable::write_atomically(&meta_path, &bytes)
        .map_err(IndexError::io(&meta_path))?;
    tracing::info!(path = %path.display(), fields = ?names, "index schema upgraded in place");
    Ok(names)
}

/// `meta.json` as JSON; `None` when the index does not exist yet.
fn read_meta(path: &Path) -> Result<Option<serde_json::Value>, IndexError> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(IndexError::io(path)(e)),
    };
    // A meta.json tantivy cannot read is tantivy's to report when it opens the index.
    Ok(serde_json::from_slice(&bytes).ok())
}
