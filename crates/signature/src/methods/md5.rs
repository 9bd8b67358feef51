//! A0 MD5: the exact-duplicate baseline. The paper hashes "the whole document" after its
//! preprocessing (markup, stop words, short words, punctuation and extra spaces removed); ours is
//! the analyzed terms joined by single spaces, so case, punctuation and homoglyphs do not count.

use md5::{Digest, Md5};

use super::MethodDoc;

/// The first 64 bits of the MD5 of the document's terms, or `None` for an empty document.
pub fn md5_key(doc: &MethodDoc) -> Option<u64> {
    if doc.terms.is_empty() {
        return None;
    }
    let mut hasher = Md5::new();
    for (i, term) in doc.terms.iter().enumerate() {
        if i > 0 {
            hasher.update(b" ");
        }
        hasher.update(term.as_bytes());
    }
    let digest = hasher.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    Some(u64::from_be_bytes(first))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md5_of_the_terms_by_hand() {
        // MD5("apple banana") = 75eec21663f433bdb2522287efc97c82 (printed by `md5sum`); the
        // key is its first eight bytes.
        let doc = MethodDoc::from_sentences(&["apple", "banana"]);
        assert_eq!(md5_key(&doc), Some(0x75ee_c216_63f4_33bd));
        // The sentence split does not matter, the words do.
        assert_eq!(
            md5_key(&MethodDoc::from_sentences(&["apple banana"])),
            md5_key(&doc)
        );
        assert_ne!(
            md5_key(&MethodDoc::from_sentences(&["banana apple"])),
            md5_key(&doc)
        );
        assert_eq!(md5_key(&MethodDoc::default()), None);
    }
}
