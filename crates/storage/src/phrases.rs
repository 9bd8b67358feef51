//! A library's own boilerplate phrases: text an operator declares part of the library's
//! templates (a journal's notice of correction, its ethics statement), so that a passage made of
//! it is `boilerplate` however few documents hold it.
//!
//! The list is kept with the library (see [`Kept`]): on tantivy in the library's folder
//! (`phrases.json`, replaced whole and durably), so it goes with the library into backups; on
//! PostgreSQL in the `phrases` table, shared by every process serving the database. Either way
//! it goes away with the library when the library is deleted, and a library created again under
//! the same id starts with none. A check reads the list afresh, so an added or removed phrase
//! is honoured by the next check, on every process.

use std::path::{Path, PathBuf};

use parking_lot::Mutex;

use crate::index::IndexError;
use crate::{AddedPhrase, Kept};
use dupfinder_common::clock::unix_now;
use dupfinder_text::analysis::{Analyzer, Language, shingles};

pub use crate::Phrase;

/// The file in a library's folder.
const FILE: &str = "phrases.json";
/// Phrases one library may hold.
pub const MAX_PHRASES: usize = 1_000;
/// Characters one phrase may hold.
pub const MAX_PHRASE_CHARS: usize = 5_000;

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
    #[error(transparent)]
    Storage(#[from] IndexError),
}

/// Serializes edits of the phrase lists of this process (an edit reads, changes and replaces
/// the whole file).
static EDIT: Mutex<()> = Mutex::new(());

/// The phrases of the library whose state is `kept`, oldest first.
pub fn list(kept: &Kept) -> Result<Vec<Phrase>, PhraseError> {
    match kept {
        Kept::Folder(dir) => list_file(dir),
        Kept::Rows(rows) => Ok(rows.phrases()?),
    }
}

fn list_file(dir: &Path) -> Result<Vec<Phrase>, PhraseError> {
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
    kept: &Kept,
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
    if words < dupfinder_text::analysis::SHINGLE_WORDS {
        return Err(PhraseError::TooShort { words });
    }
    let phrase = Phrase {
        id: id_of(&text),
        text,
        added: unix_now(),
        by: by.to_string(),
    };
    let dir = match kept {
        Kept::Folder(dir) => dir,
        Kept::Rows(rows) => {
            return match rows.add_phrase(&phrase, MAX_PHRASES)? {
                AddedPhrase::New => Ok((phrase, true)),
                AddedPhrase::Held(existing) => Ok((existing, false)),
                AddedPhrase::Full => Err(PhraseError::TooMany),
            };
        }
    };
    let _edit = EDIT.lock();
    let mut phrases = list_file(dir)?;
    if let Some(existing) = phrases.iter().find(|p| p.id == phrase.id) {
        return Ok((existing.clone(), false));
    }
    if phrases.len() >= MAX_PHRASES {
        return Err(PhraseError::TooMany);
    }
    phrases.push(phrase.clone());
    save(dir, &phrases)?;
    Ok((phrase, true))
}

/// Removes the phrase `id`.
pub fn remove(kept: &Kept, id: &str) -> Result<Phrase, PhraseError> {
    let not_found = || PhraseError::NotFound(id.to_string());
    let dir = match kept {
        Kept::Folder(dir) => dir,
        Kept::Rows(rows) => return rows.remove_phrase(id)?.ok_or_else(not_found),
    };
    let _edit = EDIT.lock();
    let mut phrases = list_file(dir)?;
    let at = phrases
        .iter()
        .position(|p| p.id == id)
        .ok_or_else(not_found)?;
    let removed = phrases.remove(at);
    save(dir, &phrases)?;
    Ok(removed)
}

/// The shingles of the library's phrases, analyzed as text in `lang`: what a check compares
/// its passages with. Empty when the library has no phrases (or its list cannot be read: a
/// check is not refused for it, the failure is logged).
pub fn shingles_of(kept: &Kept, analyzer: &Analyzer, lang: Language) -> Vec<u64> {
    let phrases = match list(kept) {
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
    dupfinder_common::durable::write_atomically(&path, &bytes)
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

    fn folder(dir: &tempfile::TempDir) -> Kept {
        Kept::Folder(dir.path().to_path_buf())
    }

    #[test]
    fn phrases_are_added_once_listed_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let kept = folder(&dir);
        let analyzer = analyzer();
        assert!(list(&kept).unwrap().is_empty());
        let text = "The originally published,   uncorrected article and the republished article";
        let (phrase, new) = add(&kept, text, "editor", &analyzer).unwrap();
        assert!(new);
        assert_eq!(
            phrase.text,
            "The originally published, uncorrected article and the republished article"
        );
        let (again, new) = add(&kept, &phrase.text, "other", &analyzer).unwrap();
        assert!(!new);
        assert_eq!(again, phrase);
        assert_eq!(list(&kept).unwrap(), std::slice::from_ref(&phrase));
        assert!(!shingles_of(&kept, &analyzer, Language::English).is_empty());
        assert_eq!(remove(&kept, &phrase.id).unwrap(), phrase);
        assert!(list(&kept).unwrap().is_empty());
        assert!(matches!(
            remove(&kept, &phrase.id),
            Err(PhraseError::NotFound(_))
        ));
    }

    #[test]
    fn a_phrase_too_short_to_match_or_too_long_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let kept = folder(&dir);
        let analyzer = analyzer();
        assert!(matches!(
            add(&kept, "  \n ", "-", &analyzer),
            Err(PhraseError::Empty)
        ));
        assert!(matches!(
            add(&kept, "of the journal", "-", &analyzer),
            Err(PhraseError::TooShort { words: 1 })
        ));
        assert!(matches!(
            add(&kept, &"word ".repeat(2_000), "-", &analyzer),
            Err(PhraseError::TooLong { .. })
        ));
    }

    #[test]
    fn a_damaged_list_is_an_error_to_edit_and_ignored_by_checks() {
        let dir = tempfile::tempdir().unwrap();
        let kept = folder(&dir);
        std::fs::write(dir.path().join(FILE), b"{not json").unwrap();
        assert!(matches!(list(&kept), Err(PhraseError::Corrupt { .. })));
        assert!(shingles_of(&kept, &analyzer(), Language::English).is_empty());
    }
}
