//! The bilingual lexicon a cross-language check translates with: Russian stems to English stems
//! and back, in the analyzer's own stem space, so that a translated term is looked up in a
//! library exactly as an indexed one.
//!
//! It is built once, offline, from a dictionary in the dictd format (Debian's `mueller7-dict`,
//! `dict-freedict-eng-rus`) by `dupfinder lexicon build`, and kept as a small text file: a
//! header line, then one line per Russian stem, `stem<TAB>english stems separated by spaces`.
//! Synonyms within one language, from MyThes thesauri (`mythes-ru`, `mythes-en-us`), follow
//! as `~ru:stem<TAB>synonym stems` and `~en:stem<TAB>synonym stems`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use dupfinder_text::analysis::{Analyzer, Language};

/// The first line of a lexicon file.
const HEADER: &str = "# dupfinder lexicon 1 (russian stem, tab, english stems)";

/// Russian ↔ English stems.
#[derive(Debug, Default)]
pub struct Lexicon {
    ru_en: HashMap<String, Box<[String]>>,
    en_ru: HashMap<String, Box<[String]>>,
    /// Synonym stems of each stem, keyed `ru:stem` or `en:stem`.
    synonyms: HashMap<String, Box<[String]>>,
}

/// Why a lexicon could not be read or built.
#[derive(Debug, thiserror::Error)]
pub enum LexiconError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a dupfinder lexicon (its first line is not `{HEADER}`)")]
    NotALexicon { path: PathBuf },
    #[error("{path} line {line}: expected `russian stem<TAB>english stems`")]
    BadLine { path: PathBuf, line: usize },
}

impl Lexicon {
    /// Reads a lexicon file.
    pub fn read(path: &Path) -> Result<Lexicon, LexiconError> {
        let read = |source| LexiconError::Read {
            path: path.to_path_buf(),
            source,
        };
        let file = std::fs::File::open(path).map_err(read)?;
        Lexicon::parse(std::io::BufReader::new(file), path)
    }

    /// Parses the lines of a lexicon (`path` names it in errors).
    pub fn parse(reader: impl BufRead, path: &Path) -> Result<Lexicon, LexiconError> {
        let mut pairs: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut synonyms: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (i, line) in reader.lines().enumerate() {
            let line = line.map_err(|source| LexiconError::Read {
                path: path.to_path_buf(),
                source,
            })?;
            if i == 0 {
                if line.trim_start_matches('\u{feff}') != HEADER {
                    return Err(LexiconError::NotALexicon {
                        path: path.to_path_buf(),
                    });
                }
                continue;
            }
            if line.trim().is_empty() {
                continue;
            }
            let Some((ru, en)) = line.split_once('\t') else {
                return Err(LexiconError::BadLine {
                    path: path.to_path_buf(),
                    line: i + 1,
                });
            };
            let entry = match ru.strip_prefix('~') {
                Some(key) => synonyms.entry(key.to_string()).or_default(),
                None => pairs.entry(ru.to_string()).or_default(),
            };
            entry.extend(en.split(' ').filter(|s| !s.is_empty()).map(str::to_string));
        }
        let mut lexicon = Lexicon::from_pairs(pairs);
        lexicon.synonyms = boxed(synonyms);
        Ok(lexicon)
    }

    /// A lexicon of `russian stem → english stems`.
    pub fn from_pairs(pairs: BTreeMap<String, BTreeSet<String>>) -> Lexicon {
        let mut en_ru: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (ru, ens) in &pairs {
            for en in ens {
                en_ru.entry(en.clone()).or_default().insert(ru.clone());
            }
        }
        Lexicon {
            ru_en: boxed(pairs),
            en_ru: boxed(en_ru),
            synonyms: HashMap::new(),
        }
    }

    /// The synonym stems of the stem `term` of `lang` (Russian or English).
    pub fn synonyms(&self, lang: Language, term: &str) -> &[String] {
        self.synonyms
            .get(&format!("{}:{term}", lang.code()))
            .map_or(&[], |s| s)
    }

    /// Stems with synonyms.
    pub fn synonym_entries(&self) -> usize {
        self.synonyms.len()
    }

    /// The stems of `to` that translate the stem `term` of `from` (none for another pair).
    pub fn translate(&self, from: Language, to: Language, term: &str) -> &[String] {
        let map = match (from, to) {
            (Language::Russian, Language::English) => &self.ru_en,
            (Language::English, Language::Russian) => &self.en_ru,
            _ => return &[],
        };
        map.get(term).map_or(&[], |t| t)
    }

    /// Russian stems with a translation.
    pub fn len(&self) -> usize {
        self.ru_en.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ru_en.is_empty()
    }

    /// Writes the lexicon in its file format.
    pub fn write(&self, mut out: impl Write) -> std::io::Result<()> {
        writeln!(out, "{HEADER}")?;
        let sorted: BTreeMap<&String, &Box<[String]>> = self.ru_en.iter().collect();
        for (ru, ens) in sorted {
            writeln!(out, "{ru}\t{}", ens.join(" "))?;
        }
        let sorted: BTreeMap<&String, &Box<[String]>> = self.synonyms.iter().collect();
        for (key, synonyms) in sorted {
            writeln!(out, "~{key}\t{}", synonyms.join(" "))?;
        }
        Ok(())
    }

    /// The lexicon at `path`, read once per process and shared by every check.
    pub fn cached(path: &Path) -> Result<Arc<Lexicon>, Arc<LexiconError>> {
        type Cache = Mutex<HashMap<PathBuf, Result<Arc<Lexicon>, Arc<LexiconError>>>>;
        static CACHE: OnceLock<Cache> = OnceLock::new();
        let cache = CACHE.get_or_init(Default::default);
        let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .entry(path.to_path_buf())
            .or_insert_with(|| Lexicon::read(path).map(Arc::new).map_err(Arc::new))
            .clone()
    }
}

fn boxed(map: BTreeMap<String, BTreeSet<String>>) -> HashMap<String, Box<[String]>> {
    map.into_iter()
        .filter(|(_, to)| !to.is_empty())
        .map(|(from, to)| (from, to.into_iter().collect()))
        .collect()
}

/// Builds a lexicon from dictd dictionaries (English headwords, Russian translations): the
/// `.dict` or `.dict.dz` files of each.
pub fn build_from_dictd(analyzer: &Analyzer, files: &[PathBuf]) -> Result<Lexicon, LexiconError> {
    build(analyzer, files, &[])
}

/// Builds a lexicon from dictd dictionaries and MyThes thesauri (`th_*.dat`, UTF-8; the
/// language of each told by its headwords' script).
pub fn build(
    analyzer: &Analyzer,
    dictionaries: &[PathBuf],
    thesauri: &[PathBuf],
) -> Result<Lexicon, LexiconError> {
    let mut pairs: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in dictionaries {
        let text = read_dict(path)?;
        for (headword, body) in dictd_entries(&text) {
            add_entry(analyzer, headword, &body, &mut pairs);
        }
    }
    let mut lexicon = Lexicon::from_pairs(pairs);
    let mut synonyms: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in thesauri {
        add_thesaurus(analyzer, &read_dict(path)?, &mut synonyms);
    }
    lexicon.synonyms = boxed(synonyms);
    Ok(lexicon)
}

/// The entries of a MyThes thesaurus (`word|n`, then `n` lines `(label)|synonym|…`): each word
/// with its synonyms, antonyms and related terms left out.
pub fn thesaurus_entries(text: &str) -> Vec<(&str, Vec<&str>)> {
    let mut entries: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in text.lines().skip(1) {
        if !line.starts_with('(') {
            entries.push((line.split('|').next().unwrap_or(""), Vec::new()));
            continue;
        }
        let Some((_, synonyms)) = entries.last_mut() else {
            continue;
        };
        let mut fields = line.split('|');
        let label = fields.next().unwrap_or("");
        if label.contains("антоним") || label.contains("antonym") || label.contains("связанный")
        {
            continue;
        }
        synonyms.extend(fields.map(str::trim).filter(|f| !f.is_empty()));
    }
    entries
}

/// Files the one-word synonyms of a MyThes thesaurus: `word|n` then `n` lines
/// `(label)|synonym|…`; antonyms and terms marked `(generic term)`, `(related term)` and the
/// like are left out. Both directions are filed, stem to stem.
fn add_thesaurus(analyzer: &Analyzer, text: &str, out: &mut BTreeMap<String, BTreeSet<String>>) {
    let stem = |word: &str| -> Option<(Language, String)> {
        if word.contains([' ', '(', '-', '\'']) {
            return None;
        }
        let lang = if word
            .chars()
            .any(|c| ('а'..='я').contains(&c.to_lowercase().next().unwrap_or(c)))
        {
            Language::Russian
        } else if word.chars().all(|c| c.is_ascii_alphabetic()) {
            Language::English
        } else {
            return None;
        };
        let analyzed = analyzer.analyze(word, Some(lang));
        match analyzed.tokens.as_slice() {
            [token] => Some((lang, token.term.clone())),
            _ => None,
        }
    };
    for (head, synonyms) in thesaurus_entries(text) {
        let Some((lang, head_stem)) = stem(head) else {
            continue;
        };
        for field in synonyms {
            let Some((syn_lang, syn)) = stem(field) else {
                continue;
            };
            if syn_lang != lang || syn == head_stem {
                continue;
            }
            let code = lang.code();
            out.entry(format!("{code}:{head_stem}"))
                .or_default()
                .insert(syn.clone());
            out.entry(format!("{code}:{syn}"))
                .or_default()
                .insert(head_stem.clone());
        }
    }
}

/// The text of a `.dict` file, or of a `.dict.dz` one (dictzip is gzip).
fn read_dict(path: &Path) -> Result<String, LexiconError> {
    let read = |source| LexiconError::Read {
        path: path.to_path_buf(),
        source,
    };
    let bytes = std::fs::read(path).map_err(read)?;
    let mut text = String::new();
    if bytes.starts_with(&[0x1f, 0x8b]) {
        flate2::read::MultiGzDecoder::new(&bytes[..])
            .read_to_string(&mut text)
            .map_err(read)?;
    } else {
        text = String::from_utf8_lossy(&bytes).into_owned();
    }
    Ok(text)
}

/// The entries of a dictd database: a headword at the start of a line, its article on the
/// indented lines after it. The database's own `00-database-*` entries are left out.
fn dictd_entries(text: &str) -> Vec<(&str, String)> {
    let mut entries: Vec<(&str, String)> = Vec::new();
    for line in text.lines() {
        if line.is_empty() {
            continue;
        }
        if !line.starts_with([' ', '\t']) {
            entries.push((line.trim(), String::new()));
        } else if let Some((_, body)) = entries.last_mut() {
            body.push_str(line.trim());
            body.push('\n');
        }
    }
    entries.retain(|(head, _)| !head.starts_with("00-database") && !head.starts_with('_'));
    entries
}

/// Files the Russian translations of one English headword: each alternative of the article
/// that is Russian alone (no Latin letters: examples and cross-references are left out), its
/// labels (`_бот.`), transcriptions and parenthesised remarks removed.
fn add_entry(
    analyzer: &Analyzer,
    headword: &str,
    body: &str,
    pairs: &mut BTreeMap<String, BTreeSet<String>>,
) {
    if !headword.chars().all(|c| c.is_ascii_alphabetic()) {
        return;
    }
    let english = analyzer.analyze(headword, Some(Language::English));
    let [token] = english.tokens.as_slice() else {
        return;
    };
    let en = &token.term;
    let cleaned = strip_remarks(body);
    for alternative in cleaned.split([';', ',', '\n']) {
        let alternative = strip_numbering(alternative);
        if alternative.is_empty()
            || alternative.chars().any(|c| c.is_ascii_alphabetic())
            || alternative.split_whitespace().count() > 3
        {
            continue;
        }
        let russian = analyzer.analyze(alternative, Some(Language::Russian));
        for token in &russian.tokens {
            if token.term.chars().any(|c| ('а'..='я').contains(&c)) {
                pairs
                    .entry(token.term.clone())
                    .or_default()
                    .insert(en.clone());
            }
        }
    }
}

/// The article without `[transcriptions]`, `(remarks)` and `_labels.`.
fn strip_remarks(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut depth = 0usize;
    let mut label = false;
    for c in body.chars() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth = depth.saturating_sub(1),
            '_' if depth == 0 => label = true,
            _ if label && (c == '.' || c.is_whitespace()) => label = false,
            _ if label => {}
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// An alternative without its leading numbering (`1.`, `2)`, `а)`).
fn strip_numbering(alternative: &str) -> &str {
    let mut rest = alternative.trim();
    loop {
        let marker = rest
            .char_indices()
            .take_while(|(_, c)| c.is_alphanumeric())
            .last()
            .map(|(i, c)| i + c.len_utf8());
        match marker {
            Some(end) if end <= 3 && rest[end..].starts_with(['.', ')']) => {
                let number = &rest[..end];
                if number.chars().all(|c| c.is_ascii_digit()) || number.chars().count() == 1 {
                    rest = rest[end + 1..].trim_start();
                    continue;
                }
                return rest;
            }
            _ => return rest,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dupfinder_storage::index::default_analyzer;

    const ARTICLES: &str = "\n00-database-short\n   A test dictionary\nvirus\n   [\u{2197}va\u{26a}\u{0259}r\u{0259}s] _n. вирус\nspread\n   1. _n.\n      1) распространение\n      2) _разг. угощение; a spread of food\n   2. _v. распространять(ся)\n";

    #[test]
    fn a_dictd_article_gives_its_russian_translations() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("test.dict");
        std::fs::write(&path, ARTICLES).unwrap();
        let analyzer = default_analyzer();
        let lexicon = build_from_dictd(&analyzer, &[path]).unwrap();
        let en = |w: &str| {
            analyzer.analyze(w, Some(Language::English)).tokens[0]
                .term
                .clone()
        };
        let ru = |w: &str| {
            analyzer.analyze(w, Some(Language::Russian)).tokens[0]
                .term
                .clone()
        };
        let translations = lexicon.translate(Language::English, Language::Russian, &en("spread"));
        assert!(
            translations.contains(&ru("распространение")),
            "{translations:?}"
        );
        assert!(translations.contains(&ru("угощение")));
        // The example holds Latin letters: its words are not translations.
        assert!(!translations.contains(&ru("пищи")));
        let back = lexicon.translate(Language::Russian, Language::English, &ru("вирусы"));
        assert_eq!(back, [en("viruses")]);

        let mut written = Vec::new();
        lexicon.write(&mut written).unwrap();
        let read = Lexicon::parse(&written[..], Path::new("x")).unwrap();
        assert_eq!(read.len(), lexicon.len());
        assert!(Lexicon::parse(&b"other\n"[..], Path::new("x")).is_err());
    }

    #[test]
    fn a_thesaurus_gives_synonyms_both_ways_without_antonyms() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("th_ru.dat");
        let thesaurus =
            "UTF-8\nабсолютный|2\n(синоним)|безусловный|полный\n(антоним)|относительный\n";
        std::fs::write(&path, thesaurus).unwrap();
        let analyzer = default_analyzer();
        let lexicon = build(&analyzer, &[], &[path]).unwrap();
        let ru = |w: &str| {
            analyzer.analyze(w, Some(Language::Russian)).tokens[0]
                .term
                .clone()
        };
        let synonyms = lexicon.synonyms(Language::Russian, &ru("абсолютный"));
        assert!(synonyms.contains(&ru("полный")), "{synonyms:?}");
        assert!(!synonyms.contains(&ru("относительный")));
        assert_eq!(
            lexicon.synonyms(Language::Russian, &ru("полный")),
            [ru("абсолютный")]
        );

        let mut written = Vec::new();
        lexicon.write(&mut written).unwrap();
        let read = Lexicon::parse(&written[..], Path::new("x")).unwrap();
        assert_eq!(read.synonym_entries(), lexicon.synonym_entries());
    }
}
