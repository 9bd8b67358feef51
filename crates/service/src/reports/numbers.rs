//! Figures written for people, the same way everywhere a report is shown: the PDF, the CLI and
//! (in JavaScript, with `Intl.NumberFormat`) the web page. A share is a percentage with its
//! decimals rounded half away from zero from the shortest decimal that reads back as the
//! number — as `Intl.NumberFormat` rounds — so `0.4915` is `49.2 %` here as on the page.

/// The no-break space: between a number and `%`, and between thousands in Russian.
pub const NBSP: char = '\u{a0}';

/// `x` (0..1) as a percentage with `digits` decimals in `lang`: `83.3 %` (`en`), `83,3 %`
/// (`ru`), a no-break space before `%`.
pub fn percent(x: f64, digits: usize, lang: &str) -> String {
    let text = rounded(x * 100.0, digits);
    let text = if is_russian(lang) {
        text.replace('.', ",")
    } else {
        text
    };
    format!("{text}{NBSP}%")
}

/// A count with its thousands marked: `1,549` (`en`), `1 549` (`ru`, a no-break space).
pub fn count(n: u64, lang: &str) -> String {
    let digits = n.to_string();
    let separator = if is_russian(lang) { NBSP } else { ',' };
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(separator);
        }
        out.push(digit);
    }
    out
}

fn is_russian(lang: &str) -> bool {
    lang.eq_ignore_ascii_case("ru")
}

/// `value` with `digits` decimals, rounded half away from zero from its shortest decimal form.
fn rounded(value: f64, digits: usize) -> String {
    if !value.is_finite() {
        return "—".to_string();
    }
    let negative = value < 0.0;
    // Rust writes an f64 as the shortest decimal that reads back as it, never in exponent form.
    let shortest = format!("{}", value.abs());
    let (whole, fraction) = shortest.split_once('.').unwrap_or((&shortest, ""));
    let mut kept: Vec<u8> = whole
        .bytes()
        .chain(fraction.bytes().chain(std::iter::repeat(b'0')).take(digits))
        .map(|b| b - b'0')
        .collect();
    if fraction.as_bytes().get(digits).is_some_and(|d| *d >= b'5') {
        // Carry the rounding up through the kept digits.
        let mut i = kept.len();
        loop {
            if i == 0 {
                kept.insert(0, 1);
                break;
            }
            i -= 1;
            if kept[i] == 9 {
                kept[i] = 0;
            } else {
                kept[i] += 1;
                break;
            }
        }
    }
    let split = kept.len() - digits;
    let text: String = kept.iter().map(|d| char::from(b'0' + d)).collect();
    let (whole, fraction) = text.split_at(split);
    let whole = if whole.is_empty() { "0" } else { whole };
    let sign = if negative && kept.iter().any(|d| *d != 0) {
        "-"
    } else {
        ""
    };
    if digits == 0 {
        format!("{sign}{whole}")
    } else {
        format!("{sign}{whole}.{fraction}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_as_each_language_writes_them() {
        assert_eq!(percent(0.8333, 1, "ru"), "83,3\u{a0}%");
        assert_eq!(percent(0.8333, 1, "en"), "83.3\u{a0}%");
        assert_eq!(percent(0.46, 0, "en"), "46\u{a0}%");
        assert_eq!(count(1549, "ru"), "1\u{a0}549");
        assert_eq!(count(1549, "en"), "1,549");
        assert_eq!(count(1_234_567, "en"), "1,234,567");
        assert_eq!(count(999, "ru"), "999");
    }

    /// `0.4915 * 100` is 49.149999… in binary; the page's `Intl.NumberFormat` writes 49.2, and
    /// so must every other place.
    #[test]
    fn halves_round_up_as_the_page_rounds_them() {
        assert_eq!(percent(0.4915, 1, "en"), "49.2\u{a0}%");
        assert_eq!(percent(0.8325, 1, "en"), "83.3\u{a0}%");
        assert_eq!(percent(0.9996, 1, "en"), "100.0\u{a0}%");
        assert_eq!(percent(0.0, 1, "en"), "0.0\u{a0}%");
        assert_eq!(percent(1.0, 0, "ru"), "100\u{a0}%");
        assert_eq!(percent(0.00004, 1, "en"), "0.0\u{a0}%");
        assert_eq!(rounded(9.95, 1), "10.0");
        assert_eq!(rounded(0.05, 1), "0.1");
    }
}
