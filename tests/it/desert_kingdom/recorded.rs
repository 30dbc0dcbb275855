//! The desert kingdom's recorded games (tests/fixtures/desert-kingdom/): replayed to
//! their recorded results, with breakdowns that add up to the scores.

use super::*;

/// As `support::random_recorded_game`, for this game, each move's state taken from
/// its application rather than a replay of the whole game (a search of hundreds of
/// games for a shared win stays quick).
fn random_recorded(
    names: &[String],
    seed_hex: &str,
    picks: u64,
    skip_one_in: u32,
) -> (Vec<(String, String)>, State) {
    use pbem::engine::fairness::Seed;
    use pbem::engine::keyring::Keyring;
    use pbem::engine::roster::parse_player;
    use pbem::engine::session::{Game, NewGame};

    let dir = tempfile::tempdir().expect("dir");
    let keyring = Keyring::at(dir.path());
    crate::support::test_key(dir.path());
    let seed = Seed::from_hex(seed_hex).expect("seed");
    // The recorded games keep the format they were recorded in, and are replayed in
    // it (`support::replay_recorded`).
    let request = NewGame {
        players: names.iter().map(|n| parse_player(n)).collect(),
        seed: Some(seed.clone()),
        format: Some(pbem::engine::file::Version::V3),
        ..NewGame::default()
    };
    let mut game = Game::<DesertKingdom>::create(request, &keyring).expect("create");
    let mut state = game.replay(Some(&seed), None).expect("replay").state;
    let mut picker = DrawStream::for_testing(picks);
    let mut moves = Vec::new();
    while !game.rules.is_over(&state) {
        let waiting = game.rules.to_move(&state);
        let seat = waiting[picker.index(waiting.len() as u32) as usize];
        let mv = if picker.index(skip_one_in) == 0 {
            game.rules.deadline_move(&state, seat, Deadline::Skip)
        } else {
            game.rules.sample_move(&state, seat, &mut picker)
        }
        .expect("a move");
        let text = game.rules.canonical_text(&mv);
        state = game
            .apply(&keyring, &names[seat], &text)
            .expect("applies")
            .state;
        moves.push((names[seat].clone(), text));
    }
    (moves, state)
}

/// Plays random games in process until one ends each way and writes them down:
/// `cargo test --test it record_desert_kingdom_games -- --ignored`.
#[test]
#[ignore = "writes the fixtures of recorded games"]
fn record_desert_kingdom_games() {
    let endings = [
        "one player has the highest score",
        "a win shared by players tied on score, cities and roads on their terrain",
        "every city destroyed: nobody wins",
    ];
    let mut found: Vec<Option<Recorded>> = vec![None, None, None];
    for attempt in 0u64..3000 {
        if found.iter().all(Option::is_some) {
            break;
        }
        let players = 2 + (attempt % 5) as usize;
        let seed_hex = format!("{:064x}", 0xd400 + attempt);
        // A third of the moves the referee's own skip, which discovers in reading order.
        let (moves, state) = random_recorded(&names(players), &seed_hex, attempt, 3);
        let rules = rules_with(&[]);
        let winners = rules.winners(&state);
        let kind = match winners.len() {
            1 => 0,
            0 => 2,
            _ => 1,
        };
        if found[kind].is_some() {
            continue;
        }
        let view = rules.view(&state, Viewer::Public, &names(players));
        found[kind] = Some(Recorded {
            ending: endings[kind].to_string(),
            players: names(players),
            seed: seed_hex,
            moves,
            final_scores: rules.scores(&state),
            cities: view
                .players
                .iter()
                .map(|p| p["cities"].as_u64().expect("cities"))
                .collect(),
            winners: winners.iter().map(|&s| names(players)[s].clone()).collect(),
        });
    }
    std::fs::create_dir_all(RECORDED).expect("fixtures folder");
    for (kind, recorded) in found.into_iter().enumerate() {
        let Some(recorded) = recorded else {
            panic!("no game ended: {}", endings[kind]);
        };
        let mut text = serde_json::to_string_pretty(&recorded).expect("json");
        text.push('\n');
        std::fs::write(format!("{RECORDED}/ending-{}.json", kind + 1), text).expect("write");
    }
}

/// The recorded games replayed through the command line end as recorded: final
/// scores, cities held, winners (or nobody); every mail-facing view says so.
#[test]
fn recorded_games_replay_to_their_recorded_results() {
    let mut files: Vec<_> = std::fs::read_dir(RECORDED)
        .expect("recorded games")
        .map(|e| e.expect("entry").path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    assert_eq!(files.len(), 3, "one game for each way a game can end");
    for path in files {
        let recorded: Recorded =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
        let table = crate::support::replay_recorded(
            "desert-kingdom",
            &recorded.players,
            &recorded.seed,
            &recorded.moves,
        );
        let view = table.view();
        assert_eq!(view["over"], true);
        let entries = view["players"].as_array().expect("players");
        let scores: Vec<i64> = entries
            .iter()
            .map(|p| p["score"].as_i64().expect("score"))
            .collect();
        assert_eq!(scores, recorded.final_scores, "{}", path.display());
        let cities: Vec<u64> = entries
            .iter()
            .map(|p| p["cities"].as_u64().expect("cities"))
            .collect();
        assert_eq!(cities, recorded.cities, "{}", path.display());
        let winners: Vec<String> = view["winners"]
            .as_array()
            .expect("winners")
            .iter()
            .map(|w| w.as_str().expect("name").to_string())
            .collect();
        assert_eq!(winners, recorded.winners, "{}", path.display());
        // A player without a city scores zero, then their treasures at 20 (D14).
        for (score, city) in scores.iter().zip(&cities) {
            if *city == 0 {
                assert_eq!(*score % 20, 0, "{}", path.display());
            }
        }
        let board = table
            .pbem()
            .arg("show")
            .arg(table.file())
            .output()
            .expect("show");
        let board = String::from_utf8_lossy(&board.stdout);
        assert_eq!(
            board.contains("nobody wins"),
            recorded.winners.is_empty(),
            "{board}"
        );
        let (passed, report) = table.audit(true);
        assert!(passed, "{report}");
    }
}

/// The recorded games, replayed: each ends as recorded, its end says why, and each
/// player's breakdown adds up to their score; every turn's report has lines only its
/// mover may read where the bag gave them tiles, and none that names a face-down tile.
#[test]
fn recorded_games_end_with_breakdowns_that_add_up_to_the_scores() {
    for file in ["ending-1.json", "ending-2.json", "ending-3.json"] {
        let recorded = recorded(file);
        let (rules, turns) = replayed(&recorded);
        let last = &turns.last().expect("moves").after;
        assert_eq!(rules.scores(last), recorded.final_scores, "{file}");
        let end = rules.game_end(last, &recorded.players);
        assert!(
            end.reason.starts_with("the board is full"),
            "{}",
            end.reason
        );
        assert_eq!(
            end.reason.contains("nobody wins"),
            recorded.winners.is_empty(),
            "{file}: {}",
            end.reason
        );
        assert_eq!(end.breakdown.len(), recorded.players.len());
        for (seat, lines) in end.breakdown.iter().enumerate() {
            let mut sum = 0;
            let mut total = None;
            for line in lines {
                let number = line
                    .rsplit_once(": ")
                    .and_then(|(_, rest)| rest.split(' ').next())
                    .and_then(|n| n.parse::<i64>().ok());
                match (line.starts_with("Total: "), number) {
                    (true, Some(n)) => total = Some(n),
                    (false, Some(n)) => sum += n,
                    _ => {}
                }
            }
            assert_eq!(
                total,
                Some(recorded.final_scores[seat]),
                "{file}: {lines:?}"
            );
            assert_eq!(sum, recorded.final_scores[seat], "{file}: {lines:?}");
            assert!(lines[0].starts_with("Tiles placed"), "{lines:?}");
            if recorded.cities[seat] == 0 && recorded.final_scores[seat] == 0 {
                assert!(
                    lines.iter().any(|l| l.starts_with("No city left"))
                        || lines
                            .iter()
                            .all(|l| !l.contains(": -") && !l.ends_with(": 0")),
                    "{lines:?}"
                );
            }
        }
        let mut private = 0;
        for turn in &turns {
            for line in &turn.report {
                if let pbem::engine::Audience::Seat(reader) = line.audience {
                    assert_eq!(reader, turn.seat, "{}: {}", turn.text, line.text);
                    private += 1;
                }
                if line.text.contains("face down") {
                    assert!(line
                        .text
                        .starts_with("A tile from the bag went face down on "));
                }
            }
            // The report is the one the rules give for the turn's states.
            let mv = rules
                .parse_move(&turn.before, turn.seat, &turn.text)
                .expect("the move");
            assert_eq!(
                rules.report(&turn.before, turn.seat, &mv, &turn.after, &recorded.players),
                turn.report
            );
        }
        assert!(
            private > 0,
            "{file}: no activation told its drawer the tiles"
        );
        // The attack begins once, on the move that filled the board (owners may
        // answer it on later moves, D13).
        let began = turns
            .iter()
            .filter(|t| {
                t.report
                    .iter()
                    .any(|l| l.text == "The board is full: the barbarians attack")
            })
            .count();
        assert_eq!(began, 1, "{file}");
    }
}
