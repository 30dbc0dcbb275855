#!/usr/bin/env python3
"""A second, independent implementation of pbem-draw/1, /2, /3 and /4
(docs/FAIRNESS.md), for game files in format pbem.game/1, /2, /3 and /4.

Standard library only. Without arguments it prints the golden vectors that
tests/it/fairness.rs pins, so the specification is checked against code that shares
nothing with pbem's. `pbem_draw.py check FILE` checks a revealed game file of any
format: the seed against its commitment, the rules hash, the genesis and record hashes
and their chain, every draw re-derived from the seed (public picks compared, hidden
commitments opened), and the cached state's hash; in formats 3 and 4 also the game id,
the rounds the records mark and the draw keys of the moves standing; in format 4 where
each record's combined move must be and its standing history; in formats 2 to 4
every sealed move
(its box decrypted with the seed and checked against its commitment) and every
opening (its commitment, its salt, an earlier sealed record opened once), and every
step of taking back moves (allowed by the records before it, leaving the position it
names). It does not
check the Ed25519 signatures (the standard library has no Ed25519) and does not replay
moves (that needs the rules).
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


def draw_key_v2(seed, game_id, turn, anchor, moves):
    """pbem-draw/2: `moves` is the list of (player, move text), already in seat order."""
    fields = [field_str(game_id), u64(turn), anchor, u32(len(moves))]
    for player, move_text in moves:
        fields += [field_str(player), field_str(move_text)]
    return HMAC(seed, "pbem/v2/draw", *fields)


def seal_salt(seed, game_id, turn):
    return HMAC(seed, "pbem/v2/seal-salt", field_str(game_id), u64(turn))


def seal_key(seed, game_id, turn):
    return HMAC(seed, "pbem/v2/seal-key", field_str(game_id), u64(turn))


def sealed_commit(salt_bytes, move_text):
    return H("pbem/v2/sealed-move", salt_bytes, field_str(move_text))


SEAL_BLOCK = 64


def keystream(key, length):
    """The first `length` bytes of the ChaCha20 keystream of `key` (the draw stream's
    words, each as its 4 little-endian bytes)."""
    words = chacha20_words(key)
    out = b""
    while len(out) < length:
        out += struct.pack("<I", next(words))
    return out[:length]


def xor(data, key):
    return bytes(a ^ b for a, b in zip(data, keystream(key, len(data))))


def seal_box(key, move_text):
    """The text's UTF-8 bytes, zero bytes up to the next multiple of 64 (at least one),
    XORed with the keystream of `key`."""
    plain = move_text.encode()
    if b"\0" in plain:
        raise Bad("a sealed move's text holds a NUL character")
    padded = (len(plain) // SEAL_BLOCK + 1) * SEAL_BLOCK
    return xor(plain + bytes(padded - len(plain)), key)


def open_box(key, box):
    """The text sealed in `box`, or None when it is not a box sealed with `key`."""
    if not box or len(box) % SEAL_BLOCK:
        return None
    plain = xor(box, key)
    end = plain.find(b"\0")
    if end < 0 or any(plain[end:]):
        return None
    try:
        return plain[:end].decode("utf-8")
    except UnicodeDecodeError:
        return None


def turn_draws(seed, game_id, turn, anchor, player, move_text, asked, key=None):
    """The draws of one turn as the file lists them; `asked` is (n, hidden) in order.
    `key` overrides the pbem-draw/1 key from anchor, player and move text."""
    if key is None:
        key = draw_key(seed, game_id, turn, anchor, player, move_text)
    return scoped_draws(seed, ("id", game_id), turn, key, asked)


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
    if not isinstance(text, str) or len(text) != 64 or any(c not in "0123456789abcdef" for c in text):
        raise Bad("not 64 lowercase hexadecimal digits: %r" % (text,))
    return bytes.fromhex(text)


def same(what, found, expected):
    if found != expected:
        raise Bad("%s: the file says %s, recomputed %s" % (what, expected, found))


def check_draws(what, seed, scope, turn, key, draws):
    """Re-derives each draw of a turn from the seed and the turn's draw key: the range
    is the file's (the rules chose it), the pick the stream's; a hidden draw's
    commitment must open to it."""
    words = chacha20_words(key)
    for j, d in enumerate(draws):
        if not isinstance(d.get("of"), int) or not 1 <= d["of"] < 2**32:
            raise Bad("%s draw %d: `of` is not a number from 1 to 2^32 - 1" % (what, j))
        pick = index(words, d["of"])
        if "pick" in d:
            same("%s draw %d" % (what, j), pick, d["pick"])
        else:
            found = hidden_commit(scoped_salt(seed, scope, turn, j), d["of"], pick).hex()
            same("%s draw %d" % (what, j), found, d["commit"])


STATE_KEY = b'\n"state":'

FORMATS = {"pbem.game/1": (1, "pbem-draw/1"), "pbem.game/2": (2, "pbem-draw/2"),
           "pbem.game/3": (3, "pbem-draw/3"), "pbem.game/4": (4, "pbem-draw/4")}


# Formats 3 and 4 bind every keyed derivation to the genesis body ("scope"); formats 1
# and 2 to the game id.
def scoped_salt(seed, scope, turn, j):
    if scope[0] == "body":
        return HMAC(seed, "pbem/v3/salt", scope[1], u64(turn), u32(j))
    return salt(seed, scope[1], turn, j)


def scoped_seal_salt(seed, scope, turn):
    if scope[0] == "body":
        return HMAC(seed, "pbem/v3/seal-salt", scope[1], u64(turn))
    return seal_salt(seed, scope[1], turn)


def scoped_seal_key(seed, scope, turn):
    if scope[0] == "body":
        return HMAC(seed, "pbem/v3/seal-key", scope[1], u64(turn))
    return seal_key(seed, scope[1], turn)


def draw_key_v3(seed, body, anchor, moves):
    fields = [body, anchor, u32(len(moves))]
    for player, move_text in moves:
        fields += [field_str(player), field_str(move_text)]
    return HMAC(seed, "pbem/v3/draw", *fields)


def history_v4(seed, body, before, entries):
    """pbem-draw/4, the standing history: `before` is the history of the standing move
    before the round (the genesis body for none), `entries` the round's (player, text),
    one per seat, in seat order."""
    fields = [body, before, u32(len(entries))]
    for player, text in entries:
        fields += [field_str(player), field_str(text)]
    return HMAC(seed, "pbem/v4/history", *fields)


def draw_key_v4(seed, body, history):
    return HMAC(seed, "pbem/v4/draw", body, history)


def bot_key(seed, body, before, seat, n, bot_id):
    """The key of the stream a bot's seat chooses a move with (format 4, "Bots' seats")."""
    return HMAC(seed, "pbem/v4/bot", body, before, u32(seat), u32(n), field_str(bot_id))


def game_id_v3(seed, g, key):
    """FAIRNESS.md, "The game id": what the id of a format-3 or -4 game is derived from."""
    own = g.get("entropy", [])
    if g.get("invitation", ""):
        own = own[:len(own) - len(g["players"])]
    fields = [seed, field_str(g["game"]), key, u32(len(g["players"]))]
    for p in g["players"]:
        fields += [field_str(p["name"]), field_str(p.get("email", ""))]
    options = g["options"]
    fields.append(u32(len(options)))
    for k in sorted(options, key=lambda k: k.encode()):
        fields += [field_str(k), field_str(options[k])]
    fields += [unhex(g["rules_hash"]), u32(len(own))] + [field_str(e) for e in own]
    initials = "".join(word[0] for word in g["game"].split("-") if word)
    return "%s-%s" % (initials, H("pbem/v3/game-id", *fields).hex()[:8])


def genesis_body(fmt, g, version):
    """The genesis body hash (also what an invitation's hash is made of)."""
    key = base64.b64decode(g["referee_key"], validate=True)
    body = field_str(fmt) + field_str(g["game"]) + field_str(g["id"]) + field_str(g["engine"])
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
    if version >= 2:
        # Formats 2 to 4 (format 4's genesis is as format 3's; "Joining").
        body += field_str(g.get("invitation", ""))
    return H("pbem/v1/genesis-body", body)


RECORD_KEYS = {
    1: ["turn", "player", "move", "draws", "prev", "state_hash", "hash", "signature"],
    2: ["turn", "player", "move", "sealed", "undo", "opens", "draws", "prev", "state_hash",
        "hash", "signature"],
    3: ["turn", "player", "move", "sealed", "undo", "round", "opens", "draws", "prev",
        "state_hash", "hash", "signature"],
    4: ["turn", "player", "move", "sealed", "undo", "round", "combined", "history", "opens",
        "draws", "prev", "state_hash", "hash", "signature"],
}


def no_duplicates(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise Bad("the key %r is given twice" % key)
        seen[key] = value
    return seen


def keys_checked(what, obj, allowed, required):
    """The object's keys are among `allowed` and include `required` (pbem writes them
    in the order of `allowed`, and reads them in any order)."""
    if not isinstance(obj, dict):
        raise Bad("%s is not an object" % what)
    unknown = [k for k in obj if k not in allowed]
    if unknown:
        raise Bad("%s has the keys %s, which are not among %s" % (what, unknown, allowed))
    missing = [k for k in required if k not in obj]
    if missing:
        raise Bad("%s lacks %s" % (what, missing))


def record_hash(version, game_id, r, prev):
    """The record's hash from its contents (its own `hash` aside)."""
    if version == 1:
        return H("pbem/v1/record", field_str(game_id), u64(r["turn"]), prev,
                 field_str(r["player"]), field_str(r["move"]), draws_fields(r["draws"]),
                 unhex(r["state_hash"]))
    if "sealed" in r:
        box = base64.b64decode(r["sealed"]["box"], validate=True)
        body = b"\x01" + unhex(r["sealed"]["commit"]) + field_str(box)
    elif "undo" in r:
        body = b"\x02" + field_str(r["undo"]["step"]) + u64(r["undo"]["turn"])
    else:
        body = b"\x00" + field_str(r["move"])
    if version >= 3:
        body += u64(r.get("round", 0))
    if version == 4:
        # Each a u8 saying whether the record has it, then the value.
        body += (b"\x01" + field_str(r["combined"])) if "combined" in r else b"\x00"
        body += (b"\x01" + unhex(r["history"])) if "history" in r else b"\x00"
    opens = r.get("opens", [])
    body += u32(len(opens))
    for o in opens:
        body += u64(o["turn"]) + field_str(o["move"]) + unhex(o["salt"])
    return H("pbem/v%d/record" % version, field_str(game_id), u64(r["turn"]), prev,
             field_str(r["player"]), body, draws_fields(r["draws"]), unhex(r["state_hash"]))


class Ledger:
    """Taking back moves (FAIRNESS.md, "Taking back moves"): the moves standing, each
    with whether it can be taken back, and the request waiting for answers."""

    def __init__(self, players):
        self.players = players
        self.standing = []  # (turn, seat, can be taken back, round or None)
        self.pending = None  # [asker, first turn, set of seats that agreed]

    def last_of(self, seat):
        at = [i for i, m in enumerate(self.standing) if m[1] == seat]
        if not at:
            raise Bad("no move of the player stands")
        later = self.standing[at[-1]:]
        if not all(m[2] for m in later):
            raise Bad("a move it would take back drew, is sealed or opened sealed moves")
        return self.standing[at[-1]][0]

    def round_members(self, rnd):
        """The standing moves of round `rnd`: a run at the end of the list."""
        members = []
        for m in reversed(self.standing):
            if m[3] != rnd:
                break
            members.insert(0, m)
        return members

    def round_inputs(self):
        """pbem-draw/3: the turn of the standing move before the last one's round (None:
        the setup), and the round's moves (turn, seat)."""
        last = self.standing[-1]
        members = self.round_members(last[3]) if last[3] is not None else [last]
        before = len(self.standing) - len(members) - 1
        anchor = self.standing[before][0] if before >= 0 else None
        return anchor, [(m[0], m[1]) for m in members]

    def first_of_its_seat(self):
        """pbem-draw/4: whether the last move standing is its seat's first standing move
        of its round (a move made alone is)."""
        last = self.standing[-1]
        if last[3] is None:
            return True
        return all(m[1] != last[1] for m in self.round_members(last[3])[:-1])

    def step(self, number, seat, r):
        """Reads record `number`; returns the turn whose position an undo returns to
        (0: the setup), else None."""
        if "undo" not in r:
            free = "sealed" not in r and not r.get("opens") and not r["draws"]
            rnd = r.get("round")
            if rnd is not None:
                if not isinstance(rnd, int) or not 1 <= rnd <= number:
                    raise Bad("a round that does not begin at or before the record")
                if rnd != number:
                    if not self.standing or self.standing[-1][3] != rnd:
                        raise Bad("it continues round %d, which the last move standing is not part of" % rnd)
            self.standing.append((number, seat, free, rnd))
            self.pending = None
            return None
        step, turn = r["undo"]["step"], r["undo"]["turn"]
        p = self.pending
        last = self.standing[-1][0] if self.standing else None
        if step == "ask":
            if p is not None or self.last_of(seat) != turn or last == turn:
                raise Bad("an ask the game did not allow")
            self.pending = [seat, turn, set()]
        elif step in ("agree", "decline"):
            if p is None or p[1] != turn or p[0] == seat or seat in p[2]:
                raise Bad("an answer to no request waiting for it")
            if step == "agree":
                p[2].add(seat)
            else:
                self.pending = None
        elif step == "undo":
            if self.last_of(seat) != turn:
                raise Bad("an undo of a move that is not its player's last standing")
            everyone = set(range(self.players)) - {seat}
            consented = p is not None and p[0] == seat and p[1] == turn and p[2] == everyone
            if p is not None and not consented:
                raise Bad("an undo while a request waits for answers")
            if p is None and last != turn:
                raise Bad("an undo without consent after others moved")
            self.pending = None
            self.standing = [m for m in self.standing if m[0] < turn]
            return turn - 1
        else:
            raise Bad("an unknown step %r" % step)
        return None


def check_file(path):
    """Prints one line per verified step; raises Bad at the first that fails."""
    raw = open(path, "rb").read()
    f = json.loads(raw, object_pairs_hook=no_duplicates)
    keys_checked("the file", f, ["format", "genesis", "records", "seed", "state"],
                  ["format", "genesis", "records", "seed", "state"])
    if f["format"] not in FORMATS:
        raise Bad("format %r is not pbem.game/1, /2, /3 or /4" % f["format"])
    version, algorithm = FORMATS[f["format"]]
    g = f["genesis"]
    game_id = g["id"]
    same("draw_algorithm", algorithm, g["draw_algorithm"])
    if f["seed"] is None:
        raise Bad("the seed is not revealed: draws cannot be re-derived")
    seed = unhex(f["seed"])
    same("seed_commitment", commitment(seed, game_id).hex(), g["seed_commitment"])
    same("rules_hash", hashlib.sha256(g["rules_data"].encode()).hexdigest(), g["rules_hash"])
    key = base64.b64decode(g["referee_key"], validate=True)
    same("referee_key length", len(key), 32)
    seats = {p["name"]: seat for seat, p in enumerate(g["players"])}
    if version == 1 and "invitation" in g:
        raise Bad("genesis names an invitation, which format 1 has not")
    body = genesis_body(f["format"], g, version)
    scope = ("body", body) if version >= 3 else ("id", game_id)
    if version >= 3:
        same("game id", game_id_v3(seed, g, key), game_id)
    if g.get("invitation", ""):
        # The game of `pbem new --join`: the invitation it names is genesis without the
        # players' words (one entry per seat, "NAME: WORDS", last) and without a name.
        n = len(g["players"])
        own = len(g["entropy"]) - n
        if own < 0:
            raise Bad("genesis holds fewer entropy entries than players")
        for p, entry in zip(g["players"], g["entropy"][own:]):
            if not entry.startswith(p["name"] + ": "):
                raise Bad("genesis holds no words of %s where the seat's are due" % p["name"])
        invited = dict(g, entropy=g["entropy"][:own], invitation="")
        # The invitation's body is that of the game it becomes, with an empty invitation.
        invitation = H("pbem/v2/invitation", genesis_body(f["format"], invited, version))
        same("invitation", invitation.hex(), g["invitation"])
        print("invitation %s joined by %d" % (g["invitation"], n))
    if version == 1:
        setup_key = draw_key(seed, game_id, 0, body, "", "")
    elif version == 2:
        setup_key = draw_key_v2(seed, game_id, 0, body, [])
    else:
        setup_key = HMAC(seed, "pbem/v3/setup", body)
    check_draws("setup", seed, scope, 0, setup_key, g["draws"])
    genesis = H("pbem/v1/genesis", body, draws_fields(g["draws"]), unhex(g["state_hash"]))
    same("genesis hash", genesis.hex(), g["hash"])
    print("genesis %s draws %d" % (g["hash"], len(g["draws"])))
    records = f["records"]
    # state_hash after each turn (turn 0: the setup), the text of each sealed move, the
    # standing history of each move (format 4).
    states = [unhex(g["state_hash"])]
    texts = {}
    histories = {}
    opened = set()
    prev = genesis
    ledger = Ledger(len(seats))
    for number, r in enumerate(records, 1):
        what = "record %d" % number
        required = ["turn", "player", "draws", "prev", "state_hash", "hash", "signature"]
        keys_checked(what, r, RECORD_KEYS[version], required + (["move"] if version == 1 else []))
        if "round" in r and "undo" in r:
            raise Bad("%s takes back moves but also marks a round" % what)
        if version == 4:
            if "undo" in r and ("combined" in r or "history" in r):
                raise Bad("%s takes back moves but holds a combined move or a history" % what)
            if "undo" not in r and "history" not in r:
                raise Bad("%s is a move without its standing history" % what)
            if "sealed" in r and "combined" in r:
                raise Bad("%s is a sealed move with a combined move" % what)
            if r.get("combined") == "":
                raise Bad("%s holds an empty combined move" % what)
        same(what + " turn", r["turn"], number)
        same(what + " prev", prev.hex(), r["prev"])
        if r["player"] not in seats:
            raise Bad("%s: %r is not a player of genesis" % (what, r["player"]))
        if "undo" in r:
            if version == 1 or "move" in r or "sealed" in r or r.get("opens") or r["draws"]:
                raise Bad("%s takes back moves but holds a move, an opening or draws" % what)
            keys_checked(what + " undo", r["undo"], ["step", "turn"], ["step", "turn"])
            try:
                restores = ledger.step(number, seats[r["player"]], r)
            except Bad as why:
                raise Bad("%s: %s" % (what, why))
            same(what + " state_hash", r["state_hash"],
                 (states[number - 1] if restores is None else states[restores]).hex())
            h = record_hash(version, game_id, r, prev)
            same(what + " hash", h.hex(), r["hash"])
            print("record %d %s %s %d" % (number, r["hash"], r["undo"]["step"], r["undo"]["turn"]))
            prev = h
            states.append(unhex(r["state_hash"]))
            continue
        try:
            ledger.step(number, seats[r["player"]], r)
        except Bad as why:
            raise Bad("%s: %s" % (what, why))
        sealed = "sealed" in r
        if version == 4:
            # A move that is not its seat's first standing move of its round carries
            # the seat's moves of the round as one; no other move does, and a sealed
            # one never (pbem records no second sealed move of a seat in a round).
            first = ledger.first_of_its_seat()
            if sealed and not first:
                raise Bad("%s is a sealed move of a seat that already moved in its round" % what)
            if "combined" in r and first:
                raise Bad("%s holds a combined move but is its seat's first move of its round" % what)
            if "combined" not in r and not first:
                raise Bad("%s lacks the combined move of its seat's moves of its round" % what)
        if version >= 2 and sealed == ("move" in r):
            raise Bad("%s holds %s" % (what, "both a move and a sealed move" if sealed else "no move"))
        if version >= 2 and not sealed and r["move"] == "":
            raise Bad("%s holds an empty move" % what)
        if sealed:
            s = r["sealed"]
            keys_checked(what + " sealed", s, ["commit", "box"], ["commit", "box"])
            box = base64.b64decode(s["box"], validate=True)
            text = open_box(scoped_seal_key(seed, scope, number), box)
            if text is None:
                raise Bad("%s: its sealed box does not decrypt with the seed" % what)
            same(what + " sealed commitment",
                 sealed_commit(scoped_seal_salt(seed, scope, number), text).hex(), s["commit"])
            texts[number] = text
        for o in r.get("opens", []):
            keys_checked(what + " opening", o, ["turn", "move", "salt"], ["turn", "move", "salt"])
            t = o["turn"]
            if not (isinstance(t, int) and 1 <= t < number and t in texts):
                raise Bad("%s opens turn %r, which is no earlier sealed move" % (what, t))
            if t in opened:
                raise Bad("%s opens turn %d a second time" % (what, t))
            opened.add(t)
            same("%s opening of turn %d: commitment" % (what, t),
                 sealed_commit(unhex(o["salt"]), o["move"]).hex(), records[t - 1]["sealed"]["commit"])
            same("%s opening of turn %d: salt" % (what, t),
                 scoped_seal_salt(seed, scope, t).hex(), o["salt"])
            same("%s opening of turn %d: move" % (what, t), texts[t], o["move"])
        if version == 1:
            key = draw_key(seed, game_id, number, prev, r["player"], r["move"])
        elif version == 3:
            # The last move standing before this record's round, and the round's moves
            # standing, in seat order.
            anchor_turn, members = ledger.round_inputs()
            anchor = genesis if anchor_turn is None else unhex(records[anchor_turn - 1]["hash"])
            moves = [(records[t - 1]["player"], texts[t] if "sealed" in records[t - 1] else records[t - 1]["move"])
                     for _, t in sorted((seat, t) for t, seat in members)]
            key = draw_key_v3(seed, body, anchor, moves)
        elif version == 4:
            # The standing history: the history before the round (the genesis body for
            # none), and one entry per seat of the round, its latest move standing (its
            # combined move where it has one), in seat order.
            before_turn, members = ledger.round_inputs()
            before = body if before_turn is None else histories[before_turn]
            latest = {}
            for t, seat in members:
                latest[seat] = t
            entries = []
            for seat, t in sorted(latest.items()):
                m = records[t - 1]
                if "combined" in m:
                    entries.append((m["player"], m["combined"]))
                else:
                    entries.append((m["player"], texts[t] if "sealed" in m else m["move"]))
            histories[number] = history_v4(seed, body, before, entries)
            same(what + " history", histories[number].hex(), r["history"])
            key = draw_key_v4(seed, body, histories[number])
        elif not sealed:
            key = draw_key_v2(seed, game_id, number, states[number - 1], [(r["player"], r["move"])])
        else:
            # The round: the run of consecutive sealed records that ends here.
            first = number
            while first > 1 and "sealed" in records[first - 2]:
                first -= 1
            round_moves = sorted((seats[records[t - 1]["player"]], t) for t in range(first, number + 1))
            moves = [(records[t - 1]["player"], texts[t]) for _, t in round_moves]
            key = draw_key_v2(seed, game_id, number, states[first - 1], moves)
        check_draws(what, seed, scope, number, key, r["draws"])
        h = record_hash(version, game_id, r, prev)
        same(what + " hash", h.hex(), r["hash"])
        line = "record %d %s draws %d" % (number, r["hash"], len(r["draws"]))
        if sealed:
            line += " sealed"
        if r.get("opens"):
            line += " opens " + ",".join(str(o["turn"]) for o in r["opens"])
        print(line)
        prev = h
        states.append(unhex(r["state_hash"]))
    # The state's bytes as stored: pbem writes them compact, after a line's `"state":`.
    head_state = states[-1].hex()
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
    vectors_v2(seed, game, anchor)


def vectors_v2(seed, game, anchor):
    """pbem-draw/2: draw keys for k = 0, 1 and 3 moves, sealed moves, a turn's draws."""
    for turn, moves in ((0, []), (3, [("Ann", "place E,W at E5")]),
                        (7, [("Ann", "bid 3"), ("Bob", "pass"), ("Cy", "bid 5 ♠")])):
        print("v2 key k %d %s" % (len(moves), draw_key_v2(seed, game, turn, anchor, moves).hex()))
    for turn, text in ((5, "bid 3"), (6, "0123456789abcdef" * 4),
                       (2**40, "bid 3 ♠ für Zoë")):
        s, k = seal_salt(seed, game, turn), seal_key(seed, game, turn)
        box = seal_box(k, text)
        commit = sealed_commit(s, text)
        print("seal t %d salt %s key %s commit %s box %s"
              % (turn, s.hex(), k.hex(), commit.hex(), base64.b64encode(box).decode()))
        plain = bytes(a ^ b for a, b in zip(box, keystream(k, len(box))))
        tampered = [
            ("last-byte", box[:-1] + bytes([box[-1] ^ 1])),
            ("short", box[:-1]),
            ("nul-inside", bytes([box[0], box[1] ^ plain[1]]) + box[2:]),
            ("first-byte", bytes([box[0] ^ 1]) + box[1:]),
        ]
        wide = next((i for i, b in enumerate(plain) if b >= 0x80), None)
        if wide is not None:
            tampered.append(("utf8", box[:wide] + bytes([box[wide] ^ 0x80]) + box[wide + 1:]))
        out = ["open %s" % json.dumps(open_box(k, box), ensure_ascii=False)]
        for name, changed in tampered:
            opened = open_box(k, changed)
            out.append("%s %s" % (name, json.dumps(opened, ensure_ascii=False)))
            if opened is not None:
                out.append("commits %s" % ("yes" if sealed_commit(s, opened) == commit else "no"))
        print("; ".join(out))
    # A turn of a sealed round: keyed on the round's moves in seat order.
    key = draw_key_v2(seed, game, 9, anchor, [("Ann", "choose 2"), ("Bob", "choose 1")])
    asked = [(6, True), (4, False), (1000, True), (2**31 + 1, False)]
    print(json.dumps(turn_draws(seed, game, 9, None, None, None, asked, key), separators=(",", ":")))


def scoped_draws(seed, scope, turn, key, asked):
    """The draws of one turn as the file lists them, from its key; `asked` is (n,
    hidden) in order."""
    words = chacha20_words(key)
    out = []
    for j, (n, hidden) in enumerate(asked):
        pick = index(words, n)
        if hidden:
            out.append({"of": n, "commit": hidden_commit(scoped_salt(seed, scope, turn, j), n, pick).hex()})
        else:
            out.append({"of": n, "pick": pick})
    return out


def draws_json(draws):
    return json.dumps(draws, separators=(",", ":"), ensure_ascii=False)


def doc_vectors():
    """The lines of the golden-vector block of docs/FAIRNESS.md, computed from the
    inputs that document names."""
    out = []
    zero = chacha20_words(bytes(32))
    out.append("chacha zero key: " + " ".join("%08x" % next(zero) for _ in range(4)))
    words = chacha20_words(bytes([7] * 32))
    picks = [index(words, n) for n in (61, 54, 53, 6, 2, 1000, 3, 1)]
    out.append("sampler key 07: [%s]" % ", ".join(map(str, picks)))
    half = 2**31 + 1
    i = 0
    while next(chacha20_words(H("pbem/test/skip", u32(i)))) < half:
        i += 1
    for n in (half, 3 * 2**30):
        words = Counted(chacha20_words(H("pbem/test/skip", u32(i))))
        picks = [index(words, n) for _ in range(8)]
        out.append("skip i %d n %d: picks [%s] words %d" % (i, n, ", ".join(map(str, picks)), words.taken))
    seed = bytes(range(32))
    game = "row-0a1b2c3d"
    anchor = H("anchor")
    body = H("body")
    key = bytes([0x11] * 32)
    by_id, by_body = ("id", game), ("body", body)
    mixed_1 = [(6, False), (54, True), (2, False), (1000, True), (1, True)]
    mixed_2 = [(6, True), (4, False), (1000, True), (2**31 + 1, False)]
    salts = ((0, 0, 6, 5), (7, 1, 54, 17), (2**40, 2**31, 1000, 999))
    out.append("seed commitment G: " + commitment(seed, game).hex())
    out.append('v1 key G turn 3 A Ann "place E,W at E5": '
               + draw_key(seed, game, 3, anchor, "Ann", "place E,W at E5").hex())
    for t, j, n, pick in salts:
        sj = salt(seed, game, t, j)
        out.append("v1 salt G t %d j %d: %s commit of pick %d of %d: %s"
                   % (t, j, sj.hex(), pick, n, hidden_commit(sj, n, pick).hex()))
    out.append('v1 turn draws G turn 4 key (G, 4, A, Bob, "pass"): '
               + draws_json(scoped_draws(seed, by_id, 4, draw_key(seed, game, 4, anchor, "Bob", "pass"), mixed_1)))
    moves = [("Ann", "bid 3"), ("Bob", "pass"), ("Cy", "bid 5 \u2660")]
    for k in (0, 1, 3):
        out.append("v2 key G turn 7 A k %d: %s" % (k, draw_key_v2(seed, game, 7, anchor, moves[:k]).hex()))
    key9 = draw_key_v2(seed, game, 9, anchor, [("Ann", "choose 2"), ("Bob", "choose 1")])
    out.append('v2 turn draws G turn 9 key (G, 9, A, Ann "choose 2", Bob "choose 1"): '
               + draws_json(scoped_draws(seed, by_id, 9, key9, mixed_2)))
    texts = ((5, "bid 3"), (6, "0123456789abcdef" * 4), (2**40, "bid 3 \u2660 f\u00fcr Zo\u00eb"))

    def seals(scope, name):
        for turn, text in texts:
            s_, k_ = scoped_seal_salt(seed, scope, turn), scoped_seal_key(seed, scope, turn)
            out.append('%s seal turn %d "%s": salt %s key %s commit %s box %s'
                       % (name, turn, text, s_.hex(), k_.hex(), sealed_commit(s_, text).hex(),
                          base64.b64encode(seal_box(k_, text)).decode()))
    seals(by_id, "v2 G")
    out.append("v3 setup key B: " + HMAC(seed, "pbem/v3/setup", body).hex())
    one = draw_key_v3(seed, body, anchor, [("Ann", "place E,W at E5")])
    out.append('v3 key B A Ann "place E,W at E5": ' + one.hex())
    cards = [("Ann", "card 2"), ("Bob", "card 1"), ("Cat", "card 5")]
    out.append('v3 key B A Ann "card 2" Bob "card 1" Cat "card 5": '
               + draw_key_v3(seed, body, anchor, cards).hex())
    out.append('v3 turn draws B turn 4 key (B, A, Ann "place E,W at E5"): '
               + draws_json(scoped_draws(seed, by_body, 4, one, mixed_2)))
    for t, j, n, pick in salts:
        sj = scoped_salt(seed, by_body, t, j)
        out.append("v3 salt B t %d j %d: %s commit of pick %d of %d: %s"
                   % (t, j, sj.hex(), pick, n, hidden_commit(sj, n, pick).hex()))
    seals(by_body, "v3 B")
    g = {"game": "right-of-way", "engine": "pbem 0.1.0",
         "players": [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bob"}],
         "options": {"setup": "hexagon"}, "rules_hash": hashlib.sha256(b"").hexdigest(),
         "rules_data": "", "referee_key": base64.b64encode(key).decode(),
         "draw_algorithm": "pbem-draw/3", "entropy": []}
    g["id"] = game_id_v3(seed, g, key)
    out.append("game id: " + g["id"])
    g["seed_commitment"] = commitment(seed, g["id"]).hex()
    out.append("seed commitment of that id: " + g["seed_commitment"])
    gbody = genesis_body("pbem.game/3", g, 3)
    out.append("genesis body: " + gbody.hex())
    out.append("invitation hash: " + H("pbem/v2/invitation", gbody).hex())
    record = {"turn": 3, "player": "Ann", "move": "place E,W at E5", "round": 2,
              "draws": [{"of": 6, "pick": 3}], "state_hash": body.hex()}
    out.append("record: " + record_hash(3, g["id"], record, anchor).hex())
    # Format 4: standing histories of body B with `before` A (H1 the first), the draw key
    # of H1 and its draws, and a record that carries `combined` and `history`.
    h1 = history_v4(seed, body, anchor, [("Ann", "place E,W at E5")])
    out.append('v4 history B A Ann "place E,W at E5": ' + h1.hex())
    out.append('v4 history B A Ann "card 2" Bob "card 1" Cat "card 5": '
               + history_v4(seed, body, anchor, cards).hex())
    key4 = draw_key_v4(seed, body, h1)
    out.append("v4 key B H1: " + key4.hex())
    out.append("v4 turn draws B turn 4 key (B, H1): "
               + draws_json(scoped_draws(seed, by_body, 4, key4, mixed_2)))
    record = dict(record, move="place D at C4 r0", combined="place A at C5 r1; place D at C4 r0",
                  history=h1.hex())
    out.append("record v4: " + record_hash(4, g["id"], record, anchor).hex())
    out.append('v4 bot key B H1 seat 2 n 1 "search/1": '
               + bot_key(seed, body, h1, 2, 1, "search/1").hex())
    return out


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
    elif sys.argv[1:] == ["doc-vectors"]:
        print("\n".join(doc_vectors()))
    else:
        print("usage: pbem_draw.py [check FILE | doc-vectors]", file=sys.stderr)
        sys.exit(2)
