//! The PDF report's three parts: the cover page, the manuscript with its passages, and each
//! source's passages side by side with the manuscript's. Every figure is read from the stored
//! answer, never computed again.

use serde_json::Value;

use super::labels::Labels;
use super::layout::{BLACK, BODY_SIZE, GREY, LINE, MARGIN, Pages, Style, Word, breaks};
use super::marks::{counts, marked_words};
use crate::reports::Report;
use dupfinder_check::Exclusions;

/// The kinds of passage, in the order the page lists them.
const KINDS: [&str; 6] = [
    "copied",
    "quoted",
    "bibliography",
    "front_matter",
    "boilerplate",
    "small",
];

/// The most characters of a passage's side quoted in the passages part.
const EXCERPT_CHARS: usize = 1_200;

/// A report being written in one language.
pub(super) struct Written<'a> {
    report: &'a Report,
    labels: &'static Labels,
    matches: Vec<Value>,
    exclusions: Option<Exclusions>,
}

/// `2026-11-25 14:03 UTC`.
pub(super) fn date(seconds: u64) -> String {
    match time::OffsetDateTime::from_unix_timestamp(seconds as i64) {
        Ok(t) => format!(
            "{:04}-{:02}-{:02} {:02}:{:02} UTC",
            t.year(),
            t.month() as u8,
            t.day(),
            t.hour(),
            t.minute()
        ),
        Err(_) => seconds.to_string(),
    }
}

/// A source's name: its title, else its id.
fn source_name(m: &Value) -> String {
    m["title"]
        .as_str()
        .filter(|t| !t.trim().is_empty())
        .or_else(|| m["doc_id"].as_str())
        .unwrap_or("?")
        .to_string()
}

/// `text` cut to `max` characters at a word, with an ellipsis when cut.
fn excerpt(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max).collect();
    let cut = cut
        .rsplit_once(char::is_whitespace)
        .map_or(cut.as_str(), |(head, _)| head);
    format!("{cut} …")
}

/// The characters `start..end` (code points) of `text`.
fn slice(text: &str, start: usize, end: usize) -> String {
    text.chars()
        .skip(start)
        .take(end.saturating_sub(start))
        .collect()
}

impl<'a> Written<'a> {
    pub(super) fn new(report: &'a Report, labels: &'static Labels) -> Written<'a> {
        Written {
            report,
            labels,
            matches: report.answer["matches"]
                .as_array()
                .cloned()
                .unwrap_or_default(),
            exclusions: serde_json::from_value(report.answer["exclusions"].clone()).ok(),
        }
    }

    fn answer(&self) -> &Value {
        &self.report.answer
    }

    fn figure(&self, value: &Value) -> f64 {
        value.as_f64().unwrap_or(0.0)
    }

    /// What the check found in a source, in the page's words.
    fn finding(&self, m: &Value) -> String {
        let l = self.labels;
        if m["counted"] == false {
            return l
                .not_counted(m["not_counted"].as_str().unwrap_or_default())
                .to_string();
        }
        let share = l.percent(self.figure(&m["containment_doc"]), 0);
        match (
            &m["cross_language"]["doc_lang"],
            &m["cross_language"]["query_lang"],
        ) {
            (Value::String(from), Value::String(to)) => l
                .translated
                .replace("{share}", &share)
                .replace("{from}", from)
                .replace("{to}", to),
            _ => l.reused.replace("{share}", &share),
        }
    }

    fn heading(&self, pages: &mut Pages<'_>, text: &str) {
        pages.room(LINE * 3.0);
        pages.gap(8.0);
        pages.paragraph(text, Style::bold(12.0));
        pages.gap(2.0);
    }

    /// The cover page: facts, the index and the verdict, the sources, the kinds, what was left
    /// out and why, the decision.
    pub(super) fn cover(&self, pages: &mut Pages<'_>) {
        let (l, report, answer) = (self.labels, self.report, self.answer());
        pages.paragraph(l.title, Style::bold(18.0));
        pages.gap(4.0);
        let mut libraries: Vec<String> = answer["generations"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(id, generation)| {
                format!(
                    "{id} ({} {})",
                    l.index_version,
                    generation.as_u64().unwrap_or(0)
                )
            })
            .collect();
        let checked = answer["libraries_checked"].as_u64().unwrap_or(0) as usize;
        if checked > libraries.len() {
            let others = l.count((checked - libraries.len()) as u64);
            libraries.push(l.libraries_without.replace("{n}", &others));
        }
        let mut facts = vec![
            (l.report, report.report_id.clone()),
            (l.date, date(report.created)),
        ];
        if let Some(file) = &report.file {
            facts.push((l.file, file.clone()));
        }
        facts.push((l.words, l.count(report.words() as u64)));
        facts.push((l.libraries, libraries.join(", ")));
        for (label, value) in facts {
            pages.paragraph(&format!("{label}: {value}"), Style::regular(BODY_SIZE));
        }

        let index = self.figure(&answer["similarity_index"]);
        self.heading(pages, l.index);
        pages.paragraph(&l.percent(index, 1), Style::bold(30.0));
        let verdict = answer["verdict"].as_str().unwrap_or("original");
        pages.paragraph(
            &format!("{}: {}", l.verdict, l.verdict(verdict)),
            Style::bold(BODY_SIZE + 1.0),
        );
        pages.paragraph(
            &l.index_help.replace("{index}", &l.percent(index, 1)),
            Style::regular(9.0).colour(GREY),
        );

        self.sources(pages);
        self.kinds(pages);
        self.left_out(pages);

        self.heading(pages, l.decision);
        pages.paragraph(l.decision(report.decision.as_str()), Style::bold(BODY_SIZE));
        if let Some(note) = &report.note {
            pages.paragraph(&format!("{}: {note}", l.note), Style::regular(BODY_SIZE));
        }
    }

    /// A source's number in its colour, its name, where it is (with its address when
    /// `with_url`), its share of the manuscript and what was found in it.
    fn source_heading(&self, pages: &mut Pages<'_>, number: usize, m: &Value, with_url: bool) {
        let l = self.labels;
        pages.swatch(MARGIN, pages.y + 1.0, number);
        pages.left = MARGIN + 26.0;
        let name: String = source_name(m).chars().take(200).collect();
        pages.paragraph(&name, Style::bold(BODY_SIZE));
        let mut place = format!(
            "{} · {}",
            m["library"].as_str().unwrap_or("?"),
            m["doc_id"].as_str().unwrap_or("?")
        );
        if let Some(url) = m["url"].as_str().filter(|_| with_url) {
            place.push_str(&format!(" · {url}"));
        }
        pages.paragraph(&place, Style::regular(8.5).colour(GREY));
        pages.paragraph(
            &format!(
                "{} {} · {}",
                l.share,
                l.percent(self.figure(&m["share"]), 1),
                self.finding(m)
            ),
            Style::regular(BODY_SIZE),
        );
        pages.left = MARGIN;
    }

    fn sources(&self, pages: &mut Pages<'_>) {
        let l = self.labels;
        self.heading(pages, l.sources);
        if self.matches.is_empty() {
            pages.paragraph(l.no_sources, Style::regular(BODY_SIZE));
        }
        for (n, m) in self.matches.iter().enumerate() {
            pages.room(LINE * 3.0);
            self.source_heading(pages, n + 1, m, false);
            pages.gap(4.0);
        }
        let hidden = self.answer()["hidden_matches"].as_u64().unwrap_or(0);
        if hidden > 0 {
            pages.paragraph(
                &l.hidden.replace("{n}", &l.count(hidden)),
                Style::regular(9.0).colour(GREY),
            );
        }
    }

    fn kind_counts(&self, kind: &str) -> bool {
        let kind = serde_json::from_value(Value::String(kind.to_string())).ok();
        self.exclusions
            .as_ref()
            .zip(kind)
            .is_none_or(|(exclusions, kind)| exclusions.counts(kind))
    }

    fn kinds(&self, pages: &mut Pages<'_>) {
        let l = self.labels;
        self.heading(pages, l.kinds);
        pages.paragraph(l.kinds_help, Style::regular(9.0).colour(GREY));
        pages.gap(2.0);
        let shares = &self.answer()["shares"];
        for kind in KINDS {
            pages.room(LINE);
            let y = pages.y + BODY_SIZE;
            pages.text_at(MARGIN, y, l.kind(kind), Style::regular(BODY_SIZE));
            let share = l.percent(self.figure(&shares[kind]), 1);
            let right = MARGIN + 330.0;
            let w = pages.fonts.width(&share, BODY_SIZE, false);
            pages.text_at(right - w, y, &share, Style::regular(BODY_SIZE));
            let (status, colour) = if self.kind_counts(kind) {
                (l.counted, BLACK)
            } else {
                (l.left_out, GREY)
            };
            pages.text_at(
                right + 16.0,
                y,
                status,
                Style::regular(BODY_SIZE).colour(colour),
            );
            pages.y += LINE;
        }
    }

    /// What was left out of the figures and why, in plain words.
    fn left_out(&self, pages: &mut Pages<'_>) {
        let l = self.labels;
        self.heading(pages, l.left_out_title);
        let Some(exclusions) = &self.exclusions else {
            pages.paragraph(l.nothing_left_out, Style::regular(BODY_SIZE));
            return;
        };
        let shares = &self.answer()["shares"];
        let mut lines = Vec::new();
        for (flag, on, kind) in [
            ("quotes", exclusions.quotes, "quoted"),
            ("bibliography", exclusions.bibliography, "bibliography"),
            ("front_matter", exclusions.front_matter, "front_matter"),
            ("boilerplate", exclusions.boilerplate, "boilerplate"),
        ] {
            if on {
                let why = l.why.iter().find(|(k, _)| *k == flag).map_or("", |w| w.1);
                lines.push(format!(
                    "{why} ({}: {})",
                    l.kind(kind),
                    l.percent(self.figure(&shares[kind]), 1)
                ));
            }
        }
        if exclusions.small_matches > 0 {
            lines.push(format!(
                "{} ({}: {})",
                l.why_small
                    .replace("{n}", &l.count(exclusions.small_matches as u64)),
                l.kind("small"),
                l.percent(self.figure(&shares["small"]), 1)
            ));
        }
        if !exclusions.sources.is_empty() {
            lines.push(format!(
                "{} {}",
                l.sources_left_out,
                exclusions.sources.join(", ")
            ));
        }
        for (n, m) in self.matches.iter().enumerate() {
            if m["counted"] == false {
                lines.push(format!(
                    "{}. {} — {}",
                    n + 1,
                    source_name(m),
                    self.finding(m)
                ));
            }
        }
        if lines.is_empty() {
            pages.paragraph(l.nothing_left_out, Style::regular(BODY_SIZE));
        }
        for line in lines {
            pages.paragraph(&format!("• {line}"), Style::regular(BODY_SIZE));
        }
    }

    /// The manuscript, paragraph by paragraph, each passage in its source's colour and
    /// numbered.
    pub(super) fn manuscript(&self, pages: &mut Pages<'_>) {
        let (l, text) = (self.labels, &self.report.text);
        pages.new_page();
        pages.paragraph(l.manuscript, Style::bold(12.0));
        pages.paragraph(l.manuscript_help, Style::regular(9.0).colour(GREY));
        if !self.matches.is_empty() && self.matches.iter().any(|m| m["passages"].is_null()) {
            pages.paragraph(l.without_passages, Style::regular(9.0).colour(GREY));
        }
        pages.gap(6.0);
        let mut offset = 0;
        for paragraph in text.split("\n\n") {
            let length = paragraph.chars().count();
            if !paragraph.trim().is_empty() {
                let words =
                    marked_words(paragraph, offset, &self.matches, self.exclusions.as_ref());
                pages.words(&words, Style::regular(BODY_SIZE), LINE);
                pages.gap(6.0);
            }
            offset += length + 2;
        }
    }

    /// Each source's passages: the manuscript's side and the source's.
    pub(super) fn passages(
        &self,
        pages: &mut Pages<'_>,
        source_text: &dyn Fn(&str, &str) -> Option<String>,
    ) {
        let l = self.labels;
        if !self.matches.iter().any(|m| {
            m["passages"]
                .as_array()
                .is_some_and(|passages| !passages.is_empty())
        }) {
            return;
        }
        pages.new_page();
        pages.paragraph(l.passages, Style::bold(12.0));
        pages.paragraph(l.passages_help, Style::regular(9.0).colour(GREY));
        for (n, m) in self.matches.iter().enumerate() {
            let Some(passages) = m["passages"].as_array().filter(|p| !p.is_empty()) else {
                continue;
            };
            let number = n + 1;
            pages.room(LINE * 5.0);
            pages.gap(10.0);
            self.source_heading(pages, number, m, true);
            let source = source_text(
                m["library"].as_str().unwrap_or_default(),
                m["doc_id"].as_str().unwrap_or_default(),
            );
            for (j, passage) in passages.iter().enumerate() {
                self.passage(pages, m, number, j + 1, passage, source.as_deref());
            }
        }
    }

    fn passage(
        &self,
        pages: &mut Pages<'_>,
        m: &Value,
        number: usize,
        nth: usize,
        passage: &Value,
        source: Option<&str>,
    ) {
        let l = self.labels;
        let live = counts(m, passage, self.exclusions.as_ref());
        let kind = passage["kind"].as_str().unwrap_or("copied");
        let words = passage["words"].as_u64().unwrap_or(0);
        let status = if live { l.counted } else { l.left_out };
        pages.room(LINE * 4.0);
        pages.gap(6.0);
        pages.paragraph(
            &format!(
                "{} {number}.{nth} · {} · {} · {status}",
                l.passage,
                l.kind(kind),
                l.words_n(words),
            ),
            Style::bold(9.0),
        );
        let side = |name: &str| passage[name].clone();
        let (query, doc) = (side("query"), side("doc"));
        let at = |span: &Value, end: &str| span[end].as_u64().unwrap_or(0) as usize;
        let manuscript = slice(&self.report.text, at(&query, "start"), at(&query, "end"));
        let theirs = source.map(|text| slice(text, at(&doc, "start"), at(&doc, "end")));
        for (label, text) in [(l.in_manuscript, Some(manuscript)), (l.in_source, theirs)] {
            pages.left = MARGIN + 12.0;
            pages.paragraph(label, Style::regular(8.5).colour(GREY));
            match text {
                Some(text) => {
                    let words: Vec<Word> = excerpt(&text, EXCERPT_CHARS)
                        .split(breaks)
                        .filter(|w| !w.is_empty())
                        .map(|w| Word {
                            text: w.to_string(),
                            source: Some(number),
                            mark: None,
                            left_out: !live,
                        })
                        .collect();
                    pages.words(&words, Style::regular(9.0), 13.0);
                }
                None => pages.paragraph(l.source_gone, Style::regular(9.0).colour(GREY)),
            }
            pages.left = MARGIN;
        }
    }
}
