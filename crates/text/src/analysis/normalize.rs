//! Per-word normalization: the folding that makes disguised copies look like their originals.
//!
//! People who want to slip a copied text past a checker change how it is encoded, not what it
//! says: they use compatibility characters (ligatures, full-width letters), insert invisible
//! characters (soft hyphens, zero-width spaces and joiners), write `ё` where the original has
//! `е`, or swap letters for look-alikes from another script (a Latin `c` inside a Cyrillic
//! word). Every such disguise is undone here, word by word, so that the stemmer and the
//! signatures see the same word as in the original:
//!
//! 1. invisible characters are removed: the soft hyphen U+00AD, the zero-width characters
//!    U+200B..U+200F, the bidirectional controls, U+2060..U+2069, U+180E and U+FEFF;
//! 2. the word is brought to NFKC;
//! 3. it is lowercased character by character, `ё` becomes `е` and the Greek final sigma `ς`
//!    becomes `σ` (so that lowercasing `Σ` gives the same word wherever it stands);
//! 4. in a word that mixes Latin and Cyrillic letters, look-alike letters are folded into the
//!    word's dominant script (see [`fold_homoglyphs`]).
//!
//! ASCII words skip everything but lowercasing, since none of the other steps can change
//! them, and words of Latin-1 letters and basic Cyrillic skip NFKC and the Unicode case tables,
//! which leave them as they are too. Both shortcuts matter: most words are of these kinds.

use unicode_normalization::UnicodeNormalization;

use super::language::Script;

/// Pairs of a lowercase Latin letter and the lowercase Cyrillic letter that looks the same.
///
/// Uppercase look-alikes (`B`/`В`, `H`/`Н`, `M`/`М`, `T`/`Т`) are covered because words are
/// lowercased before folding: their lowercase forms are listed here even though `b` and `в`
/// do not look alike themselves.
const HOMOGLYPHS: [(char, char); 20] = [
    ('a', 'а'),
    ('b', 'в'),
    ('c', 'с'),
    ('d', 'ԁ'),
    ('e', 'е'),
    ('h', 'н'),
    ('i', 'і'),
    ('ï', 'ї'),
    ('j', 'ј'),
    ('k', 'к'),
    ('l', 'ӏ'),
    ('m', 'м'),
    ('o', 'о'),
    ('p', 'р'),
    ('q', 'ԛ'),
    ('s', 'ѕ'),
    ('t', 'т'),
    ('w', 'ԝ'),
    ('x', 'х'),
    ('y', 'у'),
];

/// Whether `c` is one of the invisible characters that are dropped from words: the soft hyphen,
/// the zero-width space, non-joiner and joiner, the left-to-right and right-to-left marks and
/// embeddings, the word joiner and the invisible operators, the isolates, the Mongolian vowel
/// separator, and the zero-width no-break space (the byte order mark).
///
/// The tokenizer uses the same set to let such characters continue a word instead of
/// splitting it.
pub(crate) fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2069}'
            | '\u{FEFF}'
    )
}

/// Whether `c` is an invisible character that a text has no reason to hold inside a word:
/// every one of [`is_invisible`] but the soft hyphen, which word processors insert to mark
/// where a word may be broken.
pub(crate) fn is_hidden(c: char) -> bool {
    c != '\u{00AD}' && is_invisible(c)
}

/// Appends the normalized form of `word` to `out`, and answers whether the word mixed Latin and
/// Cyrillic letters (and had its look-alikes folded).
///
/// Appending instead of returning lets the analyzer keep the normalized words of a whole
/// document in one buffer, with no allocation per word.
pub(crate) fn normalize_into(word: &str, out: &mut String) -> bool {
    if word.is_ascii() {
        // NFKC leaves ASCII unchanged, ASCII has no invisible characters and no Cyrillic, so
        // lowercasing is the whole normalization.
        let start = out.len();
        out.push_str(word);
        out[start..].make_ascii_lowercase();
        return false;
    }

    let start = out.len();
    let mut scripts = ScriptsSeen::default();
    if word.chars().all(is_simple) {
        // Russian and Western European words need neither NFKC nor the Unicode case tables.
        for c in word.chars() {
            let lower = fold_letter(simple_lowercase(c));
            scripts.see(lower);
            out.push(lower);
        }
    } else {
        for c in word.chars().filter(|&c| !is_invisible(c)).nfkc() {
            for lower in c.to_lowercase() {
                let lower = fold_letter(lower);
                scripts.see(lower);
                out.push(lower);
            }
        }
    }
    let mixed = scripts.latin && scripts.cyrillic;
    if mixed {
        fold_homoglyphs(out, start);
    }
    mixed
}

/// Whether a word has Latin letters, Cyrillic letters, or both, in which case it may hide
/// look-alike letters.
#[derive(Debug, Default)]
struct ScriptsSeen {
    latin: bool,
    cyrillic: bool,
}

impl ScriptsSeen {
    fn see(&mut self, c: char) {
        let script = match Script::of_common_letter(c) {
            Some(script) => script,
            None if c.is_alphabetic() => Script::of(c),
            None => return,
        };
        match script {
            Script::Latin => self.latin = true,
            Script::Cyrillic => self.cyrillic = true,
            _ => {}
        }
    }
}

/// Whether `c` is a character that NFKC leaves alone and whose lowercase
/// [`simple_lowercase`] knows: ASCII, U+00C0..U+00FF (the Latin-1 letters, `×` and `÷`) and
/// basic Cyrillic U+0400..U+045F. The precomposed letters among them (`é`, `й`, `ё`) are
/// already in composed form, and no combining mark is in the set that could compose with them.
fn is_simple(c: char) -> bool {
    matches!(u32::from(c), 0x00..=0x7F | 0xC0..=0xFF | 0x0400..=0x045F)
}

/// The lowercase of a character for which [`is_simple`] holds.
fn simple_lowercase(c: char) -> char {
    let code = u32::from(c);
    let lower = match code {
        0x41..=0x5A | 0xC0..=0xD6 | 0xD8..=0xDE | 0x0410..=0x042F => code + 0x20,
        0x0400..=0x040F => code + 0x50,
        _ => code,
    };
    char::from_u32(lower).unwrap_or(c)
}

/// Folds the letters that lowercasing alone leaves ambiguous: `ё` is written as `е` in most
/// Russian texts, and the Greek final sigma is an ordinary sigma.
fn fold_letter(c: char) -> char {
    match c {
        'ё' => 'е',
        'ς' => 'σ',
        other => other,
    }
}

/// Returns the normalized form of `word`; see the module documentation for what that means.
pub(crate) fn normalize(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    normalize_into(word, &mut out);
    out
}

/// Which of the two scripts a mixed Latin/Cyrillic word belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dominant {
    Latin,
    Cyrillic,
}

/// Letter counts of one script within a word.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    /// All letters of the script.
    letters: usize,
    /// Letters that have no look-alike in the other script: they cannot be a disguise.
    distinctive: usize,
}

/// Rewrites `out[start..]`, a lowercase word that mixes Latin and Cyrillic letters, so that
/// its look-alike letters belong to the word's dominant script.
///
/// A letter without a look-alike (Latin `f`, Cyrillic `ж`) proves which script the author
/// typed in, so when only one script has such letters, it wins. When both do, the word is
/// genuinely mixed and the script with more letters wins (then the one with more distinctive
/// letters); when neither does, the majority of letters decides. Remaining ties go to the
/// script of the first letter, which keeps the result deterministic.
fn fold_homoglyphs(out: &mut String, start: usize) {
    let mut latin = Tally::default();
    let mut cyrillic = Tally::default();
    let mut first = None;
    for c in out[start..].chars().filter(|c| c.is_alphabetic()) {
        let (tally, script, distinctive) = match Script::of(c) {
            Script::Latin => (&mut latin, Dominant::Latin, latin_to_cyrillic(c).is_none()),
            Script::Cyrillic => (
                &mut cyrillic,
                Dominant::Cyrillic,
                cyrillic_to_latin(c).is_none(),
            ),
            _ => continue,
        };
        tally.letters += 1;
        tally.distinctive += usize::from(distinctive);
        first.get_or_insert(script);
    }

    let by_count = |a: usize, b: usize| match a.cmp(&b) {
        std::cmp::Ordering::Greater => Some(Dominant::Latin),
        std::cmp::Ordering::Less => Some(Dominant::Cyrillic),
        std::cmp::Ordering::Equal => None,
    };
    let dominant = match (latin.distinctive > 0, cyrillic.distinctive > 0) {
        (true, false) => Some(Dominant::Latin),
        (false, true) => Some(Dominant::Cyrillic),
        (true, true) => by_count(latin.letters, cyrillic.letters)
            .or_else(|| by_count(latin.distinctive, cyrillic.distinctive)),
        (false, false) => by_count(latin.letters, cyrillic.letters),
    };
    let Some(dominant) = dominant.or(first) else {
        return;
    };

    // Mixed words are rare, so the simplicity of rebuilding the tail is worth its allocation.
    let word = out.split_off(start);
    out.extend(word.chars().map(|c| match dominant {
        Dominant::Latin => cyrillic_to_latin(c).unwrap_or(c),
        Dominant::Cyrillic => latin_to_cyrillic(c).unwrap_or(c),
    }));
}

/// The Latin letters that pass for Russian ones once lowercased: the look-alikes of `а с е о р
/// х у к`, and of `в н м т`, whose capitals look alike.
const RUSSIAN_LOOK_ALIKES: &str = "aceopxykbhmt";

/// A whole normalized word written in look-alike letters of the other script, spelled in
/// `script`'s letters: Latin `kopa` as Cyrillic `кора` (only with letters Russian has), or
/// Cyrillic `сор` as Latin `cop`. `None` when some letter has no look-alike, or the word is
/// already in `script`.
pub(crate) fn whole_word_look_alike(norm: &str, script: Script) -> Option<String> {
    match script {
        Script::Cyrillic => norm
            .chars()
            .map(|c| {
                RUSSIAN_LOOK_ALIKES
                    .contains(c)
                    .then(|| latin_to_cyrillic(c))
                    .flatten()
            })
            .collect(),
        Script::Latin => norm.chars().map(cyrillic_to_latin).collect(),
        _ => None,
    }
}

/// The Cyrillic look-alike of a lowercase Latin letter, if it has one.
fn latin_to_cyrillic(c: char) -> Option<char> {
    HOMOGLYPHS
        .iter()
        .find(|&&(latin, _)| latin == c)
        .map(|&(_, cyrillic)| cyrillic)
}

/// The Latin look-alike of a lowercase Cyrillic letter, if it has one.
fn cyrillic_to_latin(c: char) -> Option<char> {
    HOMOGLYPHS
        .iter()
        .find(|&&(_, cyrillic)| cyrillic == c)
        .map(|&(latin, _)| latin)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_all_cyrillic(word: &str) -> bool {
        word.chars().all(|c| Script::of(c) == Script::Cyrillic)
    }

    #[test]
    fn lowercases_ascii() {
        assert_eq!(normalize("Signature"), "signature");
        assert_eq!(normalize("TF-RIDF"), "tf-ridf");
        assert_eq!(normalize("h2O"), "h2o");
    }

    #[test]
    fn applies_nfkc_to_ligatures_and_full_width_letters() {
        assert_eq!(normalize("ﬁnal"), "final");
        assert_eq!(normalize("ＡＢＣ"), "abc");
        assert_eq!(normalize("ℌilbert"), "hilbert");
        // A decomposed `é` is composed, so both spellings give one word.
        assert_eq!(normalize("re\u{301}sume\u{301}"), normalize("résumé"));
    }

    #[test]
    fn removes_soft_hyphens_and_zero_width_characters() {
        assert_eq!(normalize("dupli\u{AD}cate"), "duplicate");
        assert_eq!(normalize("du\u{200B}pli\u{200C}ca\u{200D}te"), "duplicate");
        assert_eq!(normalize("\u{FEFF}word\u{2060}s"), "words");
        assert_eq!(normalize("анти\u{AD}плагиат"), "антиплагиат");
    }

    #[test]
    fn folds_yo_to_ye() {
        assert_eq!(normalize("ёлка"), "елка");
        assert_eq!(normalize("ЁЛКА"), "елка");
        assert_eq!(normalize("её"), "ее");
        // A decomposed `ё` (е + combining diaeresis) is composed by NFKC first.
        assert_eq!(normalize("е\u{308}лка"), "елка");
    }

    #[test]
    fn folds_greek_final_sigma() {
        assert_eq!(normalize("ΛΟΓΟΣ"), normalize("λογος"));
        assert_eq!(normalize("λογος"), "λογοσ");
    }

    #[test]
    fn folds_latin_look_alikes_into_a_cyrillic_word() {
        // "москва" typed with a Latin `c`.
        let moskva = "\u{43C}\u{43E}\u{441}\u{43A}\u{432}\u{430}";
        assert_eq!(normalize("\u{43C}\u{43E}c\u{43A}\u{432}\u{430}"), moskva);
        assert_eq!(normalize("МОCКВА"), moskva);
        assert!(is_all_cyrillic(&normalize("мoсквa")));
        // Uppercase look-alikes are folded after lowercasing: Latin `B`, `H`, `T`, `M`.
        assert_eq!(
            normalize("B\u{410}\u{41D}\u{422}\u{41C}"),
            "\u{432}\u{430}\u{43D}\u{442}\u{43C}"
        );
        assert_eq!(normalize("ПРОБЛЕMA"), "проблема");
        assert_eq!(normalize("Hаучный"), "научный");
    }

    #[test]
    fn folds_cyrillic_look_alikes_into_a_latin_word() {
        // "paper" with a Cyrillic `а`, "second" with Cyrillic `е`, `о` and `с`.
        assert_eq!(normalize("p\u{430}per"), "paper");
        assert_eq!(normalize("s\u{435}\u{441}\u{43E}nd"), "second");
        assert_eq!(normalize("Аnalysis"), "analysis");
    }

    #[test]
    fn leaves_single_script_words_alone() {
        assert_eq!(normalize("cope"), "cope");
        assert_eq!(normalize("copy"), "copy");
        // "сор" written entirely in Cyrillic stays Cyrillic, although every letter has a
        // Latin look-alike.
        assert_eq!(normalize("сор"), "сор");
        assert!(is_all_cyrillic(&normalize("сор")));
    }

    #[test]
    fn distinctive_letters_decide_over_the_majority() {
        // Four look-alike Latin letters and one distinctive Cyrillic `ж`: the `ж` proves the
        // word is Cyrillic.
        assert_eq!(
            normalize("\u{436}acop"),
            "\u{436}\u{430}\u{441}\u{43E}\u{440}"
        );
        // One distinctive Latin `f` against three Cyrillic look-alikes.
        assert_eq!(normalize("f\u{430}\u{441}\u{435}"), "face");
    }

    #[test]
    fn majority_decides_when_every_letter_has_a_look_alike() {
        assert_eq!(normalize("\u{441}\u{430}t"), "\u{441}\u{430}\u{442}");
        assert_eq!(normalize("\u{441}at"), "cat");
        // A tie goes to the script of the first letter.
        assert_eq!(normalize("\u{441}a"), "\u{441}\u{430}");
        assert_eq!(normalize("c\u{430}"), "ca");
    }

    #[test]
    fn genuinely_mixed_words_fold_towards_the_longer_script() {
        // Latin "fo" (distinctive `f`) glued to Cyrillic "жука" (distinctive `ж`): Cyrillic
        // has more letters, so the Latin `o` becomes Cyrillic and the `f` stays.
        assert_eq!(
            normalize("fo\u{436}\u{443}\u{43A}\u{430}"),
            "f\u{43E}\u{436}\u{443}\u{43A}\u{430}"
        );
        // Three letters each and one distinctive letter each: the first letter decides, so
        // the Cyrillic look-alikes `у` and `к` become Latin `y` and `k`.
        assert_eq!(normalize("fix\u{436}\u{443}\u{43A}"), "fix\u{436}yk");
    }

    #[test]
    fn the_simple_path_agrees_with_the_general_one() {
        for c in (0..0x500)
            .filter_map(char::from_u32)
            .filter(|&c| is_simple(c))
        {
            let general: String = c.to_string().nfkc().flat_map(char::to_lowercase).collect();
            assert_eq!(simple_lowercase(c).to_string(), general, "{c:?}");
        }
    }

    #[test]
    fn appends_to_the_buffer() {
        let mut out = String::from("x|");
        assert!(!normalize_into("Ёж", &mut out));
        out.push('|');
        assert!(!normalize_into("ABC", &mut out));
        out.push('|');
        assert!(normalize_into("Мoсква", &mut out));
        assert_eq!(out, "x|еж|abc|москва");
    }

    #[test]
    fn removes_direction_marks_and_other_hidden_characters() {
        assert_eq!(normalize("сло\u{200E}во"), "слово");
        assert_eq!(normalize("wo\u{202E}r\u{2063}d\u{180E}s"), "words");
        assert!(is_hidden('\u{200B}'));
        assert!(!is_hidden('\u{AD}'));
    }

    #[test]
    fn spells_whole_look_alike_words_in_the_other_script() {
        assert_eq!(
            whole_word_look_alike("kopa", Script::Cyrillic).as_deref(),
            Some("кора")
        );
        assert_eq!(
            whole_word_look_alike("hecc", Script::Cyrillic).as_deref(),
            Some("несс")
        );
        assert_eq!(whole_word_look_alike("word", Script::Cyrillic), None);
        // `d` has a Cyrillic look-alike, but not one Russian uses.
        assert_eq!(whole_word_look_alike("dock", Script::Cyrillic), None);
        assert_eq!(
            whole_word_look_alike("сор", Script::Latin).as_deref(),
            Some("cop")
        );
        assert_eq!(whole_word_look_alike("жук", Script::Latin), None);
    }
}
