//! Golden vectors: they pin `pbem-draw/1` (docs/FAIRNESS.md). If one of these changes,
//! old games can no longer be audited: that is a new draw algorithm, not a fix. The
//! values were cross-checked against docs/reference/pbem_draw.py, an independent
//! implementation from the specification, which the tests below also run: on the same
//! vectors, and as a checker of a whole revealed game file pbem wrote.

use std::process::Output;

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use pbem::basics::digest::{to_hex, Fields};
use pbem::engine::fairness::{
    hidden_commitment, open_box, seal_box, sealed_commitment, RecordingChance, Scope, Seed,
    TurnDraws,
};
use pbem::engine::file::FileText;
use pbem::engine::keyring::Keyring;
use pbem::engine::roster::parse_player;
use pbem::engine::session::{Game, NewGame};
use pbem::engine::{
    index_from_stream, BoardContext, Chance, DrawStream, GameView, LegalMove, Options, RuleError,
    Rules, Seat, Viewer, Visibility,
};
use serde::{Deserialize, Serialize};

const GAME: &str = "row-0a1b2c3d";

fn seed() -> Seed {
    Seed(core::array::from_fn(|i| i as u8))
}

fn rust_vectors() -> Vec<String> {
    let mut zero = DrawStream::new([0; 32]);
    let words: Vec<String> = (0..4)
        .map(|_| format!("{:08x}", zero.next_word()))
        .collect();
    let mut stream = DrawStream::new([7; 32]);
    let picks: Vec<u32> = [61, 54, 53, 6, 2, 1000, 3, 1]
        .iter()
        .map(|&n| stream.index(n))
        .collect();
    let seed = seed();
    let anchor = Fields::hash("anchor").finish();
    let salt = seed.salt(GAME, 3, 1);
    vec![
        words.join(" "),
        format!("{picks:?}"),
        to_hex(&seed.commitment(GAME)),
        to_hex(&seed.draw_key(GAME, 3, &anchor, "Ann", "place E,W at E5")),
        to_hex(&salt),
        to_hex(&hidden_commitment(&salt, 54, 17)),
    ]
    .into_iter()
    .chain(skip_vectors())
    .chain(hidden_vectors(&seed, &anchor))
    .chain(v2_vectors(&seed, &anchor))
    .collect()
}

/// `pbem-draw/2`: draw keys of k = 0, 1 and 3 moves; sealed moves (salt, key,
/// commitment, box) of a short text, a text of exactly 64 bytes (two blocks) and a
/// non-ASCII one, each box opened and then refused once tampered with; the draws of a
/// sealed round's turn, mixing public and hidden ones.
fn v2_vectors(seed: &Seed, anchor: &[u8; 32]) -> Vec<String> {
    let mut out: Vec<String> = [
        (0, vec![]),
        (3, vec![("Ann", "place E,W at E5")]),
        (
            7,
            vec![("Ann", "bid 3"), ("Bob", "pass"), ("Cy", "bid 5 \u{2660}")],
        ),
    ]
    .iter()
    .map(|(turn, moves)| {
        format!(
            "v2 key k {} {}",
            moves.len(),
            to_hex(&seed.draw_key_v2(GAME, *turn, anchor, moves))
        )
    })
    .collect();
    let json = |opened: &Option<String>| serde_json::to_string(opened).expect("json");
    let sixty_four = "0123456789abcdef".repeat(4);
    for (turn, text) in [
        (5, "bid 3"),
        (6, sixty_four.as_str()),
        (1 << 40, "bid 3 \u{2660} f\u{fc}r Zo\u{eb}"),
    ] {
        let salt = seed.seal_salt(GAME, turn);
        let key = seed.seal_key(GAME, turn);
        let sealed = seal_box(&key, text);
        let commit = sealed_commitment(&salt, text);
        out.push(format!(
            "seal t {turn} salt {} key {} commit {} box {}",
            to_hex(&salt),
            to_hex(&key),
            to_hex(&commit),
            BASE64.encode(&sealed)
        ));
        // The box XOR the keystream: the padded text, to tamper with it knowingly.
        let mut plain = sealed.clone();
        DrawStream::new(key).apply_keystream(&mut plain);
        let changed = |at: usize, mask: u8| {
            let mut changed = sealed.clone();
            changed[at] ^= mask;
            changed
        };
        let mut tampered = vec![
            ("last-byte", changed(sealed.len() - 1, 1)),
            ("short", sealed[..sealed.len() - 1].to_vec()),
            ("nul-inside", changed(1, plain[1])),
            ("first-byte", changed(0, 1)),
        ];
        if let Some(wide) = plain.iter().position(|&b| b >= 0x80) {
            tampered.push(("utf8", changed(wide, 0x80)));
        }
        let mut line = vec![format!("open {}", json(&open_box(&key, &sealed)))];
        for (name, changed) in tampered {
            let opened = open_box(&key, &changed);
            line.push(format!("{name} {}", json(&opened)));
            if let Some(text) = opened {
                let commits = sealed_commitment(&salt, &text) == commit;
                line.push(format!("commits {}", if commits { "yes" } else { "no" }));
            }
        }
        out.push(line.join("; "));
    }
    let scope = Scope::Id(GAME.to_string());
    let turn = TurnDraws {
        seed,
        scope: &scope,
        turn: 9,
    };
    let key = seed.draw_key_v2(GAME, 9, anchor, &[("Ann", "choose 2"), ("Bob", "choose 1")]);
    let mut chance = RecordingChance::new(turn, key);
    for (n, visibility) in [
        (6, Visibility::Hidden),
        (4, Visibility::Public),
        (1000, Visibility::Hidden),
        ((1 << 31) + 1, Visibility::Public),
    ] {
        chance.draw(n, visibility);
    }
    out.push(serde_json::to_string(&chance.draws).expect("json"));
    out
}

/// The sampler's skip path. For n = 2^31 + 1 the limit is n itself, so about half the
/// words are skipped; for n = 3 * 2^30, a quarter. The key is the first of
/// H("pbem/test/skip", u32(i)) whose first word is skipped.
fn skip_vectors() -> Vec<String> {
    let (i, half_picks, half_taken) = skip_picks((1 << 31) + 1);
    let (_, quarter_picks, quarter_taken) = skip_picks(3 << 30);
    vec![
        format!("key {i} picks {half_picks:?} words {half_taken}"),
        format!("picks {quarter_picks:?} words {quarter_taken}"),
    ]
}

/// The sampler's skip path for range `n`: the key is the first of
/// H("pbem/test/skip", u32(i)) whose first word is skipped for n = 2^31 + 1; eight
/// draws from it: (i, the picks, the words they took).
pub(super) fn skip_picks(n: u32) -> (u32, Vec<u32>, u32) {
    let skip_key = |i: u32| Fields::hash("pbem/test/skip").u32(i).finish();
    let i = (0..)
        // Skipped for n = 2^31 + 1: a word at or above the limit, which is n itself.
        .find(|&i| DrawStream::new(skip_key(i)).next_word() > 1 << 31)
        .expect("a key");
    let mut stream = DrawStream::new(skip_key(i));
    let mut taken = 0;
    let picks = (0..8)
        .map(|_| {
            index_from_stream(n, || {
                taken += 1;
                stream.next_word()
            })
        })
        .collect();
    (i, picks, taken)
}

/// Salts and commitments of hidden draws (the j-th draw of turn t), and the draws of a
/// turn mixing public and hidden ones as the file lists them.
fn hidden_vectors(seed: &Seed, anchor: &[u8; 32]) -> Vec<String> {
    let mut out: Vec<String> = [
        (0, 0, 6, 5),
        (0, 2, 54, 0),
        (7, 1, 2, 1),
        (1 << 40, 1 << 31, 1000, 999),
    ]
    .iter()
    .map(|&(t, j, n, pick)| {
        let salt = seed.salt(GAME, t, j);
        format!(
            "t {t} j {j} salt {} commit {}",
            to_hex(&salt),
            to_hex(&hidden_commitment(&salt, n, pick))
        )
    })
    .collect();
    let scope = Scope::Id(GAME.to_string());
    let turn = TurnDraws {
        seed,
        scope: &scope,
        turn: 4,
    };
    let mut chance = RecordingChance::new(turn, seed.draw_key(GAME, 4, anchor, "Bob", "pass"));
    for (n, visibility) in [
        (6, Visibility::Public),
        (54, Visibility::Hidden),
        (2, Visibility::Public),
        (1000, Visibility::Hidden),
        (1, Visibility::Hidden),
    ] {
        chance.draw(n, visibility);
    }
    out.push(serde_json::to_string(&chance.draws).expect("json"));
    out
}

#[test]
fn golden_vectors_hold() {
    assert_eq!(
        rust_vectors(),
        [
            // RFC 8439's ChaCha20 block for the zero key and nonce, as words.
            "ade0b876 903df1a0 e56a5d40 28bd8653",
            "[0, 25, 34, 2, 0, 676, 1, 0]",
            "6e9aadff1b1bb726954e9c45cc9e2c8e0471a442c48030593f12e7376484f78d",
            "a607e8f52f231fc7c29370b6a0c9994ccd67030185e17205f94d9af1a7ce601e",
            "2295bca99b430841842bb7846297dc3cfc1347337953b091f80921d05d8af272",
            "3e72d2e18ef191b333ad279dc77fdf83bc1f4168953cf48087e69670b35e020a",
            // The skip path: 16 words for 8 draws when about half are skipped.
            "key 1 picks [531283322, 1147653326, 969900609, 1783927038, 1434806599, \
             1272206880, 269138109, 1966818268] words 16",
            "picks [531283322, 2944605352, 1147653326, 2723178985, 2979682249, 969900609, \
             1783927038, 1434806599] words 10",
            "t 0 j 0 salt e6a819407ebc18b2f1f9b353cbc6edd0de509430ff764853b9ff2c4f0be27acf \
             commit 8e7c6238ea8e06f7379c63b63f85102630438242538496dbbc18e39ab260b414",
            "t 0 j 2 salt 92d9464fe53d800f1ad278ae876c4b92b6c5323e7b8d57e38ad02cece87ce823 \
             commit f027c78f3a2f0ef0571afbeb3f00e8e257f976f3c05e30228974c2c589153e90",
            "t 7 j 1 salt 7ab583ccb0baef8789118002bb674aba6859eb1a45ff682a968fc9d3b676629c \
             commit 34699e42dff810e141de4ed3c7d717879113bf10b371010a384367a1697eb70c",
            "t 1099511627776 j 2147483648 \
             salt 511f207986b77c80a17fa9e703a94267b8d28747ebaf052ea79c8205416a1cac \
             commit 0410c6fbddabdeba1478b35175a56b995fc63c62c511b3027ebbdc680ff9454e",
            "[{\"of\":6,\"pick\":3},\
             {\"of\":54,\"commit\":\"dcf7836c2c73afb04111011eebd458f139ecac8d36e1309341a71a99add48735\"},\
             {\"of\":2,\"pick\":0},\
             {\"of\":1000,\"commit\":\"14a3be5729e823b93345287498997fe96c733d6ef3ebacd760682fb0768183fd\"},\
             {\"of\":1,\"commit\":\"e0d9fe9fdd2db6462ce830d3e6ec072b6894cbe5364bb13ee91fcdc2349e5c89\"}]",
            // pbem-draw/2: draw keys of 0, 1 and 3 moves.
            "v2 key k 0 668cd6784f072c4de9a77c0288e67d55af0f701906e1609e4ae254355a152\
             f8c",
            "v2 key k 1 1241a198cbb8c3c3f99116245dae49de53c1aac500e9ade3bb04b11efcd16\
             42e",
            "v2 key k 3 0a8169a78e3ef16b3d23a30587612bca5c3921b6f5639e42dccc8a10bd598\
             a8f",
            // Sealed moves: each box, opened, then refused or opened to a text that does not
            // match the commitment once tampered with.
            "seal t 5 salt 3112c2a17e790887a9ca4a8135a78e290ce2bfcad74e99585d8d51354e\
             033479 key 1e39f4e379fb49cf9352d2a29bfa9f972d6ff0fdb05377e77bf1231c80b15\
             419 commit 4d782916230f3e5b8b98d93a3c8c6047d68b5183b43beb4ccb566df35ad2b\
             6ed box 4t94JPqZgtrIVfjU4pw1gXbmFIDjyO+cs+JFtJhbrRNS2MF2D33cECg1GQd91Emz\
             X2q0o7utOmzO4SMsC85YWw==",
            "open \"bid 3\"; last-byte null; short null; nul-inside null; first-byte \
             \"cid 3\"; commits no",
            "seal t 6 salt 24559491aa65bef8abb6e1c39352f4acf57e1b3ad58b451fd8106ba36b\
             97129b key 3428a87bea5f33bba3d7043507e7201ffd1846f5bd377850dfa0ae2a7a04a\
             24e commit d7ca5c1ba4406275babe8b58e1f7722751d5e1a3c18895c39f3b53c5e67de\
             fc3 box jeHC5G6FnZu6BoUEqC31KyA1Pk8iYY3x7s3MlEKoMe95qEObEJaMW4mmp8M2lA0w\
             1Y6DpRwZRTBXpNsPPlVO32z9p4JfOpmrwQ3xYK47SFKQNLwOjHWh1ltSC39x+hUc7gQQRNVK\
             9+BhyUIBYMDu4oaGzbMCt+tWDpihuBsxdQw=",
            "open \"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"\
             ; last-byte null; short null; nul-inside null; first-byte \"1123456789ab\
             cdef0123456789abcdef0123456789abcdef0123456789abcdef\"; commits no",
            "seal t 1099511627776 salt 5715b0411c9ad7c9784e6f03a9ff646587006c33f5d014\
             6cf5110d58a0b8ac42 key 10bbded08f594e3824f57a784457a234787d1efd3acb14e8e\
             ce4709ee02aa40a commit 65673427db7eb71be19844e603e3bab7aa5451f079bde5ffd\
             3d527e079adc334 box VD2fbbGDhjQQdQsrA85dfC7NH8NQ7eLMbQ9GdQq9djzE17f2IQ1z\
             /y5JewhUngcsl3iHfsiTdpw916necV6W5w==",
            "open \"bid 3 ♠ für Zoë\"; last-byte null; short null; nul-inside null; f\
             irst-byte \"cid 3 ♠ für Zoë\"; commits no; utf8 null",
            // A sealed round's draws.
            "[{\"of\":6,\"commit\":\"4639355f38319afd5b22208e2cb064257a54c12fb20ede44\
             0d8f9b0a4a80ec36\"},{\"of\":4,\"pick\":0},{\"of\":1000,\"commit\":\"ccd0\
             7e0111fb00a8c1164e7706feec04cc780e8ac45e537b0fb40a04a02f302f\"},{\"of\":\
             2147483649,\"pick\":831481003}]",
        ]
    );
}

use super::support::reference;

fn lines_of(output: &Output) -> Vec<String> {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone())
        .expect("utf-8")
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn the_independent_reference_implementation_agrees() {
    assert_eq!(lines_of(&reference(&[])), rust_vectors());
}

/// A revealed game pbem wrote, some turns in.
fn revealed_game(keyring: &Keyring) -> Vec<u8> {
    let driver = pbem::games::find("right-of-way").expect("registered");
    let request = NewGame {
        players: vec![parse_player("Ann"), parse_player("Bob <bob@example.org>")],
        seed: Some(Seed([3; 32])),
        entropy: vec!["Ann's coin".into(), "Bob: 7".into()],
        ..NewGame::default()
    };
    let bytes = driver.create(request, keyring).expect("create");
    let mut game = pbem::ops::open_bytes(&bytes, Some(keyring), false).expect("opens");
    let mut picker = DrawStream::for_testing(3);
    for _ in 0..24 {
        let view = game.view(None, None).expect("view");
        if view["over"] == true {
            break;
        }
        let player = view["to_move"][0].as_str().expect("a player").to_string();
        let legal = game.legal(&player).expect("legal");
        let text = pbem::engine::driver::pick(&legal, &mut picker).expect("a move");
        game.apply(keyring, &player, &text).expect("applies");
    }
    game.reveal(keyring).expect("reveal");
    game.bytes().to_vec()
}

#[test]
fn the_reference_implementation_checks_a_whole_revealed_game() {
    let dir = tempfile::tempdir().expect("dir");
    let keyring = Keyring::at(dir.path().join("keyring"));
    let bytes = revealed_game(&keyring);
    let path = dir.path().join("game.json");
    std::fs::write(&path, &bytes).expect("write");
    let path = path.to_str().expect("utf-8 path");
    // What the checker recomputed, line by line, is what the file holds.
    let file: serde_json::Value = serde_json::from_slice(&bytes).expect("json");
    let genesis = &file["genesis"];
    let records = file["records"].as_array().expect("records");
    assert!(records.len() >= 20, "{}", records.len());
    let count = |draws: &serde_json::Value| draws.as_array().expect("draws").len();
    let mut expected = vec![format!(
        "genesis {} draws {}",
        genesis["hash"].as_str().expect("hash"),
        count(&genesis["draws"])
    )];
    for record in records {
        expected.push(format!(
            "record {} {} draws {}",
            record["turn"],
            record["hash"].as_str().expect("hash"),
            count(&record["draws"])
        ));
    }
    let head = records.last().expect("a record");
    expected.push(format!(
        "state {}",
        head["state_hash"].as_str().expect("hex")
    ));
    expected.push("ok".into());
    assert_eq!(lines_of(&reference(&["check", path])), expected);
    assert!(records.iter().any(|record| count(&record["draws"]) > 0));

    // A changed draw, move or state is caught (by a hash, as the signatures are not
    // checked there).
    let text = String::from_utf8(bytes).expect("utf-8");
    let first_pick = text.find("\"pick\":").expect("a public draw") + 7;
    let digit = text.as_bytes()[first_pick];
    let other = if digit == b'0' { "1" } else { "0" };
    let mut changed_pick = text.clone();
    changed_pick.replace_range(first_pick..=first_pick, other);
    let changed_state = text.replacen("\"over\":false", "\"over\":true", 1);
    let moved = head["move"].as_str().expect("move");
    let changed_move = text.replacen(
        &format!("\"move\":{}", serde_json::to_string(moved).expect("json")),
        "\"move\":\"pass\"",
        1,
    );
    for changed in [changed_pick, changed_state, changed_move] {
        assert_ne!(changed, text);
        std::fs::write(dir.path().join("game.json"), &changed).expect("write");
        let output = reference(&["check", path]);
        assert!(!output.status.success(), "{changed}");
        assert!(String::from_utf8_lossy(&output.stderr).contains("FAILED"));
    }
}

#[test]
fn the_reference_implementation_checks_moves_taken_back() {
    use pbem::engine::file::UndoStep;
    let dir = tempfile::tempdir().expect("dir");
    let keyring = Keyring::at(dir.path().join("keyring"));
    let driver = pbem::games::find("right-of-way").expect("registered");
    let request = NewGame {
        players: vec![parse_player("Ann"), parse_player("Bob")],
        seed: Some(Seed([5; 32])),
        ..NewGame::default()
    };
    let bytes = driver.create(request, &keyring).expect("create");
    let mut game = pbem::ops::open_bytes(&bytes, Some(&keyring), false).expect("opens");
    // A move that draws nothing, of whoever is to move.
    let quiet = |game: &dyn pbem::engine::driver::OpenGame| {
        let view = game.view(None, None).expect("view");
        let player = view["to_move"][0].as_str().expect("a player").to_string();
        let text = game
            .legal(&player)
            .expect("legal")
            .into_iter()
            .find(|m| m.kind == "place" && m.details["profit"] == m.details["cost"])
            .expect("a quiet move")
            .text;
        (player, text)
    };
    let (first, text) = quiet(game.as_ref());
    game.apply(&keyring, &first, &text).expect("applies");
    game.take_back(&keyring, &first, UndoStep::Undo)
        .expect("at once");
    game.apply(&keyring, &first, &text).expect("again");
    let (second, text) = quiet(game.as_ref());
    game.apply(&keyring, &second, &text).expect("applies");
    game.take_back(&keyring, &first, UndoStep::Undo)
        .expect("asks");
    game.take_back(&keyring, &second, UndoStep::Decline)
        .expect("declines");
    game.take_back(&keyring, &first, UndoStep::Undo)
        .expect("asks");
    game.take_back(&keyring, &second, UndoStep::Agree)
        .expect("agrees");
    let (player, text) = quiet(game.as_ref());
    game.apply(&keyring, &player, &text).expect("applies after");
    game.reveal(&keyring).expect("reveal");
    let path = dir.path().join("game.json");
    std::fs::write(&path, game.bytes()).expect("write");
    let path = path.to_str().expect("utf-8 path");
    let lines = lines_of(&reference(&["check", path]));
    let steps: Vec<&str> = lines
        .iter()
        .filter_map(|line| line.split(' ').nth(3))
        .filter(|word| ["ask", "agree", "decline", "undo"].contains(word))
        .collect();
    assert_eq!(steps, ["undo", "ask", "decline", "ask", "agree", "undo"]);
    assert_eq!(lines.last().map(String::as_str), Some("ok"));

    // An undo nobody agreed to, or one that names another position, is caught.
    let text = String::from_utf8(game.bytes().to_vec()).expect("utf-8");
    // Declined instead of agreed, the chain hashed and signed again: only the rule of
    // consent can refuse it.
    let no_consent = {
        let mut file: serde_json::Value = serde_json::from_str(&text).expect("json");
        for record in file["records"].as_array_mut().expect("records") {
            if record["undo"]["step"] == "agree" {
                record["undo"]["step"] = "decline".into();
            }
        }
        super::support::resign(&mut file, &keyring.signing_key().expect("key"));
        serde_json::to_string(&file).expect("json")
    };
    // The first undo's line, with the position it names changed (pbem writes one
    // record a line).
    let elsewhere: String = {
        let mut changed = false;
        text.split_inclusive('\n')
            .map(|line| {
                if !changed && line.contains("\"step\":\"undo\"") {
                    changed = true;
                    let at = line.find("\"state_hash\":\"").expect("a state hash") + 14;
                    let mut line = line.to_string();
                    line.replace_range(at..at + 64, &"0".repeat(64));
                    line
                } else {
                    line.to_string()
                }
            })
            .collect()
    };
    for changed in [no_consent, elsewhere] {
        assert_ne!(changed, text);
        std::fs::write(dir.path().join("game.json"), &changed).expect("write");
        let output = reference(&["check", path]);
        assert!(!output.status.success());
        let said = String::from_utf8_lossy(&output.stderr);
        assert!(said.contains("FAILED"), "{said}");
        assert!(
            said.contains("without consent") || said.contains("state_hash"),
            "{said}"
        );
    }
}

#[test]
fn a_draw_key_depends_on_every_input() {
    let seed = seed();
    let anchor = Fields::hash("anchor").finish();
    let base = seed.draw_key(GAME, 3, &anchor, "Ann", "place E,W at E5");
    let other_anchor = Fields::hash("other").finish();
    for variant in [
        seed.draw_key("row-0a1b2c3e", 3, &anchor, "Ann", "place E,W at E5"),
        seed.draw_key(GAME, 4, &anchor, "Ann", "place E,W at E5"),
        seed.draw_key(GAME, 3, &other_anchor, "Ann", "place E,W at E5"),
        seed.draw_key(GAME, 3, &anchor, "Bob", "place E,W at E5"),
        seed.draw_key(GAME, 3, &anchor, "Ann", "place E,W at E5 "),
        Seed([9; 32]).draw_key(GAME, 3, &anchor, "Ann", "place E,W at E5"),
    ] {
        assert_ne!(variant, base);
    }
}

/// Stone, paper, scissors with sealed choices, in Japanese (so that sealed texts are
/// not ASCII): a test game with everything format 2 records. The setup deals each
/// player a hidden card (hidden draws of turn 0). Round 1: both players choose, sealed,
/// in any order; the round's last choice draws a hidden bonus and a public roll. Then
/// Ann opens both choices (`opens`), drawing a public roll and a hidden bonus. Round 2:
/// both choose again, sealed, and the round's last choice ends the game, its choices
/// never opened by a record (the reveal of the seed opens them).
struct Janken;

const HANDS: [&str; 3] = ["グー", "チョキ", "パー"];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Table {
    round: u32,
    opening: bool,
    /// Hidden: each seat's card, dealt by the setup.
    cards: Vec<u32>,
    /// Hidden: the bonuses drawn so far.
    bonus: Vec<u32>,
    /// Hidden until opened: this round's choices.
    choices: Vec<Option<u32>>,
    /// Who has chosen this round.
    chosen: Vec<bool>,
    /// The choices opened, in seat order, round by round.
    shown: Vec<u32>,
    /// The public rolls.
    rolls: Vec<u32>,
    over: bool,
}

#[derive(Debug, Clone, PartialEq)]
enum Janke {
    Choose(u32),
    Open,
}

impl Rules for Janken {
    type State = Table;
    type Move = Janke;

    const NAME: &'static str = "janken";
    const HAS_HIDDEN_STATE: bool = true;

    fn from_options(_options: &Options) -> Result<Self, RuleError> {
        Ok(Janken)
    }

    fn options(&self) -> Options {
        Options::new()
    }

    fn setup(&self, players: &[String], chance: &mut dyn Chance) -> Result<Table, RuleError> {
        if players.len() != 2 {
            return Err(RuleError::new("janken is for two players", "two --player"));
        }
        Ok(Table {
            round: 1,
            opening: false,
            cards: (0..2)
                .map(|_| chance.draw(10, Visibility::Hidden))
                .collect(),
            bonus: Vec::new(),
            choices: vec![None; 2],
            chosen: vec![false; 2],
            shown: Vec::new(),
            rolls: vec![chance.draw(4, Visibility::Public)],
            over: false,
        })
    }

    fn to_move(&self, state: &Table) -> Vec<Seat> {
        match (state.over, state.opening) {
            (true, _) => Vec::new(),
            (false, true) => vec![0],
            (false, false) => (0..2).filter(|&seat| !state.chosen[seat]).collect(),
        }
    }

    fn is_over(&self, state: &Table) -> bool {
        state.over
    }

    fn parse_move(&self, state: &Table, _seat: Seat, text: &str) -> Result<Janke, RuleError> {
        let text = text.trim();
        if state.opening {
            return match text {
                "open" => Ok(Janke::Open),
                _ => Err(RuleError::new(format!("`{text}` is not a move"), "open")),
            };
        }
        let hand = text.strip_prefix("choose ").map(str::trim);
        match hand.and_then(|hand| HANDS.iter().position(|h| *h == hand)) {
            Some(hand) => Ok(Janke::Choose(hand as u32)),
            None => Err(RuleError::new(
                format!("`{text}` is not a move"),
                "choose グー",
            )),
        }
    }

    fn canonical_text(&self, mv: &Janke) -> String {
        match mv {
            Janke::Choose(hand) => format!("choose {}", HANDS[*hand as usize]),
            Janke::Open => "open".to_string(),
        }
    }

    fn apply(
        &self,
        state: &Table,
        seat: Seat,
        mv: &Janke,
        chance: &mut dyn Chance,
    ) -> Result<Table, RuleError> {
        if !self.to_move(state).contains(&seat) {
            return Err(RuleError::new("it is not your turn", "wait"));
        }
        let mut next = state.clone();
        match mv {
            Janke::Choose(hand) if !state.opening => {
                next.choices[seat] = Some(*hand);
                next.chosen[seat] = true;
                if next.chosen.iter().all(|&chosen| chosen) {
                    next.bonus.push(chance.draw(6, Visibility::Hidden));
                    next.rolls.push(chance.draw(4, Visibility::Public));
                    next.opening = next.round == 1;
                    next.over = next.round == 2;
                }
            }
            Janke::Open if state.opening => {
                next.shown.extend(next.choices.iter().flatten());
                next.choices = vec![None; 2];
                next.chosen = vec![false; 2];
                next.rolls.push(chance.draw(3, Visibility::Public));
                next.bonus.push(chance.draw(5, Visibility::Hidden));
                next.round = 2;
                next.opening = false;
            }
            _ => return Err(RuleError::new("not now", "wait")),
        }
        Ok(next)
    }

    fn is_sealed(&self, state: &Table, _seat: Seat) -> bool {
        !state.opening
    }

    fn opens(&self, _state: &Table, _seat: Seat, mv: &Janke) -> Vec<Seat> {
        match mv {
            Janke::Open => vec![0, 1],
            Janke::Choose(_) => Vec::new(),
        }
    }

    fn public_state(&self, state: &Table) -> Table {
        Table {
            cards: Vec::new(),
            bonus: Vec::new(),
            choices: vec![None; state.choices.len()],
            ..state.clone()
        }
    }

    fn legal_moves(&self, state: &Table, seat: Seat) -> Vec<LegalMove> {
        if !self.to_move(state).contains(&seat) {
            return Vec::new();
        }
        let texts: Vec<String> = if state.opening {
            vec!["open".into()]
        } else {
            HANDS.iter().map(|hand| format!("choose {hand}")).collect()
        };
        texts
            .into_iter()
            .map(|text| LegalMove {
                text,
                kind: "move".into(),
                details: serde_json::Map::new(),
            })
            .collect()
    }

    fn scores(&self, state: &Table) -> Vec<i64> {
        // Nothing public scores: the cards stay hidden (scores are read from the public
        // state too, so they may not depend on them).
        vec![0; state.chosen.len()]
    }

    fn winners(&self, state: &Table) -> Vec<Seat> {
        if state.over {
            vec![0, 1]
        } else {
            Vec::new()
        }
    }

    fn view(&self, _state: &Table, _viewer: Viewer, _names: &[String]) -> GameView {
        GameView::default()
    }

    fn board(&self, state: &Table, _context: &BoardContext<'_>) -> String {
        format!("round {}\n", state.round)
    }
}

/// Plays janken to its end: `moves` in order, checking the audit before the reveal.
fn janken(keyring: &Keyring, moves: &[(&str, &str)]) -> Game<Janken> {
    let request = NewGame {
        players: vec![parse_player("Ann"), parse_player("Bob <bob@example.org>")],
        seed: Some(Seed([5; 32])),
        entropy: vec!["Bob: 7".into()],
        ..NewGame::default()
    };
    let mut game = Game::<Janken>::create(request, keyring).expect("create");
    for (player, text) in moves {
        game.apply(keyring, player, text).expect("applies");
        if game.file.seed.is_none() {
            // Before the reveal an outsider's audit passes, with the hidden draws and
            // the sealed moves pending.
            let report = game.audit(None);
            assert!(report.passed(), "{}", report.render());
            assert!(!report.pending.is_empty(), "{}", report.render());
        }
    }
    game
}

const JANKEN: [(&str, &str); 5] = [
    ("Ann", "choose パー"),
    ("Bob", "choose グー"),
    ("Ann", "open"),
    ("Bob", "choose チョキ"),
    ("Ann", "choose グー"),
];

/// Whether pbem's own audit (an outsider's, from the file alone) refuses the bytes.
fn pbem_refuses(bytes: &[u8]) -> bool {
    let game = FileText::parse(bytes)
        .and_then(|text| text.game_file())
        .and_then(Game::<Janken>::from_file);
    game.map_or(true, |game| !game.audit(None).passed())
}

#[test]
fn the_reference_implementation_checks_sealed_moves_openings_and_hidden_draws() {
    let dir = tempfile::tempdir().expect("dir");
    let keyring = Keyring::at(dir.path().join("keyring"));
    let game = janken(&keyring, &JANKEN);
    assert!(game.file.seed.is_some(), "the end reveals the seed");
    let report = game.audit(None);
    assert!(
        report.passed() && report.draws_derived && report.pending.is_empty(),
        "{}",
        report.render()
    );
    let bytes = game.file.to_bytes().expect("bytes");
    assert!(!pbem_refuses(&bytes));
    let path = dir.path().join("janken.json");
    std::fs::write(&path, &bytes).expect("write");
    let path = path.to_str().expect("utf-8 path");

    let file: serde_json::Value = serde_json::from_slice(&bytes).expect("json");
    assert_eq!(file["format"], "pbem.game/4");
    let genesis = &file["genesis"];
    let records = file["records"].as_array().expect("records");
    let count = |draws: &serde_json::Value| draws.as_array().expect("draws").len();
    let hidden = |draws: &serde_json::Value| {
        draws
            .as_array()
            .expect("draws")
            .iter()
            .filter(|draw| draw.get("commit").is_some())
            .count()
    };
    assert_eq!(hidden(&genesis["draws"]), 2, "the setup's hidden draws");
    let sealed: Vec<bool> = records.iter().map(|r| r.get("sealed").is_some()).collect();
    assert_eq!(sealed, [true, true, false, true, true]);
    assert!(records
        .iter()
        .all(|r| r.get("move").is_some() != r.get("sealed").is_some()));
    assert_eq!(hidden(&records[1]["draws"]), 1);
    assert_eq!(hidden(&records[2]["draws"]), 1);
    assert_eq!(hidden(&records[4]["draws"]), 1);
    let mut expected = vec![format!(
        "genesis {} draws {}",
        genesis["hash"].as_str().expect("hash"),
        count(&genesis["draws"])
    )];
    for record in records {
        let mut line = format!(
            "record {} {} draws {}",
            record["turn"],
            record["hash"].as_str().expect("hash"),
            count(&record["draws"])
        );
        if record.get("sealed").is_some() {
            line.push_str(" sealed");
        }
        if let Some(opens) = record.get("opens") {
            let turns: Vec<String> = opens
                .as_array()
                .expect("openings")
                .iter()
                .map(|opening| opening["turn"].to_string())
                .collect();
            line.push_str(&format!(" opens {}", turns.join(",")));
        }
        expected.push(line);
    }
    assert!(expected[3].ends_with(" opens 1,2"), "{}", expected[3]);
    let head = records.last().expect("a record");
    expected.push(format!(
        "state {}",
        head["state_hash"].as_str().expect("hex")
    ));
    expected.push("ok".into());
    assert_eq!(lines_of(&reference(&["check", path])), expected);

    // Copies with a changed sealed box, opening text, hidden draw or public draw, which
    // both the reference and pbem refuse.
    let text = String::from_utf8(bytes).expect("utf-8");
    let first_box = records[0]["sealed"]["box"].as_str().expect("a box");
    let other = if first_box.starts_with('A') { "B" } else { "A" };
    let changed_box = text.replacen(
        &format!("\"box\":\"{first_box}\""),
        &format!("\"box\":\"{other}{}\"", &first_box[1..]),
        1,
    );
    let opened = format!("{{\"turn\":1,\"move\":\"choose {}\"", HANDS[2]);
    assert!(text.contains(&opened), "Ann's sealed パー is opened");
    let changed_opening = text.replacen(
        &opened,
        &format!("{{\"turn\":1,\"move\":\"choose {}\"", HANDS[1]),
        1,
    );
    let commit = records[1]["draws"][0]["commit"].as_str().expect("hidden");
    let digit = if commit.starts_with('0') { "1" } else { "0" };
    let changed_hidden = text.replacen(commit, &format!("{digit}{}", &commit[1..]), 1);
    // The last public pick of the file is the last record's roll, out of 4.
    let at = text.rfind("\"pick\":").expect("a public draw") + 7;
    let pick = &text[at..=at];
    let mut changed_pick = text.clone();
    changed_pick.replace_range(at..=at, if pick == "0" { "1" } else { "0" });
    for (changed, says) in [
        // The changed box opens to another text or to none, as the keystream has it.
        (changed_box, "record 1"),
        (changed_opening, "record 3 opening of turn 1: commitment"),
        (changed_hidden, "record 2 draw 0"),
        (changed_pick, "record 5 draw 1"),
    ] {
        assert_ne!(changed, text);
        std::fs::write(path, &changed).expect("write");
        let output = reference(&["check", path]);
        assert!(!output.status.success(), "{changed}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(&format!("FAILED: {says}")),
            "{says}: {stderr}"
        );
        assert!(pbem_refuses(changed.as_bytes()), "{says}");
    }
}

/// A sealed round's draws do not depend on the order its moves arrived in, and its
/// openings are listed by turn whatever that order.
#[test]
fn a_round_that_arrived_out_of_seat_order_opens_and_audits() {
    let dir = tempfile::tempdir().expect("dir");
    let keyring = Keyring::at(dir.path().join("keyring"));
    let game = janken(
        &keyring,
        &[
            ("Bob", "choose グー"),
            ("Ann", "choose パー"),
            ("Ann", "open"),
            ("Bob", "choose チョキ"),
            ("Ann", "choose グー"),
        ],
    );
    let turns: Vec<u64> = game.file.records[2].opens.iter().map(|o| o.turn).collect();
    let report = game.audit(None);
    assert!(report.passed(), "openings {turns:?}: {}", report.render());
    assert_eq!(turns, [1, 2]);
}

/// The draws of a sealed round are keyed on its moves in seat order: the same choices
/// arriving in the other order draw the same.
#[test]
fn a_sealed_round_draws_the_same_whatever_order_its_moves_arrived_in() {
    // One fixed referee key (genesis, and so the setup's draws, depend on it), a
    // keyring per game (each holds the game's seed once).
    let dir = tempfile::tempdir().expect("dir");
    let key = format!("{}\n", "07".repeat(32));
    let games = std::cell::Cell::new(0);
    let round = |moves: &[(&str, &str)]| {
        games.set(games.get() + 1);
        let home = dir.path().join(format!("game{}", games.get()));
        std::fs::create_dir_all(&home).expect("home");
        std::fs::write(home.join("referee.key"), &key).expect("the key");
        let keyring = Keyring::at(home);
        let mut game = janken(&keyring, &[]);
        for (player, text) in moves {
            game.apply(&keyring, player, text).expect("applies");
        }
        game.file.records[1].draws.clone()
    };
    let ann_first = round(&[("Ann", "choose パー"), ("Bob", "choose グー")]);
    let bob_first = round(&[("Bob", "choose グー"), ("Ann", "choose パー")]);
    assert_eq!(ann_first.len(), 2);
    assert_eq!(ann_first, bob_first);
    let other = round(&[("Bob", "choose チョキ"), ("Ann", "choose パー")]);
    assert_ne!(ann_first, other, "another choice draws otherwise (here)");
}

/// The reference reads the first format too: a format-1 game file written by the pbem
/// before sealed moves, revealed by this one (which keeps its format), checks whole.
#[test]
fn the_reference_implementation_checks_a_format_1_file() {
    let table = crate::support::Table::new();
    table.format_1_game();
    table
        .pbem()
        .args(["reveal", "--force"])
        .arg(table.file())
        .assert()
        .success();
    let written = std::fs::read_to_string(table.file()).expect("read");
    assert!(written.starts_with("{\"format\":\"pbem.game/1\""));
    let path = table.file();
    let output = reference(&["check", path.to_str().expect("utf-8 path")]);
    let lines = lines_of(&output);
    assert!(
        lines.iter().any(|line| line.contains("record 12")),
        "{lines:?}"
    );
    // A changed pick is caught.
    let changed = written.replacen("\"pick\":", "\"pick\":1", 1);
    std::fs::write(&path, changed).expect("write");
    assert!(!reference(&["check", path.to_str().expect("utf-8 path")])
        .status
        .success());
}

/// The reference checks a game the players joined (`pbem new --join`): the invitation
/// genesis names is genesis without the players' words, and their words key the setup.
#[test]
fn the_reference_implementation_checks_a_joined_game() {
    let table = crate::support::Table::new();
    table.test_key();
    table
        .pbem()
        .args(["new", "right-of-way", "--player", "Ann", "--player", "Bob"])
        .args(["--seed", &"2e".repeat(32), "--join", "--out"])
        .arg(table.file())
        .assert()
        .success();
    for (player, words) in [("Bob", "seven swans"), ("Ann", "blue heron")] {
        table
            .pbem()
            .arg("join")
            .arg(table.file())
            .args(["--player", player, "--entropy", words])
            .assert()
            .success();
    }
    table
        .pbem()
        .args(["reveal", "--force"])
        .arg(table.file())
        .assert()
        .success();
    let path = table.file();
    let path_text = path.to_str().expect("utf-8 path");
    let lines = lines_of(&reference(&["check", path_text]));
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("invitation ") && l.ends_with("joined by 2")),
        "{lines:?}"
    );
    let written = std::fs::read_to_string(&path).expect("read");
    for (from, to) in [
        ("Ann: blue heron", "Ann: blue herons"),
        ("\"invitation\":\"", "\"invitation\":\"0"),
    ] {
        let changed = written.replacen(from, to, 1);
        assert_ne!(changed, written);
        std::fs::write(&path, changed).expect("write");
        assert!(!reference(&["check", path_text]).status.success(), "{to}");
    }
}

/// The file's text with its record lines (one a line, as pbem writes them) replaced by
/// `records`, whose keys serde_json orders its own way (the reference reads any order).
fn with_records(text: &str, records: &[serde_json::Value]) -> String {
    let mut next = records.iter();
    text.split_inclusive('\n')
        .map(|line| {
            if !line.starts_with("{\"turn\":") {
                return line.to_string();
            }
            let record = next.next().expect("as many records");
            let end = if line.ends_with(",\n") { ",\n" } else { "\n" };
            format!("{}{end}", serde_json::to_string(record).expect("json"))
        })
        .collect()
}

/// The reference checks a game of format 4: a triangle auction whose placing round one
/// seat plays in several messages (each after its first carries the seat's moves of the
/// round `combined`), one of them taken back and made again (the standing history skips
/// the records taken back), then a sealed round, revealed. It refuses copies with a
/// changed `history` or `combined` (hashed again or not) and a changed draw.
#[test]
fn the_reference_implementation_checks_the_standing_history_of_format_4() {
    use crate::support::Table;
    use serde_json::Value;
    let table = Table::new();
    table.start(
        "triangle-auction",
        &["Ann <ann@example.org>", "Bob <bob@example.org>", "Cat"],
        &"22".repeat(32),
    );
    let movers = super::trust::to_the_placements(&table);
    // The seat that won the most tiles places them one message at a time.
    let won = |player: &str| {
        table.view()["players"]
            .as_array()
            .expect("players")
            .iter()
            .find(|p| p["name"] == player)
            .map_or(0, |p| p["won"].as_array().expect("won").len())
    };
    let many = movers
        .iter()
        .max_by_key(|player| won(player))
        .expect("a mover")
        .clone();
    assert!(won(&many) >= 3, "{many} won {}", won(&many));
    // Whether `player` still has tiles of this round to place.
    let to_place = |player: &str| {
        let view = table.view();
        view["phase"] == "placing"
            && view["to_move"]
                .as_array()
                .expect("to_move")
                .iter()
                .any(|m| m == player)
    };
    let place = |player: &str| {
        let text = table
            .legal(player)
            .iter()
            .find(|e| e["kind"] == "place" || e["kind"] == "discard")
            .and_then(|e| e["move"].as_str())
            .expect("a placement")
            .to_string();
        let (ok, error) = table.apply(player, &text);
        assert!(ok, "{player} {text}: {error}");
        text
    };
    place(&many);
    let second = place(&many);
    let (ok, output) = table.run(&["undo", "--player", &many]);
    assert!(ok, "{output}");
    assert_eq!(place(&many), second, "the same tile placed again");
    for player in std::iter::once(&many).chain(movers.iter().filter(|p| **p != many)) {
        while to_place(player) {
            place(player);
        }
    }
    // The next round's sealed cards and the bids that open them.
    for _ in 0..6 {
        let (mover, text) = table.first_move();
        let (ok, error) = table.apply(&mover, &text);
        assert!(ok, "{error}");
    }
    let (ok, output) = table.run(&["reveal", "--force"]);
    assert!(ok, "{output}");

    let text = std::fs::read_to_string(table.file()).expect("the file");
    let file: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(file["format"], "pbem.game/4");
    assert_eq!(file["genesis"]["draw_algorithm"], "pbem-draw/4");
    let records = file["records"].as_array().expect("records").clone();
    let index = |turn: &Value| usize::try_from(turn.as_u64().expect("a turn")).expect("a turn") - 1;
    let record = |turn: &Value| &records[index(turn)];
    let undo = records
        .iter()
        .find(|r| r.get("undo").is_some())
        .expect("the undo");
    let taken = record(&undo["undo"]["turn"]);
    let again = &records[index(&undo["turn"]) + 1];
    assert!(taken.get("combined").is_some(), "{taken}");
    for key in ["move", "combined", "history"] {
        assert_eq!(taken[key], again[key], "{key}: the same standing moves");
    }
    let combined: Vec<u64> = records
        .iter()
        .filter(|r| r.get("combined").is_some())
        .map(|r| r["turn"].as_u64().expect("a turn"))
        .collect();
    assert!(combined.len() >= 3, "{combined:?}");
    let drawing = records
        .iter()
        .find(|r| r["draws"].as_array().is_some_and(|d| !d.is_empty()))
        .expect("the placement that ends the round draws the next offer");
    assert!(records.iter().any(|r| r.get("sealed").is_some()));

    // What the reference recomputed, line by line, is what the file holds.
    let count = |draws: &Value| draws.as_array().expect("draws").len();
    let mut expected = vec![format!(
        "genesis {} draws {}",
        file["genesis"]["hash"].as_str().expect("hash"),
        count(&file["genesis"]["draws"])
    )];
    for r in &records {
        let hash = r["hash"].as_str().expect("hash");
        let mut line = if let Some(undo) = r.get("undo") {
            format!(
                "record {} {hash} {} {}",
                r["turn"],
                undo["step"].as_str().expect("a step"),
                undo["turn"]
            )
        } else {
            format!("record {} {hash} draws {}", r["turn"], count(&r["draws"]))
        };
        if r.get("sealed").is_some() {
            line.push_str(" sealed");
        }
        if let Some(opens) = r.get("opens") {
            let turns: Vec<String> = opens
                .as_array()
                .expect("openings")
                .iter()
                .map(|o| o["turn"].to_string())
                .collect();
            line.push_str(&format!(" opens {}", turns.join(",")));
        }
        expected.push(line);
    }
    let head = records.last().expect("a record");
    expected.push(format!(
        "state {}",
        head["state_hash"].as_str().expect("hex")
    ));
    expected.push("ok".into());
    let path = table.file();
    let path = path.to_str().expect("utf-8 path");
    assert_eq!(lines_of(&reference(&["check", path])), expected);

    // Hashed and signed again unchanged, the file still checks: so what the copies
    // below are refused for is their change.
    let key = Keyring::at(table.home()).signing_key().expect("the key");
    let changed = |change: &dyn Fn(&mut Vec<Value>), hash_again: bool| {
        let mut file = file.clone();
        let mut records = records.clone();
        change(&mut records);
        file["records"] = Value::Array(records);
        if hash_again {
            super::support::resign(&mut file, &key);
        }
        with_records(&text, file["records"].as_array().expect("records"))
    };
    let resigned = changed(&|_| {}, true);
    std::fs::write(path, &resigned).expect("write");
    assert_eq!(lines_of(&reference(&["check", path])), expected);

    let at = index(&again["turn"]);
    let other_history = |records: &mut Vec<Value>| {
        let history = records[at]["history"].as_str().expect("hex").to_string();
        let digit = if history.starts_with('0') { "1" } else { "0" };
        records[at]["history"] = format!("{digit}{}", &history[1..]).into();
    };
    // The same steps in another order: a respelling the rules would not record.
    let respelt = |records: &mut Vec<Value>| {
        let combined = records[at]["combined"].as_str().expect("combined");
        let mut steps: Vec<&str> = combined.split("; ").collect();
        steps.reverse();
        records[at]["combined"] = steps.join("; ").into();
    };
    let without_combined = |records: &mut Vec<Value>| {
        records[at]
            .as_object_mut()
            .expect("a record")
            .remove("combined");
    };
    let last = index(&drawing["turn"]);
    let other_pick = |records: &mut Vec<Value>| {
        let draw = &mut records[last]["draws"][0];
        let pick = draw["pick"].as_u64().expect("a public pick");
        draw["pick"] = ((pick + 1) % draw["of"].as_u64().expect("of")).into();
    };
    // Each copy, the record the reference names and what it says. Not hashed again, a
    // changed `history` or `combined` is caught by the history recomputed before the
    // record's hash; hashed again, by the history alone.
    let cases = [
        (changed(&other_history, false), at, "history"),
        (changed(&other_history, true), at, "history"),
        (changed(&respelt, false), at, "history"),
        (changed(&respelt, true), at, "history"),
        (
            changed(&without_combined, true),
            at,
            "lacks the combined move",
        ),
        (changed(&other_pick, false), last, "draw 0"),
    ];
    for (number, (changed, index, says)) in cases.iter().enumerate() {
        assert_ne!(changed, &text, "case {number}");
        std::fs::write(path, changed).expect("write");
        let output = reference(&["check", path]);
        assert!(!output.status.success(), "case {number}: {changed}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        let record = format!("record {}", index + 1);
        assert!(
            stderr.contains(&format!("FAILED: {record}")) && stderr.contains(says),
            "case {number}, {record}: {says}: {stderr}"
        );
        let (passed, report) = table.audit(false);
        assert!(!passed, "case {number}: pbem's audit passed it: {report}");
    }
}
