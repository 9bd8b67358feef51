//! Plain text in the encodings Russian and English papers come in: UTF-8, UTF-16 (with a
//! byte-order mark, or recognised by its NUL bytes), Windows-1251 and KOI8-R (told apart by which
//! decoding yields ordinary Russian letter frequencies), else Windows-1252.

use encoding_rs::{Encoding, KOI8_R, UTF_16BE, UTF_16LE, WINDOWS_1251, WINDOWS_1252};

use super::document::{DocumentBuilder, ExtractedDocument};
use super::{BlockKind, Format};

/// Decodes text of any of the supported encodings into a `String`.
pub fn decode_text(bytes: &[u8]) -> String {
    let (text, _) = decode_with(bytes, detect(bytes));
    text
}

/// The byte order of UTF-16 text without a byte-order mark: nearly every code unit of Russian or
/// English text has a high byte of 0x00 (ASCII) or 0x04 (Cyrillic), and the low bytes are
/// almost never NUL; which positions hold those high bytes tells the order.
pub(super) fn utf16_order(sample: &[u8]) -> Option<&'static Encoding> {
    if sample.starts_with(b"\xff\xfe") {
        return Some(UTF_16LE);
    }
    if sample.starts_with(b"\xfe\xff") {
        return Some(UTF_16BE);
    }
    if sample.len() < 16 {
        return None;
    }
    let pairs = sample.len() / 2;
    let high = |b: &u8| *b == 0 || *b == 4;
    let even_high = sample.iter().step_by(2).filter(|b| high(b)).count();
    let odd_high = sample.iter().skip(1).step_by(2).filter(|b| high(b)).count();
    let even_nul = sample.iter().step_by(2).filter(|&&b| b == 0).count();
    let odd_nul = sample
        .iter()
        .skip(1)
        .step_by(2)
        .filter(|&&b| b == 0)
        .count();
    if odd_high * 10 >= pairs * 7 && odd_nul > 0 && even_nul * 20 < pairs {
        Some(UTF_16LE)
    } else if even_high * 10 >= pairs * 7 && even_nul > 0 && odd_nul * 20 < pairs {
        Some(UTF_16BE)
    } else {
        None
    }
}

fn detect(bytes: &[u8]) -> &'static Encoding {
    if let Some((encoding, _)) = Encoding::for_bom(bytes) {
        return encoding;
    }
    let sample = &bytes[..bytes.len().min(64 * 1024)];
    if let Some(encoding) = utf16_order(sample) {
        return encoding;
    }
    // A sample cut inside a multi-byte character is still UTF-8.
    match std::str::from_utf8(sample) {
        Ok(_) => return encoding_rs::UTF_8,
        Err(e) if e.error_len().is_none() => return encoding_rs::UTF_8,
        Err(_) => {}
    }
    let score_1251 = russian_score(&WINDOWS_1251.decode_without_bom_handling(sample).0);
    let score_koi8 = russian_score(&KOI8_R.decode_without_bom_handling(sample).0);
    if score_1251 == 0 && score_koi8 == 0 {
        WINDOWS_1252
    } else if score_koi8 > score_1251 {
        KOI8_R
    } else {
        WINDOWS_1251
    }
}

/// Ordinary Russian text is mostly lowercase letters, and о, е, а, и, н, т, с are the most
/// frequent; the wrong one of the two single-byte decodings turns it into capitals and rare
/// letters.
fn russian_score(text: &str) -> usize {
    text.chars()
        .map(|c| match c {
            'о' | 'е' | 'а' | 'и' | 'н' | 'т' | 'с' | 'р' | 'в' | 'л' => 3,
            'а'..='я' | 'ё' => 1,
            _ => 0,
        })
        .sum()
}

fn decode_with(bytes: &[u8], encoding: &'static Encoding) -> (String, &'static Encoding) {
    let (text, used, _) = encoding.decode(bytes);
    (text.into_owned(), used)
}

/// Plain text: paragraphs are separated by blank lines; lines within one are joined.
pub(super) fn read(bytes: &[u8]) -> ExtractedDocument {
    let text = decode_text(bytes);
    let mut builder = DocumentBuilder::new(Format::Text);
    for paragraph in split_paragraphs(&text) {
        builder.push(BlockKind::Paragraph, &paragraph, None);
    }
    builder.finish()
}

/// Splits text at blank lines, joining the lines inside each paragraph with a space (plain text
/// wrapped at a fixed width reads as one paragraph, not as many). A section's name on a line of
/// its own ("References", "Аннотация") is a paragraph of its own even with no blank line under
/// it, so that the list or the text it heads is not run into its heading.
pub(super) fn split_paragraphs(text: &str) -> Vec<String> {
    let mut paragraphs = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || crate::structure::is_section_name(line) {
            if !current.is_empty() {
                paragraphs.push(current.join("\n"));
                current.clear();
            }
            if !line.is_empty() {
                paragraphs.push(line.to_string());
            }
        } else {
            current.push(line);
        }
    }
    if !current.is_empty() {
        paragraphs.push(current.join("\n"));
    }
    paragraphs
}

#[cfg(test)]
mod tests {
    use super::*;

    const RUSSIAN: &str =
        "Сигнатуры документов находят нечёткие дубликаты в больших коллекциях текстов.";

    #[test]
    fn a_heading_line_is_a_paragraph_of_its_own() {
        let text = "Body text wrapped\nat a fixed width.\n\nReferences\n1. A. One (2001). Title.\n\
                    2. B. Two (2002). Title.\nСписок литературы\n1. Иванов И. И. Статья.";
        assert_eq!(
            split_paragraphs(text),
            [
                "Body text wrapped\nat a fixed width.",
                "References",
                "1. A. One (2001). Title.\n2. B. Two (2002). Title.",
                "Список литературы",
                "1. Иванов И. И. Статья.",
            ]
        );
    }

    #[test]
    fn russian_single_byte_encodings_are_told_apart() {
        let (cp1251, _, _) = WINDOWS_1251.encode(RUSSIAN);
        let (koi8, _, _) = KOI8_R.encode(RUSSIAN);
        assert_eq!(decode_text(&cp1251), RUSSIAN);
        assert_eq!(decode_text(&koi8), RUSSIAN);
        assert_eq!(decode_text(RUSSIAN.as_bytes()), RUSSIAN);
    }

    #[test]
    fn utf16_is_read_with_and_without_a_byte_order_mark() {
        let le: Vec<u8> = RUSSIAN
            .encode_utf16()
            .flat_map(|u| u.to_le_bytes())
            .collect();
        let be: Vec<u8> = RUSSIAN
            .encode_utf16()
            .flat_map(|u| u.to_be_bytes())
            .collect();
        let mut with_bom = vec![0xff, 0xfe];
        with_bom.extend_from_slice(&le);
        assert_eq!(decode_text(&with_bom), RUSSIAN);
        let english: Vec<u8> = "Plain English text in UTF-16"
            .encode_utf16()
            .flat_map(|u| u.to_le_bytes())
            .collect();
        assert_eq!(decode_text(&english), "Plain English text in UTF-16");
        assert_eq!(decode_text(&le), RUSSIAN);
        let mut be_bom = vec![0xfe, 0xff];
        be_bom.extend_from_slice(&be);
        assert_eq!(decode_text(&be_bom), RUSSIAN);
    }
}
