//! A second reading of PDFs the built-in reader cannot interpret: a parser that panics on a
//! font's damaged character map, pages whose content it cannot follow, fonts it cannot map to
//! text. Poppler's `pdftotext` reads most of them; when it is installed (Debian's
//! poppler-utils; `[extract] pdftotext`, empty to switch it off), such a PDF is read with it
//! instead of being refused. Without it the built-in reader's answer stands.
//!
//! The program runs as a child process under the same bounds as every reader: at most
//! `max_pages` pages, its output at most `max_decompressed_bytes`, killed when the
//! extraction's time is up or it is cancelled. Its text has paragraphs (blank lines) and pages (form feeds)
//! but none of the built-in reader's layout repairs (running headers and footers stay).

use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::budget::Budget;
use super::document::{DocumentBuilder, ExtractedDocument, count_words};
use super::{BlockKind, Format};

/// Reads a PDF with `pdftotext`: `None` when the program is not configured or not installed,
/// fails, runs out of time (or is cancelled) or finds too few words to be a text layer.
pub(super) fn read(
    bytes: &[u8],
    budget: &Budget,
    min_words_per_page: usize,
) -> Option<ExtractedDocument> {
    if budget.limits().pdftotext.is_empty() {
        return None;
    }
    let text = run(bytes, budget)?;
    let pages: Vec<&str> = text.split('\u{c}').collect();
    let pages: &[&str] = match pages.split_last() {
        Some((last, rest)) if last.trim().is_empty() => rest,
        _ => &pages,
    };
    if pages.is_empty()
        || count_words(&text) < min_words_per_page * pages.len()
        || !reads_as_words(&text)
    {
        return None;
    }
    let mut builder = DocumentBuilder::new(Format::Pdf);
    builder.pages(u32::try_from(pages.len()).unwrap_or(u32::MAX));
    for (number, page) in (1u32..).zip(pages) {
        for paragraph in page.split("\n\n") {
            builder.push(BlockKind::Paragraph, paragraph, Some(number));
        }
    }
    Some(builder.finish())
}

/// The least share of a text's tokens that must read as words (see [`reads_as_words`]).
/// Papers score 0.37 to 0.95 (formulas and tables pull some down); a PDF whose fonts map
/// glyphs to arbitrary characters scores below 0.01.
const MIN_WORD_SHARE: f64 = 0.2;

/// Whether a text reads as words rather than the arbitrary characters of fonts without a
/// usable encoding (`WYRHUgf h\ijRH[2h`): enough tokens, punctuation around them left out,
/// are letters only, two or more, with a vowel where the script has them. Such a text is
/// no text layer, whichever program read it.
fn reads_as_words(text: &str) -> bool {
    const VOWELS: &str = "aeiouyàáâäèéêëìíîïòóôöùúûüœæаеёиоуыэюяєії";
    let mut tokens = 0usize;
    let mut words = 0usize;
    for token in text.split_whitespace() {
        tokens += 1;
        let word = token.trim_matches(|c: char| !c.is_alphanumeric());
        let letters = word.chars().count();
        if letters < 2 || !word.chars().all(char::is_alphabetic) {
            continue;
        }
        let has_vowels_to_check = word
            .chars()
            .all(|c| c.is_ascii_alphabetic() || ('\u{400}'..='\u{4ff}').contains(&c));
        let lower = word.to_lowercase();
        if !has_vowels_to_check || lower.chars().any(|c| VOWELS.contains(c)) {
            words += 1;
        }
    }
    tokens > 0 && words as f64 >= MIN_WORD_SHARE * tokens as f64
}

/// Runs the program on the bytes; its standard output, or `None`.
fn run(bytes: &[u8], budget: &Budget) -> Option<String> {
    let limits = budget.limits();
    let mut child = Command::new(&limits.pdftotext)
        .args([
            "-q",
            "-enc",
            "UTF-8",
            "-l",
            &limits.max_pages.to_string(),
            "-",
            "-",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let input = bytes.to_vec();
    // Written from a thread of its own: the program may fill its output pipe before it has
    // read all of its input.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let mut stdout = child.stdout.take()?;
    let cap = limits.max_decompressed_bytes;
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let read = (&mut stdout).take(cap + 1).read_to_end(&mut out);
        read.ok().filter(|_| out.len() as u64 <= cap).map(|_| out)
    });
    let finished = wait(&mut child, budget);
    if !finished {
        let _ = child.kill();
        let _ = child.wait();
    }
    let _ = writer.join();
    let out = reader.join().ok().flatten();
    if !finished {
        return None;
    }
    String::from_utf8(out?).ok()
}

/// Waits for the child while the extraction may go on: whether it exited successfully in time.
fn wait(child: &mut Child, budget: &Budget) -> bool {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return status.success(),
            Ok(None) if budget.go_on().is_ok() => std::thread::sleep(Duration::from_millis(5)),
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;
    use crate::extract::ExtractLimits;

    const DAMAGED_FONT_MAP: &[u8] = include_bytes!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/files/damaged_font_map.pdf"
    ));

    /// A stand-in for pdftotext: a shell script in `dir`.
    fn program(dir: &tempfile::TempDir, script: &str) -> String {
        let path = dir.path().join("pdftotext");
        std::fs::write(&path, format!("#!/bin/sh\n{script}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path.display().to_string()
    }

    fn budget(limits: ExtractLimits) -> Budget {
        Budget::new(&limits, dupfinder_common::cancel::CancelFlag::new())
    }

    fn limits(pdftotext: String) -> ExtractLimits {
        ExtractLimits {
            pdftotext,
            timeout_seconds: 1,
            ..ExtractLimits::default()
        }
    }

    #[test]
    fn pages_and_paragraphs_come_from_form_feeds_and_blank_lines() {
        let dir = tempfile::tempdir().unwrap();
        let fake = program(
            &dir,
            r"cat > /dev/null; printf 'First page words one two three.\n\nSecond para-\ngraph here.\fPage two words four five six.\n\f'",
        );
        let document = read(b"%PDF-", &budget(limits(fake)), 3).unwrap();
        assert_eq!(document.pages, Some(2));
        assert_eq!(
            document.text,
            "First page words one two three.\n\nSecond paragraph here.\n\nPage two words four five six."
        );
        assert_eq!(document.blocks[2].page, Some(2));
    }

    #[test]
    fn characters_of_fonts_without_an_encoding_are_no_text() {
        assert!(reads_as_words(
            "Статья о методах, и (2019) the results [3]."
        ));
        assert!(!reads_as_words(
            "\"! #%$& ')( * \" + , * \"$ WYRHUgf h\\ijRH[2h\\R k&[ TVn Q RH[]WY^c[zy ¥+¦ §©¨j¤"
        ));
        let dir = tempfile::tempdir().unwrap();
        let garbage = program(
            &dir,
            r"cat > /dev/null; printf 'Rxw TVn Q RH[]WY^c[zy V V V c UYTV Tc hHn e2[]W'",
        );
        assert!(read(b"%PDF-", &budget(limits(garbage)), 3).is_none());
    }

    #[test]
    fn nothing_is_taken_from_a_program_that_fails_hangs_or_floods() {
        let dir = tempfile::tempdir().unwrap();
        for script in [
            "cat > /dev/null; echo 'words enough for a page of text'; exit 1",
            "exec sleep 30",
            "cat > /dev/null; exec yes 'many words on every line'",
        ] {
            let mut bounded = limits(program(&dir, script));
            bounded.max_decompressed_bytes = 4096;
            assert!(read(b"%PDF-", &budget(bounded), 3).is_none(), "{script}");
        }
        assert!(read(b"%PDF-", &budget(limits(String::new())), 3).is_none());
        assert!(
            read(
                b"%PDF-",
                &budget(limits("/nonexistent/pdftotext".into())),
                3
            )
            .is_none()
        );
    }

    #[test]
    fn a_damaged_font_map_that_stops_the_built_in_reader_is_read_by_pdftotext() {
        let off = limits(String::new());
        let refused = super::super::extract(DAMAGED_FONT_MAP, &off).unwrap_err();
        assert_eq!(refused.code(), "unreadable_document");
        let installed = Command::new("pdftotext").arg("-v").output().is_ok();
        let read = super::super::extract(DAMAGED_FONT_MAP, &limits("pdftotext".into()));
        if installed {
            let document = read.unwrap();
            assert!(
                document.text.contains("loop fusion and cost models"),
                "{}",
                document.text
            );
        } else {
            assert_eq!(read.unwrap_err(), refused);
        }
    }
}
