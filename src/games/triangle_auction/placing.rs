//! Where a tile may go in a player's area (the roads it must join, the clashes and
//! dead ends it must not make), when a tile may be discarded (T12), and the placing
//! turn: applied step by step, and put in the one form the record keeps (T18).

use std::collections::BTreeMap;

use super::moves::{letter, Move, Step};
use super::state::{Phase, Placed, State};
use super::TriangleAuction;
use crate::engine::rules::{RuleError, Seat};
use crate::grid::triangle::{rotated, Cell, Outlets};

/// Why a tile may not be discarded: it fits on `cell` turned `rotation`, now (`first`
/// empty) or once the player's other tiles `first` (offer index, space, turn) are
/// placed in that order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DiscardBlock {
    pub first: Vec<(u8, Cell, u8)>,
    pub cell: Cell,
    pub rotation: u8,
}

/// At most how few steps from space to neighbouring space lead from `from` to `to` in
/// the triangular lattice, as a lower bound: a step along a row changes `index - row`
/// by one; a step across a bottom or top edge changes the row, and two such steps the
/// same way need a step along a row between them.
fn steps_at_least(from: Cell, to: Cell) -> usize {
    let across = |cell: Cell| i32::from(cell.index) - i32::from(cell.row);
    let along = (across(from) - across(to)).unsigned_abs() as usize;
    let rows = (i32::from(from.row) - i32::from(to.row)).unsigned_abs() as usize;
    along.max((2 * rows).saturating_sub(1))
}

/// The refusal of a discard of offer tile `index`, which `block` says how to place.
fn discard_refusal(index: u8, block: &DiscardBlock) -> RuleError {
    let id = letter(index);
    let last = format!("place {id} at {} r{}", block.cell.name(), block.rotation);
    if block.first.is_empty() {
        return RuleError::new(
            format!("tile {id} can still be placed, so it may not be discarded"),
            format!("place it, e.g. `{last}`"),
        );
    }
    let first: Vec<String> = block
        .first
        .iter()
        .map(|&(other, cell, rotation)| {
            format!("place {} at {} r{rotation}", letter(other), cell.name())
        })
        .collect();
    let names: Vec<String> = block
        .first
        .iter()
        .map(|&(other, _, _)| letter(other).to_string())
        .collect();
    RuleError::new(
        format!(
            "tile {id} fits once you have placed {}, so it may not be discarded (a tile is discarded only when no order of your tiles lets it fit)",
            names.join(" and ")
        ),
        format!("place them, e.g. `{}; {last}`", first.join("; ")),
    )
}

/// Why a tile cannot go on a space, before it is put in words.
enum Fault {
    Outside,
    Taken,
    /// A first tile goes on this space.
    NotStart(Cell),
    /// Its road of colour `mine` would meet one of colour `theirs` of `other`.
    Clash {
        mine: u8,
        theirs: u8,
        other: Cell,
    },
    /// A road would end at the edge of this placed tile or of the new one.
    DeadEnd(Cell),
    Unjoined,
}

impl TriangleAuction {
    /// The outlets of a tile as placed.
    pub(crate) fn placed_outlets(&self, placed: &Placed) -> Outlets {
        let tile = self
            .tiles
            .get(usize::from(placed.tile))
            .map_or([None; 3], |t| t.outlets);
        rotated(tile, placed.rotation)
    }

    pub(crate) fn area_map(&self, area: &[Placed]) -> BTreeMap<Cell, Outlets> {
        area.iter()
            .map(|placed| (placed.cell, self.placed_outlets(placed)))
            .collect()
    }

    /// Why `tile` cannot go on `cell` turned `rotation` in `area`; None when it can.
    pub(crate) fn placement_problem(
        &self,
        area: &BTreeMap<Cell, Outlets>,
        tile: u8,
        cell: Cell,
        rotation: u8,
    ) -> Option<String> {
        Some(match self.placement_fault(area, tile, cell, rotation)? {
            Fault::Outside => format!("{} is not a space of your area", cell.name()),
            Fault::Taken => format!("{} is taken", cell.name()),
            Fault::NotStart(start) => format!(
                "a first tile goes on {}, the middle of your open area",
                start.name()
            ),
            Fault::Clash {
                mine,
                theirs,
                other,
            } => format!(
                "its {} road would meet a {} road of {}",
                self.colour_names[usize::from(mine)],
                self.colour_names[usize::from(theirs)],
                other.name()
            ),
            Fault::DeadEnd(other) => format!(
                "a road would end at the edge of {} or of the new tile",
                other.name()
            ),
            Fault::Unjoined => {
                "it would not join your road: one of its roads must meet a road of the same colour"
                    .into()
            }
        })
    }

    /// Whether `tile` may go on `cell` turned `rotation` in `area`.
    pub(crate) fn fits(
        &self,
        area: &BTreeMap<Cell, Outlets>,
        tile: u8,
        cell: Cell,
        rotation: u8,
    ) -> bool {
        self.placement_fault(area, tile, cell, rotation).is_none()
    }

    /// The first reason (in the order [`TriangleAuction::placement_problem`] tells
    /// them) `tile` cannot go on `cell` turned `rotation`; found without writing it, as
    /// the search for where a tile fits rejects most places it tries.
    fn placement_fault(
        &self,
        area: &BTreeMap<Cell, Outlets>,
        tile: u8,
        cell: Cell,
        rotation: u8,
    ) -> Option<Fault> {
        if !cell.within(self.side) {
            return Some(Fault::Outside);
        }
        if area.contains_key(&cell) {
            return Some(Fault::Taken);
        }
        if let Some(start) = self.start.filter(|&start| area.is_empty() && cell != start) {
            return Some(Fault::NotStart(start));
        }
        let outlets = rotated(
            self.tiles
                .get(usize::from(tile))
                .map_or([None; 3], |t| t.outlets),
            rotation,
        );
        let mut connected = false;
        for edge in 0..3u8 {
            let Some((other, across)) = cell.neighbour(edge, self.side) else {
                continue;
            };
            let Some(theirs) = area.get(&other) else {
                continue;
            };
            let mine = outlets[usize::from(edge)];
            let facing = theirs[usize::from(across)];
            match (mine, facing) {
                (Some(a), Some(b)) if a == b => connected = true,
                (Some(mine), Some(theirs)) => {
                    return Some(Fault::Clash {
                        mine,
                        theirs,
                        other,
                    })
                }
                (Some(_), None) | (None, Some(_)) if !self.dead_ends => {
                    return Some(Fault::DeadEnd(other))
                }
                _ => {}
            }
        }
        if !area.is_empty() && !connected {
            return Some(Fault::Unjoined);
        }
        None
    }

    /// Every (cell, rotation) where `tile` may go in `area`.
    pub(crate) fn placements(&self, area: &BTreeMap<Cell, Outlets>, tile: u8) -> Vec<(Cell, u8)> {
        let spaces: Vec<Cell> = if area.is_empty() {
            match self.start {
                Some(start) => vec![start],
                None => Cell::all(self.side).collect(),
            }
        } else {
            // Only spaces next to a placed tile can join the road.
            let mut next: Vec<Cell> = area
                .keys()
                .flat_map(|cell| (0..3).filter_map(|e| cell.neighbour(e, self.side)))
                .map(|(cell, _)| cell)
                .filter(|cell| !area.contains_key(cell))
                .collect();
            next.sort_unstable();
            next.dedup();
            next
        };
        spaces
            .into_iter()
            .flat_map(|cell| (0..3).map(move |rotation| (cell, rotation)))
            .filter(|&(cell, rotation)| self.fits(area, tile, cell, rotation))
            .collect()
    }

    /// Why the tile of offer index `index` (tile-set `tile`) may not be discarded from
    /// `area` while the player still holds the offer tiles `held` (it among them, or
    /// not): None when it may. "Any tiles that a player cannot place are discarded"
    /// (T12): with `discards=any_order` a tile may not be discarded while some order of
    /// the player's other tiles still to place, each placed where it fits, lets it fit;
    /// with `discards=now` only while it fits now.
    pub(crate) fn discard_block(
        &self,
        state: &State,
        area: &BTreeMap<Cell, Outlets>,
        index: u8,
        held: &[u8],
    ) -> Option<DiscardBlock> {
        let tile = state.offer.get(usize::from(index))?.tile;
        if let Some(&(cell, rotation)) = self.placements(area, tile).first() {
            return Some(DiscardBlock {
                first: Vec::new(),
                cell,
                rotation,
            });
        }
        if !self.discards_in_any_order {
            return None;
        }
        let others: Vec<(u8, u8)> = held
            .iter()
            .filter(|&&other| other != index)
            .filter_map(|&other| Some((other, state.offer.get(usize::from(other))?.tile)))
            .collect();
        // Where the tile could go once a tile of the player's joins it: empty spaces
        // whose placed neighbours it meets without a clash in some turn. A space where
        // it also met a road of a placed tile would be a place it fits now.
        // In an open area only spaces the player's tiles can reach are worth trying
        // (the rest can never be joined); a bounded area tries them all, as it did.
        let candidates: Vec<Cell> = match self.start {
            Some(_) => self.within_steps(area, others.len() + 1),
            None => Cell::all(self.side).collect(),
        };
        let targets: Vec<Cell> = candidates
            .into_iter()
            .filter(|cell| !area.contains_key(cell))
            .filter(|&cell| {
                (0..3).any(|rotation| self.clash_free(area, tile, cell, rotation))
                    && (0..3).any(|edge| {
                        cell.neighbour(edge, self.side)
                            .is_some_and(|(next, _)| !area.contains_key(&next))
                    })
            })
            .collect();
        if targets.is_empty() || others.is_empty() {
            return None;
        }
        let mut area = area.clone();
        let mut chain = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        self.fits_after(&mut area, tile, &others, &targets, &mut chain, &mut seen)
    }

    /// The empty spaces at most `steps` steps from a placed tile, in order.
    fn within_steps(&self, area: &BTreeMap<Cell, Outlets>, steps: usize) -> Vec<Cell> {
        let mut reached: std::collections::BTreeSet<Cell> = std::collections::BTreeSet::new();
        let mut frontier: Vec<Cell> = area.keys().copied().collect();
        for _ in 0..steps {
            let next: Vec<Cell> = frontier
                .iter()
                .flat_map(|cell| (0..3).filter_map(|e| cell.neighbour(e, self.side)))
                .map(|(cell, _)| cell)
                .filter(|cell| !area.contains_key(cell) && reached.insert(*cell))
                .collect();
            frontier = next;
        }
        reached.into_iter().collect()
    }

    /// Whether `tile` on `cell` turned `rotation` meets every placed neighbour without
    /// a clash (a road meeting another colour, or a dead end where they are
    /// forbidden), joined to the road or not.
    fn clash_free(
        &self,
        area: &BTreeMap<Cell, Outlets>,
        tile: u8,
        cell: Cell,
        rotation: u8,
    ) -> bool {
        let outlets = rotated(
            self.tiles
                .get(usize::from(tile))
                .map_or([None; 3], |t| t.outlets),
            rotation,
        );
        (0..3u8).all(|edge| {
            let Some((other, across)) = cell.neighbour(edge, self.side) else {
                return true;
            };
            let Some(theirs) = area.get(&other) else {
                return true;
            };
            match (outlets[usize::from(edge)], theirs[usize::from(across)]) {
                (Some(a), Some(b)) => a == b,
                (Some(_), None) | (None, Some(_)) => self.dead_ends,
                (None, None) => true,
            }
        })
    }

    /// Depth first: places the `others` (offer index, tile), one at a time, each where
    /// it fits, until `tile` fits on one of the `targets`; the placements in order and
    /// where it then fits, or None when no order of them lets it fit. A tile is placed
    /// only where a chain of the tiles left could still reach a target (a lower bound
    /// of the steps between spaces), and a set of placements is tried once whatever
    /// the order that reached it (`seen`).
    fn fits_after(
        &self,
        area: &mut BTreeMap<Cell, Outlets>,
        tile: u8,
        others: &[(u8, u8)],
        targets: &[Cell],
        chain: &mut Vec<(u8, Cell, u8)>,
        seen: &mut std::collections::BTreeSet<Vec<(u8, Cell, u8)>>,
    ) -> Option<DiscardBlock> {
        for (position, &(index, other)) in others.iter().enumerate() {
            let rest: Vec<(u8, u8)> = others
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != position)
                .map(|(_, &o)| o)
                .collect();
            let reach = rest.len() + 1;
            for (cell, rotation) in self.placements(area, other) {
                if !targets
                    .iter()
                    .any(|&target| steps_at_least(cell, target) <= reach)
                {
                    continue;
                }
                chain.push((index, cell, rotation));
                let mut key = chain.clone();
                key.sort_unstable();
                if seen.insert(key) {
                    let placed = Placed {
                        cell,
                        tile: other,
                        rotation,
                    };
                    area.insert(cell, self.placed_outlets(&placed));
                    // Only a space next to the tile just placed can have become one
                    // where `tile` fits.
                    let fits = (0..3).find_map(|edge| {
                        let (next, _) = cell.neighbour(edge, self.side)?;
                        (0..3)
                            .find(|&r| self.fits(area, tile, next, r))
                            .map(|r| (next, r))
                    });
                    let found = match fits {
                        Some((at, turned)) => Some(DiscardBlock {
                            first: chain.clone(),
                            cell: at,
                            rotation: turned,
                        }),
                        None => self.fits_after(area, tile, &rest, targets, chain, seen),
                    };
                    area.remove(&cell);
                    if found.is_some() {
                        return found;
                    }
                }
                chain.pop();
            }
        }
        None
    }

    /// A placing turn as the record keeps it (T18): at most one step per tile won, in
    /// one order whatever order the player wrote, identical tiles lettered by where
    /// they go. A turn's draws (the next round's offer, when it ends the round) are
    /// keyed on the move's text, so two spellings of one turn must have one text.
    ///
    /// # Errors
    /// More steps than tiles left to place.
    pub(crate) fn placing_as_recorded(
        &self,
        state: &State,
        seat: Seat,
        mv: Move,
    ) -> Result<Move, RuleError> {
        let Move::Place(steps) = mv else {
            return Ok(mv);
        };
        let Some(player) = state.players.get(seat) else {
            return Ok(Move::Place(steps));
        };
        let won = &player.won;
        if steps.len() > won.len() {
            let yours: Vec<String> = won.iter().map(|&w| letter(w).to_string()).collect();
            return Err(RuleError::new(
                format!(
                    "the turn has {} steps and you hold {} tiles to place",
                    steps.len(),
                    won.len()
                ),
                if yours.is_empty() {
                    "no placing now: you won no tile this round".to_string()
                } else {
                    format!(
                        "one step for each of your tiles to place ({}), or fewer",
                        yours.join(", ")
                    )
                },
            ));
        }
        let area = self.area_map(&player.area);
        let mut written = area.clone();
        let mut held = won.clone();
        let accepted = steps.iter().all(|step| {
            let known = held.contains(&step.tile())
                && self.try_step(state, &mut written, &held, step).is_some();
            held.retain(|&w| w != step.tile());
            known
        });
        if !accepted {
            // `apply` refuses the turn as written, and says why in its words.
            return Ok(Move::Place(steps));
        }
        let alike = self.copies_in_order(state, &steps);
        Ok(Move::Place(
            self.first_legal_order(state, seat, area, &alike)
                .unwrap_or(steps),
        ))
    }

    /// A player's placing turns of one round as the one turn that would have been
    /// recorded had they sent every step in one message (format 4's combined move):
    /// `earlier` is what the player's earlier turns of the round come to, as recorded,
    /// `latest` the turn made now in `state`, the position after the earlier ones. The
    /// position the player's first turn of the round was made in is found again by
    /// taking the earlier steps back (each player places in their own area, so nobody
    /// else's turn changed it), and the steps of both are put in their recorded form
    /// from there (T18): the same steps give the same text however they were split.
    ///
    /// # Errors
    /// A turn that is not a placing turn, or an `earlier` that does not read.
    pub(crate) fn placing_combined(
        &self,
        state: &State,
        seat: Seat,
        earlier: &str,
        latest: &Move,
    ) -> Result<Move, RuleError> {
        let (Phase::Placing, Move::Place(latest)) = (state.phase, latest) else {
            return Err(RuleError::new(
                "only placing turns are made more than once a round",
                "one move for each round",
            ));
        };
        let Move::Place(before) =
            super::moves::parse_place(earlier, &self.tile_words(state, None), self.side)?
        else {
            return Err(RuleError::new(
                "the earlier turns of the round are not placing turns",
                "placing turns",
            ));
        };
        let mut start = state.clone();
        let Some(player) = start.players.get_mut(seat) else {
            return Err(RuleError::new("no such seat", "a seat of the game"));
        };
        for step in &before {
            match *step {
                Step::Place { cell, .. } => player.area.retain(|placed| placed.cell != cell),
                Step::Discard { tile } => {
                    let design = state.offer.get(usize::from(tile)).map(|offer| offer.tile);
                    if let Some(at) = start.discarded.iter().rposition(|&d| Some(d) == design) {
                        start.discarded.remove(at);
                    }
                }
            }
            player.won.push(step.tile());
        }
        player.won.sort_unstable();
        player.won.dedup();
        let steps = before.iter().chain(latest).copied().collect();
        self.placing_as_recorded(&start, seat, Move::Place(steps))
    }

    /// What `place` does with `step` on `area`: `None` when it refuses the step (a
    /// tile that does not fit there, or a discard of a tile that fits somewhere), else
    /// the space it took, if any, now in `area`.
    fn try_step(
        &self,
        state: &State,
        area: &mut BTreeMap<Cell, Outlets>,
        held: &[u8],
        step: &Step,
    ) -> Option<Option<Cell>> {
        let tile = state.offer.get(usize::from(step.tile()))?.tile;
        match *step {
            Step::Place { cell, rotation, .. } => {
                if !self.fits(area, tile, cell, rotation) {
                    return None;
                }
                let placed = Placed {
                    cell,
                    tile,
                    rotation,
                };
                area.insert(cell, self.placed_outlets(&placed));
                Some(Some(cell))
            }
            Step::Discard { tile: index } => self
                .discard_block(state, area, index, held)
                .is_none()
                .then_some(None),
        }
    }

    /// The steps with the letters of identical tiles (the two copies of a design, say
    /// A and D) given out in one order: the first letter to the first place (by space,
    /// then rotation; discards last). Which copy lies where changes nothing in the
    /// game, so it must not change the text.
    fn copies_in_order(&self, state: &State, steps: &[Step]) -> Vec<Step> {
        let outlets = |step: &Step| {
            let tile = state.offer[usize::from(step.tile())].tile;
            self.tiles.get(usize::from(tile)).map(|t| t.outlets)
        };
        let slot = |step: &Step| match *step {
            Step::Place { cell, rotation, .. } => (0, Some(cell), rotation),
            Step::Discard { .. } => (1, None, 0),
        };
        let mut designs: Vec<_> = steps.iter().map(outlets).collect();
        designs.sort_unstable();
        designs.dedup();
        let mut out = steps.to_vec();
        for design in designs {
            let same: Vec<usize> = (0..steps.len())
                .filter(|&i| outlets(&steps[i]) == design)
                .collect();
            let mut letters: Vec<u8> = same.iter().map(|&i| steps[i].tile()).collect();
            letters.sort_unstable();
            let mut places: Vec<usize> = same.clone();
            places.sort_by_key(|&i| slot(&steps[i]));
            for (&i, tile) in places.iter().zip(letters) {
                out[i] = match steps[i] {
                    Step::Place { cell, rotation, .. } => Step::Place {
                        tile,
                        cell,
                        rotation,
                    },
                    Step::Discard { .. } => Step::Discard { tile },
                };
            }
        }
        out
    }

    /// The order, among those `place` accepts for these steps from `area`, that comes
    /// first by tile letter (A before B at the first step that differs); None when no
    /// order is accepted. Each step placed or discarded changes what the next may do
    /// (a tile must join the road placed before it; a tile may be discarded only where
    /// it fits nowhere at that point), so the letters' order alone may be refused
    /// where another is accepted; the result of any accepted order is the same tiles
    /// on the same spaces and the same tiles discarded.
    fn first_legal_order(
        &self,
        state: &State,
        seat: Seat,
        mut area: BTreeMap<Cell, Outlets>,
        steps: &[Step],
    ) -> Option<Vec<Step>> {
        // A turn has at most one step per tile of the offer (2n + 1, at most 11).
        if steps.len() > 16 {
            return None;
        }
        let mut by_letter = steps.to_vec();
        by_letter.sort_by_key(|s| s.tile());
        let mut order = Vec::new();
        let mut dead = std::collections::BTreeSet::new();
        self.complete_order(state, seat, &mut area, &by_letter, 0, &mut order, &mut dead)
            .then_some(order)
    }

    /// Depth first, letters in order: extends `order` (the steps of `done`, a set of
    /// bits over `steps`) to every step. The area after a set of steps does not depend
    /// on their order, so a set found to lead nowhere (`dead`) is not tried again.
    #[allow(clippy::too_many_arguments)]
    fn complete_order(
        &self,
        state: &State,
        seat: Seat,
        area: &mut BTreeMap<Cell, Outlets>,
        steps: &[Step],
        done: u32,
        order: &mut Vec<Step>,
        dead: &mut std::collections::BTreeSet<u32>,
    ) -> bool {
        if order.len() == steps.len() {
            return true;
        }
        if dead.contains(&done) {
            return false;
        }
        for (i, step) in steps.iter().enumerate() {
            let bit = 1u32 << i;
            if done & bit != 0 {
                continue;
            }
            // The tiles still held before this step: those won, less the steps done.
            let held: Vec<u8> = state.players[seat]
                .won
                .iter()
                .copied()
                .filter(|&w| {
                    !steps
                        .iter()
                        .enumerate()
                        .any(|(j, s)| done & (1u32 << j) != 0 && s.tile() == w)
                })
                .collect();
            let Some(placed) = self.try_step(state, area, &held, step) else {
                continue;
            };
            order.push(*step);
            if self.complete_order(state, seat, area, steps, done | bit, order, dead) {
                return true;
            }
            order.pop();
            if let Some(cell) = placed {
                area.remove(&cell);
            }
        }
        dead.insert(done);
        false
    }

    pub(super) fn place(
        &self,
        state: &mut State,
        seat: Seat,
        steps: &[Step],
    ) -> Result<(), RuleError> {
        if state.players[seat].won.is_empty() {
            return Err(RuleError::new(
                "you have no tile to place",
                "wait for the next round",
            ));
        }
        let mut area = self.area_map(&state.players[seat].area);
        for step in steps {
            let index = match step {
                Step::Place { tile, .. } | Step::Discard { tile } => *tile,
            };
            let player = &state.players[seat];
            let Some(position) = player.won.iter().position(|&w| w == index) else {
                let yours: Vec<String> =
                    player.won.iter().map(|&w| letter(w).to_string()).collect();
                return Err(RuleError::new(
                    format!("tile {} is not one you won and still hold", letter(index)),
                    format!("your tiles to place: {}", yours.join(", ")),
                ));
            };
            let tile = state.offer[usize::from(index)].tile;
            match *step {
                Step::Place { cell, rotation, .. } => {
                    if let Some(problem) = self.placement_problem(&area, tile, cell, rotation) {
                        let fits = self.placements(&area, tile);
                        let accepted = match fits.first() {
                            Some((cell, rotation)) => format!(
                                "a space where it joins your road, e.g. `place {} at {} r{rotation}`",
                                letter(index),
                                cell.name()
                            ),
                            None => format!("it fits nowhere: `discard {}`", letter(index)),
                        };
                        return Err(RuleError::new(
                            format!(
                                "tile {} cannot go on {} r{rotation}: {problem}",
                                letter(index),
                                cell.name()
                            ),
                            accepted,
                        ));
                    }
                    let placed = Placed {
                        cell,
                        tile,
                        rotation,
                    };
                    area.insert(cell, self.placed_outlets(&placed));
                    state.players[seat].area.push(placed);
                }
                Step::Discard { .. } => {
                    // "Any tiles that a player cannot place are discarded": only those.
                    let held = state.players[seat].won.clone();
                    if let Some(block) = self.discard_block(state, &area, index, &held) {
                        return Err(discard_refusal(index, &block));
                    }
                    state.discarded.push(tile);
                }
            }
            state.players[seat].won.remove(position);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rules::Rules;
    use crate::engine::DrawStream;

    fn rules() -> TriangleAuction {
        TriangleAuction::from_data(
            TriangleAuction::DEFAULT_DATA,
            &crate::engine::rules::Options::new(),
        )
        .expect("the built-in data")
    }

    fn names(count: usize) -> Vec<String> {
        ["Ann", "Bob", "Cid", "Dee", "Eve"][..count]
            .iter()
            .map(|n| (*n).to_string())
            .collect()
    }

    fn permutations(steps: &[Step]) -> Vec<Vec<Step>> {
        if steps.len() <= 1 {
            return vec![steps.to_vec()];
        }
        let mut all = Vec::new();
        for i in 0..steps.len() {
            let mut rest = steps.to_vec();
            let first = rest.remove(i);
            for mut tail in permutations(&rest) {
                tail.insert(0, first);
                all.push(tail);
            }
        }
        all
    }

    /// Every tile `seat` won, each at a place `pick` chooses among those it fits given
    /// the ones before it, or discarded where it fits nowhere: a placing turn
    /// `place` accepts in this order.
    fn some_turn(
        rules: &TriangleAuction,
        state: &State,
        seat: Seat,
        pick: &mut DrawStream,
    ) -> Vec<Step> {
        let mut area = rules.area_map(&state.players[seat].area);
        let mut steps = Vec::new();
        for &index in &state.players[seat].won {
            let tile = state.offer[usize::from(index)].tile;
            let fits = rules.placements(&area, tile);
            if fits.is_empty() {
                steps.push(Step::Discard { tile: index });
                continue;
            }
            let (cell, rotation) = fits[pick.index(fits.len() as u32) as usize];
            let placed = Placed {
                cell,
                tile,
                rotation,
            };
            area.insert(cell, rules.placed_outlets(&placed));
            steps.push(Step::Place {
                tile: index,
                cell,
                rotation,
            });
        }
        steps
    }

    /// What a placing turn leaves: the player's area by space and the tiles discarded,
    /// whatever the order they were placed in.
    fn outcome(
        rules: &TriangleAuction,
        state: &State,
        seat: Seat,
    ) -> (BTreeMap<Cell, Outlets>, Vec<u8>) {
        let mut discarded = state.discarded.clone();
        discarded.sort_unstable();
        (rules.area_map(&state.players[seat].area), discarded)
    }

    /// Over random games, every placing turn of two tiles or more in every order
    /// `place` accepts: one canonical text, which reads back to itself and applies to
    /// the same area and discards as the order written; an order it refuses is still
    /// refused.
    #[test]
    fn every_accepted_order_of_a_placing_turn_is_recorded_alike() {
        let rules = rules();
        let mut turns = 0;
        let mut refused_orders = 0;
        for (players, seed) in [(3, 1), (4, 2), (5, 3), (3, 4)] {
            let mut chance = DrawStream::for_testing(seed);
            let mut pick = DrawStream::for_testing(seed + 50);
            let mut state = rules.setup(&names(players), &mut chance).expect("setup");
            while !rules.is_over(&state) {
                let waiting = rules.to_move(&state);
                let seat = waiting[pick.index(waiting.len() as u32) as usize];
                if state.phase == Phase::Placing && state.players[seat].won.len() >= 2 {
                    let written = some_turn(&rules, &state, seat, &mut pick);
                    let mut canonical: Option<(String, State)> = None;
                    for order in permutations(&written) {
                        let as_written = Move::Place(order.clone());
                        let text = super::super::moves::canonical(&as_written);
                        let Ok(after) =
                            rules.play(&state, seat, &as_written, &mut DrawStream::for_testing(9))
                        else {
                            // An order `place` refuses stays refused (T12).
                            let read = rules.parse_move(&state, seat, &text).expect("reads");
                            let mut chance = DrawStream::for_testing(9);
                            assert!(
                                rules.apply(&state, seat, &read, &mut chance).is_err(),
                                "{text}"
                            );
                            refused_orders += 1;
                            continue;
                        };
                        let mv = made(&rules, &state, seat, &text).expect("reads");
                        let recorded = rules.canonical_text(&mv);
                        let again = rules
                            .parse_move(&state, seat, &recorded)
                            .expect("reads back");
                        assert_eq!(rules.canonical_text(&again), recorded);
                        let applied = rules
                            .apply(&state, seat, &again, &mut DrawStream::for_testing(9))
                            .unwrap_or_else(|e| panic!("{recorded} (from {text}): {e}"));
                        assert_eq!(
                            outcome(&rules, &applied, seat),
                            outcome(&rules, &after, seat),
                            "{text}"
                        );
                        match &canonical {
                            None => canonical = Some((recorded, applied)),
                            Some((first, first_state)) => {
                                assert_eq!(&recorded, first, "{text}");
                                assert_eq!(&applied, first_state, "{text}");
                            }
                        }
                    }
                    turns += 1;
                }
                let mv = rules.sample_move(&state, seat, &mut pick).expect("a move");
                state = rules
                    .apply(&state, seat, &mv, &mut chance)
                    .expect("applies");
            }
        }
        assert!(turns >= 10, "{turns} placing turns of two tiles or more");
        assert!(
            refused_orders > 0,
            "some orders are refused where others are not"
        );
    }

    /// A position of Ann's placing turn: tiles A to D on offer, the first two copies of
    /// one design and the next two of another; she won them all.
    fn placing(rules: &TriangleAuction) -> State {
        let mut state = rules
            .setup(&names(3), &mut DrawStream::for_testing(7))
            .expect("setup");
        state.phase = Phase::Placing;
        // The tile set holds each design twice in a row: 0 and 1 alike, 20 and 21.
        state.offer = [0, 1, 20, 21]
            .into_iter()
            .map(|tile| super::super::state::Offer { tile, bid: None })
            .collect();
        assert_eq!(rules.tiles[0], rules.tiles[1]);
        assert_eq!(rules.tiles[20], rules.tiles[21]);
        state.players[0].won = vec![0, 1, 2, 3];
        state
    }

    #[test]
    fn copies_of_one_design_are_recorded_by_where_they_go() {
        let rules = rules();
        let state = placing(&rules);
        let mut pick = DrawStream::for_testing(3);
        let turn = some_turn(&rules, &state, 0, &mut pick);
        let swapped: Vec<Step> = turn
            .iter()
            .map(|step| {
                // A for B, C for D and back: the same designs on the same spaces.
                let other = step.tile() ^ 1;
                match *step {
                    Step::Place { cell, rotation, .. } => Step::Place {
                        tile: other,
                        cell,
                        rotation,
                    },
                    Step::Discard { .. } => Step::Discard { tile: other },
                }
            })
            .collect();
        let text = |steps: &[Step]| {
            let written = super::super::moves::canonical(&Move::Place(steps.to_vec()));
            made(&rules, &state, 0, &written)
                .map(|mv| rules.canonical_text(&mv))
                .expect("reads")
        };
        assert_ne!(
            super::super::moves::canonical(&Move::Place(turn.clone())),
            super::super::moves::canonical(&Move::Place(swapped.clone()))
        );
        assert_eq!(text(&turn), text(&swapped));
    }

    /// A move as the engine makes it now: read, then put in its recorded form.
    fn made(
        rules: &TriangleAuction,
        state: &State,
        seat: Seat,
        text: &str,
    ) -> Result<Move, RuleError> {
        rules
            .parse_move(state, seat, text)
            .and_then(|mv| rules.as_recorded(state, seat, mv))
    }

    #[test]
    fn a_placing_turn_names_each_tile_won_once() {
        let rules = rules();
        let mut state = placing(&rules);
        state.players[0].won = vec![0, 2];
        let error = made(
            &rules,
            &state,
            0,
            "place A at E5 r0; place C at E6 r0; discard B",
        )
        .expect_err("three steps for two tiles");
        assert!(
            error.problem.contains("3 steps and you hold 2 tiles")
                && error.accepted.contains("(A, C)"),
            "{error}"
        );
        let error = made(&rules, &state, 0, "place A at E5 r0; discard A").expect_err("A twice");
        assert!(error.problem.contains("named twice"), "{error}");
        let error = made(&rules, &state, 1, "place A at E5 r0").expect_err("Bob won nothing");
        assert!(error.accepted.contains("you won no tile"), "{error}");
    }
}
