//! A document already in a library checked against that library: the same candidate gathering
//! and verification as a check, through one read view, with the document itself left out. The
//! dedup job and the check of an arriving document go through here.

use super::ExcludeRequest;
use super::gather::gather;
use super::verify::{Query, distinct_without, for_each_read, token_spans, verify};
use super::{CheckError, Checker, MatchReport};
use dupfinder_storage::ReadView;
use dupfinder_storage::index::DocKey;
use dupfinder_text::analysis::{DocumentError, Language, analyze_text};
use dupfinder_text::structure::Structure;

/// What a stored document matches in its own library.
#[derive(Debug, Clone)]
pub struct StoredCheck {
    /// The checked document's id.
    pub doc_id: String,
    /// The checked document's title, if it has one.
    pub title: Option<String>,
    /// Every verified match but the document itself, the strongest first.
    pub matches: Vec<MatchReport>,
}

/// Checks the document `key` of `view` against the rest of `library` as `view` sees it;
/// `None` when the document is not live in the view.
pub fn check_stored(
    checker: &Checker,
    library: &str,
    view: &dyn ReadView,
    key: DocKey,
) -> Result<Option<StoredCheck>, CheckError> {
    let Some(document) = view.stored(key)? else {
        return Ok(None);
    };
    // The stored text passed these limits when it was ingested; analyzing it again gives the
    // query exactly what a check of the same text would see.
    let analyzed = analyze_text(
        checker.analyzer,
        &document.text,
        Language::from_code(&document.meta.lang),
        checker.text_limits,
    )
    .map_err(DocumentError::from)?;
    let config = checker.config;
    let gathered = gather(view, &analyzed, config, false)?;
    let structure = Structure::detect(&document.text);
    let token_chars = token_spans(&document.text, &analyzed.tokens);
    // The configured exclusions, but boilerplate: inside a library, a text held by several
    // documents is what deduplication looks for, not the library's template.
    let exclusions = ExcludeRequest {
        boilerplate: Some(false),
        ..ExcludeRequest::default()
    }
    .resolve(config);
    let query = Query {
        analyzed: &analyzed,
        text: &document.text,
        distinct: distinct_without(&analyzed.shingles, &gathered.frequent),
        frequent: &gathered.frequent,
        selection: gathered.selection,
        selected: &gathered.selected,
        looked_up: &gathered.looked_up,
        sampled: gathered.usable,
        structure: &structure,
        token_chars: &token_chars,
        exclusions: &exclusions,
        analyzer: checker.analyzer,
        doc_freq: &gathered.doc_freq,
        // Duplicates inside a library count boilerplate (see above), phrases included.
        phrases: &[],
        works: Default::default(),
        aligner: Default::default(),
    };
    let mut matches = Vec::new();
    let others = gathered.candidates.into_iter().filter(|(k, _)| *k != key);
    for_each_read(
        view,
        others,
        &query,
        config,
        false,
        |_, candidate, stored| {
            if let Some((stored, Some(scored))) = stored {
                matches.extend(
                    verify(
                        view, library, candidate, stored, scored, &query, config, false,
                    )?
                    .map(|(r, _)| r),
                );
            }
            Ok::<_, CheckError>(())
        },
    )?;
    matches.sort_by(|a, b| {
        b.verdict
            .cmp(&a.verdict)
            .then(b.similarity().total_cmp(&a.similarity()))
            .then_with(|| a.doc_id.cmp(&b.doc_id))
    });
    Ok(Some(StoredCheck {
        doc_id: document.meta.doc_id,
        title: document.meta.title,
        matches,
    }))
}
