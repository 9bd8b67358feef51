//! Re-indexing a library: a new statistics snapshot, every document re-signed against it into a
//! new signature generation, and one atomic switch — while checks and writes go on.
//!
//! The protocol, for generation `N + 1` while `N` serves:
//! 1. Under the write gate (so no write is half done), note the time `started_at` and take a
//!    searcher. Release the gate: writes go on, signed against generation `N` as usual.
//! 2. Count the snapshot from that searcher and save it (`stats/gen-{N+1}.stats`).
//! 3. Sign every live document into `signatures/gen-{N+1}/`, committing every `commit_every`
//!    documents with a payload that marks the generation unfinished. Checks never read it.
//! 4. Under the write gate again: sign once more every document added or replaced since
//!    `started_at` (every write stamps `added_at`), drop the signatures of documents deleted
//!    since, commit as finished, write `CURRENT`, and swap the pointer checks read.
//!
//! A cancelled or killed re-index leaves a partial generation whose commits say where it was; the
//! next re-index of the library resumes it (the documents already signed are skipped) instead of
//! starting over. Checks hold one `Arc<SignatureIndex>` for their whole run, so each sees either
//! the old generation or the new one, never a mix.
//!
//! PostgreSQL runs the same protocol in its own code (`postgres/library.rs`), not this one: the
//! document store reads cheaply only in segment order, so a resume skips the keys already
//! signed rather than starting after the last one; the mark of step 4 is a second, since no
//! write is numbered; and the cancel flag is looked at after a document is staged (a run
//! cancelled before it began has signed one). ARCHITECTURE.md ("One re-index protocol, two
//! implementations") gives each difference.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use tantivy::{DocAddress, Searcher, TantivyDocument};

use super::IndexError;
use super::LibraryIndex;
use super::open::{signature_path, write_current};
use super::raw::alive_documents;
use super::schema::field_names;
use super::signatures::{Building, SignatureIndex, Signed};
use super::stats::{count_statistics, load_snapshot, save_snapshot, snapshot_path};
use dupfinder_common::clock::unix_now;

/// Documents a re-index reads, then signs on every core, at a time: a few megabytes of full
/// papers' stored bytes.
const SIGN_AT_ONCE: usize = 256;

/// How a re-index runs.
#[derive(Debug, Clone, Copy)]
pub struct RebuildControl<'a> {
    /// Set it to stop the re-index at the next document; its progress is kept for a resume.
    pub cancel: Option<&'a AtomicBool>,
    /// Signs at most this many documents per second (0: as fast as it can), so that a re-index
    /// on a busy server leaves room for checks.
    pub max_docs_per_second: u32,
    /// Documents signed between two commits of the unfinished generation: what a resume after a
    /// kill at most repeats.
    pub commit_every: u64,
}

impl Default for RebuildControl<'_> {
    fn default() -> Self {
        RebuildControl {
            cancel: None,
            max_docs_per_second: 0,
            commit_every: 100_000,
        }
    }
}

/// How a re-index ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RebuildOutcome {
    /// Generation `generation` is live.
    Finished {
        /// The new statistics generation.
        generation: u64,
    },
    /// Cancelled; the next re-index resumes generation `generation` with `signed` documents
    /// already done.
    Cancelled {
        /// The unfinished generation.
        generation: u64,
        /// Documents signed into it so far.
        signed: u64,
    },
}

impl LibraryIndex {
    /// Re-indexes to completion (resuming an unfinished generation when there is one) and
    /// returns the new generation. Reports progress as documents signed.
    pub fn rebuild_statistics(&self, progress: impl FnMut(u64)) -> Result<u64, IndexError> {
        match self.rebuild(&RebuildControl::default(), progress)? {
            RebuildOutcome::Finished { generation } => Ok(generation),
            RebuildOutcome::Cancelled { .. } => unreachable!("nothing can cancel this re-index"),
        }
    }

    /// Re-indexes the library (see the module documentation), reporting progress as documents
    /// signed into the new generation, those of a resumed run included.
    pub fn rebuild(
        &self,
        control: &RebuildControl<'_>,
        mut progress: impl FnMut(u64),
    ) -> Result<RebuildOutcome, IndexError> {
        let _one_at_a_time = self.rebuild_gate.lock();
        let generation = self.signatures().generation() + 1;
        let (signatures, building, changes_before) = self.next_generation(generation)?;
        signatures.pause_merges();
        let signed = signatures.signed_keys()?;
        let mut done = signed.len() as u64;
        progress(done);

        let started = Instant::now();
        let mut signed_now = 0u64;
        let finished = self.sign_live(&signatures, &signed, |_| {
            done += 1;
            signed_now += 1;
            if control.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                return Ok(false);
            }
            if signed_now.is_multiple_of(control.commit_every.max(1)) {
                signatures.commit_partial(self.content_opstamp()?, building)?;
            }
            progress(done);
            pace(control.max_docs_per_second, signed_now, started);
            Ok(true)
        })?;
        if !finished {
            signatures.commit_partial(self.content_opstamp()?, building)?;
            return Ok(RebuildOutcome::Cancelled {
                generation,
                signed: done,
            });
        }
        signatures.commit_partial(self.content_opstamp()?, building)?;
        // Before the switch, and outside the write gate: checks get one segment to look up.
        signatures.merge_into_one()?;
        self.go_live(signatures, building, changes_before)?;
        Ok(RebuildOutcome::Finished { generation })
    }

    /// Whether a re-index was stopped or interrupted before it finished (the next one resumes it).
    pub fn has_unfinished_rebuild(&self) -> bool {
        signature_path(&self.dir, self.signatures().generation() + 1).exists()
    }

    /// The signature index of the generation being built: the unfinished one on disk when it
    /// can be resumed, else a fresh one with its snapshot counted now. Also returns the count of
    /// changes since the old snapshot at the moment the new one was taken.
    fn next_generation(
        &self,
        generation: u64,
    ) -> Result<(SignatureIndex, Building, u64), IndexError> {
        let stats = snapshot_path(&self.dir.join("stats"), generation);
        let path = signature_path(&self.dir, generation);
        if path.exists()
            && let Ok(snapshot) = load_snapshot(&stats)
        {
            let signatures = SignatureIndex::open(
                &path,
                Arc::new(snapshot),
                self.robust,
                self.candidates.clone(),
            )?;
            if let Some(building) = signatures.building()?
                && signatures.scheme_on_disk()? == Some(self.robust)
            {
                tracing::info!(dir = %self.dir.display(), generation, signed = signatures.len(), "resuming an unfinished re-index");
                let changes = self.changed_since_snapshot.load(Ordering::Relaxed);
                return Ok((signatures, building, changes));
            }
        }
        if path.exists() {
            std::fs::remove_dir_all(&path).map_err(IndexError::io(&path))?;
        }
        let (started_at, searcher, changes) = {
            let _gate = self.write_gate.lock();
            let changes = self.changed_since_snapshot.load(Ordering::Relaxed);
            (unix_now(), self.searcher(), changes)
        };
        let snapshot = count_statistics(
            &searcher,
            &self.schema.analysed_fields(),
            generation,
            &self.content_path,
        )?;
        save_snapshot(&stats, &snapshot)?;
        let signatures = SignatureIndex::open(
            &path,
            Arc::new(snapshot),
            self.robust,
            self.candidates.clone(),
        )?;
        let building = Building { started_at };
        signatures.commit_partial(self.content_opstamp()?, building)?;
        Ok((signatures, building, changes))
    }

    /// Brings the new generation up to date with the writes made while it was built, then
    /// switches to it. `changes_before` is the count of changes the new snapshot includes.
    fn go_live(
        &self,
        signatures: SignatureIndex,
        building: Building,
        changes_before: u64,
    ) -> Result<(), IndexError> {
        let _gate = self.write_gate.lock();
        let searcher = self.searcher();
        let signed = signatures.signed_keys()?;
        let (live, recent) = self.live_keys_and_recent(&searcher, building.started_at, &signed)?;
        signatures.stage_delete_missing(&live)?;
        for address in &recent {
            let stored: TantivyDocument = searcher
                .doc(*address)
                .map_err(IndexError::tantivy(&self.content_path))?;
            signatures.stage(self.stored_doc_id(&stored), &self.decode_counts(&stored)?)?;
        }
        signatures.commit(self.content_opstamp()?)?;
        // Every committed document is signed in the new generation; documents staged unsigned
        // and not committed yet keep the mark until a later re-index signs them.
        if self.staged.load(Ordering::Relaxed) == 0 {
            self.unsigned.store(false, Ordering::Relaxed);
        }

        let generation = signatures.generation();
        let old = self.signatures();
        write_current(&self.dir, generation)?;
        *self.signatures.write() = Arc::new(signatures);
        let changes = self.changed_since_snapshot.load(Ordering::Relaxed);
        self.changed_since_snapshot
            .store(changes.saturating_sub(changes_before), Ordering::Relaxed);

        // The old generation is no longer reachable; checks still holding it keep their mmaps.
        let old_path = signature_path(&self.dir, old.generation());
        drop(old);
        if let Err(e) = std::fs::remove_dir_all(&old_path) {
            tracing::warn!(path = %old_path.display(), error = %e, "could not remove an old signature generation");
        }
        let _ = std::fs::remove_file(snapshot_path(&self.dir.join("stats"), generation - 1));
        if let Some(candidates) = &self.candidates {
            candidates.compact(generation)?;
        }
        Ok(())
    }

    /// The keys of every live document, and the addresses of those to sign again: written at
    /// or after `since`, or not among the `signed` keys (committed after the re-index counted
    /// its snapshot although staged before, or written without signatures).
    fn live_keys_and_recent(
        &self,
        searcher: &Searcher,
        since: u64,
        signed: &HashSet<u64>,
    ) -> Result<(HashSet<u64>, Vec<DocAddress>), IndexError> {
        let path = self.content_path.as_path();
        let mut live = HashSet::with_capacity(searcher.num_docs() as usize);
        let mut recent = Vec::new();
        for (ord, segment) in searcher.segment_readers().iter().enumerate() {
            let fast = segment.fast_fields();
            let keys = fast
                .u64(field_names::DOC_KEY)
                .map_err(IndexError::tantivy(path))?;
            let added = fast
                .u64(field_names::ADDED_AT)
                .map_err(IndexError::tantivy(path))?;
            for doc in segment.doc_ids_alive() {
                let key = keys.first(doc);
                live.extend(key);
                if added.first(doc).is_some_and(|at| at >= since)
                    || key.is_some_and(|key| !signed.contains(&key))
                {
                    recent.push(DocAddress::new(ord as u32, doc));
                }
            }
        }
        Ok((live, recent))
    }
}

/// Sleeps as long as needed to keep `done` documents since `started` under `per_second`.
pub(crate) fn pace(per_second: u32, done: u64, started: Instant) {
    if per_second == 0 {
        return;
    }
    let due = Duration::from_secs_f64(done as f64 / f64::from(per_second));
    if let Some(wait) = due.checked_sub(started.elapsed()) {
        std::thread::sleep(wait);
    }
}

impl LibraryIndex {
    /// Stages the signatures of every live document whose key is not in `skip` into
    /// `signatures`, calling `after_each` with the number staged so far; stops when it answers
    /// `false`. Returns whether every document was staged.
    pub(super) fn sign_live(
        &self,
        signatures: &SignatureIndex,
        skip: &HashSet<u64>,
        mut after_each: impl FnMut(u64) -> Result<bool, IndexError>,
    ) -> Result<bool, IndexError> {
        let searcher = self.searcher();
        let path = self.content_path.as_path();
        let mut done = 0u64;
        // Signing reads only the snapshot: the documents read are signed on every core, then
        // staged in their order. Answers whether to go on.
        let mut sign_read = |read: &mut Vec<_>| -> Result<bool, IndexError> {
            let signed: Vec<Signed> = read
                .par_iter()
                .map(|stored| {
                    let counts = self.decode_counts(stored)?;
                    Ok(signatures.sign(self.stored_doc_id(stored), &counts))
                })
                .collect::<Result<_, IndexError>>()?;
            read.clear();
            for signed in signed {
                signatures.stage_new(signed)?;
                done += 1;
                if !after_each(done)? {
                    return Ok(false);
                }
            }
            Ok(true)
        };
        let mut read = Vec::with_capacity(SIGN_AT_ONCE);
        for segment in searcher.segment_readers() {
            let keys = segment
                .fast_fields()
                .u64(field_names::DOC_KEY)
                .map_err(IndexError::tantivy(path))?;
            for document in alive_documents(segment, path)? {
                let (doc, stored) = document?;
                if keys.first(doc).is_some_and(|key| skip.contains(&key)) {
                    continue;
                }
                read.push(stored);
                if read.len() == SIGN_AT_ONCE && !sign_read(&mut read)? {
                    return Ok(false);
                }
            }
        }
        sign_read(&mut read)
    }
}
