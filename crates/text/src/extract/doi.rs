//! Digital Object Identifiers as libraries and journal pages write them (`10.1234/x`,
//! `doi:10.1234/x`, `https://doi.org/10.1234/x`, `DOI 10.1234/X`), reduced to one form so that
//! the same article is stored and compared under one DOI.

/// The DOI in `value`, normalized to `10.<registrant>/<suffix>` with ASCII letters in lower case
/// (DOIs are case-insensitive), or `None` when `value` holds no DOI. A resolver address is
/// percent-decoded; what precedes the DOI must be a resolver, a `doi:` label or nothing, so an
/// ISBN URN or a page address that happens to contain `10.` is not taken for one.
pub fn normalize_doi(value: &str) -> Option<String> {
    let value = value.trim();
    let at = value.find("10.")?;
    let (prefix, doi) = value.split_at(at);
    if !is_doi_label(prefix) {
        return None;
    }
    let decoded;
    let doi = if prefix.contains("doi.org/") {
        decoded = percent_encoding::percent_decode_str(doi)
            .decode_utf8()
            .ok()?;
        decoded.as_ref()
    } else {
        doi
    };
    let (registrant, suffix) = doi.split_once('/')?;
    let registrant_ok = registrant.len() > 3
        && registrant[3..]
            .split('.')
            .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()));
    let suffix = suffix.trim_end_matches(['.', ',', ';']);
    let suffix_ok = !suffix.is_empty()
        && suffix.len() <= 500
        && !suffix.chars().any(|c| c.is_whitespace() || c.is_control());
    (registrant_ok && suffix_ok).then(|| format!("{registrant}/{suffix}").to_ascii_lowercase())
}

/// Whether `prefix` (what comes before `10.`) names a DOI: nothing, a `doi:` or `DOI` label, or
/// a doi.org resolver address.
fn is_doi_label(prefix: &str) -> bool {
    let prefix = prefix.trim().to_ascii_lowercase();
    prefix.is_empty()
        || prefix == "doi:"
        || prefix == "doi"
        || prefix == "info:doi/"
        || ["https://", "http://", ""].iter().any(|scheme| {
            ["doi.org/", "dx.doi.org/", "www.doi.org/"]
                .iter()
                .any(|host| prefix == format!("{scheme}{host}"))
        })
}

#[cfg(test)]
mod tests {
    use super::normalize_doi;

    #[test]
    fn every_usual_spelling_gives_one_doi() {
        for spelling in [
            "10.1000/XYZ.5",
            " doi:10.1000/xyz.5 ",
            "DOI 10.1000/xyz.5",
            "https://doi.org/10.1000/xyz.5",
            "http://dx.doi.org/10.1000%2Fxyz.5",
            "info:doi/10.1000/xyz.5",
            "10.1000/xyz.5.",
        ] {
            assert_eq!(
                normalize_doi(spelling).as_deref(),
                Some("10.1000/xyz.5"),
                "{spelling}"
            );
        }
        assert_eq!(
            normalize_doi("10.18287/2223-9537-2019-9-1-34-44").as_deref(),
            Some("10.18287/2223-9537-2019-9-1-34-44")
        );
    }

    #[test]
    fn what_is_not_a_doi_is_refused() {
        for value in [
            "",
            "urn:isbn:10.5/x",
            "https://example.org/10.1000/x",
            "10.1000",
            "10.1000/",
            "10.ab/x",
            "10.1000/a b",
            "11.1000/x",
        ] {
            assert_eq!(normalize_doi(value), None, "{value}");
        }
    }
}
