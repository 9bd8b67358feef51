//! The web UI: plain HTML, CSS and JavaScript modules that call the JSON API, embedded in the
//! binary so `dupfinder serve` needs nothing beside it. The page (`/`) is one shell; the views
//! (libraries, a library's search and listing, a document, the check, the crawl queue) are
//! rendered in the browser and addressed by the URL fragment (`#/check`).

mod embedded;

pub use embedded::{Asset, INDEX_HTML, UI_DIR_VAR, asset, asset_names};
