//! robots.txt (RFC 9309): the group that applies to our user agent, its `Allow`/`Disallow`
//! rules (the longest match wins, `Allow` on a tie; `*` and `$` wildcards), its `Crawl-delay`,
//! and the file's `Sitemap` lines.

use std::time::Duration;

/// The rules of one site for one user agent.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Robots {
    rules: Vec<Rule>,
    /// The group's `Crawl-delay`, if any.
    pub crawl_delay: Option<Duration>,
    /// Every `Sitemap` line of the file, in order.
    pub sitemaps: Vec<String>,
    /// The whole site is off limits (robots.txt could not be read: RFC 9309 §2.3.1.4).
    disallow_all: bool,
}

#[derive(Debug, Clone, PartialEq)]
struct Rule {
    allow: bool,
    pattern: String,
}

#[derive(Default)]
struct Group {
    agents: Vec<String>,
    rules: Vec<Rule>,
    crawl_delay: Option<Duration>,
}

impl Robots {
    /// Everything is allowed (robots.txt is missing: a 4xx answer).
    pub fn allow_all() -> Robots {
        Robots::default()
    }

    /// Nothing is allowed (robots.txt was unreachable or answered 5xx).
    pub fn disallow_all() -> Robots {
        Robots {
            disallow_all: true,
            ..Robots::default()
        }
    }

    /// Parses robots.txt for the user agent whose product token is `agent` (e.g. `dupfinder`).
    pub fn parse(text: &str, agent: &str) -> Robots {
        let agent = agent.to_ascii_lowercase();
        let mut groups: Vec<Group> = Vec::new();
        let mut sitemaps = Vec::new();
        // A run of user-agent lines opens a group; a rule line after it closes the run.
        let mut in_agent_run = false;
        for raw in text.lines() {
            let line = raw.split('#').next().unwrap_or_default().trim();
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let key = key.trim().to_ascii_lowercase();
            let value = value.trim();
            match key.as_str() {
                "user-agent" => {
                    if !in_agent_run {
                        groups.push(Group::default());
                        in_agent_run = true;
                    }
                    if let Some(group) = groups.last_mut() {
                        group.agents.push(value.to_ascii_lowercase());
                    }
                }
                "allow" | "disallow" => {
                    in_agent_run = false;
                    let Some(group) = groups.last_mut() else {
                        continue;
                    };
                    // An empty Disallow allows everything; it adds no rule.
                    if !value.is_empty() {
                        group.rules.push(Rule {
                            allow: key == "allow",
                            pattern: value.to_string(),
                        });
                    }
                }
                "crawl-delay" => {
                    in_agent_run = false;
                    if let (Some(group), Ok(seconds)) = (groups.last_mut(), value.parse::<f64>())
                        && seconds.is_finite()
                        && seconds >= 0.0
                    {
                        group.crawl_delay = Some(Duration::from_secs_f64(seconds.min(3600.0)));
                    }
                }
                "sitemap" => {
                    // Sitemap lines belong to no group; the value is a URL (it contains ':').
                    let value = line[line.find(':').map_or(0, |i| i + 1)..].trim();
                    if !value.is_empty() {
                        sitemaps.push(value.to_string());
                    }
                }
                _ => {}
            }
        }
        let matches_agent = |group: &Group| {
            group
                .agents
                .iter()
                .any(|a| a != "*" && (agent.starts_with(a.as_str()) || a.starts_with(&agent)))
        };
        let chosen: Vec<&Group> = if groups.iter().any(matches_agent) {
            groups.iter().filter(|g| matches_agent(g)).collect()
        } else {
            groups
                .iter()
                .filter(|g| g.agents.iter().any(|a| a == "*"))
                .collect()
        };
        Robots {
            rules: chosen.iter().flat_map(|g| g.rules.clone()).collect(),
            crawl_delay: chosen.iter().filter_map(|g| g.crawl_delay).max(),
            sitemaps,
            disallow_all: false,
        }
    }

    /// Whether `path` (the path and query of a URL) may be fetched.
    pub fn allows(&self, path: &str) -> bool {
        if self.disallow_all {
            return false;
        }
        if path == "/robots.txt" {
            return true;
        }
        let mut best: Option<(usize, bool)> = None;
        for rule in &self.rules {
            if pattern_matches(&rule.pattern, path) {
                let length = rule.pattern.len();
                best = match best {
                    Some((l, allow)) if l > length || (l == length && allow) => Some((l, allow)),
                    _ => Some((length, rule.allow)),
                };
            }
        }
        best.is_none_or(|(_, allow)| allow)
    }
}

/// Matches a robots.txt path pattern: a prefix, where `*` matches any run of characters and a
/// final `$` anchors the end. Percent-encoding is compared as written.
fn pattern_matches(pattern: &str, path: &str) -> bool {
    let (pattern, anchored) = match pattern.strip_suffix('$') {
        Some(p) => (p, true),
        None => (pattern, false),
    };
    let pieces: Vec<&str> = pattern.split('*').collect();
    let mut position = 0;
    for (i, piece) in pieces.iter().enumerate() {
        if i == 0 {
            if !path.starts_with(piece) {
                return false;
            }
            position = piece.len();
            continue;
        }
        let last = i == pieces.len() - 1;
        if last && anchored {
            return path.len() >= position + piece.len() && path.ends_with(piece);
        }
        match path[position..].find(piece) {
            Some(found) => position += found + piece.len(),
            None => return false,
        }
    }
    !anchored || position == path.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "\
# comment
User-agent: Googlebot
Disallow: /

User-agent: *
Disallow: /private/
Disallow: /*.pdf$
Allow: /private/open
Crawl-delay: 2.5

Sitemap: https://example.org/sitemap_index.xml
";

    #[test]
    fn star_group_applies_to_an_unnamed_agent() {
        let robots = Robots::parse(FILE, "dupfinder");
        assert!(robots.allows("/post/1/"));
        assert!(!robots.allows("/private/x"));
        assert!(robots.allows("/private/open/x"), "the longer Allow wins");
        assert!(!robots.allows("/files/a.pdf"));
        assert!(robots.allows("/files/a.pdf?x=1"), "`$` anchors the end");
        assert_eq!(robots.crawl_delay, Some(Duration::from_millis(2500)));
        assert_eq!(robots.sitemaps, ["https://example.org/sitemap_index.xml"]);
    }

    #[test]
    fn a_group_naming_the_agent_replaces_the_star_group() {
        let text = "User-agent: *\nDisallow: /\n\nUser-agent: dupfinder\nUser-agent: other\nDisallow: /tmp\n";
        let robots = Robots::parse(text, "dupfinder");
        assert!(robots.allows("/post/1"));
        assert!(!robots.allows("/tmp/x"));
        let other = Robots::parse(text, "somebot");
        assert!(!other.allows("/post/1"));
    }

    #[test]
    fn empty_disallow_and_missing_file_allow_everything() {
        let robots = Robots::parse("User-agent: *\nDisallow:\n", "dupfinder");
        assert!(robots.allows("/anything"));
        assert!(Robots::allow_all().allows("/x"));
        assert!(!Robots::disallow_all().allows("/x"));
    }

    #[test]
    fn wildcards_in_the_middle() {
        assert!(pattern_matches("/a*/b", "/abc/b/c"));
        assert!(!pattern_matches("/a*/b", "/abc/c"));
        assert!(pattern_matches("/*?sid=", "/page?sid=3"));
        assert!(pattern_matches("/", "/"));
        assert!(pattern_matches("/x$", "/x"));
        assert!(!pattern_matches("/x$", "/xy"));
    }
}
