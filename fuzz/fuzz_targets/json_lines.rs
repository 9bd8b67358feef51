//! JSON Lines parsing and document preparation on arbitrary bodies: no panic, line numbers
//! increase and stay within the body, and every prepared document respects the limits.
#![no_main]

use dupfinder::config::Limits;
use dupfinder::index::default_analyzer;
use dupfinder::library::{parse_json_lines, prepare};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

static ANALYZER: OnceLock<dupfinder::analysis::Analyzer> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let Ok(body) = std::str::from_utf8(data) else {
        return;
    };
    let limits = Limits {
        max_text_bytes: 4096,
        ..Limits::default()
    };
    let analyzer = ANALYZER.get_or_init(default_analyzer);
    let total_lines = body.lines().count();
    let mut last = 0;
    for (line, parsed) in parse_json_lines(body, limits.max_json_depth) {
        assert!(line > last && line <= total_lines, "line {line} after {last} of {total_lines}");
        last = line;
        if let Ok(input) = parsed
            && let Ok(document) = prepare(analyzer, limits.text(), input)
        {
            assert!(document.text.len() <= limits.max_text_bytes);
            assert!(document.tokens.len() >= limits.min_words);
            assert!(!document.doc_id.is_empty());
        }
    }
});
