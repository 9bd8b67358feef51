//! Storage faults: a write that failed because of the data directory or the process's resources
//! rather than the request (full, read-only, out of file descriptors), told apart where writes
//! happen so the API can answer them as such. None of them is damage: the library's writers are
//! put back to their last commit before its next write, and writes go on once the cause has
//! passed.

/// A write that failed because of the data directory rather than the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StorageFault {
    /// No space left (or the disk quota is exhausted).
    Full,
    /// The file system is read-only or the process may not write there.
    Unavailable,
    /// The process ran short of a resource for a moment: file descriptors (its own or the
    /// system's), memory, or a call was interrupted or would have blocked. Worth retrying.
    Transient,
}

/// Operating system error numbers (Linux) of a transient fault: EINTR, EAGAIN, ENOMEM, ENFILE,
/// EMFILE.
const TRANSIENT_ERRNOS: [i32; 5] = [4, 11, 12, 23, 24];

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
            ErrorKind::Interrupted | ErrorKind::WouldBlock | ErrorKind::OutOfMemory => {
                Some(StorageFault::Transient)
            }
            _ => None,
        };
        let by_errno = |io: &std::io::Error| {
            io.raw_os_error()
                .filter(|errno| TRANSIENT_ERRNOS.contains(errno))
                .map(|_| StorageFault::Transient)
        };
        let mut current = Some(error);
        while let Some(e) = current {
            if let Some(io) = e.downcast_ref::<std::io::Error>()
                && let Some(fault) = by_kind(io.kind()).or_else(|| by_errno(io))
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
        } else if TRANSIENT_ERRNOS.iter().any(|errno| {
            // Display (`… (os error 24)`) or Debug (`Os { code: 24, … }`, as tantivy renders
            // the error of a file it could not open).
            rendered.contains(&format!("os error {errno})"))
                || rendered.contains(&format!("code: {errno}, kind"))
        }) || mentions(&["kind: Interrupted", "kind: WouldBlock", "kind: OutOfMemory"])
        {
            Some(StorageFault::Transient)
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
        let wrapped = crate::index::IndexError::Io {
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

    #[test]
    fn running_out_of_descriptors_or_memory_is_transient() {
        for errno in [4, 11, 12, 23, 24] {
            let io = std::io::Error::from_raw_os_error(errno);
            assert_eq!(StorageFault::of(&io), Some(StorageFault::Transient), "{io}");
            let flattened = Flattened(io.to_string());
            assert_eq!(
                StorageFault::of(&flattened),
                Some(StorageFault::Transient),
                "{flattened}"
            );
        }
        let io = std::io::Error::from(std::io::ErrorKind::Interrupted);
        assert_eq!(StorageFault::of(&io), Some(StorageFault::Transient));
        let tantivy = Flattened(
            "Failed to open file for write: 'IoError { io_error: Custom { kind: Uncategorized, \
             error: PathError { path: \"/d/.tmp\", err: Os { code: 24, kind: Uncategorized, \
             message: \"Too many open files\" } } }'"
                .into(),
        );
        assert_eq!(StorageFault::of(&tantivy), Some(StorageFault::Transient));
        // Error 40 is not error 4.
        let other = Flattened("Too many levels of symbolic links (os error 40)".into());
        assert_eq!(StorageFault::of(&other), None);
    }
}
