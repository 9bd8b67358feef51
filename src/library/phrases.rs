//! A library's own boilerplate phrases: text an operator declares part of the library's
//! templates (a journal's notice of correction, its ethics statement), so that a passage made of
//! it is `boilerplate` however few documents hold it.
//!
//! The list lives in the library's folder (`phrases.json`, replaced whole and durably), so it
//! goes with the library into backups and goes away with it when the library is deleted; a
//! library created again under the same id starts with none. A check reads the file afresh, so
//! an added or removed phrase is honoured by the next check.

use std::path::{Path, PathBuf};

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

use crate::analysis::{Analyzer, Language, shingles};
use crate::clock::unix_now;

/// The file in a library's folder.
const FILE: &str = "phrases.json";
/// Phrases one library may hold.
pub const MAX_PHRASES: usize = 1_000;
/// Characters one phrase may hold.
pub const MAX_PHRASE_CHARS: usize = 5_000;

/// One phrase and who added it when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Phrase {
    /// A stable short id (a hash of the text), for removal.
    pub id: String,
    pub text: String,
    /// Unix seconds.
    pub added: u64,
    /// The key name that added it (`-` without a key).
    pub by: String,
}

#[derive(Debug, thiserror::Error)]
pub enum PhraseError {
    #[error("the phrase is empty")]
    Empty,
    #[error("the phrase has {chars} characters; at most {MAX_PHRASE_CHARS} are allowed")]
    TooLong { chars: usize },
    #[error(
        "the phrase has {words} words the analyzer keeps; at least 3 are needed for it to match a passage"
    )]
    TooShort { words: usize },
    #[error("the library already holds {MAX_PHRASES} phrases; remove some first")]
    TooMany,
    #[error("no phrase `{0}` in this library")]
    NotFound(String),
    #[error("cannot read or write {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is damaged: {reason}")]
    Corrupt { path: PathBuf, reason: String },
}

/// Serializes edits of the phrase lists of this process (an edit reads, changes and replaces
/// the whole file).
static EDIT: Mutex<()> = Mutex::new(());

/// The phrases of the library whose folder is `dir`, oldest first.
pub fn list(dir: &Path) -> Result<Vec<Phrase>, PhraseError> {
    let path = dir.join(FILE);
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| PhraseError::Corrupt {
            path,
            reason: e.to_string(),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(source) => Err(PhraseError::Io { path, source }),
    }
}

/// Adds `text` (white space collapsed) to the library's phrases; the phrase and whether it
/// is new (adding a phrase the library holds changes nothing). `analyzer` checks that it is
/// long enough to match a passage.
pub fn add(
    dir: &Path,
    text: &str,
    by: &str,
    analyzer: &Analyzer,
) -> Result<(Phrase, bool), PhraseError> {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let chars = text.chars().count();
    if chars == 0 {
        return Err(PhraseError::Empty);
    }
    if chars > MAX_PHRASE_CHARS {
        return Err(PhraseError::TooLong { chars });
    }
    let words = analyzer.analyze(&text, None).tokens.len();
    if words < crate::analysis::SHINGLE_WORDS {
        return Err(PhraseError::TooShort { words });
    }
    let _edit = EDIT.lock();
    let mut phrases = list(dir)?;
    let id = id_of(&text);
    if let Some(existing) = phrases.iter().find(|p| p.id == id) {
        return Ok((existing.clone(), false));
    }
    if phrases.len() >= MAX_PHRASES {
        return Err(PhraseError::TooMany);
    }
    let phrase = Phrase {
        id,
        text,
        added: unix_now(),
        by: by.to_string(),
    };
    phrases.push(phrase.clone());
    save(dir, &phrases)?;
    Ok((phrase, true))
}

/// Removes the phrase `id`.
pub fn remove(dir: &Path, id: &str) -> Result<Phrase, PhraseError> {
    let _edit = EDIT.lock();
    let mut phrases = list(dir)?;
    let at = phrases
        .iter()
        .position(|p| p.id == id)
        .ok_or_else(|| PhraseError::NotFound(id.to_string()))?;
    let removed = phrases.remove(at);
    save(dir, &phrases)?;
    Ok(removed)
}

/// The shingles of the library's phrases, analyzed as text in `lang`: what a check compares
/// its passages with. Empty when the library has no phrases (or its list cannot be read: a
/// check is not refused for it, the failure is logged).
pub fn shingles_of(dir: &Path, analyzer: &Analyzer, lang: Language) -> Vec<u64> {
    let phrases = match list(dir) {
        Ok(phrases) => phrases,
        Err(e) => {
            tracing::warn!(error = %e, "the library's phrase list is ignored");
            return Vec::new();
        }
    };
    let mut all: Vec<u64> = phrases
        .iter()
        .flat_map(|p| shingles(&analyzer.analyze(&p.text, Some(lang)).tokens))
        .collect();
    all.sort_unstable();
    all.dedup();
    all
}

fn save(dir: &Path, phrases: &[Phrase]) -> Result<(), PhraseError> {
    let path = dir.join(FILE);
    let bytes = serde_json::to_vec_pretty(phrases).map_err(|e| PhraseError::Corrupt {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    crate::durable::write_atomically(&path, &bytes)
        .map_err(|source| PhraseError::Io { path, source })
}

/// Twelve hex digits of the text's hash.
fn id_of(text: &str) -> String {
    format!("{:012x}", xxhash_rust::xxh3::xxh3_64(text.as_bytes()) >> 16)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn analyzer() -> Analyzer {
        crate::index::default_analyzer()
    }

    #[test]
    fn phrases_are_added_once_listed_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let analyzer = analyzer();
        assert!(list(dir.path()).unwrap().is_empty());
        let text = "The originally published,   uncorrected article and the republished article";
        let (phrase, new) = add(dir.path(), text, "editor", &analyzer).unwrap();
        assert!(new);
        assert_eq!(
            phrase.text,
            "The originally published, uncorrected article and the republished article"
        );
        let (again, new) = add(dir.path(), &phrase.text, "other", &analyzer).unwrap();
        assert!(!new);
        assert_eq!(again, phrase);
        assert_eq!(list(dir.path()).unwrap(), std::slice::from_ref(&phrase));
        assert!(!shingles_of(dir.path(), &analyzer, Language::English).is_empty());
        assert_eq!(remove(dir.path(), &phrase.id).unwrap(), phrase);
        assert!(list(dir.path()).unwrap().is_empty());
        assert!(matches!(
            remove(dir.path(), &phrase.id),
            Err(PhraseError::NotFound(_))
        ));
    }

    #[test]
    fn a_phrase_too_short_to_match_or_too_long_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let analyzer = analyzer();
        assert!(matches!(
            add(dir.path(), "  \n ", "-", &analyzer),
            Err(PhraseError::Empty)
        ));
        assert!(matches!(
            add(dir.path(), "of the journal", "-", &analyzer),
            Err(PhraseError::TooShort { words: 1 })
        ));
        assert!(matches!(
            add(dir.path(), &"word ".repeat(2_000), "-", &analyzer),
            Err(PhraseError::TooLong { .. })
        ));
    }

    #[test]
    fn a_damaged_list_is_an_error_to_edit_and_ignored_by_checks() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FILE), b"{not json").unwrap();
        assert!(matches!(list(dir.path()), Err(PhraseError::Corrupt { .. })));
        assert!(shingles_of(dir.path(), &analyzer(), Language::English).is_empty());
    }
}
