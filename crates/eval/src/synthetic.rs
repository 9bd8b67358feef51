//! A synthetic corpus for measuring at scale: words drawn from a Zipf distribution over a large
//! made-up vocabulary, abstract-like lengths (log-normal around 150 words), sentences. The same
//! seed and document number always give the same text, so a benchmark can build a library of a
//! million documents and later ask for any of them (or for a novel one) without keeping them.
//!
//! Words drawn independently would all be Poisson-distributed, leaving residual IDF near zero
//! for every term, which real text never does. So, as in real text, words are bursty: each
//! document is about two of many topics, whose words it repeats, and has a few key terms of its
//! own, repeated too; the rest of its words come from the background Zipf distribution.
//!
//! ```
//! use dupfinder_eval::synthetic::SyntheticCorpus;
//! let corpus = SyntheticCorpus::new(50_000, 1.0, 7);
//! assert_eq!(corpus.document(3), corpus.document(3));
//! assert_ne!(corpus.document(3), corpus.document(4));
//! let near = corpus.near_copy(3, 0.05);
//! assert_ne!(near, corpus.document(3));
//! ```

/// Frequent letter groups of English, so that language detection reads the text as English.
const SYLLABLES: [&str; 48] = [
    "th", "er", "in", "an", "re", "on", "at", "en", "nd", "ti", "es", "or", "te", "ed", "is", "al",
    "ar", "st", "nt", "ng", "se", "ha", "ou", "le", "ve", "co", "me", "de", "hi", "ri", "ro", "ic",
    "ne", "ea", "ra", "ce", "li", "ch", "ll", "be", "ma", "si", "om", "ur", "ly", "wh", "ow",
    "ght",
];
/// Endings that make the made-up words look like English ones.
const ENDINGS: [&str; 8] = ["ing", "tion", "ment", "er", "ed", "ness", "al", "ity"];

/// Topics the documents are about.
const TOPICS: u64 = 5_000;
/// Words of one topic.
const TOPIC_WORDS: u64 = 40;
/// Words below this rank are too common to be a topic's or a document's own.
const COMMON_RANKS: u64 = 500;
/// Share of a document's words taken from its topics, and from its own key terms.
const TOPIC_SHARE: f64 = 0.25;
const KEY_SHARE: f64 = 0.06;

/// A deterministic synthetic corpus.
pub struct SyntheticCorpus {
    words: Vec<String>,
    /// Cumulative Zipf weights of `words`, rank order.
    cumulative: Vec<f64>,
    seed: u64,
}

/// The rank of word `k` of topic `topic`: spread over the uncommon part of the vocabulary.
fn topic_word(topic: u64, k: u64, vocabulary: u64) -> usize {
    let mut rng = Rng::new(topic.wrapping_mul(1_000_003) ^ k.wrapping_mul(7_919) ^ 0x70_91C5);
    // Topic words lean towards the middle ranks: the product of two uniforms.
    let span = (vocabulary - COMMON_RANKS) as f64;
    (COMMON_RANKS as f64 + span * rng.unit() * rng.unit()) as usize
}

impl SyntheticCorpus {
    /// A corpus over `vocabulary` words whose frequencies follow Zipf's law with exponent
    /// `exponent` (about 1 in natural text).
    /// `vocabulary` must exceed 1,000 words.
    pub fn new(vocabulary: usize, exponent: f64, seed: u64) -> Self {
        assert!(
            vocabulary > 2 * COMMON_RANKS as usize,
            "a vocabulary of more than 1,000 words"
        );
        let words: Vec<String> = (0..vocabulary).map(word).collect();
        let mut total = 0.0;
        let cumulative = (1..=vocabulary)
            .map(|rank| {
                total += 1.0 / (rank as f64).powf(exponent);
                total
            })
            .collect();
        SyntheticCorpus {
            words,
            cumulative,
            seed,
        }
    }

    fn draw(&self, rng: &mut Rng) -> &str {
        let total = *self.cumulative.last().expect("a non-empty vocabulary");
        let target = rng.unit() * total;
        let rank = self.cumulative.partition_point(|&c| c < target);
        &self.words[rank.min(self.words.len() - 1)]
    }

    /// The words of document `n`: 40 to 600 of them, log-normal around 150.
    fn words_of(&self, n: u64) -> Vec<&str> {
        let mut rng = Rng::new(self.seed ^ n.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let length = (150.0 * (0.45 * rng.normal()).exp()).clamp(40.0, 600.0) as usize;
        let vocabulary = self.words.len() as u64;
        let topics = [rng.next() % TOPICS, rng.next() % TOPICS];
        let keys: Vec<usize> = (0..4)
            .map(|_| (COMMON_RANKS + rng.next() % (vocabulary - COMMON_RANKS)) as usize)
            .collect();
        (0..length)
            .map(|_| {
                let r = rng.unit();
                if r < TOPIC_SHARE {
                    let topic = topics[(rng.next() % 2) as usize];
                    // Within a topic, earlier words are more frequent.
                    let k = (rng.unit() * rng.unit() * TOPIC_WORDS as f64) as u64;
                    self.words[topic_word(topic, k, vocabulary)].as_str()
                } else if r < TOPIC_SHARE + KEY_SHARE {
                    self.words[keys[(rng.next() % 4) as usize]].as_str()
                } else {
                    self.draw(&mut rng)
                }
            })
            .collect()
    }

    /// The text of document `n`.
    pub fn document(&self, n: u64) -> String {
        sentences(&self.words_of(n), n)
    }

    /// Document `n` with a share `share` of its words replaced by other words of the corpus.
    pub fn near_copy(&self, n: u64, share: f64) -> String {
        let mut words = self.words_of(n);
        let mut rng = Rng::new(self.seed ^ n ^ 0xA5A5_5A5A);
        let replace = ((words.len() as f64 * share).round() as usize).max(1);
        for _ in 0..replace {
            let at = (rng.next() % words.len() as u64) as usize;
            words[at] = self.draw(&mut rng);
        }
        sentences(&words, n)
    }

    /// The title of document `n`: a few of its opening words.
    pub fn title(&self, n: u64) -> String {
        let words = self.words_of(n);
        let mut title = words[..6.min(words.len())].join(" ");
        capitalize(&mut title);
        title
    }
}

/// The `i`-th vocabulary word: a distinct string of two to four syllables.
fn word(i: usize) -> String {
    let n = SYLLABLES.len();
    let mut out = String::new();
    let mut rest = i;
    loop {
        out.push_str(SYLLABLES[rest % n]);
        rest /= n;
        if rest == 0 {
            break;
        }
        rest -= 1;
    }
    // Also keeps words long enough to stay clear of the analyzer's minimum and of stop words.
    out.push_str(ENDINGS[i % ENDINGS.len()]);
    out
}

/// Joins words into sentences of 12 to 24 words, capitalized and ended with a full stop.
fn sentences(words: &[&str], n: u64) -> String {
    let mut rng = Rng::new(n ^ 0x5E17_E9CE);
    let mut text = String::with_capacity(words.len() * 8);
    let mut left = 0usize;
    for w in words {
        if left == 0 {
            if !text.is_empty() {
                text.push_str(". ");
            }
            left = 12 + (rng.next() % 13) as usize;
            let start = text.len();
            text.push_str(w);
            capitalize_from(&mut text, start);
        } else {
            text.push(' ');
            text.push_str(w);
        }
        left -= 1;
    }
    text.push('.');
    text
}

fn capitalize(text: &mut String) {
    capitalize_from(text, 0);
}

fn capitalize_from(text: &mut String, start: usize) {
    if let Some(first) = text[start..].chars().next() {
        let upper: String = first.to_uppercase().collect();
        text.replace_range(start..start + first.len_utf8(), &upper);
    }
}

/// xorshift64*: small, fast, and good enough for generating text.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Standard normal (Box–Muller).
    fn normal(&mut self) -> f64 {
        let u = self.unit().max(f64::MIN_POSITIVE);
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vocabulary_words_are_distinct() {
        let words: std::collections::HashSet<String> = (0..100_000).map(word).collect();
        assert_eq!(words.len(), 100_000);
    }

    #[test]
    fn frequencies_fall_with_rank_and_lengths_look_like_abstracts() {
        let corpus = SyntheticCorpus::new(20_000, 1.0, 1);
        let mut counts = std::collections::HashMap::new();
        let mut lengths = Vec::new();
        for n in 0..500 {
            let words = corpus.words_of(n);
            lengths.push(words.len());
            for w in words {
                *counts.entry(w.to_string()).or_insert(0u32) += 1;
            }
        }
        let top = counts[&word(0)];
        let tenth = counts.get(&word(9)).copied().unwrap_or(0);
        assert!(
            top > 5 * tenth.max(1) / 2,
            "rank 1: {top}, rank 10: {tenth}"
        );
        lengths.sort_unstable();
        let median = lengths[lengths.len() / 2];
        assert!((110..=200).contains(&median), "median length {median}");
        assert!(lengths.iter().all(|&l| (40..=600).contains(&l)));
    }
}
