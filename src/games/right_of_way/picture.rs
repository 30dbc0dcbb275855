//! The board as a picture: the hex city drawn pointy-top as the ASCII board is, each
//! highway's road from the centre to every edge it takes in its owner's colour, the
//! owner's letter in the middle, a right-of-way stack as a badge (height, then the
//! letter of its top tile, as `[2B]` in the text), the highway the last move placed
//! outlined, row letters and column numbers on all four sides, and under it the
//! same lines as under the ASCII board.

use super::board::letter;
use super::state::{City, State};
use super::RightOfWay;
use crate::engine::rules::BoardContext;
use crate::grid::svg::{
    ink_on_seat, mono_width, pointy_hex, pointy_hex_edge, seat_colour, Font, Style, Svg, FAINT,
    GRID, INK,
};

/// The hexagons' circumradius, in picture units.
const SIZE: f64 = 26.0;
/// Room for the row letters and column numbers around the city.
const MARGIN: f64 = 34.0;
/// A plain city tile, a $ tile, and a cell where a city tile may go in the draft.
const PLAIN_TILE: &str = "#ece4d0";
const DOLLAR_TILE: &str = "#f4d77a";
const SPOT: &str = "#f3efe6";
/// The type size of the lines under the board.
const FOOTER_SIZE: f64 = 12.0;

impl RightOfWay {
    fn centre(&self, cell: usize) -> (f64, f64) {
        let hex = self.hexes[cell];
        let half_width = SIZE * 3f64.sqrt() / 2.0;
        let col = f64::from(hex.doubled_col() + 2 * self.radius);
        let row = f64::from(hex.r + self.radius);
        (
            MARGIN + half_width * (col + 1.0),
            MARGIN + SIZE + 1.5 * SIZE * row,
        )
    }

    /// `Rules::board_svg`.
    pub(crate) fn board_picture(&self, state: &State, context: &BoardContext<'_>) -> String {
        let marked = context
            .last_move
            .as_ref()
            .and_then(|last| self.placed_by(state, last));
        let radius = self.radius as usize;
        let columns = 4 * radius + 1;
        let rows = 2 * radius + 1;
        let half_width = SIZE * 3f64.sqrt() / 2.0;
        let footer = self.footer_lines(state, context, marked.is_some());
        let width = (2.0 * MARGIN + half_width * (columns as f64 + 1.0))
            .max(MARGIN + mono_width(&footer, FOOTER_SIZE));
        let board_bottom = MARGIN + 2.0 * SIZE + 1.5 * SIZE * (rows as f64 - 1.0);
        let mut svg = Svg::new(
            width,
            board_bottom + MARGIN,
            &format!("Right of Way after turn {}", context.turn),
        );
        let margin_font = Font::centred(12.0, FAINT);
        for column in 0..columns {
            let x = MARGIN + half_width * (column as f64 + 1.0);
            let name = (column + 1).to_string();
            svg.text((x, MARGIN / 2.0), &name, margin_font);
            svg.text((x, board_bottom + MARGIN / 2.0), &name, margin_font);
        }
        for row in 0..rows {
            let y = MARGIN + SIZE + 1.5 * SIZE * row as f64;
            let name = char::from(b'A' + row as u8).to_string();
            svg.text((MARGIN / 2.0, y), &name, margin_font);
            svg.text((width - MARGIN / 2.0, y), &name, margin_font);
        }
        // The tiles first, then what stands on them, so no tile covers a
        // neighbour's road.
        for (i, cell) in state.cells.iter().enumerate() {
            let centre = self.centre(i);
            let corners = pointy_hex(centre, SIZE);
            let label = self.label(i as u16);
            let label_at = (centre.0, centre.1 - SIZE * 0.55);
            if cell.city == City::Empty {
                // Outside the city: only the draft shows where it may grow.
                if state.setup {
                    svg.polygon(&corners, Style::outlined(SPOT, GRID, 1.0));
                    svg.text(
                        label_at,
                        &label.to_ascii_lowercase(),
                        Font::centred(9.0, FAINT),
                    );
                    if self.city_spot(state, i) {
                        svg.text(centre, "+", Font::centred(16.0, INK).bold());
                    }
                }
                continue;
            }
            let fill = if cell.is_dollar() {
                DOLLAR_TILE
            } else {
                PLAIN_TILE
            };
            svg.polygon(&corners, Style::outlined(fill, GRID, 1.5));
            if cell.highway.is_none() {
                svg.text(label_at, label, Font::centred(10.0, INK));
                let mark = if cell.is_dollar() { "$" } else { "" };
                svg.text(centre, mark, Font::centred(16.0, INK).bold());
            }
        }
        for (i, cell) in state.cells.iter().enumerate() {
            let centre = self.centre(i);
            if let Some(highway) = cell.highway {
                let spokes: Vec<_> = (0..6)
                    .filter(|edge| highway.edges & (1 << edge) != 0)
                    .map(|edge| (centre, pointy_hex_edge(centre, SIZE, edge)))
                    .collect();
                // An outline under the colour, so light colours read on the tiles.
                svg.lines(&spokes, INK, 9.0);
                svg.lines(&spokes, seat_colour(highway.owner), 6.0);
                svg.circle(
                    centre,
                    9.5,
                    Style::outlined(seat_colour(highway.owner), INK, 1.2),
                );
                svg.text(
                    centre,
                    &letter(highway.owner).to_string(),
                    Font::centred(11.0, ink_on_seat(highway.owner)).bold(),
                );
                if cell.is_dollar() {
                    let at = (centre.0 + SIZE * 0.5, centre.1 - SIZE * 0.45);
                    svg.text(at, "$", Font::centred(11.0, INK).bold());
                }
            }
            if let Some(top) = cell.row.last() {
                // The right-of-way: height first, then the letter of the top tile.
                let at = (centre.0 - 12.0, centre.1 + SIZE * 0.38);
                svg.rect(
                    at,
                    24.0,
                    13.0,
                    Style::outlined(seat_colour(top.owner), INK, 1.0),
                );
                let badge = format!("{}{}", cell.row.len(), letter(top.owner));
                svg.text(
                    (centre.0, at.1 + 6.5),
                    &badge,
                    Font::centred(10.0, ink_on_seat(top.owner)).bold(),
                );
            }
        }
        if let Some(cell) = marked {
            svg.marked(&pointy_hex(self.centre(usize::from(cell)), SIZE - 3.0), 3.0);
        }
        let used = svg.text_block(MARGIN / 2.0, board_bottom + MARGIN, &footer, FOOTER_SIZE);
        svg.grow_to(board_bottom + MARGIN + used + 8.0);
        svg.finish()
    }
}
