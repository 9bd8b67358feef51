//! Article extraction on arbitrary HTML: no panic, and every link is an absolute http(s) URL.
#![no_main]

use dupfinder::extract::read_page;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let html = String::from_utf8_lossy(data);
    let page = url::Url::parse("https://library.example.org/journal/issue/1/").unwrap();
    let _ = read_page(&html, &page);
});
