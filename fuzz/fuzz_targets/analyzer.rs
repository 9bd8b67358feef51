//! The analyzer on arbitrary UTF-8 and any language (or none): it must not panic, and every
//! token must point at a real, in-order span of the text.
#![no_main]

use dupfinder::analysis::Language;
use dupfinder::index::default_analyzer;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

static ANALYZER: OnceLock<dupfinder::analysis::Analyzer> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let Some((&choice, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let languages = Language::all();
    let lang = languages.get(choice as usize % (languages.len() + 1)).copied();
    let analyzer = ANALYZER.get_or_init(default_analyzer);
    let analyzed = analyzer.analyze(text, lang);
    let mut last_position = None;
    for token in &analyzed.tokens {
        assert!(token.start < token.end, "empty span {token:?}");
        assert!(text.get(token.start..token.end).is_some(), "span {token:?} off a boundary");
        assert!(!token.term.is_empty(), "empty term {token:?}");
        if let Some(last) = last_position {
            assert!(token.position >= last, "positions go back at {token:?}");
        }
        last_position = Some(token.position);
    }
});
