//! Listing legal moves (`pbem legal`) and sampling a random one quickly.

use serde_json::{json, Map, Value};

use std::cell::OnceCell;

use super::moves::{mask_list, Action, Move};
use super::state::State;
use super::turns::Reach;
use super::RightOfWay;
use crate::engine::rules::{Chance, LegalMove, Seat, Visibility};
use crate::grid::hex::rotate_mask;

fn entry(text: String, kind: &str, details: Map<String, Value>) -> LegalMove {
    LegalMove {
        text,
        kind: kind.to_string(),
        details,
    }
}

impl RightOfWay {
    /// The distinct edge sets a kind can take (symmetric tiles repeat rotations).
    pub(crate) fn rotations(&self, kind: u8) -> Vec<u8> {
        let mut out: Vec<u8> = Vec::with_capacity(6);
        for k in 0..6 {
            let m = rotate_mask(self.kinds[kind as usize].mask, k);
            if !out.contains(&m) {
                out.push(m);
            }
        }
        out
    }

    /// Every legal turn (`pbem legal`): `pass` alone when the player must pass (R22);
    /// else every placement whose result can be settled (R15), and for every right-of-way
    /// the player may buy, one complete turn with that purchase.
    pub(crate) fn legal(&self, state: &State, seat: Seat) -> Vec<LegalMove> {
        let mut out = Vec::new();
        if state.over || seat != state.to_move as usize || seat >= state.players.len() {
            return out;
        }
        let me = seat as u8;
        if state.setup {
            for i in 0..state.cells.len() {
                if self.city_spot(state, i) {
                    let label = self.label(i as u16).to_string();
                    let mut d = Map::new();
                    d.insert("cell".into(), json!(label));
                    out.push(entry(format!("city {label}"), "city", d));
                }
            }
            return out;
        }
        if self.must_pass(state, seat) {
            out.push(entry("pass".into(), "pass", Map::new()));
            return out;
        }
        let hand = state.players[seat].hand.len();
        let loses = OnceCell::new();
        let every_loses = || *loses.get_or_init(|| self.every_placement_loses(state, me));
        for p in self.placements(state, me) {
            if p.reach != Reach::Direct || !Self::settles(p.net(), hand - 1, every_loses) {
                continue;
            }
            let mv = Move::Turn(vec![Action::Place {
                cell: p.cell,
                edges: p.edges,
            }]);
            let mv = if p.net() < 0 {
                match self.resolve_knowing(state, seat, mv, Some(every_loses())) {
                    Ok(m) => m,
                    Err(_) => continue,
                }
            } else {
                mv
            };
            let mut d = Map::new();
            d.insert("cell".into(), json!(self.label(p.cell)));
            d.insert("edges".into(), json!(mask_list(p.edges)));
            d.insert("tile".into(), json!(self.kinds[p.kind as usize].name));
            d.insert("cost".into(), json!(p.cost));
            d.insert("profit".into(), json!(p.profit));
            out.push(entry(self.move_text(&mv), "place", d));
        }
        for cell in 0..state.cells.len() {
            let c = &state.cells[cell];
            if !c.is_city() || c.highway.is_some() || c.row_holder() == Some(me) {
                continue;
            }
            let height = c.row.len();
            let cell = cell as u16;
            let Some(mv) = self.buy_turn(state, me, cell, every_loses) else {
                continue;
            };
            let Ok(mv) = self.resolve_knowing(state, seat, mv, Some(every_loses())) else {
                continue;
            };
            let mut d = Map::new();
            d.insert("cell".into(), json!(self.label(cell)));
            d.insert("price".into(), json!(height));
            out.push(entry(self.move_text(&mv), "buy", d));
        }
        out
    }

    /// A complete turn with a purchase that is legal now, in backticks, for error
    /// messages: the first free city tile in label order, as `pbem legal` lists it.
    pub(crate) fn example_buy(&self, state: &State, seat: Seat) -> String {
        let me = seat as u8;
        let loses = OnceCell::new();
        let every_loses = || *loses.get_or_init(|| self.every_placement_loses(state, me));
        let found = (0..state.cells.len()).find_map(|i| {
            let c = &state.cells[i];
            if !c.is_city() || c.highway.is_some() || !c.row.is_empty() {
                return None;
            }
            let mv = self.buy_turn(state, me, i as u16, every_loses)?;
            self.resolve_knowing(state, seat, mv, Some(every_loses()))
                .ok()
        });
        match found {
            Some(mv) => format!("`{}`", self.move_text(&mv)),
            None => "none: no purchase is possible now".to_string(),
        }
    }

    /// A purchase of `cell` with the default tiles, then a placement whose result can be
    /// settled (R15): on the bought cell when it was another player's right-of-way (the
    /// reason to buy it); else on the first other cell in label order where a
    /// placement is legal, or the bought cell itself. Tried first: the tile the
    /// purchase leaves with the fewest connections, unrotated; then the other rotations
    /// and tiles, in hand order. `None` when the purchase is not affordable or no
    /// placement after it settles.
    fn buy_turn(
        &self,
        state: &State,
        me: u8,
        cell: u16,
        every_loses: impl Fn() -> bool,
    ) -> Option<Move> {
        let c = state.cells.get(cell as usize)?;
        let hand = &state.players.get(me as usize)?.hand;
        let height = c.row.len();
        if !c.is_city() || c.highway.is_some() || c.row_holder() == Some(me) {
            return None;
        }
        // R12: the price, the face-down tile, and one tile left to place.
        let hand_after = hand.len().checked_sub(height + 2)?;
        // The purchase's defaults take the tiles with the fewest connections.
        let mut rest = hand.clone();
        for _ in 0..=height {
            let k = self.cheapest(&rest);
            let pos = rest.iter().position(|&h| h == k)?;
            rest.remove(pos);
        }
        let preferred = self.cheapest(&rest);
        let mut kinds = vec![preferred];
        for &k in hand {
            if !kinds.contains(&k) {
                kinds.push(k);
            }
        }
        let targets: Vec<u16> = if c.row.is_empty() {
            (0..state.cells.len())
                .filter(|&i| i != cell as usize && self.placeable(state, me, i))
                .map(|i| i as u16)
                .chain(std::iter::once(cell))
                .collect()
        } else {
            vec![cell]
        };
        for kind in kinds {
            for edges in self.rotations(kind) {
                for &target in &targets {
                    let (cost, profit) = self.cost_profit(state, target, edges);
                    if Self::settles(profit - cost, hand_after, &every_loses) {
                        return Some(Move::Turn(vec![
                            Action::Buy {
                                cell,
                                tile: None,
                                paying: None,
                            },
                            Action::Place {
                                cell: target,
                                edges,
                            },
                        ]));
                    }
                }
            }
        }
        None
    }

    /// A uniformly random placement (tile, rotation, cell), sometimes with a purchase
    /// first, and always with one when only another player's right-of-way can be built
    /// on; no enumeration and no text, so whole games stay fast. A draw whose loss
    /// cannot be settled (R15) is drawn again, a few times, before falling back to
    /// [`RightOfWay::first_turn`].
    pub(crate) fn sample(&self, state: &State, seat: Seat, rng: &mut dyn Chance) -> Option<Move> {
        if state.over || seat != state.to_move as usize {
            return None;
        }
        let me = seat as u8;
        let n = state.cells.len();
        if state.setup {
            let spots: Vec<u16> = (0..n)
                .filter(|&i| self.city_spot(state, i))
                .map(|i| i as u16)
                .collect();
            if spots.is_empty() {
                return None;
            }
            return Some(Move::City(
                spots[rng.draw(spots.len() as u32, Visibility::Public) as usize],
            ));
        }
        if self.must_pass(state, seat) {
            return Some(Move::Pass);
        }
        let hand = &state.players[seat].hand;
        let direct: Vec<u16> = (0..n)
            .filter(|&i| self.reach(state, me, i) == Some(Reach::Direct))
            .map(|i| i as u16)
            .collect();
        let loses = OnceCell::new();
        let every_loses = || *loses.get_or_init(|| self.every_placement_loses(state, me));
        for _ in 0..4 {
            let kind = hand[rng.draw(hand.len() as u32, Visibility::Public) as usize];
            let rot = rng.draw(6, Visibility::Public) as usize;
            let edges = rotate_mask(self.kinds[kind as usize].mask, rot);
            let mut cells = direct.clone();
            let mut actions = Vec::with_capacity(2);
            let mut hand_after = hand.len() - 1;
            let wants_to_buy = hand.len() >= 2 && rng.draw(6, Visibility::Public) == 0;
            if wants_to_buy || cells.is_empty() {
                // Buy somewhere: a free city tile or another player's right-of-way; with
                // no cell to build on directly, such a right-of-way (must_pass is false,
                // so there is one).
                let targets: Vec<u16> = (0..n)
                    .filter(|&i| {
                        let c = &state.cells[i];
                        c.is_city()
                            && c.highway.is_none()
                            && c.row_holder() != Some(me)
                            && hand.len() >= c.row.len() + 2
                    })
                    .map(|i| i as u16)
                    .collect();
                if !targets.is_empty() {
                    let target =
                        targets[rng.draw(targets.len() as u32, Visibility::Public) as usize];
                    let mut rest = hand.clone();
                    if let Some(p) = rest.iter().position(|&k| k == kind) {
                        rest.remove(p);
                    }
                    let height = state.cells[target as usize].row.len();
                    let tile = rest[0];
                    let paying = rest[1..=height].to_vec();
                    actions.push(Action::Buy {
                        cell: target,
                        tile: Some(tile),
                        paying: Some(paying),
                    });
                    hand_after -= height + 1;
                    if !cells.contains(&target) {
                        cells.push(target);
                    }
                }
            }
            if cells.is_empty() {
                break;
            }
            let cell = cells[rng.draw(cells.len() as u32, Visibility::Public) as usize];
            actions.push(Action::Place { cell, edges });
            let (cost, profit) = self.cost_profit(state, cell, edges);
            if Self::settles(profit - cost, hand_after, every_loses) {
                return Some(Move::Turn(actions));
            }
        }
        self.first_turn(state, me)
    }
}
