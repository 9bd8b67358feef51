//! Translated copies through the whole check, on a library in one language and a handmade
//! lexicon (`tests/fixtures/lexicon/mini.dict`).

use std::path::PathBuf;
use std::time::Instant;

use dupfinder_storage::LibraryStore;
use dupfinder_storage::index::{IndexOptions, LibraryIndex, default_analyzer};
use dupfinder_storage::ingest::{DocumentInput, IdValue, prepare};
use dupfinder_text::analysis::TextLimits;

use super::*;
use crate::{CheckConfig, CheckReport, check_stores};

const ENGLISH: &str = "The virus spread rapidly among the population of the city. \
    The government introduced strict measures and closed every school for a week. \
    A study of 1200 patients in 14 hospitals showed that the treatment was effective. \
    Doctors say the vaccine protects children and elderly people from infection.";

const RUSSIAN: &str = "Вирус быстро распространялся среди населения города. \
    Правительство ввело строгие меры и закрыло каждую школу на неделю. \
    Исследование 1200 пациентов в 14 больницах показало, что лечение было эффективным. \
    Врачи говорят, что вакцина защищает детей и пожилых людей от инфекции.";

const OTHER_ENGLISH: &str = "Rivers carry sediment from mountains to the sea over thousands of \
    years. Deltas form where the current slows and the sand settles. Farmers value the fertile \
    soil of deltas. Storms and tides reshape the coast every season.";

const TEXT_LIMITS: TextLimits = TextLimits {
    max_bytes: 1_000_000,
    min_words: 5,
};

/// A library of `(id, text, lang)` documents, and the lexicon built from the fixture.
struct Setup {
    dir: tempfile::TempDir,
    index: LibraryIndex,
}

impl Setup {
    fn new(documents: &[(&str, &str, &str)]) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let analyzer = default_analyzer();
        let options = IndexOptions {
            writer_memory: 15_000_000,
            ..IndexOptions::default()
        };
        let index = LibraryIndex::open(&dir.path().join("lib"), &analyzer, &options).unwrap();
        let prepared: Vec<_> = documents
            .iter()
            .map(|(id, text, lang)| {
                let input = DocumentInput {
                    id: Some(IdValue::Text(id.to_string())),
                    text: Some(text.to_string()),
                    lang: Some(lang.to_string()),
                    ..Default::default()
                };
                prepare(&analyzer, TEXT_LIMITS, input).unwrap()
            })
            .collect();
        index.add(&prepared).unwrap();
        let fixtures =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/lexicon");
        let lexicon = lexicon::build(
            &analyzer,
            &[fixtures.join("mini.dict")],
            &[fixtures.join("th_mini.dat")],
        )
        .unwrap();
        let mut file = std::fs::File::create(dir.path().join("lexicon.tsv")).unwrap();
        lexicon.write(&mut file).unwrap();
        Setup { dir, index }
    }

    fn check(&self, request: &CheckRequest, lexicon: bool) -> CheckReport {
        let analyzer = default_analyzer();
        let mut config = CheckConfig::default();
        if lexicon {
            config.cross_language.lexicon = Some(self.dir.path().join("lexicon.tsv"));
        }
        let checker = Checker {
            analyzer: &analyzer,
            config: &config,
            text_limits: TEXT_LIMITS,
        };
        let stores: [(&str, &dyn LibraryStore); 1] = [("lib", &self.index)];
        check_stores(
            &checker,
            &stores,
            None,
            request,
            &CancelFlag::new(),
            Instant::now(),
        )
        .unwrap()
    }
}

#[test]
fn a_russian_translation_of_an_english_document_is_a_duplicate() {
    let setup = Setup::new(&[("en-1", ENGLISH, "en"), ("en-2", OTHER_ENGLISH, "en")]);
    let mut request = CheckRequest::new(RUSSIAN);
    request.passages = true;
    let report = setup.check(&request, true);
    assert_eq!(report.cross_language.state, CrossLanguageState::On);
    assert_eq!(report.verdict, Verdict::Duplicate, "{report:#?}");
    let [found] = report.matches.as_slice() else {
        panic!("one match expected: {report:#?}");
    };
    assert_eq!(found.doc_id, "en-1");
    assert_eq!(found.methods, [Method::Translation]);
    let pair = found.cross_language.as_ref().unwrap();
    assert_eq!(
        (pair.query_lang.as_str(), pair.doc_lang.as_str()),
        ("ru", "en")
    );
    let passages = found.passages.as_ref().unwrap();
    assert!(!passages.is_empty() && passages.iter().all(|p| p.translated));
    assert!(report.similarity_index > 0.5, "{}", report.similarity_index);
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["cross_language"], "on");
    assert_eq!(json["matches"][0]["cross_language"]["doc_lang"], "en");
    assert_eq!(json["matches"][0]["passages"][0]["translated"], true);
}

#[test]
fn an_english_translation_of_a_russian_document_is_found_too() {
    let setup = Setup::new(&[("ru-1", RUSSIAN, "ru")]);
    let report = setup.check(&CheckRequest::new(ENGLISH), true);
    assert_eq!(report.verdict, Verdict::Duplicate, "{report:#?}");
    assert_eq!(report.matches[0].doc_id, "ru-1");
}

#[test]
fn an_unrelated_text_of_the_other_language_is_original() {
    let setup = Setup::new(&[("en-2", OTHER_ENGLISH, "en")]);
    let report = setup.check(&CheckRequest::new(RUSSIAN), true);
    assert_eq!(report.verdict, Verdict::Original, "{report:#?}");
}

#[test]
fn without_a_lexicon_the_answer_says_unavailable_and_why() {
    let setup = Setup::new(&[("en-1", ENGLISH, "en")]);
    let report = setup.check(&CheckRequest::new(RUSSIAN), false);
    assert_eq!(report.cross_language.state, CrossLanguageState::Unavailable);
    assert!(
        report
            .cross_language
            .reason
            .as_ref()
            .unwrap()
            .contains("lexicon")
    );
    assert_eq!(report.verdict, Verdict::Original);
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["cross_language"], "unavailable");
    assert!(json["cross_language_reason"].is_string());
}

#[test]
fn a_request_may_turn_it_off() {
    let setup = Setup::new(&[("en-1", ENGLISH, "en")]);
    let mut request = CheckRequest::new(RUSSIAN);
    request.cross_language = false;
    let report = setup.check(&request, true);
    assert_eq!(report.cross_language.state, CrossLanguageState::Off);
    assert!(report.matches.is_empty());
}

#[test]
fn a_copy_with_words_swapped_for_synonyms_is_flagged_as_rewording() {
    // One sentence left as it was: a run of 10 terms, which the library's lookups always find
    // (the four short runs between the swaps are found only by chance).
    let original = format!(
        "{ENGLISH} Hospitals across the region reported fewer admissions, shorter stays and \
         lower mortality rates through the following winter months."
    );
    let setup = Setup::new(&[("en-1", original.as_str(), "en")]);
    let swapped = original
        .replace("rapidly", "quickly")
        .replace("strict", "severe")
        .replace("effective", "efficient")
        .replace("showed", "demonstrated")
        .replace("protects", "shields");
    let report = setup.check(&CheckRequest::new(swapped), true);
    let [found] = report.matches.as_slice() else {
        panic!("one match expected: {report:#?}");
    };
    assert!(
        found.counted && found.methods.contains(&Method::Synonyms),
        "{found:#?}"
    );
    assert!(
        report.flags.iter().any(|f| f.kind == "rewording"),
        "{:?}",
        report.flags
    );

    // The text as it is: a copy, not a rewording.
    let report = setup.check(&CheckRequest::new(original), true);
    assert!(!report.matches[0].methods.contains(&Method::Synonyms));
    assert!(report.flags.is_empty());
}
