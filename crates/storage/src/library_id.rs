//! Library ids: `[a-z0-9][a-z0-9_-]{0,63}`, so that an id is always a safe directory name.

use std::fmt;

/// A validated library id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LibraryId(String);

impl LibraryId {
    /// Validates `id`; the error says what is wrong with it.
    pub fn parse(id: &str) -> Result<LibraryId, String> {
        let mut chars = id.chars();
        let Some(first) = chars.next() else {
            return Err("a library id cannot be empty".to_string());
        };
        if id.len() > 64 {
            return Err(format!("library id `{id}` is longer than 64 characters"));
        }
        if !(first.is_ascii_lowercase() || first.is_ascii_digit()) {
            return Err(format!(
                "library id `{id}` must start with a lowercase letter or a digit"
            ));
        }
        if let Some(bad) = chars
            .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_' || *c == '-'))
        {
            return Err(format!(
                "library id `{id}` contains `{bad}`; use a-z, 0-9, `_` and `-`"
            ));
        }
        Ok(LibraryId(id.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for LibraryId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_documented_pattern_only() {
        for ok in ["ru", "acl", "0lib", "a_b-c", &"a".repeat(64)] {
            assert!(LibraryId::parse(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "Ru",
            "-ru",
            "_x",
            "a b",
            "../etc",
            "библиотека",
            &"a".repeat(65),
        ] {
            assert!(LibraryId::parse(bad).is_err(), "{bad}");
        }
    }
}
