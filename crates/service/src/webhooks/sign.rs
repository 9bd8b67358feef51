//! The signature a receiver checks: `X-Dupfinder-Signature: sha256=<hex>`, the HMAC-SHA256 of
//! the raw request body with the webhook's secret. The body holds the event's `id` and
//! `created` time, so both are signed: a receiver refuses an event whose `created` is older
//! than it accepts (a replay) and de-duplicates by `id` (delivery is at least once).
//! `X-Dupfinder-Timestamp` repeats `created` for receivers that check the age before parsing.

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The header carrying the signature.
pub const SIGNATURE_HEADER: &str = "X-Dupfinder-Signature";
/// The header repeating the signed `created` time (seconds since the Unix epoch).
pub const TIMESTAMP_HEADER: &str = "X-Dupfinder-Timestamp";

fn mac(secret: &str) -> Hmac<Sha256> {
    Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes a key of any length")
}

/// `sha256=<hex HMAC-SHA256 of body with secret>`.
pub fn signature(secret: &str, body: &[u8]) -> String {
    let mut mac = mac(secret);
    mac.update(body);
    let bytes = mac.finalize().into_bytes();
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256={hex}")
}

/// Whether `header` is the signature of `body` with `secret` (compared in constant time).
pub fn verify(secret: &str, body: &[u8], header: &str) -> bool {
    let Some(hex) = header.trim().strip_prefix("sha256=") else {
        return false;
    };
    let Some(expected) = decode_hex(hex) else {
        return false;
    };
    let mut mac = mac(secret);
    mac.update(body);
    mac.verify_slice(&expected).is_ok()
}

fn decode_hex(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_verifies_and_any_change_breaks_it() {
        // RFC 4231, test case 2.
        assert_eq!(
            signature("Jefe", b"what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        let body = br#"{"id":"evt_1","event":"report.completed"}"#;
        let header = signature("a secret of the portal", body);
        assert!(verify("a secret of the portal", body, &header));
        assert!(!verify("another secret", body, &header));
        assert!(!verify("a secret of the portal", b"{}", &header));
        assert!(!verify("a secret of the portal", body, "sha256=zz"));
        assert!(!verify("a secret of the portal", body, &header[7..]));
    }
}
