#!/usr/bin/env python3
"""A second, independent implementation of pbem-draw/1 (docs/FAIRNESS.md).

Standard library only. Without arguments it prints the golden vectors that
tests/it/fairness.rs pins, so the specification is checked against code that shares
nothing with pbem's. `pbem_draw.py check FILE` checks a revealed game file: the seed
against its commitment, the rules hash, the genesis and record hashes and their chain,
every draw re-derived from the seed (public picks compared, hidden commitments
opened), and the cached state's hash. It does not check the Ed25519 signatures (the
standard library has no Ed25519) and does not replay moves (that needs the rules).
"""
import base64
import hashlib
import hmac
import json
import struct
import sys


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


class Counted:
    """A word iterator that counts the words taken."""

    def __init__(self, words):
        self.words, self.taken = words, 0

    def __iter__(self):
        return self

    def __next__(self):
        self.taken += 1
        return next(self.words)


def commitment(seed, game_id):
    return H("pbem/v1/seed-commitment", field_str(game_id), seed)


def draw_key(seed, game_id, turn, anchor, player, move_text):
    return HMAC(seed, "pbem/v1/draw", field_str(game_id), u64(turn), anchor,
                field_str(player), field_str(move_text))


def salt(seed, game_id, turn, j):
    return HMAC(seed, "pbem/v1/salt", field_str(game_id), u64(turn), u32(j))


def hidden_commit(salt_bytes, n, pick):
    return H("pbem/v1/hidden-draw", salt_bytes, u32(n), u32(pick))


def turn_draws(seed, game_id, turn, anchor, player, move_text, asked):
    """The draws of one turn as the file lists them; `asked` is (n, hidden) in order."""
    words = chacha20_words(draw_key(seed, game_id, turn, anchor, player, move_text))
    out = []
    for j, (n, hidden) in enumerate(asked):
        pick = index(words, n)
        if hidden:
            out.append({"of": n, "commit": hidden_commit(salt(seed, game_id, turn, j), n, pick).hex()})
        else:
            out.append({"of": n, "pick": pick})
    return out


def draws_fields(draws):
    out = u32(len(draws))
    for d in draws:
        if set(d) == {"of", "pick"}:
            out += b"\x00" + u32(d["of"]) + u32(d["pick"])
        elif set(d) == {"of", "commit"}:
            out += b"\x01" + u32(d["of"]) + unhex(d["commit"])
        else:
            raise Bad("a draw is neither {of, pick} nor {of, commit}: %r" % (d,))
    return out


class Bad(Exception):
    pass


def unhex(text):
    if len(text) != 64:
        raise Bad("not 64 hexadecimal digits: %r" % text)
    return bytes.fromhex(text)


def same(what, found, expected):
    if found != expected:
        raise Bad("%s: the file says %s, recomputed %s" % (what, expected, found))


def check_draws(what, seed, game_id, turn, anchor, player, move_text, draws):
    """Re-derives each draw of a turn from the seed: the range is the file's (the rules
    chose it), the pick the stream's; a hidden draw's commitment must open to it."""
    words = chacha20_words(draw_key(seed, game_id, turn, anchor, player, move_text))
    for j, d in enumerate(draws):
        pick = index(words, d["of"])
        if "pick" in d:
            same("%s draw %d" % (what, j), pick, d["pick"])
        else:
            found = hidden_commit(salt(seed, game_id, turn, j), d["of"], pick).hex()
            same("%s draw %d" % (what, j), found, d["commit"])


STATE_KEY = b'\n"state":'


def check_file(path):
    """Prints one line per verified step; raises Bad at the first that fails."""
    raw = open(path, "rb").read()
    f = json.loads(raw)
    same("top-level keys", sorted(f), ["format", "genesis", "records", "seed", "state"])
    same("format", f["format"], "pbem.game/1")
    g = f["genesis"]
    game_id = g["id"]
    same("draw_algorithm", g["draw_algorithm"], "pbem-draw/1")
    if f["seed"] is None:
        raise Bad("the seed is not revealed: draws cannot be re-derived")
    seed = unhex(f["seed"])
    same("seed_commitment", commitment(seed, game_id).hex(), g["seed_commitment"])
    same("rules_hash", hashlib.sha256(g["rules_data"].encode()).hexdigest(), g["rules_hash"])
    key = base64.b64decode(g["referee_key"], validate=True)
    same("referee_key length", len(key), 32)
    body = field_str(f["format"]) + field_str(g["game"]) + field_str(game_id) + field_str(g["engine"])
    body += u32(len(g["players"]))
    for p in g["players"]:
        body += field_str(p["name"]) + field_str(p.get("email", ""))
    options = g["options"]
    body += u32(len(options))
    for k in sorted(options, key=lambda k: k.encode()):
        body += field_str(k) + field_str(options[k])
    body += unhex(g["rules_hash"]) + key + unhex(g["seed_commitment"])
    body += field_str(g["draw_algorithm"])
    entropy = g.get("entropy", [])
    body += u32(len(entropy)) + b"".join(field_str(e) for e in entropy)
    body = H("pbem/v1/genesis-body", body)
    check_draws("setup", seed, game_id, 0, body, "", "", g["draws"])
    genesis = H("pbem/v1/genesis", body, draws_fields(g["draws"]), unhex(g["state_hash"]))
    same("genesis hash", genesis.hex(), g["hash"])
    print("genesis %s draws %d" % (g["hash"], len(g["draws"])))
    prev, head_state = genesis, g["state_hash"]
    for number, r in enumerate(f["records"], 1):
        same("record %d turn" % number, r["turn"], number)
        same("record %d prev" % number, prev.hex(), r["prev"])
        check_draws("record %d" % number, seed, game_id, number, prev, r["player"], r["move"], r["draws"])
        h = H("pbem/v1/record", field_str(game_id), u64(number), prev, field_str(r["player"]),
              field_str(r["move"]), draws_fields(r["draws"]), unhex(r["state_hash"]))
        same("record %d hash" % number, h.hex(), r["hash"])
        print("record %d %s draws %d" % (number, r["hash"], len(r["draws"])))
        prev, head_state = h, r["state_hash"]
    # The state's bytes as stored: pbem writes them compact, after a line's `"state":`.
    at = raw.rfind(STATE_KEY)
    if at < 0 or not raw.endswith(b"}\n"):
        raise Bad("the file is not in pbem's layout: the state's bytes cannot be found")
    state_bytes = raw[at + len(STATE_KEY):-2]
    same("state", json.loads(state_bytes), f["state"])
    same("state hash", H("pbem/v1/state", field_str(state_bytes)).hex(), head_state)
    print("state %s" % head_state)


def vectors():
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
    salt3 = HMAC(seed, "pbem/v1/salt", field_str(game), u64(3), u32(1))
    print(salt3.hex())
    print(H("pbem/v1/hidden-draw", salt3, u32(54), u32(17)).hex())
    # The sampler's skip path: for n = 2^31 + 1 the limit is n itself, so about half
    # the words are skipped. The key is the first of H("pbem/test/skip", u32(i)) whose
    # first word is skipped; eight draws, and the words they took.
    n = 2**31 + 1
    i = 0
    while next(chacha20_words(H("pbem/test/skip", u32(i)))) < n:
        i += 1
    words = Counted(chacha20_words(H("pbem/test/skip", u32(i))))
    picks = [index(words, n) for _ in range(8)]
    print("key %d picks %s words %d" % (i, picks, words.taken))
    # n = 3 * 2^30: limit 3 * 2^30, a quarter skipped; same key.
    words = Counted(chacha20_words(H("pbem/test/skip", u32(i))))
    picks = [index(words, 3 * 2**30) for _ in range(8)]
    print("picks %s words %d" % (picks, words.taken))
    # Salts and hidden commitments: the j-th draw of turn t.
    for t, j, n, pick in ((0, 0, 6, 5), (0, 2, 54, 0), (7, 1, 2, 1), (2**40, 2**31, 1000, 999)):
        sj = salt(seed, game, t, j)
        print("t %d j %d salt %s commit %s" % (t, j, sj.hex(), hidden_commit(sj, n, pick).hex()))
    # A turn whose draws mix public and hidden, as the file lists them.
    asked = [(6, False), (54, True), (2, False), (1000, True), (1, True)]
    listed = turn_draws(seed, game, 4, anchor, "Bob", "pass", asked)
    print(json.dumps(listed, separators=(",", ":")))


if __name__ == "__main__":
    if sys.argv[1:2] == ["check"] and len(sys.argv) == 3:
        try:
            check_file(sys.argv[2])
        except (Bad, KeyError, TypeError, ValueError) as error:
            print("FAILED: %s" % error, file=sys.stderr)
            sys.exit(1)
        print("ok")
    elif len(sys.argv) == 1:
        vectors()
    else:
        print("usage: pbem_draw.py [check FILE]", file=sys.stderr)
        sys.exit(2)
