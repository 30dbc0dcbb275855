//! The bots see only what their seat may see, and play whole games of every game.

use super::search::{self, Budget};
use super::{Bot, SeatView};
use crate::engine::chance::DrawStream;
use crate::engine::rules::Rules;
use crate::games::desert_kingdom::DesertKingdom;
use crate::games::right_of_way::RightOfWay;
use crate::games::triangle_auction::TriangleAuction;

/// The search's budget in these tests: small, since a debug build plays slowly; what
/// is tested (what the bot may read, that it finishes games) does not depend on it.
const TEST_BUDGET: Budget = Budget {
    candidates: 3,
    playouts: 2,
    horizon: 4,
    replies_weighed: 2,
};

/// `bot`'s choice, the search within [`TEST_BUDGET`].
fn choose<R: Rules>(bot: Bot, view: &SeatView<'_, R>, rng: &mut DrawStream) -> Option<String> {
    match bot {
        Bot::Search => search::choose_within(view, rng, TEST_BUDGET),
        other => other.choose(view, rng),
    }
}

fn names(count: usize) -> Vec<String> {
    crate::demo::PLAYER_NAMES[..count]
        .iter()
        .map(|n| (*n).to_string())
        .collect()
}

/// Plays a game between `bot`s, calling `check` on every position before a move with
/// the seat to move; returns the number of moves.
fn play<R: Rules>(
    rules: &R,
    players: usize,
    bot: Bot,
    seed: u64,
    mut check: impl FnMut(&R::State, usize),
) -> u64 {
    let mut chance = DrawStream::for_testing(seed);
    let mut mind = DrawStream::for_testing(seed + 1000);
    let mut state = rules.setup(&names(players), &mut chance).expect("setup");
    let mut moves = 0;
    while !rules.is_over(&state) {
        let seat = rules.to_move(&state)[0];
        check(&state, seat);
        let text = choose(bot, &SeatView::new(rules, &state, seat), &mut mind).expect("a move");
        let mv = rules.parse_move(&state, seat, &text).expect("parses");
        state = rules
            .apply(&state, seat, &mv, &mut chance)
            .expect("applies");
        moves += 1;
        assert!(moves < 20_000, "a game that does not end");
    }
    moves
}

/// Two full states that differ only in what `seat` cannot see give every bot the same
/// view and the same choice, made with the same stream.
fn same_choices<R: Rules>(rules: &R, full: &R::State, other: &R::State, seat: usize) {
    assert_ne!(full, other, "the perturbation changed nothing");
    assert_eq!(rules.seat_state(full, seat), rules.seat_state(other, seat));
    for bot in Bot::ALL {
        let a = choose(
            bot,
            &SeatView::new(rules, full, seat),
            &mut DrawStream::for_testing(7),
        );
        let b = choose(
            bot,
            &SeatView::new(rules, other, seat),
            &mut DrawStream::for_testing(7),
        );
        assert_eq!(a, b, "{bot} chose otherwise with other hidden material");
    }
}

#[test]
fn bots_ignore_other_players_face_down_cards() {
    let rules = TriangleAuction::from_data(TriangleAuction::DEFAULT_DATA, &Default::default())
        .expect("rules");
    let mut checked = 0;
    for seed in 0..3 {
        play(&rules, 3, Bot::Greedy, seed, |state, seat| {
            let mut other = state.clone();
            for (who, player) in other.players.iter_mut().enumerate() {
                if who != seat && player.card.is_some() {
                    player.card = player.card.map(|card| if card == 1 { 2 } else { 1 });
                }
            }
            if other != *state {
                same_choices(&rules, state, &other, seat);
                checked += 1;
            }
        });
    }
    assert!(
        checked > 0,
        "no position with another's card face down was checked"
    );
}

#[test]
fn bots_ignore_the_bag_and_face_down_tiles() {
    let rules =
        DesertKingdom::from_data(DesertKingdom::DEFAULT_DATA, &Default::default()).expect("rules");
    let mut checked = 0;
    for seed in 0..2 {
        play(&rules, 2, Bot::Greedy, seed, |state, seat| {
            if rules.is_over(state) {
                return;
            }
            // Another bag of the same size, and other kinds under the face-down tiles,
            // written through the state's JSON (the game's state types are its own).
            let mut json = serde_json::to_value(state).expect("json");
            for kind in json["bag"].as_array_mut().expect("a bag") {
                *kind = serde_json::json!(if kind == "desert" { "city" } else { "desert" });
            }
            for tile in json["squares"].as_array_mut().expect("squares") {
                if tile["face_down"] == true {
                    tile["kind"] = serde_json::json!("mountain");
                }
            }
            let other: <DesertKingdom as Rules>::State =
                serde_json::from_value(json).expect("a state");
            if other != *state && rules.seat_state(state, seat) == rules.seat_state(&other, seat) {
                same_choices(&rules, state, &other, seat);
                checked += 1;
            }
        });
    }
    assert!(checked > 10, "too few positions checked: {checked}");
}

#[test]
fn a_seat_state_keeps_the_seats_own_card() {
    let rules = TriangleAuction::from_data(TriangleAuction::DEFAULT_DATA, &Default::default())
        .expect("rules");
    let mut seen = 0;
    play(&rules, 3, Bot::Random, 3, |state, seat| {
        if let Some(card) = state.players[seat].card {
            assert_eq!(rules.seat_state(state, seat).players[seat].card, Some(card));
            seen += 1;
        }
        for (who, player) in rules.seat_state(state, seat).players.iter().enumerate() {
            if who != seat {
                assert_eq!(player.card, None, "seat {seat} sees seat {who}'s card");
            }
        }
    });
    assert!(seen > 0);
}

#[test]
fn every_bot_finishes_every_game() {
    let row = RightOfWay::from_data(RightOfWay::DEFAULT_DATA, &Default::default()).expect("rules");
    let ta = TriangleAuction::from_data(TriangleAuction::DEFAULT_DATA, &Default::default())
        .expect("rules");
    let dk =
        DesertKingdom::from_data(DesertKingdom::DEFAULT_DATA, &Default::default()).expect("rules");
    for bot in Bot::ALL {
        assert!(play(&row, 2, bot, 1, |_, _| {}) > 0);
        assert!(play(&ta, 3, bot, 1, |_, _| {}) > 0);
        assert!(play(&dk, 2, bot, 1, |_, _| {}) > 0);
    }
}

#[test]
fn bot_names_are_read_and_unknown_ones_refused() {
    assert_eq!(Bot::parse("Greedy"), Ok(Bot::Greedy));
    let refused = Bot::parse("clever").expect_err("no such bot");
    assert!(refused.contains("random, greedy"), "{refused}");
}

#[test]
fn a_determinised_state_agrees_with_all_the_seat_knows() {
    let rules =
        DesertKingdom::from_data(DesertKingdom::DEFAULT_DATA, &Default::default()).expect("rules");
    let mut mind = DrawStream::for_testing(9);
    let mut checked = 0;
    play(&rules, 3, Bot::Random, 4, |state, seat| {
        let known = rules.seat_state(state, seat);
        let world = rules.determinise(&known, seat, &mut mind);
        // Nothing the seat saw is changed, and the bag is as full as the seat was told.
        assert_eq!(rules.seat_state(&world, seat), known);
        assert_eq!(world.bag.len(), usize::from(known.bag_count));
        assert!(world
            .squares
            .iter()
            .flatten()
            .all(|tile| tile.kind.is_some()));
        checked += 1;
    });
    assert!(checked > 10);
}

#[test]
fn a_determinised_auction_gives_others_cards_and_keeps_what_the_seat_knows() {
    let rules = TriangleAuction::from_data(TriangleAuction::DEFAULT_DATA, &Default::default())
        .expect("rules");
    let mut mind = DrawStream::for_testing(11);
    let mut guessed = 0;
    play(&rules, 4, Bot::Random, 5, |state, seat| {
        let known = rules.seat_state(state, seat);
        let world = rules.determinise(&known, seat, &mut mind);
        assert_eq!(rules.seat_state(&world, seat), known);
        for (who, player) in world.players.iter().enumerate() {
            let hidden = player.chosen && player.revealed.is_none();
            if who != seat && hidden {
                let card = player.card.expect("a card is guessed for a face-down one");
                assert!(card <= 5);
                guessed += 1;
            }
        }
    });
    assert!(guessed > 10, "too few face-down cards guessed: {guessed}");
}

#[test]
fn the_auctions_standing_counts_a_tile_led_on_before_it_is_placed() {
    let rules = TriangleAuction::from_data(TriangleAuction::DEFAULT_DATA, &Default::default())
        .expect("rules");
    let mut seen = 0;
    play(&rules, 3, Bot::Random, 6, |state, seat| {
        let before = rules.standing(state)[seat];
        for entry in rules.legal_moves(state, seat) {
            let mv = rules.parse_move(state, seat, &entry.text).expect("parses");
            if !matches!(mv, crate::games::triangle_auction::Move::Bid(_)) {
                continue;
            }
            let after = rules
                .apply(state, seat, &mv, &mut DrawStream::for_testing(1))
                .expect("applies");
            // Bids the scores cannot tell from a pass, which the standing can.
            let unscored = rules.scores(&after)[seat] == rules.scores(state)[seat];
            if unscored && rules.standing(&after)[seat] != before {
                seen += 1;
            }
        }
    });
    assert!(seen > 10, "too few bids the standing told apart: {seen}");
}
