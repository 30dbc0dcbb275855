//! Right of Way: the rulebook's worked examples, refusals, the move language, random
//! whole games (proptest) and board snapshots.

use pbem::engine::{
    BoardContext, Chance, Deadline, DrawStream, Options, Rules, Viewer, Visibility,
};
use pbem::games::right_of_way::{Cell, City, FaceDown, Highway, Move, RightOfWay, State};
use pbem::grid::hex::{opposite, rotate_mask, Hex, DIRS};
use proptest::prelude::*;

use super::support::picture_texts;

fn names() -> Vec<String> {
    vec!["red".to_string(), "blue".to_string()]
}

fn rules() -> RightOfWay {
    RightOfWay::standard().expect("built-in data is valid")
}

fn rules_with(pairs: &[(&str, &str)]) -> RightOfWay {
    let options: Options = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    RightOfWay::from_data(RightOfWay::DEFAULT_DATA, &options).expect("valid options")
}

/// A test position: a hexagon city of unmarked tiles, no highways, red (seat 0) to move;
/// hands are emptied into the stacks so `hand` can deal exactly what a test needs while
/// every tile stays accounted for.
struct Pos {
    rules: RightOfWay,
    s: State,
}

impl Pos {
    fn new() -> Self {
        let rules = rules();
        let mut s = rules
            .setup(&names(), &mut DrawStream::for_testing(7))
            .unwrap();
        for c in &mut s.cells {
            *c = Cell {
                city: City::Plain,
                highway: None,
                row: Vec::new(),
            };
        }
        for p in &mut s.players {
            p.stack = (0..rules.kinds().len() as u8)
                .flat_map(|k| std::iter::repeat_n(k, rules.kinds()[k as usize].count as usize))
                .collect();
            p.hand.clear();
        }
        s.to_move = 0;
        Pos { rules, s }
    }

    fn cell(&self, label: &str) -> u16 {
        self.rules
            .cell_index(label)
            .unwrap_or_else(|| panic!("no cell {label}"))
    }

    fn kind(&self, name: &str) -> u8 {
        self.rules.kind_by_name(name).unwrap()
    }

    fn take(&mut self, seat: usize, kind: u8) {
        let stack = &mut self.s.players[seat].stack;
        let at = stack
            .iter()
            .position(|&k| k == kind)
            .expect("tile left in stack");
        stack.remove(at);
    }

    /// Moves tiles by name from the stack into the hand.
    fn hand(&mut self, seat: usize, tiles: &[&str]) -> &mut Self {
        for t in tiles {
            let k = self.kind(t);
            self.take(seat, k);
            self.s.players[seat].add_to_hand(k);
        }
        self
    }

    fn dollar(&mut self, labels: &[&str]) -> &mut Self {
        for l in labels {
            let c = self.cell(l);
            self.s.cells[c as usize].city = City::Dollar;
        }
        self
    }

    /// A highway of `seat` with these board edges (digits) on a cell.
    fn road(&mut self, seat: usize, label: &str, edges: &[usize]) -> &mut Self {
        let mask = edges.iter().fold(0u8, |m, &e| m | 1 << e);
        let kind = self
            .rules
            .kind_of_edges(mask)
            .expect("a tile has these edges");
        self.take(seat, kind);
        let c = self.cell(label);
        self.s.cells[c as usize].highway = Some(Highway {
            owner: seat as u8,
            kind,
            edges: mask,
        });
        self
    }

    /// Keeps only these cells in the city: every other cell of the frame has no city
    /// tile, so nothing can be built there and nothing there earns profit.
    fn only(&mut self, labels: &[&str]) -> &mut Self {
        let keep: Vec<u16> = labels.iter().map(|l| self.cell(l)).collect();
        for (i, c) in self.s.cells.iter_mut().enumerate() {
            if !keep.contains(&(i as u16)) {
                c.city = City::Empty;
            }
        }
        self
    }

    /// A face-down tile of `seat`, taken from its stack, on top of a cell's stack.
    fn face_down(&mut self, seat: usize, label: &str, tile: &str) -> &mut Self {
        let kind = self.kind(tile);
        self.take(seat, kind);
        let c = self.cell(label);
        self.s.cells[c as usize].row.push(FaceDown {
            owner: seat as u8,
            kind,
        });
        self
    }

    /// Hand tiles go back to the stack.
    fn unhand(&mut self, seat: usize, tiles: &[&str]) -> &mut Self {
        for t in tiles {
            let k = self.kind(t);
            assert!(self.s.players[seat].take_from_hand(k), "{t} in hand");
            self.s.players[seat].stack.push(k);
        }
        self
    }

    /// The label of the neighbour of `label` across `edge`.
    fn next_to(&self, label: &str, edge: usize) -> String {
        let hex = self.rules.hex(self.cell(label)).neighbour(edge);
        let cell = self.rules.hex_index(hex).expect("inside the frame");
        self.rules.label(cell).to_string()
    }

    fn cost_profit(&self, label: &str, edges: &[usize]) -> (i64, i64) {
        let mask = edges.iter().fold(0u8, |m, &e| m | 1 << e);
        self.rules.cost_profit(&self.s, self.cell(label), mask)
    }

    fn apply(&self, seat: usize, text: &str) -> Result<State, pbem::engine::RuleError> {
        let mv = self.rules.parse_move(&self.s, seat, text)?;
        self.rules
            .apply(&self.s, seat, &mv, &mut DrawStream::for_testing(99))
    }

    fn check_conservation(&self, s: &State) {
        for seat in 0..s.players.len() {
            assert_eq!(s.tiles_of(seat as u8), 54, "seat {seat} in {s:?}");
        }
    }
}

const CENTRE: &str = "E9";

// ---- The rulebook's worked examples (seed 000's captions) ----

#[test]
fn first_player_equal_sums_fewer_fives_goes_first() {
    // "Equal sums, but blue has fewer fives and the first turn."
    let p = Pos::new();
    let k = |n: &str| p.kind(n);
    let red = vec![k("P"), k("P"), k("I"), k("I"), k("C")]; // 5+5+2+2+2 = 16, two fives
    let blue = vec![k("P"), k("X"), k("Y"), k("I"), k("C")]; // 5+4+3+2+2 = 16, one five
    assert_eq!(
        p.rules
            .first_player_candidates(&[red.clone(), blue.clone()]),
        vec![1]
    );
    // The sum decides before the sixes: a six in a lower sum still goes first.
    let low = vec![k("H"), k("I"), k("I"), k("V"), k("C")]; // 6+2+2+2+2 = 14
    assert_eq!(
        p.rules.first_player_candidates(&[red.clone(), low]),
        vec![1]
    );
    // Equal sums and equal fives: fewer sixes first.
    let six = vec![k("H"), k("Y"), k("I"), k("I"), k("I")]; // 6+3+2+2+2 = 15
    let fours = vec![k("X"), k("X"), k("Y"), k("I"), k("I")]; // 4+4+3+2+2 = 15
    assert_eq!(p.rules.first_player_candidates(&[six, fours]), vec![1]);
    // A full tie: both remain candidates and setup breaks it with a public draw.
    assert_eq!(
        p.rules.first_player_candidates(&[red.clone(), red]),
        vec![0, 1]
    );
}

#[test]
fn setup_gives_the_first_turn_by_the_hands() {
    for seed in 0..20 {
        let rules = rules();
        let s = rules
            .setup(&names(), &mut DrawStream::for_testing(seed))
            .unwrap();
        let hands: Vec<Vec<u8>> = s.players.iter().map(|p| p.hand.clone()).collect();
        assert!(rules
            .first_player_candidates(&hands)
            .contains(&(s.first as usize)));
        assert_eq!(s.to_move, s.first);
        assert!(s
            .players
            .iter()
            .all(|p| p.hand.len() == 5 && p.stack.len() == 49));
        let dollars = s.cells.iter().filter(|c| c.city == City::Dollar).count();
        assert_eq!((s.cells.len(), dollars), (61, 31));
        assert_eq!(
            s.cells[rules.cell_index(CENTRE).unwrap() as usize].city,
            City::Plain
        );
    }
}

#[test]
fn building_cost_is_connections_on_dollar_tiles_only() {
    let mut p = Pos::new();
    p.dollar(&[CENTRE]);
    // "Building cost: $2", "$4", "$5"; "No building cost on unmarked city tiles".
    assert_eq!(p.cost_profit(CENTRE, &[0, 3]).0, 2);
    assert_eq!(p.cost_profit(CENTRE, &[0, 1, 3, 4]).0, 4);
    assert_eq!(p.cost_profit(CENTRE, &[0, 1, 2, 3, 4]).0, 5);
    assert_eq!(p.cost_profit("E7", &[0, 1, 2, 3, 4]).0, 0);
}

#[test]
fn building_profit_is_one_per_connection_facing_a_dollar_tile() {
    let mut p = Pos::new();
    let e = p.next_to(CENTRE, 0);
    let ne = p.next_to(CENTRE, 1);
    let w = p.next_to(CENTRE, 3);
    let sw = p.next_to(CENTRE, 4);
    p.dollar(&[&e, &ne, &w]);
    // "Building profit: $1": a bend with one end towards a $ tile.
    assert_eq!(p.cost_profit(CENTRE, &[0, 2]), (0, 1));
    // "Building profit: $2": a straight between two $ tiles.
    assert_eq!(p.cost_profit(CENTRE, &[0, 3]), (0, 2));
    // "Building profit: $3": a junction towards three $ tiles.
    assert_eq!(p.cost_profit(CENTRE, &[0, 1, 3]), (0, 3));
    // "No building profit": connections towards unmarked tiles only.
    assert_eq!(p.cost_profit(CENTRE, &[2, 4]), (0, 0));
    // A $ tile beside the highway but not faced by a connection adds nothing.
    assert_eq!(p.cost_profit(CENTRE, &[4, 5]), (0, 0));
    let _ = sw;
}

#[test]
fn extra_profit_two_for_two_connections() {
    // "Extra profit: $2 for two connections".
    let mut p = Pos::new();
    let e = p.next_to(CENTRE, 0);
    let w = p.next_to(CENTRE, 3);
    p.road(1, &e, &[3, 0]).road(0, &w, &[0, 1]);
    assert_eq!(p.cost_profit(CENTRE, &[0, 3]), (0, 2));
}

#[test]
fn extra_profit_only_for_a_connection_that_meets_one() {
    // "Extra profit: $1 for the connection to the yellow highway tile. The blue junction
    // is adjacent, but not connected. It doesn't add profit."
    let mut p = Pos::new();
    let e = p.next_to(CENTRE, 0);
    let ne = p.next_to(CENTRE, 1);
    // Yellow (seat 0) connects back across E; the blue junction NE has no SW road.
    p.road(0, &e, &[3, 5]).road(1, &ne, &[0, 2, 3]);
    assert_eq!(p.cost_profit(CENTRE, &[0, 1]), (0, 1));
}

#[test]
fn overall_result_three_draws_three() {
    // "Building cost: 0 (unmarked city tile). Building profit: $3 (one $ city tile and two
    // highways connected). Overall result: $3 (3 - 0). Draw three new ... tiles."
    let mut p = Pos::new();
    let e = p.next_to(CENTRE, 0);
    let w = p.next_to(CENTRE, 3);
    let ne = p.next_to(CENTRE, 1);
    p.dollar(&[&ne]);
    p.road(1, &e, &[3, 4]).road(0, &w, &[0, 1]);
    p.hand(0, &["FL", "I", "C"]).hand(1, &["I"]);
    assert_eq!(p.cost_profit(CENTRE, &[0, 1, 3]), (0, 3));
    let before = p.s.players[0].clone();
    let after = p.apply(0, "place E,NE,W at E9").unwrap();
    let now = &after.players[0];
    assert_eq!(now.stack.len(), before.stack.len() - 3);
    assert_eq!(now.hand.len(), before.hand.len() - 1 + 3);
    assert_eq!(now.discards, before.discards);
    assert_eq!(after.to_move, 1);
    p.check_conservation(&after);
}

#[test]
fn overall_result_minus_one_discards_one() {
    // "Building cost: $5 ($ city tile). Building profit: $4 (three $ city tiles and one
    // highway connection). Overall result: -$1 (4 - 5). Discard one hand ... tile of your
    // choice."
    let mut p = Pos::new();
    let n: Vec<String> = (0..6).map(|i| p.next_to(CENTRE, i)).collect();
    p.dollar(&[CENTRE, &n[0], &n[1], &n[2]]);
    p.road(1, &n[3], &[0, 5]);
    p.hand(0, &["P", "I", "H", "C"]).hand(1, &["I"]);
    assert_eq!(p.cost_profit(CENTRE, &[0, 1, 2, 3, 4]), (5, 4));
    // The player's choice: the hub.
    let chosen = p.apply(0, "place E NE NW W SW at E9; discard H").unwrap();
    assert_eq!(chosen.players[0].hand, vec![p.kind("I"), p.kind("C")]);
    assert_eq!(chosen.players[0].discards, 1);
    assert_eq!(chosen.players[0].stack.len(), p.s.players[0].stack.len());
    p.check_conservation(&chosen);
    // Without a choice the default gives up the tile with the fewest connections, and
    // the canonical text says which.
    let mv = p.rules.parse_move(&p.s, 0, "build 01234 e9").unwrap();
    assert_eq!(
        p.rules.move_text(&mv),
        "place E,NE,NW,W,SW at E9; discard I"
    );
    let default = p
        .rules
        .apply(&p.s, 0, &mv, &mut DrawStream::for_testing(1))
        .unwrap();
    assert_eq!(default.players[0].hand, vec![p.kind("C"), p.kind("H")]);
}

#[test]
fn a_loss_beyond_the_hand_takes_placed_and_face_down_tiles() {
    // R15, R18. A city of three $ tiles far apart: red's highway on A5, red's
    // right-of-way on I9, and E9 free. Every placement red can make (on E9, or on its
    // own right-of-way I9) faces nothing and so loses its whole cost.
    let mut p = Pos::new();
    p.only(&["A5", CENTRE, "I9"]).dollar(&["A5", CENTRE, "I9"]);
    p.road(0, "A5", &[0, 3]).face_down(0, "I9", "C");
    p.hand(0, &["H", "I"]).hand(1, &["I"]);
    // Cost 6 (hub on a $ tile), profit 0: a loss of 6. The hand after placing holds one
    // tile (I), which goes first; then the face-down tile on I9, then the highway on A5;
    // the rest lapses.
    let mv = p.rules.parse_move(&p.s, 0, "place H rot 0 at E9").unwrap();
    assert_eq!(
        p.rules.move_text(&mv),
        "place E,NE,NW,W,SW,SE at E9; discard I,row I9,placed A5"
    );
    let after = p
        .rules
        .apply(&p.s, 0, &mv, &mut DrawStream::for_testing(1))
        .unwrap();
    assert!(after.cells[p.cell("I9") as usize].row.is_empty());
    assert!(after.cells[p.cell("A5") as usize].highway.is_none());
    assert!(after.cells[p.cell(CENTRE) as usize].highway.is_some());
    // The hand was emptied, so one tile is drawn at the end of the turn.
    assert_eq!(after.players[0].hand.len(), 1);
    p.check_conservation(&after);
    // The tile placed this turn may never be discarded.
    let err = p
        .apply(0, "place H rot 0 at E9; discard placed E9")
        .unwrap_err();
    assert!(err.problem.contains("E9"), "{err}");
}

/// Red's straights on E7 and E11 complete blue's straight on E9 (2 points); A5 is a $
/// corner whose neighbours earn nothing.
fn knock_off_position(only_these: bool) -> Pos {
    let mut p = Pos::new();
    if only_these {
        p.only(&["A5", "E7", CENTRE, "E11"]);
    }
    p.dollar(&["A5"]);
    p.road(0, "E7", &[0, 3])
        .road(1, CENTRE, &[0, 3])
        .road(0, "E11", &[0, 3]);
    p.hand(1, &["I"]);
    assert_eq!(p.rules.scores(&p.s), vec![0, 2]);
    assert_eq!(p.cost_profit("A5", &[0, 3]), (2, 0));
    p
}

#[test]
fn placed_tiles_never_pay_a_loss_the_hand_can_pay() {
    // R15: "If you can only place highways which produce a negative overall result and
    // don't have enough highway tiles in your hand to discard, you have to discard your
    // already-placed highway tiles". A straight on A5 loses $2 and the hand keeps three
    // tiles after it: the loss is paid from the hand. Discarding red's own E11 instead
    // would knock blue's fully connected E9 off the score.
    for only_these in [false, true] {
        // Without `only`, red could also build without a loss on any unmarked tile;
        // with it, A5 is the only free tile and every placement loses. Either way the
        // hand can pay.
        let mut p = knock_off_position(only_these);
        p.hand(0, &["I", "C", "Y", "X"]);
        let before = p.s.clone();
        for text in [
            "place E,W at A5; discard placed E11",
            "place E,W at A5; discard C,placed E11",
            "place E,W at A5; discard placed E7,placed E11",
        ] {
            let err = p
                .apply(0, text)
                .expect_err(&format!("{text} (only: {only_these})"));
            assert!(err.problem.contains("hand"), "{text}: {err}");
            assert_eq!(p.s, before);
        }
        let mv = p.rules.parse_move(&p.s, 0, "place E,W at A5").unwrap();
        assert_eq!(p.rules.move_text(&mv), "place E,W at A5; discard C,Y");
        let after = p.apply(0, "place E,W at A5").unwrap();
        assert_eq!(p.rules.scores(&after), vec![0, 2], "blue keeps its points");
        p.check_conservation(&after);
        // A listed move discards a placed tile only when every placement loses and its
        // loss is more than the three tiles left in hand (a crossing, $4).
        for m in p.rules.legal_moves(&p.s, 0) {
            if m.text.contains("placed") || m.text.contains("row") {
                let loss =
                    m.details["cost"].as_i64().unwrap() - m.details["profit"].as_i64().unwrap();
                assert!(only_these && loss > 3, "{}", m.text);
            }
        }
    }
}

#[test]
fn a_loss_the_hand_cannot_pay_is_refused_while_a_placement_without_loss_exists() {
    // R15: placed tiles pay only when "you can only place highways which produce a
    // negative overall result". Here every unmarked tile takes a highway for free, so
    // a hub on the $ corner A5 (a loss of 6, one tile left in hand) is not allowed.
    let mut p = knock_off_position(false);
    p.hand(0, &["H", "I"]);
    let before = p.s.clone();
    for text in [
        "place H rot 0 at A5",
        "place H rot 0 at A5; discard I,placed E11",
        "place E,W at A5",
    ] {
        let err = match p.rules.parse_move(&p.s, 0, text) {
            Err(e) => e,
            Ok(mv) => p
                .rules
                .apply(&p.s, 0, &mv, &mut DrawStream::for_testing(3))
                .expect_err(text),
        };
        assert!(err.problem.contains("loss"), "{text}: {err}");
        // The example offered instead is a legal turn.
        let example = err.accepted.split('`').nth(1).expect("an example");
        p.apply(0, example)
            .unwrap_or_else(|e| panic!("{text}: example `{example}`: {e}"));
        assert_eq!(p.s, before);
    }
    let legal = p.rules.legal_moves(&p.s, 0);
    assert!(legal
        .iter()
        .all(|m| m.details.get("cell").is_none_or(|c| c != "A5") || m.kind != "place"));
    assert_eq!(p.rules.scores(&p.s), vec![0, 2]);
}

#[test]
fn placed_tiles_pay_only_what_the_hand_cannot() {
    // R15, forced: A5 is the only free tile, so every placement loses; a bend there
    // loses $2 and leaves one tile in hand. The hand tile goes, and one placed tile of
    // red's choice pays the rest ("until the result is balanced").
    let mut p = knock_off_position(true);
    p.hand(0, &["C", "I"]);
    let mv = p
        .rules
        .parse_move(&p.s, 0, "place E,NW at A5; discard placed E11")
        .unwrap();
    assert_eq!(
        p.rules.move_text(&mv),
        "place E,NW at A5; discard I,placed E11"
    );
    let after = p
        .rules
        .apply(&p.s, 0, &mv, &mut DrawStream::for_testing(1))
        .unwrap();
    assert!(after.cells[p.cell("E11") as usize].highway.is_none());
    assert!(after.cells[p.cell("E7") as usize].highway.is_some());
    assert_eq!(p.rules.scores(&after), vec![0, 0]);
    p.check_conservation(&after);
    // Only the shortfall: one placed tile, not two.
    let err = p
        .apply(0, "place E,NW at A5; discard placed E7,placed E11")
        .unwrap_err();
    assert!(err.problem.contains("hand"), "{err}");
    // The default: the hand, then placed highways in label order.
    let mv = p.rules.parse_move(&p.s, 0, "place E,NW at A5").unwrap();
    assert_eq!(
        p.rules.move_text(&mv),
        "place E,NW at A5; discard I,placed E7"
    );
}

#[test]
fn victory_points_for_fully_connected_tiles() {
    // The victory example: tiles scoring 2, 2, 4, 2 (a junction with bends around it),
    // next to a junction with a loose end that scores nothing.
    let mut p = Pos::new();
    let e = p.next_to(CENTRE, 0);
    let ne = p.next_to(CENTRE, 1);
    let nw = p.next_to(CENTRE, 2);
    let w = p.next_to(CENTRE, 3);
    p.road(0, CENTRE, &[0, 1, 2, 3]); // 4
    p.road(0, &e, &[3, 2]); // 2: back to the centre and up to NE
    p.road(0, &ne, &[4, 5]); // 2: centre and E
    p.road(0, &w, &[0, 1]); // 2: centre and NW
    p.road(0, &nw, &[5, 4, 1]); // centre, W, and a loose end towards NE: 0
    let full: Vec<bool> = [CENTRE, &e, &ne, &w, &nw]
        .iter()
        .map(|l| p.rules.fully_connected(&p.s, p.cell(l)))
        .collect();
    assert_eq!(full, vec![true, true, true, true, false]);
    assert_eq!(p.rules.scores(&p.s), vec![10, 0]);
    // Neighbours whose roads do not face each other are not connected.
    p.road(1, "A5", &[0, 3]);
    assert_eq!(p.rules.scores(&p.s), vec![10, 0]);
}

// ---- Right-of-way ----

#[test]
fn buying_right_of_way_and_stacks() {
    let mut p = Pos::new();
    p.hand(0, &["I", "C", "Y", "X"])
        .hand(1, &["I", "C", "V", "Y", "P"]);
    // Red buys E9 with a face-down C, then builds elsewhere.
    let s1 = p.apply(0, "buy E9 with C; place E,W at A5").unwrap();
    let c = p.cell(CENTRE) as usize;
    assert_eq!(s1.cells[c].row.len(), 1);
    assert_eq!(s1.cells[c].row_holder(), Some(0));
    p.check_conservation(&s1);
    // Blue may not build there...
    let mut q = Pos {
        rules: rules(),
        s: s1.clone(),
    };
    let err = q.apply(1, "place E,W at E9").unwrap_err();
    assert!(err.problem.contains("right-of-way"), "{err}");
    assert!(err.accepted.contains("e.g."), "{err}");
    // ...but may buy it for one discarded tile plus one face-down, then build on it.
    let s2 = q
        .apply(1, "purchase e9 using V paying C; lay NE SW on E9")
        .unwrap();
    assert!(s2.cells[c].row.is_empty(), "building clears the stack");
    assert_eq!(s2.cells[c].highway.map(|h| h.owner), Some(1));
    assert_eq!(
        s2.players[0].discards,
        s1.players[0].discards + 1,
        "red's face-down tile"
    );
    assert_eq!(
        s2.players[1].discards,
        s1.players[1].discards + 2,
        "the price and blue's own"
    );
    q.check_conservation(&s2);
    // A stack of two costs two discards; the last hand tile may not be used.
    q.s = s1;
    q.s.to_move = 1;
    q.s.players[1].hand = vec![q.kind("I"), q.kind("C")];
    let err = q
        .apply(1, "buy E9 with I paying C; place E,W at A5")
        .unwrap_err();
    assert!(err.problem.contains("last"), "{err}");
}

#[test]
fn legal_buy_entries_apply_as_written() {
    let mut p = Pos::new();
    p.hand(0, &["I", "C", "Y"]).hand(1, &["I"]);
    let legal = p.rules.legal_moves(&p.s, 0);
    let buys: Vec<_> = legal.iter().filter(|m| m.kind == "buy").collect();
    assert_eq!(buys.len(), 61, "every free city tile");
    for m in buys.iter().take(5) {
        let s = p
            .apply(0, &m.text)
            .unwrap_or_else(|e| panic!("{}: {e}", m.text));
        p.check_conservation(&s);
        assert_eq!(m.details["price"], 0);
    }
    assert_eq!(buys[0].text, "buy A5 with I; place E,NW at A7");
}

// ---- Refusals and the move language ----

#[test]
fn refusals_change_nothing_and_name_a_legal_move() {
    let mut p = Pos::new();
    p.dollar(&[CENTRE]);
    p.road(1, "A5", &[0, 3]);
    p.hand(0, &["I", "C", "Y"]).hand(1, &["I"]);
    let before = p.s.clone();
    let bad = [
        "fly to the moon",
        "place E,W at A5",
        "place E,W at Z99",
        "place E,NE,NW at E9",
        "place E,W",
        "buy E7 with I; place E,NE,NW at E9",
        "buy E7 with H; place E,W at E9",
        "place E,W at E9; place E,W at E7",
        "buy E7 with I",
        "place E,W at E7; discard C",
        "pass",
        "city E7",
        "buy E9 with Q; place E,W at E7",
        "buy A5 with I; place E,W at E7",
        "buy E7 E9 with I; place E,W at E7",
        "buy E7 with I; buy E11 with C; place E,W at E9",
    ];
    for text in bad {
        let err = match p.rules.parse_move(&p.s, 0, text) {
            Err(e) => e,
            Ok(mv) => p
                .rules
                .apply(&p.s, 0, &mv, &mut DrawStream::for_testing(3))
                .expect_err(text),
        };
        assert_eq!(p.s, before, "{text} changed the state");
        assert!(
            !err.problem.is_empty() && !err.accepted.is_empty(),
            "{text}: {err:?}"
        );
        // Every example between backticks that looks like a full move must be legal.
        for example in err.accepted.split('`').skip(1).step_by(2) {
            let full = example.starts_with("place ") || example.starts_with("buy ");
            if full && !example.contains('<') {
                p.apply(0, example)
                    .unwrap_or_else(|e| panic!("{text}: example `{example}` refused: {e}"));
            }
        }
    }
    // All or nothing: a good purchase followed by a bad placement leaves no purchase.
    let err = p.apply(0, "buy E7 with I; place E,W at A5").unwrap_err();
    assert!(err.problem.contains("A5"), "{err}");
    assert_eq!(p.s, before);
}

#[test]
fn the_move_language_is_forgiving() {
    let mut p = Pos::new();
    p.hand(0, &["I", "FL", "Y"]).hand(1, &["I"]);
    let canonical = "place E,NE,W at E9";
    for text in [
        "place E,NE,W at E9",
        "PLACE e ne w ON e9",
        "build ENEW e9",
        "lay 0 1 3 at E9",
        "put 013 e9",
        "place FL rot 0 at E9",
        "place fl at e9 rotation 0",
        "  E, NE, W  E9 ",
    ] {
        let mv = p
            .rules
            .parse_move(&p.s, 0, text)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(p.rules.move_text(&mv), canonical, "{text}");
    }
    // Rotation: FL (E,NE,W) turned two steps is NW,W,E (edges 2,3,5 -> 2,3,5).
    let mv = p.rules.parse_move(&p.s, 0, "place FL rot 2 at E9").unwrap();
    assert_eq!(p.rules.move_text(&mv), "place NW,W,SE at E9");
    // Several actions on separate lines, synonyms, a purchase after the placement
    // (recorded first, as it changes nothing: R31).
    let mv = p
        .rules
        .parse_move(&p.s, 0, "Build E W at A5\nPurchase E9 with Y")
        .unwrap();
    assert_eq!(p.rules.move_text(&mv), "buy E9 with Y; place E,W at A5");
    let reparsed = p
        .rules
        .parse_move(&p.s, 0, &p.rules.move_text(&mv))
        .unwrap();
    assert_eq!(reparsed, mv);
    // An unknown word is named along with what would be accepted.
    let err = p.rules.parse_move(&p.s, 0, "teleport E9").unwrap_err();
    assert!(err.problem.contains("teleport"), "{err}");
    assert!(err.accepted.contains("place"), "{err}");
    assert!(matches!(
        p.rules.parse_move(&p.s, 0, "place I rot 1 at E9").unwrap(),
        Move::Turn(_)
    ));
}

#[test]
fn no_legal_placement_means_pass_and_all_passing_ends_the_game() {
    let mut p = Pos::new();
    p.hand(0, &["I", "C"]).hand(1, &["I", "C"]);
    // Fill every cell with blue highways except one held by blue's right-of-way.
    let labels: Vec<String> = (0..p.s.cells.len())
        .map(|i| p.rules.label(i as u16).to_string())
        .collect();
    for (i, l) in labels.iter().enumerate() {
        if i == 0 {
            continue;
        }
        let kind = p.kind("P");
        let c = p.cell(l) as usize;
        p.s.cells[c].highway = Some(Highway {
            owner: (i % 2) as u8,
            kind,
            edges: 0b11111,
        });
    }
    p.s.cells[0]
        .row
        .push(pbem::games::right_of_way::FaceDown { owner: 1, kind: 0 });
    let legal = p.rules.legal_moves(&p.s, 0);
    assert_eq!(legal.len(), 1);
    assert_eq!(legal[0].text, "pass");
    let s1 = p
        .rules
        .apply(&p.s, 0, &Move::Pass, &mut DrawStream::for_testing(1))
        .unwrap();
    assert_eq!(s1.to_move, 1);
    assert!(!s1.over);
    // Blue can still build on its right-of-way, so blue may not pass.
    let err = p
        .rules
        .apply(&s1, 1, &Move::Pass, &mut DrawStream::for_testing(1))
        .unwrap_err();
    assert!(err.problem.contains("pass"), "{err}");
    let mut s2 = s1.clone();
    s2.cells[0].row.clear();
    s2.cells[0].highway = Some(Highway {
        owner: 1,
        kind: 0,
        edges: 0b1001,
    });
    let s3 = p
        .rules
        .apply(&s2, 1, &Move::Pass, &mut DrawStream::for_testing(1))
        .unwrap();
    assert!(s3.over);
}

#[test]
fn pass_only_when_no_turn_can_place_a_tile() {
    // R22: "You must each place one highway tile each turn". Red can build nowhere
    // directly (E9 has a highway, C9 is blue's right-of-way), but three tiles in hand
    // buy blue's right-of-way (one discarded, one face-down) and leave one to build on
    // C9: that is a turn that places a tile, so red may not pass.
    let mut p = Pos::new();
    p.only(&["C9", CENTRE])
        .road(0, CENTRE, &[0, 3])
        .face_down(1, "C9", "V");
    p.hand(0, &["P", "I", "C"]).hand(1, &["I"]);
    let legal = p.rules.legal_moves(&p.s, 0);
    assert!(legal.iter().all(|m| m.kind != "pass"), "{legal:?}");
    assert!(
        legal
            .iter()
            .any(|m| m.kind == "buy" && m.details["cell"] == "C9" && m.text.ends_with("at C9")),
        "{legal:?}"
    );
    for m in &legal {
        let after = p
            .apply(0, &m.text)
            .unwrap_or_else(|e| panic!("`{}`: {e}", m.text));
        p.check_conservation(&after);
    }
    let err = p.apply(0, "pass").unwrap_err();
    assert!(err.problem.contains("pass"), "{err}");
    assert!(err.accepted.contains("buy C9"), "{err}");
    let after = p.apply(0, "buy C9; place P at C9").unwrap();
    assert_eq!(
        after.cells[p.cell("C9") as usize].highway.map(|h| h.owner),
        Some(0)
    );
    p.check_conservation(&after);
    assert_eq!(p.rules.deadline_move(&p.s, 0, Deadline::Skip), None);
    let example = p.rules.example_move(&p.s, 0).expect("an example");
    assert!(example.starts_with("buy C9"), "{example}");
    p.apply(0, &example).unwrap();
    for seed in 0..20 {
        let mv = p
            .rules
            .sample_move(&p.s, 0, &mut DrawStream::for_testing(seed))
            .expect("a move");
        assert_ne!(mv, Move::Pass);
        p.rules
            .apply(&p.s, 0, &mv, &mut DrawStream::for_testing(seed))
            .unwrap_or_else(|e| panic!("`{}`: {e}", p.rules.move_text(&mv)));
    }

    // With two tiles red cannot buy it ("You may not use last highway tile in your hand
    // to buy right-of-way"): now pass is the only move, everywhere.
    p.unhand(0, &["C"]);
    let legal = p.rules.legal_moves(&p.s, 0);
    assert_eq!(
        legal.iter().map(|m| m.text.as_str()).collect::<Vec<_>>(),
        vec!["pass"]
    );
    assert_eq!(
        p.rules.deadline_move(&p.s, 0, Deadline::Skip),
        Some(Move::Pass)
    );
    assert_eq!(p.rules.example_move(&p.s, 0).as_deref(), Some("pass"));
    assert_eq!(
        p.rules
            .sample_move(&p.s, 0, &mut DrawStream::for_testing(1)),
        Some(Move::Pass)
    );
    let after = p.apply(0, "pass").unwrap();
    // Blue can still build on its own right-of-way: the game goes on.
    assert!(!after.over && after.to_move == 1);
    assert!(p.apply(0, "buy C9; place E,W at C9").is_err());
}

#[test]
fn the_game_ends_when_nobody_can_place_a_tile_any_more() {
    // R20, R22: red builds on the last free city tile. Nobody can ever place a tile
    // again, so the game is over at once, without a round of passes.
    let mut p = Pos::new();
    p.only(&["A5", "A7"]).road(1, "A7", &[0, 3]);
    p.hand(0, &["I", "C"]).hand(1, &["I", "C", "Y"]);
    let s = p.apply(0, "place E,W at A5").unwrap();
    assert!(s.over, "{s:?}");
    assert!(p.rules.to_move(&s).is_empty());
    assert_eq!(s.ended_by, None, "nobody used up the tiles");
    assert_eq!(p.rules.winners(&s), vec![0, 1]);

    // The game goes on while someone can still build: here red's own right-of-way on
    // A9. Blue cannot afford it (one tile), so blue passes; red builds there; then the
    // game is over.
    let mut p = Pos::new();
    p.only(&["A5", "A7", "A9"])
        .road(1, "A7", &[0, 3])
        .face_down(0, "A9", "V");
    p.hand(0, &["I", "I"]).hand(1, &["I"]);
    let s1 = p.apply(0, "place E,W at A5").unwrap();
    assert!(!s1.over && s1.to_move == 1);
    let legal: Vec<String> = p
        .rules
        .legal_moves(&s1, 1)
        .into_iter()
        .map(|m| m.text)
        .collect();
    assert_eq!(legal, vec!["pass"]);
    let q = Pos {
        rules: rules(),
        s: s1,
    };
    let s2 = q.apply(1, "pass").unwrap();
    assert!(!s2.over && s2.to_move == 0);
    let q = Pos {
        rules: rules(),
        s: s2,
    };
    let s3 = q.apply(0, "place E,W at A9").unwrap();
    assert!(s3.over);
    q.check_conservation(&s3);
    // Red's A5 and A9 meet blue's A7 on both sides: 2 points for A7, none for the ends.
    assert_eq!(q.rules.scores(&s3), vec![0, 2]);
}

#[test]
fn the_game_ends_one_turn_after_a_player_runs_out() {
    let mut p = Pos::new();
    p.hand(0, &["I"]).hand(1, &["I", "C"]);
    p.s.players[0].discards = p.s.players[0].stack.len() as u32;
    p.s.players[0].stack.clear();
    let s1 = p.apply(0, "place E,W at E7").unwrap();
    assert_eq!(s1.ended_by, Some(0));
    assert!(!s1.over && s1.to_move == 1);
    let q = Pos {
        rules: rules(),
        s: s1,
    };
    let s2 = q.apply(1, "place E,W at A5").unwrap();
    assert!(s2.over);
    assert!(q.rules.to_move(&s2).is_empty());
    assert_eq!(q.rules.winners(&s2), vec![0, 1], "no points: a shared win");
}

// ---- Setups and options ----

#[test]
fn data_and_options() {
    let r = rules();
    assert_eq!(r.tiles_per_player(), 54);
    assert_eq!(r.kinds().len(), 12);
    let canon: std::collections::BTreeSet<u8> = r
        .kinds()
        .iter()
        .map(|k| pbem::grid::hex::canonical_mask(k.mask))
        .collect();
    assert_eq!(
        canon.len(),
        12,
        "twelve rotation classes, eleven patterns up to mirroring"
    );
    assert_eq!(
        r.options().get("setup").map(String::as_str),
        Some("hexagon")
    );
    let err = RightOfWay::from_data(
        RightOfWay::DEFAULT_DATA,
        &[("colour".to_string(), "red".to_string())].into(),
    )
    .unwrap_err();
    assert!(err.problem.contains("colour") && err.accepted.contains("setup"));
    let m = rules_with(&[("setup", "map")]);
    let s = m.setup(&names(), &mut DrawStream::for_testing(1)).unwrap();
    assert_eq!(s.cells.iter().filter(|c| c.city != City::Empty).count(), 61);
    assert_eq!(
        s.cells.iter().filter(|c| c.city == City::Dollar).count(),
        31
    );
    let board = m.board(
        &s,
        &BoardContext {
            viewer: Viewer::Public,
            names: &names(),
            turn: 0,
            last_move: None,
        },
    );
    assert_fits(&board);
    assert!(
        board.contains("F11"),
        "the map centre is labelled:\n{board}"
    );
    let d = rules_with(&[("setup", "hexagon"), ("centre", "dollar")]);
    let s = d.setup(&names(), &mut DrawStream::for_testing(1)).unwrap();
    assert_eq!(
        s.cells[d.cell_index(CENTRE).unwrap() as usize].city,
        City::Dollar
    );
    assert_eq!(
        s.cells.iter().filter(|c| c.city == City::Dollar).count(),
        31
    );
}

#[test]
fn the_draft_builds_the_city_tile_by_tile() {
    let r = rules_with(&[("setup", "draft")]);
    let mut chance = DrawStream::for_testing(5);
    let mut s = r.setup(&names(), &mut chance).unwrap();
    assert!(s.setup);
    assert_eq!(s.cells.iter().filter(|c| c.city != City::Empty).count(), 1);
    let view = r.view(&s, Viewer::Public, &names());
    assert_eq!(view.fields["setup"], true);
    let legal = r.legal_moves(&s, 0);
    assert_eq!(legal.len(), 6);
    assert!(legal.iter().all(|m| m.kind == "city"));
    let err = r.parse_move(&s, 0, "city F11").unwrap_err();
    assert!(err.problem.contains("F11"), "{err}");
    let mut turns = 0;
    while s.setup {
        let seat = s.to_move as usize;
        assert_eq!(seat, turns % 2, "seat 0 first, then in turn");
        let mv = r.sample_move(&s, seat, &mut chance).unwrap();
        s = r.apply(&s, seat, &mv, &mut chance).unwrap();
        turns += 1;
    }
    assert_eq!(turns, 60);
    assert_eq!(s.cells.iter().filter(|c| c.city != City::Empty).count(), 61);
    assert_eq!(
        s.cells.iter().filter(|c| c.city == City::Dollar).count(),
        31
    );
    assert!(s.players.iter().all(|p| p.hand.len() == 5));
}

// ---- Random whole games ----

/// Independent cost and profit from the public view's board, for cross-checking.
fn independent_cost_profit(r: &RightOfWay, s: &State, cell: u16, edges: &[u8]) -> (i64, i64) {
    let here = r.hex(cell);
    let at = |h: Hex| r.hex_index(h).map(|i| &s.cells[i as usize]);
    let cost = if s.cells[cell as usize].city == City::Dollar {
        edges.len() as i64
    } else {
        0
    };
    let mut profit = 0;
    for &e in edges {
        let (dq, dr) = DIRS[e as usize];
        if let Some(n) = at(Hex::new(here.q + dq, here.r + dr)) {
            profit += i64::from(n.city == City::Dollar);
            profit += i64::from(
                n.highway
                    .is_some_and(|h| h.edges & (1 << opposite(e as usize)) != 0),
            );
        }
    }
    (cost, profit)
}

fn play_game(r: &RightOfWay, seed: u64, check_legal_every: usize) -> State {
    let mut chance = DrawStream::for_testing(seed);
    let mut s = r.setup(&names(), &mut chance).unwrap();
    let mut moves = 0;
    while !r.is_over(&s) {
        let seat = r.to_move(&s)[0];
        if check_legal_every > 0 && moves % check_legal_every == 3 && !s.setup {
            check_legal(r, &s, seat, &mut chance);
        }
        let mv = r
            .sample_move(&s, seat, &mut chance)
            .expect("a move while not over");
        let next = r
            .apply(&s, seat, &mv, &mut chance)
            .unwrap_or_else(|e| panic!("sampled `{}` refused: {e}", r.move_text(&mv)));
        if !next.setup {
            for p in 0..2 {
                assert_eq!(next.tiles_of(p), 54, "tile conservation, seat {p}");
            }
        }
        let json = serde_json::to_string(&next).unwrap();
        let back: State = serde_json::from_str(&json).unwrap();
        assert_eq!(back, next, "serde round trip");
        s = next;
        moves += 1;
        assert!(moves < 1000, "the game must end");
    }
    let scores = r.scores(&s);
    let best = *scores.iter().max().unwrap();
    let winners = r.winners(&s);
    assert!(!winners.is_empty());
    assert!(winners.iter().all(|&w| scores[w] == best));
    assert!((0..2).all(|p| winners.contains(&p) || scores[p] < best));
    s
}

fn check_legal(r: &RightOfWay, s: &State, seat: usize, chance: &mut dyn Chance) {
    let legal = r.legal_moves(s, seat);
    assert!(!legal.is_empty());
    // A sample of entries (all of them is slow in debug builds): every one must parse and
    // apply as written, with the cost and profit it announces.
    let step = 1 + legal.len() / 40;
    let offset = chance.draw(step as u32, Visibility::Public) as usize;
    for m in legal.iter().skip(offset).step_by(step) {
        let mv = r
            .parse_move(s, seat, &m.text)
            .unwrap_or_else(|e| panic!("`{}`: {e}", m.text));
        let after = r
            .apply(s, seat, &mv, &mut DrawStream::for_testing(11))
            .unwrap_or_else(|e| panic!("`{}`: {e}", m.text));
        assert_eq!(r.move_text(&mv), m.text, "listed texts are canonical");
        if m.kind != "place" {
            continue;
        }
        let cell = r.cell_index(m.details["cell"].as_str().unwrap()).unwrap();
        let edges: Vec<u8> = m.details["edges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e.as_u64().unwrap() as u8)
            .collect();
        let (cost, profit) = independent_cost_profit(r, s, cell, &edges);
        assert_eq!(
            (
                m.details["cost"].as_i64().unwrap(),
                m.details["profit"].as_i64().unwrap()
            ),
            (cost, profit),
            "{}",
            m.text
        );
        let net = profit - cost;
        let (p0, p1) = (&s.players[seat], &after.players[seat]);
        if net > 0 {
            let drawn = (net as usize).min(p0.stack.len());
            assert_eq!(p1.stack.len(), p0.stack.len() - drawn, "{}", m.text);
        } else if net < 0 && p0.hand.len() > (-net) as usize {
            let under = s.cells[cell as usize]
                .row
                .iter()
                .filter(|t| t.owner as usize == seat)
                .count();
            assert_eq!(
                p1.discards,
                p0.discards + (-net) as u32 + under as u32,
                "{}",
                m.text
            );
            let left = p0.hand.len() - 1 - (-net) as usize;
            // An empty hand draws one tile at the end of the turn.
            let refill = usize::from(left == 0 && !p0.stack.is_empty());
            assert_eq!(p1.hand.len(), left + refill, "{}", m.text);
        }
    }
}

/// R22, worked out here without the rules code: a turn that places a tile exists when
/// the hand holds a tile and some city tile without a highway is free, is `seat`'s
/// right-of-way, or is another player's that `seat` can buy: one discard per tile in
/// the stack and one face-down, keeping a tile to place (R12, R13).
fn placing_turn_exists(s: &State, seat: usize) -> bool {
    (0..s.cells.len()).any(|i| reachable(s, seat, i))
}

fn reachable(s: &State, seat: usize, cell: usize) -> bool {
    let hand = s.players[seat].hand.len();
    let c = &s.cells[cell];
    hand > 0
        && c.city != City::Empty
        && c.highway.is_none()
        && c.row
            .last()
            .is_none_or(|t| t.owner as usize == seat || hand >= c.row.len() + 2)
}

/// R15, worked out here: every placement `seat` can make this turn loses.
fn every_placement_loses(r: &RightOfWay, s: &State, seat: usize) -> bool {
    let hand = &s.players[seat].hand;
    (0..s.cells.len()).all(|cell| {
        !reachable(s, seat, cell)
            || hand.iter().all(|&k| {
                (0..6).all(|rot| {
                    let mask = rotate_mask(r.kinds()[k as usize].mask, rot);
                    let edges: Vec<u8> = (0..6).filter(|e| mask & (1 << e) != 0).collect();
                    let (cost, profit) = independent_cost_profit(r, s, cell as u16, &edges);
                    profit < cost
                })
            })
    })
}

/// A whole random game, checking at every step that `legal`, `apply`, `example_move`,
/// `deadline_move` and `sample_move` agree on passing (R22), that placed and face-down
/// tiles pay only forced losses (R15), and that the game ends by R20.
fn play_checking_every_step(r: &RightOfWay, seed: u64) {
    let mut chance = DrawStream::for_testing(seed);
    let mut picks = DrawStream::for_testing(seed ^ 0x5eed);
    let mut s = r.setup(&names(), &mut chance).unwrap();
    let mut moves = 0;
    while !r.is_over(&s) {
        let seat = r.to_move(&s)[0];
        let can = placing_turn_exists(&s, seat);
        if !s.setup {
            assert!(
                (0..2).any(|p| placing_turn_exists(&s, p)),
                "nobody can place a tile, so the game should be over"
            );
            let legal = r.legal_moves(&s, seat);
            assert!(
                !legal.is_empty(),
                "no legal move while the game is not over"
            );
            let listed = legal.iter().any(|m| m.text == "pass");
            let accepted = r
                .apply(&s, seat, &Move::Pass, &mut DrawStream::for_testing(1))
                .is_ok();
            assert_eq!(listed, !can, "pass listed: {legal:?}");
            assert_eq!(accepted, !can, "pass accepted");
            assert!(
                !listed || legal.len() == 1,
                "pass is the only move: {legal:?}"
            );
            assert_eq!(
                r.deadline_move(&s, seat, Deadline::Skip) == Some(Move::Pass),
                !can
            );
            let example = r.example_move(&s, seat).expect("an example");
            assert_eq!(example == "pass", !can, "{example}");
            let random = picks.draw(legal.len() as u32, Visibility::Public) as usize;
            let texts = [example.as_str(), &legal[0].text, &legal[random].text];
            for text in texts {
                let mv = r
                    .parse_move(&s, seat, text)
                    .unwrap_or_else(|e| panic!("`{text}`: {e}"));
                r.apply(&s, seat, &mv, &mut DrawStream::for_testing(11))
                    .unwrap_or_else(|e| panic!("`{text}`: {e}"));
            }
        }
        let mv = r
            .sample_move(&s, seat, &mut chance)
            .expect("a move while not over");
        if !s.setup {
            assert_eq!(mv == Move::Pass, !can, "{}", r.move_text(&mv));
        }
        let next = r
            .apply(&s, seat, &mv, &mut chance)
            .unwrap_or_else(|e| panic!("sampled `{}` refused: {e}", r.move_text(&mv)));
        // The canonical text names every discard, defaults included.
        let text = r
            .parse_move(&s, seat, &r.move_text(&mv))
            .map(|m| r.move_text(&m))
            .unwrap_or_else(|e| panic!("`{}`: {e}", r.move_text(&mv)));
        let board_paid = text
            .split("discard")
            .nth(1)
            .is_some_and(|d| d.contains("placed") || d.contains("row"));
        if board_paid {
            assert!(every_placement_loses(r, &s, seat), "{text}");
            assert!(
                next.players[seat].hand.len() <= 1,
                "the hand went first: {text}"
            );
        }
        if !next.setup {
            for p in 0..2 {
                assert_eq!(
                    next.tiles_of(p),
                    r.tiles_per_player(),
                    "tile conservation, seat {p}"
                );
            }
        }
        s = next;
        moves += 1;
        assert!(moves < 1000, "the game must end");
    }
    // R20: a player used up stack and hand and the others had their final turn, or
    // nobody can place a tile any more.
    let used_up = s.ended_by.is_some() && s.final_turns == 0;
    let frozen = (0..2).all(|p| !placing_turn_exists(&s, p));
    assert!(s.resigned.is_none() && (used_up || frozen), "{s:?}");
}

/// Rules data for games that reach the ends and losses the standard game rarely does:
/// `few` tiles per player (one of each kind) run out before the city fills; a city of
/// one row of seven $ tiles, where a road leaving the row earns nothing, makes most
/// placements lose, so hands run short and placed tiles pay (R15).
fn rules_for_ends(few: bool) -> RightOfWay {
    let mut data = RightOfWay::DEFAULT_DATA.to_string();
    let mut options = Options::new();
    if few {
        for n in 2..=7 {
            data = data.replace(&format!("count = {n}"), "count = 1");
        }
    } else {
        data.push_str(
            "\n[maps.street]\nradius = 3\nrows = [\"- - - -\", \"- - - - -\", \"- - - - - -\", \
             \"$ $ $ $ $ $ $\", \"- - - - - -\", \"- - - - -\", \"- - - -\"]\n",
        );
        options.insert("setup".into(), "map".into());
        options.insert("map".into(), "street".into());
    }
    RightOfWay::from_data(&data, &options).expect("valid rules data")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn random_games_keep_the_invariants(seed in any::<u64>()) {
        play_game(&rules(), seed, 0);
    }

    #[test]
    fn legal_moves_apply_as_listed(seed in any::<u64>()) {
        play_game(&rules(), seed, 25);
    }

    #[test]
    fn every_step_agrees_on_passing_and_ends_by_the_rules(seed in any::<u64>()) {
        play_checking_every_step(&rules(), seed);
    }

    #[test]
    fn games_that_run_out_or_lose_often_agree_too(seed in any::<u64>()) {
        play_checking_every_step(&rules_for_ends(true), seed);
        play_checking_every_step(&rules_for_ends(false), seed);
    }

    #[test]
    fn draft_and_map_games_end(seed in any::<u64>()) {
        play_game(&rules_with(&[("setup", "draft")]), seed, 0);
        play_game(&rules_with(&[("setup", "map")]), seed, 0);
    }
}

// ---- Boards ----

fn assert_fits(board: &str) {
    for line in board.lines() {
        assert!(line.chars().count() <= 78, "too wide: {line:?}");
        assert_eq!(line, line.trim_end(), "trailing spaces");
    }
}

#[test]
fn board_opening() {
    let r = rules();
    let s = r
        .setup(&names(), &mut DrawStream::for_testing(2026))
        .unwrap();
    let board = r.board(
        &s,
        &BoardContext {
            viewer: Viewer::Player(0),
            names: &names(),
            turn: 0,
            last_move: None,
        },
    );
    assert_fits(&board);
    insta::assert_snapshot!(board);
}

#[test]
fn board_mid_game_with_right_of_way() {
    let r = rules();
    let mut chance = DrawStream::for_testing(8);
    let mut s = r.setup(&names(), &mut chance).unwrap();
    for _ in 0..30 {
        let seat = s.to_move as usize;
        let mv = r.sample_move(&s, seat, &mut chance).unwrap();
        s = r.apply(&s, seat, &mv, &mut chance).unwrap();
    }
    // Make sure stacks of height one and two are on the board.
    let free: Vec<u16> = (0..s.cells.len() as u16)
        .filter(|&i| {
            let c = &s.cells[i as usize];
            c.highway.is_none() && c.row.is_empty()
        })
        .collect();
    let a = free[0];
    let b = free[free.len() - 1];
    for (cell, owner) in [(a, 0u8), (b, 1), (b, 0)] {
        let kind = s.players[owner as usize].stack.pop().unwrap();
        s.cells[cell as usize]
            .row
            .push(pbem::games::right_of_way::FaceDown { owner, kind });
    }
    let board = r.board(
        &s,
        &BoardContext {
            viewer: Viewer::Public,
            names: &names(),
            turn: 0,
            last_move: None,
        },
    );
    assert_fits(&board);
    assert!(board.contains("[1A]") && board.contains("[2A]"), "{board}");
    insta::assert_snapshot!(board);
    let context = BoardContext {
        viewer: Viewer::Public,
        names: &names(),
        turn: 0,
        last_move: None,
    };
    let picture = r.board_svg(&s, &context);
    let texts = picture_texts(&picture);
    // The stacks' badges: height first, then the top tile's letter, as in the text.
    assert!(
        texts.iter().any(|t| t == "1A") && texts.iter().any(|t| t == "2A"),
        "{texts:?}"
    );
    insta::assert_snapshot!("board_picture_mid_game_with_right_of_way", picture);
    let view = r.view(&s, Viewer::Public, &names());
    let cells = view.fields["board"].as_array().unwrap();
    assert_eq!(cells.len(), 61);
    let stacked = cells.iter().find(|c| c["label"] == r.label(b)).unwrap();
    assert_eq!(stacked["right_of_way"], serde_json::json!(["blue", "red"]));
    assert!(view.players[0]["hand"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["edges"].is_array() && t["tile"].is_string()));
}

#[test]
fn board_draft_in_progress() {
    let r = rules_with(&[("setup", "draft")]);
    let mut chance = DrawStream::for_testing(3);
    let mut s = r.setup(&names(), &mut chance).unwrap();
    for _ in 0..20 {
        let seat = s.to_move as usize;
        let mv = r.sample_move(&s, seat, &mut chance).unwrap();
        s = r.apply(&s, seat, &mv, &mut chance).unwrap();
    }
    let board = r.board(
        &s,
        &BoardContext {
            viewer: Viewer::Public,
            names: &names(),
            turn: 0,
            last_move: None,
        },
    );
    assert_fits(&board);
    insta::assert_snapshot!(board);
    let picture = r.board_svg(
        &s,
        &BoardContext {
            viewer: Viewer::Public,
            names: &names(),
            turn: 0,
            last_move: None,
        },
    );
    // The cells where a city tile may go are marked, as the text marks them with +.
    let spots: usize = board
        .lines()
        .filter(|line| !line.contains("+ cell"))
        .map(|line| line.matches('+').count())
        .sum();
    assert!(spots > 0);
    assert_eq!(
        picture_texts(&picture).iter().filter(|t| *t == "+").count(),
        spots
    );
    insta::assert_snapshot!("board_picture_draft_in_progress", picture);
}

/// Every position of random games, for every viewer: the picture tells the lines
/// under the ASCII board word for word, draws a highway (its owner's letter) on
/// every cell that has one and a badge on every stack, and marks the last move.
#[test]
fn the_picture_tells_what_the_ascii_board_tells() {
    let r = rules();
    let mut chance = DrawStream::for_testing(41);
    let mut s = r.setup(&names(), &mut chance).unwrap();
    let mut last_move = None;
    for turn in 0..40u64 {
        for viewer in [Viewer::Public, Viewer::Player(0), Viewer::Player(1)] {
            let context = BoardContext {
                viewer,
                names: &names(),
                turn,
                last_move: last_move.clone(),
            };
            let board = r.board(&s, &context);
            let picture = r.board_svg(&s, &context);
            let texts = picture_texts(&picture);
            let footer = board
                .lines()
                .skip_while(|line| !line.trim_start().starts_with("1 "))
                .skip(1)
                .skip_while(|line| !line.trim_start().starts_with("1 "))
                .skip(1)
                .filter(|line| !line.trim().is_empty());
            for line in footer {
                assert!(texts.iter().any(|t| t == line), "{line:?} not in {texts:?}");
            }
            let highways = s.cells.iter().filter(|c| c.highway.is_some()).count();
            let letters = texts.iter().filter(|t| *t == "A" || *t == "B").count();
            // Row letters A and B stand on both sides of the board besides.
            assert_eq!(letters, highways + 4, "turn {turn}");
            let stacks = s.cells.iter().filter(|c| !c.row.is_empty()).count();
            let badges = texts
                .iter()
                .filter(|t| {
                    t.len() >= 2
                        && t.ends_with(['A', 'B'])
                        && t[..t.len() - 1].parse::<u32>().is_ok()
                })
                .count();
            assert_eq!(badges, stacks, "turn {turn}");
            assert_eq!(
                picture.contains("stroke-dasharray"),
                board.contains("(*)"),
                "turn {turn}"
            );
        }
        if s.over {
            break;
        }
        let seat = s.to_move as usize;
        let mv = r.sample_move(&s, seat, &mut chance).unwrap();
        let text = r.move_text(&mv);
        s = r.apply(&s, seat, &mv, &mut chance).unwrap();
        last_move = Some(pbem::engine::LastMove {
            seat,
            text: Some(text),
        });
    }
}

#[test]
fn a_default_purchase_keeps_the_tile_the_placement_needs() {
    let mut p = Pos::new();
    p.hand(0, &["I", "C", "H"]).hand(1, &["I"]);
    let mv = p
        .rules
        .parse_move(&p.s, 0, "buy E7; place E,W at E9")
        .unwrap();
    assert_eq!(p.rules.move_text(&mv), "buy E7 with C; place E,W at E9");
    let mv = p
        .rules
        .parse_move(&p.s, 0, "place E,W at E9; buy E7")
        .unwrap();
    // The same turn with the purchase written after: the same tiles go, so it is
    // recorded as the purchase first (R31).
    assert_eq!(p.rules.move_text(&mv), "buy E7 with C; place E,W at E9");
}

/// A game file made under revision 1 of the rules (no `revision` in its rules data) is
/// refused with a way forward, never replayed under rules it was not played by.
#[test]
fn a_game_of_an_earlier_rules_revision_is_refused_with_a_way_forward() {
    let data = RightOfWay::DEFAULT_DATA;
    assert!(data.contains("\nrevision = 2\n"));
    let earlier = data.replace("\nrevision = 2\n", "\n");
    let Err(error) = RightOfWay::from_data(&earlier, &Options::new()) else {
        panic!("revision 1 must be refused");
    };
    assert!(error.problem.contains("revision 1"), "{error}");
    assert!(error.accepted.contains("pbem that started it"), "{error}");
}

// ---- One move, one record (R31) ----

/// The canonical text of `text` for `seat`, and the state it leaves.
fn recorded_as(p: &Pos, seat: usize, text: &str) -> (String, State) {
    let mv = p
        .rules
        .parse_move(&p.s, seat, text)
        .unwrap_or_else(|e| panic!("{text}: {e}"));
    let canonical = p.rules.move_text(&mv);
    let again = p
        .rules
        .parse_move(&p.s, seat, &canonical)
        .expect("reads back");
    assert_eq!(p.rules.move_text(&again), canonical, "{text}");
    let after = p
        .rules
        .apply(&p.s, seat, &again, &mut DrawStream::for_testing(5))
        .unwrap_or_else(|e| panic!("{canonical} (from {text}): {e}"));
    (canonical, after)
}

/// Spellings of one turn that differ only in the order of tiles given up together
/// (a loss's discards, a stack's price) or of a purchase elsewhere and the placement
/// have one canonical text: the draws are keyed on it.
#[test]
fn spellings_of_one_turn_have_one_canonical_text() {
    // A loss of $2 the hand pays: the tiles named, in either order.
    let mut p = Pos::new();
    p.dollar(&[CENTRE]).only(&[CENTRE, "A5"]);
    p.hand(0, &["I", "C", "V", "Y"]).hand(1, &["I"]);
    let (first, after) = recorded_as(&p, 0, "place E,W at E9; discard C,V");
    assert!(first.ends_with("discard C,V"), "{first}");
    let (second, again) = recorded_as(&p, 0, "place E,W at E9; discard V,C");
    assert_eq!(second, first);
    assert!(again == after, "the same position");
    // A stack of two bought: its price, in either order.
    let mut p = Pos::new();
    p.face_down(1, CENTRE, "I").face_down(1, CENTRE, "C");
    p.hand(0, &["I", "C", "V", "Y", "X"]).hand(1, &["I"]);
    let (first, after) = recorded_as(&p, 0, "buy E9 with X paying C,V; place E,W at E9");
    let (second, again) = recorded_as(&p, 0, "buy E9 with X paying V,C; place E,W at E9");
    assert_eq!(second, first);
    assert!(again == after, "the same position");
    // A purchase elsewhere, before or after a placement that draws nothing.
    let mut p = Pos::new();
    p.hand(0, &["I", "C", "Y", "X"]).hand(1, &["I"]);
    let (first, after) = recorded_as(&p, 0, "buy E9 with C; place E,W at A5");
    assert_eq!(first, "buy E9 with C; place E,W at A5");
    let (second, again) = recorded_as(&p, 0, "place E,W at A5; buy E9 with C");
    assert_eq!(second, first);
    assert!(again == after, "the same position");
    // After a placement that draws ($3 here): a purchase that names its tile moves
    // first all the same; one left to the defaults, which choose among the tiles
    // drawn, stays where it was written.
    let mut p = Pos::new();
    let (e, w, ne) = (
        p.next_to(CENTRE, 0),
        p.next_to(CENTRE, 3),
        p.next_to(CENTRE, 1),
    );
    p.dollar(&[&ne]);
    p.road(1, &e, &[3, 4]).road(0, &w, &[0, 1]);
    p.hand(0, &["FL", "I", "C"]).hand(1, &["I"]);
    let (named, _) = recorded_as(&p, 0, "place E,NE,W at E9; buy A5 with C");
    assert_eq!(named, "buy A5 with C; place E,NE,W at E9");
    let (default, _) = recorded_as(&p, 0, "place E,NE,W at E9; buy A5");
    assert_eq!(default, "place E,NE,W at E9; buy A5");
}

/// A purchase written before or after the placement (R31), applied through `pbem
/// apply` to the same position of two games with the same seed: one canonical text
/// in both records, and so the same draws.
#[test]
fn a_purchase_before_or_after_the_placement_is_recorded_and_drawn_alike() {
    // The first purchase, of a few seeds' openings, whose turn draws and may be
    // written in either order (a placement that discards may leave too few tiles to
    // buy after it).
    let found = ["ab", "cd", "ef", "12"].into_iter().find_map(|byte| {
        let seed = byte.repeat(32);
        let table = crate::support::Table::new();
        table.new_game(&seed);
        let mover = crate::support::to_move(&table.view());
        let listed = table.legal(&mover);
        let purchases = listed
            .iter()
            .filter(|e| e["kind"] == "buy")
            .filter_map(|e| e["move"].as_str())
            .take(12);
        let bytes = std::fs::read(table.file()).expect("read");
        purchases
            .into_iter()
            .find(|turn| {
                std::fs::write(table.file(), &bytes).expect("write");
                let draws = table.apply(&mover, turn).0
                    && !table.last_record()["draws"]
                        .as_array()
                        .expect("draws")
                        .is_empty();
                std::fs::write(table.file(), &bytes).expect("write");
                let reversed = turn
                    .split_once("; ")
                    .is_some_and(|(buy, place)| table.apply(&mover, &format!("{place}; {buy}")).0);
                draws && reversed
            })
            .map(|turn| (seed.clone(), mover.clone(), turn.to_string()))
    });
    let (seed, mover, turn) = found.expect("a seed with a purchase that draws");
    let turn = turn.as_str();
    let tables = [crate::support::Table::new(), crate::support::Table::new()];
    for table in &tables {
        table.new_game(&seed);
    }
    let (purchase, placement) = turn.split_once("; ").expect("a purchase and a placement");
    let spellings = [turn.to_string(), format!("{placement}; {purchase}")];
    let records: Vec<_> = tables
        .iter()
        .zip(&spellings)
        .map(|(table, spelling)| table.apply_audited(&mover, spelling))
        .collect();
    assert_eq!(records[0]["move"], turn);
    assert_eq!(records[1]["move"], records[0]["move"]);
    assert!(!records[0]["draws"].as_array().expect("draws").is_empty());
    assert_eq!(records[1]["draws"], records[0]["draws"]);
}
