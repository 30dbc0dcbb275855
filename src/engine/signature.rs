//! Signatures as the game file stores them: base64 of Ed25519 signatures over record
//! and genesis hashes, made with the referee's key and checked in one batch.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};

use crate::basics::digest::Hash;

pub(crate) fn sign(key: &SigningKey, hash: &Hash) -> String {
    BASE64.encode(key.sign(hash).to_bytes())
}

/// A signature as the game file stores it (base64 of 64 bytes), if it is one.
fn decode_signature(text: &str) -> Option<Signature> {
    let bytes = BASE64.decode(text).ok()?;
    Some(Signature::from_bytes(&<[u8; 64]>::try_from(bytes).ok()?))
}

fn signature_holds(key: &VerifyingKey, hash: &Hash, signature: &str) -> bool {
    decode_signature(signature).is_some_and(|signature| key.verify_strict(hash, &signature).is_ok())
}

/// Whether each signature by `key` holds over its hash, in order.
///
/// They are checked in one batch first (ed25519-dalek's batch verification, with
/// coefficients drawn from a transcript of every input), which takes well under half
/// the time of checking them one by one, and signatures are most of an audit's work.
/// Only when the batch fails is each checked alone, strictly, to name the ones that do
/// not hold. A batch passes exactly when every signature was made with the key over its
/// hash (a forgery or a changed byte gets through with probability about 2^-128); it
/// differs from strict one-by-one checking only for signatures the key's holder built
/// with a small-order component on purpose, which prove nothing more than ordinary ones.
pub(crate) fn signatures_hold(key: &VerifyingKey, signed: &[(Hash, &str)]) -> Vec<bool> {
    let decoded: Option<Vec<Signature>> = signed
        .iter()
        .map(|(_, text)| decode_signature(text))
        .collect();
    if let Some(signatures) = decoded.filter(|_| !key.is_weak()) {
        let messages: Vec<&[u8]> = signed.iter().map(|(hash, _)| hash.as_slice()).collect();
        let keys = vec![*key; signed.len()];
        if ed25519_dalek::verify_batch(&messages, &signatures, &keys).is_ok() {
            return vec![true; signed.len()];
        }
    }
    signed
        .iter()
        .map(|(hash, text)| signature_holds(key, hash, text))
        .collect()
}

#[cfg(test)]
mod tests {
    use base64::engine::general_purpose::STANDARD as BASE64;
    use base64::Engine as _;
    use ed25519_dalek::{Signer, SigningKey};

    use super::*;

    fn signed_hashes(key: &SigningKey, count: u8) -> Vec<(Hash, String)> {
        (0..count)
            .map(|n| {
                let hash = [n; 32];
                (hash, BASE64.encode(key.sign(&hash).to_bytes()))
            })
            .collect()
    }

    fn check(key: &SigningKey, signed: &[(Hash, String)]) -> Vec<bool> {
        let borrowed: Vec<(Hash, &str)> = signed.iter().map(|(h, s)| (*h, s.as_str())).collect();
        signatures_hold(&key.verifying_key(), &borrowed)
    }

    #[test]
    fn a_batch_of_good_signatures_holds() {
        let key = SigningKey::from_bytes(&[7; 32]);
        assert_eq!(check(&key, &signed_hashes(&key, 40)), vec![true; 40]);
    }

    #[test]
    fn a_failed_batch_names_exactly_the_signatures_that_do_not_hold() {
        let key = SigningKey::from_bytes(&[7; 32]);
        let mut signed = signed_hashes(&key, 40);
        // A signature over another hash, a changed hash, and text that is no signature.
        let other_signature = signed[4].1.clone();
        signed[3].1 = other_signature;
        signed[17].0[0] ^= 1;
        signed[29].1 = "not base64".into();
        let holds = check(&key, &signed);
        let failed: Vec<usize> = (0..40).filter(|&i| !holds[i]).collect();
        assert_eq!(failed, vec![3, 17, 29]);
        // Signatures by another key do not hold either.
        let other = SigningKey::from_bytes(&[8; 32]);
        assert_eq!(check(&key, &signed_hashes(&other, 5)), vec![false; 5]);
    }
}
