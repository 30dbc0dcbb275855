//! What players see: the JSON view's game part and the ASCII board.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{json, Map, Value};

use super::moves::{letter, Move, Step};
use super::state::{Phase, State};
use super::text::plural;
use super::TriangleAuction;
use crate::engine::rules::{BoardContext, GameView, LastMove, Viewer};
use crate::grid::triangle::{draw_numbered_part, Cell, CellArt};

/// The widest line of a board, as for every board pbem mails.
const WIDTH: usize = 78;

impl TriangleAuction {
    fn phase_name(state: &State) -> &'static str {
        match state.phase {
            Phase::Cards => "cards",
            Phase::Bidding { .. } => "bidding",
            Phase::Placing => "placing",
            Phase::Over => "over",
        }
    }

    /// Whether `viewer` may see `seat`'s face-down card.
    fn sees_card(viewer: Viewer, seat: usize) -> bool {
        matches!(viewer, Viewer::Referee) || viewer == Viewer::Player(seat)
    }

    pub(crate) fn tile_code(&self, tile: u8) -> String {
        self.tiles
            .get(usize::from(tile))
            .map_or_else(|| "???".to_string(), |t| t.code(&self.letters))
    }

    pub(crate) fn game_view(&self, state: &State, viewer: Viewer, names: &[String]) -> GameView {
        let name = |seat: u8| names.get(usize::from(seat)).cloned().unwrap_or_default();
        let mut fields = Map::new();
        fields.insert("round".into(), json!(state.round));
        fields.insert("rounds".into(), json!(self.rounds));
        fields.insert("phase".into(), json!(Self::phase_name(state)));
        fields.insert("starting_player".into(), json!(name(state.starting)));
        fields.insert("area_side".into(), json!(self.side));
        fields.insert(
            "area_start".into(),
            json!(self.start.map(crate::grid::triangle::Cell::name)),
        );
        fields.insert("pile".into(), json!(state.pile.len()));
        fields.insert("discarded".into(), json!(state.discarded.len()));
        let offer: Vec<Value> = state
            .offer
            .iter()
            .enumerate()
            .map(|(index, offer)| {
                json!({
                    "label": letter(u8::try_from(index).unwrap_or(0)).to_string(),
                    "tile": self.tile_code(offer.tile),
                    "bid": offer.bid.map(|bid| json!({"player": name(bid.seat), "chits": bid.chits})),
                })
            })
            .collect();
        fields.insert("offer".into(), Value::Array(offer));
        let players = state
            .players
            .iter()
            .enumerate()
            .map(|(seat, player)| {
                let score = self.score(state, seat);
                let mut entry = Map::new();
                entry.insert("chits".into(), json!(player.hand));
                entry.insert("improvement".into(), json!(player.improvement));
                entry.insert("chosen".into(), json!(player.chosen));
                entry.insert("revealed_card".into(), json!(player.revealed));
                if Self::sees_card(viewer, seat) {
                    entry.insert("card".into(), json!(player.card));
                }
                let counts: Map<String, Value> = self
                    .letters
                    .iter()
                    .zip(score.counts)
                    .map(|(letter, count)| (letter.to_string(), json!(count)))
                    .collect();
                entry.insert("colours".into(), Value::Object(counts));
                entry.insert("scoring_rank".into(), json!(score.rank + 1));
                entry.insert("enclosed".into(), json!(score.enclosed));
                entry.insert(
                    "won".into(),
                    json!(player
                        .won
                        .iter()
                        .map(|&w| letter(w).to_string())
                        .collect::<Vec<_>>()),
                );
                let area: Vec<Value> = player
                    .area
                    .iter()
                    .map(|placed| {
                        json!({
                            "cell": placed.cell.name(),
                            "tile": self.tile_code(placed.tile),
                            "rotation": placed.rotation,
                        })
                    })
                    .collect();
                entry.insert("area".into(), Value::Array(area));
                entry
            })
            .collect();
        GameView { players, fields }
    }

    /// A line, cut to the board's width.
    fn push_line(out: &mut String, line: &str) {
        let cut: String = line.chars().take(WIDTH).collect();
        let _ = writeln!(out, "{}", cut.trim_end());
    }

    /// `Rules::legend`: what the board's marks mean.
    pub(crate) fn board_legend(&self) -> String {
        let colours: Vec<String> = self
            .letters
            .iter()
            .zip(&self.colour_names)
            .map(|(letter, name)| format!("{letter} {name}"))
            .collect();
        [
            "Offer: letter:tile (holder chits); * before a letter: a tile the last move"
                .to_string(),
            "bid on. A tile is its roads' colours clockwise from its edge 0, with - where"
                .to_string(),
            format!("no road leaves: {}.", colours.join(", ")),
            "Turns: r0 puts a tile's edge 0 (its first colour) on the left side of an".to_string(),
            "up space (points up) or the top of a down space; r1 and r2 turn it 1 or 2".to_string(),
            "steps clockwise from there: RG- r1 on an up space has R right, G bottom.".to_string(),
            "Area: every space shows its number in its row (G7: row G, 7th from the".to_string(),
            "left); a placed tile also shows its roads' colours at its edges. ** is a".to_string(),
            "tile the last move placed: its space is named on the Last move line.".to_string(),
            "Colours scored: the least, or from 7, 14, 21, 28 on the improvement track".to_string(),
            "the 4th, 3rd, 2nd and best; plus 1 per area enclosed by roads.".to_string(),
        ]
        .join("\n")
    }

    /// What the last move marks: the offer tiles it bid on and the spaces it placed
    /// tiles on, read from its canonical text.
    pub(crate) fn marks(&self, state: &State, last: Option<&LastMove>) -> (Vec<u8>, Vec<Cell>) {
        let Some(text) = last.and_then(|l| l.text.as_deref()) else {
            return (Vec::new(), Vec::new());
        };
        // A bid's letters name this round's offer only while the round lasts.
        if matches!(state.phase, Phase::Bidding { .. } | Phase::Placing) {
            if let Ok(Move::Bid(bids)) =
                super::moves::parse_bid(text, &super::moves::TileWords::letters(state.offer.len()))
            {
                return (bids.iter().map(|(tile, _)| *tile).collect(), Vec::new());
            }
        }
        // A placing turn that ended the round left a new offer: its letters still
        // read, as any letter of the alphabet does here.
        match super::moves::parse_place(text, &super::moves::TileWords::letters(26), self.side) {
            Ok(Move::Place(steps)) => {
                let cells = steps
                    .iter()
                    .filter_map(|step| match step {
                        Step::Place { cell, .. } => Some(*cell),
                        Step::Discard { .. } => None,
                    })
                    .collect();
                (Vec::new(), cells)
            }
            _ => (Vec::new(), Vec::new()),
        }
    }

    /// The line naming the last move, wrapped to the board's width.
    fn last_move_line(out: &mut String, context: &BoardContext<'_>, mark: &str) {
        let Some(last) = &context.last_move else {
            return;
        };
        let who = context.names.get(last.seat).map_or("?", String::as_str);
        let text = match &last.text {
            Some(text) => format!(
                "Last move, turn {}: {who}: {}{mark}",
                context.turn,
                text.replace('\n', "; "),
            ),
            None => format!(
                "Last move, turn {}: {who} chose a card, face down.",
                context.turn
            ),
        };
        Self::push_wrapped(out, &text, "   ");
    }

    /// A line wrapped at spaces to the board's width, the lines after the first
    /// indented by `indent`: never cut.
    fn push_wrapped(out: &mut String, text: &str, indent: &str) {
        let body = text.trim_start();
        let mut line = text[..text.len() - body.len()].to_string();
        let mut empty = true;
        for word in body.split(' ').filter(|w| !w.is_empty()) {
            if !empty && line.chars().count() + 1 + word.chars().count() > WIDTH {
                Self::push_line(out, &line);
                line = String::from(indent);
                empty = true;
            }
            if !empty {
                line.push(' ');
            }
            line.push_str(word);
            empty = false;
        }
        Self::push_line(out, &line);
    }

    /// The heading of one player's area: how many tiles are placed and how much room
    /// is left.
    pub(crate) fn area_heading(&self, state: &State, seat: usize, who: &str) -> String {
        let count = state.players.get(seat).map_or(0, |p| p.area.len());
        let placed = plural(count, "tile", "tiles");
        if self.start.is_some() {
            format!("{who}'s area ({placed} placed, open all round):")
        } else {
            let free = Cell::all(self.side).count() - count;
            format!(
                "{who}'s area ({placed} placed, {} free):",
                plural(free, "space", "spaces")
            )
        }
    }

    /// One player's area drawn in full with its heading; the tiles on `marked` show
    /// `**` (the last move placed them) instead of their space's number.
    pub(crate) fn area_text(
        &self,
        state: &State,
        seat: usize,
        who: &str,
        marked: &[Cell],
    ) -> String {
        let mut out = String::new();
        let Some(player) = state.players.get(seat) else {
            return out;
        };
        let cells: BTreeMap<_, _> = player
            .area
            .iter()
            .map(|placed| {
                let outlets = self.placed_outlets(placed);
                // A placed tile keeps its space's number, so that every space can be
                // named off the board; the last move's tiles are marked instead (the
                // Last move line names their spaces).
                let label = if marked.contains(&placed.cell) {
                    "**".to_string()
                } else {
                    (u32::from(placed.cell.index) + 1).to_string()
                };
                let art = CellArt {
                    label,
                    outlets: outlets
                        .map(|o| o.and_then(|c| self.letters.get(usize::from(c)).copied())),
                };
                (placed.cell, art)
            })
            .collect();
        Self::push_line(&mut out, &self.area_heading(state, seat, who));
        out.push_str(&draw_numbered_part(self.side, &cells, self.start, WIDTH));
        out
    }

    /// The areas a board shows, in order: the reader's own first, then the others'.
    /// Every area is public ("all players know how many symbols of each color a
    /// player has without having to look at his board").
    pub(crate) fn shown_areas(state: &State, viewer: Viewer) -> Vec<usize> {
        let everyone = 0..state.players.len();
        match viewer {
            Viewer::Player(seat) => std::iter::once(seat)
                .chain(everyone.filter(|&other| other != seat))
                .collect(),
            Viewer::Referee | Viewer::Public => everyone.collect(),
        }
    }

    /// Whether a board draws `seat`'s area for `viewer`: another player's empty area
    /// would be the whole grid for nothing, so it is only said to be empty.
    pub(crate) fn draws_area(state: &State, viewer: Viewer, seat: usize) -> bool {
        state.players.get(seat).is_some_and(|p| !p.area.is_empty())
            || viewer == Viewer::Player(seat)
    }

    /// The line that stands for an area the board does not draw.
    pub(crate) fn no_area_line(who: &str) -> String {
        format!("{who}'s area: no tile yet.")
    }

    pub(crate) fn ascii(&self, state: &State, context: &BoardContext<'_>) -> String {
        let viewer = context.viewer;
        let name = |seat: usize| context.names.get(seat).map_or("?", String::as_str);
        let (_, placed_on) = self.marks(state, context.last_move.as_ref());
        let mover = context.last_move.as_ref().map(|l| l.seat);
        let mut out = self.panel(state, context);
        for seat in Self::shown_areas(state, viewer) {
            let _ = writeln!(out);
            if !Self::draws_area(state, viewer, seat) {
                Self::push_line(&mut out, &Self::no_area_line(name(seat)));
                continue;
            }
            let marked: &[Cell] = if mover == Some(seat) { &placed_on } else { &[] };
            out.push_str(&self.area_text(state, seat, name(seat), marked));
        }
        out
    }

    /// Everything the board tells but the areas: the round, the offer, the last move
    /// and each player's tracks, chits and card, as the reader may see them.
    pub(crate) fn panel(&self, state: &State, context: &BoardContext<'_>) -> String {
        let viewer = context.viewer;
        let names = context.names;
        let name = |seat: usize| names.get(seat).map_or("?", String::as_str);
        let (bid_on, placed_on) = self.marks(state, context.last_move.as_ref());
        let mut out = String::new();
        let doing = match state.phase {
            Phase::Cards => "every player chooses a card face down".to_string(),
            Phase::Bidding { seat } => format!("bidding, {} to bid", name(usize::from(seat))),
            Phase::Placing => "placing the tiles won".to_string(),
            Phase::Over => "the game is over".to_string(),
        };
        Self::push_line(
            &mut out,
            &format!(
                "Triangle auction, round {} of {}: {doing}.",
                state.round, self.rounds
            ),
        );
        Self::push_line(
            &mut out,
            &format!(
                "Starting player: {}. Pile: {} tiles face down; {} discarded.",
                name(usize::from(state.starting)),
                state.pile.len(),
                state.discarded.len()
            ),
        );
        // The auction row, wrapped.
        let mut row = String::from("Offer:");
        for (index, offer) in state.offer.iter().enumerate() {
            let index = u8::try_from(index).unwrap_or(0);
            let mark = if bid_on.contains(&index) { "*" } else { "" };
            let bid = offer
                .bid
                .map(|bid| format!(" ({} {})", name(usize::from(bid.seat)), bid.chits))
                .unwrap_or_default();
            let item = format!(
                " {mark}{}:{}{bid}",
                letter(index),
                self.tile_code(offer.tile)
            );
            if row.chars().count() + item.chars().count() > WIDTH {
                Self::push_line(&mut out, &row);
                row = String::from("      ");
            }
            row.push_str(&item);
        }
        Self::push_line(&mut out, &row);
        let mark = if !bid_on.is_empty() {
            " (* in the offer)"
        } else if !placed_on.is_empty() {
            " (** in the area)"
        } else {
            ""
        };
        Self::last_move_line(&mut out, context, mark);
        let _ = writeln!(out);
        for (seat, player) in state.players.iter().enumerate() {
            let score = self.score(state, seat);
            let colours: Vec<String> = self
                .letters
                .iter()
                .zip(score.counts)
                .map(|(l, c)| format!("{l}{c}"))
                .collect();
            // Until the card opens, its chits are still in hand but cannot be bid: its
            // owner reads what they can bid, the others that the card's are to come off.
            let hand = usize::from(player.hand);
            let chits_and_card = match (player.revealed, player.chosen) {
                (Some(card), _) => format!("{}; card {card}", plural(hand, "chit", "chits")),
                (None, true) if Self::sees_card(viewer, seat) => {
                    let card = player.card.unwrap_or(0);
                    format!(
                        "{} to bid; card {card} face down",
                        plural(hand.saturating_sub(usize::from(card)), "chit", "chits")
                    )
                }
                (None, true) => {
                    format!("{} less the card face down", plural(hand, "chit", "chits"))
                }
                (None, false) => format!("{}; no card yet", plural(hand, "chit", "chits")),
            };
            Self::push_wrapped(
                &mut out,
                &format!(
                    "{}: {} VP; improvement {} ({} colour); {chits_and_card}",
                    name(seat),
                    score.total,
                    player.improvement,
                    ["best", "2nd", "3rd", "4th", "least"]
                        .get(score.rank)
                        .copied()
                        .unwrap_or("least")
                ),
                "    ",
            );
            let won: Vec<String> = player.won.iter().map(|&w| letter(w).to_string()).collect();
            Self::push_wrapped(
                &mut out,
                &format!(
                    "  {}; {}, {} enclosed{}",
                    colours.join(" "),
                    plural(player.area.len(), "tile", "tiles"),
                    score.enclosed,
                    if won.is_empty() {
                        String::new()
                    } else {
                        format!("; to place: {}", won.join(", "))
                    }
                ),
                "    ",
            );
        }
        out
    }
}
