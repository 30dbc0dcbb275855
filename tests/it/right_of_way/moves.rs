//! Right of Way's moves: purchases and stacks, refusals, the forgiving move language,
//! passing and the end of the game, the rules data and options, the draft, earlier
//! revisions, and one turn's spellings in its record.

use super::*;

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
