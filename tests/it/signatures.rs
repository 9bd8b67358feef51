//! Signatures end to end: what is stored for a document is what a check computes for its text
//! against the same snapshot, whatever the whitespace and letter case; languages other than
//! English get signatures of content words; mixed-script words fold to one script.

use std::sync::Arc;

use dupfinder::analysis::Language;
use dupfinder::analysis::analyze_text;
use dupfinder::check::{CheckRequest, Method};
use dupfinder::library::check;
use dupfinder::library::{Catalog, DocumentInput, IdValue, NewLibrary};
use dupfinder::signature::{seed_signature, seed_terms};
use proptest::prelude::*;

use crate::support::{catalog, corpus, fixture, synthetic_text};

fn library_of(catalog: &Catalog, id: &str, docs: Vec<(String, String)>) {
    catalog
        .create(NewLibrary {
            id: id.to_string(),
            ..Default::default()
        })
        .unwrap();
    let lines = docs
        .into_iter()
        .enumerate()
        .map(|(i, (doc_id, text))| {
            let input = DocumentInput {
                id: Some(IdValue::Text(doc_id)),
                text: Some(text),
                ..Default::default()
            };
            (i + 1, Ok(input))
        })
        .collect();
    let report = catalog.ingest(id, lines).unwrap();
    assert!(report.rejected.is_empty(), "{:?}", report.rejected);
}

fn synthetic_library() -> (tempfile::TempDir, Arc<Catalog>) {
    let (dir, catalog) = catalog();
    let docs = (0..40)
        .map(|i| {
            (
                format!("s{i}"),
                synthetic_text(i, 60 + (i as usize * 7) % 200),
            )
        })
        .collect();
    library_of(&catalog, "syn", docs);
    // A second snapshot generation, so signatures are not just those of the first ingest.
    catalog
        .index("syn")
        .unwrap()
        .rebuild_statistics(|_| {})
        .unwrap();
    (dir, catalog)
}

/// Changes whitespace and letter case without changing a word.
fn reformat(text: &str, upper_every: usize, newline_every: usize) -> String {
    text.split(' ')
        .enumerate()
        .map(|(i, word)| {
            let word = if upper_every > 0 && i % upper_every == 0 {
                word.to_uppercase()
            } else {
                word.to_string()
            };
            let gap = if newline_every > 0 && i % newline_every == 0 {
                "\n\t  "
            } else {
                " "
            };
            format!("{gap}{word}")
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn stored_signature_equals_check_time_signature(doc in 0u64..40, upper in 0usize..5, newline in 0usize..9) {
        static LIBRARY: std::sync::OnceLock<(tempfile::TempDir, Arc<Catalog>)> = std::sync::OnceLock::new();
        let (_, catalog) = LIBRARY.get_or_init(synthetic_library);
        let index = catalog.index("syn").unwrap();
        let signatures = index.signatures();
        let doc_id = format!("s{doc}");
        let stored = index.document(&doc_id).unwrap().unwrap();
        let stored_seed = signatures.seed_of(&doc_id).unwrap();
        prop_assert!(stored_seed.is_some());

        let text = reformat(&stored.text, upper, newline);
        let query = analyze_text(catalog.analyzer(), &text, None, catalog.config().limits.text()).unwrap();
        prop_assert_eq!(seed_signature(&query.term_counts, signatures.snapshot()), stored_seed);

        let report = check(catalog, &CheckRequest::new(text)).unwrap();
        let found = report.matches.iter().find(|m| m.doc_id == doc_id);
        prop_assert!(found.is_some_and(|m| m.methods.contains(&Method::Signature)), "{:?}", report.matches);
    }
}

#[test]
fn french_and_german_signatures_are_made_of_content_words() {
    let (_dir, catalog) = catalog();
    let docs: Vec<(String, String)> = corpus()
        .into_iter()
        .map(|d| {
            (
                d["id"].as_str().unwrap().to_string(),
                d["text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    library_of(&catalog, "mixed", docs.clone());
    let index = catalog.index("mixed").unwrap();
    let snapshot = index.signatures().snapshot().clone();
    let analyzer = catalog.analyzer();
    for (lang, function_words) in [
        (
            "fr",
            &[
                "des", "les", "une", "nous", "pour", "dan", "dans", "avec", "sur", "qui", "que",
                "est", "sont",
            ][..],
        ),
        (
            "de",
            &[
                "der", "die", "das", "und", "nicht", "mit", "von", "für", "auf", "ist", "werden",
                "sich",
            ][..],
        ),
    ] {
        let texts: Vec<&String> = docs
            .iter()
            .filter(|(id, _)| id.starts_with(lang))
            .map(|(_, t)| t)
            .collect();
        assert!(!texts.is_empty());
        for text in texts {
            // Detected, not given: the check path for a text without `lang`.
            let analyzed = analyzer.analyze(text, None);
            assert_eq!(analyzed.language, Language::from_code(lang).unwrap());
            let counts = dupfinder::analysis::Analyzer::term_counts(&analyzed.tokens);
            let terms = seed_terms(&counts, &snapshot);
            assert_eq!(terms.len(), 6);
            for term in &terms {
                assert!(
                    !function_words.contains(term),
                    "{lang}: function word `{term}` in {terms:?}"
                );
                assert!(term.chars().count() >= 3, "{terms:?}");
            }
        }
    }
}

#[test]
fn mixed_script_russian_folds_to_one_script() {
    let analyzer = dupfinder::index::default_analyzer();
    let mixed = fixture("ru_mixed_script.txt");
    let clean = fixture("ru_mixed_script_clean.txt");
    assert_ne!(mixed, clean);
    let terms = |text: &str| -> Vec<String> {
        analyzer
            .analyze(text, None)
            .tokens
            .into_iter()
            .map(|t| t.term)
            .collect()
    };
    let (mixed_terms, clean_terms) = (terms(&mixed), terms(&clean));
    assert_eq!(mixed_terms, clean_terms);
    for term in &mixed_terms {
        let latin = term.chars().any(|c| c.is_ascii_alphabetic());
        let cyrillic = term.chars().any(|c| ('\u{0400}'..='\u{04FF}').contains(&c));
        assert!(!(latin && cyrillic), "mixed-script term `{term}`");
    }
}
