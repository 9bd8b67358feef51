//! A document's name and description as the statements that show documents select them.

use crate::index::DocumentMeta;

/// The columns of a document's [`DocumentMeta`], in the order [`meta_of`] reads them: every
/// statement that shows documents selects them first.
pub(crate) const META_COLUMNS: &str = "doc_id, url, title, authors, lang, year, pdf_url, doi";

/// What names and describes a document, from the first columns of a row ([`META_COLUMNS`]).
pub(crate) fn meta_of(row: &tokio_postgres::Row) -> DocumentMeta {
    DocumentMeta {
        doc_id: row.get(0),
        url: row.get(1),
        title: row.get(2),
        authors: row.get(3),
        lang: row.get(4),
        year: row.get::<_, Option<i64>>(5).map(|y| y as u64),
        pdf_url: row.get(6),
        doi: row.get(7),
    }
}
