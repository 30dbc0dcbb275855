//! Right of Way's random whole games: every step agrees on passing, costs and
//! profits, and every game ends by the rules.

use super::*;

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
