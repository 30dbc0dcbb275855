//! Which turns exist. Where a tile can go this turn (R8, R13), whether a turn that
//! places a tile exists at all (R22: otherwise the only move is `pass`), whether every
//! placement loses (R15: only then may placed and face-down tiles pay a loss), and one
//! turn that is legal now.
//!
//! `legal`, `play` (so `apply`), `example`, `sample` and `deadline_move` all ask these
//! functions, so they agree by construction on when a player must pass.

use std::rc::Rc;

use super::moves::{Action, Move};
use super::state::State;
use super::{RightOfWay, NO_CELL};
use crate::engine::rules::Seat;
use crate::grid::hex::opposite;

/// How a player can build on a cell this turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reach {
    /// A free city tile or the player's own right-of-way: place there directly.
    Direct,
    /// Another player's right-of-way the player can afford: buy it first, then place
    /// there ("You can place a highway tile on a tile for which you just bought
    /// right-of-way in the same turn").
    AfterBuying,
}

/// One placement a player could make this turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Placement {
    pub cell: u16,
    pub reach: Reach,
    pub kind: u8,
    pub edges: u8,
    pub cost: i64,
    pub profit: i64,
}

impl Placement {
    /// The overall result: profit minus cost.
    pub fn net(&self) -> i64 {
        self.profit - self.cost
    }
}

impl RightOfWay {
    /// How `seat` could build on `cell` this turn, whatever the tile; `None` when it
    /// cannot. It needs a tile in hand. Another player's stack of height h is bought
    /// with h + 1 hand tiles and may not take the last one (R12), which is then the
    /// tile to place: h + 2 tiles in all.
    pub(crate) fn reach(&self, state: &State, seat: u8, cell: usize) -> Option<Reach> {
        let hand = state.players.get(seat as usize)?.hand.len();
        let c = state.cells.get(cell)?;
        if hand == 0 || !c.is_city() || c.highway.is_some() {
            return None;
        }
        match c.row_holder() {
            None => Some(Reach::Direct),
            Some(holder) if holder == seat => Some(Reach::Direct),
            Some(_) if hand >= c.row.len() + 2 => Some(Reach::AfterBuying),
            Some(_) => None,
        }
    }

    /// R22: whether `seat` has a complete turn that places a tile. Any reachable cell
    /// gives one: either some placement has no loss, or every placement loses and R15
    /// lets placed and face-down tiles pay what the hand cannot (R18: the rest lapses).
    pub fn can_place(&self, state: &State, seat: Seat) -> bool {
        let Ok(me) = u8::try_from(seat) else {
            return false;
        };
        (0..state.cells.len()).any(|cell| self.reach(state, me, cell).is_some())
    }

    /// R22: whether `pass` is the move of `seat`: a highway turn in which no turn that
    /// places a tile exists. The one test for `legal`, `apply`, `example`, `sample`
    /// and `deadline_move`.
    pub(crate) fn must_pass(&self, state: &State, seat: Seat) -> bool {
        !state.setup && !self.can_place(state, seat)
    }

    /// Every placement `seat` could make this turn: the kinds in hand (each once, in
    /// hand order, so fewest connections first), their distinct rotations, then the
    /// reachable cells in label order.
    pub(crate) fn placements<'a>(
        &'a self,
        state: &'a State,
        seat: u8,
    ) -> impl Iterator<Item = Placement> + 'a {
        let kinds = kinds_in_hand(state, seat);
        let cells: Rc<[(u16, Reach)]> = (0..state.cells.len())
            .filter_map(|cell| Some((cell as u16, self.reach(state, seat, cell)?)))
            .collect();
        kinds
            .into_iter()
            .flat_map(move |kind| {
                self.rotations(kind)
                    .into_iter()
                    .map(move |edges| (kind, edges))
            })
            .flat_map(move |(kind, edges)| {
                let cells = Rc::clone(&cells);
                (0..cells.len()).map(move |i| {
                    let (cell, reach) = cells[i];
                    let (cost, profit) = self.cost_profit(state, cell, edges);
                    Placement {
                        cell,
                        reach,
                        kind,
                        edges,
                        cost,
                        profit,
                    }
                })
            })
    }

    /// R15: whether every placement `seat` can make this turn produces a negative
    /// overall result, placements after a purchase included (owning the right-of-way
    /// changes neither cost nor profit). A placement on an unmarked city tile costs
    /// nothing, so one such cell within reach settles it.
    pub(crate) fn every_placement_loses(&self, state: &State, seat: u8) -> bool {
        let kinds = kinds_in_hand(state, seat);
        (0..state.cells.len()).all(|cell| {
            self.reach(state, seat, cell).is_none()
                || kinds.iter().all(|&kind| {
                    self.rotations(kind).into_iter().all(|edges| {
                        let (cost, profit) = self.cost_profit(state, cell as u16, edges);
                        profit < cost
                    })
                })
        })
    }

    /// R15: whether a placement's result can be settled. No loss; a loss the hand pays
    /// (`hand_after`: the hand right after the placement); or a loss beyond the hand
    /// when every placement loses, and placed and face-down tiles pay the rest.
    pub(crate) fn settles(net: i64, hand_after: usize, every_loses: impl FnOnce() -> bool) -> bool {
        net >= 0 || usize::try_from(-net).is_ok_and(|loss| loss <= hand_after) || every_loses()
    }

    /// A complete turn that places a tile, for examples and as a fallback: the first
    /// placement without a loss in the order of [`RightOfWay::placements`], else (every
    /// placement loses) the first placement. Another player's right-of-way is bought
    /// first, with the default tiles. `None` only when `seat` must pass.
    pub(crate) fn first_turn(&self, state: &State, seat: u8) -> Option<Move> {
        let mut first = None;
        let mut pick = None;
        for p in self.placements(state, seat) {
            first.get_or_insert(p);
            if p.net() >= 0 {
                pick = Some(p);
                break;
            }
        }
        let p = pick.or(first)?;
        let place = Action::Place {
            cell: p.cell,
            edges: p.edges,
        };
        let actions = match p.reach {
            Reach::Direct => vec![place],
            Reach::AfterBuying => vec![
                Action::Buy {
                    cell: p.cell,
                    tile: None,
                    paying: None,
                },
                place,
            ],
        };
        let mv = Move::Turn(actions);
        Some(self.resolve(state, seat as Seat, mv.clone()).unwrap_or(mv))
    }
}

impl RightOfWay {
    /// The tiles a placement costs besides the one placed: the price and the face-down
    /// tile of another player's right-of-way bought first (R13).
    pub(crate) fn purchase_tiles(&self, state: &State, p: &Placement) -> i64 {
        match p.reach {
            Reach::Direct => 0,
            Reach::AfterBuying => state.cells[p.cell as usize].row.len() as i64 + 1,
        }
    }

    /// What a placement does to victory points before anything is discarded: the
    /// points it brings its owner (its own tile and the owner's neighbours it
    /// completes) less those it brings other players. Placing never breaks a full
    /// connection; only discards do.
    pub(crate) fn points_swing(&self, state: &State, seat: u8, cell: u16, edges: u8) -> i64 {
        let neighbours = &self.neighbours[cell as usize];
        let meets = |at: u16, dir: usize| {
            let n = self.neighbours[at as usize][dir];
            if n == cell {
                return edges & (1 << opposite(dir)) != 0;
            }
            n != NO_CELL
                && state.cells[n as usize]
                    .highway
                    .is_some_and(|h| h.edges & (1 << opposite(dir)) != 0)
        };
        let mut swing = 0;
        if (0..6).all(|d| edges & (1 << d) == 0 || meets(cell, d)) {
            swing += i64::from(edges.count_ones());
        }
        for (dir, &n) in neighbours.iter().enumerate() {
            if n == NO_CELL || edges & (1 << dir) == 0 {
                continue;
            }
            let Some(h) = state.cells[n as usize].highway else {
                continue;
            };
            if h.edges & (1 << opposite(dir)) == 0 {
                continue;
            }
            if (0..6).all(|d| h.edges & (1 << d) == 0 || meets(n, d)) {
                let points = i64::from(h.edges.count_ones());
                swing += if h.owner == seat { points } else { -points };
            }
        }
        swing
    }

    /// The turn the rules suggest (`Rules::example_move`): the placement with the best
    /// net, less the tiles a purchase needed for it costs, among those whose result
    /// can be settled (R15); so never a loss while a placement without one exists.
    /// Ties go to the most victory points for the mover over the others, then to the
    /// tile with the fewest connections (the stronger tiles stay in hand), then to the
    /// first in the order of [`RightOfWay::placements`]. `None` only when `seat` must
    /// pass.
    pub(crate) fn best_turn(&self, state: &State, seat: u8) -> Option<Move> {
        let hand = state.players.get(seat as usize)?.hand.len();
        let loses = std::cell::OnceCell::new();
        let every_loses = || *loses.get_or_init(|| self.every_placement_loses(state, seat));
        let mut best: Option<((i64, i64, i64), Placement)> = None;
        for p in self.placements(state, seat) {
            let paid = self.purchase_tiles(state, &p);
            let hand_after = (hand as i64 - 1 - paid).max(0) as usize;
            if !Self::settles(p.net(), hand_after, every_loses) {
                continue;
            }
            let gain = p.net() - paid;
            if best.is_some_and(|((top, _, _), _)| gain < top) {
                continue;
            }
            let key = (
                gain,
                self.points_swing(state, seat, p.cell, p.edges),
                -i64::from(p.edges.count_ones()),
            );
            if best.is_none_or(|(top, _)| key > top) {
                best = Some((key, p));
            }
        }
        let (_, p) = best?;
        let place = Action::Place {
            cell: p.cell,
            edges: p.edges,
        };
        let actions = match p.reach {
            Reach::Direct => vec![place],
            Reach::AfterBuying => vec![
                Action::Buy {
                    cell: p.cell,
                    tile: None,
                    paying: None,
                },
                place,
            ],
        };
        let mv = Move::Turn(actions);
        self.resolve(state, seat as Seat, mv).ok()
    }
}

/// The kinds of tile in `seat`'s hand, each once, in hand order (the hand is sorted).
fn kinds_in_hand(state: &State, seat: u8) -> Vec<u8> {
    let mut kinds = state
        .players
        .get(seat as usize)
        .map(|p| p.hand.clone())
        .unwrap_or_default();
    kinds.dedup();
    kinds
}
