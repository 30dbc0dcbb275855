//! The command line as other tools use it: real processes, real files, a real keyring
//! in a temporary PBEM_HOME.

use std::path::Path;

use serde_json::Value;

use super::support::{picture_size, picture_texts, png_size, to_move, Table, PNG_SCALE};

const SEED: &str = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

fn bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).expect("the file exists")
}

#[test]
fn new_writes_a_view_with_the_contracted_fields() {
    let table = Table::new();
    table.new_game(SEED);
    let view = table.view();
    assert_eq!(view["schema"], "pbem.view/1");
    assert_eq!(view["game"], "right-of-way");
    assert!(view["id"].as_str().expect("an id").starts_with("row-"));
    assert_eq!(view["turn"], 0);
    assert_eq!(view["over"], false);
    assert_eq!(view["winners"], Value::Array(vec![]));
    assert_eq!(view["to_move"].as_array().expect("a list").len(), 1);
    let players = view["players"].as_array().expect("players");
    assert_eq!(players.len(), 2);
    assert_eq!(players[0]["name"], "Ann");
    assert_eq!(players[1]["name"], "Bob");
    for player in players {
        assert!(player["score"].is_i64());
        assert_eq!(player["hand"].as_array().expect("a hand").len(), 5);
        assert_eq!(player["stack"], 49);
        assert_eq!(player["discards"], 0);
    }
    let board = view["board"].as_array().expect("a board");
    assert_eq!(board.len(), 61);
    let dollars = board.iter().filter(|cell| cell["dollar"] == true).count();
    assert_eq!(dollars, 31);
    // Only a game the players joined names their words.
    assert!(view.get("joined").is_none() && view.get("invitation").is_none());
}

#[test]
fn the_game_file_holds_no_secret_and_the_keyring_is_private() {
    let table = Table::new();
    table.new_game(SEED);
    let text = String::from_utf8(bytes(&table.file())).expect("utf-8");
    assert!(
        !text.contains(SEED),
        "the seed must not be in the file before the reveal"
    );
    let key = std::fs::read_to_string(table.home().join("referee.key")).expect("a key");
    assert!(
        !text.contains(key.trim()),
        "the signing key must never be in the file"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(table.home().join("referee.key"))
            .expect("key")
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0, "the key is readable by its owner only");
        let seeds = table.home().join("seeds");
        for entry in std::fs::read_dir(seeds).expect("seeds") {
            let mode = entry
                .expect("entry")
                .metadata()
                .expect("meta")
                .permissions()
                .mode();
            assert_eq!(mode & 0o077, 0, "seeds are readable by their owner only");
        }
    }
}

#[test]
fn refusals_leave_the_file_byte_for_byte_unchanged() {
    let table = Table::new();
    table.new_game(SEED);
    let before = bytes(&table.file());
    let view = table.view();
    let mover = to_move(&view);
    let other = if mover == "Ann" { "Bob" } else { "Ann" };
    let legal = table.legal(&mover);
    let good = legal[0]["move"].as_str().expect("a move text").to_string();

    for (player, text, says) in [
        (other, good.as_str(), "not"),
        ("Carol", good.as_str(), "no player is called"),
        (mover.as_str(), "fly to the moon", ""),
        (mover.as_str(), "", ""),
        (mover.as_str(), "place E,W at Z99", ""),
    ] {
        let (ok, stderr) = table.apply(player, text);
        assert!(!ok, "{player} {text:?} must be refused");
        assert!(stderr.starts_with("error: "), "{stderr}");
        assert!(stderr.contains(says), "{stderr}");
        assert_eq!(
            bytes(&table.file()),
            before,
            "{player} {text:?} changed the file"
        );
    }
    // A refusal of a move text says what would be accepted, with an example.
    let (_, stderr) = table.apply(&mover, "fly to the moon");
    assert!(
        stderr.contains("place") || stderr.contains("buy"),
        "{stderr}"
    );
}

#[test]
fn tampering_is_caught_and_named() {
    let table = Table::new();
    table.new_game(SEED);
    for _ in 0..3 {
        let mover = to_move(&table.view());
        let text = table.legal(&mover)[0]["move"]
            .as_str()
            .expect("text")
            .to_string();
        assert!(table.apply(&mover, &text).0);
    }
    let (ok, report) = table.audit(false);
    assert!(ok, "{report}");
    let original = bytes(&table.file());
    let text = String::from_utf8(original.clone()).expect("utf-8");
    let mut file: Value = serde_json::from_str(&text).expect("json");
    let mover = to_move(&table.view());
    // Rewrite the move of record 2.
    let moved = file["records"][1]["move"]
        .as_str()
        .expect("move")
        .to_string();
    file["records"][1]["move"] = Value::String(format!("{moved} "));
    std::fs::write(
        table.file(),
        serde_json::to_vec_pretty(&file).expect("json"),
    )
    .expect("write");
    let (ok, report) = table.audit(false);
    assert!(!ok, "a rewritten move must fail the audit");
    assert!(report.contains("turn 2"), "{report}");
    let tampered = bytes(&table.file());
    let (shown, output) = table.run(&["show"]);
    assert!(!shown, "a tampered file is not shown");
    assert!(output.contains("altered"), "{output}");
    let (ok, stderr) = table.apply(&mover, "place E,W at E5");
    assert!(!ok);
    assert!(stderr.contains("altered"), "{stderr}");
    assert_eq!(bytes(&table.file()), tampered);

    // Any single changed byte inside the records is caught.
    let records_at = text.find("\"records\"").expect("records");
    let state_at = text.rfind("\"state\"").expect("state");
    let mut caught = 0;
    let mut tried = 0;
    for position in (records_at + 12..state_at).step_by(97) {
        let byte = original[position];
        if !byte.is_ascii_alphanumeric() {
            continue;
        }
        let mut changed = original.clone();
        changed[position] = if byte == b'1' { b'2' } else { b'1' };
        std::fs::write(table.file(), &changed).expect("write");
        tried += 1;
        if !table.audit(true).0 {
            caught += 1;
        }
    }
    assert!(tried > 5);
    assert_eq!(caught, tried, "every changed byte must fail the audit");
}

#[test]
fn complete_random_games_through_the_cli_only() {
    for (game, seed) in [
        SEED,
        "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100",
    ]
    .iter()
    .enumerate()
    {
        let table = Table::new();
        table.new_game(seed);
        let mut picker = pbem::engine::DrawStream::for_testing(game as u64);
        let mut turns = 0;
        loop {
            let view = table.view();
            check_invariants(&view);
            if view["over"] == true {
                let winners = view["winners"].as_array().expect("winners");
                assert!(!winners.is_empty());
                let players = view["players"].as_array().expect("players");
                let top = players
                    .iter()
                    .map(|p| p["score"].as_i64().expect("score"))
                    .max()
                    .expect("a score");
                for winner in winners {
                    let entry = players
                        .iter()
                        .find(|p| p["name"] == *winner)
                        .expect("a winner is a player");
                    assert_eq!(
                        entry["score"].as_i64(),
                        Some(top),
                        "winners hold the top score"
                    );
                }
                break;
            }
            let mover = to_move(&view);
            let legal = table.legal(&mover);
            assert!(
                !legal.is_empty(),
                "{mover} is to move and has no legal move"
            );
            for entry in legal.iter().filter(|e| e["kind"] == "place") {
                check_cost_and_profit(&view, entry);
            }
            let pick = picker.index(legal.len() as u32) as usize;
            let text = legal[pick]["move"].as_str().expect("text").to_string();
            let (ok, stderr) = table.apply(&mover, &text);
            assert!(ok, "a listed move was refused: {text:?}: {stderr}");
            turns += 1;
            assert!(turns < 400, "the game must end");
        }
        let (ok, report) = table.audit(true);
        assert!(ok, "{report}");
        assert!(
            report.contains("re-derived"),
            "the seed is revealed at the end: {report}"
        );
    }
}

/// Tiles are never created or lost: hand + stack + discards + highways + right-of-way
/// tiles is 54 for each player.
fn check_invariants(view: &Value) {
    let board = view["board"].as_array().expect("board");
    for player in view["players"].as_array().expect("players") {
        let name = &player["name"];
        let on_board = board
            .iter()
            .filter(|cell| cell["highway"]["owner"] == *name)
            .count();
        let face_down: usize = board
            .iter()
            .map(|cell| {
                cell["right_of_way"]
                    .as_array()
                    .map_or(0, |stack| stack.iter().filter(|o| *o == name).count())
            })
            .sum();
        let hand = player["hand"].as_array().expect("hand").len();
        let total = hand
            + on_board
            + face_down
            + player["stack"].as_u64().expect("stack") as usize
            + player["discards"].as_u64().expect("discards") as usize;
        assert_eq!(total, 54, "{name}: tiles created or lost");
    }
}

const DIRS: [(i64, i64); 6] = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)];

/// The seed's cost and profit, computed from the JSON view alone.
fn check_cost_and_profit(view: &Value, entry: &Value) {
    let board = view["board"].as_array().expect("board");
    let cell_at = |q: i64, r: i64| board.iter().find(|c| c["q"] == q && c["r"] == r);
    let cell = board
        .iter()
        .find(|c| c["label"] == entry["cell"])
        .expect("the cell exists");
    let (q, r) = (
        cell["q"].as_i64().expect("q"),
        cell["r"].as_i64().expect("r"),
    );
    let edges: Vec<usize> = entry["edges"]
        .as_array()
        .expect("edges")
        .iter()
        .map(|e| e.as_u64().expect("edge") as usize)
        .collect();
    let cost = if cell["dollar"] == true {
        edges.len() as i64
    } else {
        0
    };
    let mut profit = 0;
    for &edge in &edges {
        let (dq, dr) = DIRS[edge];
        if let Some(next) = cell_at(q + dq, r + dr) {
            if next["dollar"] == true {
                profit += 1;
            }
            let facing = (edge + 3) % 6;
            let connects = next["highway"]["edges"]
                .as_array()
                .is_some_and(|e| e.iter().any(|x| x.as_u64() == Some(facing as u64)));
            if connects {
                profit += 1;
            }
        }
    }
    assert_eq!(entry["cost"].as_i64(), Some(cost), "{entry}");
    assert_eq!(entry["profit"].as_i64(), Some(profit), "{entry}");
}

#[test]
fn two_moves_at_once_apply_exactly_one() {
    let table = Table::new();
    table.new_game(SEED);
    let (mover, text) = table.first_move();
    let children: Vec<_> = (0..2)
        .map(|_| {
            let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("pbem"));
            command
                .env("PBEM_HOME", table.home())
                .arg("apply")
                .arg(table.file())
                .args(["--player", &mover, "--move", &text])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null());
            command.spawn().expect("spawns")
        })
        .collect();
    let successes = children
        .into_iter()
        .map(|mut child| child.wait().expect("waits").success())
        .filter(|&ok| ok)
        .count();
    assert_eq!(
        successes, 1,
        "the second must find it is no longer that player's turn"
    );
    assert_eq!(table.view()["turn"], 1);
    assert!(table.audit(false).0);
}

#[test]
fn show_turn_replays_history_and_log_lists_records() {
    let table = Table::new();
    table.new_game(SEED);
    let opening = table.view();
    let mover = to_move(&opening);
    let text = table.legal(&mover)[0]["move"]
        .as_str()
        .expect("text")
        .to_string();
    assert!(table.apply(&mover, &text).0);
    let output = table
        .pbem()
        .arg("show")
        .arg(table.file())
        .args(["--format", "json", "--turn", "0"])
        .output()
        .expect("runs");
    let replayed: Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(replayed, opening);
    let output = table
        .pbem()
        .arg("log")
        .arg(table.file())
        .output()
        .expect("runs");
    let log = String::from_utf8(output.stdout).expect("utf-8");
    assert!(log.contains(&text), "{log}");
    assert!(log.contains("seed committed"), "{log}");
    let output = table
        .pbem()
        .arg("show")
        .arg(table.file())
        .args(["--turn", "5"])
        .output()
        .expect("runs");
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("has not been played"));
}

#[test]
fn reveal_needs_the_end_or_force() {
    let table = Table::new();
    table.new_game(SEED);
    let before = bytes(&table.file());
    let output = table
        .pbem()
        .arg("reveal")
        .arg(table.file())
        .output()
        .expect("runs");
    assert!(!output.status.success());
    assert_eq!(bytes(&table.file()), before);
    table
        .pbem()
        .arg("reveal")
        .arg(table.file())
        .arg("--force")
        .assert()
        .success();
    let text = String::from_utf8(bytes(&table.file())).expect("utf-8");
    assert!(text.contains(SEED));
    let (ok, report) = table.audit(true);
    assert!(ok && report.contains("revealed in the file"), "{report}");
}

#[test]
fn a_wrong_keyring_cannot_move() {
    let table = Table::new();
    table.new_game(SEED);
    let before = bytes(&table.file());
    let (mover, text) = table.first_move();
    let other = tempfile::tempdir().expect("dir");
    let output = table
        .pbem()
        .env("PBEM_HOME", other.path())
        .arg("apply")
        .arg(table.file())
        .args(["--player", &mover, "--move", &text])
        .output()
        .expect("runs");
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("PBEM_HOME"));
    assert_eq!(bytes(&table.file()), before);
}

#[test]
fn the_opening_board_is_stable() {
    let table = Table::new();
    table.new_game(SEED);
    let output = table
        .pbem()
        .arg("show")
        .arg(table.file())
        .output()
        .expect("runs");
    let board = String::from_utf8(output.stdout).expect("utf-8");
    for line in board.lines() {
        assert!(line.chars().count() <= 78, "too wide: {line:?}");
        assert_eq!(line, line.trim_end(), "trailing spaces: {line:?}");
    }
    insta::assert_snapshot!(board);
}

#[test]
fn a_reformatted_file_still_loads_and_audits() {
    let table = Table::new();
    table.new_game(SEED);
    let (mover, text) = table.first_move();
    assert!(table.apply(&mover, &text).0);
    // serde_json's Value sorts keys: "game" is no longer the first field of genesis.
    let value: Value = serde_json::from_slice(&bytes(&table.file())).expect("json");
    std::fs::write(table.file(), serde_json::to_vec(&value).expect("json")).expect("write");
    let (ok, report) = table.audit(true);
    assert!(ok, "{report}");
    assert_eq!(table.view()["turn"], 1);
}

#[test]
fn a_closed_pipe_is_not_an_error() {
    let table = Table::new();
    table.new_game(SEED);
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("pbem"))
        .env("PBEM_HOME", table.home())
        .arg("legal")
        .arg(table.file())
        .args(["--player", "Ann"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawns");
    drop(child.stdout.take());
    let output = child.wait_with_output().expect("waits");
    let stderr = String::from_utf8_lossy(&output.stderr);
    // Not killed by SIGPIPE, and no panic: the reader only stopped listening.
    assert!(output.status.success(), "{:?}: {stderr}", output.status);
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// Run with its standard streams closed (from a careless cron line, say), pbem opens
/// /dev/null in their place and still moves: the files it opens never take descriptors
/// 0 to 2, so nothing it prints can land in them.
#[test]
fn closed_standard_streams_are_replaced_and_the_move_still_applies() {
    let table = Table::new();
    table.new_game(SEED);
    let (player, text) = table.first_move();
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(r#"exec "$0" apply "$1" --player "$2" --move "$3" <&- >&- 2>&-"#)
        .arg(assert_cmd::cargo::cargo_bin("pbem"))
        .arg(table.file())
        .arg(&player)
        .arg(&text)
        .env("PBEM_HOME", table.home())
        .status()
        .expect("runs");
    assert!(status.success(), "{status:?}");
    assert_eq!(table.view()["turn"], 1);
    let (ok, report) = table.audit(false);
    assert!(ok, "{report}");
    let lock = table.file().with_extension("json.lock");
    assert_eq!(std::fs::read(&lock).expect("the lock file"), b"");
}

#[test]
fn a_revealed_game_is_closed_to_moves() {
    let table = Table::new();
    table.new_game(SEED);
    let (mover, text) = table.first_move();
    assert!(table.apply(&mover, &text).0);
    let (next, text) = table.first_move();
    table
        .pbem()
        .arg("reveal")
        .arg(table.file())
        .arg("--force")
        .assert()
        .success();
    let before = bytes(&table.file());
    let view = table.view();
    assert_eq!(view["closed"], true, "{view}");
    assert_eq!(view["to_move"], serde_json::json!([]), "nobody is to move");
    assert!(table.legal(&next).is_empty(), "no move is offered");
    let (ok, out) = table.apply(&next, &text);
    assert!(!ok, "a move after the reveal was accepted: {out}");
    assert!(out.contains("revealed"), "{out}");
    assert_eq!(bytes(&table.file()), before);
    let (ok, report) = table.audit(true);
    assert!(ok, "{report}");
}

/// `pbem apply ... | true`: the reader is gone before pbem writes. The move is applied
/// and the exit status is the command's own, for an applied move and a refused one.
#[test]
fn output_to_a_closed_pipe_keeps_the_real_exit_status() {
    let table = Table::new();
    table.new_game(SEED);
    let (mover, text) = table.first_move();
    let run = |player: &str, text: &str| {
        let (reader, writer) = std::io::pipe().expect("a pipe");
        let (err_reader, err_writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        drop(err_reader);
        std::process::Command::new(assert_cmd::cargo::cargo_bin("pbem"))
            .env("PBEM_HOME", table.home())
            .arg("apply")
            .arg(table.file())
            .args(["--player", player, "--move", text])
            .stdout(writer)
            .stderr(err_writer)
            .status()
            .expect("runs")
    };
    let status = run(&mover, &text);
    assert_eq!(status.code(), Some(0), "{status:?}");
    assert_eq!(table.view()["turn"], 1, "the move was applied");
    let status = run(&mover, "place nowhere");
    assert_eq!(status.code(), Some(1), "{status:?}");
    assert_eq!(table.view()["turn"], 1);
}

/// Only `pbem new` makes a signing key: any other command pointed at an empty keyring
/// (a `.forward` pipe without PBEM_HOME, say) fails and creates nothing.
#[test]
fn no_command_but_new_creates_a_key() {
    let table = Table::new();
    table.new_game(SEED);
    let (mover, text) = table.first_move();
    let empty = table.dir.path().join("empty-home");
    for args in [
        vec!["apply", "--player", mover.as_str(), "--move", text.as_str()],
        vec!["reveal", "--force"],
        vec!["outbox", "flush"],
    ] {
        let output = table
            .pbem()
            .env("PBEM_HOME", &empty)
            .args(&args[..1])
            .args(if args[0] == "outbox" {
                &args[1..]
            } else {
                &[][..]
            })
            .arg(table.file())
            .args(if args[0] == "outbox" {
                &[][..]
            } else {
                &args[1..]
            })
            .output()
            .expect("runs");
        assert!(!output.status.success(), "{args:?}");
        assert!(
            String::from_utf8_lossy(&output.stderr).contains("PBEM_HOME"),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(!empty.join("referee.key").exists(), "{args:?} made a key");
    }
    assert_eq!(table.view()["turn"], 0);
}

/// The record holds the move as understood: the same move spelt another way makes the
/// same record, the same draws and so the same file.
#[test]
fn the_same_move_spelt_two_ways_records_and_draws_the_same() {
    let first = Table::new();
    first.new_game(SEED);
    let second = Table::new();
    second.new_game(SEED);
    let (mover, text) = first.first_move();
    let respelt = format!("  {}  ", text.to_lowercase().replace(' ', "   "));
    assert_ne!(respelt, text);
    assert!(first.apply(&mover, &text).0);
    let (ok, out) = second.apply(&mover.to_uppercase(), &respelt);
    assert!(ok, "{out}");
    assert_eq!(bytes(&first.file()), bytes(&second.file()));
    let log = String::from_utf8(
        second
            .pbem()
            .arg("log")
            .arg(second.file())
            .output()
            .expect("runs")
            .stdout,
    )
    .expect("utf-8");
    assert!(!log.contains(respelt.trim()), "{log}");
}

/// Plays `moves` first-listed moves through the CLI.
fn play_first_moves(table: &Table, moves: usize) {
    for _ in 0..moves {
        let (mover, text) = table.first_move();
        let (ok, stderr) = table.apply(&mover, &text);
        assert!(ok, "{stderr}");
    }
}

/// Every record's signature is checked before a move, not only the head's: with record
/// 1's signature replaced by other valid base64 of 64 bytes, `apply` refuses, names
/// record 1 and leaves the file as it was (the keyring's note of the last file written
/// does not vouch for these bytes).
#[test]
fn a_bad_signature_on_an_early_record_refuses_the_move() {
    use base64::engine::general_purpose::STANDARD as BASE64;
    use base64::Engine as _;

    let table = Table::new();
    table.new_game(SEED);
    play_first_moves(&table, 3);
    let (mover, text) = table.first_move();
    let original = String::from_utf8(bytes(&table.file())).expect("utf-8");
    let file: Value = serde_json::from_str(&original).expect("json");
    assert_eq!(file["records"].as_array().expect("records").len(), 3);
    let signature = file["records"][0]["signature"]
        .as_str()
        .expect("a signature");
    let mut forged = BASE64.decode(signature).expect("base64");
    assert_eq!(forged.len(), 64);
    forged[40] ^= 0x01;
    let forged = BASE64.encode(forged);
    assert_eq!(original.matches(signature).count(), 1);
    std::fs::write(table.file(), original.replacen(signature, &forged, 1)).expect("write");
    let tampered = bytes(&table.file());

    let (ok, stderr) = table.apply(&mover, &text);
    assert!(
        !ok,
        "a move on a file with a forged signature must be refused"
    );
    assert!(stderr.contains("signature of record 1 "), "{stderr}");
    assert_eq!(bytes(&table.file()), tampered, "the file must not change");
    let (ok, report) = table.audit(true);
    assert!(!ok);
    assert!(report.contains("FAILED turn 1 "), "{report}");
}

/// The stored state is a cache of the game's state: content the game's state type has
/// no place for (here an extra key) is refused by `apply` and fails the audit, as an
/// unknown key anywhere else in the file is, even though the state's hash, computed
/// from the state as read, still matches.
#[test]
fn an_unknown_key_in_the_stored_state_is_refused() {
    let table = Table::new();
    table.new_game(SEED);
    play_first_moves(&table, 1);
    let (mover, text) = table.first_move();
    let original = String::from_utf8(bytes(&table.file())).expect("utf-8");
    let tampered = original.replacen("\n\"state\":{", "\n\"state\":{\"zzz\":1,", 1);
    assert_ne!(tampered, original);
    std::fs::write(table.file(), &tampered).expect("write");

    let (ok, stderr) = table.apply(&mover, &text);
    assert!(
        !ok,
        "a move on a file with an unknown state key must be refused"
    );
    assert!(
        stderr.contains("state") && stderr.contains("zzz"),
        "{stderr}"
    );
    assert_eq!(bytes(&table.file()), tampered.as_bytes());
    for public in [true, false] {
        let output = {
            let mut command = table.pbem();
            command.arg("audit").arg(table.file());
            if public {
                command.arg("--public");
            }
            command.output().expect("runs")
        };
        assert!(!output.status.success(), "the audit must fail");
        let said =
            String::from_utf8_lossy(&output.stderr) + String::from_utf8_lossy(&output.stdout);
        assert!(said.contains("zzz"), "{said}");
    }
    assert_eq!(bytes(&table.file()), tampered.as_bytes());
}

/// The signed head travels: the view names it, and `audit --head` proves whether a file
/// still holds a head a player kept, so a rolled-back copy is caught.
#[test]
fn audit_head_catches_a_rolled_back_copy() {
    let table = Table::new();
    table.new_game(SEED);
    let genesis = table.view()["head"].clone();
    assert_eq!(genesis["turn"], 0);
    play_first_moves(&table, 2);
    let older = bytes(&table.file());
    play_first_moves(&table, 1);
    let view = table.view();
    assert_eq!(view["head"]["turn"], 3);
    let head = view["head"]["hash"].as_str().expect("a hash").to_string();
    let log = String::from_utf8(
        table
            .pbem()
            .arg("log")
            .arg(table.file())
            .output()
            .expect("runs")
            .stdout,
    )
    .expect("utf-8");
    assert!(
        log.contains(&head[..16]),
        "the head is record 3's hash: {log}"
    );
    let audit_head = |wanted: &str| {
        let output = table
            .pbem()
            .args(["audit", "--public", "--head", wanted])
            .arg(table.file())
            .output()
            .expect("runs");
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
        )
    };
    for kept in [
        head.as_str(),
        &head[..16],
        genesis["hash"].as_str().expect("hash"),
    ] {
        let (ok, report) = audit_head(kept);
        assert!(ok, "{report}");
    }
    // The referee (or anyone) puts back the copy from before turn 3.
    std::fs::write(table.file(), &older).expect("roll back");
    let (ok, plain) = table.audit(true);
    assert!(ok, "the older copy is a valid file on its own: {plain}");
    let (ok, report) = audit_head(&head);
    assert!(!ok, "{report}");
    assert!(report.contains("rolled back"), "{report}");
    let (ok, report) = audit_head("not-a-hash");
    assert!(!ok && report.contains("hexadecimal"), "{report}");
}

#[test]
fn new_and_demo_help_name_every_registered_game() {
    let table = Table::new();
    for command in ["new", "demo"] {
        let output = table
            .pbem()
            .args([command, "--help"])
            .output()
            .expect("runs");
        let help = String::from_utf8_lossy(&output.stdout);
        for name in pbem::games::names() {
            assert!(help.contains(name), "{command} --help: {help}");
        }
    }
}

/// `pbem demo` prints each board whole, and every turn on a line of its own, for every
/// game: a board that does not end in a newline does not run into the next line.
#[test]
fn a_demo_prints_each_turn_on_a_line_of_its_own() {
    for (game, players) in [
        ("right-of-way", "2"),
        ("triangle-auction", "3"),
        ("desert-kingdom", "2"),
    ] {
        let dir = tempfile::tempdir().expect("dir");
        let output = Table::new()
            .pbem()
            .args(["demo", "--game", game, "--players", players, "--dir"])
            .arg(dir.path())
            .output()
            .expect("runs");
        let text = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{game}: {text}");
        for line in text.lines() {
            if let Some(at) = line.find("turn   1:") {
                assert_eq!(at, 0, "{game}: {line}");
            }
        }
        assert!(text.contains("\nturn   1:"), "{game}: {text}");
    }
}

/// A game file in the first format (`pbem.game/1`, draws `pbem-draw/1`), written by the
/// pbem before sealed moves: it still shows, audits (for anyone, and for its referee
/// with the draws re-derived) and takes moves, and stays in its own format.
#[test]
fn a_format_1_file_still_loads_audits_and_plays() {
    let table = Table::new();
    table.format_1_game();
    let view = table.view();
    assert_eq!(view["turn"], 12);
    let (passed, report) = table.audit(true);
    assert!(passed, "{report}");
    let (passed, report) = table.audit(false);
    assert!(passed && report.contains("re-derived"), "{report}");
    let (mover, text) = table.first_move();
    let (applied, error) = table.apply(&mover, &text);
    assert!(applied, "{error}");
    let written = String::from_utf8(bytes(&table.file())).expect("utf-8");
    assert!(written.starts_with("{\"format\":\"pbem.game/1\""));
    assert_eq!(table.view()["turn"], 13);
    let (passed, report) = table.audit(false);
    assert!(passed && report.contains("turn 13"), "{report}");
}

/// `pbem new --join`: the seed is committed in a signed invitation; the setup is drawn
/// only when every player has joined, keyed on their words, so other words make
/// another setup from the same seed; a refused or repeated join changes nothing.
#[test]
fn the_setup_waits_for_every_player_to_join_and_depends_on_their_words() {
    let setup_after = |words: [&str; 2]| {
        let table = Table::new();
        table.test_key();
        table
            .pbem()
            .args(["new", "right-of-way", "--player", "Ann", "--player", "Bob"])
            .args(["--seed", SEED, "--join", "--out"])
            .arg(table.file())
            .assert()
            .success();
        let invitation = bytes(&table.file());
        let shown = table
            .pbem()
            .arg("show")
            .arg(table.file())
            .output()
            .expect("runs");
        let error = String::from_utf8_lossy(&shown.stderr).into_owned();
        assert!(
            !shown.status.success() && error.contains("waiting for Ann, Bob"),
            "{error}"
        );
        // Empty words and a stranger are refused, and change nothing.
        for (player, entropy) in [("Ann", "  "), ("Zed", "hello")] {
            table
                .pbem()
                .arg("join")
                .arg(table.file())
                .args(["--player", player, "--entropy", entropy])
                .assert()
                .failure();
            assert_eq!(bytes(&table.file()), invitation);
        }
        for (player, entropy) in [("Ann", words[0]), ("Bob", words[1])] {
            table
                .pbem()
                .arg("join")
                .arg(table.file())
                .args(["--player", player, "--entropy", entropy])
                .assert()
                .success();
        }
        let joined = bytes(&table.file());
        // A join after the start is refused.
        table
            .pbem()
            .arg("join")
            .arg(table.file())
            .args(["--player", "Ann", "--entropy", "again"])
            .assert()
            .failure();
        assert_eq!(bytes(&table.file()), joined);
        let (passed, report) = table.audit(false);
        assert!(
            passed && report.contains("the players joined invitation"),
            "{report}"
        );
        let game: Value = serde_json::from_slice(&joined).expect("json");
        // The view gives each player's words as genesis records them.
        let view = table.view();
        assert_eq!(
            view["joined"],
            serde_json::json!([
                {"name": "Ann", "words": words[0]},
                {"name": "Bob", "words": words[1]},
            ])
        );
        assert_eq!(view["invitation"], game["genesis"]["invitation"]);
        (
            game["genesis"]["draws"].clone(),
            game["genesis"]["seed_commitment"].clone(),
        )
    };
    let (first, commitment) = setup_after(["blue heron", "seven swans"]);
    let (again, same_commitment) = setup_after(["blue heron", "seven swans"]);
    let (other, other_commitment) = setup_after(["blue heron", "six swans"]);
    assert_eq!(commitment, same_commitment);
    assert_eq!(commitment, other_commitment);
    assert_eq!(first, again, "the same seed and words make the same setup");
    assert_ne!(
        first, other,
        "other words make another setup from the same seed"
    );
}

/// `pbem show --format svg` and `png` for every game, every kind of viewer and an
/// earlier turn: a picture of the same size either way, naming the viewer's own
/// player as the text does, and the same errors as the other formats.
#[test]
fn every_game_shows_its_board_as_svg_and_png_for_every_viewer() {
    for (game, players) in [
        ("right-of-way", "2"),
        ("triangle-auction", "3"),
        ("desert-kingdom", "2"),
    ] {
        let table = Table::new();
        let file = table.demo(game, players);
        let show = |args: &[&str]| {
            let output = table
                .pbem()
                .arg("show")
                .arg(&file)
                .args(args)
                .output()
                .expect("runs");
            assert!(
                output.status.success(),
                "{game} {args:?}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            output.stdout
        };
        let view: Value = serde_json::from_slice(&show(&["--format", "json"])).expect("json");
        let first = view["players"][0]["name"]
            .as_str()
            .expect("a name")
            .to_string();
        for viewer in [None, Some(first.as_str()), Some("referee")] {
            for turn in [None, Some("1")] {
                let mut args = vec![];
                if let Some(viewer) = viewer {
                    args.extend(["--as", viewer]);
                }
                if let Some(turn) = turn {
                    args.extend(["--turn", turn]);
                }
                let svg = String::from_utf8(show(&[&args[..], &["--format", "svg"]].concat()))
                    .expect("an SVG is text");
                assert!(
                    svg.starts_with("<svg ") && svg.trim_end().ends_with("</svg>"),
                    "{game}"
                );
                let texts = picture_texts(&svg);
                assert!(
                    texts.iter().any(|t| t.contains(&first)),
                    "{game} {args:?}: {first} not in {texts:?}"
                );
                let (width, height) = picture_size(&svg);
                let png = show(&[&args[..], &["--format", "png"]].concat());
                let (png_width, png_height) = png_size(&png);
                assert!(
                    (f64::from(png_width) - width * PNG_SCALE).abs() <= 2.0,
                    "{game}: {width} {png_width}"
                );
                assert!(
                    (f64::from(png_height) - height * PNG_SCALE).abs() <= 2.0,
                    "{game}: {height} {png_height}"
                );
            }
        }
        for bad in [
            &["--format", "svg", "--as", "Nobody"][..],
            &["--format", "png", "--turn", "100000"],
            &["--format", "svg", "--legend"],
        ] {
            let output = table
                .pbem()
                .arg("show")
                .arg(&file)
                .args(bad)
                .output()
                .expect("runs");
            assert!(!output.status.success(), "{game} {bad:?}");
            assert!(output.stdout.is_empty(), "{game} {bad:?}");
            assert!(!output.stderr.is_empty(), "{game} {bad:?}");
        }
    }
}

/// A filter of 120 KB is quoted back by its start alone, for either player and either
/// filter: what a command says never grows with what it was given.
#[test]
fn a_huge_filter_is_not_echoed_back_whole() {
    let table = Table::new();
    table.new_game(SEED);
    let huge = "Z".repeat(120_000);
    for player in ["Ann", "Bob"] {
        for flag in ["--at", "--tile"] {
            let (_, out) = table.run(&["legal", "--player", player, flag, &huge]);
            assert!(out.len() < 2_000, "{player} {flag}: {} bytes", out.len());
        }
    }
}
