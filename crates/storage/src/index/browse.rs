//! Browsing a library without a query: its live documents in a chosen order, a page at a time,
//! without their text.
//!
//! `added_at`, `year` and `doc_id` are fast fields and sort in the collector. Titles are
//! analyzed text, not fast, so their order is built from the document store once per segment
//! (segments never change) and kept in [`TitleOrder`]; deleted documents are dropped when a page
//! is read.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;

use serde::Serialize;
use tantivy::collector::TopDocs;
use tantivy::index::SegmentId;
use tantivy::query::AllQuery;
use tantivy::schema::Value;
use tantivy::{DocAddress, DocId, Order, TantivyDocument};

use super::{DocumentMeta, IndexError, LibraryIndex, StoredDocument};

/// What a listing is sorted by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    /// When the document was (last) written.
    AddedAt,
    /// Case-insensitive title; untitled documents last.
    Title,
    /// Publication year; documents without one sort below every year (last when descending,
    /// first when ascending).
    Year,
    DocId,
}

impl SortKey {
    /// Parses the API's name of a sort key.
    pub fn parse(name: &str) -> Option<SortKey> {
        match name {
            "added_at" => Some(SortKey::AddedAt),
            "title" => Some(SortKey::Title),
            "year" => Some(SortKey::Year),
            "doc_id" => Some(SortKey::DocId),
            _ => None,
        }
    }
}

/// Which way a listing runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortOrder {
    Asc,
    Desc,
}

impl From<SortOrder> for Order {
    fn from(order: SortOrder) -> Order {
        match order {
            SortOrder::Asc => Order::Asc,
            SortOrder::Desc => Order::Desc,
        }
    }
}

/// A document in a listing: everything but its text.
#[derive(Debug, Clone, Serialize)]
pub struct DocumentSummary {
    #[serde(flatten)]
    pub meta: DocumentMeta,
    pub words: u64,
    pub added_at: u64,
}

impl From<StoredDocument> for DocumentSummary {
    fn from(d: StoredDocument) -> Self {
        DocumentSummary {
            meta: d.meta,
            words: d.words,
            added_at: d.added_at,
        }
    }
}

/// A page of a library's documents.
#[derive(Debug, Clone, Serialize)]
pub struct DocumentPage {
    /// Live documents in the library.
    pub total: u64,
    pub items: Vec<DocumentSummary>,
}

/// The title order of each segment: `(sort key, doc)` sorted by key, deleted documents
/// included. Keyed by segment id; entries of merged-away segments are dropped on use.
#[derive(Default)]
pub(crate) struct TitleOrder {
    segments: Mutex<HashMap<SegmentId, SegmentTitles>>,
}

/// Untitled documents sort after every title in ascending order; ties go by document id.
type TitleKey = (bool, String, String);

/// One segment's documents in title order.
type SegmentTitles = Arc<Vec<(TitleKey, DocId)>>;

impl LibraryIndex {
    /// A page of the library's live documents, `limit` from `offset`, in the order asked for.
    /// Documents with equal keys keep a stable order.
    pub fn browse(
        &self,
        sort: SortKey,
        order: SortOrder,
        limit: usize,
        offset: usize,
    ) -> Result<DocumentPage, IndexError> {
        let order = Order::from(order);
        let searcher = self.searcher();
        let path = self.dir().join("content");
        let top = TopDocs::with_limit(limit.max(1)).and_offset(offset);
        let addresses: Vec<DocAddress> = match sort {
            SortKey::AddedAt | SortKey::Year => {
                let field = if sort == SortKey::Year {
                    "year"
                } else {
                    "added_at"
                };
                searcher
                    .search(&AllQuery, &top.order_by_fast_field::<u64>(field, order))
                    .map_err(IndexError::tantivy(&path))?
                    .into_iter()
                    .map(|(_, address)| address)
                    .collect()
            }
            SortKey::DocId => searcher
                .search(&AllQuery, &top.order_by_string_fast_field("doc_id", order))
                .map_err(IndexError::tantivy(&path))?
                .into_iter()
                .map(|(_, address)| address)
                .collect(),
            SortKey::Title => self.by_title(&searcher, order, limit, offset)?,
        };
        let mut items = Vec::with_capacity(addresses.len());
        for address in addresses.into_iter().take(limit) {
            items.push(DocumentSummary::from(self.described(&searcher, address)?));
        }
        Ok(DocumentPage {
            total: searcher.num_docs(),
            items,
        })
    }

    fn by_title(
        &self,
        searcher: &tantivy::Searcher,
        order: Order,
        limit: usize,
        offset: usize,
    ) -> Result<Vec<DocAddress>, IndexError> {
        let mut live: Vec<(&TitleKey, DocAddress)> =
            Vec::with_capacity(searcher.num_docs() as usize);
        let orders = self.title_orders(searcher)?;
        for (ord, (segment, sorted)) in searcher.segment_readers().iter().zip(&orders).enumerate() {
            live.extend(
                sorted
                    .iter()
                    .filter(|(_, doc)| !segment.is_deleted(*doc))
                    .map(|(key, doc)| (key, DocAddress::new(ord as u32, *doc))),
            );
        }
        live.sort_by(|a, b| a.0.cmp(b.0).then(a.1.cmp(&b.1)));
        if order == Order::Desc {
            // Untitled documents stay last either way.
            let titled = live.partition_point(|(key, _)| !key.0);
            live[..titled].reverse();
        }
        Ok(live
            .into_iter()
            .skip(offset)
            .take(limit)
            .map(|(_, address)| address)
            .collect())
    }

    /// Each segment's title order, computed for segments not seen before.
    fn title_orders(&self, searcher: &tantivy::Searcher) -> Result<Vec<SegmentTitles>, IndexError> {
        let path = self.dir().join("content");
        let mut cache = self.title_order.segments.lock();
        let current: Vec<SegmentId> = searcher
            .segment_readers()
            .iter()
            .map(|s| s.segment_id())
            .collect();
        cache.retain(|id, _| current.contains(id));
        let mut orders = Vec::with_capacity(current.len());
        for segment in searcher.segment_readers() {
            if let Some(sorted) = cache.get(&segment.segment_id()) {
                orders.push(sorted.clone());
                continue;
            }
            let store = segment
                .get_store_reader(16)
                .map_err(IndexError::io(&path))?;
            let mut sorted = Vec::with_capacity(segment.max_doc() as usize);
            // Every document, deleted ones included, so the order stays valid for the segment's
            // whole life.
            for (doc, stored) in store.iter::<TantivyDocument>(None).enumerate() {
                let stored = stored.map_err(IndexError::tantivy(&path))?;
                let text = |field| {
                    stored
                        .get_first(field)
                        .and_then(|v| v.as_str())
                        .map(str::to_string)
                };
                let title = text(self.schema().title).filter(|t| !t.trim().is_empty());
                let key = (
                    title.is_none(),
                    title.map(|t| t.trim().to_lowercase()).unwrap_or_default(),
                    text(self.schema().doc_id).unwrap_or_default(),
                );
                sorted.push((key, doc as DocId));
            }
            sorted.sort();
            let sorted = Arc::new(sorted);
            cache.insert(segment.segment_id(), sorted.clone());
            orders.push(sorted);
        }
        Ok(orders)
    }
}
