//! Analyzers and helpers shared by the analysis tests.

use super::analyzer::{Analyzed, Analyzer};
use super::language::Language;
use super::stopwords::StopWords;

const ENGLISH_STOP: &str = "# a few English function words\nthe\nof\nand\nare\nin\nis\nwe\nfor\nwith\nthis\nthat\non\nby\nto\na\nan\n";
const FRENCH_STOP: &str = "des\nles\nune\nnous\npour\ndans\nla\nle\nde\net\nun\nsur\nque\nqui\nen\nest\nau\naux\nsont\npar\ncette\n";
const RUSSIAN_STOP: &str = "и\nв\nмы\nна\nдля\nэто\nее\n";

pub(super) fn analyzer() -> Analyzer {
    Analyzer::new(StopWords::from_lists([
        (Language::English, ENGLISH_STOP),
        (Language::French, FRENCH_STOP),
        (Language::Russian, RUSSIAN_STOP),
    ]))
}

pub(super) fn terms(analyzed: &Analyzed) -> Vec<&str> {
    analyzed.tokens.iter().map(|t| t.term.as_str()).collect()
}

pub(super) fn originals<'a>(text: &'a str, analyzed: &Analyzed) -> Vec<&'a str> {
    analyzed
        .tokens
        .iter()
        .map(|t| &text[t.start..t.end])
        .collect()
}

pub(super) const RUSSIAN: &str = "В работе рассматривается задача поиска нечётких дубликатов в больших \
    коллекциях научных текстов. Для её решения предложен новый метод, который использует \
    сигнатуры и шинглы, а также учитывает структуру документа и его язык.";
const RUSSIAN_MORE_STOP: &str = "в\nи\nдля\nее\nего\nа\nтакже\nэто\nна\nс\nпо\nне\nчто\nкак\n";

pub(super) fn russian_analyzer() -> Analyzer {
    Analyzer::new(StopWords::from_lists([
        (Language::English, ENGLISH_STOP),
        (Language::Russian, RUSSIAN_MORE_STOP),
    ]))
}
