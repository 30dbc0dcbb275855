//! The desert kingdom's rules through the library: tiles, roads, activations, the
//! barbarians' attack, treasures, forfeits, face-down tiles and revision 1.

use super::*;

/// The seed's table: "Oasis: Eight points. On activate: Draw three tiles. Forced:
/// Treasure. Barbarian." and so on for each tile.
#[test]
fn every_tile_is_worth_and_marked_as_the_seed_says() {
    use Kind::*;
    /// A tile, its points, its draw number, its forced and its forbidden marks.
    type Row = (Kind, i64, usize, &'static [Kind], &'static [Kind]);
    let table: [Row; 6] = [
        (Oasis, 8, 3, &[Treasure, Barbarian], &[]),
        (City, 5, 4, &[Grass, Treasure, Barbarian], &[City]),
        (Mine, 3, 8, &[Treasure, Mountain], &[Oasis, City, Grass]),
        (Grass, 2, 2, &[Grass, City], &[Mine, Treasure]),
        (Desert, 1, 2, &[], &[Mine, City, Treasure]),
        (Mountain, 0, 4, &[Mine], &[City, Oasis, Treasure]),
    ];
    for (kind, points, draws, must, not) in table {
        assert_eq!(value(kind), points, "{kind:?}");
        assert_eq!(draw_number(kind), draws, "{kind:?}");
        assert_eq!(forced(kind), must, "{kind:?}");
        assert_eq!(forbidden(kind), not, "{kind:?}");
    }
    // "Treasures. Worth twenty points at the end"; "Barbarians. Worth fifteen points".
    assert_eq!(value(Barbarian), 15);
    assert!(Treasure.is_special() && Barbarian.is_special() && !City.is_special());
}

/// What must hold after every move.
fn check_invariants(rules: &DesertKingdom, state: &State, tiles: usize) {
    // Every tile is in the bag, on the board, held, or being chosen.
    let on_board = state.squares.iter().flatten().count();
    // Held specials beyond the setup's barbarian came from the bag; the setup's city
    // tile, once played, is on the board without having been in it.
    let held: usize = state
        .players
        .iter()
        .map(|p| usize::from(p.treasures) + usize::from(p.barbarians) - 1)
        .sum();
    let played_cities = state.players.iter().filter(|p| !p.city_tile).count();
    // (At the end, treasures turned in to the barbarians leave the game.)
    assert!(
        matches!(state.phase, Phase::Over | Phase::Defending { .. })
            || state.bag.len() + on_board - played_cities + held + state.drawn.len() == tiles,
        "every tile once: {state:?}"
    );

    assert_eq!(usize::from(state.bag_count), state.bag.len());
    // The public state hides every face-down tile, the bag and the drawn tiles, and
    // answers as the full one does.
    let public = rules.public_state(state);
    if state.phase != Phase::Over {
        assert!(public.bag.is_empty() && public.drawn.is_empty());
        assert!(public
            .squares
            .iter()
            .flatten()
            .all(|t| !t.face_down || t.kind.is_none()));
    }
    assert_eq!(rules.to_move(&public), rules.to_move(state));
    assert_eq!(rules.scores(&public), rules.scores(state));
}

fn random_game(players: usize, seed: u64, options: &[(&str, &str)]) -> State {
    let rules = rules_with(options);
    let mut chance = DrawStream::for_testing(seed);
    let mut picker = DrawStream::for_testing(seed ^ 0xd5);
    let mut state = rules.setup(&names(players), &mut chance).expect("setup");
    let tiles = state.bag.len();
    let mut moves = 0;
    while !rules.is_over(&state) {
        let seat = rules.to_move(&state)[0];
        let mv = rules
            .sample_move(&state, seat, &mut picker)
            .expect("a player to move has a move");
        let text = rules.canonical_text(&mv);
        assert_eq!(
            rules.parse_move(&state, seat, &text).as_ref(),
            Ok(&mv),
            "{text}"
        );
        let after = rules
            .apply(&state, seat, &mv, &mut chance)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        check_invariants(&rules, &after, tiles);
        check_face_down_and_end(&state, &mv, &after, options);
        state = after;
        moves += 1;
        assert!(moves < 500, "the game ends");
    }
    // The board is full (or the bag empty) when the barbarians come; scores are final.
    assert!(state.squares.iter().all(Option::is_some) || state.bag.is_empty());
    assert!(state.players.iter().all(|p| p.final_score.is_some()));
    state
}

/// The barbarians' path for these options (entry and direction).
fn spiral_of(options: &[(&str, &str)]) -> Vec<Square> {
    let option = |key: &str, default: &str| {
        options
            .iter()
            .find(|(k, _)| *k == key)
            .map_or(default.to_string(), |(_, v)| v.to_string())
    };
    spiral(
        sq(&option("entry", "a1")),
        option("spiral", "clockwise") == "clockwise",
    )
}

/// D4 and D12 over one move of a game of the current revision: "A face-down tile goes
/// on the first empty square of that path" (an activation's first one keeps the
/// explorers' square free while another is empty), and the game ends exactly when the
/// board is full ("The game ends when the board is full"), the bag never running out.
fn check_face_down_and_end(before: &State, mv: &Move, after: &State, options: &[(&str, &str)]) {
    let path = spiral_of(options);
    let mut filled: Vec<bool> = before.squares.iter().map(Option::is_some).collect();
    let mut explorers = match mv {
        Move::Activate { to, .. } => Some(*to),
        _ => None,
    };
    for event in &after.events {
        let Event::FaceDown { at } = event else {
            continue;
        };
        let others_empty = filled
            .iter()
            .enumerate()
            .any(|(index, full)| !full && Some(index) != explorers.map(Square::index));
        let kept = explorers.filter(|_| others_empty);
        let first = path
            .iter()
            .copied()
            .find(|s| !filled[s.index()] && Some(*s) != kept);
        assert_eq!(
            Some(*at),
            first,
            "{mv:?}: the first empty square of the spiral"
        );
        filled[at.index()] = true;
        // Only the first face-down tile of an activation goes before its explorers.
        explorers = None;
    }
    let full = after.squares.iter().all(Option::is_some);
    assert!(after.bag_count > 0, "the bag never runs out");
    // A full board ends the game once the turn that filled it is played out: an
    // activation whose face-down tile took the last square still has its choice.
    let finishing =
        matches!(after.phase, Phase::Choosing { .. }) && !matches!(mv, Move::Take { .. });
    let ended = matches!(after.phase, Phase::Over | Phase::Defending { .. });
    assert_eq!(
        ended || (full && finishing),
        full,
        "{mv:?}: the game ends exactly when the board is full"
    );
}

#[test]
fn random_games_of_two_to_six_end_with_the_barbarian_attack() {
    let mut nobody = 0;
    let mut someone = 0;
    for players in 2..=6 {
        for seed in 0..5 {
            let state = random_game(players, seed * 13 + players as u64, &[]);
            if state.nobody_wins {
                nobody += 1;
            } else {
                someone += 1;
            }
        }
    }
    assert!(
        nobody > 0 && someone > 0,
        "both endings happen: {nobody} / {someone}"
    );
    // The variants too.
    for options in [
        [("bag", "gentle"), ("spiral", "anticlockwise")],
        [("entry", "h8"), ("network_city", "5")],
        [("builder_terrain", "yes"), ("placate_points", "25")],
    ] {
        for players in [2, 4, 6] {
            random_game(players, 77 + players as u64, &options);
        }
    }
}

#[test]
fn a_road_that_links_a_new_city_scores_the_whole_network() {
    let (rules, mut state) = empty(3);
    // Bob's city at B4, Ann's grass at C4 (no road yet), Cid's oasis at D4, Ann's mine
    // at C5 (next to C4), Cid's desert at E4 with a road.
    network_beside_a_city(&mut state);
    state.phase = Phase::Turn { seat: 1 };
    let before: Vec<i64> = state.players.iter().map(|p| p.points).collect();
    // Bob builds on Ann's grass: the road links city B4 to the network (E4's road).
    let after = play(&rules, &state, 1, "road C4").expect("a road");
    let gained: Vec<i64> = after
        .players
        .iter()
        .zip(&before)
        .map(|(p, b)| p.points - b)
        .collect();
    // Bob: the city, 2 (the seed's "we'll do that" fix); Ann: her grass with the road
    // (2) and her mine next to it (3); Cid: his oasis (8) and desert with a road (1).
    assert_eq!(gained, vec![5, 2, 9]);
    // A face-down tile went to the first empty square of the spiral.
    assert!(after.squares[sq("A1").index()].is_some_and(|t| t.face_down));
    // Extending the network to nowhere new scores nothing.
    put(&mut state, "F4", Kind::Desert, Some(0), false);
    let mut extended = after.clone();
    put(&mut extended, "F4", Kind::Desert, Some(0), false);
    extended.phase = Phase::Turn { seat: 2 };
    let later = play(&rules, &extended, 2, "road F4").expect("a road");
    let unchanged: Vec<i64> = later.players.iter().map(|p| p.points).collect();
    let was: Vec<i64> = extended.players.iter().map(|p| p.points).collect();
    assert_eq!(unchanged, was);
    // Only desert and grass take roads, and only once.
    assert!(play(&rules, &after, 2, "road D4").is_err());
    assert!(play(&rules, &after, 2, "road C4").is_err());
}

#[test]
fn a_road_joining_two_networks_scores_once_even_with_two_cities() {
    let (rules, mut state) = empty(2);
    // Two separate networks (each with a road), joined by a road at D4; two cities.
    put(&mut state, "B4", Kind::City, Some(1), false);
    put(&mut state, "C4", Kind::Desert, Some(1), true);
    put(&mut state, "E4", Kind::Grass, Some(1), true);
    put(&mut state, "F4", Kind::City, Some(1), false);
    put(&mut state, "D4", Kind::Desert, Some(1), false);
    let after = play(&rules, &state, 0, "road D4").expect("a road");
    // Ann builds: two cities at 2 each, once; Bob: desert C4 (1), grass E4 (2), desert
    // D4 now under the road (1).
    assert_eq!(after.players[0].points, 4);
    assert_eq!(after.players[1].points, 4);
}

#[test]
fn an_activation_draws_tosses_back_and_lets_the_player_choose() {
    let (rules, mut state) = empty(2);
    put(&mut state, "D4", Kind::Mountain, Some(0), false);
    // Mountain: draw four, city, oasis and treasure go back, a mine if any is forced.
    let after = play(&rules, &state, 0, "activate D4 to D5").expect("an activation");
    // The explorers' square is never where the face-down tile goes.
    assert!(after.squares[sq("A1").index()].is_some_and(|t| t.face_down));
    match after.phase {
        Phase::Choosing { seat: 0, square } => {
            assert_eq!(square, sq("D5"));
            assert!(after.drawn.len() >= 2);
            assert!(after
                .drawn
                .iter()
                .all(|k| !forbidden(Kind::Mountain).contains(k)));
            if after.drawn.contains(&Kind::Mine) {
                assert!(after.drawn.iter().all(|k| *k == Kind::Mine));
            }
            // Only the chooser sees what was drawn.
            let own = rules.view(&after, Viewer::Player(0), &names(2));
            let other = rules.view(&after, Viewer::Player(1), &names(2));
            assert!(own.fields.contains_key("drawn"));
            assert!(!other.fields.contains_key("drawn"));
            assert!(rules.public_state(&after).drawn.is_empty());
            let kind = after.drawn[0];
            let error = play(&rules, &after, 0, "take treasure").expect_err("not drawn");
            assert!(error.contains("you drew no treasure"), "{error}");
            let taken = play(&rules, &after, 0, &format!("take {}", kind.name())).expect("taken");
            assert!(taken.drawn.is_empty());
            assert_eq!(taken.phase, Phase::Turn { seat: 1 });
        }
        Phase::Turn { seat: 1 } => {
            // Nothing or one kind left: taken (or nothing) at once.
        }
        ref other => panic!("{other:?}"),
    }
    // Not next to it, not empty, not face up: refused.
    assert!(play(&rules, &state, 0, "activate D4 to F4").is_err());
    assert!(play(&rules, &state, 0, "activate D5 to D6").is_err());
}

#[test]
fn the_barbarians_go_to_the_nearest_city_and_break_ties_as_the_seed_says() {
    // Nearest by squares from the last face-down tile (D4): C4 (1) before F4 (2).
    let state = attack(&[("C4", 1), ("F4", 1)], "D4", 1, &[0, 0]);
    assert_eq!(ruined(&state), ["C4"]);
    // Next band from C4: B2 and D2... equally near C4 (3 each, ruled by the next
    // tie-break): nearest the square they entered from (G4: B2 is 7, D2 is 5).
    let state = attack(&[("C4", 1), ("B2", 1), ("D2", 1)], "G4", 2, &[0, 0]);
    assert_eq!(ruined(&state), ["D2", "C4"]);
    // Equal from where they stand and where they entered: nearest the entry (A1).
    let state = attack(&[("B2", 1), ("D4", 1)], "C3", 1, &[0, 0]);
    assert_eq!(ruined(&state), ["B2"]);
    // Equal in all three: the top first, then the left. From B2, entering at B2:
    // C1 and A3 are 2 away from both and from A1; C1 is nearer the top.
    let state = attack(&[("C1", 1), ("A3", 1)], "B2", 1, &[0, 0]);
    assert_eq!(ruined(&state), ["C1"]);
    let state = attack(&[("C3", 1), ("A3", 1)], "B2", 1, &[0, 0]);
    assert_eq!(ruined(&state), ["A3"], "same row: the left");
}

#[test]
fn a_treasure_placates_a_band_and_a_player_without_cities_scores_nothing() {
    // Bob owns both cities; one treasure saves the first, the second band moves on.
    let state = attack(&[("C4", 1), ("F4", 1)], "D4", 2, &[0, 1]);
    assert_eq!(ruined(&state), ["F4"]);
    assert_eq!(state.players[1].treasures, 0);
    // Ann holds no city: her score is zero; Bob's counts his treasures at 20.
    assert_eq!(state.players[0].final_score, Some(0));
    let state = attack(&[("C4", 1)], "D4", 0, &[0, 2]);
    let bob = &state.players[1];
    assert_eq!(bob.final_score, Some(bob.points + 40));
    // Every city gone: nobody wins.
    let state = attack(&[("C4", 1)], "D4", 1, &[0, 0]);
    assert!(state.nobody_wins);
    assert!(rules_with(&[]).winners(&state).is_empty());
    // More bands than unoccupied cities: the occupiers leave and the attack goes on.
    let state = attack(&[("C4", 1)], "D4", 3, &[0, 2]);
    assert_eq!(
        ruined(&state),
        ["C4"],
        "two treasures hold it twice, the third band takes it"
    );
}

#[test]
fn a_forfeit_takes_one_player_out_and_the_others_play_on() {
    let (rules, state) = empty(3);
    let resign = rules
        .deadline_move(&state, 0, Deadline::Forfeit)
        .expect("a forfeit");
    assert_eq!(resign, Move::Resign);
    let after = rules
        .apply(&state, 0, &resign, &mut DrawStream::for_testing(2))
        .expect("applies");
    assert!(after.players[0].out);
    assert_eq!(after.phase, Phase::Turn { seat: 1 });
    let skip = rules
        .deadline_move(&after, 1, Deadline::Skip)
        .expect("a skip");
    assert_eq!(rules.canonical_text(&skip), "discover A1");
}

fn apply_with(rules: &DesertKingdom, state: &State, text: &str, draws: &[u32]) -> State {
    let seat = rules.to_move(state)[0];
    let mv = rules.parse_move(state, seat, text).expect("a move");
    rules
        .apply(state, seat, &mv, &mut Script(draws.to_vec()))
        .expect("applies")
}

fn face_down_on(state: &State) -> Vec<String> {
    squares_where(state, |t| t.face_down)
}

/// D4: "A face-down tile goes on the first empty square of that path", the extra tile
/// of a barbarian discovered too: on A1, the square the discovery chose (it stays
/// empty, the barbarian being kept). Revision 1 put it on the next square, B1.
#[test]
fn a_discovered_barbarians_extra_tile_goes_on_the_first_empty_square() {
    use Kind::*;
    // The bag sorted: desert, desert, barbarian; the discovery draws the barbarian.
    let state = all_but(&["A1", "B1"], &[], &[Barbarian, Desert, Desert]);
    let rules = rules_with(&[]);
    let after = apply_with(&rules, &state, "discover A1", &[2, 0]);
    assert_eq!(face_down_on(&after), ["A1"]);
    assert_eq!(after.last_face_down, Some(sq("A1")));
    // "keep it and take another turn": Ann again, and the footer names B1 next.
    assert_eq!(after.phase, Phase::Turn { seat: 0 });
    let board = rules.board(
        &after,
        &pbem::engine::BoardContext {
            viewer: Viewer::Player(0),
            names: &names(2),
            turn: 1,
            last_move: None,
        },
    );
    assert!(board.contains("Next face-down square: B1."), "{board}");
    let (_, lines) = reported_with(&rules, &state, 0, "discover A1", &mut Script(vec![2, 0]));
    assert!(
        lines.iter().any(|(_, text, _)| text
            == "It was a barbarian, kept aside: 15 points now, one more band at the end; the barbarians' spiral filled A1; Ann plays again"),
        "{lines:?}"
    );
    // On the last empty square the tile fills the board: the game ends.
    let last = all_but(&["A1"], &[], &[Barbarian, Desert, Desert]);
    let after = apply_with(&rules, &last, "discover A1", &[2, 0]);
    assert_eq!(face_down_on(&after), ["A1"]);
    assert_eq!(after.phase, Phase::Over);
    // Revision 1's games replay as played: the tile skipped A1, and on the last
    // square it was never placed and the game went on.
    let old = revision_1_rules();
    let after = apply_with(&old, &state, "discover A1", &[2, 0]);
    assert_eq!(face_down_on(&after), ["B1"]);
    let after = apply_with(&old, &last, "discover A1", &[2, 0]);
    assert!(face_down_on(&after).is_empty());
    assert_eq!(after.phase, Phase::Turn { seat: 0 });
}

/// The same for the extra tile of a barbarian taken after an activation: the
/// explorers' square, A1, is free again once the barbarian is kept.
#[test]
fn an_activated_barbarians_extra_tile_goes_on_the_first_empty_square() {
    use Kind::*;
    // Ann's oasis on A2 forces treasures and barbarians. The bag sorted: grass, grass,
    // desert, barbarian. The face-down tile (the desert) goes on B1, A1 being kept for
    // the explorers; the oasis draws grass, grass, barbarian and keeps the barbarian.
    let state = all_but(
        &["A1", "B1"],
        &[("A2", Oasis)],
        &[Grass, Grass, Desert, Barbarian],
    );
    let draws = [2, 0, 0, 0, 0];
    let rules = rules_with(&[]);
    let after = apply_with(&rules, &state, "activate A2 to A1", &draws);
    assert_eq!(after.players[0].barbarians, 2);
    assert_eq!(face_down_on(&after), ["A1", "B1"]);
    assert_eq!(after.last_face_down, Some(sq("A1")));
    assert_eq!(after.phase, Phase::Over, "the board is full: the game ends");
    let old = revision_1_rules();
    let after = apply_with(&old, &state, "activate A2 to A1", &draws);
    assert_eq!(face_down_on(&after), ["B1"]);
    assert_eq!(
        after.phase,
        Phase::Turn { seat: 1 },
        "revision 1: the game went on"
    );
}

/// Over 200 random games of the current revision, every face-down tile lies on the
/// first empty square of the spiral when it is placed and the game ends exactly when
/// the board is full (`check_face_down_and_end` after every move).
#[test]
fn face_down_tiles_follow_the_spiral_and_a_full_board_ends_the_game() {
    for game in 0..200u64 {
        let players = 2 + (game % 5) as usize;
        random_game(players, 1000 + game, &[]);
    }
}

/// D12: "Score for the turn that ended the game, even if it involves a second tile
/// which has nowhere to go you still get the points." An activation into the last
/// empty square: its face-down tile takes it, the tile kept scores without a square,
/// and the barbarians start from that face-down tile.
#[test]
fn an_activation_into_the_last_square_scores_its_tile_without_one() {
    use Kind::*;
    // Ann's desert on A2 draws 2. The bag sorted: grass, grass, desert, mountain; the
    // mountain goes face down on A1, then the desert draws grass and grass.
    let state = all_but(
        &["A1"],
        &[("A2", Desert)],
        &[Grass, Grass, Desert, Mountain],
    );
    let rules = rules_with(&[]);
    let (after, lines) = reported_with(
        &rules,
        &state,
        0,
        "activate A2 to A1",
        &mut Script(vec![3, 0, 0]),
    );
    assert_eq!(face_down_on(&after), ["A1"]);
    assert_eq!(after.last_face_down, Some(sq("A1")));
    assert_eq!(after.phase, Phase::Over);
    assert_eq!(after.players[0].points, state.players[0].points + 2);
    let texts: Vec<&str> = lines.iter().map(|(_, text, _)| text.as_str()).collect();
    assert!(
        texts.contains(&"Ann took grass (all alike): no square is left for it (the barbarians' spiral filled A1), 2 points all the same (D12)"),
        "{texts:?}"
    );
    assert!(
        texts
            .iter()
            .any(|t| t.ends_with("set out from A1, the last face-down tile")),
        "{texts:?}"
    );
    let end = rules.game_end(&after, &names(2));
    assert!(
        end.breakdown[0].contains(&"Tile chosen with no square left (grass, D12): 2".to_string()),
        "{:?}",
        end.breakdown[0]
    );
    // With a choice to make: grass or desert, by a second message.
    let choosing = apply_with(&rules, &state, "activate A2 to A1", &[3, 0, 1]);
    assert!(matches!(choosing.phase, Phase::Choosing { .. }));
    let board = rules.board(
        &choosing,
        &pbem::engine::BoardContext {
            viewer: Viewer::Player(0),
            names: &names(2),
            turn: 1,
            last_move: None,
        },
    );
    assert!(board.contains("to score without a square"), "{board}");
    let listed = rules.moves_text(&choosing, 0, &pbem::engine::MoveFilter::default(), &[]);
    assert!(
        listed.contains("so it scores without one (D12)"),
        "{listed}"
    );
    assert!(
        listed.contains("no square left: 2 points all the same"),
        "{listed}"
    );
    let taken = apply_with(&rules, &choosing, "take grass", &[]);
    assert_eq!(taken.phase, Phase::Over);
    assert_eq!(taken.players[0].points, state.players[0].points + 2);
    assert_eq!(face_down_on(&taken), ["A1"]);
    // The option `last_square=explorers`, and revision 1: the square is kept for the
    // tile chosen, no tile goes face down, the barbarians start where they did.
    for rules in [
        rules_with(&[("last_square", "explorers")]),
        revision_1_rules(),
    ] {
        // No tile goes face down: the desert's two draws are the first two.
        let after = apply_with(&rules, &state, "activate A2 to A1", &[0, 0]);
        assert!(face_down_on(&after).is_empty());
        assert_eq!(after.last_face_down, None);
        let a1 = after.squares[sq("A1").index()].expect("a tile");
        assert_eq!((a1.kind, a1.owner), (Some(Grass), Some(0)));
        assert_eq!(after.phase, Phase::Over);
    }
}

/// D12: a city kept with no square left scores its 5, but it lies on no square, so it
/// is no city its player holds: not the barbarians' target, not counted among the
/// cities held, and a player whose only city it is scores as one without a city
/// (D14).
#[test]
fn a_city_that_scored_without_a_square_is_not_held() {
    use Kind::*;
    // Ann's grass on A2 draws 2 (forced: grass, city). The bag sorted: city, mountain,
    // mountain; a mountain goes face down on A1, then the grass draws the city and a
    // mountain: the city, forced, is kept. No barbarian attacks; Bob holds H8.
    let mut state = all_but(&["A1"], &[("A2", Grass)], &[City, Mountain, Mountain]);
    put(&mut state, "H8", City, Some(1), false);
    for player in &mut state.players {
        player.barbarians = 0;
    }
    let rules = rules_with(&[]);
    let after = apply_with(&rules, &state, "activate A2 to A1", &[2, 0, 0]);
    assert_eq!(after.phase, Phase::Over);
    assert_eq!(
        after.scored_unplaced,
        Some(pbem::games::desert_kingdom::Unplaced {
            seat: 0,
            kind: City
        })
    );
    assert_eq!(after.players[0].points, state.players[0].points + 5);
    assert_eq!(after.players[0].final_score, Some(0), "no city held");
    assert_eq!(rules.winners(&after), [1], "Bob holds a city, Ann none");
    let end = rules.game_end(&after, &names(2));
    assert!(
        end.breakdown[0].contains(&"Total: 0 (0 cities held)".to_string()),
        "{:?}",
        end.breakdown[0]
    );
}

/// D15, `placate_points=25`: a band reaching the city of an owner who holds no
/// treasure takes 25 of their points, without asking, when they have 25 or more;
/// otherwise the city falls. An owner who holds a treasure is asked as ever, and one
/// who keeps it loses the city, whatever their points.
#[test]
fn points_placate_a_band_only_for_an_owner_without_a_treasure_and_with_enough() {
    use pbem::games::desert_kingdom::Fate;
    let bands = |state: &State| -> Vec<(String, Fate)> {
        state
            .events
            .iter()
            .filter_map(|event| match event {
                Event::Band { at, fate } => Some((at.name(), *fate)),
                _ => None,
            })
            .collect()
    };
    // Ann's discovery fills the board; two bands (each player's barbarian of the
    // setup) come for Bob's only city, H8.
    let mut state = all_but(&["A1"], &[], &[Kind::Desert]);
    put(&mut state, "H8", Kind::City, Some(1), false);
    state.players[1].points = 30;
    let rules = rules_with(&[("placate_points", "25")]);
    let after = play(&rules, &state, 0, "discover A1").expect("the last square");
    assert_eq!(after.phase, Phase::Over);
    // 30 points pay for the first band; the 5 left do not pay for the second.
    assert_eq!(
        bands(&after),
        [
            ("H8".to_string(), Fate::Points(25)),
            ("H8".to_string(), Fate::Ruined)
        ]
    );
    assert_eq!(after.players[1].points, 5);
    // With a treasure, Bob is asked; keeping it, he loses the city and pays nothing.
    state.players[1].treasures = 1;
    let asked = play(&rules, &state, 0, "discover A1").expect("the last square");
    assert_eq!(
        asked.phase,
        Phase::Defending {
            seat: 1,
            city: sq("H8")
        }
    );
    let kept = play(&rules, &asked, 1, "keep").expect("keep");
    assert_eq!(bands(&kept), [("H8".to_string(), Fate::Ruined)]);
    assert_eq!(kept.players[1].points, 30);
    assert_eq!(ruined(&kept), ["H8"]);
}

/// A game of revision 1 (tests/fixtures/desert-kingdom/revision-1/), 14 turns in,
/// with what followed it then.
#[derive(serde::Deserialize)]
struct PlayedOn {
    game_id: String,
    seed: String,
    moves: Vec<(String, String)>,
    final_scores: Vec<i64>,
    winners: Vec<String>,
}

/// Games already running keep their rules: a game file of revision 1 plays on with
/// this pbem exactly as it did, the bug of D4 included (turn 15's barbarian sent its
/// extra tile past the square chosen; on turn 62 the extra tile of a barbarian
/// discovered on the last square was never placed, and the same square was
/// discovered again), to the same scores and winner; the audit passes.
#[test]
fn a_game_of_revision_1_plays_on_as_it_was_played() {
    let dir = format!("{RECORDED}/revision-1");
    let then: PlayedOn = serde_json::from_str(
        &std::fs::read_to_string(format!("{dir}/game-14-turns-then.json")).expect("read"),
    )
    .expect("json");
    let table = Table::new();
    table.fixture_game(
        "desert-kingdom/revision-1/game-14-turns.json",
        &then.game_id,
        &then.seed,
    );
    let count = then.moves.len();
    assert_eq!(
        then.moves[count - 2],
        then.moves[count - 1],
        "the last square discovered twice"
    );
    table.apply_all(&then.moves);
    let view = table.view();
    assert_eq!(view["over"], true);
    let scores: Vec<i64> = view["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|p| p["score"].as_i64().expect("score"))
        .collect();
    assert_eq!(scores, then.final_scores);
    let winners: Vec<String> = view["winners"]
        .as_array()
        .expect("winners")
        .iter()
        .map(|w| w.as_str().expect("name").to_string())
        .collect();
    assert_eq!(winners, then.winners);
    let (passed, report) = table.audit(false);
    assert!(passed, "{report}");
}

/// D14: "If you don't hold any cities, your score is zero. You suck. Now score any
/// remaining treasures, at twenty points each." By default the treasures of a player
/// without a city score after the zero; `cityless_treasures=lost` (and revision 1)
/// zero them too.
#[test]
fn a_player_without_a_city_scores_their_treasures_unless_the_option_says_not() {
    // No band attacks; Bob holds the city on C4, Ann no city and 2 treasures.
    let ann_treasures = |rules: &DesertKingdom| {
        let state = attack_with(rules, &[("C4", 1)], "D4", 0, &[2, 0]);
        let view = rules.view(&state, Viewer::Public, &names(2));
        assert_eq!(
            (
                view.players[0]["cities"].as_u64(),
                view.players[1]["cities"].as_u64()
            ),
            (Some(0), Some(1))
        );
        state.players[0].final_score
    };
    assert_eq!(ann_treasures(&rules_with(&[])), Some(40));
    assert_eq!(
        ann_treasures(&rules_with(&[("cityless_treasures", "lost")])),
        Some(0)
    );
    assert_eq!(ann_treasures(&revision_1_rules()), Some(0));
    // The end says so, and the breakdown adds up.
    let rules = rules_with(&[]);
    let state = attack_with(&rules, &[("C4", 1)], "D4", 0, &[2, 0]);
    let end = rules.game_end(&state, &names(2));
    assert!(
        end.breakdown[0].contains(&"Treasures (2 at 20): 40".to_string()),
        "{:?}",
        end.breakdown[0]
    );
    assert!(
        end.breakdown[0]
            .last()
            .is_some_and(|l| l.starts_with("Total: 40")),
        "{:?}",
        end.breakdown[0]
    );
}

/// D13: "If that player holds a treasure card, they can turn it in." By default the
/// owner decides, by a move like any other: the game waits for Bob at C4 (`pay`), then
/// at F4 (`keep`: F4 falls, the treasure stays and scores 20), then the last band
/// takes Ann's B2. Past a deadline the referee turns a treasure in (as
/// `treasures=automatic` does).
#[test]
fn a_city_owner_decides_whether_to_turn_in_a_treasure() {
    let rules = rules_with(&[]);
    let state = bob_defends();
    let (asked, lines) = reported(&rules, &state, 0, "city H8");
    assert_eq!(
        asked.phase,
        Phase::Defending {
            seat: 1,
            city: sq("C4")
        }
    );
    assert_eq!(rules.to_move(&asked), [1]);
    assert_eq!(rules.to_move(&rules.public_state(&asked)), [1]);
    let texts: Vec<&str> = lines.iter().map(|(_, text, _)| text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "Ann played the city tile on H8: 5 points",
            "The board is full: the barbarians attack",
            "3 bands of barbarians (one per barbarian tile held) set out from D4, \
             the last face-down tile",
            "Band 1 reached C4 (Bob's city): Bob holds a treasure and decides: `pay` \
             (turn it in, the band occupies the city) or `keep` (the city falls)",
            "Scores: Ann 25 (+5)",
        ]
    );
    let legal: Vec<String> = rules
        .legal_moves(&asked, 1)
        .into_iter()
        .map(|m| m.text)
        .collect();
    assert_eq!(legal, ["pay", "keep"]);
    assert_eq!(rules.example_move(&asked, 1).as_deref(), Some("pay"));
    let skip = rules
        .deadline_move(&asked, 1, Deadline::Skip)
        .expect("a default");
    assert_eq!(rules.canonical_text(&skip), "pay");
    assert!(rules.legal_moves(&asked, 0).is_empty());
    for spelling in ["pay", "PAY", "turn in", "turn in a treasure"] {
        assert_eq!(
            rules.parse_move(&asked, 1, spelling),
            Ok(Move::Placate { pay: true })
        );
    }
    let error = rules.parse_move(&asked, 1, "discover A1").expect_err("no");
    assert!(error.accepted.contains("`pay`"), "{error}");
    let board = rules.board(
        &asked,
        &pbem::engine::BoardContext {
            viewer: Viewer::Player(1),
            names: &names(2),
            turn: 1,
            last_move: None,
        },
    );
    assert!(
        squeezed(&board).contains("band 1 is at Bob's city on C4"),
        "{board}"
    );
    let listed = rules.moves_text(&asked, 1, &pbem::engine::MoveFilter::default(), &[]);
    assert!(
        listed.contains("pay") && listed.contains("keep"),
        "{listed}"
    );

    let (again, lines) = reported(&rules, &asked, 1, "pay");
    assert_eq!(
        again.phase,
        Phase::Defending {
            seat: 1,
            city: sq("F4")
        }
    );
    let texts: Vec<&str> = lines.iter().map(|(_, text, _)| text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "Bob turns in a treasure to the band at C4",
            "Band 1 reached C4 (Bob's city): Bob turned in a treasure, the band occupies it",
            "Band 2 reached F4 (Bob's city): Bob holds a treasure and decides: `pay` \
             (turn it in, the band occupies the city) or `keep` (the city falls)",
        ]
    );
    let (over, lines) = reported(&rules, &again, 1, "keep");
    assert_eq!(over.phase, Phase::Over);
    assert_eq!(ruined(&over), ["B2", "F4"]);
    let texts: Vec<&str> = lines.iter().map(|(_, text, _)| text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "Bob keeps the treasure: the band at F4 destroys the city",
            "Band 2 destroyed F4 (Bob's city)",
            "Band 3 destroyed B2 (Ann's city)",
            "Bob's 1 treasure score 20",
            "Scores: Bob 30 (+20)",
            "Bob wins",
        ]
    );
    // The end counts the band placated, and every breakdown adds up.
    let end = rules.game_end(&over, &names(2));
    assert!(end.reason.contains("1 band was placated"), "{}", end.reason);
    // `treasures=automatic`, and revision 1, turn treasures in without asking.
    for rules in [
        rules_with(&[("treasures", "automatic")]),
        revision_1_rules(),
    ] {
        let after = play(&rules, &state, 0, "city H8").expect("the last square");
        assert_eq!(after.phase, Phase::Over);
        assert_eq!(ruined(&after), ["B2"]);
        assert!(after.attack.is_none(), "the file keeps no attack");
    }
    // A player who resigns while asked has the treasure turned in for them (D20).
    let resigned = rules
        .apply(&asked, 1, &Move::Resign, &mut First)
        .expect("resign");
    assert_eq!(resigned.phase, Phase::Over);
    assert_eq!(ruined(&resigned), ["B2"]);
}
