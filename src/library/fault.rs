//! Storage faults: a write that failed because of the data directory rather than the request
//! (full, read-only), told apart where writes happen so the API can answer them as such.

/// A write that failed because of the data directory rather than the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StorageFault {
    /// No space left (or the disk quota is exhausted).
    Full,
    /// The file system is read-only or the process may not write there.
    Unavailable,
}

impl StorageFault {
    /// Finds the I/O error behind `error`. tantivy and redb do not always chain their I/O
    /// errors as sources, so besides the chain the rendered messages are searched for the
    /// operating system's error numbers.
    pub fn of(error: &(dyn std::error::Error + 'static)) -> Option<StorageFault> {
        use std::io::ErrorKind;
        let by_kind = |kind: ErrorKind| match kind {
            ErrorKind::StorageFull | ErrorKind::QuotaExceeded => Some(StorageFault::Full),
            ErrorKind::ReadOnlyFilesystem | ErrorKind::PermissionDenied => {
                Some(StorageFault::Unavailable)
            }
            _ => None,
        };
        let mut current = Some(error);
        while let Some(e) = current {
            if let Some(io) = e.downcast_ref::<std::io::Error>()
                && let Some(fault) = by_kind(io.kind())
            {
                return Some(fault);
            }
            current = e.source();
        }
        let rendered = format!("{error} {error:?}");
        let mentions = |needles: &[&str]| needles.iter().any(|n| rendered.contains(n));
        if mentions(&[
            "os error 28)",
            "os error 122)",
            "StorageFull",
            "QuotaExceeded",
        ]) {
            Some(StorageFault::Full)
        } else if mentions(&["os error 30)", "os error 13)", "ReadOnlyFilesystem"]) {
            Some(StorageFault::Unavailable)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("tantivy error at /data: An IO error occurred: '{0}'")]
    struct Flattened(String);

    #[test]
    fn storage_faults_are_found_in_the_chain_or_in_the_message() {
        let full = std::io::Error::from(std::io::ErrorKind::StorageFull);
        assert_eq!(StorageFault::of(&full), Some(StorageFault::Full));
        let wrapped = crate::library::LibraryError::Io {
            path: "/data".into(),
            source: std::io::Error::from(std::io::ErrorKind::ReadOnlyFilesystem),
        };
        assert_eq!(StorageFault::of(&wrapped), Some(StorageFault::Unavailable));
        let flattened = Flattened("No space left on device (os error 28)".into());
        assert_eq!(StorageFault::of(&flattened), Some(StorageFault::Full));
        let flattened = Flattened("Read-only file system (os error 30)".into());
        assert_eq!(
            StorageFault::of(&flattened),
            Some(StorageFault::Unavailable)
        );
        let other = Flattened("Data corrupted (os error 5)".into());
        assert_eq!(StorageFault::of(&other), None);
    }
}
