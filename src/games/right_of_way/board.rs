//! The ASCII board: pointy-top cells in offset rows, at most 78 columns.
//!
//! A cell is a 5x3 box. A free city tile shows its label and `$` or `.`; a highway
//! shows its owner's letter in the middle (`$A$` on a $ tile, ` A ` on an unmarked one)
//! and a spoke towards each edge that carries road (`-` E and W, `/` NE and SW, `\` NW
//! and SE). Rows are 3 lines apart and offset by 3 columns, so the spokes of connected
//! neighbours join into continuous lines. A right-of-way stack shows as `#B2`.

use super::state::{City, State};
use super::RightOfWay;
use crate::engine::rules::Viewer;
use crate::grid::canvas::Canvas;

const LEFT: usize = 3;
const TOP: usize = 2;

fn letter(seat: u8) -> char {
    char::from(b'A' + seat)
}

impl RightOfWay {
    fn cell_origin(&self, cell: usize) -> (usize, usize) {
        let hex = self.hexes[cell];
        let col = (hex.doubled_col() + 2 * self.radius) as usize;
        let row = (hex.r + self.radius) as usize;
        (LEFT + 3 * col, TOP + 3 * row)
    }

    pub(crate) fn draw_board(&self, state: &State, viewer: Viewer, names: &[String]) -> String {
        let mut cv = Canvas::new();
        let radius = self.radius as usize;
        let cols = 4 * radius + 1;
        let rows = 2 * radius + 1;
        let bottom = TOP + 3 * rows;
        let right = LEFT + 3 * (cols - 1) + 6;
        for c in 1..=cols {
            let x = LEFT + 3 * (c - 1);
            let text = c.to_string();
            let at = if text.len() > 1 { x + 1 } else { x + 2 };
            cv.put(at, 0, &text);
            cv.put(at, bottom, &text);
        }
        for r in 0..rows {
            let ch = char::from(b'A' + r as u8).to_string();
            cv.put(0, TOP + 3 * r + 1, &ch);
            cv.put(right, TOP + 3 * r + 1, &ch);
        }
        for (i, c) in state.cells.iter().enumerate() {
            let (x, y) = self.cell_origin(i);
            let label = self.label(i as u16);
            match (c.city, c.highway) {
                (City::Empty, _) => {
                    if state.setup {
                        cv.put(x + 1, y, &label.to_ascii_lowercase());
                        if self.city_spot(state, i) {
                            cv.put(x + 2, y + 1, "+");
                        }
                    }
                }
                (_, None) => {
                    cv.put(x + 1, y, label);
                    cv.put(x + 2, y + 1, if c.is_dollar() { "$" } else { "." });
                    if let Some(top) = c.row.last() {
                        cv.put(
                            x + 1,
                            y + 2,
                            &format!("#{}{}", letter(top.owner), c.row.len()),
                        );
                    }
                }
                (_, Some(h)) => {
                    let has = |e: u8| h.edges & (1 << e) != 0;
                    let side = if c.is_dollar() { "$" } else { " " };
                    cv.put(x + 1, y + 1, side);
                    cv.put(x + 3, y + 1, side);
                    cv.put(x + 2, y + 1, &letter(h.owner).to_string());
                    let spokes = [
                        (0, 4, 1, '-'),
                        (1, 3, 0, '/'),
                        (2, 1, 0, '\\'),
                        (3, 0, 1, '-'),
                        (4, 1, 2, '/'),
                        (5, 3, 2, '\\'),
                    ];
                    for (e, dx, dy, ch) in spokes {
                        if has(e) {
                            cv.put(x + dx, y + dy, &ch.to_string());
                        }
                    }
                    // Join an east spoke to the neighbour's west spoke.
                    let east = self.neighbours[i][0];
                    if has(0)
                        && state
                            .cells
                            .get(east as usize)
                            .and_then(|n| n.highway)
                            .is_some_and(|n| n.edges & (1 << 3) != 0)
                    {
                        cv.put(x + 5, y + 1, "-");
                    }
                }
            }
        }
        let scores = self.victory_points(state);
        let mut y = bottom + 2;
        let mut line = |cv: &mut Canvas, text: &str| {
            cv.put(0, y, text);
            y += 1;
        };
        line(
            &mut cv,
            "Cells: row letter + column number; $ / . = city tile with / without $.",
        );
        line(
            &mut cv,
            "Highway: owner letter in the middle ($A$ on a $ tile), road towards each edge:",
        );
        line(
            &mut cv,
            "  - E,W  / NE,SW  \\ NW,SE.   #B2 = right-of-way stack of 2 tiles, B's on top.",
        );
        let kinds: Vec<String> = self
            .kinds
            .iter()
            .map(|k| format!("{}={}", k.name, Self::edges_text(k.mask)))
            .collect();
        let mut text = String::from("Tiles:");
        for k in kinds {
            if text.len() + k.len() + 1 > 78 {
                line(&mut cv, &text);
                text = String::from("      ");
            }
            text.push(' ');
            text.push_str(&k);
        }
        line(&mut cv, &text);
        line(&mut cv, "");
        for (seat, p) in state.players.iter().enumerate() {
            let s = seat as u8;
            let name = names
                .get(seat)
                .cloned()
                .unwrap_or_else(|| format!("seat {seat}"));
            let you = if viewer == Viewer::Player(seat) {
                " (you)"
            } else {
                ""
            };
            let mover = if !state.over && state.to_move == s {
                " <- to move"
            } else {
                ""
            };
            let head = format!(
                "{} {}{}: score {}, stack {}, discards {}, on board {}{}",
                letter(s),
                name,
                you,
                scores[seat],
                p.stack.len(),
                p.discards,
                state.on_board(s),
                mover
            );
            line(&mut cv, &head);
            let hand = format!("  hand ({}): {}", p.hand.len(), self.hand_text(&p.hand));
            line(&mut cv, &hand);
        }
        let who = |s: u8| {
            names
                .get(s as usize)
                .cloned()
                .unwrap_or_else(|| format!("seat {s}"))
        };
        if state.setup {
            let tile = if state.drawn_city == Some(true) {
                "a $"
            } else {
                "an unmarked"
            };
            let status = format!(
                "City setup: {} places {} city tile on a + cell ({} left to draw).",
                who(state.to_move),
                tile,
                state.city_stack.len()
            );
            line(&mut cv, &status);
        } else if let (true, Some(quitter)) = (state.over, state.resigned) {
            line(
                &mut cv,
                &format!(
                    "Game over after {} turns: {} resigned.",
                    state.turn,
                    who(quitter)
                ),
            );
        } else if state.over {
            line(&mut cv, &format!("Game over after {} turns.", state.turn));
        } else {
            let mut status = format!(
                "Turn {}: {} to move; {} moved first.",
                state.turn + 1,
                who(state.to_move),
                who(state.first)
            );
            if let Some(e) = state.ended_by {
                status = format!("{} used up all tiles: final turns. {status}", who(e));
            }
            line(&mut cv, &status);
        }
        cv.render()
    }
}
