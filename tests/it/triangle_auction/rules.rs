//! The triangle auction's rules through the library: random games keep every
//! invariant; bids, cards, placements, colours, forced moves and the boards.

use super::*;

#[test]
fn random_games_of_three_four_and_five_end_with_every_invariant() {
    for players in 3..=5 {
        for seed in 0..6 {
            random_game(players, seed * 7 + players as u64, &[]);
        }
    }
    // The variants too.
    for options in [
        [("passing", "yes"), ("unclaimed", "return")],
        [("dead_ends", "allowed"), ("track_cap", "none")],
    ] {
        for players in 3..=5 {
            random_game(players, 99 + players as u64, &options);
        }
    }
}

#[test]
fn outbidding_returns_the_chits_and_nobody_reinforces() {
    let (rules, state) = auction();
    let state = play(&rules, &state, 0, "bid 2 on A, 1 on B").expect("Ann bids");
    assert_eq!(state.players[0].hand, 1);
    assert_eq!(state.phase, Phase::Bidding { seat: 1 });
    // Not more than one holds, not equal chits, not on your own tile.
    let error = play(&rules, &state, 1, "bid 5 on C").expect_err("Bob holds 4");
    assert!(error.contains("needs 5 chits and you hold 4"), "{error}");
    let error = play(&rules, &state, 1, "bid 2 on A").expect_err("a tie is no outbid");
    assert!(error.contains("at least 3 chits on A"), "{error}");
    let state = play(&rules, &state, 1, "bid 3 on A").expect("Bob outbids");
    assert_eq!(state.offer[0].bid, Some(Bid { seat: 1, chits: 3 }));
    assert_eq!(state.players[0].hand, 3, "Ann's 2 chits came back");
    let state = play(&rules, &state, 2, "pass").map_or_else(
        |error| {
            assert!(error.contains("must bid"), "{error}");
            play(&rules, &state, 2, "bid 1 on C").expect("Cid bids")
        },
        |_| panic!("a player who can claim may not pass by default"),
    );
    let error = play(&rules, &state, 0, "bid 1 on B").expect_err("no reinforcing");
    assert!(error.contains("may not be reinforced"), "{error}");
    // With passing allowed, the same pass is fine.
    let (loose, start) = {
        let (_, state) = auction();
        (rules_with(&[("passing", "yes")]), state)
    };
    assert!(play(&loose, &start, 0, "pass").is_ok());
}

#[test]
fn the_card_opens_on_its_owners_first_bidding_turn() {
    let rules = rules_with(&[]);
    let mut state = rules
        .setup(&names(3), &mut DrawStream::for_testing(5))
        .expect("setup");
    for (seat, card) in [(0, 3), (1, 0), (2, 5)] {
        assert!(rules.is_sealed(&state, seat));
        state = play(&rules, &state, seat, &format!("card {card}")).expect("a card");
    }
    let Phase::Bidding { seat } = state.phase else {
        panic!("the auction follows the cards")
    };
    let seat = usize::from(seat);
    assert!(!rules.is_sealed(&state, seat));
    let mv = rules.parse_move(&state, seat, "pass").expect("a move");
    assert_eq!(rules.opens(&state, seat, &mv), vec![seat]);
    // Until then the public view does not tell the card.
    let public = rules.view(&rules.public_state(&state), Viewer::Public, &names(3));
    for entry in &public.players {
        assert!(entry.get("card").is_none());
        assert_eq!(entry["revealed_card"], Value::Null);
    }
    let own = rules.view(&state, Viewer::Player(2), &names(3));
    assert_eq!(own.players[2]["card"], 5);
    assert!(own.players[0].get("card").is_none());
}

#[test]
fn placements_must_join_the_road_and_match_colours() {
    let rules = rules_with(&[]);
    let mut state = rules
        .setup(&names(3), &mut DrawStream::for_testing(9))
        .expect("setup");
    // Ann won the first three tiles of the offer.
    state.phase = Phase::Placing;
    state.players[0].won = vec![0, 1, 2];
    let legal = rules.legal_moves(&state, 0);
    assert!(!legal.is_empty());
    // Every listed step is a move apply accepts as it stands.
    for entry in legal.iter().step_by(37) {
        play(&rules, &state, 0, &entry.text).unwrap_or_else(|e| panic!("{}: {e}", entry.text));
    }
    // In the open area (the default) the first tile goes on its middle space.
    let error = play(&rules, &state, 0, "place A at E5 r0").expect_err("off the start");
    assert!(error.contains("a first tile goes on AO41"), "{error}");
    let firsts: Vec<&str> = legal
        .iter()
        .filter(|e| e.kind == "place")
        .map(|e| e.text.as_str())
        .collect();
    assert!(!firsts.is_empty());
    assert!(
        firsts.iter().all(|text| text.contains(" at AO41 ")),
        "{firsts:?}"
    );
    let first = play(&rules, &state, 0, "place A at ao41 r0").expect("the first tile");
    // A tile that does not touch the road is refused, and nothing changes.
    let error = play(&rules, &first, 0, "place B at I1 r0").expect_err("not joined");
    assert!(error.contains("would not join your road"), "{error}");
    // A tile that fits nowhere may be discarded, one that fits may not.
    let steps = rules.legal_moves(&first, 0);
    let placeable = steps
        .iter()
        .find(|e| e.kind == "place")
        .expect("a placement");
    let tile = placeable.details["tile"].as_str().expect("tile");
    let error = play(&rules, &first, 0, &format!("discard {tile}")).expect_err("placeable");
    assert!(error.contains("may not be discarded"), "{error}");
    // Past a deadline: card 0, the cheapest claim, every tile where it first fits.
    let (_, auction_state) = auction();
    let cards = rules
        .setup(&names(3), &mut DrawStream::for_testing(2))
        .expect("setup");
    assert_eq!(
        rules.deadline_move(&cards, 1, pbem::engine::Deadline::Skip),
        Some(Move::Card(0))
    );
    assert_eq!(
        rules.deadline_move(&auction_state, 0, pbem::engine::Deadline::Skip),
        Some(Move::Bid(vec![(0, 1)]))
    );
    assert_eq!(
        rules.deadline_move(&auction_state, 0, pbem::engine::Deadline::Forfeit),
        None
    );
    // The whole turn at once, in the canonical form.
    let fallback = rules
        .deadline_move(&state, 0, pbem::engine::Deadline::Skip)
        .expect("the referee can place for a player");
    let Move::Place(steps) = &fallback else {
        panic!("a placing move")
    };
    assert_eq!(steps.len(), 3);
    let done = rules
        .apply(&state, 0, &fallback, &mut DrawStream::for_testing(1))
        .expect("the fallback is legal");
    assert!(done.players[0].won.is_empty());
    assert!(matches!(steps[0], Step::Place { .. }));
}

/// T13: "each player scores points equal to the number of symbols": by default a
/// colour counts all its symbols; the cap at the scoring track's 10 is the option
/// `track_cap=10` (revision 1's rule). Ann holds 12 symbols of each colour, Bob 10 of
/// each and is further on the improvement track: uncapped Ann wins 12 to 10, capped
/// they tie at 10 and Bob wins on the improvement track.
#[test]
fn a_colour_counts_every_symbol_unless_capped() {
    use pbem::games::triangle_auction::Placed;
    use pbem::grid::triangle::Cell;
    let over = |rules: &TriangleAuction| {
        let mut state = rules
            .setup(&names(3), &mut DrawStream::for_testing(4))
            .expect("setup");
        state.phase = Phase::Over;
        state.round = 8;
        // Up spaces never share an edge, so no road encloses anything.
        let apart = |tiles: Vec<u8>| -> Vec<Placed> {
            let cells = (0..12u8).flat_map(|row| (0..=row).map(move |k| Cell::new(row, 2 * k)));
            tiles
                .into_iter()
                .zip(cells)
                .map(|(tile, cell)| Placed {
                    cell,
                    tile,
                    rotation: 0,
                })
                .collect()
        };
        // The tile set holds each design twice in a row: 5 of one colour, 20 of two,
        // 20 of three. The first copy of every three-colour design: 12 of each colour.
        state.players[0].area = apart((50..90).step_by(2).collect());
        // The first copy of every one- and two-colour design: 2 + 8 of each colour.
        state.players[1].area = apart((0..50).step_by(2).collect());
        state.players[1].improvement = 3;
        state
    };
    let seed_reading = rules_with(&[]);
    let state = over(&seed_reading);
    assert_eq!(seed_reading.scores(&state), vec![12, 10, 0]);
    assert_eq!(seed_reading.winners(&state), vec![0]);
    let capped = rules_with(&[("track_cap", "10")]);
    let state = over(&capped);
    assert_eq!(capped.scores(&state), vec![10, 10, 0]);
    assert_eq!(capped.winners(&state), vec![1]);
}

/// Ann's placing turn: her area is one RR- on E5 (roads left and right); she won B, a
/// GG- that meets no road of hers, and A, an RG- that can join her red road on E6 and
/// bring a green road up to D5, where B then fits.
fn placing_after_another_tile(rules: &TriangleAuction) -> State {
    use pbem::games::triangle_auction::Placed;
    use pbem::grid::triangle::Cell;
    let mut state = rules
        .setup(&names(3), &mut DrawStream::for_testing(9))
        .expect("setup");
    state.phase = Phase::Placing;
    // Tile 12 is RG-, tile 4 GG-, tile 0 RR- (the tile set's order).
    state.offer = [12u8, 4]
        .into_iter()
        .map(|tile| pbem::games::triangle_auction::Offer { tile, bid: None })
        .collect();
    state.players[0].area = vec![Placed {
        cell: Cell::new(4, 4),
        tile: 0,
        rotation: 0,
    }];
    // Won in this order: the one that fits nowhere yet first.
    state.players[0].won = vec![1, 0];
    state
}

/// T12: "Any tiles that a player cannot place are discarded": a tile that fits once
/// another of the player's tiles is placed may not be discarded (the refusal says
/// which placement opens a space for it), nor is its discard listed; the suggested
/// move and the referee's move past a deadline place both. With `discards=now`
/// (revision 1) it may be discarded while it fits nowhere at that point.
#[test]
fn a_tile_that_fits_after_another_may_not_be_discarded() {
    let rules = rules_with(&[]);
    let state = placing_after_another_tile(&rules);
    let error = play(&rules, &state, 0, "discard B").expect_err("B fits after A");
    assert!(
        error.contains("tile B fits once you have placed A")
            && error.contains("place A at ")
            && error.contains("; place B at "),
        "{error}"
    );
    assert!(rules
        .legal_moves(&state, 0)
        .iter()
        .all(|entry| entry.kind != "discard"));
    let both = play(&rules, &state, 0, "place A at E6 r2; place B at D5 r2").expect("fits");
    assert_eq!(both.players[0].area.len(), 3);
    // The example and the deadline's move place both tiles, A first.
    for suggested in [
        rules.example_move(&state, 0).expect("an example"),
        rules.canonical_text(
            &rules
                .deadline_move(&state, 0, pbem::engine::Deadline::Skip)
                .expect("a deadline move"),
        ),
    ] {
        assert!(!suggested.contains("discard"), "{suggested}");
        let done = play(&rules, &state, 0, &suggested).expect("legal as offered");
        assert_eq!(done.players[0].area.len(), 3, "{suggested}");
    }
    let listing = rules.moves_text(&state, 0, &pbem::engine::MoveFilter::default(), &names(3));
    assert!(
        listing.contains("fits nowhere now, but after `place A at"),
        "{listing}"
    );
    // Revision 1's reading, as an option.
    let now = rules_with(&[("discards", "now")]);
    let state = placing_after_another_tile(&now);
    let discarded = play(&now, &state, 0, "discard B").expect("fits nowhere at this point");
    assert_eq!(discarded.players[0].won, vec![0]);
}

/// Issue 18: a move the rules leave no choice about is the rules' forced move (the
/// referee makes it at once by mail): a pass with nothing to claim, discarding tiles
/// that fit nowhere; never while there is a choice.
#[test]
fn a_pass_or_a_discard_without_choice_is_forced() {
    let (rules, mut state) = auction();
    assert_eq!(rules.forced_move(&state, 0), None, "Ann can claim");
    state.players[0].hand = 0;
    assert_eq!(rules.forced_move(&state, 0), Some(Move::Pass));
    assert_eq!(rules.forced_move(&state, 1), None, "not Bob's turn");
    let rules = rules_with(&[]);
    let mut state = placing_after_another_tile(&rules);
    assert_eq!(rules.forced_move(&state, 0), None, "A fits");
    state.players[0].won = vec![1];
    assert_eq!(
        rules.forced_move(&state, 0),
        Some(Move::Place(vec![Step::Discard { tile: 1 }]))
    );
}

/// Issue 18: the panel says what a player can bid while their card is face down (its
/// owner: the chits left after it; the others: that the card's come off); a holder is
/// named in the list of bids; the legend explains edge 0 and the turns.
#[test]
fn the_board_and_the_listing_say_what_can_be_done() {
    use pbem::engine::BoardContext;
    let rules = rules_with(&[]);
    let mut state = rules
        .setup(&names(3), &mut DrawStream::for_testing(5))
        .expect("setup");
    for (seat, card) in [(0, 3), (1, 0), (2, 1)] {
        state = play(&rules, &state, seat, &format!("card {card}")).expect("a card");
    }
    let names = names(3);
    let board = |viewer| {
        rules.board(
            &state,
            &BoardContext {
                viewer,
                names: &names,
                turn: 3,
                last_move: None,
            },
        )
    };
    let own = board(Viewer::Player(0));
    assert!(
        own.contains("Ann: 0 VP; improvement 0 (least colour); 2 chits to bid; card 3 face down"),
        "{own}"
    );
    assert!(
        own.contains("Cid: 0 VP; improvement 0 (least colour); 5 chits less the card face down"),
        "{own}"
    );
    let legend = rules.legend();
    assert!(
        legend.contains("r0 puts a tile's edge 0 (its first colour)"),
        "{legend}"
    );
    // Whoever is to bid: a bid on A, then the list of bids names its holder.
    let Phase::Bidding { seat } = state.phase else {
        panic!("bidding")
    };
    let bidder = usize::from(seat);
    let after = play(&rules, &state, bidder, "bid 1 on A").expect("a bid");
    let Phase::Bidding { seat: next } = after.phase else {
        panic!("bidding")
    };
    let listing = rules.moves_text(
        &after,
        usize::from(next),
        &pbem::engine::MoveFilter::default(),
        &names,
    );
    assert!(
        listing.contains(&format!("{}: 1", names[bidder])),
        "{listing}"
    );
    let error = play(&rules, &after, usize::from(next), "bid 1 on A").expect_err("a tie");
    assert!(error.contains("holds 1 chit;"), "{error}");
}

/// Issue 18 (T3): every board of every area size stays within 78 columns, drawing only
/// the part of an area in use, in bands when it is wider; every area is on every
/// player's board (the seed's areas are public).
#[test]
fn boards_of_every_area_size_stay_within_78_columns() {
    use pbem::engine::BoardContext;
    use pbem::games::triangle_auction::Placed;
    use pbem::grid::triangle::Cell;
    let areas = (4..=12u8)
        .map(|side| side.to_string())
        .chain(["open".to_string()]);
    for area in areas {
        let rules = rules_with(&[("area", &area)]);
        let side = area.parse::<u8>().unwrap_or(61);
        let mut state = rules
            .setup(&names(3), &mut DrawStream::for_testing(u64::from(side)))
            .expect("setup");
        // Bob's area has a tile on each of its corners and in the middle of the
        // bottom row: its whole width is in use. In the open area: the furthest
        // spaces that 40 tiles from its middle (AO41) reach, up, down, left and right.
        let last = side - 1;
        let corners = if area == "open" {
            [
                Cell::new(21, 1),
                Cell::new(60, 79),
                Cell::new(40, 1),
                Cell::new(40, 79),
            ]
        } else {
            [
                Cell::new(0, 0),
                Cell::new(last, 0),
                Cell::new(last, last),
                Cell::new(last, 2 * last),
            ]
        };
        state.players[1].area = corners
            .into_iter()
            .enumerate()
            .map(|(k, cell)| Placed {
                cell,
                tile: k as u8,
                rotation: 0,
            })
            .collect();
        state.players[2].area = vec![Placed {
            cell: Cell::new(last / 2, last / 2),
            tile: 40,
            rotation: 1,
        }];
        for viewer in [Viewer::Player(0), Viewer::Player(1), Viewer::Public] {
            let board = rules.board(
                &state,
                &BoardContext {
                    viewer,
                    names: &names(3),
                    turn: 4,
                    last_move: None,
                },
            );
            for line in board.lines() {
                assert!(line.chars().count() <= 78, "area={area}: {line:?}\n{board}");
            }
            for name in ["Ann", "Bob", "Cid"] {
                assert!(board.contains(&format!("{name}'s area")), "{board}");
            }
            // Bob's corners are all drawn: the row letters of his first and last rows.
            assert!(board.contains("Bob's area (4 tiles placed"), "{board}");
        }
    }
}
