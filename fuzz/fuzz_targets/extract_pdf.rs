//! PDF reading on arbitrary bytes behind a PDF header: no panic escapes (parser panics become
//! `unreadable_document`), no hang, and a document that comes out has text and a page count
//! within the bound.
#![no_main]

use std::sync::Once;

use dupfinder::extract::{ExtractLimits, Format, extract};
use libfuzzer_sys::fuzz_target;

static QUIET: Once = Once::new();

fuzz_target!(|data: &[u8]| {
    // libfuzzer-sys aborts in its panic hook, before `catch_unwind` in the reader could turn a
    // parser panic into `unreadable_document`. A silent hook lets the reader do its job; a panic
    // that escapes it still reaches libfuzzer-sys's own `catch_unwind` and is a crash.
    QUIET.call_once(|| std::panic::set_hook(Box::new(|_| {})));
    let mut bytes = b"%PDF-1.7\n".to_vec();
    bytes.extend_from_slice(data);
    // The built-in reader is what is fuzzed; poppler's pdftotext, the second reading of the
    // PDFs it cannot interpret, is another process with bounds of its own.
    let limits = ExtractLimits {
        pdftotext: String::new(),
        ..ExtractLimits::default()
    };
    if let Ok(document) = extract(&bytes, &limits) {
        assert_eq!(document.format, Format::Pdf);
        assert!(document.pages.is_some_and(|p| p >= 1 && p <= limits.max_pages));
        assert!(!document.text.trim().is_empty());
    }
});
