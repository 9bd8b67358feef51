//! EPUB reading on arbitrary bytes: no panic, no hang, and no more than the decompressed-byte
//! bound is ever unpacked (a small bound makes zip bombs cheap to find).
#![no_main]

use dupfinder::extract::{ExtractLimits, Format, extract};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = ExtractLimits {
        max_decompressed_bytes: 4 * 1024 * 1024,
        ..ExtractLimits::default()
    };
    if let Ok(document) = extract(data, &limits) {
        assert!(!document.text.trim().is_empty());
        if document.format == Format::Epub {
            assert!(document.text.len() as u64 <= 4 * 1024 * 1024);
        }
    }
});
