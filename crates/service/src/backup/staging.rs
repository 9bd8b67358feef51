//! The directory a backup or a restore is staged in, removed whatever happens.

use std::path::PathBuf;

/// A directory removed when dropped, whatever happened meanwhile.
pub(super) struct Staging(pub(super) PathBuf);

impl Drop for Staging {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_dir_all(&self.0)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(path = %self.0.display(), error = %e, "could not remove a backup's staging copy");
        }
    }
}
