//! The disguises that change how a copy is written rather than what it says: whole words in the
//! other script's look-alike letters, Russian transliterated into Latin letters, zero-width
//! characters inside words, and letter spacing.

use super::modify::{HOMOGLYPHS, draw_eligible, look_alike_in};
use super::rng::Rng;
use super::text::{Script, Tokens};

/// Letters that pass for each other inside a whole word though they differ alone, besides the
/// homoglyphs: a word made only of these and the homoglyphs can be written wholly in the other
/// script's letters and still read the same.
const ALIKE_IN_WORDS: &[(char, char)] = &[('к', 'k')];

/// The word in the other script's look-alikes, when every letter has one.
fn respell(word: &str) -> Option<String> {
    let script = Script::dominant(word);
    word.chars()
        .map(|c| {
            look_alike_in(HOMOGLYPHS, c, script)
                .or_else(|| look_alike_in(ALIKE_IN_WORDS, c, script))
        })
        .collect()
}

/// Whole words of three letters or more written in the other script's look-alike letters
/// (`кора` as Latin `kopa`): the level's share of the words, or every word that can be, if
/// fewer. `None` when no word can.
pub(crate) fn look_alike_words(text: &str, level: f64, rng: &mut Rng) -> Option<String> {
    let mut tokens = Tokens::split(text);
    let eligible: Vec<(usize, String)> = tokens
        .words
        .iter()
        .enumerate()
        .filter(|(_, word)| word.chars().count() >= 3)
        .filter_map(|(i, word)| respell(word).map(|spelled| (i, spelled)))
        .collect();
    for (i, spelled) in draw_eligible(&eligible, tokens.words.len(), level, rng)? {
        tokens.words[*i] = spelled.clone();
    }
    Some(tokens.join())
}

/// A transliteration system, as people write Russian in Latin letters.
#[derive(Debug, Clone, Copy)]
enum System {
    Gost,
    Bgn,
    Iso,
    Passport,
}

const SYSTEMS: [System; 4] = [System::Gost, System::Bgn, System::Iso, System::Passport];

/// The Latin spelling of a lowercase Cyrillic letter in `system`; `previous` is the letter
/// before it in the word (BGN writes `е` as `ye` at the start and after vowels).
fn latin_of(c: char, previous: Option<char>, system: System) -> Option<&'static str> {
    let common = match c {
        'а' => "a",
        'б' => "b",
        'в' => "v",
        'г' => "g",
        'д' => "d",
        'з' => "z",
        'и' => "i",
        'к' => "k",
        'л' => "l",
        'м' => "m",
        'н' => "n",
        'о' => "o",
        'п' => "p",
        'р' => "r",
        'с' => "s",
        'т' => "t",
        'у' => "u",
        'ф' => "f",
        _ => "",
    };
    if !common.is_empty() {
        return Some(common);
    }
    let vowel_before = previous.is_none_or(|p| "аеёиоуыэюяьъ".contains(p));
    let spelled = match system {
        System::Gost => match c {
            'е' => "e",
            'ё' => "yo",
            'ж' => "zh",
            'й' => "j",
            'х' => "x",
            'ц' => "cz",
            'ч' => "ch",
            'ш' => "sh",
            'щ' => "shh",
            'ъ' => "``",
            'ы' => "y`",
            'ь' => "`",
            'э' => "e`",
            'ю' => "yu",
            'я' => "ya",
            _ => return None,
        },
        System::Bgn => match c {
            'е' if vowel_before => "ye",
            'е' => "e",
            'ё' if vowel_before => "yë",
            'ё' => "ë",
            'ж' => "zh",
            'й' => "y",
            'х' => "kh",
            'ц' => "ts",
            'ч' => "ch",
            'ш' => "sh",
            'щ' => "shch",
            'ъ' => "\"",
            'ы' => "y",
            'ь' => "'",
            'э' => "e",
            'ю' => "yu",
            'я' => "ya",
            _ => return None,
        },
        System::Iso => match c {
            'е' => "e",
            'ё' => "ë",
            'ж' => "ž",
            'й' => "j",
            'х' => "h",
            'ц' => "c",
            'ч' => "č",
            'ш' => "š",
            'щ' => "ŝ",
            'ъ' => "ʺ",
            'ы' => "y",
            'ь' => "ʹ",
            'э' => "è",
            'ю' => "û",
            'я' => "â",
            _ => return None,
        },
        System::Passport => match c {
            'е' | 'ё' | 'э' => "e",
            'ж' => "zh",
            'й' => "i",
            'х' => "kh",
            'ц' => "ts",
            'ч' => "ch",
            'ш' => "sh",
            'щ' => "shch",
            'ъ' => "ie",
            'ы' => "y",
            'ь' => "",
            'ю' => "iu",
            'я' => "ia",
            _ => return None,
        },
    };
    Some(spelled)
}

/// `word` in Latin letters by `system`, capitals kept on the first letter of each Cyrillic
/// letter's spelling; characters that are not Cyrillic letters stay.
fn transliterate_word(word: &str, system: System) -> String {
    let mut out = String::with_capacity(word.len() * 2);
    let mut previous = None;
    for c in word.chars() {
        let lower = c.to_lowercase().next().unwrap_or(c);
        match latin_of(lower, previous, system) {
            Some(spelled) if lower != c => {
                let mut letters = spelled.chars();
                if let Some(first) = letters.next() {
                    out.extend(first.to_uppercase());
                    out.extend(letters);
                }
            }
            Some(spelled) => out.push_str(spelled),
            None => out.push(c),
        }
        previous = Some(lower);
    }
    out
}

/// The whole text transliterated into Latin letters by one of four systems (GOST 7.79-B,
/// BGN/PCGN, ISO 9, passport), chosen at random; the level is ignored. `None` for a text that
/// is not mostly Cyrillic.
pub(crate) fn transliterate(text: &str, rng: &mut Rng) -> Option<String> {
    if Script::dominant(text) != Script::Cyrillic {
        return None;
    }
    let system = SYSTEMS[rng.below(SYSTEMS.len())];
    let mut tokens = Tokens::split(text);
    for word in &mut tokens.words {
        *word = transliterate_word(word, system);
    }
    Some(tokens.join())
}

/// Zero-width characters (space, non-joiner, joiner, word joiner) inside the level's share of
/// the words of two letters or more.
pub(crate) fn zero_width(text: &str, level: f64, rng: &mut Rng) -> Option<String> {
    const HIDDEN: [char; 4] = ['\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}'];
    let mut tokens = Tokens::split(text);
    let eligible: Vec<usize> = (0..tokens.words.len())
        .filter(|&i| tokens.words[i].chars().count() >= 2)
        .collect();
    for &i in draw_eligible(&eligible, tokens.words.len(), level, rng)? {
        let word = &mut tokens.words[i];
        let chars: Vec<char> = word.chars().collect();
        let at = rng.between(1, chars.len() - 1);
        let hidden = HIDDEN[rng.below(HIDDEN.len())];
        *word = chars[..at]
            .iter()
            .chain(std::iter::once(&hidden))
            .chain(&chars[at..])
            .collect();
    }
    Some(tokens.join())
}

/// The level's share of the words of three letters or more written with a space between
/// their letters, set apart from their neighbours by two spaces.
pub(crate) fn letter_spacing(text: &str, level: f64, rng: &mut Rng) -> Option<String> {
    let mut tokens = Tokens::split(text);
    let eligible: Vec<usize> = (0..tokens.words.len())
        .filter(|&i| {
            let word = &tokens.words[i];
            word.chars().count() >= 3 && word.chars().all(char::is_alphabetic)
        })
        .collect();
    for &i in draw_eligible(&eligible, tokens.words.len(), level, rng)? {
        let spaced: Vec<String> = tokens.words[i].chars().map(String::from).collect();
        tokens.words[i] = spaced.join(" ");
        for sep in [i, i + 1] {
            if tokens.seps.get(sep).is_some_and(|s| s == " ") {
                tokens.seps[sep] = "  ".to_string();
            }
        }
    }
    Some(tokens.join())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn respells_only_words_made_of_look_alikes() {
        assert_eq!(respell("кора").as_deref(), Some("kopa"));
        assert_eq!(respell("ТЕКСТ").as_deref(), Some("TEKCT"));
        assert_eq!(respell("слово"), None);
        assert_eq!(respell("cop").as_deref(), Some("сор"));
    }

    #[test]
    fn transliterates_by_each_system() {
        let word = "Общество";
        assert_eq!(transliterate_word(word, System::Gost), "Obshhestvo");
        assert_eq!(transliterate_word(word, System::Bgn), "Obshchestvo");
        assert_eq!(transliterate_word(word, System::Iso), "Obŝestvo");
        assert_eq!(transliterate_word(word, System::Passport), "Obshchestvo");
        assert_eq!(transliterate_word("её", System::Bgn), "yeyë");
        assert_eq!(transliterate_word("связь", System::Passport), "sviaz");
    }

    #[test]
    fn the_generated_disguises_change_the_text() {
        let text = "Кора дерева очень толстая и прочная, сор убран.";
        let mut rng = Rng::new(1);
        let respelled = look_alike_words(text, 1.0, &mut rng).unwrap();
        assert!(respelled.contains("Kopa") && respelled.contains("cop"));
        let latin = transliterate(text, &mut rng).unwrap();
        assert!(
            !latin.chars().any(|c| Script::of(c) == Script::Cyrillic),
            "{latin}"
        );
        let hidden = zero_width(text, 0.5, &mut rng).unwrap();
        assert!(hidden.contains(['\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}']));
        assert!(letter_spacing(text, 0.2, &mut rng).unwrap().contains("  "));
        assert_eq!(transliterate("plain English", &mut rng), None);
    }
}
