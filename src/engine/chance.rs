//! The one source of randomness: a ChaCha20 keystream read through an unbiased index
//! sampler. docs/FAIRNESS.md describes it byte by byte; golden vectors in the tests pin
//! it, because an audit years from now must reproduce today's draws.

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

use super::rules::{Chance, Visibility};

/// A stream of draws from a 32-byte key.
///
/// The bytes are the ChaCha20 keystream (20 rounds, 64-bit block counter from 0, 64-bit
/// nonce 0), read as little-endian `u32` words; [`index_from_stream`] turns words into
/// indices without bias.
pub struct DrawStream {
    rng: ChaCha20Rng,
}

impl DrawStream {
    /// A stream keyed by `key`. Derive the key with the domain-separated HMAC of
    /// docs/FAIRNESS.md; never use a seed directly.
    pub fn new(key: [u8; 32]) -> Self {
        DrawStream {
            rng: ChaCha20Rng::from_seed(key),
        }
    }

    /// A stream for tests and benchmarks, keyed by a small number.
    pub fn for_testing(seed: u64) -> Self {
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&seed.to_le_bytes());
        DrawStream::new(key)
    }

    /// The next keystream word.
    pub fn next_word(&mut self) -> u32 {
        let mut word = [0u8; 4];
        self.rng.fill_bytes(&mut word);
        u32::from_le_bytes(word)
    }

    /// XORs the next keystream bytes into `bytes` (the sealing of a move).
    pub fn apply_keystream(&mut self, bytes: &mut [u8]) {
        let mut keystream = vec![0u8; bytes.len()];
        self.rng.fill_bytes(&mut keystream);
        for (byte, key) in bytes.iter_mut().zip(keystream) {
            *byte ^= key;
        }
    }

    /// A uniform index in `0..n`.
    ///
    /// # Panics
    /// When `n` is 0: no index exists, and asking for one is a bug in the caller.
    pub fn index(&mut self, n: u32) -> u32 {
        index_from_stream(n, || self.next_word())
    }
}

impl Chance for DrawStream {
    fn draw(&mut self, n: u32, _visibility: Visibility) -> u32 {
        self.index(n)
    }
}

/// Rejection sampling: words at or above the largest multiple of `n` below 2^32 are
/// skipped, so every index in `0..n` is exactly equally likely.
///
/// # Panics
/// When `n` is 0.
pub fn index_from_stream(n: u32, mut next_word: impl FnMut() -> u32) -> u32 {
    assert!(n > 0, "a draw needs at least one outcome");
    let n64 = u64::from(n);
    // The count of acceptable words: the largest multiple of n not above 2^32.
    let limit = (1u64 << 32) - (1u64 << 32) % n64;
    loop {
        let word = u64::from(next_word());
        if word < limit {
            return (word % n64) as u32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampler_skips_the_biased_tail() {
        // With n = 3, limit = 2^32 - 1 (4294967295 % 3 == 0 after subtracting 1): the
        // word u32::MAX is rejected and the next word decides.
        let mut words = [u32::MAX, 7].into_iter();
        assert_eq!(index_from_stream(3, || words.next().unwrap()), 1);
    }

    #[test]
    fn sampler_covers_every_index() {
        let mut stream = DrawStream::for_testing(1);
        let mut seen = [0u32; 7];
        for _ in 0..7000 {
            seen[stream.index(7) as usize] += 1;
        }
        assert!(
            seen.iter().all(|&count| count > 850 && count < 1150),
            "{seen:?}"
        );
    }
}
