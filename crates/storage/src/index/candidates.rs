//! A library's keys in the candidate map read again from its index: for a library whose log is
//! missing (written before the map existed) or was cut short while it was rebuilt.

use super::raw::StoredFields;
use super::{IndexError, LibraryIndex};

impl LibraryIndex {
    /// Files every live document's keys (content hash, sampled shingles, signature term sets of
    /// the current generation), then marks the library known. Writes wait meanwhile.
    pub fn rebuild_candidates(&self) -> Result<(), IndexError> {
        let Some(share) = &self.candidates else {
            return Ok(());
        };
        let _gate = self.write_gate.lock();
        let signatures = self.signatures();
        let s = &self.schema;
        self.each_live_selection(|stored, counts, selected| {
            let hash = stored.first_u64(s.content_hash).unwrap_or_default();
            let language = stored.first_str(s.lang).unwrap_or_default();
            share.add_content(hash, selected, language)?;
            signatures.file_term_sets(counts)
        })?;
        share.rebuilt()
    }
}
