//! RTF reading on arbitrary bytes behind an RTF header: no panic, no hang, linear in the input
//! (the reader's output is never longer than a few characters per input byte).
#![no_main]

use dupfinder::extract::{ExtractLimits, Format, extract};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut bytes = b"{\\rtf1 ".to_vec();
    bytes.extend_from_slice(data);
    if let Ok(document) = extract(&bytes, &ExtractLimits::default()) {
        assert_eq!(document.format, Format::Rtf);
        assert!(document.text.chars().count() <= bytes.len() * 4);
    }
});
