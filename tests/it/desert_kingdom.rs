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

mod command_line;
mod pictures;
mod recorded;
mod reports;
mod rules;

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
        " 4    .     .     .   *^2*    .     .     .     .    4"
    );
    assert_eq!(
        row(&marked, 5),
        " 5    .     .     .   *M1*    .     .     .     .    5"
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
    assert!(row(&taken, 5).contains("*G1*"), "{taken}");
    assert_eq!(
        taken.matches('*').count(),
        3,
        "E5 and the last move's line: {taken}"
    );
    // A discovery that drew a special: the square stays empty, marked all the same.
    let empty_marked = board(Some("discover A8"));
    assert!(
        row(&empty_marked, 8).starts_with(" 8   *.* "),
        "{empty_marked}"
    );
    // Stars close round a cell's content, never its blanks.
    for board in [&marked, &taken, &empty_marked] {
        for line in board.lines().skip(1).take(8) {
            let insides = line.split('*').skip(1).step_by(2);
            for inside in insides {
                assert_eq!(inside, inside.trim(), "{line}");
            }
        }
    }
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
    use pbem::engine::roster::parse_player;
    use pbem::engine::session::{Game, NewGame};

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

/// Text with its white space squeezed, so a wrapped line still matches.
fn squeezed(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
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

/// The texts of a picture set at `size`.
fn texts_sized(svg: &str, size: &str) -> Vec<String> {
    picture_texts_sized(svg)
        .into_iter()
        .filter(|(s, _)| s == size)
        .map(|(_, text)| text)
        .collect()
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
