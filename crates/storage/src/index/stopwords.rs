//! The stop-word lists of `index_schema/stopwords/`, embedded in the binary, and the analyzer
//! built from them.

use dupfinder_text::analysis::{Analyzer, Language, StopWords};

/// `(ISO 639-1 code, file content)` for every stop-word list.
const LISTS: &[(&str, &str)] = &[
    (
        "ar",
        include_str!("../../../../index_schema/stopwords/ar.txt"),
    ),
    (
        "da",
        include_str!("../../../../index_schema/stopwords/da.txt"),
    ),
    (
        "de",
        include_str!("../../../../index_schema/stopwords/de.txt"),
    ),
    (
        "el",
        include_str!("../../../../index_schema/stopwords/el.txt"),
    ),
    (
        "en",
        include_str!("../../../../index_schema/stopwords/en.txt"),
    ),
    (
        "es",
        include_str!("../../../../index_schema/stopwords/es.txt"),
    ),
    (
        "fi",
        include_str!("../../../../index_schema/stopwords/fi.txt"),
    ),
    (
        "fr",
        include_str!("../../../../index_schema/stopwords/fr.txt"),
    ),
    (
        "hu",
        include_str!("../../../../index_schema/stopwords/hu.txt"),
    ),
    (
        "it",
        include_str!("../../../../index_schema/stopwords/it.txt"),
    ),
    (
        "nl",
        include_str!("../../../../index_schema/stopwords/nl.txt"),
    ),
    (
        "no",
        include_str!("../../../../index_schema/stopwords/no.txt"),
    ),
    (
        "pt",
        include_str!("../../../../index_schema/stopwords/pt.txt"),
    ),
    (
        "ro",
        include_str!("../../../../index_schema/stopwords/ro.txt"),
    ),
    (
        "ru",
        include_str!("../../../../index_schema/stopwords/ru.txt"),
    ),
    (
        "sv",
        include_str!("../../../../index_schema/stopwords/sv.txt"),
    ),
    (
        "ta",
        include_str!("../../../../index_schema/stopwords/ta.txt"),
    ),
    (
        "tr",
        include_str!("../../../../index_schema/stopwords/tr.txt"),
    ),
];

/// The analyzer with every stop-word list of `index_schema/stopwords/`. The one analyzer used
/// for indexing, for checks and for search queries: built once, every call answering a clone
/// of it (a reference count).
pub fn default_analyzer() -> Analyzer {
    static DEFAULT: std::sync::OnceLock<Analyzer> = std::sync::OnceLock::new();
    DEFAULT
        .get_or_init(|| {
            let lists = LISTS.iter().map(|(code, words)| {
                let lang =
                    Language::from_code(code).expect("stop-word lists are named by known codes");
                (lang, *words)
            });
            Analyzer::new(StopWords::from_lists(lists))
        })
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_list_loads_and_filters_its_function_words() {
        let analyzer = default_analyzer();
        let french = "Nous présentons une méthode pour la détection des doublons dans les bibliothèques \
                      numériques avec des signatures robustes.";
        let analyzed = analyzer.analyze(french, Some(Language::from_code("fr").unwrap()));
        let terms: Vec<&str> = analyzed.tokens.iter().map(|t| t.term.as_str()).collect();
        for function_word in ["nous", "une", "pour", "des", "dan", "les", "avec"] {
            assert!(
                !terms.contains(&function_word),
                "{function_word} in {terms:?}"
            );
        }
        assert!(
            terms
                .iter()
                .any(|t| t.starts_with("bibliothequ") || t.starts_with("bibliothèqu")),
            "{terms:?}"
        );
    }
}
