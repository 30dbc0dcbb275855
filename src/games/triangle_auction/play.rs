//! The rules in motion: the round's steps (the cards chosen face down, the auction,
//! the placing) and the score. Where a tile may go and the placing turn itself are in
//! `placing`; the moves a seat may make, and the ones the rules suggest, in `legal`.

use super::moves::{letter, Move};
use super::state::{Bid, Offer, Phase, Player, State};
use super::text::plural;
use super::TriangleAuction;
use crate::engine::rules::{Chance, RuleError, Seat, Visibility};
use crate::grid::triangle::enclosed_areas;

/// A player's score and what it is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Score {
    /// Symbols of each colour in the area (capped at the track's end where ruled).
    pub counts: [u8; 5],
    /// Symbols of each colour in the area, before any cap.
    pub raw: [u8; 5],
    /// Which colour by rank scores: 0 the best, 4 the least.
    pub rank: usize,
    /// The symbols of that colour.
    pub colour_points: i64,
    /// Areas enclosed by roads.
    pub enclosed: usize,
    pub total: i64,
}

pub(crate) fn seat_u8(seat: Seat) -> u8 {
    u8::try_from(seat).unwrap_or(u8::MAX)
}

impl TriangleAuction {
    /// The opening state: the pile, the starting player and round 1's offer.
    pub(crate) fn start(&self, players: usize, chance: &mut dyn Chance) -> State {
        let count = u32::try_from(players).unwrap_or(1).max(1);
        let starting = u8::try_from(chance.draw(count, Visibility::Public)).unwrap_or(0);
        let mut state = State {
            round: 0,
            phase: Phase::Cards,
            starting,
            pile: (0..self.tiles.len())
                .filter_map(|t| u8::try_from(t).ok())
                .collect(),
            offer: Vec::new(),
            passed: Vec::new(),
            discarded: Vec::new(),
            players: vec![
                Player {
                    hand: self.chits_in_hand,
                    card: None,
                    chosen: false,
                    revealed: None,
                    improvement: 0,
                    won: Vec::new(),
                    area: Vec::new(),
                };
                players
            ],
        };
        // Round 1 starts with the player the draw chose, not the one after.
        state.starting = (starting + seat_u8(players) - 1) % seat_u8(players);
        self.next_round(&mut state, chance);
        state
    }

    /// Ends a round: the last one ends the game; otherwise the starting-player card
    /// passes left, every chit comes back, and 2n + 1 tiles are drawn face up.
    fn next_round(&self, state: &mut State, chance: &mut dyn Chance) {
        if state.round >= self.rounds {
            state.phase = Phase::Over;
            return;
        }
        let players = state.players.len();
        state.round += 1;
        state.starting = (state.starting + 1) % seat_u8(players);
        state.passed.clear();
        state.offer.clear();
        for _ in 0..Self::offer_size(players) {
            let Ok(left) = u32::try_from(state.pile.len()) else {
                break;
            };
            if left == 0 {
                break;
            }
            let pick = chance.draw(left, Visibility::Public) as usize;
            let tile = state.pile.remove(pick);
            state.offer.push(Offer { tile, bid: None });
        }
        for player in &mut state.players {
            player.hand = self.chits_in_hand;
            player.card = None;
            player.chosen = false;
            player.revealed = None;
            player.won.clear();
        }
        state.phase = Phase::Cards;
    }

    /// The next seat to bid after `seat`, in turn order: one whose card is still to be
    /// revealed, or who can claim a tile (and, with passing, has not passed since the
    /// last bid). None when the auction is over.
    fn next_bidder(&self, state: &State, seat: Seat) -> Option<Seat> {
        let players = state.players.len();
        (1..=players).map(|k| (seat + k) % players).find(|&next| {
            let player = &state.players[next];
            player.revealed.is_none()
                || (self.can_claim(state, next, player.hand)
                    && !(self.passing && state.passed.contains(&seat_u8(next))))
        })
    }

    /// Applies a move (all or nothing).
    pub(crate) fn play(
        &self,
        state: &State,
        seat: Seat,
        mv: &Move,
        chance: &mut dyn Chance,
    ) -> Result<State, RuleError> {
        let mut next = state.clone();
        match (state.phase, mv) {
            (Phase::Cards, Move::Card(card)) => {
                let player = &mut next.players[seat];
                if player.chosen {
                    return Err(RuleError::new(
                        "you have chosen your card for this round",
                        "wait for the auction",
                    ));
                }
                if *card > self.highest_card {
                    return Err(RuleError::new(
                        format!("there is no card {card}"),
                        format!("a card from 0 to {}", self.highest_card),
                    ));
                }
                player.card = Some(*card);
                player.chosen = true;
                if next.players.iter().all(|p| p.chosen) {
                    next.phase = Phase::Bidding {
                        seat: next.starting,
                    };
                }
            }
            (Phase::Bidding { seat: bidder }, Move::Bid(_) | Move::Pass)
                if usize::from(bidder) == seat =>
            {
                self.bid(&mut next, seat, mv, chance)?;
            }
            (Phase::Placing, Move::Place(steps)) => {
                self.place(&mut next, seat, steps)?;
                if next.players.iter().all(|p| p.won.is_empty()) {
                    self.next_round(&mut next, chance);
                }
            }
            (Phase::Over, _) => return Err(RuleError::new("the game is over", "no more moves")),
            _ => {
                return Err(RuleError::new(
                    "that is not a move of this part of the round",
                    match self.example(state, seat) {
                        Some(example) => {
                            format!("for example `{}`", super::moves::canonical(&example))
                        }
                        None => "wait for your turn".to_string(),
                    },
                ))
            }
        }
        Ok(next)
    }

    fn bid(
        &self,
        state: &mut State,
        seat: Seat,
        mv: &Move,
        chance: &mut dyn Chance,
    ) -> Result<(), RuleError> {
        // "On a player's turn, he reveals his card, places the indicated number of
        // chits on the card, and moves the corresponding number of spaces forward."
        if state.players[seat].revealed.is_none() {
            let card = state.players[seat].card.unwrap_or(0);
            let track = self.improvement_track;
            let player = &mut state.players[seat];
            player.revealed = Some(card);
            player.hand = player.hand.saturating_sub(card);
            player.improvement = player.improvement.saturating_add(card).min(track);
        }
        let hand = state.players[seat].hand;
        match mv {
            Move::Pass => {
                if !self.may_pass(state, seat, hand) {
                    return Err(RuleError::new(
                        "you can still claim a tile, and a player who can must bid",
                        "a bid such as `bid 1 on A` (the option passing=yes would allow passing)",
                    ));
                }
                if !state.passed.contains(&seat_u8(seat)) {
                    state.passed.push(seat_u8(seat));
                }
            }
            Move::Bid(bids) => {
                let total: u32 = bids.iter().map(|(_, chits)| u32::from(*chits)).sum();
                if total > u32::from(hand) {
                    return Err(RuleError::new(
                        format!(
                            "the bid needs {} and you hold {hand}",
                            plural(total as usize, "chit", "chits")
                        ),
                        format!(
                            "at most {} in all",
                            plural(usize::from(hand), "chit", "chits")
                        ),
                    ));
                }
                for &(tile, chits) in bids {
                    let offer = state.offer.get(usize::from(tile)).ok_or_else(|| {
                        RuleError::new(
                            format!("there is no tile {}", letter(tile)),
                            "a tile of this round's offer",
                        )
                    })?;
                    match offer.bid {
                        Some(bid) if usize::from(bid.seat) == seat => {
                            return Err(RuleError::new(
                                format!(
                                    "your chits are on tile {} already, and may not be reinforced",
                                    letter(tile)
                                ),
                                "chits on an empty tile or on another player's",
                            ))
                        }
                        Some(bid) if chits <= bid.chits => {
                            return Err(RuleError::new(
                                format!(
                                    "tile {} holds {}; outbidding takes more",
                                    letter(tile),
                                    plural(usize::from(bid.chits), "chit", "chits")
                                ),
                                format!("at least {} chits on {}", bid.chits + 1, letter(tile)),
                            ))
                        }
                        _ => {}
                    }
                }
                for &(tile, chits) in bids {
                    let slot = &mut state.offer[usize::from(tile)];
                    if let Some(earlier) = slot.bid {
                        // The chits outbid go back to their owner's hand.
                        let owner = &mut state.players[usize::from(earlier.seat)];
                        owner.hand = owner.hand.saturating_add(earlier.chits);
                    }
                    slot.bid = Some(Bid {
                        seat: seat_u8(seat),
                        chits,
                    });
                }
                let player = &mut state.players[seat];
                player.hand -= u8::try_from(total).unwrap_or(u8::MAX).min(player.hand);
                state.passed.clear();
            }
            _ => {}
        }
        match self.next_bidder(state, seat) {
            Some(next) => {
                state.phase = Phase::Bidding {
                    seat: seat_u8(next),
                }
            }
            None => self.end_auction(state, chance),
        }
        Ok(())
    }

    /// Every tile with chits goes to their owner; the others are discarded or go back
    /// into the pile; then the placing, or the next round when nobody won a tile.
    fn end_auction(&self, state: &mut State, chance: &mut dyn Chance) {
        for (index, offer) in state.offer.iter().enumerate() {
            match offer.bid {
                Some(bid) => state.players[usize::from(bid.seat)]
                    .won
                    .push(u8::try_from(index).unwrap_or(u8::MAX)),
                None if self.return_unclaimed => {
                    state.pile.push(offer.tile);
                    // The pile stays in the tile set's order: draws pick positions in it.
                    state.pile.sort_unstable();
                }
                None => state.discarded.push(offer.tile),
            }
        }
        if state.players.iter().any(|p| !p.won.is_empty()) {
            state.phase = Phase::Placing;
        } else {
            self.next_round(state, chance);
        }
    }

    /// A player's score now.
    pub(crate) fn score(&self, state: &State, seat: Seat) -> Score {
        let player = &state.players[seat];
        let mut counts = [0u8; 5];
        for placed in &player.area {
            for colour in self.placed_outlets(placed).into_iter().flatten() {
                if let Some(count) = counts.get_mut(usize::from(colour)) {
                    *count = count.saturating_add(1);
                }
            }
        }
        let raw = counts;
        if let Some(cap) = self.track_cap {
            for count in &mut counts {
                *count = (*count).min(cap);
            }
        }
        let (rank, colour_points) = self.colour_points(counts, player.improvement);
        let enclosed = enclosed_areas(self.side, &self.area_map(&player.area));
        Score {
            counts,
            raw,
            rank,
            colour_points,
            enclosed,
            total: colour_points + enclosed as i64,
        }
    }

    /// Which colour by rank scores from `improvement` on the track, and its symbols of
    /// the (capped) `counts`.
    fn colour_points(&self, counts: [u8; 5], improvement: u8) -> (usize, i64) {
        let mut ranked = counts;
        ranked.sort_unstable_by(|a, b| b.cmp(a));
        // From the 4th best at the first step to the best at the last.
        let reached = self
            .improvement_steps
            .iter()
            .filter(|&&step| improvement >= step)
            .count();
        let rank = 4 - reached.min(4);
        (rank, i64::from(ranked[rank]))
    }

    /// What a built-in player weighs a position by, in tenths of a point, where the
    /// score cannot yet tell a bid's worth: ten for each point the score would have
    /// with the symbols of every tile the player leads the bidding on (or has won and
    /// not placed) counted and their card's chits on the improvement track; and one
    /// for each symbol of theirs, each space on the track and each chit they still
    /// have to bid with, so that a tile or a step forward counts before it changes the
    /// colour scored and a chit is not spent for nothing.
    pub(crate) fn worth(&self, state: &State, seat: Seat) -> i64 {
        let score = self.score(state, seat);
        let player = &state.players[seat];
        let holding: Vec<u8> = match state.phase {
            Phase::Bidding { .. } => state
                .offer
                .iter()
                .filter(|offer| offer.bid.is_some_and(|bid| usize::from(bid.seat) == seat))
                .map(|offer| offer.tile)
                .collect(),
            Phase::Placing => player
                .won
                .iter()
                .filter_map(|&index| state.offer.get(usize::from(index)))
                .map(|offer| offer.tile)
                .collect(),
            Phase::Cards | Phase::Over => Vec::new(),
        };
        let mut counts = score.raw;
        for tile in holding {
            let outlets = self.tiles.get(usize::from(tile)).map(|t| t.outlets);
            for colour in outlets.into_iter().flatten().flatten() {
                if let Some(count) = counts.get_mut(usize::from(colour)) {
                    *count = count.saturating_add(1);
                }
            }
        }
        let symbols: i64 = counts.iter().map(|&n| i64::from(n)).sum();
        if let Some(cap) = self.track_cap {
            for count in &mut counts {
                *count = (*count).min(cap);
            }
        }
        let card = match player.revealed {
            None => player.card.unwrap_or(0),
            Some(_) => 0,
        };
        let improvement = player.improvement.saturating_add(card);
        let (_, colour_points) = self.colour_points(counts, improvement);
        let chits = match state.phase {
            Phase::Cards | Phase::Bidding { .. } => i64::from(self.hand_to_bid(state, seat)),
            Phase::Placing | Phase::Over => 0,
        };
        10 * (colour_points + score.enclosed as i64) + symbols + i64::from(improvement) + chits
    }
}
