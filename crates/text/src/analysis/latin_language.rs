//! The language of a text's Latin-script words, which chooses their stemmer and stop words:
//! English when English stop words abound, else what `whatlang` reliably finds.

use super::analyzer::Analyzer;
use super::language::{Language, Script};
use super::words::Word;

/// How many of a text's first Latin-script words are checked against the English stop words
/// before `whatlang` is asked, and how many must at least be there for the check to count.
const ENGLISH_CHECK_WORDS: usize = 100;
const ENGLISH_CHECK_MIN_WORDS: usize = 20;

/// The share of English stop words (in percent) that makes a text English without asking
/// `whatlang`.
///
/// Function words make up 30 to 50 % of English prose, while in the other Latin-script
/// languages the English stop words that happen to be words too (`in`, `a`, `do`, `i`, `at`)
/// add up to 0 to 20 %. On the 58,959 ACL abstracts, 89 % of the English ones pass the
/// threshold; of the documents that `whatlang` alone calls non-English, 9 do, and 8 of those
/// are English abstracts that `whatlang` mistook for French or Spanish. The check costs about
/// a microsecond, where `whatlang` costs 30 to 40, which would otherwise be half of the time
/// spent on an abstract.
const ENGLISH_STOP_WORD_PERCENT: usize = 30;

/// Bytes of normalized Latin-script words given to `whatlang` in a first attempt.
///
/// `whatlang` costs about 15 µs plus 60 µs per kilobyte. A few dozen words identify a language
/// reliably in most documents, so a short sample is tried first and the long one only when the
/// short one is not conclusive. On the ACL abstracts, 98 % of the documents are decided by the
/// short sample, and the decision differs from the long sample's in 13 of 58,959; shorter
/// samples mistake more English abstracts for French.
const QUICK_SAMPLE_BYTES: usize = 200;

/// The most bytes of normalized Latin-script words that `whatlang` looks at (rounded up to the
/// end of a word).
const FULL_SAMPLE_BYTES: usize = 4000;

impl Analyzer {
    /// Detects the language of the Latin-script words among `words`: English when English
    /// stop words abound, else what `whatlang` reliably finds, else nothing.
    pub(super) fn detect_latin(&self, words: &[Word], normalized: &str) -> Option<Language> {
        // The sample is built from normalized words, so that detection, like everything else,
        // does not depend on case, spacing or punctuation.
        let mut latin_words = words
            .iter()
            .filter(|word| word.script == Script::Latin)
            .map(|word| &normalized[word.norm_start..word.norm_end])
            .peekable();
        if self.is_clearly_english(latin_words.clone()) {
            return Some(Language::English);
        }
        let mut sample = String::with_capacity(QUICK_SAMPLE_BYTES + 32);
        extend_sample(&mut sample, &mut latin_words, QUICK_SAMPLE_BYTES);
        if let Some(language) = self.detect_reliably(&sample) {
            return Some(language);
        }
        // When the quick sample already held every Latin-script word, a second look at the
        // same text cannot be more reliable.
        latin_words.peek()?;
        extend_sample(&mut sample, &mut latin_words, FULL_SAMPLE_BYTES);
        self.detect_reliably(&sample)
    }

    /// Whether English stop words make up so much of the first Latin-script `words` that the
    /// text is English without doubt. Without English stop words this is never the case.
    pub(super) fn is_clearly_english<'a>(&self, words: impl Iterator<Item = &'a str>) -> bool {
        if !self.shared.stop_words.has_language(Language::English) {
            return false;
        }
        let (mut checked, mut stop) = (0, 0);
        for word in words.take(ENGLISH_CHECK_WORDS) {
            checked += 1;
            stop += usize::from(self.is_stop_word(Language::English, word));
        }
        checked >= ENGLISH_CHECK_MIN_WORDS && stop * 100 >= checked * ENGLISH_STOP_WORD_PERCENT
    }

    fn detect_reliably(&self, sample: &str) -> Option<Language> {
        self.shared
            .detector
            .detect(sample)
            .filter(whatlang::Info::is_reliable)
            .and_then(|info| Language::from_whatlang(info.lang()))
    }
}

/// Appends words to `sample`, each followed by a space, until it holds at least `bytes` bytes
/// or the words run out.
fn extend_sample<'a>(sample: &mut String, words: &mut impl Iterator<Item = &'a str>, bytes: usize) {
    while sample.len() < bytes {
        let Some(word) = words.next() else {
            return;
        };
        sample.push_str(word);
        sample.push(' ');
    }
}

#[cfg(test)]
mod tests {
    use super::super::stopwords::StopWords;
    use super::super::test_support::{analyzer, terms};
    use super::*;

    #[test]
    fn french_abstract_gives_content_stems_without_function_words() {
        let text = "Nous proposons une nouvelle méthode pour la détection des documents \
                    presque identiques dans les grandes collections scientifiques. Les \
                    signatures sont calculées à partir des mots les plus significatifs, et \
                    nous montrons que cette approche reste robuste lorsque le texte est \
                    légèrement modifié par les auteurs.";
        let analyzed = analyzer().analyze(text, None);
        assert_eq!(analyzed.language, Language::French);
        let terms = terms(&analyzed);
        for function_word in ["des", "les", "une", "nous", "pour", "dans", "dan", "la"] {
            assert!(
                !terms.contains(&function_word),
                "{function_word} in {terms:?}"
            );
        }
        for stem in [
            "proposon", "nouvel", "méthod", "détect", "docu", "scientif", "signatur",
        ] {
            assert!(terms.contains(&stem), "{stem} missing from {terms:?}");
        }
    }

    #[test]
    fn confident_detection_overrides_a_wrong_label() {
        // Real collections label French abstracts as English; analyzed as English they would
        // be signed by their function words, and a check without the label would differ.
        let text = "De nombreuses méthodes ont été proposées pour accélérer la prédiction \
                    d'objets structurés, ou pour permettre la prise en compte de dépendances \
                    plus riches afin d'améliorer les performances de la prédiction.";
        let labelled = analyzer().analyze(text, Some(Language::English));
        let unlabelled = analyzer().analyze(text, None);
        assert_eq!(labelled.language, Language::French);
        assert_eq!(terms(&labelled), terms(&unlabelled));
    }

    #[test]
    fn unreliable_detection_falls_back_to_english() {
        let analyzed = analyzer().analyze("Running", None);
        assert_eq!(analyzed.language, Language::English);
        assert_eq!(terms(&analyzed), ["run"]);
    }

    /// A realistic English stop list (the common function words), for the tests where the
    /// English stop-word check must not mistake other languages for English.
    const FULL_ENGLISH_STOP: &str = "a about above after again against all am an and any are as
        at be because been before being below between both but by can did do does doing down
        during each few for from further had has have having he her here hers herself him
        himself his how i if in into is it its itself me more most my myself no nor not now of
        off on once only or other our ours ourselves out over own same she should so some such
        than that the their theirs them themselves then there these they this those through to
        too under until up very was we were what when where which while who whom why will with
        would you your yours yourself yourselves";

    #[test]
    fn other_latin_languages_are_not_taken_for_english() {
        let english = FULL_ENGLISH_STOP
            .split_whitespace()
            .collect::<Vec<_>>()
            .join("\n");
        let analyzer = Analyzer::new(StopWords::from_lists([(Language::English, &*english)]));
        // The languages where English stop words are most common, with a share of 4 to 18 %.
        let texts = [
            (
                Language::German,
                "In dieser Arbeit stellen wir ein Verfahren zur Erkennung von nahezu identischen Dokumenten in großen wissenschaftlichen Bibliotheken vor. Das Verfahren berechnet für jedes Dokument eine Signatur aus den seltensten Wörtern und vergleicht sie mit den Signaturen im Index. Die Ergebnisse zeigen, dass die Methode auch dann funktioniert, wenn einzelne Sätze umgestellt oder Wörter ersetzt wurden.",
            ),
            (
                Language::Dutch,
                "In dit artikel beschrijven we een methode om bijna identieke documenten in grote wetenschappelijke bibliotheken te vinden. Voor elk document wordt een handtekening berekend uit de zeldzaamste woorden, en deze wordt vergeleken met de handtekeningen in de index. De resultaten laten zien dat de methode ook werkt als zinnen zijn verplaatst of als er woorden zijn vervangen, en dat het over het algemeen snel is.",
            ),
            (
                Language::Italian,
                "In questo lavoro presentiamo un metodo per individuare documenti quasi identici in grandi biblioteche scientifiche. Per ogni documento si calcola una firma a partire dalle parole meno frequenti, che viene poi confrontata con le firme presenti nell'indice. I risultati mostrano che il metodo funziona anche quando le frasi vengono riordinate o alcune parole vengono sostituite.",
            ),
            (
                Language::Portuguese,
                "Neste trabalho apresentamos um método para a detecção de documentos quase idênticos em grandes bibliotecas científicas. Para cada documento calcula-se uma assinatura a partir das palavras mais raras do texto, que é comparada com as assinaturas do índice. Os resultados mostram que o método funciona também quando as frases do documento são reordenadas ou quando algumas palavras são substituídas.",
            ),
            (
                Language::Danish,
                "I denne artikel præsenterer vi en metode til at finde næsten identiske dokumenter i store videnskabelige biblioteker. For hvert dokument beregnes en signatur ud fra de sjældneste ord, og den sammenlignes med signaturerne i indekset. Resultaterne viser at metoden også virker, når sætninger er flyttet, eller når ord er blevet erstattet med andre ord i teksten.",
            ),
            (
                Language::Hungarian,
                "Ebben a cikkben egy módszert mutatunk be a majdnem azonos dokumentumok felismerésére a nagy tudományos könyvtárakban. Minden dokumentumhoz a legritkább szavakból számítunk egy aláírást, és ezt összehasonlítjuk az index aláírásaival. Az eredmények azt mutatják, hogy a módszer akkor is működik, ha a mondatokat átrendezik, vagy a szavakat másokra cserélik.",
            ),
        ];
        for (expected, text) in texts {
            assert_eq!(analyzer.analyze(text, None).language, expected, "{text}");
        }
    }

    #[test]
    fn english_stop_words_decide_english_without_whatlang() {
        let english = FULL_ENGLISH_STOP
            .split_whitespace()
            .collect::<Vec<_>>()
            .join("\n");
        let analyzer = Analyzer::new(StopWords::from_lists([(Language::English, &*english)]));
        let words = |text: &'static str| text.split(' ');
        // 11 stop words among 20 words: 55 %.
        let english_like = "we show that the method is robust and that it finds most of the copies in large scientific libraries quickly";
        assert!(analyzer.is_clearly_english(words(english_like)));
        // The same share among fewer than 20 words proves nothing.
        assert!(!analyzer.is_clearly_english(words("we show that the method is robust")));
        let dutch = "we tonen aan dat de methode robuust is en dat zij de meeste kopieen in grote wetenschappelijke bibliotheken snel vindt";
        assert!(!analyzer.is_clearly_english(words(dutch)));
        // Without English stop words the check never decides.
        assert!(!Analyzer::new(StopWords::default()).is_clearly_english(words(english_like)));
    }
}
