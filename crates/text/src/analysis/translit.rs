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

#[cfg(test)]
mod tests {
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
}
