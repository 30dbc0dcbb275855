//! Complete triangle auction games through the command line and by mail, the demo,
//! the reports `pbem show` and the mail give each reader, and one placing turn's
//! orders in its record.

use super::*;

/// Complete games through the command line for 3, 4 and 5 players, every move taken
/// from `pbem legal`'s JSON (so each entry must apply as it stands); bad moves leave
/// the file as it was; the audit passes and catches a changed bid.
#[test]
fn complete_games_through_the_command_line() {
    for players in 3..=5 {
        let table = Table::new();
        let list = &["Ann <ann@example.org>", "Bob", "Cid", "Dee", "Eve"][..players];
        table.start(
            "triangle-auction",
            list,
            &format!("{:02x}", 40 + players).repeat(32),
        );
        let mut picker = DrawStream::for_testing(players as u64);
        let mut moves = 0;
        loop {
            let view = table.view();
            if view["over"] == true {
                break;
            }
            let waiting: Vec<String> = view["to_move"]
                .as_array()
                .expect("a list")
                .iter()
                .map(|p| p.as_str().expect("a name").to_string())
                .collect();
            let player = &waiting[picker.index(waiting.len() as u32) as usize];
            let legal = table.legal(player);
            assert!(!legal.is_empty(), "{player} to move has moves");
            let text = legal[picker.index(legal.len() as u32) as usize]["move"]
                .as_str()
                .expect("a move")
                .to_string();
            if moves % 25 == 0 {
                let before = std::fs::read(table.file()).expect("read");
                let (ok, error) = table.apply(player, "bid 9 on Z");
                assert!(!ok && !error.is_empty());
                assert_eq!(std::fs::read(table.file()).expect("read"), before);
            }
            let (ok, error) = table.apply(player, &text);
            assert!(ok, "{player} `{text}`: {error}");
            if text.starts_with("card") {
                // Face down in the file, the public view and the log.
                let file: Value =
                    serde_json::from_slice(&std::fs::read(table.file()).expect("read"))
                        .expect("json");
                let record = file["records"]
                    .as_array()
                    .and_then(|r| r.last())
                    .expect("a record");
                assert!(
                    record.get("move").is_none() && record.get("sealed").is_some(),
                    "{record}"
                );
                let cards: Vec<&Value> = file["state"]["players"]
                    .as_array()
                    .expect("players")
                    .iter()
                    .map(|p| &p["card"])
                    .collect();
                assert!(cards.iter().all(|c| c.is_null()), "{cards:?}");
                let after = table.view();
                for entry in after["players"].as_array().expect("players") {
                    assert!(entry.get("card").is_none(), "{entry}");
                }
                let log = table
                    .pbem()
                    .arg("log")
                    .arg(table.file())
                    .output()
                    .expect("log");
                let log = String::from_utf8_lossy(&log.stdout);
                // The last record's line (a note on reports and the seed follow it).
                let last = log
                    .lines()
                    .rev()
                    .find(|l| l.starts_with("turn "))
                    .expect("the last record");
                assert!(
                    last.contains(&format!("(sealed: {player} has chosen)")),
                    "{last}"
                );
            }
            moves += 1;
            assert!(moves < 1500, "the game ends");
        }
        let view = table.view();
        assert_eq!(view["round"], 8);
        assert!(!view["winners"].as_array().expect("winners").is_empty());
        let (passed, report) = table.audit(true);
        assert!(passed, "{report}");
        // A changed bid is caught (every game has bids).
        let text = std::fs::read_to_string(table.file()).expect("read");
        let changed = text.replacen("\"move\":\"bid ", "\"move\":\"bid 1", 1);
        assert_ne!(changed, text);
        std::fs::write(table.file(), changed).expect("write");
        let (passed, report) = table.audit(true);
        assert!(
            !passed && report.contains("do not match its hash"),
            "{report}"
        );
    }
}

/// Complete games for 3, 4 and 5 players through the mail loop (a real SMTP server on
/// loopback, `pbem inbox` as a process): until a player's card is revealed, no mail to
/// another player tells it, and every turn notice says the round and the phase.
#[test]
fn complete_games_by_mail_keep_every_card_face_down_until_its_turn() {
    for players in 3..=5 {
        let names = names(players);
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let seed = format!("{:02x}", 70 + players).repeat(32);
        let mut mails = 0;
        let mut saying_the_round = 0;
        let moves = crate::support::play_by_mail_text_only(
            "triangle-auction",
            &names,
            &seed,
            players as u64 + 11,
            |sent| {
                if sent.subject.contains("your move") {
                    mails += 1;
                    if sent.body.contains("Triangle auction, round ") {
                        saying_the_round += 1;
                    }
                }
                // The cards still face down, by owner.
                let hidden = sent.after["players"]
                    .as_array()
                    .expect("players")
                    .iter()
                    .filter(|p| p["chosen"] == true && p["revealed_card"].is_null())
                    .map(|p| p["name"].as_str().expect("name"));
                for owner in hidden {
                    if sent.to.starts_with(&owner.to_ascii_lowercase()) {
                        continue;
                    }
                    // Another player's board line says only "card face down".
                    if let Some(line) = sent
                        .body
                        .lines()
                        .find(|l| l.starts_with(&format!("{owner}: ")))
                    {
                        assert!(
                            line.ends_with("card face down"),
                            "mail to {}: {line}",
                            sent.to
                        );
                    }
                    // The mail of a move the referee made at once after it (a forced
                    // move) is about that move.
                    let about_another = sent.turn != sent.move_turn;
                    if sent.text.starts_with("card") && sent.mover == owner && !about_another {
                        // Told that the owner chose, never what (the reader's own line
                        // may show their own card, which can be the same number).
                        assert!(
                            sent.body
                                .contains(&format!("{owner} has chosen, face down"))
                                && !sent.body.contains("played: card")
                                && !sent.body.lines().any(|l| l.trim() == sent.text),
                            "mail to {} about {owner}'s `{}`:\n{}",
                            sent.to,
                            sent.text,
                            sent.body
                        );
                    }
                }
            },
        );
        // Every turn notice says the round and the phase (its subject, cut to fit a
        // narrow screen, may not).
        assert!(
            mails > 0 && moves > 0,
            "{mails} turn notices for {moves} moves"
        );
        assert_eq!(
            saying_the_round, mails,
            "notices say the round and the phase"
        );
    }
}

/// `pbem demo --game triangle-auction --players N` plays a whole game between built-in
/// players and audits it, and never prints a card before it is revealed.
#[test]
fn the_demo_plays_the_triangle_auction() {
    for players in ["3", "5"] {
        let dir = tempfile::tempdir().expect("dir");
        let output = std::process::Command::new(assert_cmd::cargo::cargo_bin("pbem"))
            .args(["demo", "--game", "triangle-auction", "--every", "0"])
            .args(["--players", players, "--dir"])
            .arg(dir.path().join("demo"))
            .output()
            .expect("runs");
        let text = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{text}");
        assert!(text.ends_with("audit passed\n"), "{text}");
        let played = text.split("The final position").next().unwrap_or_default();
        assert!(played.contains("(a sealed choice)"));
        assert!(!played
            .lines()
            .any(|l| l.starts_with("turn ") && l.contains(" card ")));
        assert!(text.contains("winners: "));
    }
}

/// `pbem show --turn N --format json` carries the turn's report as the viewer may
/// read it, `pbem show --turn N` prints it under the board, and `pbem log` of a
/// finished game prints every public line.
#[test]
fn the_command_line_shows_each_turns_report_to_its_readers() {
    let recorded = recorded(1);
    let table = replay_revision_1(
        "triangle-auction",
        &recorded.players,
        &recorded.seed,
        &recorded.moves[..20],
    );
    let report = |viewer: Option<&str>, turn: u64| -> Vec<String> {
        let mut command = table.pbem();
        command.arg("show").arg(table.file()).args([
            "--format",
            "json",
            "--turn",
            &turn.to_string(),
        ]);
        if let Some(viewer) = viewer {
            command.args(["--as", viewer]);
        }
        let output = command.output().expect("runs");
        assert!(output.status.success(), "{output:?}");
        let view: Value = serde_json::from_slice(&output.stdout).expect("json");
        view["report"]
            .as_array()
            .expect("a report")
            .iter()
            .map(|l| l.as_str().expect("a line").to_string())
            .collect()
    };
    // Turn 2: Bob chose card 5, face down.
    let secret = "Bob's card, face down: card 5 (improvement 0 -> 5 when it opens; 0 to bid)";
    let chosen = "Bob has chosen a card, face down (2 of 3 chosen)";
    assert_eq!(report(Some("Bob"), 2), [chosen, secret]);
    assert_eq!(report(Some("Ann"), 2), [chosen]);
    assert_eq!(report(None, 2), [chosen]);
    assert_eq!(report(Some("referee"), 2), [chosen, secret]);
    // Turn 7: an outbid, for everyone.
    assert!(report(Some("Cid"), 7)
        .contains(&"Ann was outbid on A: 1 chit goes back to Ann's hand (now 5)".to_string()));
    let output = table
        .pbem()
        .arg("show")
        .arg(table.file())
        .args(["--turn", "12", "--as", "Ann"])
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("\nTurn 12:\n  Ann bid 1 chit on E (GPB)\n"),
        "{text}"
    );
    assert!(text.contains("  Unclaimed, discarded: D:RPG\n"), "{text}");

    // The log replays with the seed only once it is revealed: at the end.
    let finished = replay_revision_1(
        "triangle-auction",
        &recorded.players,
        &recorded.seed,
        &recorded.moves,
    );
    let output = finished
        .pbem()
        .arg("log")
        .arg(finished.file())
        .output()
        .expect("log");
    let log = String::from_utf8_lossy(&output.stdout);
    assert!(
        log.contains("\n          Bob has chosen a card, face down (2 of 3 chosen)\n"),
        "{log}"
    );
    assert!(log.contains("\n          Cid bid 2 chits on A (BP-), outbidding Ann's 1\n"));
    assert!(log.contains("\n          The game is over after round 8; winner: Ann\n"));
    // The seed is in the file: a line kept for one player is shown, marked as theirs.
    let private: Vec<&str> = log
        .lines()
        .filter(|line| line.contains("card, face down:"))
        .collect();
    assert!(!private.is_empty(), "{log}");
    assert!(
        private
            .iter()
            .all(|line| line.trim_start().starts_with("(to ")),
        "private lines are marked: {private:#?}"
    );
}

/// The report of every turn by mail: each notice carries every line its reader may
/// read of the turn and none of another player's hidden card (as mail.rs checks it
/// for every game, here for four players).
#[test]
fn mail_notices_carry_each_turns_report_to_its_readers() {
    fn squeezed(text: &str) -> String {
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }
    let names = ["Ann", "Bob", "Cid", "Dee"];
    let mut told = 0;
    let mut kept = 0;
    let mut forced = 0;
    crate::support::play_by_mail_text_only(
        "triangle-auction",
        &names,
        &"5e".repeat(32),
        23,
        |sent| {
            if sent.subject.contains("Reminder") {
                return;
            }
            let reader = names
                .iter()
                .find(|name| sent.to.starts_with(&name.to_ascii_lowercase()))
                .expect("a player's mail");
            let body = squeezed(sent.body);
            let turn = sent.turn;
            if turn > sent.move_turn {
                // The mail of a move the referee made at once after the player's.
                forced += 1;
            }
            let report = |viewer: &str| sent.report_as(viewer, turn);
            let seen = report(reader);
            assert!(!seen.is_empty(), "turn {turn}: every turn says what it did");
            for line in &seen {
                assert!(
                    body.contains(&squeezed(line)),
                    "turn {turn}: {reader} may read {line:?}:\n{}",
                    sent.body
                );
                told += 1;
            }
            for line in report("referee") {
                if !seen.contains(&line) {
                    assert!(
                        line.contains("'s card, face down: card "),
                        "only a card is private: {line}"
                    );
                    assert!(
                        !body.contains(&squeezed(&line)),
                        "turn {turn}: {reader} may not read {line:?}"
                    );
                    kept += 1;
                }
            }
        },
    );
    assert!(told > 0 && kept > 0, "{told} lines told, {kept} kept back");
    assert!(forced > 0, "the referee made forced moves at once");
}

// --- One move, one record ----------------------------------------------------------

/// Two orders of one placing turn (T18), applied through `pbem apply` to the same
/// position of two games with the same seed: one canonical text in both records, and
/// so the same draws (the turn ends the round: its record draws the next offer). A
/// tile named twice, and more steps than tiles won, are refused.
#[test]
fn two_orders_of_one_placing_turn_are_recorded_and_drawn_alike() {
    let recorded = recorded(1);
    let (player, text) = &recorded.moves[73];
    assert_eq!(
        (player.as_str(), text.as_str()),
        ("Ann", "place E at F9 r2; place G at H10 r2")
    );
    // Either tile joins Ann's road on its own, so `place` accepts both orders.
    let orders = [text.as_str(), "place G at H10 r2; place E at F9 r2"];
    let mut records = Vec::new();
    for order in orders {
        let table = replay_revision_1(
            "triangle-auction",
            &recorded.players,
            &recorded.seed,
            &recorded.moves[..73],
        );
        let before = std::fs::read(table.file()).expect("read");
        for (refused, why) in [
            ("place E at F9 r2; discard e", "tile E is named twice"),
            (
                "place E at F9 r2; place G at H10 r2; discard A",
                "3 steps and you hold 2 tiles",
            ),
        ] {
            let (ok, error) = table.apply(player, refused);
            assert!(!ok && error.contains(why), "{refused}: {error}");
            assert_eq!(std::fs::read(table.file()).expect("read"), before);
        }
        records.push(table.apply_audited(player, order));
    }
    assert_eq!(records[0]["move"], *text);
    assert_eq!(records[1]["move"], records[0]["move"]);
    assert!(!records[0]["draws"].as_array().expect("draws").is_empty());
    assert_eq!(records[1]["draws"], records[0]["draws"]);
}
