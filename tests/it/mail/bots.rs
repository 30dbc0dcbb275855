//! Built-in players in games by mail: a bot's seat, refused where it could not play,
//! named with its version, its moves checked by the audit once the seed is known.

use super::*;

/// Two people play a three-player game by mail, the third seat a built-in player's:
/// the referee makes the bot's moves as soon as it is to move (the harness asserts a
/// bot is never left to move), signed and recorded as the bot's, the people are told
/// of them like any move, nobody mails the bot, the game ends and its audit passes
/// (the harness audits the finished file).
#[test]
fn a_bot_takes_a_seat_in_a_game_by_mail() {
    for (game, bot) in [
        ("triangle-auction", "Robo <bot:greedy>"),
        ("desert-kingdom", "Robo <bot:search>"),
    ] {
        let mut told = 0;
        let mut robo_records = 0;
        let names = ["Ann", bot, "Bob"];
        let (moves, figures) = crate::support::play_by_mail_as(
            game,
            &names,
            SEED,
            5,
            crate::support::Pictures::Off,
            None,
            |sent| {
                assert!(
                    !sent.to.starts_with("bot:"),
                    "mail to the bot: {}",
                    sent.subject
                );
                // The bot moves at once: nobody is told to wait for it.
                assert!(
                    !squeezed(sent.body).contains("Now waiting for Robo"),
                    "{}",
                    sent.body
                );
                if sent.body.contains("Robo played") || sent.body.contains("Robo has chosen") {
                    told += 1;
                }
                if sent.subject.contains("The game is over") && sent.to == "ann@example.org" {
                    let output = Command::new(assert_cmd::cargo::cargo_bin("pbem"))
                        .env("PBEM_HOME", sent.home)
                        .arg("log")
                        .arg(sent.file)
                        .output()
                        .expect("runs");
                    let log = String::from_utf8_lossy(&output.stdout).into_owned();
                    robo_records = log
                        .lines()
                        .filter(|line| line.starts_with("turn") && line.contains(" Robo "))
                        .count();
                }
            },
        );
        // Only the people got mail, and they made the moves the harness counts.
        assert_eq!(
            figures.keys().collect::<Vec<_>>(),
            ["ann@example.org", "bob@example.org"]
        );
        assert!(moves > 0);
        assert!(robo_records > 0, "{game}: Robo made no move");
        assert!(told > 0, "{game}: nobody was told of Robo's moves");
        println!("{game}: the people made {moves} moves, Robo {robo_records}; {told} notices told of Robo's");
    }
}

#[test]
fn a_bot_seat_is_refused_where_it_could_not_play() {
    let host = Host::new();
    let new = |players: &[&str], extra: &[&str]| {
        let mut command = host.pbem();
        command.args(["new", "triangle-auction"]);
        for player in players {
            command.args(["--player", player]);
        }
        command.args(extra).arg("--out").arg(host.file());
        host.run(&mut command)
    };
    let people = ["Ann <ann@example.org>", "Bob <bob@example.org>"];
    let (ok, out) = new(&[people[0], people[1], "Robo <bot:clever>"], &["--mail"]);
    assert!(!ok && out.contains("random, greedy, search"), "{out}");
    let (ok, out) = new(&[people[0], people[1], "Robo <bot:search>"], &[]);
    assert!(!ok && out.contains("--mail"), "{out}");
    let (ok, out) = new(
        &[people[0], people[1], "Robo <bot:search>"],
        &["--mail", "--join"],
    );
    assert!(!ok && out.contains("without --join"), "{out}");
    let (ok, out) = new(
        &["R1 <bot:random>", "R2 <bot:random>", "R3 <bot:greedy>"],
        &["--mail"],
    );
    assert!(!ok && out.contains("pbem simulate"), "{out}");
    assert!(!host.file().exists(), "nothing written");
}

/// The records of a game file, as JSON.
fn records_of(file: &Value) -> Vec<Value> {
    file["records"].as_array().expect("records").clone()
}

/// A bot's seat chooses its move with a stream keyed from the seed and the game, never
/// from the system: the same game, played by mail in two places to the bot's move,
/// gives the bot the same moves (so a referee could run it again and again and never
/// get another), and a new game names the bot with its version in genesis.
#[test]
fn a_bots_seat_is_named_with_its_version_and_its_move_never_changes() {
    let mut played = Vec::new();
    for _ in 0..2 {
        let host = Host::new();
        host.start_game_with_a_bot();
        let players = host.file_json()["genesis"]["players"].clone();
        assert_eq!(
            players,
            serde_json::json!([
                {"name": "Ann", "email": "ann@example.org"},
                {"name": "Robo", "email": "bot:search/1"}
            ])
        );
        host.ann_moves_by_mail();
        let records = records_of(&host.file_json());
        let players: Vec<&str> = records
            .iter()
            .map(|r| r["player"].as_str().expect("a player"))
            .collect();
        // Who starts is the setup's draw: Robo's move follows Ann's either way.
        assert!(
            players == ["Robo", "Ann", "Robo"] || players == ["Ann", "Robo"],
            "{players:?}"
        );
        assert_eq!(host.view()["to_move"], serde_json::json!(["Ann"]));
        let (ok, report) = host.run(host.pbem().arg("audit").arg(host.file()));
        assert!(
            ok && report.contains(&format!("turn {} (Robo): ok", players.len()))
                && report.contains("the bot's own move"),
            "{report}"
        );
        played.push(records);
    }
    // The whole records: the moves, their draws, hashes and signatures.
    assert_eq!(played[0], played[1]);
}

/// A referee who replaces a bot's move by another legal move of its seat, hashed and
/// signed with their key as pbem would, is caught by the audit once it has the seed
/// (the referee's keyring, or the seed revealed in the file): it names the record and
/// the move the bot would have played. Before the reveal an outsider's audit reports
/// the check as pending. The file the referee did not touch passes.
#[test]
fn a_bots_move_replaced_by_another_fails_the_audit_once_the_seed_is_known() {
    let host = Host::new();
    host.start_game_with_a_bot();
    // The game before Ann's move, beside the games folder (the referee's own copy).
    let forged = host.dir.path().join("forged.json");
    std::fs::write(&forged, host.file_bytes()).expect("copy");
    let ann = host.ann_moves_by_mail();
    let untouched = host.file_json();
    let records = records_of(&untouched);
    let bots = records.last().expect("Robo's record");
    assert_eq!(bots["player"], "Robo");
    let turn = bots["turn"].as_u64().expect("a turn");
    let bots_move = bots["move"].as_str().expect("Robo's move").to_string();
    // Robo's turns: the last, and the first too when the setup drew Robo to start.
    let robos = records
        .iter()
        .filter(|record| record["player"] == "Robo")
        .map(|record| record["turn"].to_string())
        .collect::<Vec<_>>()
        .join(", ");

    // The referee makes Ann's move again on the copy (the same record, byte for byte),
    // then another legal move for Robo.
    let apply = |player: &str, text: &str| {
        let (ok, out) = host.run(
            host.pbem()
                .arg("apply")
                .arg(&forged)
                .args(["--player", player, "--move", text]),
        );
        assert!(ok, "{out}");
    };
    apply("Ann", &ann);
    let read = |path: &Path| -> Value {
        serde_json::from_slice(&std::fs::read(path).expect("read")).expect("json")
    };
    assert_eq!(records_of(&read(&forged)), records[..records.len() - 1]);
    let output = host
        .pbem()
        .arg("legal")
        .arg(&forged)
        .args(["--player", "Robo", "--format", "json"])
        .output()
        .expect("runs");
    let legal: Value = serde_json::from_slice(&output.stdout).expect("json");
    let other = legal
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|entry| entry["move"].as_str())
        .find(|text| *text != bots_move)
        .expect("another legal move")
        .to_string();
    apply("Robo", &other);
    let replaced = records_of(&read(&forged));
    assert_eq!(replaced.len(), records.len());
    assert_eq!(replaced[..records.len() - 1], records[..records.len() - 1]);
    assert_ne!(replaced.last().map(|r| &r["move"]), Some(&bots["move"]));

    let audit = |path: &Path, public: bool| {
        let mut command = host.pbem();
        command.arg("audit").arg(path);
        if public {
            command.arg("--public");
        }
        host.run(&mut command)
    };
    let caught = format!(
        "FAILED turn {turn} (Robo): it is not the move the bot search/1 makes from this position with its key: the bot would have played {bots_move:?}"
    );
    // With the referee's keyring, before the reveal.
    let (ok, report) = audit(&forged, false);
    assert!(!ok && report.contains(&caught), "{report}");
    let (ok, report) = audit(&host.file(), false);
    assert!(ok, "{report}");
    // An outsider before the reveal: pending, not failed.
    for path in [&forged, &host.file()] {
        let (ok, report) = audit(path, true);
        assert!(
            ok && report.contains("pending until the seed is revealed")
                && report.contains(&format!(
                    "the moves of bots' seats (turn {robos}) played again by their bots"
                )),
            "{report}"
        );
    }
    // Anyone, once the seed is in the file.
    for path in [&forged, &host.file()] {
        let (ok, out) = host.run(host.pbem().args(["reveal", "--force"]).arg(path));
        assert!(ok, "{out}");
    }
    let (ok, report) = audit(&forged, true);
    assert!(!ok && report.contains(&caught), "{report}");
    assert_eq!(
        report
            .lines()
            .filter(|line| line.starts_with("FAILED"))
            .count(),
        1,
        "only the bot's record fails: {report}"
    );
    let (ok, report) = audit(&host.file(), true);
    assert!(
        ok && report.contains(&format!("turn {turn} (Robo): ok"))
            && report.contains("the bot's own move"),
        "{report}"
    );
}

/// A right-of-way game between Ann and Robo, whose genesis names Robo's bot as the
/// engine records `bots` (a pbem that has them would), with Ann to move first; written
/// to the host's game file.
fn game_naming(host: &Host, bots: &[pbem::engine::players::BotId]) {
    use pbem::engine::fairness::Seed;
    use pbem::engine::keyring::Keyring;
    use pbem::engine::roster::parse_player;
    use pbem::engine::session::{Game, NewGame};
    use pbem::engine::Rules;
    use pbem::games::right_of_way::RightOfWay;
    let keyring = Keyring::at(host.dir.path().join("keyring"));
    // A seed with Ann to move first, so that the bot's turn comes after a move by mail.
    let game = (0..=u8::MAX)
        .map(|byte| {
            let request = NewGame {
                players: vec![
                    parse_player("Ann <ann@example.org>"),
                    parse_player("Robo <bot:search>"),
                ],
                seed: Some(Seed([byte; 32])),
                ..NewGame::default()
            };
            Game::<RightOfWay>::create_played(request, &keyring, bots).expect("create")
        })
        .find(|game| game.rules.to_move(&game.file.state) == [0])
        .expect("a seed with Ann first");
    std::fs::write(host.file(), game.file.to_bytes().expect("bytes")).expect("write");
}

/// A game written before bots had versions (`bot:search` in genesis, as the engine
/// writes it for a bot without one) is played as it always was: the bot moves, with
/// randomness from the system, and the audit passes, saying why it cannot play those
/// moves again.
#[test]
fn a_bot_named_without_a_version_is_played_as_before() {
    use pbem::engine::players::BotId;
    let host = Host::new();
    let before = [BotId {
        name: "search".into(),
        version: None,
    }];
    game_naming(&host, &before);
    assert_eq!(
        host.file_json()["genesis"]["players"][1]["email"],
        "bot:search"
    );
    let (ann, text) = host.first_move();
    assert_eq!(ann, "Ann");
    let (ok, out) = host.run(
        host.pbem()
            .arg("apply")
            .arg(host.file())
            .args(["--player", "Ann", "--move", &text, "--mail"]),
    );
    assert!(ok, "{out}");
    let records = records_of(&host.file_json());
    assert_eq!(records.len(), 2);
    assert_eq!(records[1]["player"], "Robo");
    let (ok, report) = host.run(host.pbem().arg("audit").arg(host.file()));
    assert!(
        ok && report.contains("Robo's seat is the bot search's: named without a version, its moves were chosen with randomness from the system"),
        "{report}"
    );
}

/// A game whose genesis names a version of a bot this pbem does not have (`search/7`,
/// from a later pbem, made here with the engine as that pbem would) still reads and
/// takes its people's moves; the referee's machine refuses to play the bot's seat,
/// saying which bots it plays, and the audit passes, saying it cannot check that
/// seat's moves.
#[test]
fn a_bot_version_this_pbem_lacks_is_refused_and_its_moves_not_checked() {
    use pbem::engine::players::BotId;
    let host = Host::new();
    let later = [BotId {
        name: "search".into(),
        version: Some(7),
    }];
    game_naming(&host, &later);
    assert_eq!(
        host.file_json()["genesis"]["players"][1]["email"],
        "bot:search/7"
    );
    let (ann, text) = host.first_move();
    assert_eq!(ann, "Ann");
    let (ok, out) = host.run(
        host.pbem()
            .arg("apply")
            .arg(host.file())
            .args(["--player", "Ann", "--move", &text, "--mail"]),
    );
    assert!(
        !ok && out.contains(
            "Robo's seat is played by bot:search/7, and this pbem does not play search/7"
        ) && out.contains("(it plays random/1, greedy/1, search/1)"),
        "{out}"
    );
    // Ann's move stands; the bot's seat waits.
    assert_eq!(records_of(&host.file_json()).len(), 1);
    assert_eq!(host.view()["to_move"], serde_json::json!(["Robo"]));
    let (ok, report) = host.run(host.pbem().arg("audit").arg(host.file()));
    assert!(
        ok && report.contains(
            "not checked by this pbem: the moves of Robo's seat against the bot search/7"
        ),
        "{report}"
    );
}

/// `pbem watch` logs the move a built-in player makes after a person's, as it logs the
/// person's.
#[test]
fn watch_logs_a_built_in_players_move() {
    let host = Host::new();
    host.start_game_with_a_bot();
    let text = host.legal("Ann")[0].clone();
    let token = token_of(&host, "ann@example.org");
    let maildir = host.maildir();
    deliver_at(
        &maildir,
        "1764000001.M1P1.mx",
        &token_message(&host.tag(), &token, "ann@example.org", &text, "ann-watch"),
        1_764_000_001,
    );
    let output = host
        .pbem()
        .args(["watch", "--once", "--games"])
        .arg(host.games())
        .arg("--maildir")
        .arg(&maildir)
        .output()
        .expect("runs");
    let said = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{said}");
    let lines: Vec<&str> = said.lines().collect();
    let ann = lines.iter().position(|l| l.contains(": applied: turn 1:"));
    let robo = lines
        .iter()
        .position(|l| l.contains("game.json: Robo (a built-in player) moved: turn 2: "));
    assert!(ann.is_some() && robo > ann, "{said}");
}
