//! Sitemaps (sitemaps.org): a `<urlset>` lists pages, a `<sitemapindex>` lists more sitemaps;
//! either may be gzip-compressed.
//!
//! ```
//! use dupfinder_harvest::{Sitemap, parse_sitemap};
//! let xml = br#"<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
//!   <url><loc>https://j.org/post/1/</loc><lastmod>2024-01-02</lastmod></url></urlset>"#;
//! let Sitemap::Pages(pages) = parse_sitemap("https://j.org/sitemap.xml", xml).unwrap() else { panic!() };
//! assert_eq!(pages[0].loc, "https://j.org/post/1/");
//! ```

use std::io::Read;

use dupfinder_common::error_code::ErrorCode;

/// Sitemaps may be 50 MB uncompressed.
const MAX_UNCOMPRESSED: u64 = 50 * 1024 * 1024;

/// A parsed sitemap file.
#[derive(Debug, Clone, PartialEq)]
pub enum Sitemap {
    /// A `<urlset>`: pages.
    Pages(Vec<SitemapEntry>),
    /// A `<sitemapindex>`: locations of more sitemaps.
    Index(Vec<String>),
}

/// One `<url>` of a `<urlset>`.
#[derive(Debug, Clone, PartialEq)]
pub struct SitemapEntry {
    pub loc: String,
    pub lastmod: Option<String>,
}

/// Why a sitemap could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SitemapError {
    #[error("sitemap {url}: invalid gzip: {source}")]
    Gzip {
        url: String,
        #[source]
        source: std::io::Error,
    },
    #[error("sitemap {url}: larger than {MAX_UNCOMPRESSED} bytes uncompressed")]
    TooLarge { url: String },
    #[error("sitemap {url}: not UTF-8")]
    Encoding { url: String },
    #[error("sitemap {url}: invalid XML: {reason}")]
    Xml { url: String, reason: String },
    #[error("sitemap {url}: the root element is <{root}>, not <urlset> or <sitemapindex>")]
    NotASitemap { url: String, root: String },
}

impl SitemapError {
    pub fn code(&self) -> ErrorCode {
        match self {
            SitemapError::Gzip { .. } => ErrorCode::SitemapGzip,
            SitemapError::TooLarge { .. } => ErrorCode::SitemapTooLarge,
            SitemapError::Encoding { .. } | SitemapError::Xml { .. } => ErrorCode::SitemapInvalid,
            SitemapError::NotASitemap { .. } => ErrorCode::SitemapInvalid,
        }
    }
}

/// Parses a sitemap fetched from `url`, decompressing it when it is gzip.
pub fn parse_sitemap(url: &str, body: &[u8]) -> Result<Sitemap, SitemapError> {
    let plain;
    let bytes = if body.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(body)
            .take(MAX_UNCOMPRESSED + 1)
            .read_to_end(&mut out)
            .map_err(|source| SitemapError::Gzip {
                url: url.to_string(),
                source,
            })?;
        if out.len() as u64 > MAX_UNCOMPRESSED {
            return Err(SitemapError::TooLarge {
                url: url.to_string(),
            });
        }
        plain = out;
        plain.as_slice()
    } else {
        body
    };
    let text = std::str::from_utf8(bytes).map_err(|_| SitemapError::Encoding {
        url: url.to_string(),
    })?;
    let text = text.trim_start_matches('\u{feff}');
    let document = roxmltree::Document::parse(text).map_err(|e| SitemapError::Xml {
        url: url.to_string(),
        reason: e.to_string(),
    })?;
    let root = document.root_element();
    let child_text = |node: roxmltree::Node, name: &str| -> Option<String> {
        node.children()
            .find(|c| c.is_element() && c.tag_name().name() == name)
            .and_then(|c| c.text())
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
    };
    match root.tag_name().name() {
        "urlset" => Ok(Sitemap::Pages(
            root.children()
                .filter(|c| c.is_element() && c.tag_name().name() == "url")
                .filter_map(|entry| {
                    Some(SitemapEntry {
                        loc: child_text(entry, "loc")?,
                        lastmod: child_text(entry, "lastmod"),
                    })
                })
                .collect(),
        )),
        "sitemapindex" => Ok(Sitemap::Index(
            root.children()
                .filter(|c| c.is_element() && c.tag_name().name() == "sitemap")
                .filter_map(|entry| child_text(entry, "loc"))
                .collect(),
        )),
        other => Err(SitemapError::NotASitemap {
            url: url.to_string(),
            root: other.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn index_and_gzipped_urlset() {
        let index = br#"<?xml version="1.0" encoding="UTF-8"?>
            <sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
              <sitemap><loc> https://j.org/s1.xml </loc></sitemap>
              <sitemap><loc>https://j.org/s2.xml.gz</loc><lastmod>2024-01-01</lastmod></sitemap>
            </sitemapindex>"#;
        assert_eq!(
            parse_sitemap("i", index).unwrap(),
            Sitemap::Index(vec![
                "https://j.org/s1.xml".to_string(),
                "https://j.org/s2.xml.gz".to_string()
            ])
        );
        let urlset = r#"<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
            <url><loc>https://j.org/article/a?x=1&amp;y=2</loc></url><url><lastmod>x</lastmod></url>
            </urlset>"#;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(urlset.as_bytes()).unwrap();
        let Sitemap::Pages(pages) = parse_sitemap("s2", &gz.finish().unwrap()).unwrap() else {
            panic!("not a urlset");
        };
        assert_eq!(pages.len(), 1, "an entry without <loc> is skipped");
        assert_eq!(pages[0].loc, "https://j.org/article/a?x=1&y=2");
    }

    #[test]
    fn html_is_not_a_sitemap() {
        let err = parse_sitemap("x", b"<html><body/></html>").unwrap_err();
        assert_eq!(err.code(), "sitemap_invalid");
        assert!(parse_sitemap("x", b"not xml").is_err());
    }
}
