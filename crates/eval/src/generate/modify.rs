//! The modifications that turn a library document into a near-duplicate query.
//!
//! Each function returns `None` when the text cannot take the modification (too few sentences,
//! no word with a Latin/Cyrillic look-alike, …); the caller then moves on to another source
//! document. A returned text has changed something beyond whitespace by construction (the
//! counts come from [`share`], which is at least one, and shuffles that left everything in
//! place are corrected); the caller checks it all the same.

use std::collections::HashSet;

use super::Modification;
use super::disguise;
use super::pool::WordPool;
use super::rng::Rng;
use super::text::{Case, Layout, Script, Tokens, case_like, paragraph_units, word_count};

/// What modifications may borrow from outside the source document.
pub(crate) struct Material<'a> {
    pub(crate) pool: &'a WordPool,
    /// Foreign texts that can lend sentences, with their dominant script.
    pub(crate) donors: &'a [(&'a str, Script)],
}

/// Applies a near-duplicate modification; `None` for kinds the caller builds itself (partial
/// copies and negatives) and for texts that cannot take the modification.
pub(crate) fn apply(
    kind: Modification,
    level: f64,
    text: &str,
    rng: &mut Rng,
    material: &Material<'_>,
) -> Option<String> {
    match kind {
        Modification::Exact => Some(text.to_string()),
        Modification::ParagraphPermutation => permute_paragraphs(text, rng),
        Modification::ParagraphDeletion => delete_sentences(text, level, rng),
        Modification::ParagraphAddition => add_sentences(text, level, rng, material.donors),
        Modification::SentenceReordering => reorder_sentences(text, rng),
        Modification::WordReplacement => replace_words(text, level, rng, material.pool),
        Modification::LetterReplacement => replace_letters(text, level, rng),
        Modification::Homoglyphs => homoglyphs(text, level, rng),
        Modification::LookAlikeWords => disguise::look_alike_words(text, level, rng),
        Modification::Transliteration => disguise::transliterate(text, rng),
        Modification::ZeroWidth => disguise::zero_width(text, level, rng),
        Modification::LetterSpacing => disguise::letter_spacing(text, level, rng),
        Modification::RepeatedParagraphs => repeat_units(text, level, rng),
        Modification::Noise => noise(text, level, rng),
        Modification::WordDeletion => delete_words(text, level, rng),
        Modification::WordInsertion => insert_words(text, level, rng, material.pool),
        Modification::PartialCopy
        | Modification::QuotedCopy
        | Modification::RepeatedCopy
        | Modification::ManySources
        | Modification::NegativeUnrelated
        | Modification::NegativeSameTopic => None,
    }
}

/// `level` of `n` items, rounded, but at least one so every positive query really differs from
/// its source, and at most `n`.
pub(crate) fn share(level: f64, n: usize) -> usize {
    if n == 0 {
        return 0;
    }
    ((level * n as f64).round() as usize).clamp(1, n)
}

/// The `eligible` words a modification changes: the level's [`share`] of all `words`, or every
/// eligible one if fewer, drawn at random (in their order in `eligible`). `None` when no word is
/// eligible.
pub(crate) fn draw_eligible<'e, T>(
    eligible: &'e [T],
    words: usize,
    level: f64,
    rng: &mut Rng,
) -> Option<Vec<&'e T>> {
    if eligible.is_empty() {
        return None;
    }
    let count = share(level, words).min(eligible.len());
    let picks = rng.sample(eligible.len(), count);
    Some(picks.into_iter().map(|pick| &eligible[pick]).collect())
}

/// Items, visited in random order, whose weights add up as close to `target` as greedy choice
/// gets: an item is taken when it brings the total closer. At most `max_items`; at least one
/// (the lightest) when any item has weight, so the modification is never empty. Zero-weight
/// items are never taken: removing or repeating a sentence without words changes nothing a
/// check would see.
fn pick_weighted(weights: &[usize], target: usize, max_items: usize, rng: &mut Rng) -> Vec<usize> {
    let mut order: Vec<usize> = (0..weights.len()).filter(|&i| weights[i] > 0).collect();
    rng.shuffle(&mut order);
    let mut chosen = Vec::new();
    let mut total = 0usize;
    for &i in &order {
        if chosen.len() >= max_items || total >= target {
            break;
        }
        if (total + weights[i]).abs_diff(target) < total.abs_diff(target) {
            chosen.push(i);
            total += weights[i];
        }
    }
    if chosen.is_empty()
        && max_items > 0
        && let Some(&lightest) = order.iter().min_by_key(|&&i| weights[i])
    {
        chosen.push(lightest);
    }
    chosen
}

/// Positions `a`, `b` of two different items, or `None` when all items are equal; used to force
/// a visible change when a shuffle happened to leave the order as it was.
fn two_different<T: PartialEq>(items: &[T], rng: &mut Rng) -> Option<(usize, usize)> {
    if items.is_empty() {
        return None;
    }
    let a = rng.below(items.len());
    let others: Vec<usize> = (0..items.len()).filter(|&b| items[b] != items[a]).collect();
    Some((a, *rng.pick(&others)?))
}

fn permute_paragraphs(text: &str, rng: &mut Rng) -> Option<String> {
    let mut units = paragraph_units(text);
    let original = units.clone();
    rng.shuffle(&mut units);
    if units == original {
        let (a, b) = two_different(&units, rng)?;
        units.swap(a, b);
    }
    Some(units.join("\n\n"))
}

fn reorder_sentences(text: &str, rng: &mut Rng) -> Option<String> {
    let mut layout = Layout::parse(text);
    let original = layout.clone();
    for paragraph in &mut layout.paragraphs {
        rng.shuffle(paragraph);
    }
    if layout == original {
        let movable: Vec<usize> = (0..layout.paragraphs.len())
            .filter(|&p| {
                layout.paragraphs[p]
                    .iter()
                    .any(|s| *s != layout.paragraphs[p][0])
            })
            .collect();
        let paragraph = &mut layout.paragraphs[*rng.pick(&movable)?];
        let (a, b) = two_different(paragraph, rng)?;
        paragraph.swap(a, b);
    }
    Some(layout.render())
}

fn delete_sentences(text: &str, level: f64, rng: &mut Rng) -> Option<String> {
    let mut layout = Layout::parse(text);
    let positions = layout.positions();
    let weights: Vec<usize> = positions
        .iter()
        .map(|&(p, s)| word_count(&layout.paragraphs[p][s]))
        .collect();
    let worded = weights.iter().filter(|&&w| w > 0).count();
    if worded < 2 {
        return None;
    }
    let target = share(level, word_count(text));
    // Keep at least one sentence with words: deleting everything is not a near-duplicate.
    let mut delete = vec![false; positions.len()];
    for i in pick_weighted(&weights, target, worded - 1, rng) {
        delete[i] = true;
    }
    let mut at = 0;
    for paragraph in &mut layout.paragraphs {
        paragraph.retain(|_| {
            at += 1;
            !delete[at - 1]
        });
    }
    Some(layout.render())
}

fn add_sentences(
    text: &str,
    level: f64,
    rng: &mut Rng,
    donors: &[(&str, Script)],
) -> Option<String> {
    let target = share(level, word_count(text));
    // Material in the source's own script: Russian sentences in an English paper would be an
    // easy tell no real reworking produces.
    let script = Script::dominant(text);
    let same: Vec<&str> = donors
        .iter()
        .filter(|(_, s)| *s == script)
        .map(|(t, _)| *t)
        .collect();
    let all: Vec<&str> = donors.iter().map(|(t, _)| *t).collect();
    let donor = *rng.pick(if same.is_empty() { &all } else { &same })?;
    let donor_layout = Layout::parse(donor);
    let sentences: Vec<(&str, usize)> = donor_layout
        .paragraphs
        .iter()
        .flatten()
        .map(|s| (s.as_str(), word_count(s)))
        .filter(|(_, w)| *w > 0)
        .collect();
    // Start at a sentence that does not by itself overshoot the target much, then take the
    // following ones (a contiguous passage reads like real added material).
    let fitting: Vec<usize> = (0..sentences.len())
        .filter(|&i| sentences[i].1 <= 2 * target)
        .collect();
    let start = match rng.pick(&fitting) {
        Some(&i) => i,
        None => (0..sentences.len()).min_by_key(|&i| sentences[i].1)?,
    };
    let mut added: Vec<&str> = Vec::new();
    let mut total = 0;
    for step in 0..sentences.len() {
        let (sentence, words) = sentences[(start + step) % sentences.len()];
        if !added.is_empty() && (total + words).abs_diff(target) >= total.abs_diff(target) {
            break;
        }
        added.push(sentence);
        total += words;
    }
    let mut layout = Layout::parse(text);
    if layout.paragraphs.is_empty() {
        layout.paragraphs.push(Vec::new());
    }
    for sentence in added {
        // A uniform choice among all sentence boundaries, paragraph ends included.
        let slots: usize = layout.paragraphs.iter().map(|p| p.len() + 1).sum();
        let mut slot = rng.below(slots);
        for paragraph in &mut layout.paragraphs {
            if slot <= paragraph.len() {
                paragraph.insert(slot, sentence.to_string());
                break;
            }
            slot -= paragraph.len() + 1;
        }
    }
    Some(layout.render())
}

fn repeat_units(text: &str, level: f64, rng: &mut Rng) -> Option<String> {
    let target = share(level, word_count(text));
    let layout = Layout::parse(text);
    let paragraph_words: Vec<usize> = layout
        .paragraphs
        .iter()
        .map(|p| p.iter().map(|s| word_count(s)).sum())
        .collect();
    // Whole paragraphs when some paragraph is small enough to approximate the target; a text
    // of a few long paragraphs repeats sentences instead.
    let by_paragraph = paragraph_words.iter().filter(|&&w| w > 0).count() >= 2
        && paragraph_words.iter().any(|&w| w > 0 && w <= target);
    let mut out = Layout {
        paragraphs: Vec::new(),
    };
    if by_paragraph {
        let chosen = pick_weighted(&paragraph_words, target, usize::MAX, rng);
        for (p, paragraph) in layout.paragraphs.iter().enumerate() {
            out.paragraphs.push(paragraph.clone());
            if chosen.contains(&p) {
                out.paragraphs.push(paragraph.clone());
            }
        }
    } else {
        let positions = layout.positions();
        let weights: Vec<usize> = positions
            .iter()
            .map(|&(p, s)| word_count(&layout.paragraphs[p][s]))
            .collect();
        let chosen = pick_weighted(&weights, target, usize::MAX, rng);
        if chosen.is_empty() {
            return None;
        }
        let mut at = 0;
        for paragraph in &layout.paragraphs {
            let mut sentences = Vec::new();
            for sentence in paragraph {
                sentences.push(sentence.clone());
                // The copy right after the original, as extraction glitches and careless
                // pasting produce it.
                if chosen.contains(&at) {
                    sentences.push(sentence.clone());
                }
                at += 1;
            }
            out.paragraphs.push(sentences);
        }
    }
    Some(out.render())
}

fn lowercase_vocabulary(tokens: &Tokens) -> HashSet<String> {
    tokens.words.iter().map(|w| w.to_lowercase()).collect()
}

/// A different letter (or digit) of the same script and case as `c`.
fn other_letter(c: char, rng: &mut Rng) -> Option<char> {
    let script = Script::of(c);
    for _ in 0..16 {
        let candidate = match script {
            // Scripts without a known alphabet: a nearby code point in the same block is
            // almost always a letter of the same script.
            Script::Other => {
                let offset = rng.between(1, 16) as u32;
                let code = if rng.chance(0.5) {
                    c as u32 + offset
                } else {
                    (c as u32).checked_sub(offset)?
                };
                char::from_u32(code)
                    .filter(|x| x.is_alphanumeric() && x.is_uppercase() == c.is_uppercase())
            }
            _ => script.random_char(rng).map(|x| case_like(c, x)),
        };
        if let Some(x) = candidate
            && x != c
            && Script::of(x) == script
        {
            return Some(x);
        }
    }
    None
}

/// A made-up word shaped like `word`: every letter replaced by a random one of its script.
/// The last resort when the pool has no word of the script.
fn random_word_like(word: &str, rng: &mut Rng) -> String {
    word.chars()
        .map(|c| other_letter(c, rng).unwrap_or(c))
        .collect()
}

fn replace_words(text: &str, level: f64, rng: &mut Rng, pool: &WordPool) -> Option<String> {
    let mut tokens = Tokens::split(text);
    let vocabulary = lowercase_vocabulary(&tokens);
    let n = tokens.words.len();
    for i in rng.sample(n, share(level, n)) {
        let word = &tokens.words[i];
        let lower = word.to_lowercase();
        let script = Script::dominant(&lower);
        let len = lower.chars().count();
        // A word foreign to the document is preferred, so the replacement really changes the
        // document's vocabulary.
        let replacement = pool
            .similar(script, len, &lower, |w| vocabulary.contains(w), rng)
            .map(str::to_string)
            .unwrap_or_else(|| random_word_like(&lower, rng));
        tokens.words[i] = Case::of(word).apply(&replacement);
    }
    (n > 0).then(|| tokens.join())
}

/// Swaps two adjacent different letters or replaces one letter by another of its script.
fn mutate_letter(word: &str, rng: &mut Rng) -> Option<String> {
    let mut chars: Vec<char> = word.chars().collect();
    let swaps: Vec<usize> = (0..chars.len().saturating_sub(1))
        .filter(|&i| chars[i] != chars[i + 1])
        .collect();
    if swaps.is_empty() || rng.chance(0.5) {
        let at = rng.below(chars.len());
        if let Some(c) = other_letter(chars[at], rng) {
            chars[at] = c;
            return Some(chars.into_iter().collect());
        }
    }
    let i = *rng.pick(&swaps)?;
    chars.swap(i, i + 1);
    Some(chars.into_iter().collect())
}

fn replace_letters(text: &str, level: f64, rng: &mut Rng) -> Option<String> {
    let mut tokens = Tokens::split(text);
    let n = tokens.words.len();
    for i in rng.sample(n, share(level, n)) {
        if let Some(changed) = mutate_letter(&tokens.words[i], rng) {
            tokens.words[i] = changed;
        }
    }
    (n > 0).then(|| tokens.join())
}

/// Cyrillic letters and the Latin letters they are indistinguishable from in most fonts.
pub(crate) const HOMOGLYPHS: &[(char, char)] = &[
    ('а', 'a'),
    ('е', 'e'),
    ('о', 'o'),
    ('р', 'p'),
    ('с', 'c'),
    ('у', 'y'),
    ('х', 'x'),
    ('А', 'A'),
    ('В', 'B'),
    ('Е', 'E'),
    ('К', 'K'),
    ('М', 'M'),
    ('Н', 'H'),
    ('О', 'O'),
    ('Р', 'P'),
    ('С', 'C'),
    ('Т', 'T'),
    ('Х', 'X'),
    ('У', 'Y'),
];

/// The look-alike of `c` from the other script, if `c` belongs to `script` and has one.
fn look_alike(c: char, script: Script) -> Option<char> {
    look_alike_in(HOMOGLYPHS, c, script)
}

/// The letter `table` (pairs of a Cyrillic and a Latin letter) pairs `c` with, if `c` belongs
/// to `script` and the table holds it.
pub(crate) fn look_alike_in(table: &[(char, char)], c: char, script: Script) -> Option<char> {
    match script {
        Script::Cyrillic => table.iter().find(|(cyr, _)| *cyr == c).map(|(_, lat)| *lat),
        Script::Latin => table.iter().find(|(_, lat)| *lat == c).map(|(cyr, _)| *cyr),
        _ => None,
    }
}

fn homoglyphs(text: &str, level: f64, rng: &mut Rng) -> Option<String> {
    let mut tokens = Tokens::split(text);
    let eligible: Vec<usize> = (0..tokens.words.len())
        .filter(|&i| {
            let script = Script::dominant(&tokens.words[i]);
            tokens.words[i]
                .chars()
                .any(|c| look_alike(c, script).is_some())
        })
        .collect();
    for &i in draw_eligible(&eligible, tokens.words.len(), level, rng)? {
        let word = &mut tokens.words[i];
        let script = Script::dominant(word);
        let mut chars: Vec<char> = word.chars().collect();
        let swappable: Vec<usize> = (0..chars.len())
            .filter(|&i| look_alike(chars[i], script).is_some())
            .collect();
        // Leave at least one letter of the word's own script: a mixed-script word is what an
        // evasion attempt produces and what the analyzer's folding must undo.
        let most = if swappable.len() == chars.len() && chars.len() > 1 {
            swappable.len() - 1
        } else {
            swappable.len()
        };
        let how_many = rng.between(1, most);
        for k in rng.sample(swappable.len(), how_many) {
            let at = swappable[k];
            if let Some(c) = look_alike(chars[at], script) {
                chars[at] = c;
            }
        }
        *word = chars.into_iter().collect();
    }
    Some(tokens.join())
}

fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation() || "«»—–…“”„‘’".contains(c)
}

/// The word in another capitalisation (lower, Title or UPPER), if it has cased letters.
fn recase(word: &str, rng: &mut Rng) -> Option<String> {
    let mut options: Vec<String> = [Case::Lower, Case::Title, Case::Upper]
        .iter()
        .map(|c| c.apply(word))
        .filter(|w| w != word)
        .collect();
    options.dedup();
    rng.pick(&options).cloned()
}

/// Collapses the whitespace of a separator to single spaces, or adds some.
fn reshape_whitespace(sep: &str, rng: &mut Rng) -> String {
    let irregular = sep.contains(|c: char| c.is_whitespace() && c != ' ') || sep.contains("  ");
    if irregular && rng.chance(0.7) {
        let mut out = String::new();
        for c in sep.chars() {
            if !c.is_whitespace() {
                out.push(c);
            } else if !out.ends_with(' ') {
                out.push(' ');
            }
        }
        return out;
    }
    let extra = *rng.pick(&[" ", "  ", "\n", "\t"]).unwrap_or(&" ");
    match sep.find(char::is_whitespace) {
        Some(at) => format!("{}{extra}{}", &sep[..at], &sep[at..]),
        None => sep.to_string(),
    }
}

/// Removes one punctuation mark where that cannot glue two words together.
fn drop_punctuation(seps: &mut [String], rng: &mut Rng) -> bool {
    let last = seps.len() - 1;
    let mut candidates: Vec<(usize, usize)> = Vec::new();
    for (i, sep) in seps.iter().enumerate() {
        let edge = i == 0 || i == last;
        if !edge && sep.chars().count() < 2 {
            continue;
        }
        candidates.extend(
            sep.char_indices()
                .filter(|(_, c)| is_punctuation(*c))
                .map(|(b, _)| (i, b)),
        );
    }
    let Some(&(i, at)) = rng.pick(&candidates) else {
        return false;
    };
    seps[i].remove(at);
    true
}

/// Adds a punctuation mark right after a word.
fn add_punctuation(seps: &mut [String], rng: &mut Rng) {
    let last = seps.len() - 1;
    let after_word: Vec<usize> = (1..last)
        .filter(|&i| seps[i].starts_with(char::is_whitespace))
        .collect();
    let i = rng.pick(&after_word).copied().unwrap_or(last);
    let mark = *rng
        .pick(&[',', ',', ',', '.', ';', ':', '!'])
        .unwrap_or(&',');
    seps[i].insert(0, mark);
}

fn noise(text: &str, level: f64, rng: &mut Rng) -> Option<String> {
    let mut tokens = Tokens::split(text);
    let n = tokens.words.len();
    if n == 0 {
        return None;
    }
    let cased: Vec<usize> = (0..n)
        .filter(|&i| {
            tokens.words[i]
                .chars()
                .any(|c| c.is_lowercase() || c.is_uppercase())
        })
        .collect();
    let mut visible_change = false;
    for pick in rng.sample(cased.len(), share(level, n).min(cased.len())) {
        if let Some(changed) = recase(&tokens.words[cased[pick]], rng) {
            tokens.words[cased[pick]] = changed;
            visible_change = true;
        }
    }
    let spaced: Vec<usize> = (0..tokens.seps.len())
        .filter(|&i| tokens.seps[i].contains(char::is_whitespace))
        .collect();
    let reshaped = (level * spaced.len() as f64).round() as usize;
    for pick in rng.sample(spaced.len(), reshaped) {
        let i = spaced[pick];
        tokens.seps[i] = reshape_whitespace(&tokens.seps[i], rng);
    }
    let marks: usize = tokens
        .seps
        .iter()
        .map(|s| s.chars().filter(|c| is_punctuation(*c)).count())
        .sum();
    let mut edits = (level * marks as f64).round() as usize;
    // Texts without cased letters (Chinese) still get a visible change.
    if !visible_change {
        edits = edits.max(1);
    }
    for _ in 0..edits {
        if !(rng.chance(0.5) && drop_punctuation(&mut tokens.seps, rng)) {
            add_punctuation(&mut tokens.seps, rng);
        }
    }
    Some(tokens.join())
}

/// Punctuation that attaches to the word before it.
const CLOSING_PUNCTUATION: &[char] = &['.', ',', ';', ':', '!', '?', '…', ')', ']', '»', '”', '’'];

/// The separator left when the word between `before` and `after` is deleted: one run of
/// whitespace, not two, and no space before closing punctuation (`image recognition. However`
/// loses `recognition` as `image. However`), keeping a line break if either side had one.
fn merge_separators(before: &str, after: &str, at_start: bool) -> String {
    if at_start {
        return format!("{before}{}", after.trim_start());
    }
    let before_space = &before[before.trim_end().len()..];
    let after_space = &after[..after.len() - after.trim_start().len()];
    let closes = after.starts_with(CLOSING_PUNCTUATION);
    if before_space.is_empty()
        || (after_space.is_empty() && (!closes || before_space.contains('\n')))
    {
        format!("{before}{after}")
    } else if closes || (after_space.contains('\n') && !before_space.contains('\n')) {
        format!("{}{after}", before.trim_end())
    } else {
        format!("{before}{}", after.trim_start())
    }
}

fn delete_words(text: &str, level: f64, rng: &mut Rng) -> Option<String> {
    let tokens = Tokens::split(text);
    let n = tokens.words.len();
    if n < 2 {
        return None;
    }
    let mut delete = vec![false; n];
    for i in rng.sample(n, share(level, n).min(n - 1)) {
        delete[i] = true;
    }
    let mut out = Tokens {
        seps: Vec::new(),
        words: Vec::new(),
    };
    let mut pending = tokens.seps[0].clone();
    for ((word, after), deleted) in tokens.words.iter().zip(&tokens.seps[1..]).zip(delete) {
        if deleted {
            pending = merge_separators(&pending, after, out.words.is_empty());
        } else {
            out.seps
                .push(std::mem::replace(&mut pending, after.clone()));
            out.words.push(word.clone());
        }
    }
    out.seps.push(pending);
    Some(out.join())
}

fn insert_words(text: &str, level: f64, rng: &mut Rng, pool: &WordPool) -> Option<String> {
    let tokens = Tokens::split(text);
    let n = tokens.words.len();
    if n == 0 {
        return None;
    }
    let vocabulary = lowercase_vocabulary(&tokens);
    let script = Script::dominant(text);
    // inserted[i]: words that go before word i; inserted[n]: after the last word.
    let mut inserted: Vec<Vec<String>> = vec![Vec::new(); n + 1];
    for _ in 0..share(level, n) {
        let word = pool
            .any(script, |w| vocabulary.contains(w), rng)
            .or_else(|| pool.any(script, |_| false, rng))
            .map(str::to_string)
            .unwrap_or_else(|| {
                // No pool word of the script: a made-up word of 3–8 letters.
                let like = match script {
                    Script::Other | Script::Digit => Script::Latin,
                    _ => script,
                };
                let len = rng.between(3, 8);
                (0..len)
                    .map(|_| like.random_char(rng).unwrap_or('x'))
                    .collect()
            });
        inserted[rng.below(n + 1)].push(word);
    }
    let mut out = tokens.seps[0].clone();
    for i in 0..n {
        for word in &inserted[i] {
            out.push_str(word);
            out.push(' ');
        }
        out.push_str(&tokens.words[i]);
        if i + 1 == n {
            for word in &inserted[n] {
                out.push(' ');
                out.push_str(word);
            }
        }
        out.push_str(&tokens.seps[i + 1]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::text::words;

    const TEXT: &str = "The first sentence is here. A second one follows it.\n\n\
                        Another paragraph starts. It has two sentences.\n\n\
                        Final paragraph with one sentence.";

    fn no_material() -> (WordPool, Vec<(&'static str, Script)>) {
        (WordPool::default(), Vec::new())
    }

    #[test]
    fn share_is_at_least_one_and_at_most_all() {
        assert_eq!(share(0.0, 10), 1);
        assert_eq!(share(0.1, 200), 20);
        assert_eq!(share(1.0, 7), 7);
        assert_eq!(share(0.5, 0), 0);
    }

    #[test]
    fn sentence_deletion_keeps_whole_sentences() {
        let mut rng = Rng::new(5);
        let out = delete_sentences(TEXT, 0.2, &mut rng).unwrap();
        let kept: Vec<String> = Layout::parse(&out)
            .paragraphs
            .into_iter()
            .flatten()
            .collect();
        let all: Vec<String> = Layout::parse(TEXT)
            .paragraphs
            .into_iter()
            .flatten()
            .collect();
        assert!(kept.len() < all.len() && !kept.is_empty());
        assert!(kept.iter().all(|s| all.contains(s)));
    }

    #[test]
    fn word_deletion_and_insertion_change_the_count_by_the_share() {
        let (pool, _) = no_material();
        let text = "alpha beta, gamma delta.\n\nepsilon zeta eta theta iota kappa";
        for seed in 0..20 {
            let mut rng = Rng::new(seed);
            let deleted = delete_words(text, 0.2, &mut rng).unwrap();
            assert_eq!(word_count(&deleted), 10 - 2, "{deleted:?}");
            assert!(
                !deleted.starts_with(' ') && !deleted.contains("  "),
                "{deleted:?}"
            );
            let inserted = insert_words(text, 0.3, &mut rng, &pool).unwrap();
            assert_eq!(word_count(&inserted), 10 + 3, "{inserted:?}");
        }
    }

    #[test]
    fn deleted_words_leave_one_separator() {
        assert_eq!(merge_separators(" ", ". ", false), ". ");
        assert_eq!(merge_separators(", ", " ", false), ", ");
        assert_eq!(merge_separators(" ", "\n\n", false), "\n\n");
        assert_eq!(merge_separators(".\n\n", " ", false), ".\n\n");
        assert_eq!(merge_separators(".\n\n", ". ", false), ".\n\n. ");
        assert_eq!(merge_separators("", ", ", true), ", ");
        assert_eq!(merge_separators("-", " ", false), "- ");
        assert_eq!(merge_separators(" ", "-", false), " -");
    }

    #[test]
    fn letter_replacement_changes_one_letter_per_word() {
        let text = "слово word 2024 中文字 another";
        for seed in 0..30 {
            let mut rng = Rng::new(seed);
            let out = replace_letters(text, 1.0, &mut rng).unwrap();
            for (a, b) in words(text).zip(words(&out)) {
                assert_ne!(a, b);
                assert_eq!(a.chars().count(), b.chars().count());
                assert_eq!(Script::dominant(a), Script::dominant(b), "{a} {b}");
            }
        }
    }

    #[test]
    fn reorderings_always_move_something() {
        for seed in 0..30 {
            let mut rng = Rng::new(seed);
            let out = permute_paragraphs(TEXT, &mut rng).unwrap();
            assert_ne!(out, Layout::parse(TEXT).render());
            let out = reorder_sentences(TEXT, &mut rng).unwrap();
            assert_ne!(out, Layout::parse(TEXT).render());
        }
        let mut rng = Rng::new(1);
        assert_eq!(reorder_sentences("One.\n\nTwo.\n\nThree.", &mut rng), None);
        assert_eq!(
            permute_paragraphs("Same.\n\nSame.\n\nSame.", &mut rng),
            None
        );
    }

    #[test]
    fn additions_come_from_same_script_donors() {
        let pool = WordPool::default();
        let donors = [
            ("Чужое предложение здесь. Ещё одно.", Script::Cyrillic),
            ("Foreign text here.", Script::Latin),
        ];
        let material = Material {
            pool: &pool,
            donors: &donors,
        };
        let mut rng = Rng::new(2);
        let out = apply(
            Modification::ParagraphAddition,
            0.2,
            TEXT,
            &mut rng,
            &material,
        )
        .unwrap();
        assert!(out.contains("Foreign text here."), "{out}");
        assert!(!out.contains("Чужое"));
    }

    #[test]
    fn repetition_repeats_existing_sentences() {
        let mut rng = Rng::new(9);
        let out = repeat_units(TEXT, 0.1, &mut rng).unwrap();
        assert!(word_count(&out) > word_count(TEXT));
        let all: Vec<String> = Layout::parse(TEXT)
            .paragraphs
            .into_iter()
            .flatten()
            .collect();
        assert!(
            Layout::parse(&out)
                .paragraphs
                .iter()
                .flatten()
                .all(|s| all.contains(s))
        );
    }

    #[test]
    fn noise_keeps_the_words_apart() {
        let text = "Hello, world. It's (really) fine—isn't it?\n\nYes.";
        for seed in 0..50 {
            let mut rng = Rng::new(seed);
            let out = noise(text, 0.5, &mut rng).unwrap();
            let lower = |t: &str| words(t).map(str::to_lowercase).collect::<Vec<_>>();
            assert_eq!(lower(&out), lower(text), "{out:?}");
            assert_ne!(out, text);
        }
        let mut rng = Rng::new(1);
        assert_ne!(noise("中文字", 0.1, &mut rng).unwrap(), "中文字");
    }
}
