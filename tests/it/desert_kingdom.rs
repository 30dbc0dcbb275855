//! The desert kingdom (seed 004): the seed's tile table, road networks and the
//! barbarian attack on hand-built positions, random complete games in process (with
//! invariants after every move), through the command line and by mail, with every
//! face-down tile and every drawn tile kept from those who may not see it; and the
//! player's side: each turn's report line by line to whom may read it (in process,
//! `pbem show`, `pbem log` and mail), the move lists and their filters, the example
//! move, the end of a game broken down, and the board's marks of the last move.

use pbem::engine::{Deadline, DrawStream, Options, Rules, Viewer, Visibility};
use pbem::games::desert_kingdom::{
    draw_number, forbidden, forced, spiral, value, DesertKingdom, Event, Kind, Move, Phase, Square,
    State, Tile,
};
use serde_json::Value;

use crate::support::{picture_size, picture_texts_sized, png_size, Table, PNG_SCALE};

fn rules_with(pairs: &[(&str, &str)]) -> DesertKingdom {
    let options: Options = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    DesertKingdom::from_data(DesertKingdom::DEFAULT_DATA, &options).expect("valid options")
}

fn names(count: usize) -> Vec<String> {
    ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"][..count]
        .iter()
        .map(|n| n.to_string())
        .collect()
}

fn sq(name: &str) -> Square {
    Square::parse(name).expect("a square")
}

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

/// An empty board with Ann to move and the bag as it starts.
fn empty(players: usize) -> (DesertKingdom, State) {
    let rules = rules_with(&[]);
    let mut state = rules
        .setup(&names(players), &mut DrawStream::for_testing(1))
        .expect("setup");
    state.phase = Phase::Turn { seat: 0 };
    (rules, state)
}

fn put(state: &mut State, at: &str, kind: Kind, owner: Option<u8>, road: bool) {
    state.squares[sq(at).index()] = Some(Tile {
        kind: Some(kind),
        face_down: false,
        owner,
        road,
        occupied: false,
        ruined: false,
    });
}

fn play(rules: &DesertKingdom, state: &State, seat: usize, text: &str) -> Result<State, String> {
    let mv = rules
        .parse_move(state, seat, text)
        .map_err(|e| e.to_string())?;
    rules
        .apply(state, seat, &mv, &mut DrawStream::for_testing(5))
        .map_err(|e| e.to_string())
}

/// Bob's city at B4, Ann's grass at C4 (no road yet), Cid's oasis at D4, Ann's mine at
/// C5 (next to C4), Cid's desert at E4 with a road: a road on C4 links the city.
fn network_beside_a_city(state: &mut State) {
    put(state, "B4", Kind::City, Some(1), false);
    put(state, "C4", Kind::Grass, Some(0), false);
    put(state, "D4", Kind::Oasis, Some(2), false);
    put(state, "C5", Kind::Mine, Some(0), false);
    put(state, "E4", Kind::Desert, Some(2), true);
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

/// A board for the attack: cities at `cities` (owner by index), the last face-down
/// tile at `start`, `bands` barbarians held by Ann, and treasures by owner.
/// (Treasures turned in for their owners: `treasures=automatic`.)
fn attack(cities: &[(&str, u8)], start: &str, bands: u8, treasures: &[u8]) -> State {
    attack_with(
        &rules_with(&[("treasures", "automatic")]),
        cities,
        start,
        bands,
        treasures,
    )
}

fn attack_with(
    rules: &DesertKingdom,
    cities: &[(&str, u8)],
    start: &str,
    bands: u8,
    treasures: &[u8],
) -> State {
    let (_, mut state) = empty(2);
    for (at, owner) in cities {
        put(&mut state, at, Kind::City, Some(*owner), false);
    }
    state.squares[sq(start).index()] = Some(Tile {
        kind: Some(Kind::Desert),
        face_down: true,
        owner: None,
        road: false,
        occupied: false,
        ruined: false,
    });
    state.last_face_down = Some(sq(start));
    state.players[0].barbarians = bands;
    state.players[1].barbarians = 0;
    for (player, count) in state.players.iter_mut().zip(treasures) {
        player.treasures = *count;
    }
    // Fill the board: the next move ends the game.
    for at in Square::all() {
        if state.squares[at.index()].is_none() && at != sq("H8") {
            put(&mut state, &at.name(), Kind::Mountain, None, false);
        }
    }
    play(rules, &state, 0, "discover H8")
        .or_else(|_| play(rules, &state, 0, "city H8"))
        .expect("the last square")
}

fn ruined(state: &State) -> Vec<String> {
    squares_where(state, |t| t.ruined)
}

/// The names of the squares whose tile `wanted` accepts, in board order.
fn squares_where(state: &State, wanted: impl Fn(&Tile) -> bool) -> Vec<String> {
    Square::all()
        .filter(|s| state.squares[s.index()].as_ref().is_some_and(&wanted))
        .map(|s| s.name())
        .collect()
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

// --- Recorded games ------------------------------------------------------------------

/// A complete game as recorded in tests/fixtures/desert-kingdom/.
#[derive(serde::Serialize, serde::Deserialize)]
struct Recorded {
    ending: String,
    players: Vec<String>,
    seed: String,
    moves: Vec<(String, String)>,
    final_scores: Vec<i64>,
    cities: Vec<u64>,
    winners: Vec<String>,
}

const RECORDED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/desert-kingdom");

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
    use pbem::engine::session::{parse_player, Game, NewGame};

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

/// The board a player is mailed, mid-game, within 78 columns; face-down squares show
/// no identity.
#[test]
fn the_board_mid_game() {
    let path = format!("{RECORDED}/ending-1.json");
    let recorded: Recorded =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
    let table = crate::support::replay_recorded(
        "desert-kingdom",
        &recorded.players,
        &recorded.seed,
        &recorded.moves[..30],
    );
    let board = table.board_as("Ann");
    assert!(board.contains("[?]"));
    insta::assert_snapshot!(board);
}

// --- The player's side: reports, move lists, the end, the board -----------------------

/// Every draw the first tile of the bag: with a bag set up by hand, a test knows what
/// each draw gives (the bag stays sorted, oasis first).
struct First;

impl pbem::engine::Chance for First {
    fn draw(&mut self, _n: u32, _visibility: Visibility) -> u32 {
        0
    }
}

/// Draws at these places of the bag, in turn.
struct Script(Vec<u32>);

impl pbem::engine::Chance for Script {
    fn draw(&mut self, _n: u32, _visibility: Visibility) -> u32 {
        if self.0.is_empty() {
            0
        } else {
            self.0.remove(0)
        }
    }
}

/// A position with this bag (sorted, as the rules keep it).
fn with_bag(state: &mut State, bag: &[Kind]) {
    let mut bag = bag.to_vec();
    bag.sort_unstable();
    state.bag_count = u16::try_from(bag.len()).expect("a small bag");
    state.bag = bag;
}

/// The move played with [`First`]: the state after it and its report as
/// `(audience, text, tells a draw)`, the audience "all" or a name.
fn reported(
    rules: &DesertKingdom,
    state: &State,
    seat: usize,
    text: &str,
) -> (State, Vec<(String, String, bool)>) {
    reported_with(rules, state, seat, text, &mut First)
}

fn reported_with(
    rules: &DesertKingdom,
    state: &State,
    seat: usize,
    text: &str,
    chance: &mut dyn pbem::engine::Chance,
) -> (State, Vec<(String, String, bool)>) {
    let names = names(state.players.len());
    let mv = rules.parse_move(state, seat, text).expect("a move");
    let after = rules.apply(state, seat, &mv, chance).expect("applies");
    let lines = rules
        .report(state, seat, &mv, &after, &names)
        .into_iter()
        .map(|line| {
            let who = match line.audience {
                pbem::engine::Audience::Everyone => "all".to_string(),
                pbem::engine::Audience::Seat(seat) => names[seat].clone(),
            };
            (who, line.text, line.tells_draw)
        })
        .collect();
    (after, lines)
}

fn line(who: &str, text: &str, drawn: bool) -> (String, String, bool) {
    (who.to_string(), text.to_string(), drawn)
}

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

/// The moves on a position built by hand: grouped by action (discover, road with what
/// each scores, activate by the tile activated, city), narrowed to a square or a tile.
#[test]
fn the_move_list_groups_by_action_and_narrows_by_square_and_tile() {
    use pbem::engine::MoveFilter;
    let (rules, mut state) = empty(3);
    network_beside_a_city(&mut state);
    put(&mut state, "G7", Kind::Desert, Some(0), false);
    state.phase = Phase::Turn { seat: 1 };
    let filtered = |at: Option<&str>, tile: Option<&str>| {
        rules.moves_text(
            &state,
            1,
            &MoveFilter {
                at: at.map(String::from),
                tile: tile.map(String::from),
            },
            &[],
        )
    };
    let all = filtered(None, None);
    let heads: Vec<&str> = all
        .lines()
        .filter(|l| !l.starts_with(' '))
        .map(|l| l.split([' ', ':']).next().unwrap_or(""))
        .collect();
    assert_eq!(
        heads,
        ["Discover", "e.g.", "Road", "Activate", "face", "City", "Narrow"],
        "{all}"
    );
    // The road that links the city scores Bob 2, and gives Ann 5 and Cid 9.
    assert!(
        all.contains("  road C4              you +2, player 1 +5, player 3 +9 (links B4)\n"),
        "{all}"
    );
    assert!(all.contains("  scoring nothing: G7\n"), "{all}");
    assert!(
        all.contains("  oasis (draws 3; forced treasure, barbarian):\n    D4 to D3/D5\n"),
        "{all}"
    );
    insta::assert_snapshot!("moves_of_a_position", all);

    // One square: what can be done there.
    let c4 = filtered(Some("c4"), None);
    assert_eq!(
        c4,
        "C4 holds player 1's grass.\n\
         Activating it: draws 2; forced grass, city; forbidden mine, treasure.\n  \
         road C4              you +2, player 1 +5, player 3 +9 (links B4)\n  \
         activate C4 to C3\n"
    );
    let d3 = filtered(Some("D3"), None);
    assert!(d3.starts_with("D3 is empty.\n  discover D3"), "{d3}");
    assert!(d3.contains("  activate D4 to D3"), "{d3}");
    // One tile: the activations from it, the roads on it.
    let oasis = filtered(None, Some("oasis"));
    assert_eq!(
        oasis,
        "Activate oasis (draws 3; forced treasure, barbarian):\n    D4 to D3/D5\n"
    );
    let desert = filtered(None, Some("desert"));
    assert!(desert.starts_with("Road on desert:\n  road G7"), "{desert}");
    // Both: the moves at the square with the tile; nothing there says so.
    assert!(filtered(Some("D4"), Some("oasis")).contains("activate D4 to D3"));
    let nothing = filtered(Some("D4"), Some("grass"));
    assert!(nothing.ends_with("No move there with grass: `moves` lists them all.\n"));
    let none = filtered(None, Some("mountain"));
    assert!(none.starts_with("No move with mountain now"), "{none}");
    // The complete JSON list is unchanged: every move, the city tile's too.
    let legal = rules.legal_moves(&state, 1);
    assert!(legal.iter().any(|m| m.text == "road C4"));
    assert_eq!(
        legal.iter().filter(|m| m.kind == "city").count(),
        legal.iter().filter(|m| m.kind == "discover").count()
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

/// The board marks the squares of the last move with stars (both of an activation,
/// the square a `take` was for) and names it under the board; every square keeps its
/// name on the edges.
#[test]
fn the_board_marks_the_last_move() {
    use pbem::engine::{BoardContext, LastMove};
    let (rules, mut state) = empty(2);
    put(&mut state, "D4", Kind::Mountain, Some(1), false);
    put(&mut state, "D5", Kind::Mine, Some(0), false);
    let names = names(2);
    let board = |text: Option<&str>| {
        rules.board(
            &state,
            &BoardContext {
                viewer: Viewer::Player(0),
                names: &names,
                turn: 7,
                last_move: text.map(|t| LastMove {
                    seat: 0,
                    text: Some(t.to_string()),
                }),
            },
        )
    };
    let marked = board(Some("activate D4 to D5"));
    let row = |board: &str, n: usize| board.lines().nth(n).unwrap_or_default().to_string();
    assert_eq!(
        row(&marked, 4),
        " 4    .     .     .   *^2 *   .     .     .     .    4"
    );
    assert_eq!(
        row(&marked, 5),
        " 5    .     .     .   *M1 *   .     .     .     .    5"
    );
    assert!(
        marked.contains("Last move (*): Ann: activate D4 to D5\n"),
        "{marked}"
    );
    assert!(marked.contains("After turn 7: Ann to move.\n"), "{marked}");
    // A `take` names no square: the one it was for is marked, on a board drawn from
    // the state the take left.
    let taken = {
        let mut chosen = state.clone();
        put(&mut chosen, "D5", Kind::Desert, Some(0), false);
        chosen.phase = Phase::Choosing {
            seat: 0,
            square: sq("E5"),
        };
        chosen.drawn = vec![Kind::Grass, Kind::Oasis];
        let after = play(&rules, &chosen, 0, "take grass").expect("taken");
        rules.board(
            &after,
            &BoardContext {
                viewer: Viewer::Player(0),
                names: &names,
                turn: 8,
                last_move: Some(LastMove {
                    seat: 0,
                    text: Some("take grass".to_string()),
                }),
            },
        )
    };
    assert!(row(&taken, 5).contains("*G1 *"), "{taken}");
    assert_eq!(
        taken.matches('*').count(),
        3,
        "E5 and the last move's line: {taken}"
    );
    // A discovery that drew a special: the square stays empty, marked all the same.
    let empty_marked = board(Some("discover A8"));
    assert!(
        row(&empty_marked, 8).starts_with(" 8  * . *"),
        "{empty_marked}"
    );
    // At the setup: no mark, no last move.
    let plain = board(None);
    assert!(
        !plain.contains('*') && !plain.contains("Last move"),
        "{plain}"
    );
    // The columns top and bottom, the rows left and right; within 78 columns.
    let lines: Vec<&str> = marked.lines().collect();
    assert_eq!(lines[0], lines[9]);
    assert_eq!(lines[0], "     A     B     C     D     E     F     G     H");
    for line in marked.lines().chain(rules.legend().lines()) {
        assert!(line.chars().count() <= 78, "too wide: {line:?}");
    }
    // The legend is the rules', printed once under the board: not in the board.
    assert!(!marked.contains("Squares: column"));
    assert!(squeezed(&rules.legend()).contains("*G1=* the squares of"));
    insta::assert_snapshot!(
        "board_with_the_last_move",
        format!("{}\n\n{}", marked.trim_end(), rules.legend())
    );
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

/// One turn of a recorded game replayed in process: who moved, the move, the full
/// states around it and its report.
struct Turn {
    seat: usize,
    text: String,
    before: State,
    after: State,
    report: Vec<pbem::engine::ReportLine>,
}

/// A recorded game replayed through the engine in process, with the tests' referee
/// key and its seed (so the draws are the recorded ones): every turn, and the rules.
fn replayed(recorded: &Recorded) -> (DesertKingdom, Vec<Turn>) {
    use pbem::engine::fairness::Seed;
    use pbem::engine::keyring::Keyring;
    use pbem::engine::session::{parse_player, Game, NewGame};

    let dir = tempfile::tempdir().expect("dir");
    let keyring = Keyring::at(dir.path());
    std::fs::write(
        dir.path().join("referee.key"),
        format!("{}\n", "42".repeat(32)),
    )
    .expect("key");
    let seed = Seed::from_hex(&recorded.seed).expect("seed");
    let request = NewGame {
        players: recorded.players.iter().map(|n| parse_player(n)).collect(),
        seed: Some(seed.clone()),
        // Recorded in format 3, whose draws they are.
        format: Some(pbem::engine::file::Version::V3),
        ..NewGame::default()
    };
    let mut game = Game::<DesertKingdom>::create(request, &keyring).expect("create");
    let mut before = game.replay(Some(&seed), None).expect("replay").state;
    let mut turns = Vec::new();
    for (player, text) in &recorded.moves {
        let applied = game.apply(&keyring, player, text).expect("applies");
        turns.push(Turn {
            seat: applied.seat,
            text: applied.understood.clone(),
            before: before.clone(),
            after: applied.state.clone(),
            report: applied.report,
        });
        before = applied.state;
    }
    (rules_with(&[]), turns)
}

fn recorded(file: &str) -> Recorded {
    let path = format!("{RECORDED}/{file}");
    serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json")
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

/// The report of an activation in a recorded game, as the mover and as the other
/// player read it: the tiles drawn reach only the mover.
#[test]
fn an_activation_of_a_recorded_game_as_each_player_reads_it() {
    let recorded = recorded("ending-1.json");
    let (_, turns) = replayed(&recorded);
    let turn = turns
        .iter()
        .find(|t| {
            t.text.starts_with("activate")
                && t.report
                    .iter()
                    .filter(|l| l.audience != pbem::engine::Audience::Everyone)
                    .count()
                    >= 2
        })
        .expect("an activation whose drawer read two lines of their own");
    let as_reader = |seat: usize| {
        turn.report
            .iter()
            .filter(|l| l.seen_by(Viewer::Player(seat)))
            .map(|l| format!("  {}", l.text))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let other = 1 - turn.seat;
    // One snapshot per reader: each holds only what its reader may read.
    let read_by = |seat: usize| {
        format!(
            "{} moved: {}\n{} reads:\n{}\n",
            recorded.players[turn.seat],
            turn.text,
            recorded.players[seat],
            as_reader(seat)
        )
    };
    assert!(as_reader(turn.seat).contains("tiles drawn: "));
    assert!(
        !as_reader(other).contains("tiles drawn"),
        "{}",
        read_by(other)
    );
    assert!(
        !as_reader(other).contains("Back to the bag"),
        "{}",
        read_by(other)
    );
    insta::assert_snapshot!("report_of_an_activation_to_its_drawer", read_by(turn.seat));
    insta::assert_snapshot!("report_of_an_activation_to_the_other", read_by(other));
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
        super::support::report_shown(&mut command, &table.file(), viewer, number)
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
            super::support::report_shown(&mut command, sent.file, viewer, turn)
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

// --- Issue 18: the spiral's extra tile, the last square, the rulings of the end ------

/// The rules as a game of revision 1 has them in its genesis: the data of that
/// revision, without the options it did not have.
fn revision_1_rules() -> DesertKingdom {
    let data: String = DesertKingdom::DEFAULT_DATA
        .lines()
        .filter(|line| {
            !["last_square =", "cityless_treasures =", "treasures ="]
                .iter()
                .any(|key| line.starts_with(key))
        })
        .map(|line| {
            if line.starts_with("revision") {
                "revision = 1\n".to_string()
            } else {
                format!("{line}\n")
            }
        })
        .collect();
    DesertKingdom::from_data(&data, &Options::new()).expect("revision 1 data")
}

/// A board full but for `empty`, Ann to move, the bag `bag`, Ann's `kind` on the
/// squares of `ann` (mountains of nobody's everywhere else).
fn all_but(empty: &[&str], ann: &[(&str, Kind)], bag: &[Kind]) -> State {
    let (_, mut state) = self::empty(2);
    for at in Square::all() {
        if !empty.contains(&at.name().as_str()) {
            put(&mut state, &at.name(), Kind::Mountain, None, false);
        }
    }
    for (at, kind) in ann {
        put(&mut state, at, *kind, Some(0), false);
    }
    with_bag(&mut state, bag);
    state
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

/// Text with its white space squeezed, so a wrapped line still matches.
fn squeezed(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
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

/// The position of `the_attack_is_reported_band_by_band`: Bob's cities on C4 and F4
/// (2 treasures), Ann's on B2, three bands from D4; Ann's `city H8` fills the board.
fn bob_defends() -> State {
    let (_, mut state) = empty(2);
    for (at, owner) in [("C4", 1), ("F4", 1), ("B2", 0)] {
        put(&mut state, at, Kind::City, Some(owner), false);
    }
    state.squares[sq("D4").index()] = Some(Tile {
        kind: Some(Kind::Desert),
        face_down: true,
        owner: None,
        road: false,
        occupied: false,
        ruined: false,
    });
    state.last_face_down = Some(sq("D4"));
    state.players[0].barbarians = 2;
    state.players[0].points = 20;
    state.players[1].points = 10;
    state.players[1].treasures = 2;
    for at in Square::all() {
        if state.squares[at.index()].is_none() && at != sq("H8") {
            put(&mut state, &at.name(), Kind::Mountain, None, false);
        }
    }
    state
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

// --- The board as a picture -------------------------------------------------------------

/// The recorded 6-player game that ends with every city destroyed, replayed through
/// the command line: its setup, mid-game choices and roads are all in one file.
fn six_player_game() -> (crate::support::Table, Recorded) {
    let path = format!("{RECORDED}/ending-3.json");
    let recorded: Recorded =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
    assert_eq!(recorded.players.len(), 6);
    let table = crate::support::replay_recorded(
        "desert-kingdom",
        &recorded.players,
        &recorded.seed,
        &recorded.moves,
    );
    (table, recorded)
}

/// `pbem show FILE --format FORMAT --as VIEWER --turn TURN`'s bytes.
fn picture(table: &crate::support::Table, format: &str, viewer: &str, turn: usize) -> Vec<u8> {
    let output = table
        .pbem()
        .arg("show")
        .arg(table.file())
        .args([
            "--format",
            format,
            "--as",
            viewer,
            "--turn",
            &turn.to_string(),
        ])
        .output()
        .expect("runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

fn svg(table: &crate::support::Table, viewer: &str, turn: usize) -> String {
    String::from_utf8(picture(table, "svg", viewer, turn)).expect("utf-8")
}

/// The ASCII board `pbem show --as VIEWER --turn TURN` prints, up to its legend.
fn ascii_board(table: &crate::support::Table, viewer: &str, turn: usize) -> String {
    let output = table
        .pbem()
        .arg("show")
        .arg(table.file())
        .args(["--as", viewer, "--turn", &turn.to_string()])
        .output()
        .expect("runs");
    let text = String::from_utf8(output.stdout).expect("utf-8");
    text.split("\n\n").next().unwrap_or_default().to_string()
}

/// The texts of a picture set at `size`.
fn texts_sized(svg: &str, size: &str) -> Vec<String> {
    picture_texts_sized(svg)
        .into_iter()
        .filter(|(s, _)| s == size)
        .map(|(_, text)| text)
        .collect()
}

/// All the texts of a picture, their white space squeezed (a wrapped line still
/// matches).
fn svg_words(svg: &str) -> String {
    let texts: Vec<String> = picture_texts_sized(svg)
        .into_iter()
        .map(|(_, t)| t)
        .collect();
    squeezed(&texts.join(" "))
}

/// A 6-player board mid-game, as Ann is shown it after Ann's road on D2: squares of
/// every kind, roads, face-down tiles, the last move marked, every player's line.
/// The picture is deterministic (the same position gives the same bytes) and small.
#[test]
fn the_board_picture_mid_game() {
    let (table, recorded) = six_player_game();
    let turn = 33;
    assert_eq!(recorded.moves[turn - 1], ("Ann".into(), "road D2".into()));
    let picture = svg(&table, "Ann", turn);
    assert_eq!(
        svg(&table, "Ann", turn),
        picture,
        "same position, same bytes"
    );
    assert!(picture.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(picture.contains("<title>The desert kingdom after turn 33</title>"));
    assert!(picture.len() < 60_000, "{} bytes", picture.len());
    // The last move's square is marked: one dashed outline.
    assert_eq!(picture.matches("stroke-dasharray").count(), 1, "{picture}");
    // The square names on every edge: each column letter and row number twice.
    let names = texts_sized(&picture, "13");
    for name in ["A", "C", "H", "1", "8"] {
        assert_eq!(names.iter().filter(|t| *t == name).count(), 2, "{name}");
    }
    assert_eq!(names.len(), 32);
    insta::assert_snapshot!("board_picture_mid_game", picture);
}

/// The picture tells what the ASCII board tells: every line under the board's grid
/// is in it, word for word, and every tile's letter and owner's number.
#[test]
fn the_board_picture_tells_all_the_ascii_board_tells() {
    let (table, _) = six_player_game();
    for (viewer, turn) in [("Ann", 33), ("Dee", 6), ("referee", 6), ("Bob", 59)] {
        let board = ascii_board(&table, viewer, turn);
        let picture = svg(&table, viewer, turn);
        let texts: Vec<String> = picture_texts_sized(&picture)
            .into_iter()
            .map(|(_, t)| t)
            .collect();
        let lines: Vec<&str> = board.lines().collect();
        assert_eq!(lines[0], lines[9], "{board}");
        for line in &lines[10..] {
            let escaped = pbem::grid::svg::escape(line.trim_end());
            assert!(
                texts.contains(&escaped),
                "{viewer} {turn}: {line:?} in {texts:?}"
            );
        }
        // The grid's cells: " D1=", " [?]", " *G2 *" and so on, six characters each.
        let cells: Vec<String> = lines[1..9]
            .iter()
            .flat_map(|row| {
                let row = row.replace('*', " ");
                row.as_bytes()[3..row.len() - 3]
                    .chunks(6)
                    .map(|c| String::from_utf8_lossy(c).trim().to_string())
                    .collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(cells.len(), 64, "{board}");
        // Each tile's letter as often as the grid has it (face up large, face down a
        // little smaller), and each owner's number on as many tiles.
        let letters = texts_sized(&picture, "22");
        let backs = texts_sized(&picture, "20");
        let owners = texts_sized(&picture, "10.63");
        for letter in ["O", "C", "M", "G", "D", "^", ">"] {
            let in_board = cells.iter().filter(|c| c.starts_with(letter)).count();
            let in_picture = letters.iter().filter(|t| *t == letter).count();
            assert_eq!(in_picture, in_board, "{viewer} {turn}: {letter}\n{board}");
        }
        for back in ["[?]", "[C]", "[T]", "[B]", "[G]", "[O]"] {
            let in_board = cells.iter().filter(|c| *c == back).count();
            let shown = if back == "[?]" { "?" } else { back };
            let in_picture = backs.iter().filter(|t| *t == shown).count();
            assert_eq!(in_picture, in_board, "{viewer} {turn}: {back}\n{board}");
        }
        for seat in ["1", "2", "3", "4", "5", "6"] {
            let in_board = cells
                .iter()
                .filter(|c| !c.starts_with('[') && c.get(1..2) == Some(seat))
                .count();
            let in_picture = owners.iter().filter(|t| *t == seat).count();
            assert_eq!(
                in_picture, in_board,
                "{viewer} {turn}: owner {seat}\n{board}"
            );
        }
        let roads = cells.iter().filter(|c| c.ends_with('=')).count();
        let in_picture = texts.iter().filter(|t| *t == "road").count();
        assert_eq!(in_picture, roads, "{viewer} {turn}\n{board}");
        let ruined = cells.iter().filter(|c| *c == "x").count();
        let destroyed = texts.iter().filter(|t| *t == "destroyed").count();
        assert_eq!(destroyed, ruined, "{viewer} {turn}\n{board}");
    }
}

/// A player's picture keeps what the player may not see: the kinds of the face-down
/// tiles (which the referee's picture shows) and the tiles another player drew
/// (which the referee's and the chooser's pictures list).
#[test]
fn a_players_picture_shows_nothing_they_may_not_see() {
    let (table, recorded) = six_player_game();
    // Move 6 is Dee's `take`: after 6 records Dee chooses from the tiles drawn.
    let turn = 6;
    assert_eq!(recorded.moves[turn].0, "Dee");
    assert!(recorded.moves[turn].1.starts_with("take "));
    let referee = svg(&table, "referee", turn);
    let view: Value = serde_json::from_slice(
        &table
            .pbem()
            .arg("show")
            .arg(table.file())
            .args(["--format", "json", "--as", "referee", "--turn", "6"])
            .output()
            .expect("runs")
            .stdout,
    )
    .expect("json");
    let drawn: Vec<&str> = view["drawn"]
        .as_array()
        .expect("the referee sees the drawn tiles")
        .iter()
        .map(|k| k.as_str().expect("a kind"))
        .collect();
    assert!(!drawn.is_empty());
    let secret_list = format!("drawn: {}.", drawn.join(", "));
    let words = |picture: &str| svg_words(picture);
    // The face-down tiles' kinds, as the referee's picture shows them.
    let face_down: Vec<String> = view["squares"]
        .as_array()
        .expect("squares")
        .iter()
        .filter(|s| s["face_down"] == true)
        .map(|s| {
            let kind = Kind::parse(s["terrain"].as_str().expect("a kind")).expect("a kind");
            format!(">[{}]</text>", kind.letter())
        })
        .collect();
    assert!(!face_down.is_empty(), "a tile lies face down by turn 6");
    for mark in &face_down {
        assert!(referee.contains(mark), "{mark}");
    }
    assert!(words(&referee).contains(&secret_list), "{secret_list}");
    let chooser = svg(&table, "Dee", turn);
    assert!(words(&chooser).contains(&secret_list));
    for viewer in ["Ann", "Bob", "Cid", "Eve", "Fay", "Dee"] {
        let picture = svg(&table, viewer, turn);
        for mark in &face_down {
            assert!(!picture.contains(mark), "{viewer} sees {mark}");
        }
        assert_eq!(
            picture.matches(">face down</text>").count(),
            face_down.len(),
            "{viewer}"
        );
        if viewer != "Dee" {
            let words = words(&picture);
            assert!(!words.contains(&secret_list), "{viewer} sees {secret_list}");
            assert!(words.contains(" drawn."), "{viewer}: {words}");
        }
    }
    // At the end every face-down tile shows its kind to everyone, as on the board.
    let end = svg(&table, "Ann", recorded.moves.len());
    assert!(!end.contains(">face down</text>"), "{end}");
    assert!(
        texts_sized(&end, "20").iter().any(|t| t.starts_with('[')),
        "{end}"
    );
}

/// `--format png` draws the picture: a PNG of the SVG's size times `PNG_SCALE`, for a player's
/// view and an earlier turn.
#[test]
fn the_board_picture_as_png() {
    let (table, _) = six_player_game();
    for (viewer, turn) in [("Bob", 20), ("Ann", 59)] {
        let svg = svg(&table, viewer, turn);
        let png = picture(&table, "png", viewer, turn);
        let (width, height) = png_size(&png);
        assert_eq!(f64::from(width), (picture_size(&svg).0 * PNG_SCALE).round());
        assert_eq!(
            f64::from(height),
            (picture_size(&svg).1 * PNG_SCALE).round()
        );
        assert!(height > width, "the panel under the board");
    }
}
