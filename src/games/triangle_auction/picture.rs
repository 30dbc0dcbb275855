//! The board as an SVG picture (`pbem show --format svg|png`): the offer's tiles, each
//! player's area as real triangles with their roads and coloured symbols, and under
//! them every line of the ASCII board but the area drawings (the round, the offer,
//! the last move, each player's tracks, chits and card).
//!
//! Privacy: the picture is drawn from what the ASCII board for the same reader prints
//! (its panel lines, its area headings and the areas and offer every board shows), so
//! it tells that reader nothing the text does not.

use std::collections::BTreeSet;

use super::moves::letter;
use super::state::State;
use super::TriangleAuction;
use crate::engine::rules::BoardContext;
use crate::grid::svg::{
    ink_on_seat, seat_colour, Anchor, Font, Point, Style, Svg, FAINT, GRID, INK, PAPER,
};
use crate::grid::triangle::{
    cell_centre, cell_corners, edge_midpoint, row_name, vertex_point, Cell, Outlets,
};

/// A cell's side in an area, in picture units.
const CELL: f64 = 64.0;
/// The side of a tile on offer.
const OFFER_CELL: f64 = 52.0;
/// The room between and around the picture's parts.
const GAP: f64 = 16.0;
/// Where the areas wrap to a new row: a picture a phone can still show.
const WRAP: f64 = 960.0;
/// The height of an area's heading band.
const BAND: f64 = 22.0;
/// A placed tile.
const TILE: &str = "#eadfc6";
/// An empty space a tile could go on.
const EMPTY: &str = "#f4f0e6";
/// The roads.
const ROAD: &str = "#5b5346";
/// The size of the monospace panel text.
const PANEL_SIZE: f64 = 12.0;

/// The colour a road symbol is drawn in, by the colour's name in the rules data, and
/// the ink of the letter drawn on it (the letter is drawn too: colour is never the
/// only cue).
fn symbol_colours(name: &str) -> (&'static str, &'static str) {
    match name {
        "red" => ("#d62d20", "#ffffff"),
        "yellow" => ("#f4c20d", "#1a1a1a"),
        "green" => ("#1e8c3a", "#ffffff"),
        "blue" => ("#1f5fbf", "#ffffff"),
        "purple" => ("#7d3c98", "#ffffff"),
        _ => ("#6b6b6b", "#ffffff"),
    }
}

/// A rough width of `text` in the sans font at `size`: enough to size boxes around it.
fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * size * 0.62
}

/// `from` moved `share` of the way to `to`.
fn towards(from: Point, to: Point, share: f64) -> Point {
    (
        from.0 + (to.0 - from.0) * share,
        from.1 + (to.1 - from.1) * share,
    )
}

fn shifted(points: [Point; 3], by: Point) -> [Point; 3] {
    points.map(|(x, y)| (x + by.0, y + by.1))
}

/// One area laid out: the cells it draws and where its drawing stands in its box.
struct AreaBox {
    seat: usize,
    heading: String,
    /// Placed tiles (cell, outlets by cell edge) and empty spaces a tile could go on.
    tiles: Vec<(Cell, Outlets)>,
    empty: Vec<Cell>,
    marked: Vec<Cell>,
    /// The drawing's top left corner in [`crate::grid::triangle::vertex_point`] units
    /// (room for the row names included).
    min: Point,
    /// The drawing's width (centred in the box, which its heading may widen).
    drawing: f64,
    width: f64,
    height: f64,
}

const ROW_NAMES: f64 = 26.0;

impl TriangleAuction {
    /// `Rules::board_svg`: the board `context.viewer` may see, as a picture.
    pub(crate) fn picture(&self, state: &State, context: &BoardContext<'_>) -> String {
        let names = context.names;
        let name = |seat: usize| names.get(seat).map_or("?", String::as_str);
        let panel = self.panel(state, context);
        let mut lines = panel.lines();
        let heading = lines.next().unwrap_or_default().to_string();
        let rest: Vec<String> = lines.map(str::to_string).collect();
        let (bid_on, placed_on) = self.marks(state, context.last_move.as_ref());
        let mover = context.last_move.as_ref().map(|l| l.seat);

        let boxes: Vec<AreaBox> = Self::shown_areas(state, context.viewer)
            .into_iter()
            .map(|seat| {
                let marked = if mover == Some(seat) {
                    placed_on.clone()
                } else {
                    Vec::new()
                };
                if Self::draws_area(state, context.viewer, seat) {
                    self.area_box(
                        state,
                        seat,
                        self.area_heading(state, seat, name(seat)),
                        marked,
                    )
                } else {
                    empty_box(seat, Self::no_area_line(name(seat)))
                }
            })
            .collect();

        // Lay the areas out in rows no wider than WRAP.
        let mut placed_boxes = Vec::new();
        let (mut x, mut y, mut row_height, mut widest) = (GAP, 0.0f64, 0.0f64, 0.0f64);
        let offer_width = GAP + state.offer.len() as f64 * (OFFER_CELL + 30.0);
        for area in &boxes {
            if x > GAP && x + area.width > WRAP {
                x = GAP;
                y += row_height + GAP;
                row_height = 0.0;
            }
            placed_boxes.push(((x, y), area));
            x += area.width + GAP;
            widest = widest.max(x);
            row_height = row_height.max(area.height);
        }
        let areas_height = y + row_height;
        let panel_width = GAP * 2.0
            + rest.iter().map(|l| l.chars().count()).max().unwrap_or(0) as f64 * PANEL_SIZE * 0.61;
        let width = widest
            .max(offer_width)
            .max(panel_width)
            .max(text_width(&heading, 15.0) + 2.0 * GAP)
            .ceil();

        let mut svg = Svg::new(
            width,
            100.0,
            &format!("Triangle auction, the board after turn {}", context.turn),
        );
        svg.text(
            (GAP, GAP + 12.0),
            &heading,
            Font::centred(15.0, INK).bold().anchored(Anchor::Start),
        );
        let mut top = GAP + 26.0;
        top = self.draw_offer(&mut svg, state, context, &bid_on, top);
        top += GAP;
        for ((bx, by), area) in &placed_boxes {
            self.draw_area(&mut svg, area, (*bx, top + by));
        }
        top += areas_height + GAP;
        top = self.draw_key(&mut svg, top);
        let used = svg.text_block(GAP, top, &rest, PANEL_SIZE);
        svg.grow_to((top + used + GAP).ceil());
        svg.finish()
    }

    /// The box of `seat`'s area: its placed tiles, the empty spaces around them (or
    /// the start and its neighbours, or the whole of a bounded area, while it is
    /// empty), as the ASCII board draws them.
    fn area_box(&self, state: &State, seat: usize, heading: String, marked: Vec<Cell>) -> AreaBox {
        let area = state.players.get(seat).map_or(&[][..], |p| &p.area[..]);
        let tiles: Vec<(Cell, Outlets)> = area
            .iter()
            .map(|placed| (placed.cell, self.placed_outlets(placed)))
            .collect();
        let taken: BTreeSet<Cell> = tiles.iter().map(|(cell, _)| *cell).collect();
        let seeds: Vec<Cell> = if taken.is_empty() {
            match self.start {
                Some(start) => vec![start],
                None => Cell::all(self.side).collect(),
            }
        } else {
            taken.iter().copied().collect()
        };
        let mut empty: BTreeSet<Cell> = BTreeSet::new();
        for cell in &seeds {
            if !taken.contains(cell) {
                empty.insert(*cell);
            }
            for edge in 0..3 {
                if let Some((next, _)) = cell.neighbour(edge, self.side) {
                    if !taken.contains(&next) {
                        empty.insert(next);
                    }
                }
            }
        }
        let corners = taken
            .iter()
            .chain(&empty)
            .flat_map(|&cell| cell_corners(cell, CELL));
        let (mut min, mut max) = ((f64::MAX, f64::MAX), (f64::MIN, f64::MIN));
        for (x, y) in corners {
            min = (min.0.min(x), min.1.min(y));
            max = (max.0.max(x), max.1.max(y));
        }
        let min = (min.0 - ROW_NAMES - 6.0, min.1 - 8.0);
        let drawing = (max.0 - min.0 + ROW_NAMES + 6.0, max.1 - min.1 + 8.0);
        AreaBox {
            seat,
            drawing: drawing.0,
            width: drawing.0.max(text_width(&heading, 12.0) + 16.0),
            height: BAND + drawing.1,
            heading,
            tiles,
            empty: empty.into_iter().collect(),
            marked,
            min,
        }
    }

    /// One area's box at `at`: the heading on a band of the owner's colour (their
    /// name on it too), the spaces and tiles, the row names either side of each row.
    fn draw_area(&self, svg: &mut Svg, area: &AreaBox, at: Point) {
        let seat = u8::try_from(area.seat).unwrap_or(0);
        svg.rect(
            at,
            area.width,
            area.height,
            Style::outlined(PAPER, seat_colour(seat), 2.0),
        );
        svg.rect(at, area.width, BAND, Style::filled(seat_colour(seat)));
        svg.text(
            (at.0 + 8.0, at.1 + BAND / 2.0),
            &area.heading,
            Font::centred(12.0, ink_on_seat(seat))
                .bold()
                .anchored(Anchor::Start),
        );
        if area.tiles.is_empty() && area.empty.is_empty() {
            return;
        }
        // Cell units to picture: the drawing's corner at the box's, under the band,
        // centred across the box.
        let origin = (
            at.0 + (area.width - area.drawing) / 2.0 - area.min.0,
            at.1 + BAND - area.min.1,
        );
        let label_font = Font::centred(10.0, FAINT);
        for &cell in &area.empty {
            let corners = shifted(cell_corners(cell, CELL), origin);
            svg.polygon(&corners, Style::outlined(EMPTY, GRID, 1.0));
            svg.text(label_spot(cell, origin), &number(cell), label_font);
        }
        for &(cell, outlets) in &area.tiles {
            self.draw_tile(svg, cell, outlets, CELL, origin);
            svg.text(
                label_spot(cell, origin),
                &number(cell),
                Font::centred(10.0, INK),
            );
        }
        for &cell in &area.marked {
            svg.marked(&shifted(cell_corners(cell, CELL), origin), 3.0);
        }
        // Every row's name at both ends, as the ASCII board leads each row with it.
        let rows: BTreeSet<u8> = area
            .tiles
            .iter()
            .map(|(cell, _)| cell.row)
            .chain(area.empty.iter().map(|cell| cell.row))
            .collect();
        for row in rows {
            let in_row = area
                .tiles
                .iter()
                .map(|(cell, _)| *cell)
                .chain(area.empty.iter().copied())
                .filter(|cell| cell.row == row);
            let (mut left, mut right) = (f64::MAX, f64::MIN);
            for cell in in_row {
                for (x, _) in cell_corners(cell, CELL) {
                    left = left.min(x);
                    right = right.max(x);
                }
            }
            let middle =
                (vertex_point((row, 0), CELL).1 + vertex_point((row + 1, 0), CELL).1) / 2.0;
            let font = Font::centred(11.0, FAINT).bold();
            let name = row_name(row);
            svg.text(
                (origin.0 + left - 4.0, origin.1 + middle),
                &name,
                font.anchored(Anchor::End),
            );
            svg.text(
                (origin.0 + right + 4.0, origin.1 + middle),
                &name,
                font.anchored(Anchor::Start),
            );
        }
    }

    /// A tile on `cell` (outlets by the cell's edges), `origin` added to its points:
    /// the triangle, its roads from each outlet to the middle, and at each outlet a
    /// symbol in the road's colour with the colour's letter.
    fn draw_tile(&self, svg: &mut Svg, cell: Cell, outlets: Outlets, size: f64, origin: Point) {
        let corners = shifted(cell_corners(cell, size), origin);
        svg.polygon(&corners, Style::outlined(TILE, FAINT, 1.0));
        let centre = cell_centre(cell, size);
        let centre = (centre.0 + origin.0, centre.1 + origin.1);
        let ends: Vec<(Point, u8)> = (0..3u8)
            .filter_map(|edge| {
                outlets[usize::from(edge)].map(|colour| {
                    let (x, y) = edge_midpoint(cell, edge, size);
                    ((x + origin.0, y + origin.1), colour)
                })
            })
            .collect();
        // One outline traced out and back along every arm draws the whole road in
        // one element (a fork is a Y, two outlets a bend through the middle).
        let mut road = Vec::new();
        for (end, _) in &ends {
            road.push(centre);
            road.push(*end);
        }
        if !road.is_empty() {
            svg.polygon(&road, Style::outlined("none", ROAD, size * 0.08));
        }
        let radius = size * 0.095;
        for (end, colour) in ends {
            // Just inside the edge: two outlets that meet face each other across it.
            let spot = towards(end, centre, 0.38);
            let name = self
                .colour_names
                .get(usize::from(colour))
                .map_or("", String::as_str);
            let (fill, ink) = symbol_colours(name);
            svg.circle(spot, radius, Style::filled(fill));
            let mark = self
                .letters
                .get(usize::from(colour))
                .map_or_else(String::new, char::to_string);
            svg.text(spot, &mark, Font::centred(radius * 1.5, ink).bold());
        }
    }

    /// The tiles on offer in a row from `top`: each drawn unturned (r0 on an up
    /// space), its letter above, its code and its holder (on the holder's colour)
    /// below; the tiles the last move bid on marked. Returns the row's bottom.
    fn draw_offer(
        &self,
        svg: &mut Svg,
        state: &State,
        context: &BoardContext<'_>,
        bid_on: &[u8],
        top: f64,
    ) -> f64 {
        if state.offer.is_empty() {
            return top;
        }
        let slot = OFFER_CELL + 30.0;
        let row_height = OFFER_CELL * 3f64.sqrt() / 2.0;
        for (index, offer) in state.offer.iter().enumerate() {
            let index8 = u8::try_from(index).unwrap_or(0);
            let x = GAP + slot * index as f64 + slot / 2.0 - 15.0;
            let label = letter(index8).to_string();
            svg.text((x, top + 8.0), &label, Font::centred(13.0, INK).bold());
            let origin = (x, top + 18.0);
            let outlets = self
                .tiles
                .get(usize::from(offer.tile))
                .map_or([None; 3], |t| t.outlets);
            let cell = Cell::new(0, 0);
            self.draw_tile(svg, cell, outlets, OFFER_CELL, origin);
            if bid_on.contains(&index8) {
                svg.marked(&shifted(cell_corners(cell, OFFER_CELL), origin), 2.5);
            }
            let below = origin.1 + row_height;
            svg.text(
                (x, below + 10.0),
                &self.tile_code(offer.tile),
                Font::centred(11.0, INK),
            );
            let holder = match offer.bid {
                Some(bid) => {
                    let who = context
                        .names
                        .get(usize::from(bid.seat))
                        .map_or("?", String::as_str);
                    // A long name is cut to its slot; the panel below has it whole.
                    let short: String = who.chars().take(7).collect();
                    svg.rect(
                        (x - slot / 2.0 + 3.0, below + 18.0),
                        slot - 6.0,
                        15.0,
                        Style::filled(seat_colour(bid.seat)),
                    );
                    (format!("{short} {}", bid.chits), ink_on_seat(bid.seat))
                }
                None => ("no bid".to_string(), FAINT),
            };
            svg.text((x, below + 25.5), &holder.0, Font::centred(10.0, holder.1));
        }
        top + 18.0 + row_height + 36.0
    }

    /// The road colours with their letters and names (the legend's first line), from
    /// `top`; returns the bottom.
    fn draw_key(&self, svg: &mut Svg, top: f64) -> f64 {
        let mut x = GAP;
        for (mark, name) in self.letters.iter().zip(&self.colour_names) {
            let (fill, ink) = symbol_colours(name);
            svg.circle((x + 7.0, top + 7.0), 7.0, Style::filled(fill));
            svg.text(
                (x + 7.0, top + 7.0),
                &mark.to_string(),
                Font::centred(10.0, ink).bold(),
            );
            svg.text(
                (x + 18.0, top + 11.0),
                name,
                Font::centred(11.0, INK).anchored(Anchor::Start),
            );
            x += 24.0 + text_width(name, 11.0);
        }
        top + 16.0
    }
}

/// A box with only its heading: an area the board says is empty.
fn empty_box(seat: usize, heading: String) -> AreaBox {
    AreaBox {
        seat,
        drawing: 0.0,
        width: text_width(&heading, 12.0) + 16.0,
        height: BAND,
        heading,
        tiles: Vec::new(),
        empty: Vec::new(),
        marked: Vec::new(),
        min: (0.0, 0.0),
    }
}

/// A space's number in its row, as the ASCII board writes it in the space.
fn number(cell: Cell) -> String {
    (u32::from(cell.index) + 1).to_string()
}

/// Where a space's number stands: towards the corner no road reaches (an up space's
/// apex, a down space's bottom), clear of the roads that meet in the middle.
fn label_spot(cell: Cell, origin: Point) -> Point {
    let corner = if cell.points_up() { 0 } else { 1 };
    let tip = cell_corners(cell, CELL)[corner];
    let centre = cell_centre(cell, CELL);
    let spot = towards(centre, tip, 0.55);
    (spot.0 + origin.0, spot.1 + origin.1)
}
