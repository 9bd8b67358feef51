//! JATS, TEI and HTML reading on arbitrary bytes (the first byte picks the root element the
//! rest is wrapped in): no panic, no hang, and every block of a document has words.
#![no_main]

use dupfinder::extract::{ExtractLimits, extract};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let rest = String::from_utf8_lossy(rest);
    let wrapped = match pick % 4 {
        0 => format!("<article><front/>{rest}</article>"),
        1 => format!("<TEI xmlns=\"http://www.tei-c.org/ns/1.0\">{rest}</TEI>"),
        2 => format!("<html><body>{rest}</body></html>"),
        _ => rest.into_owned(),
    };
    if let Ok(document) = extract(wrapped.as_bytes(), &ExtractLimits::default()) {
        assert!(document.blocks.iter().all(|b| !b.text.trim().is_empty()));
    }
});
