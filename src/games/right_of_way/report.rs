//! What a turn did (`Rules::report`), why a move needs confirming under
//! `confirm=losses`, and how the game ended with each score broken down.
//!
//! Rules do no I/O, so a report is worked out from the states before and after the
//! turn and the move. The turn is played again on `before` with draws that give the
//! tiles the mover's stack lost, which rebuilds what the move's text leaves to the
//! draws (a purchase after a profitable placement takes its default tiles from a hand
//! the draws changed).

use std::collections::BTreeSet;

use super::moves::{Action, DiscardItem, Move};
use super::play::TurnReport;
use super::state::{FaceDown, State};
use super::RightOfWay;
use crate::engine::rules::{Chance, GameEnd, ReportLine, Seat, Visibility};

/// Draws that give back, one by one, the tiles a turn is known to have drawn: each
/// draw picks from a copy of the stack the first tile still owed. Stacks keep their
/// canonical order, so the stack left over is the one the turn left.
struct Redraw {
    stack: Vec<u8>,
    owed: Vec<u8>,
}

impl Chance for Redraw {
    fn draw(&mut self, _n: u32, _visibility: Visibility) -> u32 {
        for (i, kind) in self.owed.iter().enumerate() {
            if let Some(at) = self.stack.iter().position(|k| k == kind) {
                self.stack.remove(at);
                self.owed.remove(i);
                return u32::try_from(at).unwrap_or(0);
            }
        }
        0
    }
}

/// The tiles in `before` but not in `after`, both lists sorted by kind.
fn removed(before: &[u8], after: &[u8]) -> Vec<u8> {
    let mut left = after.to_vec();
    let mut out = Vec::new();
    for &kind in before {
        match left.iter().position(|&k| k == kind) {
            Some(at) => {
                left.remove(at);
            }
            None => out.push(kind),
        }
    }
    out
}

pub(crate) fn name_of(names: &[String], seat: usize) -> String {
    names
        .get(seat)
        .cloned()
        .unwrap_or_else(|| format!("seat {seat}"))
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl RightOfWay {
    pub(crate) fn tile_names(&self, tiles: &[u8]) -> String {
        tiles
            .iter()
            .map(|&k| self.kinds[k as usize].name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn kind_label(&self, kind: u8) -> &str {
        self.kinds
            .get(kind as usize)
            .map_or("?", |k| k.name.as_str())
    }

    /// The cells whose highway is fully connected (R24), in cell order.
    pub(crate) fn connected_cells(&self, state: &State) -> BTreeSet<u16> {
        (0..state.cells.len())
            .map(|i| i as u16)
            .filter(|&i| self.fully_connected(state, i))
            .collect()
    }

    /// The turn `mv` of `seat` played again on `before`, drawing the tiles the
    /// mover's stack lost between `before` and `after`; `None` when it does not
    /// reproduce `after` (it always should).
    fn replayed_turn(
        &self,
        before: &State,
        seat: Seat,
        mv: &Move,
        after: &State,
    ) -> Option<(TurnReport, Vec<u8>)> {
        let stack_before = &before.players.get(seat)?.stack;
        let drawn = removed(stack_before, &after.players.get(seat)?.stack);
        let mut chance = Redraw {
            stack: stack_before.clone(),
            owed: drawn.clone(),
        };
        let (state, report) = self.play(before, seat, mv, Some(&mut chance)).ok()?;
        (state == *after).then_some((report, drawn))
    }

    /// One discarded tile in words: `I` from hand, or what left the board.
    fn discard_text(&self, before: &State, me: u8, item: DiscardItem) -> String {
        match item {
            DiscardItem::Hand(kind) => self.kind_label(kind).to_string(),
            DiscardItem::Placed(cell) => {
                let kind = before.cells[cell as usize].highway.map_or(0, |h| h.kind);
                format!(
                    "the highway {} on {}",
                    self.kind_label(kind),
                    self.label(cell)
                )
            }
            DiscardItem::Row(cell) => {
                let kind = before.cells[cell as usize]
                    .row
                    .iter()
                    .rev()
                    .find(|t| t.owner == me)
                    .map_or(0, |t| t.kind);
                format!(
                    "the face-down {} on {}",
                    self.kind_label(kind),
                    self.label(cell)
                )
            }
        }
    }

    fn discards_text(&self, before: &State, me: u8, items: &[DiscardItem]) -> String {
        let hand: Vec<u8> = items
            .iter()
            .filter_map(|item| match item {
                DiscardItem::Hand(kind) => Some(*kind),
                _ => None,
            })
            .collect();
        let mut parts = Vec::new();
        if !hand.is_empty() {
            parts.push(format!("{} from hand", self.tile_names(&hand)));
        }
        for item in items {
            if !matches!(item, DiscardItem::Hand(_)) {
                parts.push(self.discard_text(before, me, *item));
            }
        }
        parts.join("; ")
    }

    /// The lines of `Rules::report`.
    pub(crate) fn turn_report(
        &self,
        before: &State,
        seat: Seat,
        mv: &Move,
        after: &State,
        names: &[String],
    ) -> Vec<ReportLine> {
        let who = name_of(names, seat);
        let mut lines = Vec::new();
        match mv {
            Move::City(cell) => self.city_report(before, after, *cell, names, &mut lines),
            Move::Pass => lines.push(ReportLine::everyone(format!(
                "{who} passed: no turn could place a tile (R22)"
            ))),
            Move::Resign => lines.push(ReportLine::everyone(format!(
                "{who} gave up (resigned or forfeited): the game ends now"
            ))),
            Move::Turn(actions) => {
                self.highway_report(before, seat, actions, mv, after, names, &mut lines);
            }
        }
        self.points_report(before, after, names, &mut lines);
        if let (None, Some(ended)) = (before.ended_by, after.ended_by) {
            lines.push(ReportLine::everyone(format!(
                "{} has used up stack and hand: every other player has one final turn",
                name_of(names, ended as usize)
            )));
        }
        if after.over && !before.over {
            let end = self.ending(after, names);
            lines.push(ReportLine::everyone(format!("The game is over: {end}")));
        }
        lines
    }

    fn city_report(
        &self,
        before: &State,
        after: &State,
        cell: u16,
        names: &[String],
        lines: &mut Vec<ReportLine>,
    ) {
        let who = name_of(names, before.to_move as usize);
        let kind = if after.cells[cell as usize].is_dollar() {
            "a $"
        } else {
            "an unmarked"
        };
        lines.push(ReportLine::everyone(format!(
            "{who} placed {kind} city tile at {}",
            self.label(cell)
        )));
        if after.setup {
            if let Some(next) = after.drawn_city {
                let kind = if next { "$" } else { "unmarked" };
                lines.push(
                    ReportLine::everyone(format!(
                        "Next city tile drawn: {kind} ({} left in the stack)",
                        after.city_stack.len()
                    ))
                    .drawn(),
                );
            }
        } else {
            lines.push(ReportLine::everyone(
                "The city is complete; hands are dealt",
            ));
            for (seat, player) in after.players.iter().enumerate() {
                lines.push(
                    ReportLine::everyone(format!(
                        "{}'s hand: {}",
                        name_of(names, seat),
                        self.hand_text(&player.hand)
                    ))
                    .drawn(),
                );
            }
            lines.push(
                ReportLine::everyone(format!(
                    "{} has the first highway turn (R7)",
                    name_of(names, after.first as usize)
                ))
                .drawn(),
            );
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn highway_report(
        &self,
        before: &State,
        seat: Seat,
        actions: &[Action],
        mv: &Move,
        after: &State,
        names: &[String],
        lines: &mut Vec<ReportLine>,
    ) {
        let who = name_of(names, seat);
        let me = seat as u8;
        let Some((report, drawn)) = self.replayed_turn(before, seat, mv, after) else {
            lines.push(ReportLine::everyone(format!(
                "{who}: {}",
                self.move_text(mv)
            )));
            return;
        };
        let mut bought: Option<(u16, FaceDown)> = None;
        let mut profit_draws = 0;
        for action in actions {
            match action {
                Action::Buy { cell, .. } => {
                    let Some((tile, price)) = &report.bought else {
                        continue;
                    };
                    let c = &before.cells[*cell as usize];
                    let label = self.label(*cell);
                    let tile_name = self.kind_label(*tile);
                    let text = match c.row_holder() {
                        None => format!(
                            "{who} bought the right-of-way on {label}: {tile_name} face down"
                        ),
                        Some(holder) => format!(
                            "{who} bought {}'s right-of-way on {label} (a stack of {}): {tile_name} face down, {} discarded",
                            name_of(names, holder as usize),
                            c.row.len(),
                            self.tile_names(price)
                        ),
                    };
                    lines.push(ReportLine::everyone(text));
                    bought = Some((
                        *cell,
                        FaceDown {
                            owner: me,
                            kind: *tile,
                        },
                    ));
                }
                Action::Place { cell, edges } => {
                    let kind = self.kind_of_edges(*edges).unwrap_or(0);
                    let net = report.profit - report.cost;
                    lines.push(ReportLine::everyone(format!(
                        "{who} placed {} ({}) at {}: cost {}, profit {}, net {:+}",
                        self.kind_label(kind),
                        Self::edges_text(*edges),
                        self.label(*cell),
                        report.cost,
                        report.profit,
                        net
                    )));
                    // R14: building on one's own right-of-way discards the stack.
                    let mut stack = before.cells[*cell as usize].row.clone();
                    if let Some((_, tile)) = bought.filter(|(at, _)| at == cell) {
                        stack.push(tile);
                    }
                    if !stack.is_empty() {
                        let parts: Vec<String> = stack
                            .iter()
                            .map(|t| {
                                format!(
                                    "{} ({})",
                                    self.kind_label(t.kind),
                                    name_of(names, t.owner as usize)
                                )
                            })
                            .collect();
                        lines.push(ReportLine::everyone(format!(
                            "The face-down tiles on {} went to their owners' discards: {}",
                            self.label(*cell),
                            parts.join(", ")
                        )));
                    }
                    if net > 0 {
                        let left = before.players[seat].stack.len();
                        profit_draws = usize::try_from(net).unwrap_or(0).min(left);
                        if profit_draws > 0 {
                            lines.push(
                                ReportLine::everyone(format!(
                                    "{who} drew {}: {}",
                                    plural(profit_draws, "tile", "tiles"),
                                    self.tile_names(&drawn[..profit_draws.min(drawn.len())])
                                ))
                                .drawn(),
                            );
                        }
                        if profit_draws < usize::try_from(net).unwrap_or(0) {
                            lines.push(ReportLine::everyone(format!(
                                "{who}'s stack is used up: the profit drew {} (R19)",
                                plural(profit_draws, "tile", "tiles")
                            )));
                        }
                    } else if net < 0 {
                        let need = usize::try_from(-net).unwrap_or(0);
                        let items = &report.discards;
                        lines.push(ReportLine::everyone(format!(
                            "{who} discarded {} for the loss: {}",
                            plural(items.len(), "tile", "tiles"),
                            self.discards_text(before, me, items)
                        )));
                        if items.len() < need {
                            lines.push(ReportLine::everyone(format!(
                                "Nothing else could be discarded: the last ${} of the loss lapses (R18)",
                                need - items.len()
                            )));
                        }
                    }
                }
                Action::Discard(_) | Action::DefaultDiscard(_) => {}
            }
        }
        let empty_hand = &drawn[profit_draws.min(drawn.len())..];
        if !empty_hand.is_empty() {
            lines.push(
                ReportLine::everyone(format!(
                    "{who}'s hand was empty: drew {}",
                    self.tile_names(empty_hand)
                ))
                .drawn(),
            );
        }
    }

    /// Tiles that became or stopped being fully connected, whoever owns them, and
    /// every player's victory points when any changed.
    fn points_report(
        &self,
        before: &State,
        after: &State,
        names: &[String],
        lines: &mut Vec<ReportLine>,
    ) {
        if before.setup {
            return;
        }
        let was = self.connected_cells(before);
        let now = self.connected_cells(after);
        let tile_of = |state: &State, cell: u16| {
            state.cells[cell as usize].highway.map(|h| {
                format!(
                    "{} {}'s {} ({:+})",
                    self.label(cell),
                    name_of(names, h.owner as usize),
                    self.kind_label(h.kind),
                    h.edges.count_ones()
                )
            })
        };
        let gained: Vec<String> = now
            .difference(&was)
            .filter_map(|&cell| tile_of(after, cell))
            .collect();
        let lost: Vec<String> = was
            .difference(&now)
            .filter_map(|&cell| tile_of(before, cell).map(|text| text.replace("(+", "(-")))
            .collect();
        if !gained.is_empty() {
            lines.push(ReportLine::everyone(format!(
                "Fully connected now: {}",
                gained.join(", ")
            )));
        }
        if !lost.is_empty() {
            lines.push(ReportLine::everyone(format!(
                "No longer fully connected: {}",
                lost.join(", ")
            )));
        }
        let old = self.victory_points(before);
        let new = self.victory_points(after);
        if old != new {
            let parts: Vec<String> = new
                .iter()
                .enumerate()
                .map(|(seat, &points)| {
                    let change = points - old.get(seat).copied().unwrap_or(0);
                    if change == 0 {
                        format!("{} {points}", name_of(names, seat))
                    } else {
                        format!("{} {points} ({change:+})", name_of(names, seat))
                    }
                })
                .collect();
            lines.push(ReportLine::everyone(format!(
                "Victory points: {}",
                parts.join(", ")
            )));
        }
    }

    /// `confirm=losses`: the sentence that sends back a turn whose loss would be paid
    /// with tiles the player did not name.
    pub(crate) fn confirmation(&self, state: &State, seat: Seat, mv: &Move) -> Option<String> {
        if !self.confirm_losses {
            return None;
        }
        let Move::Turn(actions) = mv else {
            return None;
        };
        let items = actions.iter().find_map(|a| match a {
            Action::DefaultDiscard(items) => Some(items),
            _ => None,
        })?;
        let me = u8::try_from(seat).ok()?;
        Some(format!(
            "this placement loses ${} and you did not name what pays it: {} would be discarded ({}); name your own with `discard`, or confirm these",
            items.len(),
            plural(items.len(), "tile", "tiles"),
            self.discards_text(state, me, items)
        ))
    }

    /// Why the game ended, a sentence without its period.
    fn ending(&self, state: &State, names: &[String]) -> String {
        if let Some(quitter) = state.resigned {
            return format!(
                "{} gave up (resigned, or forfeited past a deadline) and cannot win",
                name_of(names, quitter as usize)
            );
        }
        if let (Some(ended), 0) = (state.ended_by, state.final_turns) {
            return format!(
                "{} used up stack and hand, and every other player had a final turn (R20)",
                name_of(names, ended as usize)
            );
        }
        let free = state
            .cells
            .iter()
            .filter(|c| c.is_city() && c.highway.is_none())
            .count();
        if free == 0 {
            "every city tile has a highway, so nobody can place a tile any more (R20)".into()
        } else {
            format!(
                "nobody can place a tile any more: the {} left without a highway lie under right-of-way nobody can build on or afford (R20)",
                plural(free, "city tile", "city tiles")
            )
        }
    }

    /// `Rules::game_end`: why, and each player's fully connected highways (R24).
    pub(crate) fn end_of_game(&self, state: &State, names: &[String]) -> GameEnd {
        let scores = self.victory_points(state);
        let connected = self.connected_cells(state);
        let breakdown = (0..state.players.len())
            .map(|seat| {
                let mut lines = Vec::new();
                let mut placed = 0;
                for (i, c) in state.cells.iter().enumerate() {
                    let Some(h) = c.highway.filter(|h| h.owner as usize == seat) else {
                        continue;
                    };
                    placed += 1;
                    if connected.contains(&(i as u16)) {
                        let points = h.edges.count_ones();
                        lines.push(format!(
                            "{} {} ({}): {}",
                            self.label(i as u16),
                            self.kind_label(h.kind),
                            Self::edges_text(h.edges),
                            plural(points as usize, "point", "points")
                        ));
                    }
                }
                let total = scores.get(seat).copied().unwrap_or(0);
                lines.push(format!(
                    "Total: {total} (fully connected {} of {} highways placed)",
                    lines.len(),
                    placed
                ));
                if state.resigned == Some(seat as u8) {
                    lines.push("Gave up: cannot win".to_string());
                }
                lines
            })
            .collect();
        GameEnd {
            reason: self.ending(state, names),
            breakdown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rules::Rules;
    use crate::engine::DrawStream;

    #[test]
    fn removed_tiles_are_the_difference_of_two_sorted_lists() {
        assert_eq!(removed(&[0, 0, 1, 3, 3, 5], &[0, 3, 5]), vec![0, 1, 3]);
        assert_eq!(removed(&[2, 4], &[2, 4]), Vec::<u8>::new());
    }

    /// Over whole random games, every turn's report comes from playing it again (never
    /// the fallback), a line that tells a draw is marked so, and the victory points
    /// line appears exactly when a score changed.
    #[test]
    fn every_turn_of_random_games_reports_what_it_did() {
        let rules = RightOfWay::standard().expect("built-in data");
        let names = vec!["Ann".to_string(), "Bob".to_string(), "Cy".to_string()];
        for seed in 0..6 {
            let mut chance = DrawStream::for_testing(seed);
            let mut state = rules.setup(&names, &mut chance).expect("setup");
            while !state.over {
                let seat = state.to_move as usize;
                let mv = rules
                    .sample_move(&state, seat, &mut chance)
                    .expect("a move");
                let mv = rules.resolve(&state, seat, mv).expect("resolves");
                let next = rules
                    .apply(&state, seat, &mv, &mut chance)
                    .expect("applies");
                assert!(rules.replayed_turn(&state, seat, &mv, &next).is_some());
                let lines = rules.report(&state, seat, &mv, &next, &names);
                for line in &lines {
                    assert_eq!(
                        line.tells_draw,
                        line.text.contains(" drew ") || line.text.contains("hand was empty"),
                        "{}",
                        line.text
                    );
                }
                let changed = rules.scores(&state) != rules.scores(&next);
                let told = lines.iter().any(|l| l.text.starts_with("Victory points:"));
                assert_eq!(changed, told, "{lines:?}");
                state = next;
            }
            let end = rules.game_end(&state, &names);
            assert!(!end.reason.is_empty());
            for (seat, lines) in end.breakdown.iter().enumerate() {
                let parts: i64 = lines
                    .iter()
                    .filter(|l| !l.starts_with("Total"))
                    .filter_map(|l| {
                        l.rsplit_once(": ")?
                            .1
                            .split(' ')
                            .next()?
                            .parse::<i64>()
                            .ok()
                    })
                    .sum();
                assert_eq!(parts, rules.scores(&state)[seat], "{lines:?}");
            }
        }
    }
}
