//! The methods' names and their settings: the paper's values where it gives them, our choices
//! (said so) where it does not.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// One of the paper's methods, by its name in Table 1 (A0–A10) and §6 (A11, A12).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Method {
    A0,
    A1,
    A2,
    A3,
    A4,
    A5,
    A6,
    A7,
    A8,
    A9,
    A10,
    A11,
    A12,
}

impl Method {
    /// Every method, in the paper's order.
    pub const ALL: [Method; 13] = [
        Method::A0,
        Method::A1,
        Method::A2,
        Method::A3,
        Method::A4,
        Method::A5,
        Method::A6,
        Method::A7,
        Method::A8,
        Method::A9,
        Method::A10,
        Method::A11,
        Method::A12,
    ];

    /// The paper's short name.
    pub fn title(self) -> &'static str {
        match self {
            Method::A0 => "MD5",
            Method::A1 => "TF",
            Method::A2 => "TF*IDF",
            Method::A3 => "TF*RIDF",
            Method::A4 => "LongSent",
            Method::A5 => "HeavySent",
            Method::A6 => "Megashingles",
            Method::A7 => "LexRand",
            Method::A8 => "LogShingles",
            Method::A9 => "DescrWords",
            Method::A10 => "OptFreq",
            Method::A11 => "Decomposition",
            Method::A12 => "3+5",
        }
    }

    /// Parses `all` or a comma-separated list such as `A3,A7`.
    pub fn parse_list(list: &str) -> Result<Vec<Method>, ParseMethodError> {
        if list.trim().eq_ignore_ascii_case("all") {
            return Ok(Method::ALL.to_vec());
        }
        let mut methods: Vec<Method> = list
            .split(',')
            .filter(|s| !s.trim().is_empty())
            .map(str::parse)
            .collect::<Result<_, _>>()?;
        if methods.is_empty() {
            return Err(ParseMethodError(list.to_string()));
        }
        methods.sort_unstable();
        methods.dedup();
        Ok(methods)
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

/// A method name that is not one of A0–A12.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("unknown method `{0}`: expected `all` or names A0 to A12, e.g. A3,A7")]
pub struct ParseMethodError(pub String);

impl FromStr for Method {
    type Err = ParseMethodError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let name = s.trim();
        Method::ALL
            .into_iter()
            .find(|m| m.to_string().eq_ignore_ascii_case(name))
            .ok_or_else(|| ParseMethodError(name.to_string()))
    }
}

/// The methods' parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MethodSettings {
    /// Terms in the A1, A2, A3 and A10 signatures: 6 in the paper.
    pub top_terms: usize,
    /// Sentences in the A4 and A5 signatures: 2 in the paper.
    pub top_sentences: usize,
    /// BM25's `k` and `b` for A2 and A5: 2 and 0.75 in the paper.
    pub bm25_k: f64,
    pub bm25_b: f64,
    /// A10's "optimal" IDF, `−ln(10/1 000 000) = 11.5` in the paper (tuned for a web index of
    /// a million documents; a setting because our libraries are smaller).
    pub opt_idf: f64,
    /// Words per shingle for A6, A8 and A11: 5 in the paper for A6 and A8; A11's length is not
    /// given, and we use the same.
    pub shingle_len: usize,
    /// A7's lexicon keeps terms whose normalized IDF `ln(N/df) / ln N` lies in this band. The
    /// paper removes "the words with the highest and lowest IDF" without saying how many; the
    /// default drops the words in nearly every document (below 0.2: in more than N^0.8
    /// documents) and those in a single document (1.0), which cannot be shared by two.
    pub imatch_band: (f64, f64),
    /// A7: extra lexicons (10 in the paper) and the share of the lexicon each drops at random
    /// (about 30 % in the paper).
    pub lexicons: u32,
    pub lexicon_drop: f64,
    /// A7: an I-Match signature needs at least this many lexicon terms in the document (the
    /// paper: "a minimum found by experiment", not given; 5 is our choice).
    pub imatch_min_terms: usize,
    /// A8 keeps the shingles divisible by the largest power of two that at least this many of
    /// the document's shingles are divisible by (the paper says "divisible by powers of 2"
    /// without the stopping rule; this is our choice).
    pub log_min_shingles: usize,
    /// A9: descriptor words kept (3–5 thousand in the paper, on a web index).
    pub descr_words: usize,
    /// A9: the half-width `Δ` of the neighbourhood of a word's threshold frequency whose
    /// emptiness makes the threshold "precise".
    pub descr_delta: f64,
    /// A9: a document needs at least this many descriptor words above their thresholds to be
    /// signed (our choice: fewer collide across unrelated documents).
    pub descr_min_bits: usize,
    /// A11 keeps one shingle in `sampling` (those whose hash is a multiple of it): the paper
    /// says "not all, selectively" without a rule; 1 keeps all.
    pub sampling: u64,
    /// A11 and A12 cut a chain where the next document is longer than the previous by more
    /// than this ratio (1.15 in the paper for similarity 0.85).
    pub length_ratio: f64,
    /// A12 compares documents whose sentence counts differ by at most this ratio (1.20).
    pub sentence_ratio: f64,
    /// A12 compares documents sharing at least this many of their five longest words (2).
    pub common_words: usize,
}

impl Default for MethodSettings {
    fn default() -> Self {
        MethodSettings {
            top_terms: 6,
            top_sentences: 2,
            bm25_k: 2.0,
            bm25_b: 0.75,
            opt_idf: 11.5,
            shingle_len: 5,
            imatch_band: (0.2, 0.99),
            lexicons: 10,
            lexicon_drop: 0.3,
            imatch_min_terms: 5,
            log_min_shingles: 4,
            descr_words: 3000,
            descr_delta: 0.1,
            descr_min_bits: 3,
            sampling: 1,
            length_ratio: 1.15,
            sentence_ratio: 1.2,
            common_words: 2,
        }
    }
}

/// A setting given as `name=value` that cannot be applied.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SettingError {
    #[error("unknown method setting `{0}`")]
    Unknown(String),
    #[error("method setting `{name}`: cannot read `{value}` ({reason})")]
    Value {
        name: String,
        value: String,
        reason: String,
    },
}

impl MethodSettings {
    /// Applies one `name=value` setting; `imatch_band` takes `low-high`, e.g. `0.2-0.99`.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), SettingError> {
        let bad = |reason: &str| SettingError::Value {
            name: name.to_string(),
            value: value.to_string(),
            reason: reason.to_string(),
        };
        let int = || {
            value
                .trim()
                .parse::<usize>()
                .map_err(|e| bad(&e.to_string()))
        };
        let float = || value.trim().parse::<f64>().map_err(|e| bad(&e.to_string()));
        match name {
            "top_terms" => self.top_terms = int()?.max(1),
            "top_sentences" => self.top_sentences = int()?.max(1),
            "bm25_k" => self.bm25_k = float()?,
            "bm25_b" => self.bm25_b = float()?,
            "opt_idf" => self.opt_idf = float()?,
            "shingle_len" => {
                let len = int()?;
                if !(1..=64).contains(&len) {
                    return Err(bad("a shingle has 1 to 64 words"));
                }
                self.shingle_len = len;
            }
            "imatch_band" => {
                let (low, high) = value
                    .split_once('-')
                    .ok_or_else(|| bad("expected low-high, e.g. 0.2-0.99"))?;
                let low: f64 = low.trim().parse().map_err(|_| bad("low is not a number"))?;
                let high: f64 = high
                    .trim()
                    .parse()
                    .map_err(|_| bad("high is not a number"))?;
                if !(0.0..=1.0).contains(&low) || !(low..=1.0).contains(&high) {
                    return Err(bad("expected 0 <= low <= high <= 1"));
                }
                self.imatch_band = (low, high);
            }
            "lexicons" => self.lexicons = int()?.min(64) as u32,
            "lexicon_drop" => self.lexicon_drop = float()?.clamp(0.0, 1.0),
            "imatch_min_terms" => self.imatch_min_terms = int()?.max(1),
            "log_min_shingles" => self.log_min_shingles = int()?.max(1),
            "descr_words" => self.descr_words = int()?,
            "descr_delta" => self.descr_delta = float()?,
            "descr_min_bits" => self.descr_min_bits = int()?.max(1),
            "sampling" => self.sampling = (int()?.max(1)) as u64,
            "length_ratio" => self.length_ratio = float()?.max(1.0),
            "sentence_ratio" => self.sentence_ratio = float()?.max(1.0),
            "common_words" => self.common_words = int()?,
            _ => return Err(SettingError::Unknown(name.to_string())),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn method_lists_parse() {
        assert_eq!(Method::parse_list("all").unwrap().len(), 13);
        assert_eq!(
            Method::parse_list("a7, A3,A3").unwrap(),
            vec![Method::A3, Method::A7]
        );
        assert!(Method::parse_list("A13").is_err());
        assert!(Method::parse_list("").is_err());
    }

    #[test]
    fn settings_parse_and_refuse() {
        let mut s = MethodSettings::default();
        s.set("shingle_len", "7").unwrap();
        s.set("imatch_band", "0.1-0.8").unwrap();
        assert_eq!((s.shingle_len, s.imatch_band), (7, (0.1, 0.8)));
        assert!(matches!(s.set("nope", "1"), Err(SettingError::Unknown(_))));
        assert!(s.set("imatch_band", "0.8-0.1").is_err());
        assert!(s.set("shingle_len", "0").is_err());
    }
}
