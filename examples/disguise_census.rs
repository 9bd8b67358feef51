//! Which papers of a corpus raise a disguise flag on their own, and the sentences behind each:
//! the census of honest texts flagged that QUALITY.md ("Disguised copies") reports.
//!
//! ```sh
//! cargo run --example disguise_census -- ../shared/corpus/ru_sci_480.jsonl.gz [field]
//! ```
//!
//! Reads a gzipped JSON Lines corpus, analyzes each document's `text` (or `field`) as a check
//! does, and prints every document whose `flags` would not be empty, with its flags and each
//! sentence that shows a disguise when analyzed alone. The last line (standard error) counts
//! the texts read.

use std::io::BufRead;

use dupfinder::analysis::{TextLimits, analyze_text};
use dupfinder::check::Flag;
use dupfinder::index::default_analyzer;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: disguise_census CORPUS.jsonl.gz [FIELD]");
    let field = args.next().unwrap_or_else(|| "text".to_string());
    let analyzer = default_analyzer();
    let limits = TextLimits {
        max_bytes: 10_000_000,
        min_words: 1,
    };
    let file = std::fs::File::open(&path).expect("the corpus file");
    let reader = std::io::BufReader::new(flate2::read::GzDecoder::new(file));
    let (mut texts, mut flagged) = (0, 0);
    for line in reader.lines() {
        let document: serde_json::Value =
            serde_json::from_str(&line.expect("a line")).expect("a JSON line");
        let Some(text) = document[&field].as_str() else {
            continue;
        };
        let Ok(analyzed) = analyze_text(&analyzer, text, None, limits) else {
            continue;
        };
        texts += 1;
        let flags = Flag::of(&analyzed.disguises, analyzed.words);
        if flags.is_empty() {
            continue;
        }
        flagged += 1;
        let kinds: Vec<String> = flags
            .iter()
            .map(|f| format!("{}={}", f.kind, f.count))
            .collect();
        println!("== {} {kinds:?} words={}", document["id"], analyzed.words);
        for sentence in text.split_inclusive(['.', '\n']) {
            let Ok(alone) = analyze_text(&analyzer, sentence, None, limits) else {
                continue;
            };
            if !alone.disguises.is_empty() {
                let shown: String = sentence.trim().chars().take(300).collect();
                println!("   {:?}: {shown}", alone.disguises);
            }
        }
    }
    eprintln!("{texts} texts, {flagged} flagged");
}
