//! The moves a seat may make: who may claim a tile or pass, every legal move
//! (`pbem legal`), a random one without listing them all, and the moves the rules
//! suggest (the example in notices and refusals, the referee's move past a deadline,
//! the move a seat has no choice about).

use std::collections::BTreeMap;

use serde_json::json;

use super::moves::{letter, Move, Step};
use super::state::{Phase, Placed, State};
use super::TriangleAuction;
use crate::engine::rules::{Chance, LegalMove, Seat, Visibility};
use crate::grid::triangle::{rotated, Cell, Outlets};

/// The longest example move, so that it fits a mail line with its indent.
const EXAMPLE_WIDTH: usize = 66;

impl TriangleAuction {
    /// Whether `seat` (card revealed, with `hand` chits) could claim a tile now.
    pub(crate) fn can_claim(&self, state: &State, seat: Seat, hand: u8) -> bool {
        state.offer.iter().any(|offer| match offer.bid {
            None => hand >= 1,
            Some(bid) => usize::from(bid.seat) != seat && hand > bid.chits,
        })
    }

    /// The chits `seat` bids with: their hand, less their card's if it is still to be
    /// revealed (the full state knows it).
    pub(crate) fn hand_to_bid(&self, state: &State, seat: Seat) -> u8 {
        let player = &state.players[seat];
        match player.revealed {
            Some(_) => player.hand,
            None => player.hand.saturating_sub(player.card.unwrap_or(0)),
        }
    }

    /// Whether `seat` may pass now (with `hand` chits to bid).
    pub(crate) fn may_pass(&self, state: &State, seat: Seat, hand: u8) -> bool {
        self.passing || !self.can_claim(state, seat, hand)
    }

    /// The move shown in notices and refusals: the rules' best guess, never one that
    /// wastes a turn when a better exists. A card that reaches the next step of the
    /// improvement track for 3 chits or fewer (else card 1); the cheapest claim on a
    /// tile that fits the bidder's area (any claim when none fits); every tile won at
    /// the place where it meets the most roads, as one turn. None when `seat` is not
    /// to move.
    pub(crate) fn example(&self, state: &State, seat: Seat) -> Option<Move> {
        use crate::engine::rules::Rules;
        if !self.to_move(state).contains(&seat) {
            return None;
        }
        match state.phase {
            Phase::Cards => Some(Move::Card(self.example_card(state, seat))),
            Phase::Bidding { .. } => self
                .useful_claim(state, seat)
                .or_else(|| self.cheapest_claim(state, seat))
                .or(Some(Move::Pass)),
            Phase::Placing => Some(Move::Place(self.example_steps(state, seat))),
            Phase::Over => None,
        }
    }

    /// The fewest chits that take `seat` to the next step of the improvement track,
    /// when that is 3 or fewer (2 still to bid with); otherwise 1.
    fn example_card(&self, state: &State, seat: Seat) -> u8 {
        let now = state.players[seat].improvement;
        let next = self.improvement_steps.iter().find(|&&step| step > now);
        match next.map(|&step| step - now) {
            Some(needed) if (1..=3).contains(&needed) && needed <= self.highest_card => needed,
            _ => 1.min(self.highest_card),
        }
    }

    /// The chits `seat` needs to claim offer tile `index` now: one on a free tile,
    /// one more than another player's; None on the bidder's own tile.
    pub(crate) fn claim_cost(&self, state: &State, seat: Seat, index: usize) -> Option<u8> {
        match state.offer.get(index)?.bid {
            None => Some(1),
            Some(bid) if usize::from(bid.seat) != seat => Some(bid.chits.saturating_add(1)),
            Some(_) => None,
        }
    }

    /// The cheapest claim on a tile that fits `seat`'s area now; among equal costs
    /// the tile with the most roads, then the first.
    fn useful_claim(&self, state: &State, seat: Seat) -> Option<Move> {
        let hand = self.hand_to_bid(state, seat);
        let area = self.area_map(&state.players[seat].area);
        let (_, _, index, chits) = (0..state.offer.len())
            .filter_map(|index| {
                let chits = self.claim_cost(state, seat, index)?;
                let tile = state.offer[index].tile;
                (chits <= hand && !self.placements(&area, tile).is_empty()).then(|| {
                    let roads = self
                        .tiles
                        .get(usize::from(tile))
                        .map_or(0, super::tiles::Tile::outlet_count);
                    (chits, std::cmp::Reverse(roads), index, chits)
                })
            })
            .min()?;
        Some(Move::Bid(vec![(u8::try_from(index).ok()?, chits)]))
    }

    /// How many roads of placed tiles a tile with `outlets` on `cell` would meet.
    pub(crate) fn connections(
        &self,
        area: &BTreeMap<Cell, Outlets>,
        cell: Cell,
        outlets: Outlets,
    ) -> usize {
        (0..3u8)
            .filter(|&edge| {
                let Some((other, across)) = cell.neighbour(edge, self.side) else {
                    return false;
                };
                let mine = outlets[usize::from(edge)];
                let theirs = area.get(&other).and_then(|o| o[usize::from(across)]);
                mine.is_some() && mine == theirs
            })
            .count()
    }

    /// The space a first tile is suggested on: an open area's start; in a bounded
    /// area the middle of the row two thirds down, where it leaves the most room.
    fn centre(&self) -> Cell {
        if let Some(start) = self.start {
            return start;
        }
        let row = (2 * self.side) / 3;
        Cell::new(row.min(self.side - 1), row.min(self.side - 1))
    }

    /// The best place for `tile` in `area`: the most roads met, then (for a first
    /// tile) the centre, then the first in row order; None when it fits nowhere.
    pub(crate) fn best_placement(
        &self,
        area: &BTreeMap<Cell, Outlets>,
        tile: u8,
    ) -> Option<(Cell, u8)> {
        if area.is_empty() {
            let centre = self.centre();
            return self
                .placements(area, tile)
                .into_iter()
                .find(|&(cell, _)| cell == centre)
                .or_else(|| self.placements(area, tile).into_iter().next());
        }
        let outlets = |rotation| {
            rotated(
                self.tiles
                    .get(usize::from(tile))
                    .map_or([None; 3], |t| t.outlets),
                rotation,
            )
        };
        self.placements(area, tile)
            .into_iter()
            .enumerate()
            .max_by_key(|&(order, (cell, rotation))| {
                (
                    self.connections(area, cell, outlets(rotation)),
                    std::cmp::Reverse(order),
                )
            })
            .map(|(_, placement)| placement)
    }

    /// Every tile `seat` won, each at its best place given the ones before it, or
    /// discarded where it fits nowhere; as many as an example line holds.
    fn example_steps(&self, state: &State, seat: Seat) -> Vec<Step> {
        let mut steps = Vec::new();
        for step in
            self.every_tile_placed(state, seat, |area, tile| self.best_placement(area, tile))
        {
            steps.push(step);
            // The rest can follow in another message (T12); an example stays one
            // short line.
            if super::moves::canonical(&Move::Place(steps.clone())).len() > EXAMPLE_WIDTH {
                steps.pop();
                break;
            }
        }
        steps
    }

    /// A whole placing turn for `seat`: while some tile still held fits, the first
    /// such (in the order won) goes where `choose` puts it; then the tiles that fit
    /// nowhere are discarded. A tile is never discarded while another tile's
    /// placement could still make it fit (T12), so the turn is legal whatever the
    /// `discards` option.
    pub(crate) fn every_tile_placed(
        &self,
        state: &State,
        seat: Seat,
        choose: impl Fn(&BTreeMap<Cell, Outlets>, u8) -> Option<(Cell, u8)>,
    ) -> Vec<Step> {
        let mut area = self.area_map(&state.players[seat].area);
        let mut held = state.players[seat].won.clone();
        let mut steps = Vec::new();
        loop {
            let next = held.iter().enumerate().find_map(|(position, &index)| {
                let tile = state.offer.get(usize::from(index))?.tile;
                choose(&area, tile).map(|placement| (position, index, tile, placement))
            });
            let Some((position, index, tile, (cell, rotation))) = next else {
                break;
            };
            let placed = Placed {
                cell,
                tile,
                rotation,
            };
            area.insert(cell, self.placed_outlets(&placed));
            held.remove(position);
            steps.push(Step::Place {
                tile: index,
                cell,
                rotation,
            });
        }
        steps.extend(held.into_iter().map(|index| Step::Discard { tile: index }));
        steps
    }

    /// The claim that costs the fewest chits (the first such tile), if any.
    fn cheapest_claim(&self, state: &State, seat: Seat) -> Option<Move> {
        let hand = self.hand_to_bid(state, seat);
        state
            .offer
            .iter()
            .enumerate()
            .filter_map(|(index, offer)| {
                let needed = match offer.bid {
                    None => 1,
                    Some(bid) if usize::from(bid.seat) != seat => bid.chits + 1,
                    Some(_) => return None,
                };
                (needed <= hand).then_some((needed, u8::try_from(index).ok()?))
            })
            .min()
            .map(|(chits, tile)| Move::Bid(vec![(tile, chits)]))
    }

    /// The referee's move past a deadline: card 0; the cheapest claim (or a pass when
    /// none exists); every tile at the first place it fits, or discarded.
    pub(crate) fn fallback(&self, state: &State, seat: Seat) -> Option<Move> {
        use crate::engine::rules::Rules;
        if !self.to_move(state).contains(&seat) {
            return None;
        }
        match state.phase {
            Phase::Cards => Some(Move::Card(0)),
            Phase::Bidding { .. } => self.cheapest_claim(state, seat).or(Some(Move::Pass)),
            Phase::Placing => Some(Move::Place(self.every_tile_placed(
                state,
                seat,
                |area, tile| self.placements(area, tile).first().copied(),
            ))),
            Phase::Over => None,
        }
    }

    /// The move `seat` has no choice about now: a pass when they can claim no tile
    /// (no chits left, or every tile theirs or dearer than their chits), every tile
    /// they hold discarded when none fits anywhere (then no order makes one fit).
    /// None while they have a choice, or are not to move.
    pub(crate) fn forced(&self, state: &State, seat: Seat) -> Option<Move> {
        use crate::engine::rules::Rules;
        if !self.to_move(state).contains(&seat) {
            return None;
        }
        match state.phase {
            Phase::Bidding { .. } => {
                let hand = self.hand_to_bid(state, seat);
                (!self.can_claim(state, seat, hand)).then_some(Move::Pass)
            }
            Phase::Placing => {
                let area = self.area_map(&state.players[seat].area);
                let won = &state.players[seat].won;
                let none_fits = won.iter().all(|&index| {
                    state
                        .offer
                        .get(usize::from(index))
                        .is_some_and(|offer| self.placements(&area, offer.tile).is_empty())
                });
                none_fits
                    .then(|| Move::Place(won.iter().map(|&tile| Step::Discard { tile }).collect()))
            }
            Phase::Cards | Phase::Over => None,
        }
    }

    /// A random legal move, without listing every move.
    pub(crate) fn sample(&self, state: &State, seat: Seat, rng: &mut dyn Chance) -> Option<Move> {
        use crate::engine::rules::Rules;
        if !self.to_move(state).contains(&seat) {
            return None;
        }
        match state.phase {
            Phase::Cards => Some(Move::Card(
                u8::try_from(rng.draw(u32::from(self.highest_card) + 1, Visibility::Public))
                    .unwrap_or(0),
            )),
            Phase::Bidding { .. } => {
                let mut hand = self.hand_to_bid(state, seat);
                let mut bids = Vec::new();
                // Up to two tiles, each at a random amount it can take.
                for _ in 0..2 {
                    let options: Vec<(u8, u8)> = state
                        .offer
                        .iter()
                        .enumerate()
                        .filter(|(index, _)| {
                            !bids
                                .iter()
                                .any(|(t, _): &(u8, u8)| usize::from(*t) == *index)
                        })
                        .filter_map(|(index, offer)| {
                            let needed = match offer.bid {
                                None => 1,
                                Some(bid) if usize::from(bid.seat) != seat => bid.chits + 1,
                                Some(_) => return None,
                            };
                            (needed <= hand).then_some((u8::try_from(index).ok()?, needed))
                        })
                        .collect();
                    let Ok(count) = u32::try_from(options.len()) else {
                        break;
                    };
                    if count == 0 {
                        break;
                    }
                    let (tile, needed) = options[rng.draw(count, Visibility::Public) as usize];
                    let extra = rng.draw(u32::from(hand - needed) + 1, Visibility::Public);
                    let chits = needed + u8::try_from(extra).unwrap_or(0);
                    hand -= chits;
                    bids.push((tile, chits));
                    if rng.draw(2, Visibility::Public) == 0 {
                        break;
                    }
                }
                if bids.is_empty() || (self.passing && rng.draw(6, Visibility::Public) == 0) {
                    return Some(Move::Pass);
                }
                bids.sort_unstable();
                Some(Move::Bid(bids))
            }
            Phase::Placing => {
                // The first tile held that fits, at a random place; when none fits,
                // the first tile discarded (no order of the others can make it fit).
                let area = self.area_map(&state.players[seat].area);
                let won = &state.players[seat].won;
                let fitting = won.iter().find_map(|&index| {
                    let tile = state.offer.get(usize::from(index))?.tile;
                    let fits = self.placements(&area, tile);
                    (!fits.is_empty()).then_some((index, fits))
                });
                let step = match fitting {
                    Some((index, fits)) => {
                        let count = u32::try_from(fits.len()).unwrap_or(1);
                        let (cell, rotation) = fits[rng.draw(count, Visibility::Public) as usize];
                        Step::Place {
                            tile: index,
                            cell,
                            rotation,
                        }
                    }
                    None => Step::Discard {
                        tile: *won.first()?,
                    },
                };
                Some(Move::Place(vec![step]))
            }
            Phase::Over => None,
        }
    }

    /// Every legal move as single steps: each entry is a whole turn `apply` accepts.
    pub(crate) fn legal(&self, state: &State, seat: Seat) -> Vec<LegalMove> {
        use crate::engine::rules::Rules;
        if !self.to_move(state).contains(&seat) {
            return Vec::new();
        }
        let entry = |mv: Move, kind: &str, details: serde_json::Value| LegalMove {
            text: super::moves::canonical(&mv),
            kind: kind.to_string(),
            details: details.as_object().cloned().unwrap_or_default(),
        };
        match state.phase {
            Phase::Cards => (0..=self.highest_card)
                .map(|card| entry(Move::Card(card), "card", json!({"card": card})))
                .collect(),
            Phase::Bidding { .. } => {
                let hand = self.hand_to_bid(state, seat);
                let mut list = Vec::new();
                for (index, offer) in state.offer.iter().enumerate() {
                    let needed = match offer.bid {
                        None => 1,
                        Some(bid) if usize::from(bid.seat) != seat => bid.chits + 1,
                        Some(_) => continue,
                    };
                    let Ok(tile) = u8::try_from(index) else {
                        continue;
                    };
                    for chits in needed..=hand {
                        list.push(entry(
                            Move::Bid(vec![(tile, chits)]),
                            "bid",
                            json!({"tile": letter(tile).to_string(), "chits": chits}),
                        ));
                    }
                }
                if self.may_pass(state, seat, hand) {
                    list.push(entry(Move::Pass, "pass", json!({})));
                }
                list
            }
            Phase::Placing => {
                let area = self.area_map(&state.players[seat].area);
                let mut list = Vec::new();
                for &index in &state.players[seat].won {
                    let tile = state.offer[usize::from(index)].tile;
                    let fits = self.placements(&area, tile);
                    let won = &state.players[seat].won;
                    if fits.is_empty() && self.discard_block(state, &area, index, won).is_none() {
                        list.push(entry(
                            Move::Place(vec![Step::Discard { tile: index }]),
                            "discard",
                            json!({"tile": letter(index).to_string()}),
                        ));
                    }
                    for (cell, rotation) in fits {
                        list.push(entry(
                            Move::Place(vec![Step::Place {
                                tile: index,
                                cell,
                                rotation,
                            }]),
                            "place",
                            json!({"tile": letter(index).to_string(), "cell": cell.name(), "rotation": rotation}),
                        ));
                    }
                }
                list
            }
            Phase::Over => Vec::new(),
        }
    }
}
