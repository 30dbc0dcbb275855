//! Golden vectors: they pin `pbem-draw/1` (docs/FAIRNESS.md). If one of these changes,
//! old games can no longer be audited: that is a new draw algorithm, not a fix. The
//! values were cross-checked against docs/reference/pbem_draw.py, an independent
//! implementation from the specification, which the tests below also run: on the same
//! vectors, and as a checker of a whole revealed game file pbem wrote.

use std::process::{Command, Output};

use pbem::engine::digest::{to_hex, Fields};
use pbem::engine::fairness::{hidden_commitment, RecordingChance, Seed, TurnDraws};
use pbem::engine::keyring::Keyring;
use pbem::engine::session::{parse_player, NewGame};
use pbem::engine::{index_from_stream, Chance, DrawStream, Visibility};

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
    .collect()
}

/// The sampler's skip path. For n = 2^31 + 1 the limit is n itself, so about half the
/// words are skipped; for n = 3 * 2^30, a quarter. The key is the first of
/// H("pbem/test/skip", u32(i)) whose first word is skipped.
fn skip_vectors() -> Vec<String> {
    let skip_key = |i: u32| Fields::hash("pbem/test/skip").u32(i).finish();
    let half = (1u32 << 31) + 1;
    let i = (0..)
        .find(|&i| DrawStream::new(skip_key(i)).next_word() >= half)
        .expect("a key");
    let picks = |n: u32| {
        let mut stream = DrawStream::new(skip_key(i));
        let mut taken = 0;
        let picks: Vec<u32> = (0..8)
            .map(|_| {
                index_from_stream(n, || {
                    taken += 1;
                    stream.next_word()
                })
            })
            .collect();
        (picks, taken)
    };
    let (half_picks, half_taken) = picks(half);
    let (quarter_picks, quarter_taken) = picks(3 << 30);
    vec![
        format!("key {i} picks {half_picks:?} words {half_taken}"),
        format!("picks {quarter_picks:?} words {quarter_taken}"),
    ]
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
    let turn = TurnDraws {
        seed,
        game_id: GAME,
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
        ]
    );
}

fn reference(args: &[&str]) -> Output {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/reference/pbem_draw.py");
    Command::new("python3")
        .arg(script)
        .args(args)
        .output()
        .expect("python3 runs (CI installs it)")
}

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
