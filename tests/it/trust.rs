//! What nobody can steer, and one strict reading of the file by every command: the same
//! move from the same position draws the same however many moves were taken back, the
//! order simultaneous moves arrived in changes no draw, a seed reused in another
//! keyring shares nothing, and a file with a key given twice, an upper-case hex digit
//! or a forged cached state is refused alike by every command, which leaves it as it
//! was.

use std::path::Path;

use serde_json::Value;

use super::support::{quiet_move, to_move, Table};

const SEED: &str = "2222222222222222222222222222222222222222222222222222222222222222";

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder");
    for entry in std::fs::read_dir(from).expect("a folder") {
        let entry = entry.expect("an entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("a copy");
        }
    }
}

/// Another table holding exactly this one's keyring and game file.
fn copy_of(table: &Table) -> Table {
    let copy = Table::new();
    copy_tree(table.dir.path(), copy.dir.path());
    copy
}

fn records(table: &Table) -> Vec<Value> {
    let file: Value =
        serde_json::from_slice(&std::fs::read(table.file()).expect("the file")).expect("JSON");
    file["records"].as_array().expect("records").clone()
}

fn undo_at_once(table: &Table, player: &str) {
    let (ok, output) = table.run(&["undo", "--player", player]);
    assert!(ok, "{output}");
}

#[test]
fn a_move_draws_the_same_however_many_moves_were_taken_back_before_it() {
    let start = Table::new();
    start.new_game(SEED);
    let first = to_move(&start.view());
    let drawing = start.drawing_move(&first);
    let quiet = quiet_move(&start.legal(&first));

    let mut drawn = Vec::new();
    for cycles in 0..3 {
        let table = copy_of(&start);
        for _ in 0..cycles {
            let (ok, error) = table.apply(&first, &quiet);
            assert!(ok, "{error}");
            undo_at_once(&table, &first);
        }
        let (ok, error) = table.apply(&first, &drawing);
        assert!(ok, "{error}");
        let records = records(&table);
        let last = records.last().expect("the move");
        assert_eq!(records.len(), 1 + 2 * cycles, "{records:?}");
        assert_eq!(last["move"], drawing.as_str());
        assert!(!last["draws"].as_array().expect("draws").is_empty());
        drawn.push(last["draws"].clone());
        let (passed, report) = table.audit(false);
        assert!(passed, "{report}");
    }
    assert_eq!(drawn[0], drawn[1], "one move taken back on the way");
    assert_eq!(drawn[0], drawn[2], "two moves taken back on the way");
}

/// Plays a triangle auction with first legal moves until several players are to place
/// the tiles they won at once.
pub(super) fn to_the_placements(table: &Table) -> Vec<String> {
    for _ in 0..200 {
        let view = table.view();
        let movers: Vec<String> = view["to_move"]
            .as_array()
            .expect("to_move")
            .iter()
            .filter_map(|m| m.as_str().map(str::to_string))
            .collect();
        let first = table.legal(&movers[0]);
        if movers.len() >= 2 && first.iter().any(|e| e["kind"] == "place") {
            return movers;
        }
        let text = first[0]["move"].as_str().expect("a move").to_string();
        let (ok, error) = table.apply(&movers[0], &text);
        assert!(ok, "{error}");
    }
    panic!("no placements in 200 moves");
}

#[test]
fn simultaneous_moves_in_clear_draw_the_same_in_any_arrival_order() {
    let start = Table::new();
    start.start(
        "triangle-auction",
        &["Ann <ann@example.org>", "Bob <bob@example.org>", "Cat"],
        SEED,
    );
    let movers = to_the_placements(&start);
    assert!(movers.len() >= 2, "{movers:?}");
    let orders: Vec<Vec<usize>> = match movers.len() {
        2 => vec![vec![0, 1], vec![1, 0]],
        _ => vec![vec![0, 1, 2], vec![2, 0, 1], vec![1, 2, 0]],
    };
    let mut outcomes = Vec::new();
    for order in &orders {
        let table = copy_of(&start);
        let before = records(&table).len();
        // Each player places every tile they won, a move at a time (a tile may be
        // placed in a message of its own), before the next player's turn comes.
        for &index in order {
            let player = &movers[index];
            while table.view()["to_move"]
                .as_array()
                .expect("to_move")
                .iter()
                .any(|m| m == player.as_str())
                && table.view()["players"].as_array().is_some()
            {
                let legal = table.legal(player);
                if !legal
                    .iter()
                    .any(|e| e["kind"] == "place" || e["kind"] == "discard")
                {
                    break;
                }
                let text = legal
                    .iter()
                    .find(|e| e["kind"] == "place" || e["kind"] == "discard")
                    .and_then(|e| e["move"].as_str())
                    .expect("a placement")
                    .to_string();
                let (ok, error) = table.apply(player, &text);
                assert!(ok, "{player} {text}: {error}");
            }
        }
        let records = records(&table);
        let last = records.last().expect("the last placement");
        assert!(
            !last["draws"].as_array().expect("draws").is_empty(),
            "the last placement draws the next offer: {last}"
        );
        for record in &records[before..] {
            assert_eq!(
                record["round"],
                before + 1,
                "every placement of the round names the round's first record: {record}"
            );
        }
        let (passed, report) = table.audit(false);
        assert!(passed, "{report}");
        outcomes.push((last["draws"].clone(), table.view()["game"].clone()));
    }
    for (order, outcome) in orders.iter().zip(&outcomes).skip(1) {
        assert_eq!(outcome, &outcomes[0], "arrival order {order:?}");
    }
}

#[test]
fn a_seed_reused_in_another_keyring_shares_no_id_and_no_sealed_box() {
    let games: Vec<Value> = ["07", "08"]
        .into_iter()
        .map(|key| {
            let table = Table::new();
            std::fs::create_dir_all(table.home()).expect("keyring");
            std::fs::write(table.home().join("referee.key"), key.repeat(32) + "\n").expect("a key");
            table.start("triangle-auction", &["Ann", "Bob", "Cat"], SEED);
            let first = to_move(&table.view());
            let (ok, error) = table.apply(&first, "card 1");
            assert!(ok, "{error}");
            serde_json::from_slice(&std::fs::read(table.file()).expect("file")).expect("JSON")
        })
        .collect();
    let [one, two] = [&games[0], &games[1]];
    assert_ne!(one["genesis"]["id"], two["genesis"]["id"]);
    assert_ne!(
        one["genesis"]["seed_commitment"],
        two["genesis"]["seed_commitment"]
    );
    let sealed = |game: &Value| game["records"][0]["sealed"].clone();
    assert_eq!(
        one["records"][0]["player"], two["records"][0]["player"],
        "the same player chose the same card"
    );
    assert_ne!(sealed(one)["box"], sealed(two)["box"]);
    assert_ne!(sealed(one)["commit"], sealed(two)["commit"]);
}

/// Every command that reads a game file refuses `changed` (the file's text with one
/// change), saying `says`, and leaves it byte for byte as it was.
fn every_command_refuses(table: &Table, changed: &str, says: &str) {
    std::fs::write(table.file(), changed).expect("write");
    let first = "Ann";
    let commands: [&[&str]; 8] = [
        &["show"],
        &["show", "--format", "json"],
        &["show", "--format", "bbcode"],
        &["log"],
        &["legal", "--player", first],
        &["audit"],
        &["apply", "--player", first, "--move", "pass"],
        &["reveal", "--force"],
    ];
    for args in commands {
        let (ok, output) = table.run(args);
        assert!(!ok, "pbem {args:?} accepted it: {output}");
        assert!(
            output.to_lowercase().contains(&says.to_lowercase()),
            "pbem {args:?} should say {says:?}: {output}"
        );
        assert_eq!(
            std::fs::read_to_string(table.file()).expect("file"),
            changed,
            "pbem {args:?} changed the file"
        );
    }
}

fn played_game() -> (Table, String) {
    let table = Table::new();
    table.new_game(SEED);
    for _ in 0..3 {
        let (mover, text) = table.first_move();
        let (ok, error) = table.apply(&mover, &text);
        assert!(ok, "{error}");
    }
    let text = std::fs::read_to_string(table.file()).expect("file");
    (table, text)
}

#[test]
fn a_key_given_twice_is_refused_by_every_command() {
    let (table, text) = played_game();
    for (from, to) in [
        ("\"options\":{", "\"options\":{\"setup\":\"draft\","),
        (
            "\"setup\":\"hexagon\"",
            "\"setup\":\"hexagon\",\"setup\":\"draft\"",
        ),
        (
            "\"setup\":\"hexagon\"}",
            "\"setup\":\"hexagon\",\"setup\":\"hexagon\"}",
        ),
    ] {
        let changed = text.replacen(from, to, 1);
        assert_ne!(changed, text, "{from}");
        every_command_refuses(&table, &changed, "given twice");
    }
    // In the cached state, and in a record.
    let changed = text.replacen("\"over\":false", "\"over\":false,\"over\":false", 1);
    assert_ne!(changed, text);
    every_command_refuses(&table, &changed, "duplicate field `over`");
    let changed = text.replacen("{\"turn\":2,", "{\"turn\":2,\"turn\":2,", 1);
    assert_ne!(changed, text);
    every_command_refuses(&table, &changed, "duplicate");
}

#[test]
fn hex_is_read_one_way_by_every_command() {
    let (table, text) = played_game();
    let file: Value = serde_json::from_str(&text).expect("JSON");
    let genesis = &file["genesis"];
    let record = &file["records"][1];
    // Each hex field, with its first letter digit made upper case.
    let fields = [
        genesis["state_hash"].as_str(),
        genesis["hash"].as_str(),
        genesis["seed_commitment"].as_str(),
        genesis["rules_hash"].as_str(),
        record["prev"].as_str(),
        record["state_hash"].as_str(),
        record["hash"].as_str(),
    ];
    for field in fields {
        let field = field.expect("a hex field");
        let upper: String = {
            let at = field
                .find(|c: char| c.is_ascii_lowercase())
                .expect("a letter digit");
            let mut chars: Vec<char> = field.chars().collect();
            chars[at] = chars[at].to_ascii_uppercase();
            chars.into_iter().collect()
        };
        let changed = text.replacen(field, &upper, 1);
        assert_ne!(changed, text);
        std::fs::write(table.file(), &changed).expect("write");
        for args in [
            &["show"][..],
            &["audit"],
            &["apply", "--player", "Ann", "--move", "pass"],
        ] {
            let (ok, output) = table.run(args);
            assert!(!ok, "pbem {args:?} accepted {upper}: {output}");
            assert_eq!(
                std::fs::read_to_string(table.file()).expect("file"),
                changed
            );
        }
    }
}

#[test]
fn a_forged_cached_state_is_never_shown() {
    let (table, text) = played_game();
    // One value of the cached state changed (it is the file's last line).
    let at = text.rfind("\"discards\":0").expect("a count in the state");
    assert!(at > text.rfind("\"state\":").expect("the state"));
    let changed = format!(
        "{}\"discards\":1{}",
        &text[..at],
        &text[at + "\"discards\":0".len()..]
    );
    every_command_refuses(&table, &changed, "stored state is not the");
    std::fs::write(table.file(), &text).expect("write");
    let (ok, output) = table.run(&["show"]);
    assert!(ok, "{output}");
}

/// Every line of the golden vectors in docs/FAIRNESS.md, computed (the document names
/// the inputs).
fn doc_vectors() -> Vec<String> {
    use base64::Engine as _;
    use pbem::basics::digest::{sha256, to_hex, Fields};
    use pbem::engine::fairness::{
        hidden_commitment, seal_box, sealed_commitment, RecordingChance, Scope, Seed, TurnDraws,
    };
    use pbem::engine::file::{hashes, Draw, Genesis, PlayerEntry, Record, Version};
    use pbem::engine::{Chance, DrawStream, Visibility};

    let base64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    let seed = Seed(core::array::from_fn(|i| i as u8));
    let game = "row-0a1b2c3d";
    let anchor = Fields::hash("anchor").finish();
    let body = Fields::hash("body").finish();
    let key = [0x11u8; 32];
    let mut out = Vec::new();

    let mut zero = DrawStream::new([0; 32]);
    let words: Vec<String> = (0..4)
        .map(|_| format!("{:08x}", zero.next_word()))
        .collect();
    out.push(format!("chacha zero key: {}", words.join(" ")));
    let mut stream = DrawStream::new([7; 32]);
    let picks: Vec<u32> = [61, 54, 53, 6, 2, 1000, 3, 1]
        .iter()
        .map(|&n| stream.index(n))
        .collect();
    out.push(format!("sampler key 07: {picks:?}"));
    for n in [(1u32 << 31) + 1, 3 << 30] {
        let (i, picks, taken) = super::fairness::skip_picks(n);
        out.push(format!("skip i {i} n {n}: picks {picks:?} words {taken}"));
    }
    let turn_draws = |scope: &Scope, turn: u64, key, draws: &[(u32, Visibility)]| {
        let mut chance = RecordingChance::new(
            TurnDraws {
                seed: &seed,
                scope,
                turn,
            },
            key,
        );
        for &(n, visibility) in draws {
            chance.draw(n, visibility);
        }
        serde_json::to_string(&chance.draws).expect("json")
    };
    let mixed_1 = [
        (6, Visibility::Public),
        (54, Visibility::Hidden),
        (2, Visibility::Public),
        (1000, Visibility::Hidden),
        (1, Visibility::Hidden),
    ];
    let mixed_2 = [
        (6, Visibility::Hidden),
        (4, Visibility::Public),
        (1000, Visibility::Hidden),
        ((1 << 31) + 1, Visibility::Public),
    ];

    // Formats 1 and 2.
    let by_id = Scope::Id(game.to_string());
    out.push(format!(
        "seed commitment G: {}",
        to_hex(&seed.commitment(game))
    ));
    let v1_key = seed.draw_key(game, 3, &anchor, "Ann", "place E,W at E5");
    out.push(format!(
        "v1 key G turn 3 A Ann \"place E,W at E5\": {}",
        to_hex(&v1_key)
    ));
    for (t, j, n, pick) in [(0, 0, 6, 5), (7, 1, 54, 17), (1 << 40, 1 << 31, 1000, 999)] {
        let salt = seed.salt(game, t, j);
        out.push(format!(
            "v1 salt G t {t} j {j}: {} commit of pick {pick} of {n}: {}",
            to_hex(&salt),
            to_hex(&hidden_commitment(&salt, n, pick))
        ));
    }
    let key4 = seed.draw_key(game, 4, &anchor, "Bob", "pass");
    out.push(format!(
        "v1 turn draws G turn 4 key (G, 4, A, Bob, \"pass\"): {}",
        turn_draws(&by_id, 4, key4, &mixed_1)
    ));
    let round: [(&str, &str); 3] = [("Ann", "bid 3"), ("Bob", "pass"), ("Cy", "bid 5 \u{2660}")];
    for k in [0, 1, 3] {
        out.push(format!(
            "v2 key G turn 7 A k {k}: {}",
            to_hex(&seed.draw_key_v2(game, 7, &anchor, &round[..k]))
        ));
    }
    let key9 = seed.draw_key_v2(
        game,
        9,
        &anchor,
        &[("Ann", "choose 2"), ("Bob", "choose 1")],
    );
    out.push(format!(
        "v2 turn draws G turn 9 key (G, 9, A, Ann \"choose 2\", Bob \"choose 1\"): {}",
        turn_draws(&by_id, 9, key9, &mixed_2)
    ));
    let sixty_four = "0123456789abcdef".repeat(4);
    let texts = [
        (5, "bid 3"),
        (6, sixty_four.as_str()),
        (1 << 40, "bid 3 \u{2660} f\u{fc}r Zo\u{eb}"),
    ];
    let seal_lines = |scope: &Scope, name: &str, out: &mut Vec<String>| {
        for (turn, text) in texts {
            let salt = seed.seal_salt_in(scope, turn);
            let key = seed.seal_key_in(scope, turn);
            out.push(format!(
                "{name} seal turn {turn} {text:?}: salt {} key {} commit {} box {}",
                to_hex(&salt),
                to_hex(&key),
                to_hex(&sealed_commitment(&salt, text)),
                base64(&seal_box(&key, text))
            ));
        }
    };
    seal_lines(&by_id, "v2 G", &mut out);

    // Format 3.
    let by_body = Scope::Body(body);
    out.push(format!(
        "v3 setup key B: {}",
        to_hex(&seed.setup_key_v3(&body))
    ));
    let cards: [(&str, &str); 3] = [("Ann", "card 2"), ("Bob", "card 1"), ("Cat", "card 5")];
    let one = seed.draw_key_v3(&body, &anchor, &[("Ann", "place E,W at E5")]);
    out.push(format!(
        "v3 key B A Ann \"place E,W at E5\": {}",
        to_hex(&one)
    ));
    out.push(format!(
        "v3 key B A Ann \"card 2\" Bob \"card 1\" Cat \"card 5\": {}",
        to_hex(&seed.draw_key_v3(&body, &anchor, &cards))
    ));
    out.push(format!(
        "v3 turn draws B turn 4 key (B, A, Ann \"place E,W at E5\"): {}",
        turn_draws(&by_body, 4, one, &mixed_2)
    ));
    for (t, j, n, pick) in [(0, 0, 6, 5), (7, 1, 54, 17), (1 << 40, 1 << 31, 1000, 999)] {
        let salt = seed.salt_in(&by_body, t, j);
        out.push(format!(
            "v3 salt B t {t} j {j}: {} commit of pick {pick} of {n}: {}",
            to_hex(&salt),
            to_hex(&hidden_commitment(&salt, n, pick))
        ));
    }
    seal_lines(&by_body, "v3 B", &mut out);
    let players = vec![
        PlayerEntry {
            name: "Ann".into(),
            email: Some("ann@example.org".into()),
        },
        PlayerEntry {
            name: "Bob".into(),
            email: None,
        },
    ];
    let options: pbem::engine::Options = [("setup".to_string(), "hexagon".to_string())].into();
    let rules_hash = sha256(b"");
    let id = pbem::engine::derive::game_id_v3(
        &seed,
        "right-of-way",
        &key,
        &players,
        &options,
        &rules_hash,
        &[],
    );
    out.push(format!("game id: {id}"));
    let commitment = seed.commitment(&id);
    out.push(format!(
        "seed commitment of that id: {}",
        to_hex(&commitment)
    ));
    let genesis = Genesis {
        game: "right-of-way".into(),
        id: id.clone(),
        engine: "pbem 0.1.0".into(),
        players,
        options,
        rules_hash: to_hex(&rules_hash),
        rules_data: String::new(),
        referee_key: base64(&key),
        seed_commitment: to_hex(&commitment),
        draw_algorithm: "pbem-draw/3".into(),
        entropy: Vec::new(),
        invitation: String::new(),
        draws: Vec::new(),
        state_hash: String::new(),
        hash: String::new(),
        signature: String::new(),
    };
    let genesis_body = hashes::genesis_body(Version::V3, &genesis, &key, &commitment, &rules_hash);
    out.push(format!("genesis body: {}", to_hex(&genesis_body)));
    out.push(format!(
        "invitation hash: {}",
        to_hex(
            &Fields::hash("pbem/v2/invitation")
                .fixed(&genesis_body)
                .finish()
        )
    ));
    let record = Record {
        turn: 3,
        player: "Ann".into(),
        move_text: "place E,W at E5".into(),
        sealed: None,
        undo: None,
        round: Some(2),
        combined: None,
        history: None,
        opens: Vec::new(),
        draws: vec![Draw::Public { of: 6, pick: 3 }],
        prev: to_hex(&anchor),
        state_hash: to_hex(&body),
        hash: String::new(),
        signature: String::new(),
    };
    out.push(format!(
        "record: {}",
        to_hex(&hashes::record(Version::V3, &id, &record, &anchor, &body).expect("a hash"))
    ));

    // Format 4.
    let history = seed.history_v4(&body, &anchor, &[("Ann", "place E,W at E5")]);
    out.push(format!(
        "v4 history B A Ann \"place E,W at E5\": {}",
        to_hex(&history)
    ));
    out.push(format!(
        "v4 history B A Ann \"card 2\" Bob \"card 1\" Cat \"card 5\": {}",
        to_hex(&seed.history_v4(&body, &anchor, &cards))
    ));
    let key_v4 = seed.draw_key_v4(&body, &history);
    out.push(format!("v4 key B H1: {}", to_hex(&key_v4)));
    out.push(format!(
        "v4 turn draws B turn 4 key (B, H1): {}",
        turn_draws(&by_body, 4, key_v4, &mixed_2)
    ));
    let record = Record {
        move_text: "place D at C4 r0".into(),
        combined: Some("place A at C5 r1; place D at C4 r0".into()),
        history: Some(to_hex(&history)),
        ..record
    };
    out.push(format!(
        "record v4: {}",
        to_hex(&hashes::record(Version::V4, &id, &record, &anchor, &body).expect("a hash"))
    ));
    out.push(format!(
        "v4 bot key B H1 seat 2 n 1 \"search/1\": {}",
        to_hex(&seed.bot_key(&body, &history, 2, 1, "search/1"))
    ));
    out
}

#[test]
fn the_golden_vectors_of_the_specification_hold() {
    let spec = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/FAIRNESS.md"))
        .expect("docs/FAIRNESS.md");
    let section = spec
        .split("## Golden vectors")
        .nth(1)
        .expect("a Golden vectors section");
    let block = section
        .split("```text\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("a text block of vectors");
    let written: Vec<&str> = block.lines().collect();
    let computed = doc_vectors();
    assert_eq!(
        written,
        computed,
        "docs/FAIRNESS.md's golden vectors differ from what pbem computes; pbem's:\n{}",
        computed.join("\n")
    );
    // The reference implementation, written from the document alone, computes them too.
    let output = super::support::reference(&["doc-vectors"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let reference = String::from_utf8(output.stdout).expect("utf-8");
    assert_eq!(reference.lines().collect::<Vec<_>>(), written);
}

/// Files written before format 3 (by the pbem of format 2) read, audit, check with the
/// reference implementation, and take moves in their own format.
#[test]
fn files_of_format_2_are_still_read_checked_and_played_on() {
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/format2");
    // A finished game, its seed revealed: anyone audits it, the reference checks it.
    let finished = Table::new();
    std::fs::copy(
        format!("{fixtures}/triangle-auction-finished.json"),
        finished.file(),
    )
    .expect("copy");
    let (passed, report) = finished.audit(true);
    assert!(passed, "{report}");
    assert!(report.contains("every draw is re-derived"), "{report}");
    let path = finished.file();
    let output = super::support::reference(&["check", path.to_str().expect("a path")]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains(" opens "));

    // A game nine records in (a sealed round, its openings, bids), with the tests'
    // key and its seed in the keyring: the next move keeps format 2.
    let table = Table::new();
    table.fixture_game(
        "format2/triangle-auction-9-turns.json",
        "ta-131074de",
        &"4".repeat(64),
    );
    let (passed, report) = table.audit(false);
    assert!(passed, "{report}");
    for _ in 0..6 {
        let (mover, text) = table.first_move();
        let (ok, error) = table.apply(&mover, &text);
        assert!(ok, "{error}");
    }
    let file: Value =
        serde_json::from_slice(&std::fs::read(table.file()).expect("file")).expect("JSON");
    assert_eq!(file["format"], "pbem.game/2");
    assert_eq!(file["genesis"]["draw_algorithm"], "pbem-draw/2");
    assert!(file["records"]
        .as_array()
        .expect("records")
        .iter()
        .all(|r| r.get("round").is_none()));
    let (passed, report) = table.audit(false);
    assert!(passed, "{report}");
}

/// A placing turn recorded before placing turns had one order (written by the pbem of
/// format 2 in the order the player gave, which the area keeps) replays as it was
/// played: the record's text is applied as written, and only a move made now is put in
/// the one order.
#[test]
fn a_placing_turn_recorded_in_another_order_still_replays() {
    #[derive(serde::Deserialize)]
    struct Recorded {
        seed: String,
        moves: Vec<(String, String)>,
    }
    let root = env!("CARGO_MANIFEST_DIR");
    let recorded: Recorded = serde_json::from_str(
        &std::fs::read_to_string(format!(
            "{root}/tests/fixtures/triangle-auction/ending-1.json"
        ))
        .expect("the recorded game"),
    )
    .expect("JSON");
    let table = Table::new();
    table.fixture_game(
        "format2/triangle-auction-placed-in-another-order.json",
        "ta-932dd761",
        &recorded.seed,
    );
    let before: Value =
        serde_json::from_slice(&std::fs::read(table.file()).expect("file")).expect("JSON");
    assert_eq!(
        before["records"][73]["move"],
        "place G at H10 r2; place E at F9 r2"
    );
    let (passed, report) = table.audit(false);
    assert!(passed, "{report}");
    table.apply_all(&recorded.moves[76..80]);
    let (passed, report) = table.audit(false);
    assert!(passed, "{report}");
}

/// A Right of Way game of `format` (the tests' key, `SEED`) with one quiet move made,
/// on `table`.
fn one_quiet_move(table: &Table, format: pbem::engine::file::Version) -> String {
    use pbem::engine::fairness::Seed;
    use pbem::engine::keyring::Keyring;
    use pbem::engine::roster::parse_player;
    use pbem::engine::session::NewGame;
    table.test_key();
    let request = NewGame {
        players: vec![parse_player("Ann <ann@example.org>"), parse_player("Bob")],
        seed: Seed::from_hex(SEED),
        format: Some(format),
        ..NewGame::default()
    };
    let bytes = pbem::ops::driver("right-of-way")
        .expect("a game")
        .create(request, &Keyring::at(table.home()))
        .expect("created");
    std::fs::write(table.file(), bytes).expect("written");
    let first = to_move(&table.view());
    let quiet = quiet_move(&table.legal(&first));
    let (ok, error) = table.apply(&first, &quiet);
    assert!(ok, "{error}");
    quiet
}

/// A referee running a modified pbem cannot choose draws by spelling a move otherwise:
/// a record whose text is not the rules' recorded text of its move fails the audit,
/// though everything else holds (in format 4 its standing history recomputed for the
/// new text with the seed, every record hashed and signed again with the referee's
/// key), and the audit names the record and the text the rules record.
#[test]
fn a_move_recorded_in_another_spelling_fails_the_audit_though_re_signed() {
    use pbem::basics::digest::to_hex;
    use pbem::engine::fairness::Seed;
    use pbem::engine::file::Version;
    let key = ed25519_dalek::SigningKey::from_bytes(&[0x42; 32]);
    for format in [Version::V4, Version::V3] {
        let table = Table::new();
        let quiet = one_quiet_move(&table, format);
        let (passed, report) = table.audit(false);
        assert!(passed, "{report}");
        for spelt in [
            quiet.to_uppercase(),
            format!(" {quiet}"),
            quiet.replace(' ', "  "),
        ] {
            let mut file: Value =
                serde_json::from_slice(&std::fs::read(table.file()).expect("file")).expect("JSON");
            let player = file["records"][0]["player"]
                .as_str()
                .expect("player")
                .to_string();
            file["records"][0]["move"] = spelt.clone().into();
            if format == Version::V4 {
                // The first round of the game: its history starts from the genesis body.
                let body = super::support::genesis_body(&file);
                let seed = Seed::from_hex(SEED).expect("seed");
                let history = seed.history_v4(&body, &body, &[(player.as_str(), spelt.as_str())]);
                file["records"][0]["history"] = to_hex(&history).into();
            }
            super::support::resign(&mut file, &key);
            let forged = copy_of(&table);
            std::fs::write(forged.file(), serde_json::to_vec(&file).expect("JSON")).expect("write");
            // With the referee's keyring (so the seed checks the history) and without.
            for public in [false, true] {
                let (passed, report) = forged.audit(public);
                assert_eq!(
                    report.contains("every draw is re-derived"),
                    !public,
                    "{report}"
                );
                assert!(!passed, "{format:?} {spelt:?}: {report}");
                let failed: Vec<&str> =
                    report.lines().filter(|l| l.starts_with("FAILED")).collect();
                assert_eq!(failed.len(), 1, "{format:?} {spelt:?}: {report}");
                assert!(
                    failed[0].contains("turn 1")
                        && failed[0].contains(&format!(
                            "is not the rules' recorded text of that move, {quiet:?}"
                        )),
                    "{format:?} {spelt:?}: {report}"
                );
            }
        }
    }
}

/// A Right of Way game of `names` with no record yet, founded as `pbem new` founds one
/// (its id, commitment, setup and signature derived as for any game, with the tests'
/// key and seed, the seed in the keyring) but without `pbem new`'s check of the names:
/// as a referee who writes genesis by hand would. The file's text.
fn founded_with_names(table: &Table, names: &[&str]) -> String {
    use base64::Engine as _;
    use ed25519_dalek::{Signer, SigningKey};
    use pbem::basics::digest::{hash_from_hex, to_hex};
    use pbem::engine::fairness::{RecordingChance, Scope, Seed, TurnDraws};
    use pbem::engine::file::{hashes, GameFile, Genesis, PlayerEntry, Version};
    use pbem::engine::Rules;
    use pbem::games::right_of_way::RightOfWay;

    table.new_game(SEED);
    let file: Value =
        serde_json::from_slice(&std::fs::read(table.file()).expect("file")).expect("JSON");
    let mut genesis: Genesis = serde_json::from_value(file["genesis"].clone()).expect("genesis");
    genesis.players = names
        .iter()
        .map(|name| PlayerEntry {
            name: (*name).to_string(),
            email: None,
        })
        .collect();
    let seed = Seed(hash_from_hex(SEED).expect("hex"));
    let key = SigningKey::from_bytes(&[0x42; 32]);
    let referee = key.verifying_key().to_bytes();
    let rules_hash = hash_from_hex(&genesis.rules_hash).expect("hex");
    genesis.id = pbem::engine::derive::game_id_v3(
        &seed,
        &genesis.game,
        &referee,
        &genesis.players,
        &genesis.options,
        &rules_hash,
        &genesis.entropy,
    );
    let commitment = seed.commitment(&genesis.id);
    genesis.seed_commitment = to_hex(&commitment);
    let body = hashes::genesis_body(Version::V4, &genesis, &referee, &commitment, &rules_hash);
    let rules = RightOfWay::from_data(&genesis.rules_data, &genesis.options).expect("rules");
    let scope = Scope::Body(body);
    let turn = TurnDraws {
        seed: &seed,
        scope: &scope,
        turn: 0,
    };
    let mut chance = RecordingChance::new(turn, seed.setup_key_v3(&body));
    let seats: Vec<String> = names.iter().map(|name| (*name).to_string()).collect();
    let state = rules.public_state(&rules.setup(&seats, &mut chance).expect("a setup"));
    let after = hashes::state(&serde_json::to_vec(&state).expect("JSON"));
    let hash = hashes::genesis(&body, &chance.draws, &after).expect("a hash");
    genesis.draws = chance.draws;
    genesis.state_hash = to_hex(&after);
    genesis.hash = to_hex(&hash);
    genesis.signature =
        base64::engine::general_purpose::STANDARD.encode(key.sign(&hash).to_bytes());
    std::fs::write(
        table
            .home()
            .join("seeds")
            .join(format!("{}.seed", genesis.id)),
        format!("{SEED}\n"),
    )
    .expect("the seed");
    let founded = GameFile {
        format: Version::V4.format().to_string(),
        genesis,
        records: Vec::new(),
        seed: None,
        state,
    };
    String::from_utf8(founded.to_bytes().expect("bytes")).expect("UTF-8")
}

/// Records name their seat by the player's name, so a genesis naming two players
/// alike (as `pbem new` compares names: ignoring case) would make a record ambiguous:
/// every command refuses it, the audit too, though every hash and signature holds.
#[test]
fn a_genesis_naming_two_players_alike_is_refused_by_every_command() {
    // Founded the same way with two names, the file is a good one.
    let table = Table::new();
    let good = founded_with_names(&table, &["Ann", "Cid"]);
    std::fs::write(table.file(), &good).expect("write");
    let (passed, report) = table.audit(false);
    assert!(passed, "{report}");
    let (ok, output) = table.run(&["show"]);
    assert!(ok, "{output}");
    for names in [["Ann", "Ann"], ["Ann", "ANN"]] {
        let table = Table::new();
        let twice = founded_with_names(&table, &names);
        every_command_refuses(&table, &twice, "two players are called");
    }
}

/// An invitation naming two players alike, signed by the referee, is refused: no
/// player can join it, and it never becomes a game.
#[test]
fn an_invitation_naming_two_players_alike_is_refused() {
    use base64::Engine as _;
    use ed25519_dalek::{Signer, SigningKey};
    use pbem::basics::digest::{hash_from_hex, to_hex, Fields};
    use pbem::engine::file::{hashes, Version};
    use pbem::engine::invitation::Invitation;

    let table = Table::new();
    table.test_key();
    table
        .pbem()
        .args(["new", "right-of-way", "--player", "Ann", "--player", "Bob"])
        .args(["--join", "--seed", SEED, "--out"])
        .arg(table.file())
        .assert()
        .success();
    let mut invitation: Invitation =
        serde_json::from_slice(&std::fs::read(table.file()).expect("file")).expect("JSON");
    let genesis = &mut invitation.genesis;
    genesis.players[1].name = "ann".into();
    let key = SigningKey::from_bytes(&[0x42; 32]);
    let body = hashes::genesis_body(
        Version::V4,
        genesis,
        &key.verifying_key().to_bytes(),
        &hash_from_hex(&genesis.seed_commitment).expect("hex"),
        &hash_from_hex(&genesis.rules_hash).expect("hex"),
    );
    let hash = Fields::hash("pbem/v2/invitation").fixed(&body).finish();
    genesis.hash = to_hex(&hash);
    genesis.signature =
        base64::engine::general_purpose::STANDARD.encode(key.sign(&hash).to_bytes());
    let changed = String::from_utf8(invitation.to_bytes().expect("bytes")).expect("UTF-8");
    std::fs::write(table.file(), &changed).expect("write");
    for args in [
        &["join", "--player", "Ann", "--entropy", "blue heron"][..],
        &["audit"],
        &["show"],
    ] {
        let (ok, output) = table.run(args);
        assert!(!ok, "pbem {args:?} accepted it: {output}");
        assert!(
            output.contains("two players are called"),
            "pbem {args:?}: {output}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(table.file()).expect("file"),
        changed,
        "the invitation was changed"
    );
}

/// A record names its mover exactly as genesis spells the name: another spelling,
/// hashed and signed as the record holds it, is refused by every command.
#[test]
fn a_record_naming_its_player_in_another_spelling_is_refused() {
    let (table, _) = played_game();
    let mut file: Value =
        serde_json::from_slice(&std::fs::read(table.file()).expect("file")).expect("JSON");
    let player = file["records"][0]["player"]
        .as_str()
        .expect("a player")
        .to_string();
    file["records"][0]["player"] = player.to_lowercase().into();
    super::support::resign(
        &mut file,
        &ed25519_dalek::SigningKey::from_bytes(&[0x42; 32]),
    );
    let changed = format!("{}\n", serde_json::to_string(&file).expect("JSON"));
    every_command_refuses(
        &table,
        &changed,
        &format!("record 1 names its player {:?}", player.to_lowercase()),
    );
}

/// A move is sealed exactly where the rules seal it: a Right of Way move sealed (which
/// would hide it from the players until the reveal) or a triangle auction card in
/// clear, hashed and signed as the file holds it, fails the audit, with the seed or
/// without.
#[test]
fn a_move_sealed_where_the_rules_seal_none_or_in_clear_where_they_seal_it_fails_the_audit() {
    use base64::Engine as _;
    use pbem::basics::digest::{hash_from_hex, to_hex};
    use pbem::engine::fairness::{seal_box, sealed_commitment, Scope, Seed};
    use pbem::engine::file::{hashes, Genesis, Version};

    let key = ed25519_dalek::SigningKey::from_bytes(&[0x42; 32]);
    let read = |table: &Table| -> Value {
        serde_json::from_slice(&std::fs::read(table.file()).expect("file")).expect("JSON")
    };
    let audits_fail = |table: &Table, file: &Value, says: &str| {
        std::fs::write(table.file(), serde_json::to_string(file).expect("JSON")).expect("w");
        for public in [false, true] {
            let (passed, report) = table.audit(public);
            assert!(!passed, "{report}");
            assert!(report.contains(says), "{report}");
        }
    };

    // Right of Way seals nothing: its third move, sealed as format 3 seals a move.
    let (table, _) = played_game();
    let mut file = read(&table);
    let genesis: Genesis = serde_json::from_value(file["genesis"].clone()).expect("genesis");
    let seed = Seed(hash_from_hex(SEED).expect("hex"));
    let body = hashes::genesis_body(
        Version::V3,
        &genesis,
        &key.verifying_key().to_bytes(),
        &hash_from_hex(&genesis.seed_commitment).expect("hex"),
        &hash_from_hex(&genesis.rules_hash).expect("hex"),
    );
    let scope = Scope::Body(body);
    let record = &mut file["records"][2];
    let text = record["move"].as_str().expect("a move").to_string();
    let salt = seed.seal_salt_in(&scope, 3);
    let sealed_box = seal_box(&seed.seal_key_in(&scope, 3), &text);
    let object = record.as_object_mut().expect("a record");
    object.remove("move");
    object.insert(
        "sealed".into(),
        serde_json::json!({
            "commit": to_hex(&sealed_commitment(&salt, &text)),
            "box": base64::engine::general_purpose::STANDARD.encode(sealed_box),
        }),
    );
    super::support::resign(&mut file, &key);
    audits_fail(
        &table,
        &file,
        "it holds a sealed move where the rules seal none",
    );

    // The triangle auction seals its cards: the first, in clear.
    let table = Table::new();
    table.start("triangle-auction", &["Ann", "Bob", "Cid"], SEED);
    let (mover, card) = table.first_move();
    let (ok, error) = table.apply(&mover, &card);
    assert!(ok, "{error}");
    let mut file = read(&table);
    let object = file["records"][0].as_object_mut().expect("a record");
    assert!(object.remove("sealed").is_some(), "{object:?}");
    object.insert("move".into(), card.into());
    super::support::resign(&mut file, &key);
    audits_fail(
        &table,
        &file,
        "it holds a move in clear where the rules seal it",
    );
}
