//! The moves as a person reads them (`Rules::moves_text`): short, grouped by cell and
//! tile with cost and profit, narrowed to one cell or one tile on request. The JSON
//! list (`legal`) stays complete; this is what a player reads in mail.

use std::cell::OnceCell;
use std::fmt::Write as _;

use super::moves::{Action, Move};
use super::state::State;
use super::turns::{Placement, Reach};
use super::RightOfWay;
use crate::engine::rules::{MoveFilter, Seat};
use crate::grid::canvas::wrap_words as wrapped;
use crate::grid::canvas::WIDTH;

/// How many cells the unfiltered list shows one per line; the rest are grouped.
const CELLS_SHOWN: usize = 12;
/// How many cells the list of one tile shows one per line; the rest are grouped.
const TILE_CELLS_SHOWN: usize = 16;

/// A move text on the rest of a line that starts with `head`, or on the next line,
/// indented, when it would not fit.
fn with_text(head: &str, text: &str) -> String {
    if head.len() + 2 + text.len() <= WIDTH {
        format!("{head}  {text}\n")
    } else {
        format!("{head}\n      {text}\n")
    }
}

/// What a filter names, read in this game's terms.
enum Wanted {
    Cell(u16),
    Tile(u8),
}

/// A cell a tile can be built on directly: the best net there, and each tile kind's.
struct CellBest {
    cell: u16,
    best: i64,
    kinds: Vec<(u8, i64)>,
}

/// One placement that can be made this turn, with its complete move text.
struct PlacingTurn {
    placement: Placement,
    text: String,
}

impl RightOfWay {
    fn read_filter_word(&self, word: &str) -> Option<Wanted> {
        let word = word.trim();
        if let Some(cell) = self.cell_index(word) {
            return Some(Wanted::Cell(cell));
        }
        self.kind_by_name(word).map(Wanted::Tile)
    }

    fn what_is_accepted(&self) -> String {
        let last_row = char::from(b'A' + (2 * self.radius) as u8);
        let last_col = 4 * self.radius + 1;
        format!(
            "A cell is a row letter A-{last_row} and a column number 1-{last_col}, like {}\n\
             (the board's margins show both); a tile is one of {}.\n",
            self.label(self.centre),
            self.tiles_list_spaced()
        )
    }

    fn tiles_list_spaced(&self) -> String {
        self.kinds
            .iter()
            .map(|k| k.name.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The line that ends every listing: how to narrow it, with a cell and a tile of
    /// this position.
    fn narrow_line(&self, state: &State, seat: Seat, cell: Option<u16>) -> String {
        let cell = cell.unwrap_or(self.centre);
        let tile = state
            .players
            .get(seat)
            .and_then(|p| p.hand.first())
            .map_or("C", |&k| self.kinds[k as usize].name.as_str());
        format!(
            "Narrow: `moves {}` (a cell, every turn), `moves tile {tile}` (a tile, every cell).\n",
            self.label(cell)
        )
    }

    /// Every placement `seat` can make now whose result can be settled (R15), with the
    /// complete turn to send: a purchase first where the cell is another player's
    /// right-of-way, and the discards the defaults choose for a loss.
    fn settled_options(&self, state: &State, seat: Seat) -> Vec<PlacingTurn> {
        let me = seat as u8;
        let hand = state.players[seat].hand.len();
        let loses = OnceCell::new();
        let every_loses = || *loses.get_or_init(|| self.every_placement_loses(state, me));
        let mut out = Vec::new();
        for p in self.placements(state, me) {
            let paid = self.purchase_tiles(state, &p) as usize;
            let hand_after = hand.saturating_sub(1 + paid);
            if !Self::settles(p.net(), hand_after, every_loses) {
                continue;
            }
            let place = Action::Place {
                cell: p.cell,
                edges: p.edges,
            };
            let text = if p.reach == Reach::Direct && p.net() >= 0 {
                self.move_text(&Move::Turn(vec![place]))
            } else {
                let mut actions = Vec::new();
                if p.reach == Reach::AfterBuying {
                    actions.push(Action::Buy {
                        cell: p.cell,
                        tile: None,
                        paying: None,
                    });
                }
                actions.push(place);
                match self.resolve_knowing(state, seat, Move::Turn(actions), Some(every_loses())) {
                    Ok(mv) => self.move_text(&mv),
                    Err(_) => continue,
                }
            };
            out.push(PlacingTurn { placement: p, text });
        }
        out
    }

    /// `Rules::moves_text`.
    pub(crate) fn moves_listing(&self, state: &State, seat: Seat, filter: &MoveFilter) -> String {
        if state.over {
            return "The game is over: there are no moves.\n".into();
        }
        if seat >= state.players.len() || seat != state.to_move as usize {
            return "It is not your turn: there are no moves for you now.\n".into();
        }
        let mut wanted_cell = None;
        let mut wanted_tile = None;
        for word in [&filter.at, &filter.tile].into_iter().flatten() {
            match self.read_filter_word(word) {
                Some(Wanted::Cell(cell)) => wanted_cell = Some(cell),
                Some(Wanted::Tile(kind)) => wanted_tile = Some(kind),
                None => {
                    let mut out = format!(
                        "`{}` is neither a cell of this board nor a tile.\n",
                        word.trim().to_ascii_uppercase()
                    );
                    out.push_str(&self.what_is_accepted());
                    out.push_str(&self.narrow_line(state, seat, None));
                    return out;
                }
            }
        }
        if state.setup {
            return self.city_listing(state, seat, wanted_cell);
        }
        if self.must_pass(state, seat) {
            return "No turn can place a tile now (R22): send `pass`.\n".into();
        }
        let options = self.settled_options(state, seat);
        match (wanted_cell, wanted_tile) {
            (None, None) => self.overview(state, seat, &options),
            (Some(cell), tile) => self.at_cell(state, seat, &options, cell, tile),
            (None, Some(kind)) => self.for_tile(state, seat, &options, kind),
        }
    }

    fn city_listing(&self, state: &State, seat: Seat, cell: Option<u16>) -> String {
        let spots: Vec<String> = (0..state.cells.len())
            .filter(|&i| self.city_spot(state, i))
            .map(|i| self.label(i as u16).to_string())
            .collect();
        let kind = if state.drawn_city == Some(true) {
            "$"
        } else {
            "unmarked"
        };
        let mut out = String::new();
        match cell {
            Some(cell) if self.city_spot(state, cell as usize) => {
                let _ = writeln!(
                    out,
                    "The {kind} city tile can go on {0}: `city {0}`.",
                    self.label(cell)
                );
            }
            Some(cell) => {
                let _ = writeln!(
                    out,
                    "{} cannot take the city tile: it goes on an empty cell next to the city.",
                    self.label(cell)
                );
            }
            None => {}
        }
        out.push_str(&wrapped(
            &format!(
                "Place the drawn {kind} city tile, e.g. `city {}`, on one of:",
                spots.first().map_or("?", String::as_str)
            ),
            &spots,
            2,
        ));
        let _ = seat;
        out
    }

    fn hand_line(&self, state: &State, seat: Seat) -> String {
        format!(
            "Your hand: {}. Net = profit - cost: a gain draws, a loss discards.\n",
            self.hand_text(&state.players[seat].hand)
        )
    }

    /// One line per cell that can take a tile (the best first, each with every tile
    /// that fits there and its best net), the rest grouped by their best net, then the
    /// right-of-way that can be bought.
    fn overview(&self, state: &State, seat: Seat, options: &[PlacingTurn]) -> String {
        let mut out = self.hand_line(state, seat);
        // Per cell built on directly: each kind's best net there.
        let mut cells: Vec<CellBest> = Vec::new();
        for option in options
            .iter()
            .filter(|o| o.placement.reach == Reach::Direct)
        {
            let p = option.placement;
            let at = match cells.iter().position(|c| c.cell == p.cell) {
                Some(at) => at,
                None => {
                    cells.push(CellBest {
                        cell: p.cell,
                        best: i64::MIN,
                        kinds: Vec::new(),
                    });
                    cells.len() - 1
                }
            };
            let entry = &mut cells[at];
            entry.best = entry.best.max(p.net());
            match entry.kinds.iter_mut().find(|(k, _)| *k == p.kind) {
                Some(best) => best.1 = best.1.max(p.net()),
                None => entry.kinds.push((p.kind, p.net())),
            }
        }
        cells.sort_by_key(|c| (-c.best, c.cell));
        if cells.is_empty() {
            out.push_str("No free city tile takes a tile directly now.\n");
        } else {
            let _ = writeln!(
                out,
                "Cells you can build on, best net first (each tile's best net there):"
            );
        }
        for CellBest { cell, best, kinds } in cells.iter().take(CELLS_SHOWN) {
            let mut kinds = kinds.clone();
            kinds.sort_by_key(|(k, net)| (-net, *k));
            let count = kinds.len();
            let tiles: Vec<String> = kinds
                .iter()
                .enumerate()
                .map(|(i, (k, net))| {
                    let comma = if i + 1 < count { "," } else { "" };
                    format!("{} {net:+}{comma}", self.kinds[*k as usize].name)
                })
                .collect();
            let city = if state.cells[*cell as usize].is_dollar() {
                "$"
            } else {
                "."
            };
            out.push_str(&wrapped(
                &format!("  {:<4}{city} {best:+3}:", self.label(*cell)),
                &tiles,
                14,
            ));
        }
        let rest = cells.get(CELLS_SHOWN..).unwrap_or_default();
        let mut nets: Vec<i64> = rest.iter().map(|c| c.best).collect();
        nets.dedup();
        for net in nets {
            let labels: Vec<String> = rest
                .iter()
                .filter(|c| c.best == net)
                .map(|c| self.label(c.cell).to_string())
                .collect();
            out.push_str(&wrapped(
                &format!("  best {net:+} at {} more:", labels.len()),
                &labels,
                4,
            ));
        }
        out.push_str(&self.purchases_summary(state, seat, options));
        out.push_str(&self.narrow_line(state, seat, cells.first().map(|c| c.cell)));
        out
    }

    /// The right-of-way `seat` may buy: any free city tile, and other players'
    /// stacks, each with the best placement there after buying it.
    fn purchases_summary(&self, state: &State, seat: Seat, options: &[PlacingTurn]) -> String {
        let me = seat as u8;
        let hand = state.players[seat].hand.len();
        let mut out = String::new();
        let free = state
            .cells
            .iter()
            .filter(|c| c.is_city() && c.highway.is_none() && c.row.is_empty())
            .count();
        let stacks: Vec<String> = (0..state.cells.len())
            .filter(|&i| {
                let c = &state.cells[i];
                c.highway.is_none() && c.row_holder().is_some_and(|h| h != me)
            })
            .map(|i| {
                let c = &state.cells[i];
                let cell = i as u16;
                let best = options
                    .iter()
                    .filter(|o| o.placement.cell == cell)
                    .map(|o| o.placement.net())
                    .max();
                let price = c.row.len() + 1;
                match best {
                    Some(net) => format!("{} ({price}, then {net:+})", self.label(cell)),
                    None if hand >= c.row.len() + 2 => {
                        format!("{} ({price})", self.label(cell))
                    }
                    None => format!("{} ({price}: too dear)", self.label(cell)),
                }
            })
            .collect();
        if hand < 2 && stacks.is_empty() {
            return out;
        }
        out.push_str("Right-of-way (one purchase a turn, before or after placing):\n");
        if hand >= 2 && free > 0 {
            let _ = writeln!(
                out,
                "  any of {free} free city tiles: 1 hand tile face down, e.g."
            );
            let _ = writeln!(out, "    {}", self.example_buy(state, seat));
        } else if hand < 2 {
            out.push_str("  none now: buying may not use your last hand tile (R12)\n");
        }
        if !stacks.is_empty() {
            out.push_str(&wrapped(
                "  others' stacks, bought for (height + 1) hand tiles, one kept; best net:",
                &stacks
                    .iter()
                    .enumerate()
                    .map(|(i, s)| {
                        if i + 1 < stacks.len() {
                            format!("{s},")
                        } else {
                            s.clone()
                        }
                    })
                    .collect::<Vec<_>>(),
                4,
            ));
        }
        out
    }

    /// Every tile and turn that fits at `cell` (of `kind` only, when given), best net
    /// first, with the text to send.
    fn at_cell(
        &self,
        state: &State,
        seat: Seat,
        options: &[PlacingTurn],
        cell: u16,
        kind: Option<u8>,
    ) -> String {
        let me = seat as u8;
        let c = &state.cells[cell as usize];
        let label = self.label(cell);
        let mut out = String::new();
        let city = if c.is_dollar() {
            "a $ city tile"
        } else {
            "an unmarked city tile"
        };
        if !c.is_city() {
            let _ = writeln!(
                out,
                "{label} is not a city tile: nothing can be built there."
            );
            out.push_str(&self.narrow_line(state, seat, None));
            return out;
        }
        if let Some(h) = c.highway {
            let _ = writeln!(
                out,
                "{label} has a highway already ({} of player {}): nothing more goes there.",
                self.kinds[h.kind as usize].name,
                char::from(b'A' + h.owner)
            );
            out.push_str(&self.narrow_line(state, seat, None));
            return out;
        }
        let hand = state.players[seat].hand.len();
        match (c.row_holder(), self.reach(state, me, cell as usize)) {
            (None, _) => {
                let _ = writeln!(out, "{label} is {city}, free.");
            }
            (Some(holder), _) if holder == me => {
                let _ = writeln!(
                    out,
                    "{label} is {city} under your right-of-way (a stack of {}).",
                    c.row.len()
                );
            }
            (Some(holder), Some(_)) => {
                let _ = writeln!(
                    out,
                    "{label} is {city} under player {}'s right-of-way (a stack of {}):\n\
                     each turn below buys it first, paying {} hand tiles.",
                    char::from(b'A' + holder),
                    c.row.len(),
                    c.row.len() + 1
                );
            }
            (Some(holder), None) => {
                let _ = writeln!(
                    out,
                    "{label} is under player {}'s right-of-way (a stack of {}); buying it\n\
                     takes {} hand tiles and one must remain, you hold {hand}.",
                    char::from(b'A' + holder),
                    c.row.len(),
                    c.row.len() + 2
                );
                out.push_str(&self.narrow_line(state, seat, None));
                return out;
            }
        }
        out.push_str(&self.hand_line(state, seat));
        if let Some(kind) = kind {
            if !state.players[seat].hand.contains(&kind) {
                let _ = writeln!(
                    out,
                    "You have no {} in hand.",
                    self.kinds[kind as usize].name
                );
                out.push_str(&self.narrow_line(state, seat, Some(cell)));
                return out;
            }
        }
        let mut here: Vec<&PlacingTurn> = options
            .iter()
            .filter(|o| o.placement.cell == cell && kind.is_none_or(|k| o.placement.kind == k))
            .collect();
        here.sort_by_key(|o| (-o.placement.net(), o.placement.kind));
        if here.is_empty() {
            let _ = writeln!(
                out,
                "Nothing can be placed at {label}: every turn there loses more than your\n\
                 hand can pay while another placement does not (R15)."
            );
        } else {
            let _ = writeln!(out, "Every turn at {label}, best net first:");
        }
        for option in here {
            let p = option.placement;
            out.push_str(&with_text(
                &format!(
                    "  {:+3}  {:<2} cost {} profit {}:",
                    p.net(),
                    self.kinds[p.kind as usize].name,
                    p.cost,
                    p.profit
                ),
                &option.text,
            ));
        }
        if c.row.is_empty() && hand >= 2 {
            let _ = writeln!(
                out,
                "Or keep {label} for later: `buy {label}` (1 hand tile face down) and place elsewhere."
            );
        }
        out.push_str(&self.narrow_line(state, seat, Some(cell)));
        out
    }

    /// The cells where `kind` fits, each with its best turn, best first.
    fn for_tile(&self, state: &State, seat: Seat, options: &[PlacingTurn], kind: u8) -> String {
        let name = &self.kinds[kind as usize].name;
        let mut out = self.hand_line(state, seat);
        if !state.players[seat].hand.contains(&kind) {
            let _ = writeln!(out, "You have no {name} in hand.");
            out.push_str(&self.narrow_line(state, seat, None));
            return out;
        }
        // The best turn of each cell: the first of the best net, in placement order.
        let mut best: Vec<&PlacingTurn> = Vec::new();
        for option in options.iter().filter(|o| o.placement.kind == kind) {
            match best
                .iter_mut()
                .find(|b| b.placement.cell == option.placement.cell)
            {
                Some(b) if option.placement.net() > b.placement.net() => *b = option,
                Some(_) => {}
                None => best.push(option),
            }
        }
        best.sort_by_key(|o| {
            (
                -o.placement.net(),
                o.placement.reach != Reach::Direct,
                o.placement.cell,
            )
        });
        let _ = writeln!(
            out,
            "{name} ({}) fits at {} cells; the best turn of each, best net first:",
            Self::edges_text(self.kinds[kind as usize].mask),
            best.len()
        );
        for option in best.iter().take(TILE_CELLS_SHOWN) {
            let p = option.placement;
            out.push_str(&with_text(
                &format!(
                    "  {:+3}  {:<4}cost {} profit {}:",
                    p.net(),
                    self.label(p.cell),
                    p.cost,
                    p.profit
                ),
                &option.text,
            ));
        }
        let rest = best.get(TILE_CELLS_SHOWN..).unwrap_or_default();
        let mut nets: Vec<i64> = rest.iter().map(|o| o.placement.net()).collect();
        nets.dedup();
        for net in nets {
            let labels: Vec<String> = rest
                .iter()
                .filter(|o| o.placement.net() == net)
                .map(|o| self.label(o.placement.cell).to_string())
                .collect();
            out.push_str(&wrapped(
                &format!("  {net:+} at {} more:", labels.len()),
                &labels,
                4,
            ));
        }
        out.push_str(&self.narrow_line(state, seat, best.first().map(|o| o.placement.cell)));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rules::Rules;
    use crate::engine::DrawStream;

    fn names() -> Vec<String> {
        vec!["Ann".to_string(), "Bob".to_string()]
    }

    /// A position after `turns` random turns from the setup of `seed`.
    fn position(rules: &RightOfWay, seed: u64, turns: usize) -> State {
        let mut chance = DrawStream::for_testing(seed);
        let mut state = rules.setup(&names(), &mut chance).expect("setup");
        for _ in 0..turns {
            if state.over {
                break;
            }
            let seat = state.to_move as usize;
            let mv = rules
                .sample_move(&state, seat, &mut chance)
                .expect("a move");
            state = rules
                .apply(&state, seat, &mv, &mut chance)
                .expect("applies");
        }
        state
    }

    fn check_width(text: &str) {
        for line in text.lines() {
            assert!(line.len() <= WIDTH, "too wide: {line:?}\n{text}");
        }
    }

    #[test]
    fn the_unfiltered_list_is_short_and_ends_with_how_to_narrow() {
        let rules = RightOfWay::standard().expect("built-in data");
        for (seed, turns) in [(1, 0), (2, 0), (5, 10), (5, 30), (9, 45), (11, 60)] {
            let state = position(&rules, seed, turns);
            if state.over {
                continue;
            }
            let seat = state.to_move as usize;
            let text = rules.moves_text(&state, seat, &MoveFilter::default(), &[]);
            check_width(&text);
            assert!(
                text.lines().count() <= 30,
                "{} lines:\n{text}",
                text.lines().count()
            );
            let last = text.lines().last().unwrap_or_default();
            if !rules.must_pass(&state, seat) {
                assert!(last.starts_with("Narrow: `moves "), "{text}");
                // Every cell that can take a tile directly (its result settled, R15)
                // is named.
                let mut direct: Vec<u16> = rules
                    .settled_options(&state, seat)
                    .iter()
                    .filter(|o| o.placement.reach == Reach::Direct)
                    .map(|o| o.placement.cell)
                    .collect();
                direct.sort_unstable();
                direct.dedup();
                let direct = direct.len();
                let named = (0..state.cells.len())
                    .filter(|&i| {
                        rules.reach(&state, seat as u8, i) == Some(Reach::Direct)
                            && text
                                .split(|c: char| !c.is_ascii_alphanumeric())
                                .any(|w| w == rules.label(i as u16))
                    })
                    .count();
                assert_eq!(named, direct, "{text}");
            }
        }
    }

    #[test]
    fn the_list_at_a_cell_gives_every_turn_there_ready_to_send() {
        let rules = RightOfWay::standard().expect("built-in data");
        let state = position(&rules, 5, 20);
        let seat = state.to_move as usize;
        // An unmarked city tile costs nothing, so every turn there can be made.
        let cell = (0..state.cells.len())
            .find(|&i| {
                rules.reach(&state, seat as u8, i) == Some(Reach::Direct)
                    && !state.cells[i].is_dollar()
            })
            .expect("a free unmarked cell") as u16;
        let label = rules.label(cell).to_ascii_lowercase();
        let filter = MoveFilter {
            at: Some(label),
            tile: None,
        };
        let text = rules.moves_text(&state, seat, &filter, &[]);
        check_width(&text);
        let sent: Vec<&str> = text
            .lines()
            .filter_map(|line| line.split_once(":  ").map(|(_, text)| text.trim()))
            .collect();
        let turns = rules
            .placements(&state, seat as u8)
            .filter(|p| p.cell == cell)
            .count();
        assert_eq!(sent.len(), turns, "every rotation of every tile:\n{text}");
        for move_text in sent {
            let mv = rules.parse_move(&state, seat, move_text).expect(move_text);
            rules
                .apply(&state, seat, &mv, &mut DrawStream::for_testing(3))
                .expect(move_text);
        }
        // Narrowed to a tile as well: only that tile's rotations.
        let kind = state.players[seat].hand[0];
        let name = rules.kinds[kind as usize].name.clone();
        let filter = MoveFilter {
            at: Some(rules.label(cell).to_string()),
            tile: Some(name),
        };
        let text = rules.moves_text(&state, seat, &filter, &[]);
        let shown = text.lines().filter(|line| line.contains(":  ")).count();
        assert_eq!(shown, rules.rotations(kind).len(), "{text}");
    }

    #[test]
    fn the_list_of_a_tile_gives_each_cell_its_best_turn() {
        let rules = RightOfWay::standard().expect("built-in data");
        let state = position(&rules, 7, 12);
        let seat = state.to_move as usize;
        let kind = state.players[seat].hand[0];
        let name = rules.kinds[kind as usize].name.clone();
        let filter = MoveFilter {
            at: None,
            tile: Some(name.to_ascii_lowercase()),
        };
        let text = rules.moves_text(&state, seat, &filter, &[]);
        check_width(&text);
        let turns: Vec<(i64, &str)> = text
            .lines()
            .filter_map(|line| {
                let (head, text) = line.split_once(":  ")?;
                let net = head.split_whitespace().next()?.parse().ok()?;
                Some((net, text.trim()))
            })
            .collect();
        assert!(!turns.is_empty(), "{text}");
        assert!(
            turns.windows(2).all(|w| w[0].0 >= w[1].0),
            "best first:\n{text}"
        );
        for (net, move_text) in turns {
            let mv = rules.parse_move(&state, seat, move_text).expect(move_text);
            let Move::Turn(actions) = mv else {
                panic!("a placement: {move_text}");
            };
            let Some((cell, edges)) = actions.iter().find_map(|a| match a {
                Action::Place { cell, edges } => Some((*cell, *edges)),
                _ => None,
            }) else {
                panic!("a placement: {move_text}");
            };
            assert_eq!(rules.kind_of_edges(edges), Some(kind), "{move_text}");
            let best = rules
                .rotations(kind)
                .into_iter()
                .map(|e| {
                    let (cost, profit) = rules.cost_profit(&state, cell, e);
                    profit - cost
                })
                .max();
            assert_eq!(Some(net), best, "the best turn at the cell: {move_text}");
        }
    }

    #[test]
    fn a_filter_that_names_nothing_of_the_game_says_what_is_accepted() {
        let rules = RightOfWay::standard().expect("built-in data");
        let state = position(&rules, 5, 4);
        let seat = state.to_move as usize;
        for (at, tile) in [(Some("Z9"), None), (Some("Q"), None), (None, Some("zz"))] {
            let filter = MoveFilter {
                at: at.map(str::to_string),
                tile: tile.map(str::to_string),
            };
            let text = rules.moves_text(&state, seat, &filter, &[]);
            check_width(&text);
            assert!(text.contains("is neither a cell"), "{text}");
            assert!(text.contains("like E9") && text.contains("FL"), "{text}");
            assert!(text.trim_end().ends_with("(a tile, every cell)."), "{text}");
        }
        // A tile not in hand, and a cell with a highway on it.
        let missing = (0..rules.kinds.len())
            .find(|&k| !state.players[seat].hand.contains(&(k as u8)))
            .expect("a kind not in hand");
        let filter = MoveFilter {
            at: None,
            tile: Some(rules.kinds[missing].name.clone()),
        };
        let text = rules.moves_text(&state, seat, &filter, &[]);
        assert!(text.contains("You have no"), "{text}");
        let built = (0..state.cells.len())
            .find(|&i| state.cells[i].highway.is_some())
            .expect("a highway after four turns");
        let filter = MoveFilter {
            at: Some(rules.label(built as u16).to_string()),
            tile: None,
        };
        let text = rules.moves_text(&state, seat, &filter, &[]);
        assert!(text.contains("has a highway already"), "{text}");
    }
}
