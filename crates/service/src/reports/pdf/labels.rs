//! The PDF report's words in English and Russian, and numbers written as each language writes
//! them — as the web page writes them (`83.3 %`, `1,549`; `83,3 %`, `1 549`).

use crate::reports::numbers;

/// The report's language: its words and its way of writing numbers.
pub(super) struct Labels {
    pub(super) lang: &'static str,
    pub(super) title: &'static str,
    pub(super) report: &'static str,
    pub(super) date: &'static str,
    pub(super) file: &'static str,
    pub(super) words: &'static str,
    pub(super) libraries: &'static str,
    pub(super) index_version: &'static str,
    /// `{n}`: libraries the check went to that held no candidate.
    pub(super) libraries_without: &'static str,
    pub(super) index: &'static str,
    /// `{index}` is the index.
    pub(super) index_help: &'static str,
    pub(super) verdict: &'static str,
    pub(super) sources: &'static str,
    pub(super) no_sources: &'static str,
    pub(super) share: &'static str,
    /// `{share}`: how much of the source the manuscript reuses.
    pub(super) reused: &'static str,
    /// `{share}`, `{from}`, `{to}`: how much of the source the manuscript translates.
    pub(super) translated: &'static str,
    pub(super) not_counted: [(&'static str, &'static str); 3],
    pub(super) kinds: &'static str,
    pub(super) kinds_help: &'static str,
    pub(super) kind_names: [(&'static str, &'static str); 6],
    pub(super) counted: &'static str,
    pub(super) left_out: &'static str,
    pub(super) left_out_title: &'static str,
    pub(super) nothing_left_out: &'static str,
    /// Why each kind is left out, by its exclusion.
    pub(super) why: [(&'static str, &'static str); 4],
    /// `{n}`: the small-match threshold.
    pub(super) why_small: &'static str,
    pub(super) sources_left_out: &'static str,
    /// `{n}`: matches hidden by the smallest similarity shown.
    pub(super) hidden: &'static str,
    pub(super) decision: &'static str,
    pub(super) note: &'static str,
    pub(super) manuscript: &'static str,
    pub(super) manuscript_help: &'static str,
    pub(super) passages: &'static str,
    pub(super) passages_help: &'static str,
    pub(super) passage: &'static str,
    pub(super) in_manuscript: &'static str,
    pub(super) in_source: &'static str,
    pub(super) source_gone: &'static str,
    pub(super) without_passages: &'static str,
    pub(super) page: &'static str,
    pub(super) of: &'static str,
    pub(super) verdicts: [(&'static str, &'static str); 3],
    pub(super) decisions: [(&'static str, &'static str); 4],
}

pub(super) const EN: Labels = Labels {
    lang: "en",
    title: "Similarity report",
    report: "Report",
    date: "Checked on",
    file: "File",
    words: "Words",
    libraries: "Libraries checked",
    index_version: "index version",
    libraries_without: "{n} more with nothing in common",
    index: "Similarity index",
    index_help: "{index} of the manuscript's words lie in passages found in the sources below (each word counted once; what is left out not counted).",
    verdict: "Verdict",
    sources: "Sources",
    no_sources: "No source shares text with the manuscript.",
    share: "Share of the manuscript",
    reused: "{share} of this source reused",
    translated: "{share} of this source translated ({from} → {to})",
    not_counted: [
        ("source_excluded", "not counted: the source is left out"),
        (
            "left_out_kinds",
            "not counted: only left-out passages (quotations, bibliography and the like)",
        ),
        (
            "too_little",
            "not counted: too little in common to show copying",
        ),
    ],
    kinds: "Passages by kind",
    kinds_help: "Shares of the manuscript's words, each word in one kind; the kinds that count add up to the similarity index.",
    kind_names: [
        ("copied", "Copied"),
        ("quoted", "Quotation"),
        ("bibliography", "Bibliography"),
        ("front_matter", "Authors, affiliations, keywords"),
        ("boilerplate", "Standard wording of the library"),
        ("small", "Small match"),
    ],
    counted: "counted",
    left_out: "left out",
    left_out_title: "What was left out, and why",
    nothing_left_out: "Nothing was left out: every passage found counts.",
    why: [
        (
            "quotes",
            "Quotations in quotation marks are left out: quoting with marks is not copying.",
        ),
        (
            "bibliography",
            "Reference lists are left out: papers on one subject cite the same works.",
        ),
        (
            "front_matter",
            "Authors, affiliations, keywords and funding lines are left out: they repeat between papers by the same people.",
        ),
        (
            "boilerplate",
            "Wording the library repeats across papers by different authors is left out (standard phrases of the journal).",
        ),
    ],
    why_small: "Matches shorter than {n} words are left out: so short a match shows no copying.",
    sources_left_out: "Sources left out on request:",
    hidden: "{n} more sources below the smallest similarity shown are not listed; they still count.",
    decision: "Decision",
    note: "Note",
    manuscript: "The manuscript, with the passages found in each source",
    manuscript_help: "Each passage is highlighted in its source's colour and begins with the source's number. Passages in grey are left out of the figures.",
    passages: "The passages found in each source",
    passages_help: "Each passage as the manuscript has it and as the source has it.",
    passage: "Passage",
    in_manuscript: "Manuscript",
    in_source: "Source",
    source_gone: "(the source's text is no longer in the library)",
    without_passages: "This check was made without passages: only the figures are known.",
    page: "page",
    of: "of",
    // The page's words (`verdict.*` and `decision.*` in the web UI's dictionaries).
    verdicts: [
        ("original", "Original"),
        ("partial", "Partial copy"),
        ("duplicate", "Duplicate"),
    ],
    decisions: [
        ("not_checked", "Not checked yet"),
        ("candidate", "Needs a closer look"),
        ("unique", "Original"),
        ("duplicate", "Duplicate"),
    ],
};

pub(super) const RU: Labels = Labels {
    lang: "ru",
    title: "Отчёт о проверке на заимствования",
    report: "Отчёт",
    date: "Дата проверки",
    file: "Файл",
    words: "Слов",
    libraries: "Проверено по библиотекам",
    index_version: "версия индекса",
    libraries_without: "ещё {n} без совпадений",
    index: "Индекс сходства",
    index_help: "{index} слов рукописи лежат во фрагментах, найденных в источниках ниже (каждое слово учтено один раз; исключённое не учитывается).",
    verdict: "Заключение",
    sources: "Источники",
    no_sources: "Ни один источник не содержит текста рукописи.",
    share: "Доля рукописи",
    reused: "использовано {share} источника",
    translated: "переведено {share} источника ({from} → {to})",
    not_counted: [
        ("source_excluded", "не учитывается: источник исключён"),
        (
            "left_out_kinds",
            "не учитывается: только исключённые фрагменты (цитаты, список литературы и т. п.)",
        ),
        (
            "too_little",
            "не учитывается: слишком мало общего текста, чтобы говорить о заимствовании",
        ),
    ],
    kinds: "Фрагменты по видам",
    kinds_help: "Доли слов рукописи, каждое слово — в одном виде; учитываемые виды в сумме дают индекс сходства.",
    kind_names: [
        ("copied", "Заимствование"),
        ("quoted", "Цитата"),
        ("bibliography", "Список литературы"),
        ("front_matter", "Авторы, организации, ключевые слова"),
        ("boilerplate", "Типовые формулировки библиотеки"),
        ("small", "Короткое совпадение"),
    ],
    counted: "учитывается",
    left_out: "исключено",
    left_out_title: "Что исключено и почему",
    nothing_left_out: "Ничего не исключено: учитываются все найденные фрагменты.",
    why: [
        (
            "quotes",
            "Цитаты в кавычках исключены: цитирование с кавычками — не заимствование.",
        ),
        (
            "bibliography",
            "Списки литературы исключены: статьи на одну тему ссылаются на одни и те же работы.",
        ),
        (
            "front_matter",
            "Авторы, организации, ключевые слова и сведения о финансировании исключены: они повторяются в статьях одних и тех же людей.",
        ),
        (
            "boilerplate",
            "Формулировки, которые библиотека повторяет в статьях разных авторов, исключены (типовые фразы журнала).",
        ),
    ],
    why_small: "Совпадения короче {n} слов исключены: такое короткое совпадение не говорит о заимствовании.",
    sources_left_out: "Источники, исключённые по запросу:",
    hidden: "Ещё источников ниже наименьшего показанного сходства: {n}; они не перечислены, но учитываются.",
    decision: "Решение",
    note: "Примечание",
    manuscript: "Рукопись с фрагментами, найденными в каждом источнике",
    manuscript_help: "Каждый фрагмент выделен цветом своего источника и начинается с его номера. Серым выделены фрагменты, не учтённые в показателях.",
    passages: "Фрагменты, найденные в каждом источнике",
    passages_help: "Каждый фрагмент — так, как он стоит в рукописи и в источнике.",
    passage: "Фрагмент",
    in_manuscript: "Рукопись",
    in_source: "Источник",
    source_gone: "(текста источника больше нет в библиотеке)",
    without_passages: "Проверка сделана без поиска фрагментов: известны только показатели.",
    page: "стр.",
    of: "из",
    verdicts: [
        ("original", "Оригинальный текст"),
        ("partial", "Частичное заимствование"),
        ("duplicate", "Дубликат"),
    ],
    decisions: [
        ("not_checked", "Ещё не рассмотрен"),
        ("candidate", "Требует проверки"),
        ("unique", "Оригинальный"),
        ("duplicate", "Дубликат"),
    ],
};

impl Labels {
    pub(super) fn for_lang(lang: &str) -> &'static Labels {
        if lang.eq_ignore_ascii_case("ru") {
            &RU
        } else {
            &EN
        }
    }

    pub(super) fn verdict(&self, verdict: &str) -> &'static str {
        lookup(&self.verdicts, verdict)
    }

    pub(super) fn decision(&self, decision: &str) -> &'static str {
        lookup(&self.decisions, decision)
    }

    pub(super) fn kind(&self, kind: &str) -> &'static str {
        lookup(&self.kind_names, kind)
    }

    pub(super) fn not_counted(&self, why: &str) -> &'static str {
        match lookup(&self.not_counted, why) {
            "" => lookup(&self.not_counted, "left_out_kinds"),
            label => label,
        }
    }

    /// `x` (0..1) as a percentage with `digits` decimals, as the page writes it.
    pub(super) fn percent(&self, x: f64, digits: usize) -> String {
        numbers::percent(x, digits, self.lang)
    }

    /// `n` words, the noun agreeing with the number: `1 word`, `21 слово`, `3 слова`,
    /// `26 слов`.
    pub(super) fn words_n(&self, n: u64) -> String {
        let noun = if self.lang == "ru" {
            match (n % 10, n % 100) {
                (1, rest) if rest != 11 => "слово",
                (2..=4, rest) if !(12..=14).contains(&rest) => "слова",
                _ => "слов",
            }
        } else if n == 1 {
            "word"
        } else {
            "words"
        };
        format!("{} {noun}", self.count(n))
    }

    /// A count with its thousands marked, as the page writes it.
    pub(super) fn count(&self, n: u64) -> String {
        numbers::count(n, self.lang)
    }
}

fn lookup(table: &[(&'static str, &'static str)], key: &str) -> &'static str {
    table
        .iter()
        .find(|(k, _)| *k == key)
        .map_or("", |(_, label)| label)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_of_words_agrees_with_its_number() {
        let ru = |n| RU.words_n(n);
        assert_eq!(
            [ru(1), ru(21), ru(3), ru(11), ru(14), ru(26), ru(1_549)],
            [
                "1 слово",
                "21 слово",
                "3 слова",
                "11 слов",
                "14 слов",
                "26 слов",
                "1\u{a0}549 слов"
            ]
        );
        assert_eq!([EN.words_n(1), EN.words_n(40)], ["1 word", "40 words"]);
    }
}
