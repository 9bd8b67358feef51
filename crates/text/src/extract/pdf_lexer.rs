//! A PDF lexer that allocates nothing: it walks a file or a content stream token by token,
//! skipping strings and comments, so that the bounds can be measured (nesting, operators,
//! streams) in one linear pass before the parsers — which recurse and allocate — see the bytes.

/// One token, borrowing the bytes it was read from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Token<'a> {
    /// `[` or `<<`.
    Open,
    /// `]` or `>>`.
    Close,
    /// A name without its slash, `#xx` escapes not yet decoded.
    Name(&'a [u8]),
    /// A number, as written.
    Number(&'a [u8]),
    /// A literal or hexadecimal string (its contents are skipped).
    String,
    /// Anything else: `obj`, `stream`, an operator, `true`…
    Keyword(&'a [u8]),
}

pub(super) struct Lexer<'a> {
    bytes: &'a [u8],
    at: usize,
}

fn is_white(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'\x0c' | b'\0')
}

fn is_delimiter(b: u8) -> bool {
    matches!(
        b,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

fn is_regular(b: u8) -> bool {
    !is_white(b) && !is_delimiter(b)
}

impl<'a> Lexer<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        Lexer { bytes, at: 0 }
    }

    /// Where the next token is looked for.
    pub(super) fn position(&self) -> usize {
        self.at
    }

    /// Continues from `at` (after stream data or inline image data).
    pub(super) fn seek(&mut self, at: usize) {
        self.at = at.min(self.bytes.len());
    }

    fn skip_literal_string(&mut self) {
        // After the opening parenthesis: balanced parentheses, backslash escapes.
        let mut depth = 1usize;
        while self.at < self.bytes.len() {
            let b = self.bytes[self.at];
            self.at += 1;
            match b {
                b'\\' => self.at += 1,
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return;
                    }
                }
                _ => {}
            }
        }
    }

    fn take_while(&mut self, keep: impl Fn(u8) -> bool) -> &'a [u8] {
        let start = self.at;
        while self.at < self.bytes.len() && keep(self.bytes[self.at]) {
            self.at += 1;
        }
        &self.bytes[start..self.at]
    }
}

impl<'a> Iterator for Lexer<'a> {
    type Item = Token<'a>;

    fn next(&mut self) -> Option<Token<'a>> {
        loop {
            self.take_while(is_white);
            let &b = self.bytes.get(self.at)?;
            if b == b'%' {
                self.take_while(|c| c != b'\n' && c != b'\r');
                continue;
            }
            self.at += 1;
            let next = self.bytes.get(self.at).copied();
            return Some(match b {
                b'[' | b'{' => Token::Open,
                b']' | b'}' => Token::Close,
                b'<' if next == Some(b'<') => {
                    self.at += 1;
                    Token::Open
                }
                b'>' if next == Some(b'>') => {
                    self.at += 1;
                    Token::Close
                }
                b'<' => {
                    self.take_while(|c| c != b'>');
                    self.at += 1;
                    Token::String
                }
                b'(' => {
                    self.skip_literal_string();
                    Token::String
                }
                b'/' => Token::Name(self.take_while(is_regular)),
                b')' | b'>' => continue,
                _ => {
                    self.at -= 1;
                    let word = self.take_while(is_regular);
                    if word
                        .first()
                        .is_some_and(|c| c.is_ascii_digit() || b"+-.".contains(c))
                    {
                        Token::Number(word)
                    } else {
                        Token::Keyword(word)
                    }
                }
            });
        }
    }
}

/// A name with its `#xx` escapes decoded, as lopdf reads it.
pub(super) fn decode_name(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'#'
            && let Some(hex) = raw.get(i + 1..i + 3)
            && let Ok(text) = std::str::from_utf8(hex)
            && let Ok(value) = u8::from_str_radix(text, 16)
        {
            out.push(value);
            i += 3;
            continue;
        }
        out.push(raw[i]);
        i += 1;
    }
    out
}

/// The offset just past `stream` and its end of line, where a stream's data starts.
pub(super) fn stream_data_start(bytes: &[u8], after_keyword: usize) -> usize {
    let mut at = after_keyword;
    while bytes.get(at).is_some_and(|&b| b == b' ' || b == b'\t') {
        at += 1;
    }
    if bytes.get(at) == Some(&b'\r') {
        at += 1;
    }
    if bytes.get(at) == Some(&b'\n') {
        at += 1;
    }
    at
}

/// The first occurrence of `needle` in `bytes` at or after `from`.
pub(super) fn find(bytes: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_comments_and_escaped_names_are_read_as_a_parser_reads_them() {
        let tokens: Vec<Token> =
            Lexer::new(b"<< /Fl#61te [1 (a ] ( ) \\) b) <5b5b>] >> % [[[\n12 0 obj BT").collect();
        assert_eq!(
            tokens,
            [
                Token::Open,
                Token::Name(b"Fl#61te"),
                Token::Open,
                Token::Number(b"1"),
                Token::String,
                Token::String,
                Token::Close,
                Token::Close,
                Token::Number(b"12"),
                Token::Number(b"0"),
                Token::Keyword(b"obj"),
                Token::Keyword(b"BT"),
            ]
        );
        assert_eq!(decode_name(b"Fl#61te"), b"Flate");
    }
}
