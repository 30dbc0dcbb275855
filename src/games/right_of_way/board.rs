//! The ASCII board: pointy-top cells in offset rows, at most 78 columns.
//!
//! A cell is a 5x3 box. A free city tile shows its label and `$` or `.`; a highway
//! shows its owner's letter in the middle (`$A$` on a $ tile, ` A ` on an unmarked one)
//! and a spoke towards each edge that carries road (`-` E and W, `/` NE and SW, `\` NW
//! and SE). Rows are 3 lines apart and offset by 3 columns, so the spokes of connected
//! neighbours join into continuous lines. A right-of-way stack shows as `[2B]`: height
//! first, so it never reads as a cell label (a letter, then a number). The highway
//! the last move placed has a `*` above and below its owner's letter.

use super::moves::{Action, Move};
use super::report::name_of;
use super::state::{City, State};
use super::RightOfWay;
use crate::engine::rules::{BoardContext, LastMove, Viewer};
use crate::grid::canvas::Canvas;

const LEFT: usize = 3;
const TOP: usize = 2;

pub(super) fn letter(seat: u8) -> char {
    char::from(b'A' + seat)
}

impl RightOfWay {
    fn cell_origin(&self, cell: usize) -> (usize, usize) {
        let hex = self.hexes[cell];
        let col = (hex.doubled_col() + 2 * self.radius) as usize;
        let row = (hex.r + self.radius) as usize;
        (LEFT + 3 * col, TOP + 3 * row)
    }

    /// The cell the last move placed a highway on, read from its canonical text.
    pub(super) fn placed_by(&self, state: &State, last: &LastMove) -> Option<u16> {
        let text = last.text.as_deref()?;
        match self.parse_text(state, last.seat, text).ok()? {
            Move::Turn(actions) => actions.iter().find_map(|a| match a {
                Action::Place { cell, .. } => Some(*cell),
                _ => None,
            }),
            _ => None,
        }
    }

    /// The right-of-way mark of a stack: its height, then the letter of its top tile.
    pub(crate) fn stack_mark(height: usize, owner: u8) -> String {
        format!("[{height}{}]", letter(owner))
    }

    /// `Rules::legend`: what the board's marks mean.
    pub(crate) fn board_legend(&self) -> String {
        let mut lines: Vec<String> = [
            "Cells: row letter + column number, on the margins; $ / . = city tile with /",
            "without a $. Highway: its owner's letter in the middle ($A$ on a $ tile) and",
            "a road towards each edge: - E,W  / NE,SW  \\ NW,SE. A * above and below the",
            "letter: the highway the last move placed. [2B] = right-of-way, a stack of 2",
            "face-down tiles with B's on top (height first, so it is never a cell label).",
        ]
        .iter()
        .map(|line| (*line).to_string())
        .collect();
        let mut text = String::from("Tiles:");
        for k in &self.kinds {
            let entry = format!("{}={}", k.name, Self::edges_text(k.mask));
            if text.len() + entry.len() + 1 > 78 {
                lines.push(text);
                text = String::from("      ");
            }
            text.push(' ');
            text.push_str(&entry);
        }
        lines.push(text);
        lines.join("\n")
    }

    pub(crate) fn draw_board(&self, state: &State, context: &BoardContext<'_>) -> String {
        let marked = context
            .last_move
            .as_ref()
            .and_then(|last| self.placed_by(state, last));
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
                        cv.put(x + 1, y + 2, &Self::stack_mark(c.row.len(), top.owner));
                    }
                }
                (_, Some(h)) => {
                    let has = |e: u8| h.edges & (1 << e) != 0;
                    let side = if c.is_dollar() { "$" } else { " " };
                    cv.put(x + 1, y + 1, side);
                    cv.put(x + 3, y + 1, side);
                    cv.put(x + 2, y + 1, &letter(h.owner).to_string());
                    if marked == Some(i as u16) {
                        // Between the NW and NE spokes and the SW and SE ones: the
                        // places no spoke takes.
                        cv.put(x + 2, y, "*");
                        cv.put(x + 2, y + 2, "*");
                    }
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
        for (y, text) in self
            .footer_lines(state, context, marked.is_some())
            .iter()
            .enumerate()
        {
            cv.put(0, bottom + 2 + y, text);
        }
        cv.render()
    }

    /// The lines under the board: each player's score, stack, discards and hand, the
    /// last move (with ` (*)` when it is `marked` on the board) and the state of play,
    /// each within 78 columns. The ASCII board and the picture both end with them.
    pub(crate) fn footer_lines(
        &self,
        state: &State,
        context: &BoardContext<'_>,
        marked: bool,
    ) -> Vec<String> {
        let viewer = context.viewer;
        let names = context.names;
        let scores = self.victory_points(state);
        let mut lines: Vec<String> = Vec::new();
        let mut line = |text: &str| lines.extend(fitted(text));
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
            line(&head);
            let hand = format!("  hand ({}): {}", p.hand.len(), self.hand_text(&p.hand));
            line(&hand);
        }
        let who = |s: u8| name_of(names, s as usize);
        if let Some(last) = &context.last_move {
            let text = match &last.text {
                Some(text) => text.clone(),
                None => "(sealed)".to_string(),
            };
            let head = format!(
                "Last move{}: {}: ",
                if marked { " (*)" } else { "" },
                who(last.seat as u8)
            );
            for part in wrap_move(&head, &text) {
                line(&part);
            }
        }
        let turn = context.turn;
        if state.setup {
            let tile = if state.drawn_city == Some(true) {
                "a $"
            } else {
                "an unmarked"
            };
            let status = format!(
                "After turn {turn}, city setup: {} places {} city tile on a + cell ({} left).",
                who(state.to_move),
                tile,
                state.city_stack.len()
            );
            line(&status);
        } else if let (true, Some(quitter)) = (state.over, state.resigned) {
            line(&format!(
                "Game over after turn {turn}: {} gave up.",
                who(quitter)
            ));
        } else if state.over {
            line(&format!("Game over after turn {turn}."));
        } else {
            let mut status = format!("After turn {turn}: {} to move.", who(state.to_move));
            if state.turn == 0 {
                status = format!(
                    "After turn {turn}: {} to move, the first highway turn (R7).",
                    who(state.to_move)
                );
            }
            if let Some(e) = state.ended_by {
                line(&format!(
                    "{} used up all tiles: these are the final turns.",
                    who(e)
                ));
            }
            line(&status);
        }
        lines
    }
}

/// A move's text after `head`, broken at its `; ` into lines of at most 78 columns.
/// A line of the board's footer within 78 columns: cut at spaces (players' names can
/// be long), the rest indented by two.
fn fitted(text: &str) -> Vec<String> {
    if text.chars().count() <= 78 {
        return vec![text.to_string()];
    }
    let indent: String = text.chars().take_while(|c| *c == ' ').collect();
    let mut out = Vec::new();
    let mut line = indent.clone();
    for word in text.split_whitespace() {
        let len = line.chars().count();
        if len > indent.len() && len + 1 + word.chars().count() > 78 {
            out.push(line);
            line = format!("{indent}  ");
        }
        if !line.trim().is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push(line);
    out
}

fn wrap_move(head: &str, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = head.to_string();
    let parts: Vec<&str> = text.split("; ").collect();
    for (i, part) in parts.iter().enumerate() {
        let piece = if i + 1 < parts.len() {
            format!("{part};")
        } else {
            (*part).to_string()
        };
        if line.len() + piece.len() + 1 > 78 && line.len() > head.len() {
            out.push(line.trim_end().to_string());
            line = "  ".to_string();
        }
        if !line.ends_with(' ') {
            line.push(' ');
        }
        line.push_str(&piece);
    }
    out.push(line.trim_end().to_string());
    out
}
