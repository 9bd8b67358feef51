//! URL patterns: which URLs are articles (the library's *clarifications*), which pages belong to
//! the site, and whether article URLs carry a numeric id (`/ru/post/452584/`,
//! `item.asp?id=27224423`) that can be enumerated instead of crawled.
//!
//! ```
//! use dupfinder_harvest::IdPattern;
//! let urls = ["https://h.org/post/452584/", "https://h.org/post/452590/", "https://h.org/post/17/"];
//! let pattern = IdPattern::infer(urls.iter().copied()).unwrap();
//! assert_eq!(pattern.url(452585), "https://h.org/post/452585/");
//! assert_eq!(pattern.id_of("https://h.org/post/99/"), Some(99));
//! assert_eq!(pattern.id_of("https://h.org/user/99/"), None);
//! ```

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use url::{Position, Url};

/// The clarifications of a library: URL substrings (`*` matches any run of characters) that
/// article pages contain. Without clarifications every page of the site is an article.
#[derive(Debug, Clone, Default)]
pub struct Clarifications {
    patterns: Vec<String>,
}

impl Clarifications {
    pub fn new(patterns: &[String]) -> Clarifications {
        Clarifications {
            patterns: patterns
                .iter()
                .map(|p| p.trim().to_string())
                .filter(|p| !p.is_empty())
                .collect(),
        }
    }

    /// Whether `url` is an article URL. A clarification that names a scheme (`https://…`) is
    /// matched against the whole URL, any other against its path and query, so that a word
    /// such as `post` does not match the host name.
    pub fn is_article(&self, url: &Url) -> bool {
        if self.patterns.is_empty() {
            return true;
        }
        let whole = url.as_str();
        let local = &url[Position::BeforePath..];
        self.patterns.iter().any(|pattern| {
            let target = if pattern.contains("://") {
                whole
            } else {
                local
            };
            contains_pattern(target, pattern)
        })
    }
}

/// Whether `text` contains `pattern`, where `*` in the pattern matches any run of characters.
fn contains_pattern(text: &str, pattern: &str) -> bool {
    let mut position = 0;
    for piece in pattern.split('*').filter(|p| !p.is_empty()) {
        match text[position..].find(piece) {
            Some(found) => position += found + piece.len(),
            None => return false,
        }
    }
    true
}

/// The site a library lives on: one scheme-independent host and port (`www.` ignored).
#[derive(Debug, Clone)]
pub struct Site {
    host: String,
    port: Option<u16>,
}

impl Site {
    pub fn of(url: &Url) -> Site {
        Site {
            host: bare_host(url),
            port: url
                .port_or_known_default()
                .filter(|p| *p != 80 && *p != 443),
        }
    }

    pub fn contains(&self, url: &Url) -> bool {
        bare_host(url) == self.host
            && url
                .port_or_known_default()
                .filter(|p| *p != 80 && *p != 443)
                == self.port
    }
}

fn bare_host(url: &Url) -> String {
    let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
    match host.strip_prefix("www.") {
        Some(rest) => rest.to_string(),
        None => host,
    }
}

pub(super) use dupfinder_text::extract::normalize_url as normalize;

/// Article URLs made of a fixed prefix, a decimal id and a fixed suffix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdPattern {
    pub prefix: String,
    pub suffix: String,
}

impl IdPattern {
    /// Finds the numeric id shared by the article URLs: the digit run whose surroundings are
    /// the same in most of them. Needs at least two distinct ids and half of the URLs.
    pub fn infer<'a>(urls: impl IntoIterator<Item = &'a str>) -> Option<IdPattern> {
        let urls: Vec<&str> = urls.into_iter().collect();
        let mut groups: HashMap<(&str, &str), Vec<u64>> = HashMap::new();
        for url in &urls {
            let start = url.find("://").map_or(0, |i| i + 3);
            let local_start = url[start..].find('/').map_or(url.len(), |i| start + i);
            for (begin, end) in digit_runs(url, local_start) {
                let digits = &url[begin..end];
                if digits.len() > 18 || (digits.len() > 1 && digits.starts_with('0')) {
                    continue;
                }
                if let Ok(id) = digits.parse::<u64>() {
                    groups
                        .entry((&url[..begin], &url[end..]))
                        .or_default()
                        .push(id);
                }
            }
        }
        let ((prefix, suffix), _) = groups
            .into_iter()
            .filter(|(_, ids)| {
                let mut distinct = ids.clone();
                distinct.sort_unstable();
                distinct.dedup();
                distinct.len() >= 2 && ids.len() * 2 >= urls.len()
            })
            // The largest group; on a tie the longest prefix (the id nearest the end).
            .max_by_key(|((prefix, suffix), ids)| (ids.len(), prefix.len(), suffix.len()))?;
        Some(IdPattern {
            prefix: prefix.to_string(),
            suffix: suffix.to_string(),
        })
    }

    /// The URL of id `id`.
    pub fn url(&self, id: u64) -> String {
        format!("{}{id}{}", self.prefix, self.suffix)
    }

    /// The id of `url` when it follows the pattern.
    pub fn id_of(&self, url: &str) -> Option<u64> {
        let digits = url.strip_prefix(&self.prefix)?.strip_suffix(&self.suffix)?;
        if digits.is_empty()
            || !digits.bytes().all(|b| b.is_ascii_digit())
            || (digits.len() > 1 && digits.starts_with('0'))
        {
            return None;
        }
        digits.parse().ok()
    }
}

/// Byte ranges of the maximal runs of ASCII digits in `text[from..]`.
fn digit_runs(text: &str, from: usize) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut runs = Vec::new();
    let mut i = from;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let begin = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            runs.push((begin, i));
        } else {
            i += 1;
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn clarifications_match_path_and_query_not_host() {
        let c = Clarifications::new(&["post".to_string(), "item.asp?id=*".to_string()]);
        assert!(c.is_article(&url("https://habr.com/ru/post/452584/")));
        assert!(c.is_article(&url("https://elibrary.ru/item.asp?id=27224423")));
        assert!(!c.is_article(&url("https://post.example.org/users/5")));
        assert!(!c.is_article(&url("https://elibrary.ru/author.asp?id=3")));
        assert!(Clarifications::new(&[]).is_article(&url("https://x.org/any")));
    }

    #[test]
    fn site_ignores_www_and_scheme_but_not_port() {
        let site = Site::of(&url("https://www.example.org/start"));
        assert!(site.contains(&url("http://example.org/x")));
        assert!(!site.contains(&url("https://example.org:8443/x")));
        assert!(!site.contains(&url("https://other.org/x")));
        let local = Site::of(&url("http://127.0.0.1:4000/"));
        assert!(local.contains(&url("http://127.0.0.1:4000/a")));
        assert!(!local.contains(&url("http://127.0.0.1:4001/a")));
    }

    #[test]
    fn numeric_id_in_path_or_query() {
        let p = IdPattern::infer([
            "https://habr.com/ru/post/452584/",
            "https://habr.com/ru/post/452001/",
            "https://habr.com/ru/post/7/",
        ])
        .unwrap();
        assert_eq!(p.prefix, "https://habr.com/ru/post/");
        assert_eq!(p.suffix, "/");
        let q = IdPattern::infer([
            "https://elibrary.ru/item.asp?id=27224423",
            "https://elibrary.ru/item.asp?id=27224424&lang=ru",
            "https://elibrary.ru/item.asp?id=1",
        ])
        .unwrap();
        assert_eq!(q.url(5), "https://elibrary.ru/item.asp?id=5");
        assert_eq!(q.id_of("https://elibrary.ru/item.asp?id=0042"), None);
    }

    #[test]
    fn slugs_and_dates_have_no_id_pattern() {
        assert_eq!(
            IdPattern::infer([
                "https://cyberleninka.ru/article/n/o-signaturah",
                "https://cyberleninka.ru/article/n/nechetkie-dublikaty-2",
                "https://cyberleninka.ru/article/n/2019-obzor",
            ]),
            None
        );
        assert_eq!(
            IdPattern::infer([
                "https://j.org/2019/one-title",
                "https://j.org/2020/other-title",
            ]),
            None
        );
        assert_eq!(IdPattern::infer(["https://j.org/post/5/"]), None);
    }

    #[test]
    fn normalize_drops_fragments_and_other_schemes() {
        assert_eq!(
            normalize(url("https://a.org/p?#top")).unwrap().as_str(),
            "https://a.org/p"
        );
        assert!(normalize(url("mailto:x@a.org")).is_none());
        assert!(normalize(url("ftp://a.org/file")).is_none());
    }
}
