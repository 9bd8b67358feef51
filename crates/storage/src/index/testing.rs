//! What the index's unit tests share: a library index in a folder, documents prepared as an
//! import prepares them.

use std::path::Path;

use super::{IndexOptions, LibraryIndex, PreparedDocument, default_analyzer};
use crate::ingest::{DocumentInput, IdValue, prepare};

/// A library index in `dir`, with the default analyzer and options.
pub(super) fn open_index(dir: &Path) -> LibraryIndex {
    LibraryIndex::open(dir, &default_analyzer(), &IndexOptions::default()).unwrap()
}

/// The document `id` with `text`, prepared as an import prepares it (a text of one word will
/// do, up to 4 MB).
pub(super) fn prepared(id: &str, text: &str) -> PreparedDocument {
    prepared_input(DocumentInput {
        id: Some(IdValue::Text(id.to_string())),
        text: Some(text.to_string()),
        ..Default::default()
    })
}

/// `input` prepared as an import prepares it, with the limits of [`prepared`].
pub(super) fn prepared_input(input: DocumentInput) -> PreparedDocument {
    let limits = dupfinder_text::analysis::TextLimits {
        max_bytes: 1 << 22,
        min_words: 1,
    };
    prepare(&default_analyzer(), limits, input).unwrap()
}

/// Flips a bit of the byte at `place(length)` of the first run file in `runs` (a library's
/// `shingles/` folder).
pub(super) fn damage_a_run(runs: &Path, place: impl FnOnce(usize) -> usize) {
    let run = std::fs::read_dir(runs)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mut bytes = std::fs::read(&run).unwrap();
    let at = place(bytes.len());
    bytes[at] ^= 0x10;
    std::fs::write(&run, bytes).unwrap();
}
