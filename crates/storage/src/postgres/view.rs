//! A check's read of one library: one pooled connection holding one `REPEATABLE READ READ ONLY`
//! transaction from the view's start to its end, so every lookup and stored read sees the same
//! committed state and the same generation, whatever writes and switches commit meanwhile.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::database::Shared;
use super::library::term_stats;
use super::meta::meta_of;
use crate::ReadView;
use crate::index::{
    DocKey, IndexError, ShingleHits, ShingleQuery, ShingleSearch, StoredDocument, StoredForCheck,
    TermCounts, decode_shingles,
};
use dupfinder_signature::{RobustScheme, StatsSnapshot};
use dupfinder_text::analysis::ShingleSelection;

/// One library as of one moment, on PostgreSQL.
pub struct PgView {
    shared: Arc<Shared>,
    client: Option<deadpool_postgres::Object>,
    library: String,
    generation: i64,
    docs: u64,
    shingle_selection: ShingleSelection,
}

/// The selection a library's `shingles` column names.
pub(super) fn selection_of(marker: &str) -> Result<ShingleSelection, IndexError> {
    ShingleSelection::from_marker(marker).ok_or_else(|| {
        IndexError::from(crate::StorageError::Config(format!(
            "unknown shingle selection {marker:?}"
        )))
    })
}

/// The columns of a stored document, in the order [`stored_of`] reads them.
/// The columns of a stored document: [`META_COLUMNS`], then `words, content_hash, added_at,
/// text` (columns 8 to 11).
const STORED_COLUMNS: &str =
    "doc_id, url, title, authors, lang, year, pdf_url, doi, words, content_hash, added_at, text";

impl PgView {
    /// Opens the transaction and reads the library's current generation in it.
    pub(super) fn open(shared: Arc<Shared>, library: &str) -> Result<PgView, IndexError> {
        let (client, generation, docs, shingle_selection) = shared.block_on(async {
            let client = shared.client().await?;
            // The two statements are pipelined: one round trip opens the view.
            let (begun, row) = tokio::join!(
                client.batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"),
                async {
                    let statement = client
                        .prepare_cached(
                            "SELECT l.generation, g.docs, l.shingles FROM libraries l \
                             JOIN generations g \
                               ON g.library = l.library AND g.generation = l.generation \
                             WHERE l.library = $1",
                        )
                        .await?;
                    client.query_opt(&statement, &[&library]).await
                }
            );
            begun?;
            let row = row?;
            let Some(row) = row else {
                client.batch_execute("ROLLBACK").await?;
                return Err(IndexError::from(crate::StorageError::NoSuchLibrary(
                    library.to_string(),
                )));
            };
            let selection = selection_of(&row.get::<_, String>(2))?;
            Ok((
                client,
                row.get::<_, i64>(0),
                row.get::<_, i64>(1),
                selection,
            ))
        })?;
        Ok(PgView {
            shared,
            client: Some(client),
            library: library.to_string(),
            generation,
            docs: docs as u64,
            shingle_selection,
        })
    }

    fn client(&self) -> &deadpool_postgres::Object {
        self.client
            .as_ref()
            .expect("the view's connection is held until it is dropped")
    }

    /// The keys `sql` selects; its parameters are `params` after the library.
    fn select_keys(
        &self,
        sql: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<Vec<DocKey>, IndexError> {
        let mut all: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = vec![&self.library];
        all.extend_from_slice(params);
        self.shared.block_on(async {
            let client = self.client();
            let statement = client.prepare_cached(sql).await?;
            let rows = client.query(&statement, &all).await?;
            Ok(rows
                .iter()
                .map(|r| DocKey(r.get::<_, i64>(0) as u64))
                .collect())
        })
    }

    fn row(&self, sql: &str, key: DocKey) -> Result<Option<tokio_postgres::Row>, IndexError> {
        self.shared.block_on(async {
            let client = self.client();
            let statement = client.prepare_cached(sql).await?;
            Ok(client
                .query_opt(&statement, &[&self.library, &(key.0 as i64)])
                .await?)
        })
    }
}

impl Drop for PgView {
    fn drop(&mut self) {
        if let Some(client) = self.client.take() {
            // A read-only transaction: ending it either way is the same. A connection that
            // cannot end it is not returned to the pool.
            let ended = self
                .shared
                .block_on(async { client.batch_execute("ROLLBACK").await });
            if ended.is_err() {
                let _ = deadpool_postgres::Object::take(client);
            }
        }
    }
}

/// A stored document from a row of [`STORED_COLUMNS`].
fn stored_of(row: &tokio_postgres::Row) -> StoredDocument {
    StoredDocument {
        meta: meta_of(row),
        words: row.get::<_, i64>(8) as u64,
        content_hash: row.get::<_, i64>(9) as u64,
        added_at: row.get::<_, i64>(10) as u64,
        text: row.get(11),
    }
}

/// A stored document with what verification needs, from a row of [`STORED_COLUMNS`] followed
/// by `terms, tfs, shingle_seq`.
fn for_check_of(row: &tokio_postgres::Row) -> Result<StoredForCheck, IndexError> {
    let document = stored_of(row);
    let terms: Vec<String> = row.get(12);
    let tfs: Vec<i32> = row.get(13);
    let shingles =
        decode_shingles(row.get::<_, &[u8]>(14)).ok_or_else(|| IndexError::CorruptDocument {
            doc_id: document.meta.doc_id.clone(),
            reason: "undecodable shingle sequence".to_string(),
        })?;
    let counts = TermCounts::from_pairs(
        terms
            .iter()
            .map(String::as_str)
            .zip(tfs.into_iter().map(|tf| tf as u32)),
    );
    Ok(StoredForCheck::new(document, shingles, Some(counts)))
}

impl ReadView for PgView {
    fn generation(&self) -> u64 {
        self.generation as u64
    }

    fn scheme(&self) -> RobustScheme {
        self.shared.scheme
    }

    fn shingle_selection(&self) -> ShingleSelection {
        self.shingle_selection
    }

    /// Only the query's terms are read: a snapshot of millions of terms stays in the database.
    fn statistics(&self, terms: &[(String, u32)]) -> Result<Cow<'_, StatsSnapshot>, IndexError> {
        let names: Vec<&str> = terms.iter().map(|(t, _)| t.as_str()).collect();
        let rows = self.shared.block_on(async {
            let client = self.client();
            let statement = client
                .prepare_cached(
                    "SELECT term, df, cf FROM term_stats \
                     WHERE library = $1 AND generation = $2 AND term = ANY($3)",
                )
                .await?;
            Ok::<_, IndexError>(
                client
                    .query(&statement, &[&self.library, &self.generation, &names])
                    .await?,
            )
        })?;
        Ok(Cow::Owned(StatsSnapshot::new(
            self.generation as u64,
            self.docs,
            term_stats(&rows),
        )))
    }

    /// The analyzer's terms are the lexemes of the `search` vector: any of them, ranked by
    /// `ts_rank`.
    fn term_search(
        &self,
        terms: &[String],
        lang: &str,
        limit: usize,
    ) -> Result<Option<Vec<DocKey>>, IndexError> {
        let mut query = String::new();
        for term in terms.iter().take(crate::index::MAX_SEARCH_TERMS) {
            if !query.is_empty() {
                query.push_str(" | ");
            }
            super::search::quote_lexeme(&mut query, term);
        }
        if query.is_empty() || limit == 0 {
            return Ok(Some(Vec::new()));
        }
        self.select_keys(
            "SELECT doc_key FROM documents \
             WHERE library = $1 AND lang = $2 AND search @@ $3::text::tsquery \
             ORDER BY ts_rank(search, $3::text::tsquery) DESC, doc_key LIMIT $4",
            &[&lang, &query, &(limit as i64)],
        )
        .map(Some)
    }

    fn with_content_hash(&self, hash: u64, limit: usize) -> Result<Vec<DocKey>, IndexError> {
        self.select_keys(
            "SELECT doc_key FROM documents WHERE library = $1 AND content_hash = $2 \
             ORDER BY doc_key LIMIT $3",
            &[&(hash as i64), &(limit as i64)],
        )
    }

    fn with_seed(&self, seed: u32, limit: usize) -> Result<Vec<DocKey>, IndexError> {
        self.select_keys(
            "SELECT doc_key FROM signatures \
             WHERE library = $1 AND generation = $2 AND seed = $3 \
             ORDER BY doc_key LIMIT $4",
            &[&self.generation, &i64::from(seed), &(limit as i64)],
        )
    }

    fn with_robust(&self, signature: u64, limit: usize) -> Result<Vec<DocKey>, IndexError> {
        self.select_keys(
            "SELECT doc_key FROM robust_signatures \
             WHERE library = $1 AND generation = $2 AND signature = $3 \
             ORDER BY doc_key LIMIT $4",
            &[&self.generation, &(signature as i64), &(limit as i64)],
        )
    }

    /// One round trip for every signature (a check has about seventeen).
    fn with_robust_each(
        &self,
        signatures: &[u64],
        limit: usize,
    ) -> Result<Vec<Vec<DocKey>>, IndexError> {
        let wanted: Vec<i64> = signatures.iter().map(|s| *s as i64).collect();
        let rows = self.shared.block_on(async {
            let client = self.client();
            let statement = client
                .prepare_cached(
                    "SELECT signature, doc_key FROM ( \
                       SELECT signature, doc_key, \
                         row_number() OVER (PARTITION BY signature ORDER BY doc_key) AS n \
                       FROM robust_signatures \
                       WHERE library = $1 AND generation = $2 AND signature = ANY($3)) AS found \
                     WHERE n <= $4",
                )
                .await?;
            Ok::<_, IndexError>(
                client
                    .query(
                        &statement,
                        &[&self.library, &self.generation, &wanted, &(limit as i64)],
                    )
                    .await?,
            )
        })?;
        let mut found: HashMap<i64, Vec<DocKey>> = HashMap::new();
        for row in &rows {
            found
                .entry(row.get(0))
                .or_default()
                .push(DocKey(row.get::<_, i64>(1) as u64));
        }
        Ok(wanted
            .iter()
            .map(|s| {
                let mut keys = found.get(s).cloned().unwrap_or_default();
                keys.sort_by_key(|k| k.0 as i64);
                keys
            })
            .collect())
    }

    fn shingle_search(&self, query: &ShingleQuery<'_>) -> Result<ShingleSearch, IndexError> {
        let sampled: Vec<i64> = query
            .shingles
            .iter()
            .copied()
            .collect::<HashSet<u64>>()
            .into_iter()
            .map(|h| h as i64)
            .collect();
        self.shared.block_on(async {
            let client = self.client();
            // Each shingle's holders are counted up to one past `max_df` only: whether a
            // shingle is frequent is all a check needs beyond that, and a common shingle of a
            // large library has thousands of holders (counting them all was most of a check's
            // time at a million documents).
            let frequencies = client
                .prepare_cached(
                    "SELECT s, (SELECT count(*) FROM \
                       (SELECT 1 FROM shingles WHERE library = $1 AND shingle = s LIMIT $3) c) \
                     FROM unnest($2::bigint[]) AS s",
                )
                .await?;
            let cap = i64::try_from(query.max_df.saturating_add(1)).unwrap_or(i64::MAX);
            let rows = client
                .query(&frequencies, &[&self.library, &sampled, &cap])
                .await?;
            let mut doc_freq = HashMap::new();
            let mut frequent = HashSet::new();
            for row in &rows {
                let (shingle, df) = (row.get::<_, i64>(0) as u64, row.get::<_, i64>(1) as u64);
                if df == 0 {
                    continue;
                }
                doc_freq.insert(shingle, df);
                if df > query.max_df {
                    frequent.insert(shingle);
                }
            }
            let usable: Vec<i64> = sampled
                .iter()
                .copied()
                .filter(|h| !frequent.contains(&(*h as u64)))
                .collect();
            let documents = client
                .prepare_cached(
                    "SELECT doc_key, count(*) AS hits FROM shingles \
                     WHERE library = $1 AND shingle = ANY($2) \
                     GROUP BY doc_key HAVING count(*) >= $3 \
                     ORDER BY hits DESC, doc_key LIMIT $4",
                )
                .await?;
            let found = client
                .query(
                    &documents,
                    &[
                        &self.library,
                        &usable,
                        &i64::from(query.min_hits),
                        &(query.limit as i64),
                    ],
                )
                .await?;
            let hits = found
                .iter()
                .map(|r| {
                    (
                        DocKey(r.get::<_, i64>(0) as u64),
                        ShingleHits {
                            distinct: r.get::<_, i64>(1) as u32,
                        },
                    )
                })
                .collect();
            Ok(ShingleSearch {
                usable: usable.len(),
                frequent,
                doc_freq,
                hits,
            })
        })
    }

    fn stored(&self, key: DocKey) -> Result<Option<StoredDocument>, IndexError> {
        let sql =
            format!("SELECT {STORED_COLUMNS} FROM documents WHERE library = $1 AND doc_key = $2");
        Ok(self.row(&sql, key)?.as_ref().map(stored_of))
    }

    fn stored_for_check(&self, key: DocKey) -> Result<Option<StoredForCheck>, IndexError> {
        Ok(self.stored_for_check_each(&[key])?.pop().flatten())
    }

    /// One round trip for every key: a check verifies dozens of candidates, and a read each
    /// was most of its time.
    fn stored_for_check_each(
        &self,
        keys: &[DocKey],
    ) -> Result<Vec<Option<StoredForCheck>>, IndexError> {
        let wanted: Vec<i64> = keys.iter().map(|k| k.0 as i64).collect();
        let rows = self.shared.block_on(async {
            let client = self.client();
            let statement = client
                .prepare_cached(&format!(
                    "SELECT {STORED_COLUMNS}, terms, tfs, shingle_seq, doc_key FROM documents \
                     WHERE library = $1 AND doc_key = ANY($2)"
                ))
                .await?;
            Ok::<_, IndexError>(client.query(&statement, &[&self.library, &wanted]).await?)
        })?;
        let mut found: HashMap<i64, StoredForCheck> = HashMap::with_capacity(rows.len());
        for row in &rows {
            found.insert(row.get(15), for_check_of(row)?);
        }
        // A key asked for twice is answered twice: moved out at its last occurrence.
        let mut left: HashMap<i64, usize> = HashMap::with_capacity(wanted.len());
        for key in &wanted {
            *left.entry(*key).or_default() += 1;
        }
        Ok(wanted
            .iter()
            .map(|key| {
                let count = left.get_mut(key).expect("counted above");
                *count -= 1;
                if *count == 0 {
                    found.remove(key)
                } else {
                    found.get(key).cloned()
                }
            })
            .collect())
    }

    /// One round trip for every key: building clusters looks up each member of each.
    fn stored_each(&self, keys: &[DocKey]) -> Result<Vec<Option<StoredDocument>>, IndexError> {
        let wanted: Vec<i64> = keys.iter().map(|k| k.0 as i64).collect();
        let rows = self.shared.block_on(async {
            let client = self.client();
            let statement = client
                .prepare_cached(&format!(
                    "SELECT {STORED_COLUMNS}, doc_key FROM documents \
                     WHERE library = $1 AND doc_key = ANY($2)"
                ))
                .await?;
            Ok::<_, IndexError>(client.query(&statement, &[&self.library, &wanted]).await?)
        })?;
        let found: HashMap<i64, StoredDocument> = rows
            .iter()
            .map(|row| (row.get(12), stored_of(row)))
            .collect();
        Ok(wanted.iter().map(|key| found.get(key).cloned()).collect())
    }

    fn keys(&self) -> Result<Vec<DocKey>, IndexError> {
        self.shared.block_on(async {
            let client = self.client();
            let rows = client
                .query(
                    "SELECT doc_key FROM documents WHERE library = $1 ORDER BY doc_key",
                    &[&self.library],
                )
                .await?;
            Ok(rows
                .iter()
                .map(|r| DocKey(r.get::<_, i64>(0) as u64))
                .collect())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::meta::META_COLUMNS;
    use super::STORED_COLUMNS;

    #[test]
    fn stored_columns_begin_with_the_meta_columns() {
        assert!(STORED_COLUMNS.starts_with(&format!("{META_COLUMNS}, ")));
    }
}
