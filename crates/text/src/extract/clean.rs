//! Text repairs every format needs: ligatures expanded (a PDF writes «ﬁ» as one glyph), soft
//! hyphens removed, and lines joined into paragraphs with words hyphenated at line ends made
//! whole again.

use unicode_normalization::UnicodeNormalization;

/// Expands the Latin ligatures of the Alphabetic Presentation Forms block (ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ)
/// by their compatibility decomposition and drops soft hyphens. Only these characters are
/// normalized: full NFKC would also turn «№» into «No» and superscripts into digits.
pub fn expand_ligatures(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\u{fb00}'..='\u{fb06}' => out.extend(std::iter::once(c).nfkc()),
            '\u{00ad}' => {}
            _ => out.push(c),
        }
    }
    out
}

/// Joins lines into one paragraph: with a space, or with nothing where a word was hyphenated at
/// the end of a line («analy-» + «sis» → «analysis»). A hyphen before a capital or a digit is
/// kept («Rabin-» + «Karp» → «Rabin-Karp»), since such compounds are written with it.
pub fn join_hyphenated<'a>(lines: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for line in lines {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if out.is_empty() {
            out.push_str(line);
            continue;
        }
        let next_lowercase = line.chars().next().is_some_and(char::is_lowercase);
        let hyphen = out
            .char_indices()
            .next_back()
            .filter(|(_, c)| matches!(c, '-' | '\u{2010}' | '\u{00ad}'));
        let letter_before = hyphen.is_some_and(|(at, _)| {
            out[..at]
                .chars()
                .next_back()
                .is_some_and(char::is_alphabetic)
        });
        let next_uppercase = line.chars().next().is_some_and(char::is_uppercase);
        match hyphen {
            Some((at, _)) if next_lowercase && letter_before => {
                out.truncate(at);
                out.push_str(line);
            }
            Some(_) if next_uppercase && letter_before => out.push_str(line),
            _ => {
                out.push(' ');
                out.push_str(line);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ligatures_are_expanded_and_soft_hyphens_dropped() {
        assert_eq!(
            expand_ligatures("e\u{fb03}cient \u{fb01}rst \u{fb02}ow"),
            "efficient first flow"
        );
        assert_eq!(expand_ligatures("ана\u{ad}лиз № 5"), "анализ № 5");
    }

    #[test]
    fn hyphenated_words_are_joined_and_compounds_kept() {
        assert_eq!(
            join_hyphenated(["the analy-", "sis of near-dupli-", "cates"]),
            "the analysis of near-duplicates"
        );
        assert_eq!(
            join_hyphenated(["Rabin-", "Karp and", "2-", "3 grams"]),
            "Rabin-Karp and 2- 3 grams"
        );
        assert_eq!(
            join_hyphenated(["иссле-", "дование текстов"]),
            "исследование текстов"
        );
    }
}
