//! RTF, read by a small tokenizer: control words, groups and text. Destinations that hold no
//! body text (font and colour tables, styles, pictures, `\*` groups, headers and footers) are
//! skipped; `\par` ends a paragraph; `\'hh` bytes are decoded in the document's code page
//! (`\ansicpg1251` for Russian), `\uN` gives a Unicode character and skips `\ucN` fallback
//! characters.

use encoding_rs::{Encoding, WINDOWS_1252};

use super::document::{DocumentBuilder, ExtractedDocument};
use super::{BlockKind, ExtractError, Format};

/// Destinations whose text is not the document's body.
const SKIPPED_DESTINATIONS: &[&str] = &[
    "fonttbl",
    "colortbl",
    "stylesheet",
    "info",
    "pict",
    "header",
    "footer",
    "headerl",
    "headerr",
    "headerf",
    "footerl",
    "footerr",
    "footerf",
    "object",
    "listtable",
    "listoverridetable",
    "rsidtbl",
    "generator",
    "xmlnstbl",
    "themedata",
    "colorschememapping",
    "latentstyles",
    "datastore",
    "revtbl",
    "filetbl",
    "pgdsctbl",
    "footnote",
];

/// Groups nest no deeper than this; deeper nesting is a hostile file.
const MAX_DEPTH: usize = 1_000;

#[derive(Clone)]
struct GroupState {
    skip: bool,
    /// Characters to skip after a `\uN` (the `\ucN` value).
    unicode_skip: usize,
    bold: bool,
}

/// Reads an RTF file. Its size bounds the work: the reader is one linear pass.
pub(super) fn read(bytes: &[u8]) -> Result<ExtractedDocument, ExtractError> {
    let mut encoding: &'static Encoding = WINDOWS_1252;
    let mut stack: Vec<GroupState> = Vec::new();
    let mut state = GroupState {
        skip: false,
        unicode_skip: 1,
        bold: false,
    };
    let mut paragraphs: Vec<(String, bool)> = Vec::new();
    let mut current = String::new();
    // Whether every character of the current paragraph was bold: a bold paragraph is a heading.
    let mut all_bold = true;
    let mut pending_bytes: Vec<u8> = Vec::new();
    let mut skip_chars = 0usize;
    let mut i = 0;

    let flush_bytes = |pending: &mut Vec<u8>, current: &mut String, encoding: &'static Encoding| {
        if !pending.is_empty() {
            current.push_str(&encoding.decode_without_bom_handling(pending).0);
            pending.clear();
        }
    };

    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'{' => {
                flush_bytes(&mut pending_bytes, &mut current, encoding);
                if stack.len() >= MAX_DEPTH {
                    return Err(ExtractError::unreadable(
                        Format::Rtf,
                        format!("groups nest deeper than {MAX_DEPTH} levels"),
                    ));
                }
                stack.push(state.clone());
                i += 1;
                // `{\*\dest …}`: an optional destination a reader may ignore.
                if bytes[i..].starts_with(b"\\*") {
                    state.skip = true;
                }
            }
            b'}' => {
                flush_bytes(&mut pending_bytes, &mut current, encoding);
                state = stack.pop().unwrap_or(GroupState {
                    skip: false,
                    unicode_skip: 1,
                    bold: false,
                });
                i += 1;
            }
            b'\\' => {
                i += 1;
                let Some(&next) = bytes.get(i) else { break };
                if next.is_ascii_alphabetic() {
                    let start = i;
                    while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
                        i += 1;
                    }
                    let word = std::str::from_utf8(&bytes[start..i]).unwrap_or_default();
                    let num_start = i;
                    if i < bytes.len() && (bytes[i] == b'-' || bytes[i].is_ascii_digit()) {
                        i += 1;
                        while i < bytes.len() && bytes[i].is_ascii_digit() && i - num_start < 12 {
                            i += 1;
                        }
                    }
                    let param: Option<i64> = std::str::from_utf8(&bytes[num_start..i])
                        .ok()
                        .and_then(|s| s.parse().ok());
                    if i < bytes.len() && bytes[i] == b' ' {
                        i += 1;
                    }
                    if word != "u" {
                        flush_bytes(&mut pending_bytes, &mut current, encoding);
                    }
                    if skip_chars > 0 && word != "u" {
                        // A control word stands in for one fallback character.
                        skip_chars -= 1;
                        continue;
                    }
                    match word {
                        _ if SKIPPED_DESTINATIONS.contains(&word) => state.skip = true,
                        "ansicpg" => {
                            if let Some(page) = param.and_then(|p| u16::try_from(p).ok())
                                && let Some(found) = codepage::to_encoding(page)
                            {
                                encoding = found;
                            }
                        }
                        "uc" => state.unicode_skip = param.unwrap_or(1).clamp(0, 8) as usize,
                        "u" => {
                            flush_bytes(&mut pending_bytes, &mut current, encoding);
                            if !state.skip {
                                let code = param.unwrap_or(0);
                                let code = if code < 0 { code + 65_536 } else { code };
                                if let Some(c) = u32::try_from(code).ok().and_then(char::from_u32) {
                                    current.push(c);
                                    all_bold &= state.bold;
                                }
                            }
                            skip_chars = state.unicode_skip;
                        }
                        "b" => state.bold = param != Some(0),
                        "plain" => state.bold = false,
                        "par" | "sect" | "page" if !state.skip => {
                            paragraphs.push((std::mem::take(&mut current), all_bold));
                            all_bold = true;
                        }
                        "line" | "tab" | "cell" if !state.skip => current.push(' '),
                        "emdash" if !state.skip => current.push('—'),
                        "endash" if !state.skip => current.push('–'),
                        "lquote" if !state.skip => current.push('‘'),
                        "rquote" if !state.skip => current.push('’'),
                        "ldblquote" if !state.skip => current.push('“'),
                        "rdblquote" if !state.skip => current.push('”'),
                        "bullet" if !state.skip => current.push('•'),
                        "bin" => {
                            // Binary data of `param` bytes follows.
                            i = i.saturating_add(param.unwrap_or(0).max(0) as usize);
                        }
                        _ => {}
                    }
                } else {
                    i += 1;
                    match next {
                        b'\'' => {
                            let hex = bytes
                                .get(i..i + 2)
                                .and_then(|h| std::str::from_utf8(h).ok());
                            if let Some(byte) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                                i += 2;
                                if skip_chars > 0 {
                                    skip_chars -= 1;
                                } else if !state.skip {
                                    pending_bytes.push(byte);
                                    all_bold &= state.bold;
                                }
                            }
                        }
                        b'\\' | b'{' | b'}' if !state.skip => {
                            flush_bytes(&mut pending_bytes, &mut current, encoding);
                            current.push(next as char);
                        }
                        b'~' if !state.skip => current.push('\u{a0}'),
                        b'-' => {}
                        b'_' if !state.skip => current.push('-'),
                        b'\n' | b'\r' if !state.skip => {
                            paragraphs.push((std::mem::take(&mut current), all_bold));
                            all_bold = true;
                        }
                        _ => {}
                    }
                }
            }
            b'\r' | b'\n' => i += 1,
            _ => {
                flush_bytes(&mut pending_bytes, &mut current, encoding);
                i += 1;
                if skip_chars > 0 {
                    skip_chars -= 1;
                } else if !state.skip {
                    current.push(b as char);
                    if !b.is_ascii_whitespace() {
                        all_bold &= state.bold;
                    }
                }
            }
        }
    }
    flush_bytes(&mut pending_bytes, &mut current, encoding);
    paragraphs.push((current, all_bold));

    let mut builder = DocumentBuilder::new(Format::Rtf);
    for (text, bold) in &paragraphs {
        let kind = if *bold && text.split_whitespace().count() <= 20 {
            BlockKind::Heading
        } else {
            BlockKind::Paragraph
        };
        builder.push(kind, text, None);
    }
    Ok(builder.finish())
}

/// Windows code pages named by `\ansicpg`.
mod codepage {
    use encoding_rs::Encoding;

    pub(super) fn to_encoding(page: u16) -> Option<&'static Encoding> {
        let label = match page {
            1250..=1258 => format!("windows-{page}"),
            866 => "ibm866".to_string(),
            874 => "windows-874".to_string(),
            20866 => "koi8-r".to_string(),
            21866 => "koi8-u".to_string(),
            65001 => "utf-8".to_string(),
            _ => return None,
        };
        Encoding::for_label(label.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(rtf: &str) -> String {
        read(rtf.as_bytes()).unwrap().text
    }

    #[test]
    fn tables_are_skipped_and_paragraphs_kept() {
        let rtf = r"{\rtf1\ansi\deff0{\fonttbl{\f0 Times New Roman;}}{\colortbl;\red0\green0\blue0;}
{\*\generator Writer}{\info{\title T}}\pard\plain {\b Heading one}\par
First para\-graph with \u8220?quotes\u8221?.\par
{\header Running header}Second paragraph.\par}";
        assert_eq!(
            text_of(rtf),
            "Heading one\n\nFirst paragraph with \u{201c}quotes\u{201d}.\n\nSecond paragraph."
        );
    }

    #[test]
    fn cyrillic_in_code_page_1251_and_unicode_escapes() {
        let rtf = r"{\rtf1\ansi\ansicpg1251 \'d2\'e5\'ea\'f1\'f2 \u1090\'f2\u1077\'e5\u1082\'ea\u1089\'f1\u1090\'f2.\par}";
        assert_eq!(text_of(rtf), "Текст текст.");
    }

    #[test]
    fn deep_nesting_is_refused() {
        let rtf = format!("{{\\rtf1 {}x{}}}", "{".repeat(5000), "}".repeat(5000));
        let err = read(rtf.as_bytes()).unwrap_err();
        assert_eq!(err.code(), "unreadable_document");
    }
}
