//! Russian written in Latin letters, read back into Cyrillic.
//!
//! A transliterated copy of a Russian paper shares no word with its original, so the analyzer
//! must turn it back before stemming. Four systems cover what people use: GOST 7.79-2000
//! system B (`shh`, `cz`, `` y` ``), BGN/PCGN (`shch`, `kh`, `ts`, `y`), ISO 9 and the scientific
//! system (`š`, `č`, `ž`, `ʹ`, `ja`, `ju`), and the "passport" system of ICAO 9303 (`iu`, `ia`,
//! no soft sign). Which system a text used is not said anywhere, so the analyzer reads a sample
//! back with each and keeps the one whose Russian stop words are most frequent; a text is taken
//! for transliterated Russian only when that share looks like Russian prose (see
//! [`looks_russian`]), which needs no dictionary.
//!
//! Reading back is lossy where the systems are (BGN `e` is `е` or `э`, passport drops `ь`), so
//! a few words of a copy come out spelled differently from the original; the stemmer absorbs
//! most of it (endings), and the remaining words are a small share of the text.

use std::sync::OnceLock;

use unicode_normalization::UnicodeNormalization;

use super::analyzer::Analyzer;
use super::language::{Language, Script};
use super::normalize::{is_invisible, normalize_into};
use super::tokenize::{SpanKind, WordSpan};
use super::words::{Word, describe};

/// A transliteration system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum System {
    /// GOST 7.79-2000, system B (ASCII only).
    Gost,
    /// BGN/PCGN, also the common informal spelling.
    Bgn,
    /// ISO 9 and the scientific system (letters with diacritics).
    Iso,
    /// ICAO 9303, the spelling of Russian passports since 2013.
    Passport,
}

/// Every system, in the order ties are decided.
pub(crate) const SYSTEMS: [System; 4] = [System::Gost, System::Bgn, System::Iso, System::Passport];

/// Letters spelled alike in every system.
const COMMON: &[(&str, &str)] = &[
    ("a", "а"),
    ("b", "б"),
    ("v", "в"),
    ("g", "г"),
    ("d", "д"),
    ("z", "з"),
    ("k", "к"),
    ("l", "л"),
    ("m", "м"),
    ("n", "н"),
    ("o", "о"),
    ("p", "п"),
    ("r", "р"),
    ("s", "с"),
    ("t", "т"),
    ("u", "у"),
    ("f", "ф"),
    ("w", "в"),
    ("q", "к"),
];

/// GOST 7.79-B, longest spellings first within each system table.
const GOST: &[(&str, &str)] = &[
    ("shh", "щ"),
    ("zh", "ж"),
    ("ch", "ч"),
    ("sh", "ш"),
    ("yo", "ё"),
    ("yu", "ю"),
    ("ya", "я"),
    ("cz", "ц"),
    ("y`", "ы"),
    ("y'", "ы"),
    ("e`", "э"),
    ("e'", "э"),
    ("``", "ъ"),
    ("''", "ъ"),
    ("`", "ь"),
    ("'", "ь"),
    ("’", "ь"),
    ("x", "х"),
    ("j", "й"),
    ("c", "ц"),
    ("h", "х"),
    ("e", "е"),
    ("i", "и"),
    ("y", "ы"),
];

const BGN: &[(&str, &str)] = &[
    // `тс` and `ц` are both `ts`; the reflexive ending `-тся` is by far the commonest `тс`.
    ("tsya", "тся"),
    ("shch", "щ"),
    ("zh", "ж"),
    ("kh", "х"),
    ("ts", "ц"),
    ("ch", "ч"),
    ("sh", "ш"),
    ("yu", "ю"),
    ("ya", "я"),
    ("ye", "е"),
    ("yë", "ё"),
    ("yo", "ё"),
    ("ë", "ё"),
    ("''", "ъ"),
    ("\"", "ъ"),
    ("'", "ь"),
    ("’", "ь"),
    ("x", "кс"),
    ("c", "ц"),
    ("j", "й"),
    ("h", "х"),
    ("i", "и"),
];

const ISO: &[(&str, &str)] = &[
    ("šč", "щ"),
    ("ŝ", "щ"),
    ("ž", "ж"),
    ("č", "ч"),
    ("š", "ш"),
    ("ju", "ю"),
    ("ja", "я"),
    ("jo", "ё"),
    ("ë", "ё"),
    ("û", "ю"),
    ("â", "я"),
    ("è", "э"),
    ("ė", "э"),
    ("ʺ", "ъ"),
    ("ʹ", "ь"),
    ("'", "ь"),
    ("’", "ь"),
    ("j", "й"),
    ("h", "х"),
    ("x", "х"),
    ("c", "ц"),
    ("e", "е"),
    ("i", "и"),
    ("y", "ы"),
];

const PASSPORT: &[(&str, &str)] = &[
    ("tsia", "тся"),
    ("shch", "щ"),
    ("zh", "ж"),
    ("kh", "х"),
    ("ts", "ц"),
    ("ch", "ч"),
    ("sh", "ш"),
    ("iu", "ю"),
    ("ia", "я"),
    ("ie", "ие"),
    ("x", "кс"),
    ("c", "ц"),
    ("j", "й"),
    ("h", "х"),
    ("e", "е"),
    ("y", "ы"),
];

impl System {
    fn table(self) -> &'static [(&'static str, &'static str)] {
        match self {
            System::Gost => GOST,
            System::Bgn => BGN,
            System::Iso => ISO,
            System::Passport => PASSPORT,
        }
    }

    /// The system's rules and then the common letters, grouped by the first byte of their
    /// spelling. Every text not clearly English is read back with each system to see whether it
    /// is Russian, so this runs for every word of the sample: at each position only the rules
    /// that can match are tried, in the order of the tables, instead of all fifty.
    fn rules(self) -> &'static RulesByFirstByte {
        static RULES: OnceLock<[RulesByFirstByte; 4]> = OnceLock::new();
        let all = RULES.get_or_init(|| SYSTEMS.map(RulesByFirstByte::of));
        &all[SYSTEMS.iter().position(|&s| s == self).unwrap_or(0)]
    }
}

type Rule = (&'static str, &'static str);

/// Rules indexed by the first byte of their Latin spelling, each list in table order.
struct RulesByFirstByte(Vec<Vec<Rule>>);

impl RulesByFirstByte {
    fn of(system: System) -> Self {
        let mut by_byte = vec![Vec::new(); 256];
        for &(latin, cyrillic) in system.table().iter().chain(COMMON) {
            by_byte[usize::from(latin.as_bytes()[0])].push((latin, cyrillic));
        }
        RulesByFirstByte(by_byte)
    }

    /// The rules that may match at the start of `rest`, in the order they are tried.
    fn at(&self, rest: &str) -> &[Rule] {
        rest.as_bytes()
            .first()
            .map_or(&[], |&b| self.0[usize::from(b)].as_slice())
    }
}

fn is_vowel(c: char) -> bool {
    matches!(c, 'а' | 'е' | 'ё' | 'и' | 'о' | 'у' | 'ы' | 'э' | 'ю' | 'я')
}

fn is_latin_vowel(c: char) -> bool {
    matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'y')
}

/// Reads a lowercase Latin word back into Cyrillic by `system`. Characters no rule knows
/// (digits, letters of other scripts) are kept as they are.
pub(crate) fn to_cyrillic(word: &str, system: System) -> String {
    let mut out = String::with_capacity(word.len() * 2);
    let mut rest = word;
    let rules = system.rules();
    while let Some(c) = rest.chars().next() {
        let candidates = rules.at(rest);
        let previous = out.chars().next_back();
        // The letters whose reading depends on their neighbours.
        let contextual = match (system, c) {
            // BGN writes `й` as `y` after a vowel, and `э` as `e` at the start of a word and
            // after a vowel (where `е` is `ye`).
            (System::Bgn, 'y') => Some(if previous.is_some_and(is_vowel) {
                "й"
            } else {
                "ы"
            }),
            (System::Bgn, 'e') => Some(if previous.is_none_or(is_vowel) {
                "э"
            } else {
                "е"
            }),
            // The passport system writes `й` as `i`: after a vowel and before a consonant or
            // the end of the word it is `й`.
            (System::Passport, 'i') => {
                let next = rest[1..].chars().next();
                Some(
                    if previous.is_some_and(is_vowel) && !next.is_some_and(is_latin_vowel) {
                        "й"
                    } else {
                        "и"
                    },
                )
            }
            _ => None,
        };
        if let Some(cyrillic) = contextual
            && !candidates
                .iter()
                .any(|(latin, _)| latin.len() > 1 && rest.starts_with(latin))
        {
            out.push_str(cyrillic);
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let rule = candidates.iter().find(|(latin, _)| rest.starts_with(latin));
        match rule {
            Some((latin, cyrillic)) => {
                out.push_str(cyrillic);
                rest = &rest[latin.len()..];
            }
            None => {
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    out
}

/// Whether a character can stand inside a transliterated word between letters: the soft and
/// hard signs of GOST and BGN are apostrophes, backticks and quotation marks, which the
/// tokenizer takes for separators.
pub(crate) fn is_sign_mark(c: char) -> bool {
    matches!(c, '\'' | '’' | '`' | '"')
}

/// Whether a character may end a transliterated word as a soft sign (`kon'`, `` byt` ``).
pub(crate) fn is_trailing_sign_mark(c: char) -> bool {
    matches!(c, '\'' | '’' | '`')
}

/// The smallest share of Russian stop words (in percent of the sampled words) that makes a
/// text read back from Latin letters Russian. Russian prose has 25 to 40 % of them; English read
/// back by any system gets 3 to 8 % (`a`, `i`, `to`, `no`, `on` happen to be Russian words).
pub(crate) const RUSSIAN_STOP_WORD_PERCENT: usize = 15;

/// Whether `stop` Russian stop words among `sampled` words, against `english` English stop
/// words among the same words as they are, make the sample Russian.
pub(crate) fn looks_russian(stop: usize, english: usize, sampled: usize) -> bool {
    sampled > 0 && stop * 100 >= sampled * RUSSIAN_STOP_WORD_PERCENT && stop > english
}

/// The fewest Latin-script words in a row that are tested for transliterated Russian: shorter
/// runs are names, terms and titles, whose stop words say nothing.
const MIN_TRANSLITERATED_WORDS: usize = 12;

/// How many words of a run are read back with each system to decide whether it is Russian.
const TRANSLITERATION_SAMPLE_WORDS: usize = 200;

impl Analyzer {
    /// Reads runs of Latin-script words that are transliterated Russian back into Cyrillic,
    /// and answers how many words were read back. A soft or hard sign written as an apostrophe
    /// or a backtick splits a word in the tokenizer; inside such a run, the pieces are joined
    /// again, marks included.
    pub(super) fn read_back_transliteration(
        &self,
        text: &str,
        words: &mut Vec<Word>,
        normalized: &mut String,
    ) -> usize {
        if !self.shared.stop_words.has_language(Language::Russian) {
            return 0;
        }
        let mut rebuilt: Vec<Word> = Vec::new();
        let mut copied = 0;
        let mut read_back = 0;
        let mut i = 0;
        while i < words.len() {
            if words[i].script != Script::Latin {
                i += 1;
                continue;
            }
            let start = i;
            let mut latin = 0;
            while i < words.len()
                && words[i].span.kind == SpanKind::Word
                && matches!(words[i].script, Script::Latin | Script::Other)
            {
                latin += usize::from(words[i].script == Script::Latin);
                i += 1;
            }
            if latin < MIN_TRANSLITERATED_WORDS || is_other_than_prose(text, &words[start..i]) {
                continue;
            }
            let Some(system) = self.transliteration_system(&words[start..i], normalized) else {
                continue;
            };
            rebuilt.extend_from_slice(&words[copied..start]);
            read_back += read_back_run(text, &words[start..i], system, normalized, &mut rebuilt);
            copied = i;
        }
        if copied > 0 {
            rebuilt.extend_from_slice(&words[copied..]);
            *words = rebuilt;
        }
        read_back
    }

    /// The system a run of Latin-script words was transliterated from Russian with, or `None`
    /// when the run does not read as Russian in any system.
    fn transliteration_system(&self, run: &[Word], normalized: &str) -> Option<System> {
        let sample: Vec<&str> = run
            .iter()
            .filter(|word| word.script == Script::Latin)
            .take(TRANSLITERATION_SAMPLE_WORDS)
            .map(|word| &normalized[word.norm_start..word.norm_end])
            .collect();
        if self.is_clearly_english(sample.iter().copied()) {
            return None;
        }
        let english = sample
            .iter()
            .filter(|word| self.is_stop_word(Language::English, word))
            .count();
        let mut buffer = String::new();
        let mut best: Option<(System, usize)> = None;
        for system in SYSTEMS {
            let stop = sample
                .iter()
                .filter(|word| {
                    buffer.clear();
                    normalize_into(&to_cyrillic(word, system), &mut buffer);
                    self.is_stop_word(Language::Russian, &buffer)
                })
                .count();
            if best.is_none_or(|(_, most)| stop > most) {
                best = Some((system, stop));
            }
        }
        let (system, stop) = best?;
        looks_russian(stop, english, sample.len()).then_some(system)
    }
}

/// Letters of Polish and German spelling that no transliteration of Russian uses: a run with
/// them in one word of [`FOREIGN_WORD_SHARE`] or more is a quotation in such a language, which
/// may read like transliterated Russian by its short words (`w`, `na`, `do`, `to`, `die`).
const NOT_IN_TRANSLITERATION: &str = "ąćęłńśźżóĄĆĘŁŃŚŹŻÓäöüßÄÖÜ";

/// One word in this many holding a letter of [`NOT_IN_TRANSLITERATION`] makes a run foreign.
const FOREIGN_WORD_SHARE: usize = 30;

/// Whether a run of Latin-script words is something other than transliterated prose: a
/// quotation in Polish or German ([`NOT_IN_TRANSLITERATION`]), a list, a glossary or an
/// address (most of its words not separated by spaces alone, as prose is: one word a line,
/// `Blech «Geld», pumpen «borgen»`, a transliterated URL slug joined by `-` and `/`), or a list
/// of letters (most words one letter long, as in
/// `a → e, e → i, o → u`).
fn is_other_than_prose(text: &str, run: &[Word]) -> bool {
    // Those letters are not ASCII: an ASCII word (nearly every one) holds none.
    let foreign = run
        .iter()
        .map(|w| &text[w.span.start..w.span.end])
        .filter(|word| !word.is_ascii() && word.contains(|c| NOT_IN_TRANSLITERATION.contains(c)))
        .count();
    if foreign * FOREIGN_WORD_SHARE >= run.len() {
        return true;
    }
    let plain_gaps = run
        .windows(2)
        .filter(|pair| {
            let gap = &text[pair[0].span.end..pair[1].span.start];
            !gap.is_empty() && gap.chars().all(|c| c == ' ' || c == '\t')
        })
        .count();
    let single_letters = run.iter().filter(|w| w.letters == 1).count();
    plain_gaps * 2 < run.len().saturating_sub(1) || single_letters * 5 > run.len() * 2
}

/// Reads one run of transliterated words back into Cyrillic, appending the words to `out`, and
/// answers how many were read back.
fn read_back_run(
    text: &str,
    run: &[Word],
    system: System,
    normalized: &mut String,
    out: &mut Vec<Word>,
) -> usize {
    let mut read_back = 0;
    let mut k = 0;
    while k < run.len() {
        let word = run[k];
        k += 1;
        if word.script != Script::Latin {
            out.push(word);
            continue;
        }
        let mut end = word.span.end;
        while k < run.len() && run[k].script == Script::Latin {
            let gap = &text[end..run[k].span.start];
            if gap.is_empty() || gap.chars().count() > 2 || !gap.chars().all(is_sign_mark) {
                break;
            }
            end = run[k].span.end;
            k += 1;
        }
        let trailing: usize = text[end..]
            .chars()
            .take_while(|&c| is_trailing_sign_mark(c))
            .take(2)
            .map(char::len_utf8)
            .sum();
        if trailing > 0
            && !text[end + trailing..]
                .chars()
                .next()
                .is_some_and(char::is_alphanumeric)
        {
            end += trailing;
        }
        let latin: String = text[word.span.start..end]
            .chars()
            .filter(|&c| !is_invisible(c))
            .nfkc()
            .flat_map(char::to_lowercase)
            .collect();
        let norm_start = normalized.len();
        normalize_into(&to_cyrillic(&latin, system), normalized);
        let span = WordSpan {
            start: word.span.start,
            end,
            kind: SpanKind::Word,
        };
        out.push(describe(span, norm_start, normalized));
        read_back += 1;
    }
    read_back
}
#[cfg(test)]
mod tests {
    use super::super::analyzer::Analyzed;
    use super::super::disguise::Disguises;
    use super::super::test_support::{RUSSIAN, originals, russian_analyzer, terms};
    use super::*;

    fn all(words: &str, system: System) -> String {
        words
            .split(' ')
            .map(|w| to_cyrillic(w, system))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn reads_gost_back() {
        assert_eq!(
            all(
                "obshhestvo my`shlenie ob``yom czel` e`ksperiment",
                System::Gost
            ),
            "общество мышление объём цель эксперимент"
        );
    }

    #[test]
    fn reads_bgn_back() {
        assert_eq!(
            all(
                "obshchestvo novyy yego etot tsel' khimiya schitayetsya",
                System::Bgn
            ),
            "общество новый его этот цель химия считается"
        );
    }

    #[test]
    fn reads_iso_and_scientific_back() {
        assert_eq!(
            all(
                "obŝestvo obščestvo žurnal ètot celʹ âzyk jazyk",
                System::Iso
            ),
            "общество общество журнал этот цель язык язык"
        );
    }

    #[test]
    fn reads_passport_back() {
        assert_eq!(
            all(
                "obshchestvo novyi issledovaniia iuzhnyi moi tsel",
                System::Passport
            ),
            "общество новый исследования южный мой цел"
        );
    }

    /// The rules tried in full, in table order: what [`RulesByFirstByte`] must agree with.
    fn first_rule_by_scanning(system: System, rest: &str) -> Option<Rule> {
        system
            .table()
            .iter()
            .chain(COMMON)
            .find(|(latin, _)| rest.starts_with(latin))
            .copied()
    }

    #[test]
    fn indexed_rules_pick_the_rule_a_full_scan_picks() {
        let samples = [
            "shhcz", "shch", "tsya", "tsia", "yë", "šč", "ŝ", "ʹa", "’x", "``a", "''", "\"o", "iu",
            "ie", "e`", "y'", "kh", "q", "w", "7", "ж", "",
        ];
        for system in SYSTEMS {
            for rest in samples {
                let indexed = system
                    .rules()
                    .at(rest)
                    .iter()
                    .find(|(latin, _)| rest.starts_with(latin))
                    .copied();
                assert_eq!(
                    indexed,
                    first_rule_by_scanning(system, rest),
                    "{system:?} {rest:?}"
                );
            }
        }
    }

    #[test]
    fn keeps_what_no_rule_knows() {
        assert_eq!(to_cyrillic("h2o", System::Gost), "х2о");
        assert_eq!(to_cyrillic("жук", System::Bgn), "жук");
    }

    #[test]
    fn russian_needs_a_share_of_stop_words_above_english() {
        assert!(looks_russian(30, 5, 100));
        assert!(!looks_russian(10, 2, 100));
        assert!(!looks_russian(20, 30, 100));
        assert!(!looks_russian(0, 0, 0));
    }

    /// The share of `copy`'s terms that are `original`'s, in order-free comparison.
    fn shared_terms(original: &Analyzed, copy: &Analyzed) -> f64 {
        let known: std::collections::HashSet<&str> =
            original.tokens.iter().map(|t| t.term.as_str()).collect();
        let shared = copy
            .tokens
            .iter()
            .filter(|t| known.contains(t.term.as_str()))
            .count();
        shared as f64 / original.tokens.len().max(copy.tokens.len()) as f64
    }

    fn assert_offsets_slice(text: &str, analyzed: &Analyzed) {
        for token in &analyzed.tokens {
            assert!(text.get(token.start..token.end).is_some(), "{token:?}");
        }
    }

    #[test]
    fn reads_gost_transliteration_back() {
        let analyzer = russian_analyzer();
        let original = analyzer.analyze(RUSSIAN, None);
        let text = "V rabote rassmatrivaetsya zadacha poiska nechyotkix dublikatov v bol`shix \
            kollekciyax nauchny`x tekstov. Dlya eyo resheniya predlozhen novy`j metod, kotory`j \
            ispol`zuet signatury` i shingly`, a takzhe uchity`vaet strukturu dokumenta i ego yazy`k.";
        let copy = analyzer.analyze(text, None);
        assert!(copy.disguises.transliterated >= 25, "{:?}", copy.disguises);
        assert!(shared_terms(&original, &copy) >= 0.9, "{:?}", terms(&copy));
        assert_eq!(copy.language, Language::Russian);
        assert_offsets_slice(text, &copy);
        // The soft sign's backtick stays inside the word it belongs to.
        assert!(originals(text, &copy).contains(&"bol`shix"));
    }

    #[test]
    fn reads_bgn_transliteration_back() {
        let analyzer = russian_analyzer();
        let original = analyzer.analyze(RUSSIAN, None);
        let text = "V rabote rassmatrivayetsya zadacha poiska nechëtkikh dublikatov v bol'shikh \
            kollektsiyakh nauchnykh tekstov. Dlya yeyë resheniya predlozhen novyy metod, kotoryy \
            ispol'zuyet signatury i shingly, a takzhe uchityvayet strukturu dokumenta i yego yazyk.";
        let copy = analyzer.analyze(text, None);
        assert!(copy.disguises.transliterated >= 25, "{:?}", copy.disguises);
        assert!(shared_terms(&original, &copy) >= 0.9, "{:?}", terms(&copy));
    }

    #[test]
    fn english_is_not_taken_for_transliteration() {
        let analyzer = russian_analyzer();
        let text = "We study the detection of near duplicates in large collections of papers \
            and propose a method that uses signatures and shingles, as well as the structure \
            of a document and its language.";
        let analyzed = analyzer.analyze(text, None);
        assert_eq!(analyzed.disguises, Disguises::default());
        assert_eq!(analyzed.language, Language::English);
    }
}
