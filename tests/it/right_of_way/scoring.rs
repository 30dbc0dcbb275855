//! Right of Way's costs, profits, losses and points: who goes first, what a placement
//! costs and earns, who pays a loss and with what, and the victory points.

use super::*;

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
