//! One library's frontier: the pages it knows and their states, the first-in-first-out queue of
//! pages to fetch, the id enumeration and the run's counters, all persisted in the
//! [`CrawlStore`] so that a restarted crawl continues where it stopped.
//!
//! A page is stored once, under its URL. A link to a known page queues it again only when a
//! later crawl run walks through it: a page that is not an article (a list, an index) is
//! revisited once per run to find links to new articles — seed 000's "handshakes" — while an
//! indexed article is never fetched again.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;

use url::Url;

use super::job::{CrawlMode, JobRecord, Outcome, Stage};
use super::pattern::{Clarifications, Site};
use super::store::{CrawlStore, Failure, PageRecord, PageState, StoreError, Tables};

/// A page taken from the frontier to be fetched.
#[derive(Debug, Clone)]
pub struct Reserved {
    pub url: String,
    pub record: PageRecord,
}

/// The frontier of one library.
pub struct Frontier {
    store: Arc<CrawlStore>,
    library: String,
    site: Site,
    clarifications: Clarifications,
    max_depth: u32,
    /// The job record, written with every change of page states.
    job: Mutex<JobRecord>,
    /// Article URLs known (any state); discovery stops at a threshold.
    articles_known: AtomicU64,
}

impl Frontier {
    /// The frontier of the library `job` is for, on `site`, whose article URLs match
    /// `clarifications`; links are followed at most `max_depth` hops from the start page.
    pub fn new(
        store: Arc<CrawlStore>,
        job: JobRecord,
        site: Site,
        clarifications: Clarifications,
        max_depth: u32,
    ) -> Result<Frontier, StoreError> {
        let library = job.library.clone();
        let articles = store
            .pages(&library)?
            .iter()
            .filter(|(_, p)| p.article)
            .count() as u64;
        Ok(Frontier {
            store,
            library,
            site,
            clarifications,
            max_depth,
            job: Mutex::new(job),
            articles_known: AtomicU64::new(articles),
        })
    }

    pub fn library(&self) -> &str {
        &self.library
    }

    /// A copy of the job record as it stands.
    pub fn job(&self) -> JobRecord {
        self.job.lock().clone()
    }

    pub(crate) fn articles_known(&self) -> u64 {
        self.articles_known.load(Ordering::Relaxed)
    }

    pub(crate) fn is_article(&self, url: &Url) -> bool {
        self.site.contains(url) && self.clarifications.is_article(url)
    }

    pub(crate) fn site(&self) -> &Site {
        &self.site
    }

    /// Changes the job record and persists it (with nothing else).
    pub fn update_job(
        &self,
        durable: bool,
        f: impl FnOnce(&mut JobRecord),
    ) -> Result<JobRecord, StoreError> {
        self.transact(durable, |_, job| {
            f(job);
            Ok(())
        })?;
        Ok(self.job())
    }

    /// Runs `f` on the store's tables and the job record in one transaction, and saves the job
    /// record with it. The in-memory record changes only when the transaction commits.
    fn transact<T>(
        &self,
        durable: bool,
        f: impl FnOnce(&mut Tables, &mut JobRecord) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut guard = self.job.lock();
        let mut job = guard.clone();
        let value = self.store.write(durable, |tables| {
            let value = f(tables, &mut job)?;
            tables.put_job(&job)?;
            Ok(value)
        })?;
        *guard = job;
        Ok(value)
    }

    fn insert_new(
        &self,
        t: &mut Tables,
        job: &mut JobRecord,
        url: &str,
        record: &PageRecord,
    ) -> Result<(), StoreError> {
        t.put_page(&self.library, url, record)?;
        t.push_frontier(&self.library, job.next_seq, url)?;
        job.next_seq += 1;
        Ok(())
    }

    /// Puts pages left half-way by an interrupted crawl (reserved, fetched, or an article whose
    /// links were collected but which was not indexed) back into the frontier.
    pub fn recover(&self) -> Result<usize, StoreError> {
        self.transact(true, |t, job| {
            let queued: std::collections::HashSet<String> = t
                .clear_frontier(&self.library)?
                .into_iter()
                .collect::<std::collections::HashSet<_>>();
            let mut recovered = 0;
            let pages = t.pages_of(&self.library)?;
            for (url, mut page) in pages {
                let stale = match page.state {
                    PageState::New => true,
                    PageState::Reserved | PageState::Fetched => true,
                    PageState::LinksCollected => page.article,
                    PageState::Indexed | PageState::Failed => false,
                };
                if !stale {
                    continue;
                }
                if page.state != PageState::New || !queued.contains(&url) {
                    recovered += 1;
                }
                page.state = PageState::New;
                self.insert_new(t, job, &url, &page)?;
            }
            Ok(recovered)
        })
    }

    /// Queues `url` (a start page) unless it is known; a known page that is not an article is
    /// queued again once per run.
    pub fn seed(&self, url: &Url, depth: u32) -> Result<bool, StoreError> {
        self.transact(false, |t, job| self.offer(t, job, url, depth, None))
    }

    /// Offers one URL to the frontier; returns whether it was queued.
    fn offer(
        &self,
        t: &mut Tables,
        job: &mut JobRecord,
        url: &Url,
        depth: u32,
        id: Option<u64>,
    ) -> Result<bool, StoreError> {
        let article = self.is_article(url);
        match t.page(&self.library, url.as_str())? {
            None => {
                let record = PageRecord::new(article, depth, job.run, id);
                self.insert_new(t, job, url.as_str(), &record)?;
                job.counters.pages_found += 1;
                if article {
                    self.articles_known.fetch_add(1, Ordering::Relaxed);
                }
                Ok(true)
            }
            Some(mut page) if page.run < job.run && revisit(&page) => {
                page.state = PageState::New;
                page.run = job.run;
                page.failure = None;
                page.depth = page.depth.min(depth);
                self.insert_new(t, job, url.as_str(), &page)?;
                Ok(true)
            }
            Some(_) => Ok(false),
        }
    }

    /// Records how the crawl ended; a crawl that is done or failed leaves the queue in the
    /// same transaction, so that no one sees it finished and still queued.
    pub(crate) fn finish(
        &self,
        outcome: Outcome,
        finished_at: u64,
    ) -> Result<JobRecord, StoreError> {
        self.transact(true, |t, job| {
            if outcome != Outcome::Stopped
                && let Some(position) = t.queue_position(&self.library)?
            {
                t.remove_queued(position)?;
            }
            if outcome == Outcome::Done {
                job.stage = Stage::Done;
            }
            job.outcome = Some(outcome);
            job.finished_at = Some(finished_at);
            Ok(())
        })?;
        Ok(self.job())
    }

    /// Takes up to `n` pages from the front of the frontier and marks them reserved.
    pub fn reserve(&self, n: usize) -> Result<Vec<Reserved>, StoreError> {
        self.transact(false, |t, _| {
            let urls = t.pop_frontier(&self.library, n)?;
            let mut reserved = Vec::with_capacity(urls.len());
            for url in urls {
                let Some(mut record) = t.page(&self.library, &url)? else {
                    continue;
                };
                record.state = PageState::Reserved;
                t.put_page(&self.library, &url, &record)?;
                reserved.push(Reserved { url, record });
            }
            Ok(reserved)
        })
    }

    /// Returns reserved pages that were not fetched to the frontier.
    pub fn release(&self, pages: Vec<Reserved>) -> Result<(), StoreError> {
        if pages.is_empty() {
            return Ok(());
        }
        self.transact(true, |t, job| {
            for mut page in pages {
                page.record.state = PageState::New;
                self.insert_new(t, job, &page.url, &page.record)?;
            }
            Ok(())
        })
    }

    /// A page was fetched.
    pub(crate) fn fetched(&self, url: &str) -> Result<(), StoreError> {
        self.transact(false, |t, job| {
            if let Some(mut page) = t.page(&self.library, url)? {
                page.state = PageState::Fetched;
                t.put_page(&self.library, url, &page)?;
            }
            job.counters.pages_fetched += 1;
            Ok(())
        })
    }

    /// A fetched page was parsed: its links (when they are followed) join the frontier, one
    /// hop deeper. `responded` says whether it answered as an article (an enumerated id that
    /// exists). Returns how many links were queued.
    pub(crate) fn collected(
        &self,
        url: &str,
        links: &[Url],
        responded: bool,
    ) -> Result<usize, StoreError> {
        self.transact(false, |t, job| {
            let Some(mut page) = t.page(&self.library, url)? else {
                return Ok(0);
            };
            let mut queued = 0;
            if page.depth < self.max_depth {
                for link in links.iter().filter(|l| self.site.contains(l)) {
                    if self.offer(t, job, link, page.depth + 1, None)? {
                        queued += 1;
                    }
                }
            }
            page.state = PageState::LinksCollected;
            page.responded = responded;
            t.put_page(&self.library, url, &page)?;
            job.counters.pages_parsed += 1;
            if responded
                && let (Some(id), Some(CrawlMode::Enumerate(range))) = (page.id, job.mode.as_mut())
            {
                range.hit(id);
            }
            Ok(queued)
        })
    }

    /// A page failed.
    pub(crate) fn failed(&self, url: &str, failure: Failure) -> Result<(), StoreError> {
        self.transact(false, |t, job| {
            if let Some(mut page) = t.page(&self.library, url)? {
                page.state = PageState::Failed;
                page.failure = Some(failure.clone());
                t.put_page(&self.library, url, &page)?;
            }
            record_failure(job, &failure.code);
            Ok(())
        })
    }

    /// An article's full text was read (`true`), or could not be fetched or read and the
    /// article keeps its landing page's text (`false`).
    pub(crate) fn full_text_read(&self, read: bool) -> Result<(), StoreError> {
        self.transact(false, |_, job| {
            if read {
                job.counters.full_texts += 1;
            } else {
                job.counters.full_text_failures += 1;
            }
            Ok(())
        })
    }

    /// Articles were written to the index: a durable commit, after the index's own.
    pub(crate) fn indexed(&self, urls: &[String]) -> Result<(), StoreError> {
        self.transact(true, |t, job| {
            for url in urls {
                if let Some(mut page) = t.page(&self.library, url)? {
                    page.state = PageState::Indexed;
                    page.failure = None;
                    t.put_page(&self.library, url, &page)?;
                }
            }
            job.counters.pages_indexed += urls.len() as u64;
            Ok(())
        })
    }

    /// Queues article URLs from a sitemap or an OAI-PMH record; returns how many were new.
    pub fn add_articles(&self, urls: &[Url]) -> Result<usize, StoreError> {
        self.transact(false, |t, job| {
            let mut queued = 0;
            for url in urls.iter().filter(|u| self.is_article(u)) {
                if self.offer(t, job, url, 0, None)? {
                    queued += 1;
                }
            }
            Ok(queued)
        })
    }

    /// The URLs of known article pages.
    pub(crate) fn article_urls(&self) -> Result<Vec<String>, StoreError> {
        Ok(self
            .store
            .pages(&self.library)?
            .into_iter()
            .filter(|(_, p)| p.article)
            .map(|(url, _)| url)
            .collect())
    }

    /// Switches to id enumeration: pages still waiting in the frontier are forgotten (the
    /// enumeration generates the articles among them again).
    pub(crate) fn start_enumeration(&self, mode: CrawlMode) -> Result<(), StoreError> {
        self.transact(true, |t, job| {
            let waiting = t.clear_frontier(&self.library)?;
            for url in &waiting {
                if let Some(page) = t.page(&self.library, url)? {
                    if page.article {
                        self.articles_known.fetch_sub(1, Ordering::Relaxed);
                    }
                    t.remove_page(&self.library, url)?;
                    job.counters.pages_found = job.counters.pages_found.saturating_sub(1);
                }
            }
            job.mode = Some(mode);
            Ok(())
        })
    }

    /// Queues up to `n` more ids of the enumeration; returns how many were queued (0: the
    /// range is exhausted for now). Known ids are not fetched again, except ids that were
    /// missing or failed transiently in an earlier run.
    pub(crate) fn generate(&self, n: usize, misses: u64) -> Result<usize, StoreError> {
        self.transact(false, |t, job| {
            let Some(CrawlMode::Enumerate(mut range)) = job.mode.clone() else {
                return Ok(0);
            };
            let mut queued = 0;
            while queued < n {
                let Some(id) = range.next_id(misses) else {
                    break;
                };
                let url_text = range.pattern.url(id);
                let Ok(url) = Url::parse(&url_text) else {
                    continue;
                };
                match t.page(&self.library, url.as_str())? {
                    None => {
                        let record = PageRecord::new(true, 1, job.run, Some(id));
                        self.insert_new(t, job, url.as_str(), &record)?;
                        job.counters.pages_found += 1;
                        self.articles_known.fetch_add(1, Ordering::Relaxed);
                        queued += 1;
                    }
                    Some(page) if page.responded || page.state == PageState::Indexed => {
                        range.hit(id);
                    }
                    Some(mut page)
                        if page.state == PageState::Failed
                            && page.run < job.run
                            && page
                                .failure
                                .as_ref()
                                .is_some_and(|f| f.transient || f.code == "not_found") =>
                    {
                        page.state = PageState::New;
                        page.run = job.run;
                        page.id = Some(id);
                        page.failure = None;
                        self.insert_new(t, job, url.as_str(), &page)?;
                        queued += 1;
                    }
                    Some(_) => {}
                }
            }
            job.mode = Some(CrawlMode::Enumerate(range));
            Ok(queued)
        })
    }
}

/// Whether a known page is worth a visit in a new run: a page that only yields links (to find
/// new articles through it), or one that failed for a reason that may have passed.
fn revisit(page: &PageRecord) -> bool {
    match page.state {
        PageState::LinksCollected => !page.article,
        PageState::Failed => page.failure.as_ref().is_some_and(|f| f.transient),
        _ => false,
    }
}

/// Counts a failure in the job's counters.
pub(crate) fn record_failure(job: &mut JobRecord, code: &str) {
    job.counters.pages_failed += 1;
    *job.counters.failures.entry(code.to_string()).or_default() += 1;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::IdRange;
    use crate::pattern::IdPattern;

    fn frontier(dir: &std::path::Path) -> Frontier {
        let store = Arc::new(CrawlStore::open(&dir.join("crawl.redb")).unwrap());
        let start = Url::parse("http://lib.org/").unwrap();
        Frontier::new(
            store,
            JobRecord::new("lib"),
            Site::of(&start),
            Clarifications::new(&["/post/".to_string()]),
            10,
        )
        .unwrap()
    }

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn a_page_is_stored_once_and_states_advance() {
        let dir = tempfile::tempdir().unwrap();
        let f = frontier(dir.path());
        assert!(f.seed(&url("http://lib.org/"), 0).unwrap());
        assert!(!f.seed(&url("http://lib.org/"), 0).unwrap());
        let taken = f.reserve(10).unwrap();
        assert_eq!(taken.len(), 1);
        f.fetched("http://lib.org/").unwrap();
        let links = [
            url("http://lib.org/post/1/"),
            url("http://lib.org/post/1/"),
            url("http://lib.org/users/1/"),
            url("http://other.org/post/2/"),
        ];
        assert_eq!(f.collected("http://lib.org/", &links, false).unwrap(), 2);
        assert_eq!(f.articles_known(), 1);
        let taken = f.reserve(10).unwrap();
        let urls: Vec<&str> = taken.iter().map(|r| r.url.as_str()).collect();
        assert_eq!(urls, ["http://lib.org/post/1/", "http://lib.org/users/1/"]);
        f.indexed(&["http://lib.org/post/1/".to_string()]).unwrap();
        f.failed(
            "http://lib.org/users/1/",
            Failure {
                code: "not_found".into(),
                message: "404".into(),
                transient: false,
            },
        )
        .unwrap();
        let job = f.job();
        assert_eq!(job.counters.pages_found, 3);
        assert_eq!(job.counters.pages_indexed, 1);
        assert_eq!(job.counters.failures["not_found"], 1);
        assert!(f.reserve(10).unwrap().is_empty());
    }

    #[test]
    fn recovery_requeues_interrupted_pages_but_not_finished_ones() {
        let dir = tempfile::tempdir().unwrap();
        {
            let f = frontier(dir.path());
            f.seed(&url("http://lib.org/"), 0).unwrap();
            f.reserve(1).unwrap();
            f.fetched("http://lib.org/").unwrap();
            let links = [url("http://lib.org/post/1/"), url("http://lib.org/post/2/")];
            f.collected("http://lib.org/", &links, false).unwrap();
            f.reserve(2).unwrap();
            f.indexed(&["http://lib.org/post/1/".to_string()]).unwrap();
            // post/2 stays reserved: the process dies here.
        }
        let store = Arc::new(CrawlStore::open(&dir.path().join("crawl.redb")).unwrap());
        let job = store.job("lib").unwrap().unwrap();
        let f = Frontier::new(
            store,
            job,
            Site::of(&url("http://lib.org/")),
            Clarifications::new(&["/post/".to_string()]),
            10,
        )
        .unwrap();
        assert_eq!(f.recover().unwrap(), 1);
        let urls: Vec<String> = f.reserve(10).unwrap().into_iter().map(|r| r.url).collect();
        assert_eq!(urls, ["http://lib.org/post/2/"]);
    }

    #[test]
    fn a_new_run_walks_known_lists_but_skips_indexed_articles() {
        let dir = tempfile::tempdir().unwrap();
        let f = frontier(dir.path());
        f.seed(&url("http://lib.org/"), 0).unwrap();
        f.reserve(1).unwrap();
        f.collected("http://lib.org/", &[url("http://lib.org/post/1/")], false)
            .unwrap();
        f.reserve(1).unwrap();
        f.indexed(&["http://lib.org/post/1/".to_string()]).unwrap();
        f.update_job(true, |job| job.run += 1).unwrap();
        assert!(f.seed(&url("http://lib.org/"), 0).unwrap(), "handshake");
        f.reserve(1).unwrap();
        let links = [url("http://lib.org/post/1/"), url("http://lib.org/post/2/")];
        assert_eq!(f.collected("http://lib.org/", &links, false).unwrap(), 1);
        let urls: Vec<String> = f.reserve(10).unwrap().into_iter().map(|r| r.url).collect();
        assert_eq!(urls, ["http://lib.org/post/2/"]);
    }

    #[test]
    fn enumeration_skips_known_articles_and_records_hits() {
        let dir = tempfile::tempdir().unwrap();
        let f = frontier(dir.path());
        let pattern = IdPattern {
            prefix: "http://lib.org/post/".into(),
            suffix: "/".into(),
        };
        f.seed(&url("http://lib.org/post/3/"), 0).unwrap();
        f.reserve(1).unwrap();
        f.indexed(&["http://lib.org/post/3/".to_string()]).unwrap();
        let range = IdRange::new(pattern, &[2, 3]).unwrap();
        f.start_enumeration(CrawlMode::Enumerate(range)).unwrap();
        assert_eq!(
            f.generate(100, 2).unwrap(),
            4,
            "2, 4, 5 and 1; 3 is indexed"
        );
        let taken = f.reserve(100).unwrap();
        assert_eq!(taken[0].url, "http://lib.org/post/2/");
        f.collected("http://lib.org/post/5/", &[], true).unwrap();
        assert_eq!(
            f.generate(100, 2).unwrap(),
            2,
            "5 exists: 6 and 7 are probed"
        );
    }
}
