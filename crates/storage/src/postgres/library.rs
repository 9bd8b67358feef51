//! One library on PostgreSQL: writes signed against the current generation, deletes, its
//! summary and listing, and the re-index with its one-transaction switch.
//!
//! Every statement names the library in its `WHERE`, so under Citus each one runs on the one
//! shard that holds the library.
//!
//! **Locks.** A write takes the library's row in `libraries` `FOR SHARE` for its transaction;
//! the re-index's two short steps that must see no write half done (the mark at its start, the
//! switch at its end) take it `FOR UPDATE`. Re-indexes of one library are serialized across
//! processes by a session advisory lock (`claim.rs`).
//!
//! **The re-index** follows the protocol of `index/rebuild.rs` in its own code: statistics
//! counted in SQL with a mark of the last change they include, documents signed in `doc_key`
//! order in batches of one transaction each (a resume starts after the last key signed; the
//! cancel flag is looked at before each row is signed), and one transaction that signs the
//! changes past the mark and switches. ARCHITECTURE.md ("One re-index protocol, two
//! implementations") says why the two are not one function over the seam.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use tokio_postgres::Transaction;

use super::database::Shared;
use super::meta::{META_COLUMNS, meta_of};
use super::view::{PgView, selection_of};
use crate::StorageError;
use crate::index::{
    DocumentPage, DocumentSummary, IndexError, IndexSummary, PreparedDocument, RebuildControl,
    RebuildOutcome, SearchError, SearchResults, SortKey, SortOrder, doc_key, encode_shingles, pace,
};
use crate::{Kept, LibraryStore, ReadView, ReindexClaim, UnfinishedReindex};
use dupfinder_common::clock::unix_now;
use dupfinder_signature::{RobustScheme, StatsSnapshot, TermStats, all_signatures};
use dupfinder_text::analysis::ShingleSelection;

/// The most documents a re-index reads, signs and commits together (fewer when
/// `RebuildControl::commit_every` asks for fewer).
const SIGN_BATCH: u64 = 2_000;

/// One library of a PostgreSQL database.
#[derive(Clone)]
pub struct PgLibrary {
    pub(super) shared: Arc<Shared>,
    pub(super) library: String,
}

/// Signatures of documents, ready to insert: parallel columns.
#[derive(Default)]
struct Signed {
    keys: Vec<i64>,
    seeds: Vec<Option<i64>>,
    robust: Vec<i64>,
    robust_keys: Vec<i64>,
}

impl Signed {
    fn add(
        &mut self,
        key: i64,
        counts: &[(String, u32)],
        snapshot: &StatsSnapshot,
        scheme: RobustScheme,
    ) {
        let (seed, robust) = all_signatures(counts, snapshot, scheme);
        self.keys.push(key);
        self.seeds.push(seed.map(i64::from));
        for signature in robust {
            self.robust.push(signature as i64);
            self.robust_keys.push(key);
        }
    }

    /// Inserts the signatures into `generation`.
    async fn insert(
        &self,
        tx: &Transaction<'_>,
        library: &str,
        generation: i64,
    ) -> Result<(), IndexError> {
        tx.execute(
            "INSERT INTO signatures (library, generation, doc_key, seed) \
             SELECT $1, $2, k, s FROM unnest($3::bigint[], $4::bigint[]) AS t(k, s)",
            &[&library, &generation, &self.keys, &self.seeds],
        )
        .await?;
        tx.execute(
            "INSERT INTO robust_signatures (library, generation, signature, doc_key) \
             SELECT $1, $2, s, k FROM unnest($3::bigint[], $4::bigint[]) AS t(s, k) \
             ON CONFLICT DO NOTHING",
            &[&library, &generation, &self.robust, &self.robust_keys],
        )
        .await?;
        Ok(())
    }
}

/// A document's term counts from its `terms` and `tfs` columns.
fn counts_of(row: &tokio_postgres::Row, terms: usize, tfs: usize) -> Vec<(String, u32)> {
    let terms: Vec<String> = row.get(terms);
    let tfs: Vec<i32> = row.get(tfs);
    terms
        .into_iter()
        .zip(tfs.into_iter().map(|tf| tf as u32))
        .collect()
}

/// The statistics of `generation` for `terms` (every term when `None`), as a snapshot.
async fn load_snapshot(
    tx: &Transaction<'_>,
    library: &str,
    generation: i64,
    terms: Option<&[&str]>,
) -> Result<StatsSnapshot, IndexError> {
    let docs: i64 = tx
        .query_one(
            "SELECT docs FROM generations WHERE library = $1 AND generation = $2",
            &[&library, &generation],
        )
        .await?
        .get(0);
    let rows = match terms {
        Some(terms) => {
            tx.query(
                "SELECT term, df, cf FROM term_stats \
                 WHERE library = $1 AND generation = $2 AND term = ANY($3)",
                &[&library, &generation, &terms],
            )
            .await?
        }
        None => {
            tx.query(
                "SELECT term, df, cf FROM term_stats WHERE library = $1 AND generation = $2",
                &[&library, &generation],
            )
            .await?
        }
    };
    Ok(StatsSnapshot::new(
        generation as u64,
        docs as u64,
        term_stats(&rows),
    ))
}

/// Rows of `term, df, cf` (from `term_stats`) as a snapshot's statistics.
pub(super) fn term_stats(rows: &[tokio_postgres::Row]) -> HashMap<String, TermStats> {
    rows.iter()
        .map(|r| {
            (
                r.get::<_, String>(0),
                TermStats {
                    df: r.get::<_, i64>(1) as u32,
                    cf: r.get::<_, i64>(2) as u64,
                },
            )
        })
        .collect()
}

impl PgLibrary {
    pub(super) fn new(shared: Arc<Shared>, library: String) -> Self {
        PgLibrary { shared, library }
    }

    fn missing(&self) -> IndexError {
        StorageError::NoSuchLibrary(self.library.clone()).into()
    }

    /// Locks the library's row (`FOR SHARE` or `FOR UPDATE`) and returns its generation.
    async fn lock(&self, tx: &Transaction<'_>, mode: &str) -> Result<i64, IndexError> {
        Ok(self.lock_reading(tx, mode).await?.0)
    }

    /// Locks the library's row like [`PgLibrary::lock`] and returns its generation and shingle
    /// selection.
    async fn lock_reading(
        &self,
        tx: &Transaction<'_>,
        mode: &str,
    ) -> Result<(i64, ShingleSelection), IndexError> {
        let row = tx
            .query_opt(
                &format!(
                    "SELECT generation, shingles FROM libraries WHERE library = $1 FOR {mode}"
                ),
                &[&self.library],
            )
            .await?
            .ok_or_else(|| self.missing())?;
        Ok((row.get(0), selection_of(&row.get::<_, String>(1))?))
    }

    /// Deletes every row of the documents `keys` (signatures of every generation included).
    async fn delete_keys(&self, tx: &Transaction<'_>, keys: &[i64]) -> Result<u64, IndexError> {
        let mut deleted = 0;
        for table in ["documents", "shingles", "signatures", "robust_signatures"] {
            let n = tx
                .execute(
                    &format!("DELETE FROM {table} WHERE library = $1 AND doc_key = ANY($2)"),
                    &[&self.library, &keys],
                )
                .await?;
            if table == "documents" {
                deleted = n;
            }
        }
        Ok(deleted)
    }

    /// The re-index's steps, on one connection that holds the re-index lock.
    pub(super) async fn reindex_locked(
        &self,
        client: &mut deadpool_postgres::Object,
        control: &RebuildControl<'_>,
        progress: &mut dyn FnMut(u64),
    ) -> Result<RebuildOutcome, IndexError> {
        let library = self.library.as_str();
        let current: i64 = client
            .query_opt(
                "SELECT generation FROM libraries WHERE library = $1",
                &[&library],
            )
            .await?
            .ok_or_else(|| self.missing())?
            .get(0);
        let next = current + 1;
        let building = client
            .query_opt(
                "SELECT mark FROM generations \
                 WHERE library = $1 AND generation = $2 AND state = 'building'",
                &[&library, &next],
            )
            .await?;
        let mark: i64 = match building {
            Some(row) => row.get(0),
            None => self.count_statistics(client, next).await?,
        };

        // Sign every live document in key order; each batch is committed, so a stopped
        // re-index resumes after the last key signed.
        let tx = client.transaction().await?;
        let snapshot = load_snapshot(&tx, library, next, None).await?;
        let resume = tx
            .query_one(
                "SELECT count(*), max(doc_key) FROM signatures WHERE library = $1 AND generation = $2",
                &[&library, &next],
            )
            .await?;
        tx.commit().await?;
        let mut done = resume.get::<_, i64>(0) as u64;
        let mut last: Option<i64> = resume.get(1);
        progress(done);
        let started = Instant::now();
        let mut signed_now = 0u64;
        let batch = control.commit_every.clamp(1, SIGN_BATCH) as i64;
        loop {
            let tx = client.transaction().await?;
            let rows = tx
                .query(
                    "SELECT doc_key, terms, tfs FROM documents \
                     WHERE library = $1 AND ($2::bigint IS NULL OR doc_key > $2) \
                     ORDER BY doc_key LIMIT $3",
                    &[&library, &last, &batch],
                )
                .await?;
            if rows.is_empty() {
                break;
            }
            let mut signed = Signed::default();
            let mut cancelled = false;
            for row in &rows {
                if control.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                    cancelled = true;
                    break;
                }
                let key: i64 = row.get(0);
                signed.add(key, &counts_of(row, 1, 2), &snapshot, self.shared.scheme);
                last = Some(key);
                done += 1;
                signed_now += 1;
                progress(done);
                pace(control.max_docs_per_second, signed_now, started);
            }
            signed.insert(&tx, library, next).await?;
            tx.commit().await?;
            if cancelled {
                return Ok(RebuildOutcome::Cancelled {
                    generation: next as u64,
                    signed: done,
                });
            }
        }
        self.switch(client, current, next, mark, &snapshot).await?;
        // Views still reading the old generation keep seeing its rows (their snapshot is
        // older than this delete); new views read the new one.
        let tx = client.transaction().await?;
        for table in ["term_stats", "signatures", "robust_signatures"] {
            tx.execute(
                &format!("DELETE FROM {table} WHERE library = $1 AND generation = $2"),
                &[&library, &current],
            )
            .await?;
        }
        tx.commit().await?;
        // The planner's statistics of these tables still describe the old generation's rows
        // (or none, after a first re-index): refreshed now, a check's lookups keep their index
        // plans instead of waiting for autovacuum.
        client
            .batch_execute("ANALYZE term_stats, signatures, robust_signatures")
            .await?;
        Ok(RebuildOutcome::Finished {
            generation: next as u64,
        })
    }

    /// Counts the statistics of generation `next` over the live documents, in SQL, and records
    /// the generation as being built. Returns its mark: the last document change it includes
    /// for certain.
    async fn count_statistics(
        &self,
        client: &mut deadpool_postgres::Object,
        next: i64,
    ) -> Result<i64, IndexError> {
        let library = self.library.as_str();
        // No write is half done while the mark is read: later writes get later changes.
        let tx = client.transaction().await?;
        self.lock(&tx, "UPDATE").await?;
        let mark: i64 = tx
            .query_one(
                "SELECT coalesce(max(change), 0) FROM documents WHERE library = $1",
                &[&library],
            )
            .await?
            .get(0);
        tx.commit().await?;
        // N, df and cf from one consistent state; writes go on meanwhile.
        let tx = client
            .build_transaction()
            .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
            .start()
            .await?;
        for table in [
            "term_stats",
            "signatures",
            "robust_signatures",
            "generations",
        ] {
            tx.execute(
                &format!("DELETE FROM {table} WHERE library = $1 AND generation = $2"),
                &[&library, &next],
            )
            .await?;
        }
        tx.execute(
            "INSERT INTO term_stats (library, generation, term, df, cf) \
             SELECT $1, $2, t.term, count(*), sum(t.tf) \
             FROM documents d CROSS JOIN LATERAL unnest(d.terms, d.tfs) AS t(term, tf) \
             WHERE d.library = $1 GROUP BY t.term",
            &[&library, &next],
        )
        .await?;
        tx.execute(
            "INSERT INTO generations (library, generation, state, docs, mark) \
             SELECT $1, $2, 'building', count(*), $3 FROM documents WHERE library = $1",
            &[&library, &next, &mark],
        )
        .await?;
        tx.commit().await?;
        Ok(mark)
    }

    /// The switch, in one transaction: documents written or replaced since the mark are signed
    /// again, signatures of documents deleted meanwhile dropped, and the library's generation
    /// set. A check sees the old generation or the new one, never a mix.
    async fn switch(
        &self,
        client: &mut deadpool_postgres::Object,
        current: i64,
        next: i64,
        mark: i64,
        snapshot: &StatsSnapshot,
    ) -> Result<(), IndexError> {
        let library = self.library.as_str();
        let tx = client.transaction().await?;
        if self.lock(&tx, "UPDATE").await? != current {
            return Err(StorageError::Config(format!(
                "library `{library}` switched generation during its re-index"
            ))
            .into());
        }
        let changed = tx
            .query(
                "SELECT doc_key, terms, tfs FROM documents WHERE library = $1 AND change > $2",
                &[&library, &mark],
            )
            .await?;
        let mut signed = Signed::default();
        for row in &changed {
            signed.add(
                row.get(0),
                &counts_of(row, 1, 2),
                snapshot,
                self.shared.scheme,
            );
        }
        for table in ["signatures", "robust_signatures"] {
            tx.execute(
                &format!(
                    "DELETE FROM {table} WHERE library = $1 AND generation = $2 \
                     AND doc_key = ANY($3)"
                ),
                &[&library, &next, &signed.keys],
            )
            .await?;
            tx.execute(
                &format!(
                    "DELETE FROM {table} s WHERE s.library = $1 AND s.generation = $2 \
                     AND NOT EXISTS (SELECT 1 FROM documents d \
                                     WHERE d.library = s.library AND d.doc_key = s.doc_key)"
                ),
                &[&library, &next],
            )
            .await?;
        }
        signed.insert(&tx, library, next).await?;
        tx.execute(
            "UPDATE generations SET state = CASE WHEN generation = $2 THEN 'live' ELSE 'retired' END \
             WHERE library = $1 AND generation IN ($2, $3)",
            &[&library, &next, &current],
        )
        .await?;
        tx.execute(
            "UPDATE libraries SET generation = $2 WHERE library = $1",
            &[&library, &next],
        )
        .await?;
        tx.commit().await?;
        Ok(())
    }
}

impl LibraryStore for PgLibrary {
    fn view(&self) -> Result<Box<dyn ReadView + '_>, IndexError> {
        Ok(Box::new(PgView::open(self.shared.clone(), &self.library)?))
    }

    fn kept(&self) -> Kept {
        Kept::Rows(Arc::new(self.clone()))
    }

    fn write(&self, documents: &[PreparedDocument]) -> Result<(), IndexError> {
        // The last version of an id sent twice in one batch wins, as in tantivy.
        let mut seen = HashSet::new();
        let mut batch: Vec<&PreparedDocument> = documents
            .iter()
            .rev()
            .filter(|d| seen.insert(d.doc_id.as_str()))
            .collect();
        batch.reverse();
        if batch.is_empty() {
            return Ok(());
        }
        let library = self.library.as_str();
        let scheme = self.shared.scheme;
        self.shared.block_on(async {
            let mut client = self.shared.client().await?;
            let tx = client.transaction().await?;
            let (generation, selection) = self.lock_reading(&tx, "SHARE").await?;
            let terms: Vec<&str> = batch
                .iter()
                .flat_map(|d| d.term_counts.iter().map(|(t, _)| t.as_str()))
                .collect::<HashSet<_>>()
                .into_iter()
                .collect();
            let snapshot = load_snapshot(&tx, library, generation, Some(&terms)).await?;
            let keys: Vec<i64> = batch.iter().map(|d| doc_key(&d.doc_id) as i64).collect();
            self.delete_keys(&tx, &keys).await?;
            let insert = tx
                .prepare(
                    "INSERT INTO documents (library, doc_key, doc_id, url, title, authors, lang, \
                     year, words, tokens, content_hash, added_at, text, terms, tfs, shingle_seq, \
                     pdf_url, doi, search) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, \
                     $17, $18, $19::text::tsvector)",
                )
                .await?;
            let added_at = unix_now() as i64;
            let mut signed = Signed::default();
            let (mut shingles, mut shingle_keys) = (Vec::new(), Vec::new());
            for (document, key) in batch.iter().zip(&keys) {
                let terms: Vec<&str> = document.term_counts.iter().map(|(t, _)| t.as_str()).collect();
                let tfs: Vec<i32> = document.term_counts.iter().map(|(_, c)| *c as i32).collect();
                let tokens: i64 = tfs.iter().map(|&c| i64::from(c)).sum();
                let search = super::search::search_vector(&self.shared.analyzer, document);
                tx.execute(
                    &insert,
                    &[
                        &library,
                        key,
                        &document.doc_id,
                        &document.url,
                        &document.title,
                        &document.authors,
                        &document.lang.code(),
                        &document.year.map(|y| y as i64),
                        &(document.words as i64),
                        &tokens,
                        &(document.content_hash as i64),
                        &added_at,
                        &document.text,
                        &terms,
                        &tfs,
                        &encode_shingles(&document.shingle_seq),
                        &document.pdf_url,
                        &document.doi,
                        &search,
                    ],
                )
                .await?;
                signed.add(*key, &document.term_counts, &snapshot, scheme);
                for shingle in selection.select(&document.shingle_seq) {
                    shingles.push(shingle as i64);
                    shingle_keys.push(*key);
                }
            }
            signed.insert(&tx, library, generation).await?;
            tx.execute(
                "INSERT INTO shingles (library, shingle, doc_key) \
                 SELECT $1, s, k FROM unnest($2::bigint[], $3::bigint[]) AS t(s, k) \
                 ON CONFLICT DO NOTHING",
                &[&library, &shingles, &shingle_keys],
            )
            .await?;
            tx.commit().await?;
            Ok(())
        })
    }

    fn search(
        &self,
        query: &str,
        limit: usize,
        offset: usize,
    ) -> Result<SearchResults, SearchError> {
        PgLibrary::search(self, query, limit, offset)
    }

    fn delete(&self, doc_id: &str) -> Result<bool, IndexError> {
        self.shared.block_on(async {
            let mut client = self.shared.client().await?;
            let tx = client.transaction().await?;
            self.lock(&tx, "SHARE").await?;
            let deleted = self.delete_keys(&tx, &[doc_key(doc_id) as i64]).await?;
            tx.commit().await?;
            Ok(deleted > 0)
        })
    }

    fn summary(&self) -> Result<IndexSummary, IndexError> {
        self.shared.block_on(async {
            let client = self.shared.client().await?;
            let row = client
                .query_opt(
                    "SELECT l.generation, g.docs, \
                       (SELECT count(*) FROM documents WHERE library = $1), \
                       (SELECT coalesce(sum(tokens), 0)::bigint FROM documents WHERE library = $1), \
                       (SELECT count(*) FROM documents WHERE library = $1 AND change > g.mark) \
                     FROM libraries l JOIN generations g \
                       ON g.library = l.library AND g.generation = l.generation \
                     WHERE l.library = $1",
                    &[&self.library],
                )
                .await?
                .ok_or_else(|| self.missing())?;
            let snapshot_documents = row.get::<_, i64>(1) as u64;
            Ok(IndexSummary {
                documents: row.get::<_, i64>(2) as u64,
                words: row.get::<_, i64>(3) as u64,
                generation: row.get::<_, i64>(0) as u64,
                snapshot_documents,
                drift: row.get::<_, i64>(4) as f64 / snapshot_documents.max(1) as f64,
            })
        })
    }

    fn browse(
        &self,
        sort: SortKey,
        order: SortOrder,
        limit: usize,
        offset: usize,
    ) -> Result<DocumentPage, IndexError> {
        let direction = match order {
            SortOrder::Asc => "ASC",
            SortOrder::Desc => "DESC",
        };
        // As tantivy orders: years missing below every year, untitled documents last either
        // way, ties by id, strings by their bytes.
        let order_by = match sort {
            SortKey::AddedAt => format!("added_at {direction}, doc_id COLLATE \"C\""),
            SortKey::Year => format!(
                "year {direction} NULLS {}, doc_id COLLATE \"C\"",
                if order == SortOrder::Asc {
                    "FIRST"
                } else {
                    "LAST"
                }
            ),
            SortKey::DocId => format!("doc_id COLLATE \"C\" {direction}"),
            SortKey::Title => format!(
                "(title IS NULL OR btrim(title) = ''), \
                 lower(btrim(title)) COLLATE \"C\" {direction}, doc_id COLLATE \"C\""
            ),
        };
        self.shared.block_on(async {
            let client = self.shared.client().await?;
            let tx_rows = client
                .query(
                    &format!(
                        "SELECT {META_COLUMNS}, words, added_at, count(*) OVER () \
                         FROM documents WHERE library = $1 \
                         ORDER BY {order_by} LIMIT $2 OFFSET $3"
                    ),
                    &[&self.library, &(limit as i64), &(offset as i64)],
                )
                .await?;
            let total = match tx_rows.first() {
                Some(row) => row.get::<_, i64>(10) as u64,
                None => client
                    .query_one(
                        "SELECT count(*) FROM documents WHERE library = $1",
                        &[&self.library],
                    )
                    .await?
                    .get::<_, i64>(0) as u64,
            };
            let items = tx_rows
                .iter()
                .map(|r| DocumentSummary {
                    meta: meta_of(r),
                    words: r.get::<_, i64>(8) as u64,
                    added_at: r.get::<_, i64>(9) as u64,
                })
                .collect();
            Ok(DocumentPage { total, items })
        })
    }

    fn reindex(
        &self,
        control: &RebuildControl<'_>,
        progress: &mut dyn FnMut(u64),
    ) -> Result<RebuildOutcome, IndexError> {
        let library = Arc::new(PgLibrary::new(self.shared.clone(), self.library.clone()));
        let mut claim = library
            .claim(true)?
            .expect("a claim that waits for the lock is always granted");
        claim.reindex(control, progress)
    }

    fn claim_reindex(self: Arc<Self>) -> Result<Option<Box<dyn ReindexClaim>>, IndexError> {
        Ok(self
            .claim(false)?
            .map(|claim| Box::new(claim) as Box<dyn ReindexClaim>))
    }

    fn unfinished_reindex(&self) -> Result<UnfinishedReindex, IndexError> {
        self.unfinished()
    }
}
