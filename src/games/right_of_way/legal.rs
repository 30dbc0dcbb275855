//! Listing legal moves (`pbem legal`) and sampling a random one quickly.

use serde_json::{json, Map, Value};

use super::moves::{mask_list, Action, Move};
use super::state::State;
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
        if !self.has_placement(state, me) {
            out.push(entry("pass".into(), "pass", Map::new()));
            return out;
        }
        let mut kinds = state.players[seat].hand.clone();
        kinds.dedup();
        for &kind in &kinds {
            for edges in self.rotations(kind) {
                for cell in 0..state.cells.len() {
                    if !self.placeable(state, me, cell) {
                        continue;
                    }
                    let cell = cell as u16;
                    let (cost, profit) = self.cost_profit(state, cell, edges);
                    let mv = Move::Turn(vec![Action::Place { cell, edges }]);
                    let mv = if profit < cost {
                        match self.resolve(state, seat, mv) {
                            Ok(m) => m,
                            Err(_) => continue,
                        }
                    } else {
                        mv
                    };
                    let mut d = Map::new();
                    d.insert("cell".into(), json!(self.label(cell)));
                    d.insert("edges".into(), json!(mask_list(edges)));
                    d.insert("tile".into(), json!(self.kinds[kind as usize].name));
                    d.insert("cost".into(), json!(cost));
                    d.insert("profit".into(), json!(profit));
                    out.push(entry(self.move_text(&mv), "place", d));
                }
            }
        }
        for cell in 0..state.cells.len() {
            let c = &state.cells[cell];
            if !c.is_city() || c.highway.is_some() || c.row_holder() == Some(me) {
                continue;
            }
            let height = c.row.len();
            if state.players[seat].hand.len() < height + 2 {
                continue;
            }
            let cell = cell as u16;
            let Some(mv) = self.default_buy_turn(state, me, cell) else {
                continue;
            };
            let Ok(mv) = self.resolve(state, seat, mv) else {
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
        let found = (0..state.cells.len()).find_map(|i| {
            let c = &state.cells[i];
            if !c.is_city() || c.highway.is_some() || !c.row.is_empty() {
                return None;
            }
            let mv = self.default_buy_turn(state, me, i as u16)?;
            self.resolve(state, seat, mv).ok()
        });
        match found {
            Some(mv) => format!("`{}`", self.move_text(&mv)),
            None => "none: no purchase is possible now".to_string(),
        }
    }

    /// A purchase with the default tiles, then the default placement: on the bought
    /// cell when it was another player's right-of-way (the reason to buy it), else on
    /// the first other cell in reading order where a placement is legal, with the
    /// hand tile that has the fewest connections, unrotated.
    fn default_buy_turn(&self, state: &State, me: u8, cell: u16) -> Option<Move> {
        let buy = Action::Buy {
            cell,
            tile: None,
            paying: None,
        };
        // The hand left for the placement: the purchase's defaults take the tiles with
        // the fewest connections.
        let mut after = state.clone();
        let c = &state.cells[cell as usize];
        let height = c.row.len();
        let hand = &mut after.players[me as usize].hand;
        for _ in 0..=height {
            let k = hand
                .iter()
                .copied()
                .min_by_key(|&k| (self.kinds[k as usize].connections(), k))?;
            let pos = hand.iter().position(|&h| h == k)?;
            hand.remove(pos);
        }
        let kind = *after.players[me as usize]
            .hand
            .iter()
            .min_by_key(|&&k| (self.kinds[k as usize].connections(), k))?;
        let target = if c.row.is_empty() {
            (0..state.cells.len())
                .find(|&i| i != cell as usize && self.placeable(state, me, i))
                .map_or(cell, |i| i as u16)
        } else {
            cell
        };
        Some(Move::Turn(vec![
            buy,
            Action::Place {
                cell: target,
                edges: self.kinds[kind as usize].mask,
            },
        ]))
    }

    /// A uniformly random placement (tile, rotation, cell), sometimes with a purchase
    /// first; no enumeration and no text, so whole games stay fast.
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
        let hand = &state.players[seat].hand;
        let mut cells: Vec<u16> = (0..n)
            .filter(|&i| self.placeable(state, me, i))
            .map(|i| i as u16)
            .collect();
        if hand.is_empty() || cells.is_empty() {
            return Some(Move::Pass);
        }
        let kind = hand[rng.draw(hand.len() as u32, Visibility::Public) as usize];
        let rot = rng.draw(6, Visibility::Public) as usize;
        let edges = rotate_mask(self.kinds[kind as usize].mask, rot);
        let mut actions = Vec::with_capacity(2);
        if hand.len() >= 2 && rng.draw(6, Visibility::Public) == 0 {
            // Buy somewhere: a free city tile or another player's right-of-way.
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
                let target = targets[rng.draw(targets.len() as u32, Visibility::Public) as usize];
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
                if !cells.contains(&target) {
                    cells.push(target);
                }
            }
        }
        let cell = cells[rng.draw(cells.len() as u32, Visibility::Public) as usize];
        actions.push(Action::Place { cell, edges });
        Some(Move::Turn(actions))
    }
}
