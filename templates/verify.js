// The replay page's own verifier of a pbem game file, written from docs/FAIRNESS.md
// (every section name quoted below is one of its sections). It checks what an auditor
// without the game's rules can check: the strict reading of the file, genesis, the
// game id, every record's link, hash and signature, the seed against its commitment,
// every draw re-derived, every sealed box and opening, the rounds and the ledger of
// taking back moves, the standing histories, and the stored state's bytes against the
// head's state hash. What needs the rules (each move's legality and canonical text, the
// states the moves lead to) is left to `pbem audit`.
//
// It uses the browser's Web Crypto (SHA-256, HMAC-SHA-256, Ed25519) and its own
// ChaCha20, and loads nothing from anywhere: the page's Content-Security-Policy
// forbids it. `PbemVerify.verify(bytes)` resolves to a verdict.
"use strict";
var PbemVerify = (function () {
  var subtle = (typeof crypto !== "undefined" && crypto.subtle) || null;
  var encoder = new TextEncoder();

  function Bad(record, why) {
    this.record = record;
    this.why = why;
  }
  function fail(record, why) {
    throw new Bad(record, why);
  }

  // ---- Bytes and fields ("Encoding") ----
  function utf8(text) {
    return encoder.encode(text);
  }
  function concat(parts) {
    var length = 0;
    parts.forEach(function (p) { length += p.length; });
    var out = new Uint8Array(length);
    var at = 0;
    parts.forEach(function (p) { out.set(p, at); at += p.length; });
    return out;
  }
  function u8(n) {
    return new Uint8Array([n]);
  }
  function u32(n) {
    var out = new Uint8Array(4);
    new DataView(out.buffer).setUint32(0, Number(n));
    return out;
  }
  function u64(n) {
    var out = new Uint8Array(8);
    new DataView(out.buffer).setBigUint64(0, BigInt(n));
    return out;
  }
  function bytes(b) {
    return concat([u32(b.length), b]);
  }
  function str(s) {
    return bytes(utf8(s));
  }
  function hex(b) {
    var out = "";
    for (var i = 0; i < b.length; i++) { out += (b[i] < 16 ? "0" : "") + b[i].toString(16); }
    return out;
  }
  function unhex(text) {
    var out = new Uint8Array(text.length / 2);
    for (var i = 0; i < out.length; i++) { out[i] = parseInt(text.substr(2 * i, 2), 16); }
    return out;
  }
  function sameBytes(a, b) {
    if (a.length !== b.length) { return false; }
    for (var i = 0; i < a.length; i++) { if (a[i] !== b[i]) { return false; } }
    return true;
  }
  // Standard base64 with padding, no line breaks, no unused bits set ("Hex, base64,
  // integers"): exactly the text that encoding the bytes gives back.
  function base64(text) {
    if (typeof text !== "string" || !/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text)) {
      return null;
    }
    var binary = atob(text);
    if (btoa(binary) !== text) { return null; }
    var out = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) { out[i] = binary.charCodeAt(i); }
    return out;
  }
  function toBase64(b) {
    var binary = "";
    for (var i = 0; i < b.length; i++) { binary += String.fromCharCode(b[i]); }
    return btoa(binary);
  }

  // ---- Hashes ----
  async function sha256(data) {
    return new Uint8Array(await subtle.digest("SHA-256", data));
  }
  // H(domain, fields...): SHA-256 over str(domain) and the fields.
  async function H(domain, fields) {
    return sha256(concat([str(domain)].concat(fields || [])));
  }
  async function hmacKey(seed) {
    return subtle.importKey("raw", seed, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  }
  async function HMAC(key, domain, fields) {
    return new Uint8Array(await subtle.sign("HMAC", key, concat([str(domain)].concat(fields || []))));
  }

  // ---- ChaCha20 ("The stream") ----
  function rotl(v, c) {
    return ((v << c) | (v >>> (32 - c))) >>> 0;
  }
  // The 16 output words of the block whose state words 12 to 15 are `tail`.
  function blockWords(keyWords, tail) {
    var s = [0x61707865, 0x3320646e, 0x79622d32, 0x6b206574].concat(keyWords, tail);
    var x = s.slice();
    function q(a, b, c, d) {
      x[a] = (x[a] + x[b]) >>> 0; x[d] = rotl(x[d] ^ x[a], 16);
      x[c] = (x[c] + x[d]) >>> 0; x[b] = rotl(x[b] ^ x[c], 12);
      x[a] = (x[a] + x[b]) >>> 0; x[d] = rotl(x[d] ^ x[a], 8);
      x[c] = (x[c] + x[d]) >>> 0; x[b] = rotl(x[b] ^ x[c], 7);
    }
    for (var i = 0; i < 10; i++) {
      q(0, 4, 8, 12); q(1, 5, 9, 13); q(2, 6, 10, 14); q(3, 7, 11, 15);
      q(0, 5, 10, 15); q(1, 6, 11, 12); q(2, 7, 8, 13); q(3, 4, 9, 14);
    }
    for (var j = 0; j < 16; j++) { x[j] = (x[j] + s[j]) >>> 0; }
    return x;
  }
  function leWords(b) {
    var view = new DataView(b.buffer, b.byteOffset, b.length);
    var out = [];
    for (var i = 0; i < b.length; i += 4) { out.push(view.getUint32(i, true)); }
    return out;
  }
  function wordBytes(words) {
    var out = new Uint8Array(words.length * 4);
    var view = new DataView(out.buffer);
    words.forEach(function (w, i) { view.setUint32(4 * i, w, true); });
    return out;
  }
  // RFC 8439's block function: a 32-byte key, a 32-bit counter and a 12-byte nonce;
  // the 64 bytes of the block.
  function chacha20Block(key, counter, nonce) {
    return wordBytes(blockWords(leWords(key), [counter >>> 0].concat(leWords(nonce))));
  }
  // RFC 8439's encryption (section 2.4): `data` XOR the keystream from `counter`.
  function chacha20Xor(key, counter, nonce, data) {
    var out = new Uint8Array(data.length);
    for (var at = 0; at < data.length; at += 64) {
      var block = chacha20Block(key, counter + at / 64, nonce);
      for (var i = 0; i < 64 && at + i < data.length; i++) { out[at + i] = data[at + i] ^ block[i]; }
    }
    return out;
  }
  // pbem's stream of a 32-byte key: the original layout, a 64-bit block counter from 0
  // and a 64-bit nonce of 0, read as little-endian words.
  function Stream(key) {
    this.keyWords = leWords(key);
    this.counter = 0;
    this.words = [];
    this.at = 0;
    this.taken = 0;
  }
  Stream.prototype.next = function () {
    if (this.at === this.words.length) {
      var low = this.counter % 4294967296;
      var high = Math.floor(this.counter / 4294967296);
      this.words = blockWords(this.keyWords, [low, high, 0, 0]);
      this.counter += 1;
      this.at = 0;
    }
    this.taken += 1;
    return this.words[this.at++];
  };
  Stream.prototype.bytes = function (length) {
    var out = [];
    while (out.length * 4 < length) { out.push(this.next()); }
    return wordBytes(out).subarray(0, length);
  };
  // "Turning words into draws": an index in 0..n, skipping words at or above the limit.
  function index(stream, n) {
    var limit = 4294967296 - (4294967296 % n);
    for (;;) {
      var w = stream.next();
      if (w < limit) { return w % n; }
    }
  }

  // ---- A strict reading of JSON ("The game file") ----
  // Any JSON layout is read; a key given twice, a control character in a string, a
  // lone surrogate, a number with a leading zero or anything after the value is
  // refused. Integers are BigInts; a number with a fraction or an exponent, and
  // `-0`, is kept as {fraction: text}, which no field of the file accepts. The top level's values keep
  // where they stand in the text (`spans`).
  function parseJson(text) {
    var i = 0;
    var spans = Object.create(null);
    function bad(why) { fail(null, "not valid JSON at character " + i + ": " + why); }
    function ws() {
      for (;;) {
        var c = text.charCodeAt(i);
        if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) { i++; } else { return; }
      }
    }
    function hex4() {
      var h = text.substr(i, 4);
      if (!/^[0-9a-fA-F]{4}$/.test(h)) { bad("a \\u escape without four hex digits"); }
      i += 4;
      return parseInt(h, 16);
    }
    function string() {
      i++;
      var out = "";
      var from = i;
      for (;;) {
        if (i >= text.length) { bad("a string does not end"); }
        var c = text.charCodeAt(i);
        if (c === 0x22) { out += text.slice(from, i); i++; return out; }
        if (c < 0x20) { bad("a control character in a string"); }
        if (c !== 0x5c) { i++; continue; }
        out += text.slice(from, i);
        i++;
        var e = text.charAt(i++);
        var simple = { "\"": "\"", "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
        if (e in simple) {
          out += simple[e];
        } else if (e === "u") {
          var u = hex4();
          if (u >= 0xdc00 && u <= 0xdfff) { bad("a lone trailing surrogate"); }
          if (u >= 0xd800 && u <= 0xdbff) {
            if (text.substr(i, 2) !== "\\u") { bad("a lone leading surrogate"); }
            i += 2;
            var low = hex4();
            if (low < 0xdc00 || low > 0xdfff) { bad("a lone leading surrogate"); }
            out += String.fromCharCode(u, low);
          } else {
            out += String.fromCharCode(u);
          }
        } else {
          bad("an unknown escape");
        }
        from = i;
      }
    }
    function number() {
      var m = /^-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 400));
      if (!m) { bad("not a value"); }
      i += m[0].length;
      // `-0` too: serde_json, which pbem reads with, reads it as a float.
      if (m[1] || m[2] || m[0] === "-0") { return { fraction: m[0] }; }
      return BigInt(m[0]);
    }
    function value(depth) {
      if (depth > 128) { bad("nested too deeply"); }
      ws();
      var c = text.charAt(i);
      if (c === "{") {
        i++;
        var obj = Object.create(null);
        ws();
        if (text.charAt(i) === "}") { i++; return obj; }
        for (;;) {
          ws();
          if (text.charAt(i) !== "\"") { bad("a key is not a string"); }
          var key = string();
          if (key in obj) { fail(null, "the key \"" + key + "\" is given twice in one object"); }
          ws();
          if (text.charAt(i) !== ":") { bad("no colon after a key"); }
          i++;
          ws();
          var start = i;
          obj[key] = value(depth + 1);
          if (depth === 0) { spans[key] = [start, i]; }
          ws();
          var next = text.charAt(i++);
          if (next === "}") { return obj; }
          if (next !== ",") { bad("no comma between members"); }
        }
      }
      if (c === "[") {
        i++;
        var list = [];
        ws();
        if (text.charAt(i) === "]") { i++; return list; }
        for (;;) {
          list.push(value(depth + 1));
          ws();
          var after = text.charAt(i++);
          if (after === "]") { return list; }
          if (after !== ",") { bad("no comma between elements"); }
        }
      }
      if (c === "\"") { return string(); }
      if (text.startsWith("true", i)) { i += 4; return true; }
      if (text.startsWith("false", i)) { i += 5; return false; }
      if (text.startsWith("null", i)) { i += 4; return null; }
      return number();
    }
    var root = value(0);
    ws();
    if (i !== text.length) { bad("something after the value"); }
    return { value: root, spans: spans };
  }

  // ---- The schema ("Top level", "Genesis", "Records", "Draws", "Hex, base64, integers") ----
  // A JSON object of the file: the reader makes them, and only them, without a prototype.
  function isObject(v) {
    return v !== null && typeof v === "object" && Object.getPrototypeOf(v) === null;
  }
  function keysChecked(record, what, obj, allowed, required) {
    if (!isObject(obj)) { fail(record, what + " is not an object"); }
    Object.keys(obj).forEach(function (k) {
      if (allowed.indexOf(k) < 0) { fail(record, what + " has the key \"" + k + "\", which it may not"); }
    });
    required.forEach(function (k) {
      if (!(k in obj)) { fail(record, what + " lacks the key \"" + k + "\""); }
    });
  }
  function text(record, what, v) {
    if (typeof v !== "string") { fail(record, what + " is not a string"); }
    return v;
  }
  function hex64(record, what, v) {
    if (typeof v !== "string" || !/^[0-9a-f]{64}$/.test(v)) {
      fail(record, what + " is not 64 lowercase hexadecimal digits");
    }
    return v;
  }
  function integer(record, what, v, max) {
    if (typeof v !== "bigint" || v < 0n || v > max) {
      fail(record, what + " is not a whole number from 0 to " + max);
    }
    return v;
  }
  var U32 = 4294967295n;
  var U64 = 18446744073709551615n;
  function b64(record, what, v, length) {
    var decoded = base64(v);
    if (decoded === null) { fail(record, what + " is not standard base64"); }
    if (length !== undefined && decoded.length !== length) { fail(record, what + " is not " + length + " bytes"); }
    return decoded;
  }
  function draws(record, what, list) {
    if (!Array.isArray(list)) { fail(record, what + " is not a list"); }
    return list.map(function (d, j) {
      var name = what + " " + j;
      keysChecked(record, name, d, ["of", "pick", "commit"], ["of"]);
      var of = integer(record, name + ": of", d.of, U32);
      if (of < 1n) { fail(record, name + ": of is 0"); }
      if (("pick" in d) === ("commit" in d)) { fail(record, name + " has not exactly one of pick and commit"); }
      if ("pick" in d) {
        var pick = integer(record, name + ": pick", d.pick, U32);
        if (pick >= of) { fail(record, name + ": the pick is not below of"); }
        return { of: Number(of), pick: Number(pick) };
      }
      return { of: Number(of), commit: hex64(record, name + ": commit", d.commit) };
    });
  }
  function drawsField(list) {
    var parts = [u32(list.length)];
    list.forEach(function (d) {
      if (d.commit === undefined) {
        parts.push(u8(0), u32(d.of), u32(d.pick));
      } else {
        parts.push(u8(1), u32(d.of), unhex(d.commit));
      }
    });
    return concat(parts);
  }

  var FORMATS = { "pbem.game/1": 1, "pbem.game/2": 2, "pbem.game/3": 3, "pbem.game/4": 4 };
  var GENESIS_KEYS = ["game", "id", "engine", "players", "options", "rules_hash", "rules_data", "referee_key",
    "seed_commitment", "draw_algorithm", "entropy", "invitation", "draws", "state_hash", "hash", "signature"];
  var RECORD_KEYS = {
    1: ["turn", "player", "move", "draws", "prev", "state_hash", "hash", "signature"],
    2: ["turn", "player", "move", "sealed", "undo", "opens", "draws", "prev", "state_hash", "hash", "signature"],
    3: ["turn", "player", "move", "sealed", "undo", "round", "opens", "draws", "prev", "state_hash", "hash", "signature"],
    4: ["turn", "player", "move", "sealed", "undo", "round", "combined", "history", "opens", "draws", "prev",
      "state_hash", "hash", "signature"]
  };
  // The seed games, and how each one's public state says it is over ("Whether a game is
  // over"); which seal and open moves ("Sealed moves").
  var GAMES = {
    "right-of-way": { over: function (s) { return s.over === true; }, seals: false },
    "triangle-auction": { over: function (s) { return s.phase === "over"; }, seals: true },
    "desert-kingdom": { over: function (s) { return s.phase === "over"; }, seals: false }
  };

  // Unicode White_Space, which a name's comparison leaves out at either end.
  var WHITE = "\t\n\u000b\f\r \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000";
  function nameKey(name) {
    var chars = Array.from(name);
    while (chars.length && WHITE.indexOf(chars[0]) >= 0) { chars.shift(); }
    while (chars.length && WHITE.indexOf(chars[chars.length - 1]) >= 0) { chars.pop(); }
    return chars.join("").replace(/[A-Z]/g, function (c) { return c.toLowerCase(); });
  }
  function byteOrder(a, b) {
    var x = utf8(a);
    var y = utf8(b);
    for (var i = 0; i < x.length && i < y.length; i++) { if (x[i] !== y[i]) { return x[i] - y[i]; } }
    return x.length - y.length;
  }
  function playersAndOptions(g) {
    var parts = [u32(g.players.length)];
    g.players.forEach(function (p) { parts.push(str(p.name), str(p.email || "")); });
    var keys = Object.keys(g.options).sort(byteOrder);
    parts.push(u32(keys.length));
    keys.forEach(function (k) { parts.push(str(k), str(g.options[k])); });
    return parts;
  }
  // "The genesis body".
  async function genesisBody(format, version, g, entropy, invitation, key) {
    var parts = [str(format), str(g.game), str(g.id), str(g.engine)].concat(playersAndOptions(g));
    parts.push(unhex(g.rules_hash), key, unhex(g.seed_commitment), str(g.draw_algorithm), u32(entropy.length));
    entropy.forEach(function (e) { parts.push(str(e)); });
    if (version >= 2) { parts.push(str(invitation)); }
    return H("pbem/v1/genesis-body", parts);
  }
  function prefix(game) {
    return game.split("-").filter(function (p) { return p.length; }).map(function (p) { return Array.from(p)[0]; }).join("");
  }
  // "The game id", formats 3 and 4.
  async function gameId(seed, g, key, own) {
    var parts = [seed, str(g.game), key].concat(playersAndOptions(g));
    parts.push(unhex(g.rules_hash), u32(own.length));
    own.forEach(function (e) { parts.push(str(e)); });
    return prefix(g.game) + "-" + hex(await H("pbem/v3/game-id", parts)).slice(0, 8);
  }

  // ---- Keyed derivations ("The draw stream of a turn", "Hidden draws", "Sealed moves") ----
  function Keyed(version, key, id, body) {
    this.version = version;
    this.key = key;
    // Formats 3 and 4 bind every keyed derivation to the genesis body, 1 and 2 to the id.
    this.scope = version >= 3 ? body : str(id);
    this.id = id;
    this.body = body;
  }
  Keyed.prototype.salt = function (turn, j) {
    return this.version >= 3
      ? HMAC(this.key, "pbem/v3/salt", [this.scope, u64(turn), u32(j)])
      : HMAC(this.key, "pbem/v1/salt", [this.scope, u64(turn), u32(j)]);
  };
  Keyed.prototype.sealSalt = function (turn) {
    return HMAC(this.key, this.version >= 3 ? "pbem/v3/seal-salt" : "pbem/v2/seal-salt", [this.scope, u64(turn)]);
  };
  Keyed.prototype.sealKey = function (turn) {
    return HMAC(this.key, this.version >= 3 ? "pbem/v3/seal-key" : "pbem/v2/seal-key", [this.scope, u64(turn)]);
  };
  function movesField(moves) {
    var parts = [u32(moves.length)];
    moves.forEach(function (m) { parts.push(str(m[0]), str(m[1])); });
    return parts;
  }
  function hiddenCommit(salt, n, pick) {
    return H("pbem/v1/hidden-draw", [salt, u32(n), u32(pick)]);
  }
  // Re-derives a turn's draws from its key: the range is the file's, the pick the
  // stream's; a hidden draw's commitment must be the one of that pick. Null, or why not.
  async function checkDraws(keyed, turn, key, list) {
    var stream = new Stream(key);
    for (var j = 0; j < list.length; j++) {
      var d = list[j];
      var pick = index(stream, d.of);
      if (d.commit === undefined) {
        if (pick !== d.pick) { return "draw " + j + " is " + d.pick + " of " + d.of + ", the seed gives " + pick; }
      } else {
        var c = hex(await hiddenCommit(await keyed.salt(turn, j), d.of, pick));
        if (c !== d.commit) { return "hidden draw " + j + " (of " + d.of + ") is not committed to the pick the seed gives"; }
      }
    }
    return null;
  }
  // Opening a box: a non-empty multiple of 64 bytes, the text before the first zero
  // byte, zeros after it, valid UTF-8; null when it is no box.
  function openBox(key, box) {
    if (!box.length || box.length % 64) { return null; }
    var stream = new Stream(key).bytes(box.length);
    var plain = new Uint8Array(box.length);
    for (var i = 0; i < box.length; i++) { plain[i] = box[i] ^ stream[i]; }
    var end = plain.indexOf(0);
    if (end < 0) { return null; }
    for (var k = end; k < plain.length; k++) { if (plain[k]) { return null; } }
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(plain.subarray(0, end));
    } catch (e) {
      return null;
    }
  }
  function sealedCommit(salt, move) {
    return H("pbem/v2/sealed-move", [salt, str(move)]);
  }

  // ---- The ledger ("Taking back moves", "Rounds") ----
  function Ledger(players) {
    this.players = players;
    this.standing = []; // {turn, seat, free, round}
    this.request = null; // {asker, turn, agreed: {seat: true}}
  }
  Ledger.prototype.lastOf = function (seat) {
    for (var i = this.standing.length - 1; i >= 0; i--) {
      if (this.standing[i].seat === seat) {
        for (var k = i; k < this.standing.length; k++) {
          if (!this.standing[k].free) { return null; }
        }
        return this.standing[i].turn;
      }
    }
    return null;
  };
  Ledger.prototype.roundMembers = function (round) {
    var out = [];
    for (var i = this.standing.length - 1; i >= 0 && this.standing[i].round === round; i--) { out.unshift(this.standing[i]); }
    return out;
  };
  // The standing move before the last one's round (or null), and the round's moves.
  Ledger.prototype.roundInputs = function () {
    var last = this.standing[this.standing.length - 1];
    var members = last.round !== null ? this.roundMembers(last.round) : [last];
    var before = this.standing.length - members.length - 1;
    return { before: before >= 0 ? this.standing[before].turn : null, members: members };
  };
  Ledger.prototype.firstOfItsSeat = function () {
    var last = this.standing[this.standing.length - 1];
    if (last.round === null) { return true; }
    var members = this.roundMembers(last.round);
    for (var i = 0; i < members.length - 1; i++) { if (members[i].seat === last.seat) { return false; } }
    return true;
  };
  Ledger.prototype.move = function (n, seat, free, round) {
    if (round !== null && round !== n) {
      var last = this.standing[this.standing.length - 1];
      if (!last || last.round !== round) {
        fail(n, "it continues round " + round + ", which the last move standing is not part of");
      }
    }
    this.standing.push({ turn: n, seat: seat, free: free, round: round });
    this.request = null;
  };
  // A step of taking back; the record whose position an undo returns to, else null.
  Ledger.prototype.step = function (n, seat, step, turn) {
    var p = this.request;
    var last = this.standing.length ? this.standing[this.standing.length - 1].turn : null;
    if (step === "ask") {
      if (p !== null || this.lastOf(seat) !== turn || last === turn) { fail(n, "an ask the records do not allow"); }
      this.request = { asker: seat, turn: turn, agreed: {} };
    } else if (step === "agree" || step === "decline") {
      if (p === null || p.turn !== turn || p.asker === seat || p.agreed[seat]) {
        fail(n, "an answer to no request waiting for it");
      }
      if (step === "agree") { p.agreed[seat] = true; } else { this.request = null; }
    } else if (step === "undo") {
      if (this.lastOf(seat) !== turn) { fail(n, "an undo of a move that is not its player's last standing, or that cannot be taken back"); }
      var everyone = p !== null && p.asker === seat && p.turn === turn;
      for (var s = 0; everyone && s < this.players; s++) { if (s !== seat && !p.agreed[s]) { everyone = false; } }
      if (p !== null && !everyone) { fail(n, "an undo while a request waits for answers"); }
      if (p === null && last !== turn) { fail(n, "an undo without consent after others moved"); }
      this.request = null;
      this.standing = this.standing.filter(function (m) { return m.turn < turn; });
      return turn - 1;
    } else {
      fail(n, "an unknown step of taking back: " + JSON.stringify(step));
    }
    return null;
  };

  // ---- Signatures ----
  async function ed25519Key(raw) {
    return subtle.importKey("raw", raw, { name: "Ed25519" }, false, ["verify"]);
  }
  async function signed(key, signature, message) {
    try {
      return await subtle.verify({ name: "Ed25519" }, key, signature, message);
    } catch (e) {
      return false;
    }
  }

  // ---- The whole file ("Audit", steps 1 to 5, without the rules) ----
  async function check(raw, out) {
    var source;
    try {
      source = new TextDecoder("utf-8", { fatal: true }).decode(raw);
    } catch (e) {
      fail(null, "the file is not UTF-8 text");
    }
    var parsed = parseJson(source);
    var f = parsed.value;
    keysChecked(null, "the file", f, ["format", "genesis", "records", "seed", "state"],
      ["format", "genesis", "records", "seed", "state"]);
    var format = f.format;
    if (typeof format !== "string" || !(format in FORMATS)) {
      fail(null, "the format is not pbem.game/1, /2, /3 or /4");
    }
    var version = FORMATS[format];
    out.format = format;
    var g = f.genesis;
    keysChecked(0, "genesis", g, GENESIS_KEYS, GENESIS_KEYS.filter(function (k) { return k !== "entropy" && k !== "invitation"; }));
    ["game", "id", "engine", "rules_data", "draw_algorithm"].forEach(function (k) { text(0, "genesis " + k, g[k]); });
    if (!Array.isArray(g.players)) { fail(0, "genesis players is not a list"); }
    g.players.forEach(function (p, i) {
      keysChecked(0, "player " + i, p, ["name", "email"], ["name"]);
      text(0, "player " + i + "'s name", p.name);
      if ("email" in p) { text(0, "player " + i + "'s email", p.email); }
    });
    if (!isObject(g.options)) { fail(0, "genesis options is not an object"); }
    Object.keys(g.options).forEach(function (k) { text(0, "option " + k, g.options[k]); });
    ["rules_hash", "seed_commitment", "state_hash", "hash"].forEach(function (k) { hex64(0, "genesis " + k, g[k]); });
    var refereeKey = b64(0, "the referee's key", g.referee_key, 32);
    var genesisSignature = b64(0, "genesis' signature", g.signature, 64);
    var entropy = "entropy" in g ? g.entropy : [];
    if (!Array.isArray(entropy)) { fail(0, "genesis entropy is not a list"); }
    entropy.forEach(function (e, i) { text(0, "entropy " + i, e); });
    var invitation = "invitation" in g ? text(0, "genesis invitation", g.invitation) : "";
    if (invitation !== "") {
      if (version === 1) { fail(0, "a format-1 genesis names an invitation"); }
      hex64(0, "genesis invitation", invitation);
    }
    var setupDraws = draws(0, "setup draw", g.draws);
    if (!Array.isArray(f.records)) { fail(null, "records is not a list"); }
    if (f.seed !== null) { hex64(null, "the seed", f.seed); }
    if (!isObject(f.state)) { fail(null, "the state is not an object"); }
    if (g.draw_algorithm !== "pbem-draw/" + version) { fail(0, "the draw algorithm " + g.draw_algorithm + " is not the format's"); }
    var game = GAMES[g.game];
    if (!game) { fail(0, "the game " + JSON.stringify(g.game) + " is none pbem plays"); }
    if (!new RegExp("^" + prefix(g.game) + "-[0-9a-f]{8}$").test(g.id)) { fail(0, "the game id " + g.id + " is not the game's prefix and 8 hex digits"); }
    var seats = new Map();
    var names = new Map();
    g.players.forEach(function (p, i) {
      var k = nameKey(p.name);
      if (names.has(k)) { fail(0, "two players are named alike: " + JSON.stringify(names.get(k)) + " and " + JSON.stringify(p.name)); }
      names.set(k, p.name);
      seats.set(p.name, i);
    });
    out.players = g.players.map(function (p) { return p.name; });
    out.key = g.referee_key;
    out.id = g.id;
    out.game = g.game;

    // Each record's shape, before anything is hashed.
    var records = f.records.map(function (r, i) {
      var n = i + 1;
      var allowed = RECORD_KEYS[version];
      keysChecked(n, "record " + n, r, allowed,
        ["turn", "player", "draws", "prev", "state_hash", "hash", "signature"].concat(version === 1 ? ["move"] : []));
      var turn = integer(n, "its turn", r.turn, U64);
      var rec = {
        n: n, turn: turn, player: text(n, "its player", r.player), draws: draws(n, "draw", r.draws),
        prev: hex64(n, "its prev", r.prev), state_hash: hex64(n, "its state_hash", r.state_hash),
        hash: hex64(n, "its hash", r.hash), signature: b64(n, "its signature", r.signature, 64),
        move: "move" in r ? text(n, "its move", r.move) : "", round: null, opens: []
      };
      if (rec.move === "") { rec.move = null; }
      if ("sealed" in r) {
        keysChecked(n, "its sealed move", r.sealed, ["commit", "box"], ["commit", "box"]);
        rec.sealed = { commit: hex64(n, "its sealed commit", r.sealed.commit), box: b64(n, "its sealed box", r.sealed.box) };
      }
      if ("undo" in r) {
        keysChecked(n, "its step of taking back", r.undo, ["step", "turn"], ["step", "turn"]);
        rec.undo = { step: text(n, "its step", r.undo.step), turn: integer(n, "the turn it takes back", r.undo.turn, U64) };
      }
      if ("round" in r) {
        var round = integer(n, "its round", r.round, U64);
        if (round < 1n || round > turn) { fail(n, "its round is not from 1 to its own turn"); }
        rec.round = Number(round);
      }
      if ("combined" in r) {
        rec.combined = text(n, "its combined move", r.combined);
        if (rec.combined === "") { fail(n, "its combined move is empty"); }
      }
      if ("history" in r) { rec.history = hex64(n, "its history", r.history); }
      if ("opens" in r) {
        if (!Array.isArray(r.opens)) { fail(n, "its openings are not a list"); }
        rec.opens = r.opens.map(function (o) {
          keysChecked(n, "an opening", o, ["turn", "move", "salt"], ["turn", "move", "salt"]);
          return { turn: integer(n, "an opening's turn", o.turn, U64), move: text(n, "an opening's move", o.move), salt: o.salt };
        });
      }
      var shapes = (rec.move !== null ? 1 : 0) + (rec.sealed ? 1 : 0) + (rec.undo ? 1 : 0);
      if (shapes !== 1) { fail(n, "it is not exactly one of a move, a sealed move and a step of taking back"); }
      if (rec.undo && (rec.opens.length || rec.round !== null || "combined" in rec || "history" in rec || rec.draws.length)) {
        fail(n, "a step of taking back holds an opening, a round, a combined move, a history or draws");
      }
      if (version === 4 && !rec.undo && !("history" in rec)) { fail(n, "a move without its standing history"); }
      if (rec.sealed && "combined" in rec) { fail(n, "a sealed move with a combined move"); }
      return rec;
    });

    var rulesHash = hex(await sha256(utf8(g.rules_data)));
    if (rulesHash !== g.rules_hash) { fail(0, "the rules data do not match their hash"); }
    var body = await genesisBody(format, version, g, entropy, invitation, refereeKey);
    // "Joining": the players' words close the entropy, each after its name, and the
    // invitation is genesis without them.
    if (invitation !== "") {
      var own = entropy.length - g.players.length;
      if (own < 0) { fail(0, "genesis holds fewer entropy entries than players"); }
      g.players.forEach(function (p, i) {
        if (!entropy[own + i].startsWith(p.name + ": ")) { fail(0, "genesis holds no words of " + p.name + " where that seat's are due"); }
      });
      var invited = await genesisBody(format, version, g, entropy.slice(0, own), "", refereeKey);
      if (hex(await H("pbem/v2/invitation", [invited])) !== invitation) {
        fail(0, "genesis does not name the invitation it came from (the players' words or the invitation changed)");
      }
      out.joined = entropy.slice(own);
    }
    var seed = f.seed === null ? null : unhex(f.seed);
    var keyed = null;
    if (seed !== null) {
      if (hex(await H("pbem/v1/seed-commitment", [str(g.id), seed])) !== g.seed_commitment) {
        fail(0, "the revealed seed does not match its commitment");
      }
      if (version >= 3) {
        var ownEntropy = invitation !== "" ? entropy.slice(0, entropy.length - g.players.length) : entropy;
        var derived = await gameId(seed, g, refereeKey, ownEntropy);
        if (derived !== g.id) { fail(0, "the game id " + g.id + " is not the one the seed and genesis give (" + derived + ")"); }
      }
      keyed = new Keyed(version, await hmacKey(seed), g.id, body);
    }
    var genesisHash = await H("pbem/v1/genesis", [body, drawsField(setupDraws), unhex(g.state_hash)]);
    if (hex(genesisHash) !== g.hash) { fail(0, "genesis does not match its hash"); }
    var verifier;
    try {
      verifier = await ed25519Key(refereeKey);
    } catch (e) {
      fail(0, "the referee's key is no Ed25519 key");
    }
    if (!(await signed(verifier, genesisSignature, genesisHash))) { fail(0, "the referee's signature of genesis does not verify"); }
    out.draws = setupDraws.length;
    if (keyed) {
      var setupKey;
      if (version === 1) {
        setupKey = await HMAC(keyed.key, "pbem/v1/draw", [str(g.id), u64(0), body, str(""), str("")]);
      } else if (version === 2) {
        setupKey = await HMAC(keyed.key, "pbem/v2/draw", [str(g.id), u64(0), body, u32(0)]);
      } else {
        setupKey = await HMAC(keyed.key, "pbem/v3/setup", [body]);
      }
      var setupWrong = await checkDraws(keyed, 0, setupKey, setupDraws);
      if (setupWrong) { fail(0, "the setup's " + setupWrong); }
    }

    var states = [unhex(g.state_hash)];
    var hashes = [genesisHash];
    var texts = new Map(); // the text of each sealed record, once opened
    var opened = new Set();
    var unopened = new Map(); // seat -> its sealed records no record opened yet
    var histories = new Map();
    var ledger = new Ledger(g.players.length);
    out.sealed = 0;
    out.pendingBoxes = 0;
    for (var k = 0; k < records.length; k++) {
      var r = records[k];
      var n = r.n;
      var prev = hashes[n - 1];
      if (r.turn !== BigInt(n)) { fail(n, "it says it is record " + r.turn); }
      if (!seats.has(r.player)) { fail(n, JSON.stringify(r.player) + " is not a player of genesis"); }
      r.seat = seats.get(r.player);
      if (r.prev !== hex(prev)) { fail(n, "it does not link to the record before it"); }
      if (r.undo) {
        var restores = ledger.step(n, r.seat, r.undo.step, Number(r.undo.turn));
        var expected = restores === null ? states[n - 1] : states[restores];
        if (r.state_hash !== hex(expected)) { fail(n, "its state hash is not that of the position it leaves"); }
      } else {
        var fixed = !!r.sealed || r.opens.length > 0 || r.draws.length > 0;
        ledger.move(n, r.seat, !fixed, r.round);
        if (version === 4) {
          var first = ledger.firstOfItsSeat();
          if (r.sealed && !first) { fail(n, "a sealed move of a seat that already moved in its round"); }
          if ("combined" in r && first) { fail(n, "a combined move on its seat's first move of its round"); }
          if (!("combined" in r) && !first) { fail(n, "no combined move, on its seat's second move of its round"); }
        }
        if (r.sealed) {
          if (!game.seals) { fail(n, "a sealed move in a game that seals none"); }
          out.sealed += 1;
          if (keyed) {
            var opened_text = openBox(await keyed.sealKey(n), r.sealed.box);
            if (opened_text === null) { fail(n, "its sealed box does not open with the seed"); }
            if (hex(await sealedCommit(await keyed.sealSalt(n), opened_text)) !== r.sealed.commit) {
              fail(n, "its sealed box does not open to the move it committed to");
            }
            texts.set(n, opened_text);
          }
        }
        if (r.sealed && !keyed) {
          // Before the reveal the record that opens this one gives its text, so it is
          // checked here: pbem reads the opening with the sealed record then, and names
          // that record when it fails (after the reveal, the opening record).
          for (var later = n; later < records.length; later++) {
            var opener = records[later].opens.filter(function (o) { return o.turn === BigInt(n); })[0];
            if (opener) {
              hex64(n, "the salt of its opening in record " + (later + 1), opener.salt);
              if (hex(await sealedCommit(unhex(opener.salt), opener.move)) !== r.sealed.commit) {
                fail(n, "record " + (later + 1) + " opens it to a move it did not commit to");
              }
              break;
            }
          }
        }
        // "Sealed moves": a sealed record is opened by its player's next move record,
        // and by no other; each record opens at most one.
        var waiting = unopened.get(r.seat) || [];
        if (r.opens.length && !game.seals) { fail(n, "an opening in a game that seals none"); }
        if (game.seals) {
          if (waiting.length) {
            if (r.opens.length !== 1 || r.opens[0].turn !== BigInt(waiting[0])) {
              fail(n, "it does not open its player's sealed move of record " + waiting[0] + ", as its player's next move must");
            }
          } else if (r.opens.length) {
            fail(n, "it opens a sealed move that is not its player's, or was opened before");
          }
        }
        for (var o = 0; o < r.opens.length; o++) {
          var opening = r.opens[o];
          var t = Number(opening.turn);
          var target = t >= 1 && t < n ? records[t - 1] : null;
          if (!target || !target.sealed) { fail(n, "it opens record " + opening.turn + ", which is no earlier sealed move"); }
          if (opened.has(t)) { fail(n, "it opens record " + t + " a second time"); }
          hex64(n, "an opening's salt", opening.salt);
          opened.add(t);
          if (hex(await sealedCommit(unhex(opening.salt), opening.move)) !== target.sealed.commit) {
            fail(n, "its opening of record " + t + " does not match that record's commitment");
          }
          if (keyed) {
            if (hex(await keyed.sealSalt(t)) !== opening.salt) { fail(n, "its opening of record " + t + " has not the salt the seed gives"); }
            if (texts.get(t) !== opening.move) { fail(n, "its opening of record " + t + " is not the move that record's box holds"); }
          } else {
            texts.set(t, opening.move);
          }
        }
        if (waiting.length && r.opens.length) { waiting.shift(); }
        if (r.sealed) { waiting.push(n); }
        unopened.set(r.seat, waiting);
        out.draws += r.draws.length;
        if (keyed) {
          var drawKey = await recordKey(version, keyed, g, records, r, ledger, hashes, states, texts, histories, body, genesisHash);
          var wrong = await checkDraws(keyed, n, drawKey, r.draws);
          if (wrong) { fail(n, "its " + wrong); }
        }
      }
      var h = await recordHash(version, g.id, r, prev);
      if (hex(h) !== r.hash) { fail(n, "its contents do not match its hash"); }
      if (!(await signed(verifier, r.signature, h))) { fail(n, "the referee's signature does not verify"); }
      hashes.push(h);
      states.push(unhex(r.state_hash));
    }
    unopened.forEach(function (list) { out.pendingBoxes += list.length; });
    out.records = records.length;

    // The stored state: its bytes as the file holds them, hashed, against the head's.
    var span = parsed.spans.state;
    var stateHash = await H("pbem/v1/state", [bytes(utf8(source.slice(span[0], span[1])))]);
    if (!sameBytes(stateHash, states[states.length - 1])) { fail(null, "the stored state is not the one the head's state hash signs"); }
    if (game.over(f.state) && seed === null) { fail(null, "the game is over but its seed is not revealed"); }
    out.revealed = seed !== null;
    out.over = game.over(f.state);
    out.head = hex(hashes[hashes.length - 1]);
  }

  // "The draw stream of a turn": record n's key.
  async function recordKey(version, keyed, g, records, r, ledger, hashes, states, texts, histories, body, genesisHash) {
    var n = r.n;
    var key = keyed.key;
    var textOf = function (m) { return m.sealed ? texts.get(m.n) : m.move; };
    if (version === 1) {
      return HMAC(key, "pbem/v1/draw", [str(g.id), u64(n), hashes[n - 1], str(r.player), str(r.move)]);
    }
    if (version === 2) {
      if (!r.sealed) {
        return HMAC(key, "pbem/v2/draw", [str(g.id), u64(n), states[n - 1]].concat(movesField([[r.player, r.move]])));
      }
      var first = n;
      while (first > 1 && records[first - 2].sealed) { first -= 1; }
      var run = records.slice(first - 1, n).slice().sort(function (a, b) { return a.seat - b.seat || a.n - b.n; });
      return HMAC(key, "pbem/v2/draw", [str(g.id), u64(n), states[first - 1]].concat(
        movesField(run.map(function (m) { return [m.player, textOf(m)]; }))));
    }
    var inputs = ledger.roundInputs();
    var members = inputs.members.map(function (m) { return records[m.turn - 1]; });
    if (version === 3) {
      var anchor = inputs.before === null ? genesisHash : hashes[inputs.before];
      members.sort(function (a, b) { return a.seat - b.seat || a.n - b.n; });
      return HMAC(key, "pbem/v3/draw", [body, anchor].concat(movesField(members.map(function (m) { return [m.player, textOf(m)]; }))));
    }
    var before = inputs.before === null ? body : histories.get(inputs.before);
    var latest = new Map();
    members.forEach(function (m) { latest.set(m.seat, m); });
    var entries = Array.from(latest.keys()).sort(function (a, b) { return a - b; }).map(function (seat) {
      var m = latest.get(seat);
      return [m.player, "combined" in m ? m.combined : textOf(m)];
    });
    var history = await HMAC(key, "pbem/v4/history", [body, before].concat(movesField(entries)));
    if (hex(history) !== r.history) { fail(n, "its standing history is not the one the seed and the standing moves give"); }
    histories.set(n, history);
    return HMAC(key, "pbem/v4/draw", [body, history]);
  }

  // "Hashes of the chain": record r's hash from its contents.
  async function recordHash(version, id, r, prev) {
    if (version === 1) {
      return H("pbem/v1/record", [str(id), u64(r.n), prev, str(r.player), str(r.move), drawsField(r.draws), unhex(r.state_hash)]);
    }
    var parts;
    if (r.sealed) {
      parts = [u8(1), unhex(r.sealed.commit), bytes(r.sealed.box)];
    } else if (r.undo) {
      parts = [u8(2), str(r.undo.step), u64(r.undo.turn)];
    } else {
      parts = [u8(0), str(r.move)];
    }
    if (version >= 3) { parts.push(u64(r.round === null ? 0 : r.round)); }
    if (version === 4) {
      parts.push("combined" in r ? concat([u8(1), str(r.combined)]) : u8(0));
      parts.push("history" in r ? concat([u8(1), unhex(r.history)]) : u8(0));
    }
    parts.push(u32(r.opens.length));
    r.opens.forEach(function (o) { parts.push(u64(o.turn), str(o.move), unhex(o.salt)); });
    return H("pbem/v" + version + "/record", [str(id), u64(r.n), prev, str(r.player)].concat(parts,
      [drawsField(r.draws), unhex(r.state_hash)]));
  }

  // The verdict on a file's bytes: {ok, failed: {record, why} | null, text, ...}.
  // `record` is null for the file as a whole, 0 for genesis, n for record n.
  async function verify(raw) {
    var out = { ok: false, failed: null };
    if (!subtle) {
      out.failed = { record: null, why: "this browser has no Web Crypto here (open the page as a file or over https)" };
      out.text = "Not verified: " + out.failed.why + ".";
      return out;
    }
    try {
      await check(raw, out);
      out.ok = true;
    } catch (e) {
      out.failed = e instanceof Bad ? { record: e.record, why: e.why } : { record: null, why: "the file cannot be read: " + e };
    }
    out.text = describe(out);
    return out;
  }

  var LEFT = "Not checked in the browser (it needs the game's rules; `pbem audit FILE` does it): whether each move was legal and in the form the rules record it in, and the states the moves lead to; only the stored state is checked, against the hash the head signs.";
  function describe(v) {
    if (v.failed) {
      var where = v.failed.record === null ? "The file" : v.failed.record === 0 ? "Genesis" : "Record " + v.failed.record;
      return "NOT verified: " + where + " fails: " + v.failed.why + ".";
    }
    var counts = v.records + " records, " + v.draws + " draws, " + v.sealed + " sealed moves, signed by key " + v.key;
    // "Joining": only each player can vouch that the words genesis holds are theirs.
    var joined = v.joined ? " The players joined; genesis holds their words as: " + v.joined.join("; ") + ". Each player checks that their own are the words they sent." : "";
    if (v.revealed) {
      return "Verified in this browser: " + counts + "; the seed is revealed and matches its commitment, and every draw, sealed move and opening was derived again from it. " + LEFT + joined;
    }
    var pending = "the seed against its commitment" + (FORMATS[v.format] >= 3 ? " and the game id" : "") +
      ", the re-derivation of the " + v.draws + " draws (public picks and hidden draws' commitments)" +
      (v.sealed ? ", the opening of every sealed box (" + v.pendingBoxes + " not yet opened by a record) and the salts of the openings" : "") +
      (FORMATS[v.format] === 4 ? ", the standing history each move carries" : "");
    return "Verified in this browser so far: " + counts + ": the chain, every hash, link and signature, the rounds and the ledger of taking back, every opening against its commitment. Pending until the seed is revealed (the end of the game reveals it; only the seed opens them): " + pending + ". " + LEFT + joined;
  }

  return {
    verify: verify,
    parseJson: parseJson,
    chacha20Block: chacha20Block,
    chacha20Xor: chacha20Xor,
    Stream: Stream,
    index: index,
    H: H,
    HMAC: HMAC,
    hmacKey: hmacKey,
    sha256: sha256,
    hex: hex,
    unhex: unhex,
    utf8: utf8,
    str: str,
    u32: u32,
    u64: u64,
    concat: concat,
    toBase64: toBase64,
    openBox: openBox,
    hiddenCommit: hiddenCommit,
    sealedCommit: sealedCommit,
    Keyed: Keyed,
    gameId: gameId,
    genesisBody: genesisBody,
    recordHash: recordHash,
    movesField: movesField
  };
})();
