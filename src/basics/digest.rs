//! Hashing with domain separation and unambiguous field encoding.
//!
//! Every hash pbem computes starts with a length-prefixed domain string and then feeds
//! fixed-width integers (big-endian) and length-prefixed byte strings, so no two
//! different inputs can encode to the same bytes. docs/FAIRNESS.md lists each use.

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

/// A SHA-256 output.
pub type Hash = [u8; 32];

/// Feeds fields into SHA-256 or HMAC-SHA-256 in the documented encoding.
pub struct Fields<D> {
    inner: D,
}

/// The byte sink behind [`Fields`]: plain SHA-256 or a keyed HMAC.
pub trait Sink {
    fn feed(&mut self, bytes: &[u8]);
}

impl Sink for Sha256 {
    fn feed(&mut self, bytes: &[u8]) {
        Digest::update(self, bytes);
    }
}

impl Sink for Hmac<Sha256> {
    fn feed(&mut self, bytes: &[u8]) {
        Mac::update(self, bytes);
    }
}

impl<D: Sink> Fields<D> {
    /// A `u32` length, big-endian, then the bytes.
    pub fn bytes(mut self, bytes: &[u8]) -> Self {
        let len = u32::try_from(bytes.len()).expect("no field of a game file reaches 4 GiB");
        self.inner.feed(&len.to_be_bytes());
        self.inner.feed(bytes);
        self
    }

    /// A length-prefixed UTF-8 string.
    pub fn text(self, text: &str) -> Self {
        self.bytes(text.as_bytes())
    }

    /// Exactly 32 bytes, no prefix (hashes, keys).
    pub fn fixed(mut self, bytes: &[u8; 32]) -> Self {
        self.inner.feed(bytes);
        self
    }

    pub fn u64(mut self, value: u64) -> Self {
        self.inner.feed(&value.to_be_bytes());
        self
    }

    pub fn u32(mut self, value: u32) -> Self {
        self.inner.feed(&value.to_be_bytes());
        self
    }

    pub fn u8(mut self, value: u8) -> Self {
        self.inner.feed(&[value]);
        self
    }
}

impl Fields<Sha256> {
    /// SHA-256 over `domain` (length-prefixed) and the fields that follow.
    pub fn hash(domain: &str) -> Self {
        Fields {
            inner: Sha256::new(),
        }
        .text(domain)
    }

    pub fn finish(self) -> Hash {
        self.inner.finalize().into()
    }
}

impl Fields<Hmac<Sha256>> {
    /// HMAC-SHA-256 keyed by `key` over `domain` (length-prefixed) and the fields that follow.
    pub fn keyed(key: &[u8; 32], domain: &str) -> Self {
        Fields {
            inner: <Hmac<Sha256> as Mac>::new_from_slice(key)
                .expect("HMAC takes a key of any length"),
        }
        .text(domain)
    }

    pub fn finish(self) -> Hash {
        self.inner.finalize().into_bytes().into()
    }
}

/// Plain SHA-256 of some bytes (the rules data).
pub fn sha256(bytes: &[u8]) -> Hash {
    Sha256::digest(bytes).into()
}

/// Lowercase hexadecimal.
pub fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(DIGITS[usize::from(byte >> 4)] as char);
        out.push(DIGITS[usize::from(byte & 15)] as char);
    }
    out
}

/// Parses exactly 64 lowercase hexadecimal digits into 32 bytes: the one way every
/// hex field of a game file is read, by every command and in every format, so that no
/// command accepts a file another refuses (pbem has only ever written lowercase).
pub fn hash_from_hex(text: &str) -> Option<Hash> {
    let text = text.as_bytes();
    if text.len() != 64 || !text.iter().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return None;
    }
    hash_from_any_hex(std::str::from_utf8(text).ok()?)
}

/// Parses exactly 64 hexadecimal digits in either case: for what people type and the
/// keyring's own files, never for a field of a game file.
pub fn hash_from_any_hex(text: &str) -> Option<Hash> {
    let text = text.as_bytes();
    if text.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, pair) in text.chunks_exact(2).enumerate() {
        let high = (pair[0] as char).to_digit(16)?;
        let low = (pair[1] as char).to_digit(16)?;
        out[i] = (high * 16 + low) as u8;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips() {
        let bytes: Hash = core::array::from_fn(|i| (i * 37) as u8);
        assert_eq!(hash_from_hex(&to_hex(&bytes)), Some(bytes));
        assert_eq!(hash_from_hex(&to_hex(&bytes).to_uppercase()), None);
        assert_eq!(
            hash_from_any_hex(&to_hex(&bytes).to_uppercase()),
            Some(bytes)
        );
        assert_eq!(hash_from_hex("00"), None);
        assert_eq!(hash_from_hex(&"zz".repeat(32)), None);
    }

    #[test]
    fn fields_are_length_prefixed() {
        // "ab" + "c" and "a" + "bc" must not collide.
        let one = Fields::hash("t").text("ab").text("c").finish();
        let two = Fields::hash("t").text("a").text("bc").finish();
        assert_ne!(one, two);
    }
}
