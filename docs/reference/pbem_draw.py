#!/usr/bin/env python3
"""A second, independent implementation of pbem-draw/1 (docs/FAIRNESS.md).

Standard library only. Prints the golden vectors that tests/it/fairness.rs pins, so the
specification is checked against code that shares nothing with pbem's.
"""
import hashlib
import hmac
import struct


def field_str(s):
    b = s.encode() if isinstance(s, str) else s
    return struct.pack(">I", len(b)) + b


def H(domain, *fields):
    return hashlib.sha256(field_str(domain) + b"".join(fields)).digest()


def HMAC(key, domain, *fields):
    return hmac.new(key, field_str(domain) + b"".join(fields), hashlib.sha256).digest()


def u64(n):
    return struct.pack(">Q", n)


def u32(n):
    return struct.pack(">I", n)


def chacha20_words(key):
    """The ChaCha20 keystream (64-bit counter from 0, 64-bit nonce 0) as LE u32 words."""
    def rotl(v, c):
        return ((v << c) & 0xFFFFFFFF) | (v >> (32 - c))

    def quarter(x, a, b, c, d):
        x[a] = (x[a] + x[b]) & 0xFFFFFFFF; x[d] = rotl(x[d] ^ x[a], 16)
        x[c] = (x[c] + x[d]) & 0xFFFFFFFF; x[b] = rotl(x[b] ^ x[c], 12)
        x[a] = (x[a] + x[b]) & 0xFFFFFFFF; x[d] = rotl(x[d] ^ x[a], 8)
        x[c] = (x[c] + x[d]) & 0xFFFFFFFF; x[b] = rotl(x[b] ^ x[c], 7)

    constants = struct.unpack("<4I", b"expand 32-byte k")
    key_words = struct.unpack("<8I", key)
    counter = 0
    while True:
        state = list(constants) + list(key_words) + [counter & 0xFFFFFFFF, counter >> 32, 0, 0]
        x = state[:]
        for _ in range(10):
            quarter(x, 0, 4, 8, 12); quarter(x, 1, 5, 9, 13)
            quarter(x, 2, 6, 10, 14); quarter(x, 3, 7, 11, 15)
            quarter(x, 0, 5, 10, 15); quarter(x, 1, 6, 11, 12)
            quarter(x, 2, 7, 8, 13); quarter(x, 3, 4, 9, 14)
        for i in range(16):
            yield (x[i] + state[i]) & 0xFFFFFFFF
        counter += 1


def index(words, n):
    limit = 2**32 - (2**32 % n)
    while True:
        w = next(words)
        if w < limit:
            return w % n


if __name__ == "__main__":
    zero = chacha20_words(bytes(32))
    print(" ".join("%08x" % next(zero) for _ in range(4)))
    words = chacha20_words(bytes([7] * 32))
    print([index(words, n) for n in (61, 54, 53, 6, 2, 1000, 3, 1)])
    seed = bytes(range(32))
    game = "row-0a1b2c3d"
    print(H("pbem/v1/seed-commitment", field_str(game), seed).hex())
    anchor = H("anchor")
    print(HMAC(seed, "pbem/v1/draw", field_str(game), u64(3), anchor,
               field_str("Ann"), field_str("place E,W at E5")).hex())
    salt = HMAC(seed, "pbem/v1/salt", field_str(game), u64(3), u32(1))
    print(salt.hex())
    print(H("pbem/v1/hidden-draw", salt, u32(54), u32(17)).hex())
