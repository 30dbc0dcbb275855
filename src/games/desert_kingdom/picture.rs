//! The board as a picture (`pbem show --format svg|png`): the 8 x 8 squares drawn as
//! squares, each from the same [`Cell`] the ASCII board prints, and under them the
//! ASCII board's own lines (bag, players, last move, who is to do what). The picture
//! therefore tells a viewer exactly what their ASCII board tells, and nothing more.

use super::board::{Square, SIDE};
use super::state::{Kind, State};
use super::view::{wrap, Cell, BOARD_WIDTH};
use super::DesertKingdom;
use crate::engine::rules::BoardContext;
use crate::grid::svg::{
    ink_on_seat, seat_colour, Anchor, Font, Point, Style, Svg, FAINT, GRID, INK,
};

/// A square's side, in the picture's units.
const CELL: f64 = 64.0;
/// The room above the board (and under it) for the square names.
const MARGIN: f64 = 28.0;
/// The panel's monospace size: a line of the ASCII board's full width (78
/// characters of DejaVu Sans Mono, 0.602 em each: 564 units) fits the picture.
const PANEL_SIZE: f64 = 12.0;
/// The room left of the panel's lines for a player's seat key.
const KEY: f64 = 22.0;
const PAD: f64 = 12.0;
/// The picture's width: the panel's widest line with its key and padding (about
/// 610), wider than the board with its names (568).
const WIDTH: f64 = 620.0;
/// The board's left edge, centring it.
const LEFT: f64 = (WIDTH - 8.0 * CELL) / 2.0;

/// An empty square: bare sand.
const EMPTY: &str = "#efe6d2";
/// A face-down tile's back, and what is written on it.
const BACK: &str = "#5c4a36";
const ON_BACK: &str = "#fbf8f1";
/// A destroyed city's rubble.
const RUBBLE: &str = "#cfc9bf";
const ROAD: &str = "#4a3b2c";

/// A tile's fill: each kind its own, light enough for dark letters.
fn fill(kind: Kind) -> &'static str {
    match kind {
        Kind::Oasis => "#8fd3c7",
        Kind::City => "#e3c9a8",
        Kind::Mine => "#b4aca3",
        Kind::Grass => "#b5d99c",
        Kind::Desert => "#f4dc9a",
        Kind::Mountain => "#c7b299",
        Kind::Treasure => "#f5d04c",
        Kind::Barbarian => "#e08b7a",
    }
}

/// The letter the ASCII board prints, and the word that says it in full.
fn letter(kind: Option<Kind>) -> (String, &'static str) {
    kind.map_or(("?".to_string(), ""), |k| {
        (k.letter().to_string(), k.name())
    })
}

/// Whether a tile counts as a road for what a road links (D8: cities, oases and
/// mines do), as its viewer sees it.
fn joins_roads(cell: Cell) -> bool {
    match cell {
        Cell::Tile { kind, road, .. } => {
            road || matches!(kind, Some(Kind::City | Kind::Oasis | Kind::Mine))
        }
        _ => false,
    }
}

fn corner(at: Square) -> Point {
    (
        LEFT + f64::from(at.col) * CELL,
        MARGIN + f64::from(at.row) * CELL,
    )
}

/// The corners of the square inset by `inset`, for outlines.
fn square_outline(at: Square, inset: f64) -> [Point; 4] {
    let (x, y) = corner(at);
    let far = CELL - inset;
    [
        (x + inset, y + inset),
        (x + far, y + inset),
        (x + far, y + far),
        (x + inset, y + far),
    ]
}

/// A seat's badge: a disc in the seat's colour with its number (as the ASCII board
/// numbers owners), so colour is never the only cue. Another game may share it.
pub(crate) fn seat_badge(svg: &mut Svg, centre: Point, radius: f64, seat: u8) {
    svg.circle(centre, radius, Style::outlined(seat_colour(seat), INK, 1.0));
    svg.text(
        centre,
        &(u32::from(seat) + 1).to_string(),
        Font::centred(radius * 1.25, ink_on_seat(seat)).bold(),
    );
}

impl DesertKingdom {
    fn draw_cell(&self, svg: &mut Svg, state: &State, context: &BoardContext<'_>, at: Square) {
        let cell = self.cell(state, context.viewer, at);
        let (x, y) = corner(at);
        let centre = (x + CELL / 2.0, y + CELL / 2.0);
        let word_at = (centre.0, y + CELL - 11.0);
        let word = Font::centred(9.0, INK);
        let big = Font::centred(22.0, INK).bold();
        match cell {
            Cell::Empty | Cell::Entry => {
                svg.rect((x, y), CELL, CELL, Style::outlined(EMPTY, GRID, 1.0));
                if cell == Cell::Entry {
                    svg.text(centre, ">", Font::centred(22.0, FAINT).bold());
                    svg.text(word_at, "enter", Font::centred(9.0, FAINT));
                } else if self.next_face_down(state) == Some(at) {
                    // The panel names it too; the dotted square shows where it is.
                    let inner = square_outline(at, 8.0);
                    svg.polygon(&inner, Style::outlined("none", FAINT, 1.0));
                    svg.text(centre, "next", Font::centred(10.0, FAINT));
                }
            }
            Cell::FaceDown(kind) => {
                svg.rect((x, y), CELL, CELL, Style::outlined(BACK, GRID, 1.0));
                let inner = square_outline(at, 5.0);
                svg.polygon(&inner, Style::outlined("none", ON_BACK, 0.8));
                // Its kind only where the ASCII board shows it ([C], [T], ...).
                let (mark, name) = match kind {
                    Some(kind) => (format!("[{}]", kind.letter()), kind.name()),
                    None => ("?".to_string(), "face down"),
                };
                svg.text(centre, &mark, Font::centred(20.0, ON_BACK).bold());
                svg.text(word_at, name, Font::centred(9.0, ON_BACK));
            }
            Cell::Ruined => {
                svg.rect((x, y), CELL, CELL, Style::outlined(RUBBLE, GRID, 1.0));
                let [a, b, c, d] = square_outline(at, 16.0);
                svg.line(a, c, INK, 3.0);
                svg.line(b, d, INK, 3.0);
                svg.text(word_at, "destroyed", word);
            }
            Cell::Tile { kind, owner, road } => {
                let colour = kind.map_or(EMPTY, fill);
                svg.rect((x, y), CELL, CELL, Style::outlined(colour, GRID, 1.0));
                if road {
                    self.draw_road(svg, state, context, at, owner);
                    // A plate under the letter keeps it readable over the road.
                    svg.circle(centre, 13.0, Style::outlined(colour, ROAD, 1.0));
                }
                let (mark, name) = letter(kind);
                svg.text(centre, &mark, big);
                if road {
                    // A plate under the word as well, where a road runs down; the
                    // word "road" in the corner the road leaves free.
                    let wide = 5.6 * name.len() as f64 + 4.0;
                    svg.rect(
                        (centre.0 - wide / 2.0, word_at.1 - 6.0),
                        wide,
                        12.0,
                        Style::filled(colour),
                    );
                    svg.text(
                        (x + CELL - 5.0, y + 13.0),
                        "road",
                        Font::centred(9.0, INK).anchored(Anchor::End),
                    );
                }
                svg.text(word_at, name, word);
                if let Some(owner) = owner {
                    seat_badge(svg, (x + 12.0, y + 12.0), 8.5, owner);
                }
            }
        }
    }

    /// A road: from the square's middle to each neighbour it links (a road, a city, an
    /// oasis or a mine), or straight across when it links none; dark, with the
    /// owner's colour down its middle.
    fn draw_road(
        &self,
        svg: &mut Svg,
        state: &State,
        context: &BoardContext<'_>,
        at: Square,
        owner: Option<u8>,
    ) {
        let (x, y) = corner(at);
        let centre = (x + CELL / 2.0, y + CELL / 2.0);
        let mut ends: Vec<Point> = at
            .neighbours()
            .filter(|n| joins_roads(self.cell(state, context.viewer, *n)))
            .map(|n| {
                let (nx, ny) = corner(n);
                // The middle of the shared edge.
                (
                    (centre.0 + nx + CELL / 2.0) / 2.0,
                    (centre.1 + ny + CELL / 2.0) / 2.0,
                )
            })
            .collect();
        if ends.is_empty() {
            // Short of the edges: it links no neighbour.
            ends = vec![(x + 10.0, centre.1), (x + CELL - 10.0, centre.1)];
        }
        let core = owner.map_or(EMPTY, seat_colour);
        for end in &ends {
            svg.line(centre, *end, ROAD, 9.0);
        }
        for end in &ends {
            svg.line(centre, *end, core, 3.5);
        }
    }

    /// `Rules::board_svg`: the squares, their names on every edge, the last move
    /// marked, and the ASCII board's lines under them.
    pub(crate) fn picture(&self, state: &State, context: &BoardContext<'_>) -> String {
        let marked = self.marked_squares(state, context);
        let board = f64::from(SIDE) * CELL;
        let mut svg = Svg::new(
            WIDTH,
            board + 2.0 * MARGIN,
            &format!("The desert kingdom after turn {}", context.turn),
        );
        for at in Square::all() {
            self.draw_cell(&mut svg, state, context, at);
        }
        // The marks of the last move drawn after every square, so no square's fill or
        // road covers them.
        for at in &marked {
            svg.marked(&square_outline(*at, 3.0), 3.0);
        }
        // The square names on every edge, as the ASCII board gives them.
        let names = Font::centred(13.0, INK).bold();
        for i in 0..SIDE {
            let across = LEFT + (f64::from(i) + 0.5) * CELL;
            let down = MARGIN + (f64::from(i) + 0.5) * CELL;
            let column = char::from(b'A' + i).to_string();
            let row = (i + 1).to_string();
            svg.text((across, MARGIN / 2.0), &column, names);
            svg.text((across, MARGIN * 1.5 + board), &column, names);
            svg.text((LEFT - MARGIN / 2.0, down), &row, names);
            svg.text((LEFT + board + MARGIN / 2.0, down), &row, names);
        }
        // The ASCII board's lines, wrapped as it wraps them; each player's keyed to
        // their seat's colour and number.
        let mut top = board + 2.0 * MARGIN;
        for (seat, line) in self.panel(state, context, &marked) {
            let wrapped: Vec<String> = wrap(&line, BOARD_WIDTH, "    ")
                .lines()
                .map(str::to_string)
                .collect();
            if let Some(seat) = seat.and_then(|s| u8::try_from(s).ok()) {
                seat_badge(
                    &mut svg,
                    (PAD + KEY / 2.0 - 2.0, top + PANEL_SIZE * 0.9),
                    7.0,
                    seat,
                );
            }
            top += svg.text_block(PAD + KEY, top, &wrapped, PANEL_SIZE) - PANEL_SIZE * 0.5;
        }
        svg.grow_to((top + PAD).ceil());
        svg.finish()
    }
}
