//! What players see: the JSON view's game part and the ASCII board.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{json, Map, Value};

use super::moves::letter;
use super::state::{Phase, State};
use super::TriangleAuction;
use crate::engine::rules::{GameView, Viewer};
use crate::grid::triangle::{draw_numbered, CellArt};

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

    pub(crate) fn ascii(&self, state: &State, viewer: Viewer, names: &[String]) -> String {
        let name = |seat: usize| names.get(seat).map_or("?", String::as_str);
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
            let label = letter(u8::try_from(index).unwrap_or(0));
            let bid = offer
                .bid
                .map(|bid| format!(" ({} {})", name(usize::from(bid.seat)), bid.chits))
                .unwrap_or_default();
            let item = format!(" {label}:{}{bid}", self.tile_code(offer.tile));
            if row.chars().count() + item.chars().count() > WIDTH {
                Self::push_line(&mut out, &row);
                row = String::from("      ");
            }
            row.push_str(&item);
        }
        Self::push_line(&mut out, &row);
        Self::push_line(
            &mut out,
            "Tiles show their roads' colours clockwise from edge 0 (- for none).",
        );
        let _ = writeln!(out);
        for (seat, player) in state.players.iter().enumerate() {
            let score = self.score(state, seat);
            let card = match (player.revealed, player.chosen) {
                (Some(card), _) => format!("card {card}"),
                (None, true) if Self::sees_card(viewer, seat) => {
                    format!("card {} face down", player.card.unwrap_or(0))
                }
                (None, true) => "card face down".to_string(),
                (None, false) => "no card yet".to_string(),
            };
            let colours: Vec<String> = self
                .letters
                .iter()
                .zip(score.counts)
                .map(|(l, c)| format!("{l}{c}"))
                .collect();
            Self::push_line(
                &mut out,
                &format!(
                    "{}: {} VP; {} chits; improvement {} (scores {} colour); {card}",
                    name(seat),
                    score.total,
                    player.hand,
                    player.improvement,
                    ["best", "2nd", "3rd", "4th", "least"]
                        .get(score.rank)
                        .copied()
                        .unwrap_or("least")
                ),
            );
            let won: Vec<String> = player.won.iter().map(|&w| letter(w).to_string()).collect();
            Self::push_line(
                &mut out,
                &format!(
                    "  {}; {} tiles, {} enclosed{}",
                    colours.join(" "),
                    player.area.len(),
                    score.enclosed,
                    if won.is_empty() {
                        String::new()
                    } else {
                        format!("; to place: {}", won.join(", "))
                    }
                ),
            );
        }
        // The reader's own area in full; the referee's view draws every area.
        let shown: Vec<usize> = match viewer {
            Viewer::Player(seat) => vec![seat],
            Viewer::Referee => (0..state.players.len()).collect(),
            Viewer::Public => Vec::new(),
        };
        for seat in shown {
            let Some(player) = state.players.get(seat) else {
                continue;
            };
            let cells: BTreeMap<_, _> = player
                .area
                .iter()
                .enumerate()
                .map(|(order, placed)| {
                    let outlets = self.placed_outlets(placed);
                    let art = CellArt {
                        label: format!("#{}", (order + 1) % 10),
                        outlets: outlets
                            .map(|o| o.and_then(|c| self.letters.get(usize::from(c)).copied())),
                    };
                    (placed.cell, art)
                })
                .collect();
            let _ = writeln!(out);
            Self::push_line(
                &mut out,
                &format!(
                    "{}'s area: tiles #1, #2... in the order placed; empty spaces numbered:",
                    name(seat)
                ),
            );
            out.push_str(&draw_numbered(self.side, &cells));
        }
        out
    }
}
