//! The words a paper's parts announce themselves with: section headings and the labels of
//! front-matter lines, in Russian and English.

use super::layout::words;

/// What a heading names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Heading {
    Abstract,
    /// A heading inside a structured abstract ("Background", "Methods", "Цель").
    AbstractPart,
    /// A heading that opens the body ("Introduction", "Введение").
    BodyStart,
    Acknowledgements,
    References,
    /// A heading of back matter that describes the paper rather than carrying it: author
    /// information, contributions, funding, competing interests.
    Statements,
    /// Back matter that is text again: appendices, supporting information.
    Appendix,
}

const REFERENCES: &[&str] = &[
    "references",
    "reference",
    "reference list",
    "references and notes",
    "references cited",
    "bibliography",
    "literature",
    "literature cited",
    "cited literature",
    "works cited",
    "sources",
    "список литературы",
    "литература",
    "библиографический список",
    "библиография",
    "список использованных источников",
    "список использованной литературы",
    "список источников",
    "источники",
    "источники и литература",
    "список литературы references",
];

const ACKNOWLEDGEMENTS: &[&str] = &[
    "acknowledgements",
    "acknowledgments",
    "acknowledgement",
    "acknowledgment",
    "благодарности",
    "благодарность",
];

const ABSTRACTS: &[&str] = &[
    "abstract",
    "summary",
    "author summary",
    "patient summary",
    "editors summary",
    "editor s summary",
    "synopsis",
    "аннотация",
    "резюме",
    "реферат",
];

const ABSTRACT_PARTS: &[&str] = &[
    "background",
    "objective",
    "objectives",
    "aim",
    "aims",
    "purpose",
    "methods",
    "methods and findings",
    "methodology",
    "methodology principal findings",
    "principal findings",
    "findings",
    "results",
    "conclusion",
    "conclusions",
    "conclusions significance",
    "significance",
    "additional information",
    "цель",
    "цель исследования",
    "материалы и методы",
    "методы",
    "результаты",
    "заключение",
    "выводы",
];

const BODY_STARTS: &[&str] = &[
    "introduction",
    "background",
    "main text",
    "materials and methods",
    "methods",
    "введение",
    "постановка задачи",
    "основная часть",
];

/// Headings of back matter about the authors.
const ABOUT_THE_AUTHORS: &[&str] = &[
    "about the authors",
    "author information",
    "authors information",
    "сведения об авторах",
    "информация об авторах",
    "об авторах",
];

/// The statements a paper makes about its own making: a heading of back matter, or a
/// front-matter label ("Funding: …").
const DECLARATIONS: &[&str] = &[
    "author contributions",
    "funding",
    "competing interests",
    "conflict of interest",
    "conflicts of interest",
    "financial disclosure",
    "data availability",
    "вклад авторов",
    "финансирование",
    "конфликт интересов",
];

const APPENDICES: &[&str] = &[
    "appendix",
    "appendices",
    "supporting information",
    "supplementary material",
    "supplementary materials",
    "figures",
    "tables",
    "figure legends",
    "приложение",
    "приложения",
];

/// Labels that open a front-matter line or paragraph ("Keywords: …", "УДК 004.8"), besides the
/// [`DECLARATIONS`].
const LABELS: &[&str] = &[
    "keywords",
    "key words",
    "index terms",
    "ключевые слова",
    "received",
    "accepted",
    "published",
    "revised",
    "editor",
    "academic editor",
    "citation",
    "copyright",
    "corresponding author",
    "e mail",
    "email",
    "эл почта",
    "correspondence",
    "for citation",
    "cite this article",
    "article history",
    "license",
    "licence",
    "для цитирования",
    "автор для переписки",
    "адрес для переписки",
    "информация о статье",
    "поступила в редакцию",
    "статья поступила в редакцию",
    "принята к публикации",
    "дата поступления",
];

/// Labels that mark front matter even without punctuation after them.
const BARE_LABELS: &[&str] = &["удк", "udc", "ббк", "doi", "orcid", "©"];

/// The labels of a keyword list. Unlike the other labels they need no colon: PDFs set them as
/// a heading of their own ("Ключевые слова" above the list) or run them into the paragraph
/// with a footnote mark ("Keywords 1 Threat modeling, …").
const KEYWORD_LABELS: &[&str] = &["keywords", "key words", "index terms", "ключевые слова"];

/// Whether what follows a keyword label still reads as the label's end: nothing,
/// punctuation, or a footnote mark of one or two digits.
fn ends_keyword_label(rest: &str) -> bool {
    let rest = rest.trim_start();
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    match rest.chars().next() {
        None => true,
        Some(c) if c.is_ascii_digit() => {
            digits <= 2
                && rest[digits..]
                    .chars()
                    .next()
                    .is_none_or(char::is_whitespace)
        }
        Some(c) => !c.is_alphanumeric(),
    }
}

/// Whether a text opens with a keyword list's label.
fn opens_with_keyword_label(text: &str) -> bool {
    KEYWORD_LABELS.iter().any(|label| {
        let len: usize = text
            .chars()
            .take(label.chars().count())
            .map(char::len_utf8)
            .sum();
        let head: String = text[..len].chars().flat_map(char::to_lowercase).collect();
        head == *label && ends_keyword_label(&text[len..])
    })
}

/// Where a keyword list's label starts inside a paragraph, in code points: at the start, or
/// after a sentence ("… the framework is demonstrated. Keywords 1 Threat modeling, …"), as a
/// PDF's text runs the keywords into the abstract above them.
pub(super) fn keywords_at(text: &str) -> Option<usize> {
    let mut previous: Option<char> = None;
    let mut before: Option<char> = None;
    for (chars, (at, c)) in text.char_indices().enumerate() {
        let opens = match (before, previous) {
            (_, None) => true,
            (Some(end), Some(space)) => space.is_whitespace() && matches!(end, '.' | '!' | '?'),
            _ => false,
        };
        if opens && c.is_uppercase() && opens_with_keyword_label(&text[at..]) {
            return Some(chars);
        }
        before = previous;
        previous = Some(c);
    }
    None
}

/// A heading's words, lowercased, without numbering and punctuation: "2.1. Methods:" →
/// "methods".
pub(super) fn normalized(text: &str) -> String {
    let mut out = String::new();
    for word in name_words(text) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(word.chars().flat_map(char::to_lowercase));
    }
    out.replace('ё', "е")
}

/// The words of a heading's name: its words after leading section numbers and roman numerals.
fn name_words(text: &str) -> impl Iterator<Item = &str> + Clone {
    words(text).skip_while(|word| word.chars().all(|c| c.is_ascii_digit()) || is_roman(word))
}

/// The most words a name of [`heading`]'s lists has (a test holds it to them).
const NAME_WORDS: usize = 3;

/// The names of an appendix, whatever words follow them ("Appendix A. Proofs").
const APPENDIX_OPENERS: &[&str] = &["appendix", "приложение"];

fn is_roman(word: &str) -> bool {
    word.len() <= 4 && word.chars().all(|c| matches!(c, 'I' | 'V' | 'X'))
}

/// Whether a heading starts with a section number: "1.", "2.1", "IV.".
pub(super) fn numbered(text: &str) -> bool {
    let first = text.split_whitespace().next().unwrap_or("");
    let digits = first.trim_end_matches(['.', ')']);
    !digits.is_empty()
        && (digits.chars().all(|c| c.is_ascii_digit() || c == '.') || is_roman(digits))
        && text.split_whitespace().nth(1).is_some()
}

/// What a heading names, if it is one of the known names.
pub(super) fn heading(text: &str) -> Option<Heading> {
    // A text of more words than any name names nothing, unless it opens an appendix: told from
    // its first words alone, without lowercasing the whole of a paragraph.
    let mut words = name_words(text);
    if words.clone().nth(NAME_WORDS).is_some() {
        let first: String = words
            .next()?
            .chars()
            .flat_map(char::to_lowercase)
            .map(|c| if c == 'ё' { 'е' } else { c })
            .collect();
        if !APPENDIX_OPENERS.contains(&first.as_str()) {
            return None;
        }
    }
    let name = normalized(text);
    let is = |names: &[&str]| names.contains(&name.as_str());
    if is(REFERENCES) {
        Some(Heading::References)
    } else if is(ACKNOWLEDGEMENTS) {
        Some(Heading::Acknowledgements)
    } else if is(ABSTRACTS) {
        Some(Heading::Abstract)
    } else if is(ABOUT_THE_AUTHORS) || is(DECLARATIONS) {
        Some(Heading::Statements)
    } else if is(APPENDICES)
        || APPENDIX_OPENERS.iter().any(|opener| {
            name.strip_prefix(opener)
                .is_some_and(|rest| rest.starts_with(' '))
        })
    {
        Some(Heading::Appendix)
    } else if is(BODY_STARTS) {
        Some(Heading::BodyStart)
    } else if is(ABSTRACT_PARTS) {
        Some(Heading::AbstractPart)
    } else {
        None
    }
}

/// Whether a line is a section's name alone ("References", "7. Acknowledgements",
/// "Аннотация"): a heading, however the text around it is laid out.
pub fn is_section_name(line: &str) -> bool {
    heading(line).is_some()
}

/// Whether a name is one a structured abstract's parts carry.
pub(super) fn abstract_part(text: &str) -> bool {
    ABSTRACT_PARTS.contains(&normalized(text).as_str())
}

/// The heading a paragraph opens with when the heading runs into its text ("Abstract: We …",
/// "Аннотация. В статье …"): the kind and the paragraph without it.
pub(super) fn run_in(text: &str) -> Option<Heading> {
    let (head, rest) = text.split_once([':', '.', '—'])?;
    if head.chars().count() > 40 || rest.trim().is_empty() {
        return None;
    }
    match heading(head)? {
        kind @ (Heading::Abstract | Heading::Acknowledgements | Heading::Statements) => Some(kind),
        _ => None,
    }
}

/// Whether a line or paragraph opens with a front-matter label.
pub(super) fn labelled(text: &str) -> bool {
    let text = text.trim_start_matches(['*', '†', '‡', '#', ' ']);
    let lower: String = text
        .chars()
        .take(48)
        .flat_map(char::to_lowercase)
        .map(|c| if c == 'ё' { 'е' } else { c })
        .collect();
    if lower.starts_with('©') {
        return true;
    }
    // The label's words, then what follows them.
    let flat: String = lower
        .chars()
        .map(|c| if c == '-' || c == '.' { ' ' } else { c })
        .collect();
    let after = |label: &str| -> Option<char> {
        let rest = flat.strip_prefix(label)?;
        let next = rest.chars().next();
        match next {
            Some(c) if c.is_alphanumeric() => None,
            _ => Some(
                lower
                    .chars()
                    .skip(label.chars().count())
                    .find(|c| !c.is_whitespace())
                    .unwrap_or(' '),
            ),
        }
    };
    if BARE_LABELS.iter().any(|l| after(l).is_some()) || opens_with_keyword_label(text) {
        return true;
    }
    LABELS
        .iter()
        .chain(DECLARATIONS)
        .any(|l| after(l).is_some_and(|c| matches!(c, ':' | '.' | '—' | '–' | '-')))
}

/// Whether a string holds an e-mail address, an ORCID iD or a DOI.
pub(super) fn has_identifier(text: &str) -> bool {
    let doi = text.contains("doi.org/") || text.to_lowercase().contains("doi:");
    doi || identifiers(text) > 0
}

/// Whether a string may hold a DOI, an e-mail address or an ORCID iD: false only when
/// [`has_identifier`] and [`identifiers`] are sure to find none, in a scan that reads the bytes
/// alone.
pub(super) fn may_hold_identifier(text: &str) -> bool {
    // "doi" in ASCII case alone: outside ASCII only 'İ' lowercases to one of its letters, and its
    // 'i' is followed by a dot above, never by the colon of "doi:" (tested over all characters).
    text.contains('@')
        || text.contains("0000-000")
        || text
            .as_bytes()
            .windows(3)
            .any(|w| w.eq_ignore_ascii_case(b"doi"))
}

/// How many e-mail addresses and ORCID iDs a string holds.
pub(super) fn identifiers(text: &str) -> usize {
    let emails = text
        .split_whitespace()
        .filter(|w| {
            w.split_once('@').is_some_and(|(user, host)| {
                !user.is_empty() && host.contains('.') && host.len() > 3
            })
        })
        .count();
    emails + text.matches("0000-000").count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_passed_over_for_identifiers_holds_none() {
        for text in [
            "see doi.org/10.1/x",
            "DOI: 10.1000/182",
            "Doi:10.1",
            "mail a@b.rs",
            "ORCID 0000-0002-1825-0097",
            "DOİ: 10.1",
            "plain prose with no identifier at all",
            "Дои: нет",
        ] {
            if !may_hold_identifier(text) {
                assert!(!has_identifier(text) && identifiers(text) == 0, "{text}");
            }
        }
        assert!(may_hold_identifier("DOI: 10.1000/182") && !may_hold_identifier("prose"));
        // No character outside ASCII lowercases to a "d", an "o" or an "i" that a colon could
        // follow.
        for c in (0..=char::MAX as u32).filter_map(char::from_u32) {
            if c.is_ascii() {
                continue;
            }
            let lower: String = c.to_lowercase().collect();
            let letters: Vec<char> = lower.chars().filter(|l| "doi".contains(*l)).collect();
            assert!(
                letters.is_empty() || lower == "i\u{307}",
                "{c:?} lowercases to {lower:?}"
            );
        }
    }

    #[test]
    fn no_name_has_more_words_than_a_heading_is_read_for() {
        for list in [
            REFERENCES,
            ACKNOWLEDGEMENTS,
            ABSTRACTS,
            ABOUT_THE_AUTHORS,
            DECLARATIONS,
            APPENDICES,
            BODY_STARTS,
            ABSTRACT_PARTS,
        ] {
            for name in list {
                assert!(name_words(name).count() <= NAME_WORDS, "{name}");
            }
        }
        assert_eq!(
            heading("7. References and notes"),
            Some(Heading::References)
        );
        assert_eq!(
            heading("ПРИЛОЖЕНИЕ Б. Таблицы и рисунки к статье"),
            Some(Heading::Appendix)
        );
        assert_eq!(
            heading("Appendix A: proofs of the main theorems"),
            Some(Heading::Appendix)
        );
        assert_eq!(heading("References to earlier work are many"), None);
        assert_eq!(heading("Appendixes of the organs are many"), None);
    }

    #[test]
    fn headings_are_known_with_numbers_and_punctuation() {
        assert_eq!(heading("СПИСОК ЛИТЕРАТУРЫ"), Some(Heading::References));
        assert_eq!(heading("7. References"), Some(Heading::References));
        assert_eq!(
            heading("Библиографический список:"),
            Some(Heading::References)
        );
        assert_eq!(heading("Acknowledgments"), Some(Heading::Acknowledgements));
        assert_eq!(heading("1. Введение"), Some(Heading::BodyStart));
        assert_eq!(heading("IV. INTRODUCTION"), Some(Heading::BodyStart));
        assert_eq!(heading("Аннотация"), Some(Heading::Abstract));
        assert_eq!(heading("Methods and Findings"), Some(Heading::AbstractPart));
        assert_eq!(heading("The history of the problem"), None);
        assert!(numbered("2.1 Data"));
        assert!(numbered("IV. Results"));
        assert!(!numbered("2019"));
        assert!(!numbered("In the beginning"));
    }

    #[test]
    fn run_in_headings_and_labels() {
        assert_eq!(run_in("Abstract: We study cats."), Some(Heading::Abstract));
        assert_eq!(run_in("Аннотация. В статье …"), Some(Heading::Abstract));
        assert_eq!(run_in("Methods. We did"), None);
        assert!(labelled("Keywords: plagiarism, text reuse"));
        assert!(labelled("Ключевые слова: плагиат"));
        assert!(labelled("Ключевые слова"));
        assert!(labelled("Keywords 1 Threat modeling, risk"));
        assert!(labelled("Ключевые слова1 Система теплоснабжения"));
        assert!(!labelled("Keywords are chosen by the authors."));
        assert_eq!(
            keywords_at("Мы предлагаем метод. Ключевые слова 1 MDA, чат-бот"),
            Some(21)
        );
        assert_eq!(keywords_at("We list them. Keywords are short."), None);
        assert_eq!(keywords_at("See the list. Key words: a, b"), Some(14));
        assert!(labelled("УДК 004.8"));
        assert!(labelled("* E-mail: someone@example.org"));
        assert!(labelled("Received: May 3, 2010; Accepted: June 1, 2010"));
        assert!(labelled("© 2020 The Authors"));
        assert!(!labelled(
            "Received wisdom holds that cats are independent."
        ));
        assert!(!labelled("Funding agencies rarely ask for this."));
        assert!(!labelled("Editorial boards decide."));
        assert!(has_identifier("Иванов И.И., ivanov@spbu.ru"));
        assert!(has_identifier("https://orcid.org/0000-0002-1825-0097"));
        assert!(!has_identifier("a @ b"));
    }
}
