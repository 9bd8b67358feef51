//! The UI's files, embedded in the binary at build time, by name.

/// An embedded file of the UI.
#[derive(Debug, Clone, Copy)]
pub struct Asset {
    pub content_type: &'static str,
    pub body: &'static str,
}

/// The UI's page shell, served at `/`.
pub const INDEX_HTML: &str = include_str!("assets/index.html");

const JS: &str = "text/javascript; charset=utf-8";

/// Every file served under `/ui/`, by name.
const ASSETS: &[(&str, Asset)] = &[
    (
        "app.css",
        Asset {
            content_type: "text/css; charset=utf-8",
            body: include_str!("assets/app.css"),
        },
    ),
    (
        "favicon.svg",
        Asset {
            content_type: "image/svg+xml",
            body: include_str!("assets/favicon.svg"),
        },
    ),
    (
        "app.js",
        Asset {
            content_type: JS,
            body: include_str!("assets/app.js"),
        },
    ),
    (
        "api.js",
        Asset {
            content_type: JS,
            body: include_str!("assets/api.js"),
        },
    ),
    (
        "reindex.js",
        Asset {
            content_type: JS,
            body: include_str!("assets/reindex.js"),
        },
    ),
    (
        "job.js",
        Asset {
            content_type: JS,
            body: include_str!("assets/job.js"),
        },
    ),
    (
        "dom.js",
        Asset {
            content_type: JS,
            body: include_str!("assets/dom.js"),
        },
    ),
    (
        "highlight.js",
        Asset {
            content_type: JS,
            body: include_str!("assets/highlight.js"),
        },
    ),
    (
        "libraries.js",
        Asset {
            content_type: JS,
            body: include_str!("assets/libraries.js"),
        },
    ),
    (
        "library.js",
        Asset {
            content_type: JS,
            body: include_str!("assets/library.js"),
        },
    ),
    (
        "document.js",
        Asset {
            content_type: JS,
            body: include_str!("assets/document.js"),
        },
    ),
    (
        "batch.js",
        Asset {
            content_type: JS,
            body: include_str!("assets/batch.js"),
        },
    ),
    (
        "check.js",
        Asset {
            content_type: JS,
            body: include_str!("assets/check.js"),
        },
    ),
    (
        "queue.js",
        Asset {
            content_type: JS,
            body: include_str!("assets/queue.js"),
        },
    ),
    (
        "duplicates.js",
        Asset {
            content_type: JS,
            body: include_str!("assets/duplicates.js"),
        },
    ),
    (
        "i18n.js",
        Asset {
            content_type: JS,
            body: include_str!("assets/i18n.js"),
        },
    ),
    (
        "report.js",
        Asset {
            content_type: JS,
            body: include_str!("assets/report.js"),
        },
    ),
    (
        "reports.js",
        Asset {
            content_type: JS,
            body: include_str!("assets/reports.js"),
        },
    ),
];

/// The environment variable naming a folder the UI's files are read from at each request
/// instead of the embedded copies: for working on the UI without rebuilding the binary.
pub const UI_DIR_VAR: &str = "DUPFINDER_UI_DIR";

/// The asset called `name`, if the UI has one.
pub fn asset(name: &str) -> Option<Asset> {
    ASSETS
        .iter()
        .find(|(known, _)| *known == name)
        .map(|(_, asset)| *asset)
}

/// The names of every asset.
pub fn asset_names() -> impl Iterator<Item = &'static str> {
    ASSETS.iter().map(|(name, _)| *name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_module_the_ui_imports_is_embedded() {
        // A module imported by another but missing here would 404 in the browser.
        for (name, file) in ASSETS {
            for line in file.body.lines().filter(|l| l.starts_with("import ")) {
                let Some(target) = line.split('\'').nth(1) else {
                    continue;
                };
                let target = target.trim_start_matches("./");
                assert!(asset(target).is_some(), "{name} imports missing {target}");
            }
        }
        assert!(INDEX_HTML.contains("/ui/app.js"));
    }
}
