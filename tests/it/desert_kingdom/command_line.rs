//! Complete desert kingdom games through the command line and by mail, the demo,
//! the reports `pbem show` gives each viewer, and one move's spellings in its record.

use super::*;

/// Complete games through the command line for 2 to 6 players, every move from `pbem
/// legal`'s JSON; after every move the file, the public view and the log hold no
/// face-down tile's identity and no drawn tile; the audit passes and catches a changed
/// record; a bad move changes nothing.
#[test]
fn complete_games_through_the_command_line() {
    for players in 2..=6 {
        let table = Table::new();
        let list = &["Ann <ann@example.org>", "Bob", "Cid", "Dee", "Eve", "Fay"][..players];
        table.start(
            "desert-kingdom",
            list,
            &format!("{:02x}", 90 + players).repeat(32),
        );
        let mut picker = DrawStream::for_testing(players as u64);
        let mut moves = 0;
        loop {
            let view = table.view();
            if view["over"] == true {
                break;
            }
            let player = view["to_move"][0].as_str().expect("a name").to_string();
            let legal = table.legal(&player);
            assert!(!legal.is_empty(), "{player} to move has moves");
            let text = legal[picker.index(legal.len() as u32) as usize]["move"]
                .as_str()
                .expect("a move")
                .to_string();
            if moves % 20 == 0 {
                let before = std::fs::read(table.file()).expect("read");
                let (ok, error) = table.apply(&player, "discover Z9");
                assert!(!ok && error.to_lowercase().contains("z9"), "{error}");
                assert_eq!(std::fs::read(table.file()).expect("read"), before);
            }
            let (ok, error) = table.apply(&player, &text);
            assert!(ok, "{player} `{text}`: {error}");
            let after = table.view();
            if after["over"] != true {
                let file: Value =
                    serde_json::from_slice(&std::fs::read(table.file()).expect("read"))
                        .expect("json");
                let state = &file["state"];
                assert_eq!(state["bag"], serde_json::json!([]));
                assert_eq!(state["drawn"], serde_json::json!([]));
                for square in state["squares"]
                    .as_array()
                    .expect("squares")
                    .iter()
                    .filter(|s| !s.is_null())
                {
                    if square["face_down"] == true {
                        assert!(square["kind"].is_null(), "{square}");
                    }
                }
                for square in after["squares"].as_array().expect("squares") {
                    if square["face_down"] == true {
                        assert_eq!(square["terrain"], "face-down");
                    }
                }
                assert!(after.get("drawn").is_none());
            }
            moves += 1;
            assert!(moves < 600, "the game ends");
        }
        let (passed, report) = table.audit(true);
        assert!(passed, "{report}");
        let text = std::fs::read_to_string(table.file()).expect("read");
        let changed = text.replacen("\"move\":\"discover ", "\"move\":\"discover  ", 1);
        assert_ne!(changed, text);
        std::fs::write(table.file(), changed).expect("write");
        let (passed, report) = table.audit(true);
        assert!(!passed, "{report}");
    }
}

/// Complete games by mail for 2 to 6 players: no mail to a player holds a face-down
/// tile's identity or the tiles another player drew.
#[test]
fn complete_games_by_mail_keep_face_down_and_drawn_tiles_hidden() {
    let mut choices_mailed = 0;
    for players in 2..=6 {
        let names = names(players);
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let seed = format!("{:02x}", 110 + players).repeat(32);
        let mut game_over_mails = 0;
        crate::support::play_by_mail_text_only(
            "desert-kingdom",
            &names,
            &seed,
            players as u64,
            |sent| {
                if sent.after["over"] == true {
                    // The end says who won, or that nobody did.
                    if sent.subject.contains("The game is over") {
                        game_over_mails += 1;
                        let winners = sent.after["winners"].as_array().expect("winners");
                        if winners.is_empty() {
                            assert!(sent.subject.ends_with("nobody won"), "{}", sent.subject);
                            assert!(sent.body.contains("Nobody won."), "{}", sent.body);
                        } else {
                            let first = winners[0].as_str().expect("a name");
                            assert!(sent.subject.contains(first), "{}", sent.subject);
                        }
                    }
                    return;
                }
                // Face-down squares show as [?] on every board (the legend, which says
                // what a turned-up tile would show, aside).
                let board_rows = sent.body.lines().filter(|line| {
                    line.trim_start().starts_with(|c: char| c.is_ascii_digit())
                        && line.ends_with(|c: char| c.is_ascii_digit())
                });
                for row in board_rows {
                    assert!(
                        !row.contains("[O]") && !row.contains("[C]"),
                        "{}",
                        sent.body
                    );
                }
                // Only the chooser is told what was drawn.
                if let Some(choosing) = sent.after["phase"].get("choosing") {
                    let chooser = sent.after["to_move"][0].as_str().expect("a name");
                    // The board's last line, wrapped or not: from "chooses a tile" (for a
                    // square, or to score without one, D12) to its full stop.
                    let body = squeezed(sent.body);
                    let line = body.find("chooses a tile").map(|start| {
                        let rest = &body[start..];
                        rest[..rest.find('.').unwrap_or(rest.len())].to_string()
                    });
                    let own = sent.to.starts_with(&chooser.to_ascii_lowercase());
                    if own && sent.subject.contains("your move") {
                        // The chooser's notice lists the tiles drawn.
                        let line = line
                            .as_deref()
                            .expect("the chooser's notice shows the choice");
                        assert!(line.contains(": "), "{line}");
                        choices_mailed += 1;
                    }
                    if let Some(line) = line {
                        let told = line.contains(": ");
                        assert_eq!(told, own, "{} {choosing}: {line}", sent.to);
                    }
                }
            },
        );
        assert_eq!(game_over_mails, players, "every player hears how it ended");
    }
    assert!(choices_mailed > 0, "some activation left a choice to mail");
}

#[test]
fn the_demo_plays_every_player_count() {
    for players in ["2", "6"] {
        let dir = tempfile::tempdir().expect("dir");
        let output = std::process::Command::new(assert_cmd::cargo::cargo_bin("pbem"))
            .args(["demo", "--game", "desert-kingdom", "--every", "0"])
            .args(["--players", players, "--dir"])
            .arg(dir.path().join("demo"))
            .output()
            .expect("runs");
        let text = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{text}");
        assert!(text.ends_with("audit passed\n"), "{text}");
        assert!(text.contains("winners: "));
    }
    let _ = Visibility::Public;
}

/// The command line shows each turn's report as its reader may read it: `pbem show
/// --turn N --format json` the viewer's lines, `pbem show` under the board, `pbem log`
/// (once the game is over and its seed revealed) every line of every turn, the
/// drawers' own marked as theirs, and every draw opened.
#[test]
fn the_command_line_shows_each_report_to_whom_it_may() {
    let recorded = recorded("ending-1.json");
    let (_, turns) = replayed(&recorded);
    // Halfway: the seed is still secret.
    let upto = 30;
    let table = crate::support::replay_recorded(
        "desert-kingdom",
        &recorded.players,
        &recorded.seed,
        &recorded.moves[..upto],
    );
    let (index, turn) = turns[..upto]
        .iter()
        .enumerate()
        .rev()
        .find(|(_, t)| {
            t.report
                .iter()
                .any(|l| l.audience != pbem::engine::Audience::Everyone)
        })
        .expect("an activation told its drawer the tiles");
    let number = index + 1;
    let mover = &recorded.players[turn.seat];
    let other = &recorded.players[1 - turn.seat];
    let lines_for = |viewer: Viewer| -> Vec<String> {
        turn.report
            .iter()
            .filter(|l| l.seen_by(viewer))
            .map(|l| l.text.clone())
            .collect()
    };
    let shown = |viewer: Option<&str>| {
        let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("pbem"));
        command.env("PBEM_HOME", table.home());
        crate::support::report_shown(&mut command, &table.file(), viewer, number)
    };
    assert_eq!(shown(Some(mover)), lines_for(Viewer::Player(turn.seat)));
    assert_eq!(shown(Some(other)), lines_for(Viewer::Player(1 - turn.seat)));
    assert_eq!(shown(None), lines_for(Viewer::Public));
    assert_eq!(shown(Some("referee")), lines_for(Viewer::Referee));
    let private: Vec<String> = lines_for(Viewer::Player(turn.seat))
        .into_iter()
        .filter(|l| !lines_for(Viewer::Public).contains(l))
        .collect();
    assert!(!private.is_empty());
    // Under the board, as the mover reads it.
    let output = table
        .pbem()
        .arg("show")
        .arg(table.file())
        .args(["--as", mover, "--turn", &number.to_string()])
        .output()
        .expect("show");
    let board = String::from_utf8_lossy(&output.stdout);
    assert!(board.contains(&format!("\nTurn {number}:\n")), "{board}");
    for line in &private {
        assert!(board.contains(line.as_str()), "{line}: {board}");
    }
    // The log: every turn's public lines, never a drawer's own. It reads the file
    // alone, without the keyring, so it can work them out once the seed is revealed:
    // at the end.
    for (player, text) in &recorded.moves[upto..] {
        let (ok, error) = table.apply(player, text);
        assert!(ok, "{player} `{text}`: {error}");
    }
    let output = table
        .pbem()
        .arg("log")
        .arg(table.file())
        .output()
        .expect("log");
    let log = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{log}");
    for line in lines_for(Viewer::Public) {
        assert!(log.contains(&line), "{line}: {log}");
    }
    // Once the seed is revealed nothing is secret: the drawer's own lines are there,
    // marked as theirs, and every draw is opened (no `?/120` is left).
    for line in &private {
        assert!(
            log.contains(&format!("(to {mover}) {line}")),
            "{line}: {log}"
        );
    }
    assert!(log.contains("seed revealed"), "{log}");
    assert!(!log.contains("?/"), "{log}");
    for turn in &turns {
        for line in turn.report.iter().filter(|l| l.seen_by(Viewer::Public)) {
            assert!(log.contains(&line.text), "{}: {log}", line.text);
        }
    }
    // Before the reveal, the log keeps the drawer's lines and the draws to itself.
    let halfway = crate::support::replay_recorded(
        "desert-kingdom",
        &recorded.players,
        &recorded.seed,
        &recorded.moves[..upto],
    );
    let output = halfway
        .pbem()
        .arg("log")
        .arg(halfway.file())
        .output()
        .expect("log");
    let log = String::from_utf8_lossy(&output.stdout);
    assert!(log.contains("?/"), "{log}");
    assert!(!log.contains("(to "), "{log}");
    for line in &private {
        assert!(!log.contains(line.as_str()), "{line}: {log}");
    }
}

/// By mail, three players: every mail after a move carries the turn's report as its
/// reader may read it (the tiles an activation drew only in the drawer's), and the
/// game's end gives the reason and every score broken down.
#[test]
fn by_mail_every_notice_carries_the_report_its_reader_may_read() {
    let names = ["Ann", "Bob", "Cid"];
    let squeezed = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut read = 0;
    let mut own_draws = 0;
    let mut ends = 0;
    crate::support::play_by_mail_text_only("desert-kingdom", &names, &"d4".repeat(32), 9, |sent| {
        if sent.subject.contains("Reminder") {
            return;
        }
        let turn = sent.after["turn"].as_u64().expect("turn") as usize;
        let reader = names
            .iter()
            .find(|name| format!("{}@example.org", name.to_ascii_lowercase()) == sent.to)
            .expect("a player's mail");
        let shown = |viewer: Option<&str>| {
            let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("pbem"));
            command.env("PBEM_HOME", sent.home);
            crate::support::report_shown(&mut command, sent.file, viewer, turn)
        };
        let seen = shown(Some(reader));
        let public = shown(None);
        let body = squeezed(sent.body);
        for line in &seen {
            assert!(
                body.contains(&squeezed(line)),
                "turn {turn}: {reader} may read {line:?}:\n{}",
                sent.body
            );
            read += 1;
            if !public.contains(line) {
                own_draws += 1;
            }
        }
        for line in shown(Some("referee")) {
            if !seen.contains(&line) {
                assert!(
                    !body.contains(&squeezed(&line)),
                    "turn {turn}: {reader} may not read {line:?}:\n{}",
                    sent.body
                );
            }
        }
        if sent.subject.contains("The game is over") {
            ends += 1;
            assert!(
                sent.body.contains("the board is full, and "),
                "{}",
                sent.body
            );
            assert_eq!(
                sent.body.matches("Total: ").count(),
                names.len(),
                "{}",
                sent.body
            );
            assert!(sent.body.contains("Tiles placed ("), "{}", sent.body);
        }
    });
    assert!(read > 0);
    assert!(own_draws > 0, "an activation's tiles reached the drawer");
    assert_eq!(ends, names.len());
}

// --- One move, one record ----------------------------------------------------------

/// Two spellings of one activation's preference list (D19), applied through `pbem
/// apply` to the same position of two games with the same seed: one canonical text in
/// both records, and so the same draws.
#[test]
fn spellings_of_one_preference_are_recorded_and_drawn_alike() {
    let seed = "5e".repeat(32);
    let tables = [Table::new(), Table::new()];
    for table in &tables {
        table.start("desert-kingdom", &["Ann", "Bob"], &seed);
    }
    // The same discoveries in both games until the player to move can activate a tile.
    let (mover, activation) = loop {
        let mover = crate::support::to_move(&tables[0].view());
        let legal = tables[0].legal(&mover);
        let text = |kind: &str| {
            legal
                .iter()
                .find(|e| e["kind"] == kind)
                .and_then(|e| e["move"].as_str())
                .map(str::to_string)
        };
        if let Some(activation) = text("activate") {
            break (mover, activation);
        }
        let discover = text("discover").expect("an empty square");
        for table in &tables {
            let (ok, error) = table.apply(&mover, &discover);
            assert!(ok, "{discover}: {error}");
        }
    };
    // A list longer than the kinds of tile is refused, and the file left as it was.
    let before = std::fs::read(tables[0].file()).expect("read");
    let long = format!("{activation} prefer {}", ["oasis"; 9].join(", "));
    let (ok, error) = tables[0].apply(&mover, &long);
    assert!(!ok && error.contains("at most 8 tiles"), "{error}");
    assert_eq!(std::fs::read(tables[0].file()).expect("read"), before);
    let spellings = [
        format!("{activation} prefer oasis"),
        format!("{activation} prefer Oasis, oasis; oasis"),
    ];
    let records: Vec<_> = tables
        .iter()
        .zip(&spellings)
        .map(|(table, spelling)| table.apply_audited(&mover, spelling))
        .collect();
    assert_eq!(records[0]["move"], records[1]["move"]);
    assert!(
        records[0]["move"]
            .as_str()
            .is_some_and(|m| m.starts_with(&activation)),
        "{}",
        records[0]
    );
    assert!(!records[0]["draws"].as_array().expect("draws").is_empty());
    assert_eq!(records[0]["draws"], records[1]["draws"]);
}
