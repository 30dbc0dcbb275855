//! The triangle auction (seed 003): the rules on hand-built positions, random complete
//! games in process (with invariants after every move) and through the command line,
//! and the card kept secret until its owner's turn.

use pbem::engine::{Chance, DrawStream, Options, Rules, Viewer, Visibility};

use pbem::games::triangle_auction::{Bid, Move, Phase, State, Step, TriangleAuction};

use serde_json::Value;

use crate::support::{picture_size, picture_texts, png_size, Table, PNG_SCALE};

mod command_line;
mod pictures;
mod recorded;
mod reports;
mod rules;

fn rules_with(pairs: &[(&str, &str)]) -> TriangleAuction {
    let options: Options = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    TriangleAuction::from_data(TriangleAuction::DEFAULT_DATA, &options).expect("valid options")
}

fn names(count: usize) -> Vec<String> {
    ["Ann", "Bob", "Cid", "Dee", "Eve"][..count]
        .iter()
        .map(|n| n.to_string())
        .collect()
}

/// What must hold after every move.
fn check_invariants(rules: &TriangleAuction, state: &State) {
    // Every tile is somewhere, once: the pile, the offer (won or on the table), an
    // area, or discarded; a won tile stays listed in the offer until placed.
    let mut seen: Vec<u8> = state.pile.clone();
    seen.extend(state.discarded.iter().copied());
    for player in &state.players {
        seen.extend(player.area.iter().map(|p| p.tile));
    }
    let placed_or_gone: Vec<u8> = seen.clone();
    for offer in &state.offer {
        if !placed_or_gone.contains(&offer.tile) {
            seen.push(offer.tile);
        }
    }
    seen.sort_unstable();
    let all: Vec<u8> = (0..90).collect();
    assert_eq!(seen, all, "every tile once");
    // Chits: in hand, on the card and on tiles make five, during the auction.
    if let Phase::Bidding { .. } = state.phase {
        for (seat, player) in state.players.iter().enumerate() {
            let on_tiles: u8 = state
                .offer
                .iter()
                .filter_map(|o| o.bid)
                .filter(|b| usize::from(b.seat) == seat)
                .map(|b| b.chits)
                .sum();
            let on_card = player.revealed.unwrap_or(0);
            assert_eq!(
                player.hand + on_tiles + on_card,
                5,
                "seat {seat}: {state:?}"
            );
        }
    }
    for player in &state.players {
        assert!(player.improvement <= 28);
    }
    // The public state hides every face-down card and answers as the full one does.
    let public = rules.public_state(state);
    assert!(public.players.iter().all(|p| p.card.is_none()));
    assert_eq!(rules.to_move(&public), rules.to_move(state));
    assert_eq!(rules.scores(&public), rules.scores(state));
}

/// A random complete game in process; returns its rules and final state.
fn random_game(players: usize, seed: u64, options: &[(&str, &str)]) -> (TriangleAuction, State) {
    let rules = rules_with(options);
    let mut chance = DrawStream::for_testing(seed);
    let mut picker = DrawStream::for_testing(seed ^ 0x5eed);
    let mut state = rules.setup(&names(players), &mut chance).expect("setup");
    let mut moves = 0;
    while !rules.is_over(&state) {
        let waiting = rules.to_move(&state);
        assert!(!waiting.is_empty(), "someone is to move: {state:?}");
        let seat = waiting[picker.draw(waiting.len() as u32, Visibility::Public) as usize];
        let mv = rules
            .sample_move(&state, seat, &mut picker)
            .expect("a player to move has a move");
        // The canonical text reads back as the same move.
        let text = rules.canonical_text(&mv);
        assert_eq!(
            rules.parse_move(&state, seat, &text).as_ref(),
            Ok(&mv),
            "{text}"
        );
        state = rules
            .apply(&state, seat, &mv, &mut chance)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        check_invariants(&rules, &state);
        moves += 1;
        assert!(moves < 2000, "the game ends");
    }
    assert_eq!(state.round, 8);
    assert!(!rules.winners(&state).is_empty());
    (rules, state)
}

/// A position in the auction: Ann (seat 0) to bid with her card revealed.
fn auction() -> (TriangleAuction, State) {
    let rules = rules_with(&[]);
    let mut state = rules
        .setup(&names(3), &mut DrawStream::for_testing(3))
        .expect("setup");
    for player in &mut state.players {
        player.card = Some(1);
        player.chosen = true;
        player.revealed = Some(1);
        player.hand = 4;
    }
    state.phase = Phase::Bidding { seat: 0 };
    (rules, state)
}

fn play(rules: &TriangleAuction, state: &State, seat: usize, text: &str) -> Result<State, String> {
    let mv = rules
        .parse_move(state, seat, text)
        .map_err(|e| e.to_string())?;
    rules
        .apply(state, seat, &mv, &mut DrawStream::for_testing(1))
        .map_err(|e| e.to_string())
}

// --- Recorded games ------------------------------------------------------------------

/// A complete game as recorded in tests/fixtures/triangle-auction/: the players, the
/// seed, every move, and the result the rules gave when it was recorded.
#[derive(serde::Serialize, serde::Deserialize)]
struct Recorded {
    /// How the game ends, for people.
    ending: String,
    players: Vec<String>,
    seed: String,
    moves: Vec<(String, String)>,
    scores: Vec<i64>,
    enclosed: Vec<u64>,
    improvement: Vec<u64>,
    winners: Vec<String>,
}

const RECORDED: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/triangle-auction"
);

/// The rules data the recorded games were played under: revision 1, as
/// games/triangle-auction.toml read before revision 2 (the seed's readings of issue 18).
const REVISION_1_DATA: &str = include_str!("../fixtures/triangle-auction/revision-1.toml");

/// A game recorded in format 2 under revision 1 of the rules, replayed move by move
/// through the command line.
fn replay_revision_1(
    game: &str,
    players: &[String],
    seed: &str,
    moves: &[(String, String)],
) -> crate::support::Table {
    use pbem::engine::file::Version;
    crate::support::replay_recorded_under(
        game,
        players,
        seed,
        moves,
        (Version::V2, Some(REVISION_1_DATA)),
    )
}

/// The board a player is mailed, mid-game: the auction row, every player's tracks and
/// the reader's own area in full, within 78 columns.
#[test]
fn the_board_mid_game() {
    let path = format!("{RECORDED}/ending-1.json");
    let recorded: Recorded =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
    let table = replay_revision_1(
        "triangle-auction",
        &recorded.players,
        &recorded.seed,
        &recorded.moves[..60],
    );
    let board = table.board_as("Ann");
    insta::assert_snapshot!(board);
}

// --- The player's side: reports, readable moves, examples, the end, the board -------

fn recorded(number: usize) -> Recorded {
    let path = format!("{RECORDED}/ending-{number}.json");
    serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json")
}

/// A recorded game replayed in process through the engine, as the referee holds it:
/// the game, its seed and the keyring's folder.
struct InProcess {
    game: pbem::engine::session::Game<TriangleAuction>,
    seed: pbem::engine::fairness::Seed,
    _dir: tempfile::TempDir,
}

impl InProcess {
    /// The first `upto` moves of a recorded game.
    fn new(recorded: &Recorded, upto: usize) -> InProcess {
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
            // The recorded games were recorded in format 2.
            format: Some(pbem::engine::file::Version::V2),
            // ... under revision 1 of the rules.
            rules_data: Some(REVISION_1_DATA.to_string()),
            ..NewGame::default()
        };
        let mut game = Game::<TriangleAuction>::create(request, &keyring).expect("create");
        for (player, text) in &recorded.moves[..upto] {
            game.apply(&keyring, player, text).expect("applies");
        }
        InProcess {
            game,
            seed,
            _dir: dir,
        }
    }

    /// The full state after `turn` records.
    fn state(&self, turn: u64) -> State {
        self.game
            .replay(Some(&self.seed), Some(turn))
            .expect("replays")
            .state
    }

    /// Every record's report, in order.
    fn reports(&self) -> Vec<Vec<ReportLine>> {
        self.game.reports(Some(&self.seed)).expect("reports")
    }
}

use pbem::engine::{Audience, MoveFilter, ReportLine};

/// A report line with its readers, for exact comparisons: "everyone: ...",
/// "Ann only: ...", "everyone (drawn): ...".
fn described(line: &ReportLine, names: &[String]) -> String {
    let readers = match line.audience {
        Audience::Everyone => "everyone".to_string(),
        Audience::Seat(seat) => format!("{} only", names[seat]),
    };
    let drawn = if line.tells_draw { " (drawn)" } else { "" };
    format!("{readers}{drawn}: {}", line.text)
}

/// Round 1 of a recorded game, turn by turn: a card is named to its owner only; its
/// opening, the bids, an outbid, the auction's end, placements, a discard and the
/// next round's offer are told to everyone, the offer marked as a draw.
#[test]
fn every_turn_of_a_recorded_round_reports_each_fact_to_its_readers() {
    let recorded = recorded(1);
    let game = InProcess::new(&recorded, 16);
    let reports = game.reports();
    let names = &recorded.players;
    let turn = |n: usize| -> Vec<String> {
        reports[n - 1]
            .iter()
            .map(|line| described(line, names))
            .collect()
    };
    assert_eq!(
        turn(1),
        [
            "everyone: Ann has chosen a card, face down (1 of 3 chosen)",
            "Ann only: Ann's card, face down: card 0 (improvement 0 -> 0 when it opens; 5 to bid)",
        ]
    );
    assert_eq!(
        turn(3),
        [
            "everyone: Cid has chosen a card, face down (3 of 3 chosen)",
            "Cid only: Cid's card, face down: card 0 (improvement 0 -> 0 when it opens; 5 to bid)",
            "everyone: Every card is chosen: Bob, the starting player, bids first",
        ]
    );
    assert_eq!(
        turn(4),
        [
            "everyone: Bob's card opens: card 5, 5 chits to the improvement track",
            "everyone: Bob: improvement 0 -> 5",
            "everyone: Bob passed: with 0 chits no tile can be claimed",
        ]
    );
    assert_eq!(
        turn(5),
        [
            "everyone: Cid's card opens: card 0, nothing to the improvement track",
            "everyone: Cid bid 2 chits on F (BB-)",
            "everyone: Cid bid 1 chit on G (RGY)",
            "everyone: Cid has 2 chits left in hand",
        ]
    );
    assert_eq!(
        turn(7),
        [
            "everyone: Cid bid 2 chits on A (BP-), outbidding Ann's 1",
            "everyone: Ann was outbid on A: 1 chit goes back to Ann's hand (now 5)",
            "everyone: Cid has 0 chits left in hand",
        ]
    );
    assert_eq!(
        turn(8),
        [
            "everyone: Ann bid 1 chit on B (GY-)",
            "everyone: Ann has 4 chits left in hand",
            "everyone: Passed over, as they can claim no tile: Bob and Cid",
        ]
    );
    assert_eq!(
        turn(12),
        [
            "everyone: Ann bid 1 chit on E (GPB)",
            "everyone: Ann has 0 chits left in hand",
            "everyone: The auction is over",
            "everyone: Cid won A (BP-) for 2 chits",
            "everyone: Ann won B (GY-) for 1 chit",
            "everyone: Cid won C (BP-) for 2 chits",
            "everyone: Ann won E (GPB) for 1 chit",
            "everyone: Ann won F (BB-) for 3 chits",
            "everyone: Cid won G (RGY) for 1 chit",
            "everyone: Unclaimed, discarded: D:RPG",
            "everyone: Now placing the tiles won: Ann and Cid",
        ]
    );
    assert_eq!(
        turn(13),
        [
            "everyone: Ann placed B (GY-) at H11 r1: green right, yellow bottom",
            "everyone: Ann's symbols: Y 0 -> 1, G 0 -> 1",
            "everyone: Ann still has E (GPB) and F (BB-) to place",
        ]
    );
    assert_eq!(
        turn(14),
        [
            "everyone: Cid placed A (BP-) at A1 r0: blue left, purple right",
            "everyone: Cid discarded C (BP-): it fits nowhere in Cid's area",
            "everyone: Cid discarded G (RGY): it fits nowhere in Cid's area",
            "everyone: Cid's symbols: B 0 -> 1, P 0 -> 1",
        ]
    );
    assert_eq!(
        turn(16),
        [
            "everyone: Ann placed F (BB-) at H13 r2: blue left, blue bottom",
            "everyone: Ann's symbols: B 1 -> 3",
            "everyone: Round 2 begins: Cid has the starting-player card; 5 chits each",
            "everyone: 7 tiles drawn face up; 76 left in the pile",
            "everyone (drawn): Round 2's offer: A:GB- B:RYB C:RBP D:RGP E:RYG F:YGP G:YGP",
        ]
    );
    // What anyone may read of round 1, turn by turn (no card before it opens).
    let mut public = String::new();
    for (index, lines) in reports.iter().enumerate() {
        public.push_str(&format!("turn {}:\n", index + 1));
        for line in lines.iter().filter(|l| l.seen_by(Viewer::Public)) {
            public.push_str(&format!("  {}\n", line.text));
        }
    }
    insta::assert_snapshot!("the_public_reports_of_round_one", public);
}

/// The board marks the last move: its tiles in the offer or in the mover's area,
/// with a line naming it; a card chosen face down is only said to be chosen.
#[test]
fn the_board_marks_the_last_move() {
    let recorded = recorded(1);
    let table = replay_revision_1(
        "triangle-auction",
        &recorded.players,
        &recorded.seed,
        &recorded.moves[..53],
    );
    let board_at = |viewer: &str, turn: u64| -> String {
        let output = table
            .pbem()
            .arg("show")
            .arg(table.file())
            .args(["--as", viewer, "--turn", &turn.to_string()])
            .output()
            .expect("runs");
        assert!(output.status.success(), "{output:?}");
        let board = String::from_utf8(output.stdout).expect("utf-8");
        for line in board.lines() {
            assert!(line.chars().count() <= 78, "too wide: {line:?}");
        }
        board
    };
    // Turn 49: Ann placed two tiles; her board marks both, Bob's names the move.
    let ann = board_at("Ann", 49);
    assert!(
        ann.contains(
            "\nLast move, turn 49: Ann: place A at G12 r1; place B at G10 r0 (** in the area)\n"
        ),
        "{ann}"
    );
    let area = ann.split("Ann's area").nth(1).expect("Ann's area");
    let area = area.split("\n\n").next().unwrap_or_default();
    assert_eq!(area.matches("**").count(), 2, "{area}");
    // G10 and G12 (spaces pointing down: their labels stand on the line of the row
    // letter) are marked; G11 between them keeps its number.
    let row_g: Vec<&str> = area.lines().filter(|l| l.starts_with('G')).collect();
    assert_eq!(row_g.len(), 1);
    assert_eq!(row_g[0].matches("\\**/").count(), 2, "{}", row_g[0]);
    assert!(area.contains("/11\\"), "{area}");
    insta::assert_snapshot!("the_board_after_a_placement", ann);
    // Bob's board shows Ann's area too (T19), marked alike; his own is not.
    let bob = board_at("Bob", 49);
    assert!(
        bob.contains(
            "\nLast move, turn 49: Ann: place A at G12 r1; place B at G10 r0 (** in the area)\n"
        ),
        "{bob}"
    );
    let bobs_area = bob.split("Bob's area").nth(1).expect("Bob's area");
    let bobs_area = bobs_area.split("\n\n").next().unwrap_or_default();
    assert!(!bobs_area.contains("**"), "{bob}");
    let anns_area = bob
        .split("Ann's area")
        .nth(1)
        .expect("Ann's area on Bob's board");
    let anns_area = anns_area.split("\n\n").next().unwrap_or_default();
    assert_eq!(anns_area.matches("**").count(), 2, "{bob}");
    // Turn 45: a bid; its tiles are starred in the offer.
    let bid = board_at("Cid", 45);
    assert!(bid.contains(" *A:BG- (Ann 2) *B:RYP (Ann 3)"), "{bid}");
    assert!(bid.contains("Last move, turn 45: Ann: bid 2 on A, 3 on B (* in the offer)"));
    // Turn 53: Ann chose her card; only her own board says which.
    let card = board_at("Bob", 53);
    assert!(
        card.contains("\nLast move, turn 53: Ann chose a card, face down.\n"),
        "{card}"
    );
    let own = board_at("Ann", 53);
    assert!(own.contains("\nLast move, turn 53: Ann: card 5\n"), "{own}");
}

// --- The board as a picture -----------------------------------------------------------

/// `pbem show --format svg|png`, as `viewer` (None: the public view), at `turn`.
fn picture(table: &Table, format: &str, viewer: Option<&str>, turn: Option<u64>) -> Vec<u8> {
    let mut command = table.pbem();
    command
        .arg("show")
        .arg(table.file())
        .args(["--format", format]);
    if let Some(viewer) = viewer {
        command.args(["--as", viewer]);
    }
    if let Some(turn) = turn {
        command.args(["--turn", &turn.to_string()]);
    }
    let output = command.output().expect("runs");
    assert!(output.status.success(), "{output:?}");
    output.stdout
}

fn svg_of(table: &Table, viewer: Option<&str>, turn: Option<u64>) -> String {
    String::from_utf8(picture(table, "svg", viewer, turn)).expect("utf-8")
}

/// `pbem show` as text, as `viewer` at `turn`: the board, its legend and the turn's
/// report.
fn text_of(table: &Table, viewer: Option<&str>, turn: Option<u64>) -> String {
    let mut command = table.pbem();
    command.arg("show").arg(table.file());
    if let Some(viewer) = viewer {
        command.args(["--as", viewer]);
    }
    if let Some(turn) = turn {
        command.args(["--turn", &turn.to_string()]);
    }
    let output = command.output().expect("runs");
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).expect("utf-8")
}

/// The opening's picture: Ann's empty area drawn around its middle space, the
/// others' said to be empty, the offer drawn, every line of the text's panels.
#[test]
fn the_picture_of_the_opening() {
    let table = Table::new();
    table.start("triangle-auction", &["Ann", "Bob", "Cid"], &"5a".repeat(32));
    let svg = svg_of(&table, Some("Ann"), None);
    let text = table.board_as("Ann");
    let texts = picture_texts(&svg);
    // Every line of the board but the area drawings is set in the picture.
    let panel = text.split("\nAnn's area").next().expect("a panel");
    for line in panel.lines().filter(|l| !l.trim().is_empty()) {
        assert!(texts.iter().any(|t| t == line), "missing {line:?}");
    }
    assert!(texts
        .iter()
        .any(|t| t.starts_with("Ann's area (0 tiles placed")));
    assert!(texts.contains(&"Bob's area: no tile yet.".to_string()));
    // The middle space AO41 and its neighbours, empty, with their numbers and the
    // rows' names at both ends.
    assert!(texts.contains(&"41".to_string()), "{texts:?}");
    assert_eq!(texts.iter().filter(|t| *t == "AO").count(), 2, "{texts:?}");
    // Seven tiles on offer, drawn: each letter and code.
    for letter in ["A", "B", "C", "D", "E", "F", "G"] {
        assert!(texts.contains(&letter.to_string()), "{letter}");
    }
    assert_eq!(texts.iter().filter(|t| *t == "no bid").count(), 7);
    // The same position gives the same bytes.
    assert_eq!(svg, svg_of(&table, Some("Ann"), None));
    insta::assert_snapshot!("the_picture_of_the_opening", svg);
}

/// A picture mid-game (turn 49 of a recorded game, Ann has just placed two tiles):
/// every player's area with its tiles, the two tiles marked, the bids on the offer in
/// their holders' colours, and every line of the text's panels.
#[test]
fn the_picture_mid_game() {
    let recorded = recorded(1);
    let table = replay_revision_1(
        "triangle-auction",
        &recorded.players,
        &recorded.seed,
        &recorded.moves[..53],
    );
    let svg = svg_of(&table, Some("Ann"), Some(49));
    let text = text_of(&table, Some("Ann"), Some(49));
    let texts = picture_texts(&svg);
    let panel = text.split("\nAnn's area").next().expect("a panel");
    for line in panel.lines().filter(|l| !l.trim().is_empty()) {
        assert!(texts.iter().any(|t| t == line), "missing {line:?}");
    }
    for heading in [
        "Ann's area (8 tiles placed, 73 spaces free):",
        "Bob's area (3 tiles placed, 78 spaces free):",
        "Cid's area (1 tile placed, 80 spaces free):",
    ] {
        assert!(texts.iter().any(|t| t == heading), "missing {heading:?}");
    }
    // The two tiles Ann placed are marked, and nothing else.
    assert_eq!(svg.matches("stroke-dasharray").count(), 2, "{svg}");
    // The holders of the offer, as the text names them.
    for holder in ["Ann 2", "Ann 3", "Bob 1", "Cid 1", "Bob 2", "Cid 2"] {
        assert!(text.contains(&format!("({holder})")), "{holder}");
        assert!(texts.iter().any(|t| t == holder), "{holder}: {texts:?}");
    }
    // 12 placed tiles: 12 roads, each a polygon with no fill (offer tiles too: 7).
    assert_eq!(
        svg.matches(r##"fill="none" stroke="#5b5346""##).count(),
        12 + 7
    );
    let size = svg.len();
    assert!(size < 100_000, "{size} bytes");
    insta::assert_snapshot!("the_picture_mid_game", svg);
}
