//! The desert kingdom's words: what each move reports and to whom, the move list's
//! example, the welcome, the boards within 78 columns, and refusals.

use super::*;

#[test]
fn a_discovery_reports_the_tile_turned_up_or_the_special_kept() {
    let (rules, mut state) = empty(2);
    with_bag(&mut state, &[Kind::Grass; 40]);
    let (_, lines) = reported(&rules, &state, 0, "discover C4");
    assert_eq!(
        lines,
        [
            line("all", "Ann discovered C4: a tile from the bag", false),
            line("all", "It was grass: C4 is now Ann's, 2 points", true),
            line("all", "Scores: Ann 2 (+2)", true),
        ]
    );
    // A barbarian: 15 points, another tile face down (whose identity nobody reads),
    // and another turn.
    // The bag sorted: 39 mountains, then the barbarian; the barbarian is drawn, then a
    // mountain goes face down.
    let mut bag = vec![Kind::Barbarian];
    bag.extend([Kind::Mountain; 39]);
    with_bag(&mut state, &bag);
    let (after, lines) = reported_with(&rules, &state, 0, "discover C4", &mut Script(vec![39]));
    assert_eq!(after.phase, Phase::Turn { seat: 0 });
    assert_eq!(
        lines,
        [
            line("all", "Ann discovered C4: a tile from the bag", false),
            line(
                "all",
                "It was a barbarian, kept aside: 15 points now, one more band at the end; \
                 C4 stays empty; Ann plays again",
                true
            ),
            line(
                "all",
                "A tile from the bag went face down on A1 (the barbarians' spiral)",
                true
            ),
            line("all", "Scores: Ann 15 (+15)", true),
        ]
    );
    assert!(lines.iter().all(|(_, text, _)| !text.contains("mountain")));
    with_bag(&mut state, &[Kind::Treasure; 40]);
    let (_, lines) = reported(&rules, &state, 0, "discover C4");
    assert_eq!(
        lines[1],
        line(
            "all",
            "It was a treasure, kept aside: 20 points at the end; C4 stays empty; \
             Ann plays again",
            true
        )
    );
    assert_eq!(lines.len(), 2, "no score changed: {lines:?}");
}

#[test]
fn a_road_reports_what_it_linked_and_every_players_points_square_by_square() {
    let (rules, mut state) = empty(3);
    network_beside_a_city(&mut state);
    state.phase = Phase::Turn { seat: 1 };
    let (_, lines) = reported(&rules, &state, 1, "road C4");
    assert_eq!(
        lines,
        [
            line("all", "Bob built a road on C4 (Ann's grass)", false),
            line(
                "all",
                "A tile from the bag went face down on A1 (the barbarians' spiral)",
                false
            ),
            line(
                "all",
                "It links the city on B4: the network of 5 squares scores",
                false
            ),
            line("all", "Bob scores 2: B4 city 2", false),
            line("all", "Ann scores 5: C4 grass 2, C5 mine 3", false),
            line("all", "Cid scores 9: D4 oasis 8, E4 desert 1", false),
            line("all", "Scores: Ann 5 (+5), Bob 2 (+2), Cid 9 (+9)", false),
        ]
    );
    // A road to nowhere new says so.
    put(&mut state, "F5", Kind::Desert, Some(0), false);
    let (_, lines) = reported(&rules, &state, 1, "road F5");
    assert_eq!(
        lines[2],
        line(
            "all",
            "It links no new city and joins no networks: nothing scores (D10)",
            false
        )
    );
    assert_eq!(lines.len(), 3);
}

/// An activation: everyone reads the action, the face-down square and how many tiles
/// were drawn and went back; only the drawer reads the tiles, which went back and
/// why. The face-down tile (the first of the bag here, an oasis) is named to nobody.
#[test]
fn an_activation_tells_the_tiles_drawn_to_the_drawer_only() {
    let (rules, mut state) = empty(2);
    put(&mut state, "D4", Kind::Mountain, Some(1), false);
    // Drawn in order: the oasis face down, then city, mine, grass, desert.
    let mut bag = vec![Kind::Oasis, Kind::City, Kind::Mine, Kind::Grass];
    bag.extend([Kind::Desert; 36]);
    with_bag(&mut state, &bag);
    let (after, lines) = reported(&rules, &state, 0, "activate D4 to D5");
    assert_eq!(
        lines,
        [
            line(
                "all",
                "Ann activated Bob's mountain on D4 towards D5 (it draws 4)",
                false
            ),
            line(
                "all",
                "A tile from the bag went face down on A1 (the barbarians' spiral)",
                false
            ),
            line("all", "Ann drew 4 tiles", false),
            line("Ann", "Ann's tiles drawn: city, mine, grass, desert", true),
            line(
                "Ann",
                "Back to the bag, forbidden by the mountain: city",
                true
            ),
            line(
                "Ann",
                "Back to the bag, as the mountain forces mine: grass, desert",
                true
            ),
            line("all", "3 of them went back to the bag", true),
            line(
                "all",
                "Ann took a mine (the only tile left): D5 is now Ann's, 3 points",
                true
            ),
            line("all", "Scores: Ann 3 (+3)", true),
        ]
    );
    assert!(lines.iter().all(|(_, text, _)| !text.contains("oasis")));
    assert!(after.squares[sq("A1").index()].is_some_and(|t| t.face_down));
    // Nothing that went back is named to Bob.
    for (who, text, _) in &lines {
        if who == "all" {
            assert!(!text.contains("city,") && !text.contains("grass"), "{text}");
        }
    }
}

/// An activation that leaves a choice, then the choice: the tiles to choose from
/// only to the chooser; everyone reads the tile kept (it lies face up) and how many
/// went back, the chooser which.
#[test]
fn a_choice_is_reported_to_the_chooser_and_counted_to_everyone() {
    let (rules, mut state) = empty(2);
    put(&mut state, "D4", Kind::Desert, Some(0), false);
    // Face down: an oasis; drawn: oasis, grass (a desert forbids neither, forces none).
    let mut bag = vec![Kind::Oasis, Kind::Oasis, Kind::Grass];
    bag.extend([Kind::Desert; 37]);
    with_bag(&mut state, &bag);
    let (choosing, lines) = reported(&rules, &state, 0, "activate D4 to D5");
    assert_eq!(
        lines[2..],
        [
            line("all", "Ann drew 2 tiles", false),
            line("Ann", "Ann's tiles drawn: oasis, grass", true),
            line(
                "all",
                "Ann chooses one of 2 tiles for D5 next (`take ...`)",
                true
            ),
            line("Ann", "Ann chooses from: oasis, grass", true),
        ]
    );
    // The list of moves now: the tiles, best first, with what each gives.
    let listed = rules.moves_text(&choosing, 0, &pbem::engine::MoveFilter::default(), &[]);
    assert_eq!(
        listed,
        "Take one tile for D5 (the others go back to the bag):\n  \
         take oasis           placed on D5: 8 points\n  \
         take grass           placed on D5: 2 points\n"
    );
    assert_eq!(
        rules.example_move(&choosing, 0).as_deref(),
        Some("take oasis")
    );
    let (_, lines) = reported(&rules, &choosing, 0, "take oasis");
    assert_eq!(
        lines,
        [
            line("all", "Ann took an oasis: D5 is now Ann's, 8 points", false),
            line("all", "Ann put 1 tile back in the bag", false),
            line("Ann", "Ann put back, unseen by the others: grass", false),
            line("all", "Scores: Ann 8 (+8)", false),
        ]
    );
    // The text names the square; another square is refused.
    let error = play(&rules, &choosing, 0, "take oasis for E5").expect_err("not its square");
    assert!(
        error.contains("the tiles you drew are for D5, not E5"),
        "{error}"
    );
    assert!(play(&rules, &choosing, 0, "take grass for d5").is_ok());
    // With a preference list the choice is made at once, and said so.
    let (_, lines) = reported(&rules, &state, 0, "activate D4 to D5 prefer grass");
    assert!(lines.contains(&line(
        "all",
        "Ann took grass (the first of the preference list drawn): D5 is now Ann's, 2 points",
        true
    )));
    assert!(lines.contains(&line("Ann", "Back to the bag, not chosen: oasis", true)));
    assert!(lines.contains(&line("all", "1 of them went back to the bag", true)));
}

#[test]
fn the_city_tile_and_a_resignation_are_reported() {
    let (rules, state) = empty(3);
    let (_, lines) = reported(&rules, &state, 0, "city E5");
    assert_eq!(
        lines,
        [
            line("all", "Ann played the city tile on E5: 5 points", false),
            line("all", "Scores: Ann 5 (+5)", false),
        ]
    );
    let (_, lines) = reported(&rules, &state, 0, "resign");
    assert_eq!(
        lines,
        [line(
            "all",
            "Ann left the game (resigned or forfeited): Ann cannot win, the others play on",
            false
        )]
    );
}

/// The move that fills the board: the barbarians' attack band by band, cities held,
/// treasures counted, the winner.
#[test]
fn the_attack_is_reported_band_by_band() {
    // The points the tiles and the barbarian drawn gave (B2, C4 and F4 placed, one
    // barbarian drawn), so that the breakdown adds up as in a real game.
    let state = bob_defends();
    let rules = rules_with(&[("treasures", "automatic")]);
    let (after, lines) = reported(&rules, &state, 0, "city H8");
    let texts: Vec<&str> = lines.iter().map(|(_, text, _)| text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "Ann played the city tile on H8: 5 points",
            "The board is full: the barbarians attack",
            "3 bands of barbarians (one per barbarian tile held) set out from D4, \
             the last face-down tile",
            "Band 1 reached C4 (Bob's city): Bob turned in a treasure, the band occupies it",
            "Band 2 reached F4 (Bob's city): Bob turned in a treasure, the band occupies it",
            "Band 3 destroyed B2 (Ann's city)",
            "Scores: Ann 25 (+5)",
            "Ann wins",
        ]
    );
    assert!(lines.iter().all(|(who, _, drawn)| who == "all" && !drawn));
    let end = rules.game_end(&after, &names(2));
    assert_eq!(
        end.reason,
        "the board is full, and 3 bands of barbarians attacked: 1 city fell, \
         2 bands were placated"
    );
    assert_eq!(
        end.breakdown,
        [
            vec![
                "Tiles placed (2 cities): 10",
                "Roads' networks scored: 0",
                "Barbarians drawn (1 at 15): 15",
                "Total: 25 (1 city held)"
            ],
            vec![
                "Tiles placed (2 cities): 10",
                "Roads' networks scored: 0",
                "Total: 10 (2 cities held)"
            ],
        ]
    );
}

/// The example move shown in notices and refusals is the rules' best guess: the city
/// tile while a player has no city, then the road that scores most, else a discovery
/// in the heart of the board; never a road that scores nothing.
#[test]
fn the_example_move_is_a_sensible_one() {
    let (rules, mut state) = empty(2);
    // No city yet: the city tile, where the spiral comes last.
    assert_eq!(rules.example_move(&state, 0).as_deref(), Some("city D5"));
    // Bob, not to move, is shown what a turn of his could be (his welcome has one).
    assert_eq!(rules.example_move(&state, 1).as_deref(), Some("city D5"));
    // A city on the board and only a road that scores nothing: discover, not the road.
    put(&mut state, "B4", Kind::City, Some(0), false);
    put(&mut state, "G7", Kind::Desert, Some(1), false);
    assert_eq!(
        rules.example_move(&state, 0).as_deref(),
        Some("discover D5")
    );
    // A road that links the city scores: it is the example.
    put(&mut state, "C4", Kind::Grass, Some(1), false);
    put(&mut state, "E4", Kind::Desert, Some(1), true);
    put(&mut state, "D4", Kind::Grass, Some(1), false);
    assert_eq!(rules.example_move(&state, 0).as_deref(), Some("road C4"));
    // The deadline's skip keeps to D17: the first empty square in reading order.
    let skip = rules
        .deadline_move(&state, 0, Deadline::Skip)
        .expect("a skip");
    assert_eq!(rules.canonical_text(&skip), "discover A1");
    // A refusal carries the example.
    let error = rules
        .parse_move(&state, 0, "build a castle")
        .expect_err("not a move");
    assert!(error.accepted.ends_with("for example `road C4`"), "{error}");
}

/// The rules page's sections quoted in every welcome read as mail: within 78 columns,
/// without markdown tables or emphasis, naming the syntax of every action.
#[test]
fn the_welcome_sections_read_as_mail() {
    use pbem::engine::{page_section, MOVES_HEADING, SUMMARY_HEADING};
    let summary = page_section(DesertKingdom::RULES_PAGE, SUMMARY_HEADING);
    let syntax = page_section(DesertKingdom::RULES_PAGE, MOVES_HEADING);
    for text in [&summary, &syntax] {
        assert!(!text.is_empty());
        for line in text.lines() {
            assert!(line.chars().count() <= 78, "too wide: {line:?}");
            assert!(!line.contains("**") && !line.starts_with('|'), "{line:?}");
        }
    }
    for action in [
        "discover C4",
        "road D5",
        "activate C3 to C4",
        "city E5",
        "take grass",
        "prefer oasis, city",
        "resign",
        "moves C4",
        "moves tile oasis",
    ] {
        assert!(syntax.contains(action), "{action}: {syntax}");
    }
    // Every example in the move language is a move the rules read.
    let (rules, state) = empty(2);
    for example in [
        "discover C4",
        "city E5",
        "activate C3 to C4 prefer oasis, city",
    ] {
        assert!(rules.parse_move(&state, 0, example).is_ok(), "{example}");
    }
}

/// Every board of whole random games, for every value of every option (and revision
/// 1), as the public, the player to move and the referee see it, with six long names:
/// no line is wider than 78 columns, and nothing is cut: each player's line keeps
/// their cities, and the chooser's board every tile drawn. The legend too.
#[test]
fn every_board_of_every_option_keeps_to_78_columns_and_loses_nothing() {
    let long: Vec<String> = [
        "Maximiliana Theodora Fitzwilliam-Beauchamp",
        "Bartholomew Alexander Featherstonehaugh",
        "Cid",
        "Philippa Wilhelmina Montgomery-Smythe III",
        "Eve",
        "Ferdinand Augustus Worthington-Pemberton",
    ]
    .iter()
    .map(|n| n.to_string())
    .collect();
    let values: [(&str, &[&str]); 9] = [
        ("bag", &["standard", "gentle"]),
        ("entry", &["a1", "h1", "h8", "a8"]),
        ("spiral", &["clockwise", "anticlockwise"]),
        ("network_city", &["2", "5"]),
        ("builder_terrain", &["no", "yes"]),
        ("placate_points", &["none", "25", "1000"]),
        ("last_square", &["face_down", "explorers"]),
        ("cityless_treasures", &["score", "lost"]),
        ("treasures", &["ask", "automatic"]),
    ];
    let mut variants: Vec<DesertKingdom> = vec![revision_1_rules()];
    for (key, choices) in values {
        for value in choices {
            variants.push(rules_with(&[(key, value)]));
        }
    }
    let mut chooser_boards = 0;
    for (index, rules) in variants.iter().enumerate() {
        for line in rules.legend().lines() {
            assert!(line.chars().count() <= 78, "legend too wide: {line:?}");
        }
        let legend = squeezed(&rules.legend());
        for mark in [
            "[C] a city",
            "[T] a treasure",
            "[B] a barbarian",
            "[?] a tile face down",
        ] {
            assert!(legend.contains(mark), "{legend}");
        }
        let mut chance = DrawStream::for_testing(500 + index as u64);
        let mut picker = DrawStream::for_testing(900 + index as u64);
        let mut state = rules.setup(&long, &mut chance).expect("setup");
        let mut turn = 0;
        loop {
            let mover = rules.to_move(&state).first().copied();
            let mut viewers = vec![Viewer::Public, Viewer::Referee];
            viewers.extend(mover.map(Viewer::Player));
            for viewer in viewers {
                let board = rules.board(
                    &state,
                    &pbem::engine::BoardContext {
                        viewer,
                        names: &long,
                        turn,
                        last_move: None,
                    },
                );
                for line in board.lines() {
                    assert!(line.chars().count() <= 78, "too wide: {line:?}");
                    assert_eq!(line, line.trim_end());
                }
                let shown = squeezed(&board);
                let view = rules.view(&state, Viewer::Referee, &long);
                for (seat, player) in state.players.iter().enumerate() {
                    let you = if viewer == Viewer::Player(seat) {
                        " (you)"
                    } else {
                        ""
                    };
                    let cities = view.players[seat]["cities"].as_u64().expect("cities");
                    let line = format!(
                        "{} {}{you}: {} points, {}, {}, {}",
                        seat + 1,
                        long[seat],
                        player.points,
                        count(usize::from(player.treasures), "treasure", "treasures"),
                        count(usize::from(player.barbarians), "barbarian", "barbarians"),
                        count(cities as usize, "city", "cities"),
                    );
                    assert!(shown.contains(&line), "{line}\n{board}");
                }
                if let (Phase::Choosing { .. }, Viewer::Player(_)) = (&state.phase, viewer) {
                    let drawn: Vec<&str> = state.drawn.iter().map(|k| k.name()).collect();
                    let told = format!("drawn: {}.", drawn.join(", "));
                    assert!(shown.contains(&told), "{told}\n{board}");
                    chooser_boards += 1;
                }
            }
            let Some(seat) = mover else { break };
            let mv = rules
                .sample_move(&state, seat, &mut picker)
                .expect("a move");
            state = rules
                .apply(&state, seat, &mv, &mut chance)
                .expect("applies");
            turn += 1;
        }
    }
    assert!(chooser_boards > 0, "some board was a chooser's");
}

/// "1 square free", not "1 squares free".
#[test]
fn the_status_counts_squares_in_good_english() {
    let rules = rules_with(&[]);
    let one = all_but(&["A1"], &[], &[Kind::Grass, Kind::Desert]);
    assert_eq!(rules.status(&one).as_deref(), Some("1 square free"));
    let two = all_but(&["A1", "B1"], &[], &[Kind::Grass, Kind::Desert]);
    assert_eq!(rules.status(&two).as_deref(), Some("2 squares free"));
}

/// Refusals say why: a road refused says what lies on the square, `take` without a
/// choice says there are no drawn tiles, and a choice misread offers a tile drawn.
#[test]
fn refusals_say_what_was_wrong() {
    use Kind::*;
    let (rules, mut state) = empty(2);
    put(&mut state, "C1", City, Some(1), false);
    put(&mut state, "C2", Mountain, Some(1), false);
    put(&mut state, "C3", Oasis, Some(0), false);
    put(&mut state, "C4", Grass, Some(0), true);
    put(&mut state, "C5", Desert, Some(1), false);
    state.squares[sq("C6").index()] = Some(Tile {
        kind: Some(Grass),
        face_down: true,
        owner: None,
        road: false,
        occupied: false,
        ruined: false,
    });
    for (text, why) in [
        (
            "road C1",
            "no road can be built on C1: it is a city, which counts as a road already",
        ),
        ("road C2", "no road can be built on C2: it is a mountain"),
        (
            "road C3",
            "no road can be built on C3: it is an oasis, which counts as a road already",
        ),
        (
            "road C4",
            "no road can be built on C4: it already has a road",
        ),
        (
            "road C6",
            "no road can be built on C6: it holds a tile face down",
        ),
        ("road C8", "no road can be built on C8: it is empty"),
    ] {
        let error = play(&rules, &state, 0, text).expect_err(text);
        assert!(error.contains(why), "{text}: {error}");
        assert!(error.contains("such as `road C5`"), "{text}: {error}");
    }
    for text in ["take grass", "choose oasis for C4", "grass"] {
        let error = play(&rules, &state, 0, text).expect_err(text);
        assert!(
            error.contains("you have no drawn tiles to choose from"),
            "{text}: {error}"
        );
    }
    let error = play(&rules, &state, 0, "city").expect_err("no square");
    assert!(error.contains("is not a move"), "{error}");
    // Choosing among mine, desert (drawn): the example is one of them.
    state.phase = Phase::Choosing {
        seat: 0,
        square: sq("D1"),
    };
    state.drawn = vec![Mine, Desert];
    state.drawn_count = 2;
    let error = play(&rules, &state, 0, "take sand").expect_err("no such tile");
    assert!(
        error.contains("one of the tiles you drew (mine, desert), e.g. `take mine`"),
        "{error}"
    );
    assert!(!error.contains("take grass"), "{error}");
}
