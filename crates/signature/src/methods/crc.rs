//! The hash the paper signs its word lists with.

/// CRC32 of strings concatenated with no separator, as the paper signs its word lists.
pub(crate) fn crc32_of<'a>(parts: impl IntoIterator<Item = &'a str>) -> u64 {
    let mut hasher = crc32fast::Hasher::new();
    for part in parts {
        hasher.update(part.as_bytes());
    }
    u64::from(hasher.finalize())
}
