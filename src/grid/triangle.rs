//! A triangular area cut into triangular cells, shared by every triangle-tile game.
//!
//! An area of side `side` (1..=[`MAX_SIDE`]) has `side` rows, named A, B, C... Z,
//! then AA, AB... from the apex down; row `r` holds `2r + 1` cells, numbered from 1
//! on the left in names ("C5", "AO41") and from 0 in [`Cell::index`]. An even index points up, an odd one down, so every row
//! starts and ends with an up cell.
//!
//! # Edges
//!
//! A cell's three edges are numbered clockwise. An up cell's are 0 = left side,
//! 1 = right side, 2 = bottom; a down cell's are 0 = top, 1 = right side, 2 = left
//! side. Up cell (r, i) meets down cell (r, i-1) across its left edge (that cell's
//! right), (r, i+1) across its right edge (that cell's left) and (r+1, i+1) across its
//! bottom (that cell's top). Corner `k` of a cell lies between its edges `k` and
//! `k + 1 mod 3`: an up cell's corners are 0 = apex, 1 = bottom right, 2 = bottom
//! left; a down cell's 0 = top right, 1 = bottom, 2 = top left. A tile turned `k`
//! steps clockwise puts its own edge `i` on the cell's edge `(i + k) mod 3`; tiles are
//! never flipped. Players type these numbers, so they must not change.
//!
//! # Enclosed areas
//!
//! [`enclosed_areas`] counts the areas completely enclosed by roads, by this model:
//!
//! - Each cell edge is split at its midpoint into two halves, numbered in the cell's
//!   clockwise order: half (e, 0), then (e, 1). Two cells run a shared edge in
//!   opposite directions, so half (e, 0) of one meets half (f, 1) of the other and
//!   (e, 1) meets (f, 0).
//! - A road leaves a tile at the midpoint of each edge with an outlet and the roads
//!   join inside. A tile with 3 outlets (a fork) cuts the triangle into 3 corner
//!   regions, region `k` holding halves (k, 1) and (k+1, 0). A tile with 2 outlets on
//!   edges `a` and `b` cuts off the corner between them (halves (a, 1) and (b, 0)
//!   when b = a+1 mod 3) from the rest (the other halves of a and b and both halves of
//!   the third edge). A tile with 0 or 1 outlets is a single region.
//! - Regions join across every edge two placed tiles share, half to half as above,
//!   whether or not outlets meet there. A half whose other side is an empty cell or
//!   the area's border makes its region open.
//! - An enclosed area is a connected set of regions none of which is open.
//!
//! So a full area of forks encloses one area around each vertex inside the area, and a
//! ring that leans on the area's border encloses nothing.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::canvas::Canvas;

/// The largest side of an area: every index fits a byte and every row name two
/// letters. The whole drawing fits 78 columns for sides up to 9;
/// [`draw_numbered_part`] draws any side within a width. A drawing numbers a space
/// only where its number fits the two columns a cell has (numbers up to 99).
pub const MAX_SIDE: u8 = 120;

/// The name of row `row` (0 = the apex row): A to Z, then AA, AB... AZ, BA...
pub fn row_name(row: u8) -> String {
    let letter = |n: u8| char::from(b'A' + n % 26);
    if row < 26 {
        letter(row).to_string()
    } else {
        format!("{}{}", letter(row / 26 - 1), letter(row % 26))
    }
}

/// The row a name of one or two letters (any case) stands for, as [`row_name`]
/// writes it; None for anything else.
pub fn parse_row_name(text: &str) -> Option<u8> {
    let value = |b: u8| {
        let upper = b.to_ascii_uppercase();
        upper.is_ascii_uppercase().then(|| upper - b'A')
    };
    match text.as_bytes() {
        [one] => value(*one),
        [first, second] => {
            u8::try_from((u16::from(value(*first)?) + 1) * 26 + u16::from(value(*second)?)).ok()
        }
        _ => None,
    }
}

/// A cell of a triangular area of side `side` (1..=[`MAX_SIDE`]): `row` 0..side from the apex
/// down, `index` 0..=2*row from left to right; an even index points up, an odd one down.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Cell {
    pub row: u8,
    pub index: u8,
}

/// A colour index (0..5) at each of a cell's three edges, clockwise, or None where no
/// road leaves.
pub type Outlets = [Option<u8>; 3];

/// Edge names of an up cell, by edge number.
pub const EDGE_NAMES_UP: [&str; 3] = ["left", "right", "bottom"];

/// Edge names of a down cell, by edge number.
pub const EDGE_NAMES_DOWN: [&str; 3] = ["top", "right", "left"];

impl Cell {
    pub const fn new(row: u8, index: u8) -> Cell {
        Cell { row, index }
    }

    pub fn points_up(self) -> bool {
        self.index.is_multiple_of(2)
    }

    /// "A1", "C5", "AO41": the row's name (A = apex row, [`row_name`]) and index + 1.
    pub fn name(self) -> String {
        format!("{}{}", row_name(self.row), u32::from(self.index) + 1)
    }

    /// Reads a name like "c5" / "C5" / " C 5 " / "ao41" (case and spaces forgiven);
    /// None when not a cell of an area of this side.
    pub fn parse(text: &str, side: u8) -> Option<Cell> {
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let split = compact
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(compact.len());
        let (letters, digits) = compact.split_at(split);
        let row = parse_row_name(letters)?;
        // Only plain digits: u8's parser would also take a leading '+'.
        // No leading zero: one cell, one spelling of its number.
        if digits.is_empty()
            || digits.len() > 3
            || digits.starts_with('0')
            || !digits.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let number: u8 = digits.parse().ok()?;
        let cell = Cell::new(row, number.checked_sub(1)?);
        cell.within(side).then_some(cell)
    }

    /// Whether the cell lies in an area of this side.
    pub fn within(self, side: u8) -> bool {
        self.row < side && u16::from(self.index) <= 2 * u16::from(self.row)
    }

    /// The cell across edge `edge` (0..3, clockwise numbering of this cell) and that
    /// edge's number in the neighbour's own numbering; None at the area's border (and
    /// for an edge number past 2 or a cell outside the area).
    pub fn neighbour(self, edge: u8, side: u8) -> Option<(Cell, u8)> {
        if !self.within(side) {
            return None;
        }
        let (row, index) = (self.row, self.index);
        let found = match (self.points_up(), edge) {
            // Up: left side meets the down cell's right, right side its left, bottom its top.
            (true, 0) => (Cell::new(row, index.checked_sub(1)?), 1),
            (true, 1) => (Cell::new(row, index.checked_add(1)?), 2),
            (true, 2) => (Cell::new(row.checked_add(1)?, index.checked_add(1)?), 0),
            // Down: top meets the up cell's bottom, right side its left, left side its right.
            (false, 0) => (Cell::new(row - 1, index - 1), 2),
            (false, 1) => (Cell::new(row, index.checked_add(1)?), 0),
            (false, 2) => (Cell::new(row, index - 1), 1),
            _ => return None,
        };
        found.0.within(side).then_some(found)
    }

    /// Every cell of an area, row by row.
    pub fn all(side: u8) -> impl Iterator<Item = Cell> {
        (0..side).flat_map(|row| (0..=2 * row).map(move |index| Cell::new(row, index)))
    }

    /// The cell's corner `k` (0..3, between edges k and k+1) as a vertex of the area:
    /// (line of vertices from the apex, 0..=side; position on that line, 0..=line).
    /// Cells that share a vertex give the same pair.
    pub fn corner(self, k: u8) -> (u8, u8) {
        let (r, half) = (self.row, self.index / 2);
        if self.points_up() {
            [(r, half), (r + 1, half + 1), (r + 1, half)][usize::from(k % 3)]
        } else {
            [(r, half + 1), (r + 1, half + 1), (r, half)][usize::from(k % 3)]
        }
    }
}

/// A tile's outlets by its own edges (clockwise), turned `rotation` (0..3) steps
/// clockwise: tile edge i lies on cell edge (i + rotation) % 3.
pub fn rotated(outlets: Outlets, rotation: u8) -> Outlets {
    let mut out = [None; 3];
    for (i, outlet) in outlets.into_iter().enumerate() {
        out[(i + usize::from(rotation % 3)) % 3] = outlet;
    }
    out
}

/// A point of a board picture: x to the right, y down.
pub type PicturePoint = (f64, f64);

/// Where the area's vertex `(line, position)` (as [`Cell::corner`] gives it) stands in
/// a picture whose cells are equilateral triangles of side `size`: the apex at (0, 0),
/// line `v` from x = -v * size / 2 to x = v * size / 2, `size * sqrt(3) / 2` below the
/// line above it. Cells that share a vertex share its point, so neighbours meet edge
/// to edge.
pub fn vertex_point(vertex: (u8, u8), size: f64) -> PicturePoint {
    let (line, position) = (f64::from(vertex.0), f64::from(vertex.1));
    (
        (position - line / 2.0) * size,
        line * size * 3f64.sqrt() / 2.0,
    )
}

/// A cell's three corners in a picture ([`vertex_point`]), in the order of
/// [`Cell::corner`]: corner `k` between the cell's edges `k` and `k + 1`.
pub fn cell_corners(cell: Cell, size: f64) -> [PicturePoint; 3] {
    [0, 1, 2].map(|k| vertex_point(cell.corner(k), size))
}

/// The middle of a cell's edge `edge` (0..3, the cell's clockwise numbering), where
/// a tile's road leaves it: the edge runs from corner `edge - 1` to corner `edge`.
pub fn edge_midpoint(cell: Cell, edge: u8, size: f64) -> PicturePoint {
    let corners = cell_corners(cell, size);
    let (a, b) = (
        corners[usize::from((edge + 2) % 3)],
        corners[usize::from(edge % 3)],
    );
    ((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0)
}

/// The centre of a cell in a picture, where a tile's roads meet.
pub fn cell_centre(cell: Cell, size: f64) -> PicturePoint {
    let [a, b, c] = cell_corners(cell, size);
    ((a.0 + b.0 + c.0) / 3.0, (a.1 + b.1 + c.1) / 3.0)
}

/// Which of a tile's regions (0..3) each half-edge (edge, half) belongs to, by the
/// module's model.
fn regions(outlets: &Outlets) -> [[usize; 2]; 3] {
    // With two outlets on edges a < b, the corner between them is named by its first
    // edge clockwise: a when b = a + 1, else b (edges 0 and 2 meet at corner 2).
    let corner = match outlets.map(|outlet| outlet.is_some()) {
        // A fork: corner k holds (k, 1) and (k+1, 0), so half (e, 0) is in corner e-1.
        [true, true, true] => return [[2, 0], [0, 1], [1, 2]],
        [true, true, false] => 0,
        [false, true, true] => 1,
        [true, false, true] => 2,
        _ => return [[0; 2]; 3],
    };
    let mut map = [[0; 2]; 3];
    map[corner][1] = 1;
    map[(corner + 1) % 3][0] = 1;
    map
}

/// Union-find over region numbers, for [`enclosed_areas`].
struct Sets {
    parent: Vec<usize>,
}

impl Sets {
    fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    fn join(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        self.parent[ra] = rb;
    }
}

/// The number of areas completely enclosed by roads among the tiles `placed` (outlets
/// by cell edge, after rotation) in an area of this side. Cells outside the area are
/// left out.
pub fn enclosed_areas(side: u8, placed: &BTreeMap<Cell, Outlets>) -> usize {
    let tiles: Vec<(Cell, [[usize; 2]; 3])> = placed
        .iter()
        .filter(|(cell, _)| cell.within(side))
        .map(|(&cell, outlets)| (cell, regions(outlets)))
        .collect();
    // The tiles are in the map's order, by cell: the tile across an edge is found by
    // a binary search, without a map or a table of the whole area (an open area's side
    // is the largest there is), since scoring runs on every move.
    let slot = |cell: Cell| {
        tiles
            .binary_search_by_key(&cell, |(placed, _)| *placed)
            .ok()
    };
    // Tile j's region k is number 3j + k.
    let regions = 3 * tiles.len();
    let mut sets = Sets {
        parent: (0..regions).collect(),
    };
    let mut flags = vec![0u8; regions];
    for (j, (cell, map)) in tiles.iter().enumerate() {
        for (edge, halves) in (0..3u8).zip(map) {
            let across = cell
                .neighbour(edge, side)
                .and_then(|(n, f)| slot(n).map(|k| (k, f)));
            for (half, region) in halves.iter().enumerate() {
                let here = 3 * j + region;
                flags[here] |= USED;
                match across {
                    Some((k, f)) => {
                        // The neighbour runs the edge the other way: our half 0 is its half 1.
                        let there = 3 * k + tiles[k].1[usize::from(f)][1 - half];
                        sets.join(here, there);
                    }
                    None => flags[here] |= OPEN,
                }
            }
        }
    }
    // A set is open when any of its regions is: marked on its root, then each closed
    // set counted once, at its root.
    for region in 0..regions {
        if flags[region] & OPEN != 0 {
            let root = sets.find(region);
            flags[root] |= OPEN;
        }
    }
    let mut enclosed = 0;
    for region in 0..regions {
        if flags[region] & USED == 0 {
            continue;
        }
        let root = sets.find(region);
        if flags[root] & (OPEN | COUNTED) == 0 {
            flags[root] |= COUNTED;
            enclosed += 1;
        }
    }
    enclosed
}

/// What [`enclosed_areas`] knows of a region: some half of a tile lies in it, ...
const USED: u8 = 1;
/// ... it meets an empty cell or the border (on its set's root: the set does) ...
const OPEN: u8 = 2;
/// ... and, on a root, that its set has been counted.
const COUNTED: u8 = 4;

/// What [`draw`] shows in a placed cell: a label of up to 2 characters and, at each
/// edge with an outlet, that outlet's character.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellArt {
    pub label: String,
    pub outlets: [Option<char>; 3],
}

/// Columns left of the drawing, for the row's name and a space: two, or three once
/// some row's name has two letters.
fn left(side: u8) -> usize {
    if side > 26 {
        3
    } else {
        2
    }
}
/// Lines above the drawing.
const TOP: usize = 0;
/// Lines per row, and half the width of a cell's base: the edges are `/` and `\`,
/// one column per line.
const H: usize = 4;

/// The column of the `/` of up cell (row, 2k) on line `l` (0..H) of its row.
fn up_left(side: u8, row: u8, k: usize, l: usize) -> usize {
    left(side) + H * usize::from(side - 1 - row) + 2 * H * k + H - 1 - l
}

/// An ASCII drawing of an area, at most 78 columns wide for side <= 9 (74 at side 9),
/// 4 lines per row, trailing spaces trimmed; a side past [`MAX_SIDE`] is drawn as that, and 0 as 1.
///
/// Each up cell is 8 columns wide at its base and 4 lines high; down cells fill the
/// gaps. An up cell shows its label on its second line, its left and right outlets
/// just inside those edges on its third line and its bottom outlet on its base line;
/// a down cell shows its top outlet just under its top edge, its left and right
/// outlets on its second line and its label on its third. So the outlets of two
/// neighbours face each other across the edge between them. Empty cells show the grid
/// only; each row's letter stands at the left. Side 2, with A1 (label Q, outlets g b r
/// on left, right, bottom) and B2 (label XY, outlets r top and w left):
///
/// ```text
///          /\
///         /Q \
/// A      /g  b\
///       /__r___\
///      /\  r   /\
///     /  \w   /  \
/// B  /    \XY/    \
///   /______\/______\
/// ```
pub fn draw(side: u8, cells: &BTreeMap<Cell, CellArt>) -> String {
    draw_with(side, cells, false, 0..=u8::MAX)
}

/// [`draw`], with each empty cell's number (its index + 1) where a label would be, so
/// a player can read a cell's name ("C5") off the board.
pub fn draw_numbered(side: u8, cells: &BTreeMap<Cell, CellArt>) -> String {
    draw_with(side, cells, true, 0..=u8::MAX)
}

/// [`draw_numbered`], only the part in use: the rows from the one above the highest
/// placed cell to the one below the lowest, and the columns of the placed cells and
/// their neighbours, each line still led by its row's name; no placed cell draws
/// `start` and its neighbours when given (an area whose first tile has its space), the
/// whole area otherwise. A part wider than `width` columns is cut into bands of whole
/// cells, one under the other, so no line is wider than `width` (at least 12) whatever
/// the side.
pub fn draw_numbered_part(
    side: u8,
    cells: &BTreeMap<Cell, CellArt>,
    start: Option<Cell>,
    width: usize,
) -> String {
    let side = side.clamp(1, MAX_SIDE);
    let margin = left(side);
    let mut placed: Vec<Cell> = cells.keys().copied().filter(|c| c.within(side)).collect();
    if placed.is_empty() {
        placed.extend(start.filter(|c| c.within(side)));
    }
    let around: Vec<Cell> = placed
        .iter()
        .flat_map(|&cell| {
            std::iter::once(cell)
                .chain((0..3).filter_map(move |e| cell.neighbour(e, side).map(|n| n.0)))
        })
        .collect();
    // Only the rows shown are drawn: a large area's whole drawing is long to make.
    let shown = if around.is_empty() {
        0..=side - 1
    } else {
        let top = around.iter().map(|c| c.row).min().unwrap_or(0);
        let bottom = around.iter().map(|c| c.row).max().unwrap_or(0);
        top..=bottom
    };
    let full = draw_with(side, cells, true, shown);
    let lines: Vec<Vec<char>> = full.lines().map(|l| l.chars().collect()).collect();
    let (rows, columns) = if around.is_empty() {
        let widest = lines.iter().map(Vec::len).max().unwrap_or(0);
        ((0, side - 1), (margin, widest.max(margin + 1) - 1))
    } else {
        let top = around.iter().map(|c| c.row).min().unwrap_or(0);
        let bottom = around.iter().map(|c| c.row).max().unwrap_or(0);
        // A cell's columns on its row's base line: an up cell's from its `/` to its
        // `\`, a down cell's between the up cells either side of it.
        let span = |cell: &Cell| {
            let k = usize::from(cell.index / 2);
            let left = up_left(side, cell.row, k, H - 1);
            if cell.points_up() {
                (left, left + 2 * H - 1)
            } else {
                (left + H, left + 3 * H - 1)
            }
        };
        let left = around.iter().map(|c| span(c).0).min().unwrap_or(margin);
        let right = around.iter().map(|c| span(c).1).max().unwrap_or(margin);
        ((top, bottom), (left.max(margin), right))
    };
    let band = (width.max(12) - margin) / (2 * H) * (2 * H);
    let mut out = String::new();
    let mut from = columns.0;
    while from <= columns.1 {
        let to = (from + band - 1).min(columns.1);
        if from > columns.0 {
            out.push('\n');
        }
        for y in (TOP + H * usize::from(rows.0))..(TOP + H * (usize::from(rows.1) + 1)) {
            let Some(line) = lines.get(y) else { continue };
            let label: String = line.iter().take(margin).collect();
            let mut part: Vec<char> = line
                .iter()
                .skip(from)
                .take(to + 1 - from)
                .copied()
                .collect();
            // What lies outside the outermost edges drawn belongs to cells cut by the
            // part's sides: blanked, so no cut number reads as another.
            let edge = |c: &char| *c == '/' || *c == '\\';
            let first = part.iter().position(edge).unwrap_or(part.len());
            let last = part.iter().rposition(edge).map_or(0, |i| i + 1);
            for (i, c) in part.iter_mut().enumerate() {
                if i < first || i >= last {
                    *c = ' ';
                }
            }
            let part: String = part.into_iter().collect();
            out.push_str(format!("{label}{part}").trim_end());
            out.push('\n');
        }
        from = to + 1;
    }
    out
}

/// The drawing of the rows `rows` of an area (the lines of the others left empty, so
/// each line stays where the whole drawing has it).
fn draw_with(
    side: u8,
    cells: &BTreeMap<Cell, CellArt>,
    numbered: bool,
    rows: std::ops::RangeInclusive<u8>,
) -> String {
    let side = side.clamp(1, MAX_SIDE);
    let rows = *rows.start()..=(*rows.end()).min(side - 1);
    let mut cv = Canvas::new();
    let put = |cv: &mut Canvas, x: usize, y: usize, ch: char| cv.put(x, y, &ch.to_string());
    // The grid: every up cell's three edges draws every edge of the area once.
    for row in rows.clone() {
        let y0 = TOP + H * usize::from(row);
        cv.put(0, y0 + 2, &row_name(row));
        for k in 0..=usize::from(row) {
            for l in 0..H {
                let x = up_left(side, row, k, l);
                put(&mut cv, x, y0 + l, '/');
                put(&mut cv, x + 1 + 2 * l, y0 + l, '\\');
            }
            cv.put(up_left(side, row, k, H - 1) + 1, y0 + H - 1, "______");
        }
    }
    let cells_shown = rows
        .clone()
        .flat_map(|row| (0..=2 * row).map(move |index| Cell::new(row, index)));
    for cell in cells_shown {
        let art = cells.get(&cell);
        // A number that the cell's two columns cannot hold is left out, not cut.
        let number = (numbered && art.is_none() && cell.index < 99)
            .then(|| (u32::from(cell.index) + 1).to_string());
        let label: Option<&str> = art.map(|a| a.label.as_str()).or(number.as_deref());
        let outlets = art.map_or([None; 3], |a| a.outlets);
        let y0 = TOP + H * usize::from(cell.row);
        let k = usize::from(cell.index / 2);
        if cell.points_up() {
            let x = up_left(side, cell.row, k, 0);
            // Line 1 has two columns inside, x and x + 1; line 2 has four, x - 1 to x + 2.
            if let Some(text) = label {
                cv.put(x, y0 + 1, &clip(text));
            }
            let spots = [(x - 1, y0 + 2), (x + 2, y0 + 2), (x, y0 + 3)];
            for (outlet, (ox, oy)) in outlets.iter().zip(spots) {
                if let Some(ch) = outlet {
                    put(&mut cv, ox, oy, *ch);
                }
            }
        } else {
            // The down cell between up cells k and k + 1: its `\` is up cell k's.
            let x = up_left(side, cell.row, k, 0) + 2;
            // Line 0 has six columns inside, x to x + 5; line 1 four; line 2 two.
            if let Some(text) = label {
                cv.put(x + 2, y0 + 2, &clip(text));
            }
            let spots = [(x + 2, y0), (x + 4, y0 + 1), (x + 1, y0 + 1)];
            for (outlet, (ox, oy)) in outlets.iter().zip(spots) {
                if let Some(ch) = outlet {
                    put(&mut cv, ox, oy, *ch);
                }
            }
        }
    }
    cv.render()
}

/// A label cut to the two columns a cell has for it.
fn clip(text: &str) -> String {
    text.chars().take(2).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_counts_cells() {
        for side in 1..=MAX_SIDE {
            let n = usize::from(side);
            assert_eq!(Cell::all(side).count(), n * n);
            assert!(Cell::all(side).all(|c| c.within(side)));
        }
        assert_eq!(Cell::all(0).count(), 0);
        assert!(!Cell::new(2, 5).within(3));
        assert!(!Cell::new(3, 0).within(3));
    }

    #[test]
    fn neighbours_are_symmetric() {
        for side in 1..=9 {
            let mut border = 0;
            for cell in Cell::all(side) {
                for edge in 0..3 {
                    match cell.neighbour(edge, side) {
                        Some((n, f)) => {
                            assert!(n.within(side), "{cell:?} {edge}");
                            assert_ne!(n.points_up(), cell.points_up());
                            assert_eq!(n.neighbour(f, side), Some((cell, edge)));
                        }
                        None => border += 1,
                    }
                }
                assert_eq!(cell.neighbour(3, side), None);
            }
            // Each of the area's three sides is `side` cell edges long.
            assert_eq!(border, 3 * usize::from(side), "side {side}");
        }
    }

    #[test]
    fn neighbours_meet_at_the_documented_edges() {
        let up = Cell::new(2, 2);
        assert_eq!(up.neighbour(0, 3), Some((Cell::new(2, 1), 1)));
        assert_eq!(up.neighbour(1, 3), Some((Cell::new(2, 3), 2)));
        assert_eq!(up.neighbour(2, 4), Some((Cell::new(3, 3), 0)));
        let down = Cell::new(2, 3);
        assert_eq!(down.neighbour(0, 3), Some((Cell::new(1, 2), 2)));
        assert_eq!(down.neighbour(1, 3), Some((Cell::new(2, 4), 0)));
        assert_eq!(down.neighbour(2, 3), Some((Cell::new(2, 2), 1)));
    }

    #[test]
    fn border_edges_have_no_neighbour() {
        let side = 4;
        let apex = Cell::new(0, 0);
        assert_eq!(apex.neighbour(0, side), None);
        assert_eq!(apex.neighbour(1, side), None);
        assert!(apex.neighbour(2, side).is_some());
        for row in 0..side {
            assert_eq!(Cell::new(row, 0).neighbour(0, side), None);
            assert_eq!(Cell::new(row, 2 * row).neighbour(1, side), None);
        }
        for cell in Cell::all(side).filter(|c| c.row == side - 1 && c.points_up()) {
            assert_eq!(cell.neighbour(2, side), None);
        }
        // A cell outside the area has no neighbours in it.
        assert_eq!(Cell::new(4, 1).neighbour(0, side), None);
    }

    #[test]
    fn shared_edges_share_their_corners() {
        // Edge e runs from corner e-1 to corner e; the neighbour runs it the other way.
        for side in 1..=9 {
            for cell in Cell::all(side) {
                for e in 0..3 {
                    if let Some((n, f)) = cell.neighbour(e, side) {
                        assert_eq!(cell.corner((e + 2) % 3), n.corner(f));
                        assert_eq!(cell.corner(e), n.corner((f + 2) % 3));
                    }
                }
            }
        }
    }

    #[test]
    fn pictured_neighbours_meet_edge_to_edge() {
        let size = 10.0;
        let close =
            |a: PicturePoint, b: PicturePoint| (a.0 - b.0).abs() < 1e-9 && (a.1 - b.1).abs() < 1e-9;
        // The apex cell points up: its corner 0 on top, 1 bottom right, 2 bottom left.
        let [apex, right, left] = cell_corners(Cell::new(0, 0), size);
        assert!(close(apex, (0.0, 0.0)));
        assert!(right.1 > 0.0 && right.0 > 0.0 && close((-left.0, left.1), right));
        assert!((right.0 - left.0 - size).abs() < 1e-9, "equilateral");
        // A down cell's corner 1 is its bottom, below its centre.
        let down = Cell::new(2, 3);
        assert!(cell_corners(down, size)[1].1 > cell_centre(down, size).1);
        // Its left edge (2) faces left of its centre; an up cell's bottom (2) below.
        assert!(edge_midpoint(down, 2, size).0 < cell_centre(down, size).0);
        let up = Cell::new(2, 2);
        assert!(edge_midpoint(up, 2, size).1 > cell_centre(up, size).1);
        for side in 1..=6 {
            for cell in Cell::all(side) {
                for e in 0..3 {
                    if let Some((n, f)) = cell.neighbour(e, side) {
                        assert!(close(
                            edge_midpoint(cell, e, size),
                            edge_midpoint(n, f, size)
                        ));
                    }
                }
            }
        }
    }

    #[test]
    fn names_round_trip() {
        for side in 1..=MAX_SIDE {
            for cell in Cell::all(side) {
                assert_eq!(Cell::parse(&cell.name(), side), Some(cell));
                let lower = cell.name().to_ascii_lowercase();
                assert_eq!(Cell::parse(&lower, side), Some(cell));
            }
        }
        assert_eq!(Cell::new(0, 0).name(), "A1");
        assert_eq!(Cell::new(2, 4).name(), "C5");
        assert_eq!(Cell::new(11, 22).name(), "L23");
    }

    #[test]
    fn parse_forgives_case_and_spaces_only() {
        assert_eq!(Cell::parse(" c 5 ", 3), Some(Cell::new(2, 4)));
        assert_eq!(Cell::parse("C5", 3), Some(Cell::new(2, 4)));
        assert_eq!(Cell::parse("C6", 3), None);
        assert_eq!(Cell::parse("D1", 3), None);
        assert_eq!(Cell::parse("C0", 3), None);
        assert_eq!(Cell::parse("C+5", 3), None);
        assert_eq!(Cell::parse("C", 3), None);
        assert_eq!(Cell::parse("5", 3), None);
        assert_eq!(Cell::parse("", 3), None);
        assert_eq!(Cell::parse("C005", 3), None);
        assert_eq!(Cell::parse("É5", 3), None);
        assert_eq!(Cell::parse("C5x", 3), None);
    }

    #[test]
    fn rotation_turns_clockwise() {
        let tile = [Some(1), Some(2), None];
        assert_eq!(rotated(tile, 0), tile);
        assert_eq!(rotated(tile, 1), [None, Some(1), Some(2)]);
        assert_eq!(rotated(tile, 2), [Some(2), None, Some(1)]);
        assert_eq!(rotated(tile, 3), tile);
        assert_eq!(rotated(rotated(tile, 1), 2), tile);
        // Turning never mirrors: the colours keep their clockwise order.
        let fork = [Some(0), Some(1), Some(2)];
        for k in 0..3 {
            let r = rotated(fork, k);
            let start = r.iter().position(|&c| c == Some(0)).unwrap();
            assert_eq!(r[(start + 1) % 3], Some(1));
        }
    }

    const FORK: Outlets = [Some(0), Some(1), Some(2)];

    /// Tiles whose roads cut off, in every cell around vertex `at`, the corner there.
    fn ring(side: u8, at: (u8, u8)) -> BTreeMap<Cell, Outlets> {
        let mut placed = BTreeMap::new();
        for cell in Cell::all(side) {
            for k in 0..3u8 {
                if cell.corner(k) == at {
                    let mut outlets = [None; 3];
                    outlets[usize::from(k)] = Some(0);
                    outlets[usize::from((k + 1) % 3)] = Some(0);
                    placed.insert(cell, outlets);
                }
            }
        }
        placed
    }

    #[test]
    fn a_single_fork_encloses_nothing() {
        let placed = BTreeMap::from([(Cell::new(1, 1), FORK)]);
        assert_eq!(enclosed_areas(3, &placed), 0);
        let placed = BTreeMap::from([(Cell::new(0, 0), FORK)]);
        assert_eq!(enclosed_areas(1, &placed), 0);
    }

    #[test]
    fn a_ring_around_a_vertex_encloses_it() {
        let placed = ring(3, (2, 1));
        assert_eq!(placed.len(), 6);
        let cells: Vec<String> = placed.keys().map(|c| c.name()).collect();
        assert_eq!(cells, ["B1", "B2", "B3", "C2", "C3", "C4"]);
        assert_eq!(enclosed_areas(3, &placed), 1);
        for gone in placed.keys() {
            let mut fewer = placed.clone();
            fewer.remove(gone);
            assert_eq!(enclosed_areas(3, &fewer), 0, "without {}", gone.name());
        }
        // Forks in the ring close the same centre.
        let mut forked = placed.clone();
        forked.insert(Cell::new(1, 1), FORK);
        forked.insert(Cell::new(2, 2), FORK);
        assert_eq!(enclosed_areas(3, &forked), 1);
        // A ring whose roads go the other way round each tile closes nothing.
        let wrong: BTreeMap<Cell, Outlets> = placed
            .keys()
            .map(|&c| {
                let k = (0..3).find(|&k| c.corner(k) == (2, 1)).unwrap_or(0);
                let mut o = [Some(0); 3];
                o[usize::from((k + 1) % 3)] = None;
                (c, o)
            })
            .collect();
        assert_eq!(enclosed_areas(3, &wrong), 0);
    }

    #[test]
    fn the_border_does_not_close_an_area() {
        // Rings around vertices on the area's left side, right side, bottom and apex.
        for at in [(2, 0), (2, 2), (3, 1), (3, 2), (0, 0), (3, 0)] {
            let placed = ring(3, at);
            assert!(!placed.is_empty());
            assert_eq!(enclosed_areas(3, &placed), 0, "around {at:?}");
        }
        // The apex tile's road cuts off the apex corner, between two border edges.
        let placed = BTreeMap::from([(Cell::new(0, 0), [Some(0), Some(0), None])]);
        assert_eq!(enclosed_areas(2, &placed), 0);
        // A ring that would close at the area's edge is open once the area is bigger
        // too: the same tiles in a side-3 area as in a side-2 one.
        let placed = ring(2, (1, 0));
        assert_eq!(enclosed_areas(2, &placed), 0);
        assert_eq!(enclosed_areas(3, &placed), 0);
    }

    #[test]
    fn two_rings_enclose_two_areas() {
        let mut placed = ring(5, (4, 1));
        let other = ring(5, (4, 3));
        assert_eq!(placed.len() + other.len(), 12);
        placed.extend(other);
        assert_eq!(placed.len(), 12);
        assert_eq!(enclosed_areas(5, &placed), 2);
        placed.remove(&Cell::new(3, 1));
        assert_eq!(enclosed_areas(5, &placed), 1);
    }

    #[test]
    fn a_full_area_of_forks_encloses_each_inner_vertex() {
        // Side 2: A1, B1, B2, B3. Every vertex lies on the border, and every corner
        // region reaches a border half around its vertex: nothing is enclosed.
        let full =
            |side: u8| -> BTreeMap<Cell, Outlets> { Cell::all(side).map(|c| (c, FORK)).collect() };
        assert_eq!(full(2).len(), 4);
        assert_eq!(enclosed_areas(2, &full(2)), 0);
        // Side 3 has one vertex inside, and so one enclosed area.
        assert_eq!(enclosed_areas(3, &full(3)), 1);
        for side in 1..=9u8 {
            let n = usize::from(side);
            let inner = if n >= 3 { (n - 1) * (n - 2) / 2 } else { 0 };
            assert_eq!(enclosed_areas(side, &full(side)), inner, "side {side}");
        }
    }

    #[test]
    fn tiles_with_fewer_than_two_roads_are_one_region() {
        let placed = BTreeMap::from([(Cell::new(1, 1), [Some(0), None, None])]);
        assert_eq!(enclosed_areas(3, &placed), 0);
        let plain: BTreeMap<Cell, Outlets> = Cell::all(3).map(|c| (c, [None; 3])).collect();
        assert_eq!(enclosed_areas(3, &plain), 0);
        // A road-less tile in the middle of a ring joins the centre's regions and stays
        // closed in: B2's corner at the centre is all of B2.
        let mut placed = ring(3, (2, 1));
        placed.insert(Cell::new(1, 1), [None; 3]);
        assert_eq!(enclosed_areas(3, &placed), 0);
    }

    /// The cell and the turn that a third of a full turn of the whole area clockwise
    /// takes `cell` to, found from the cells' corners alone.
    fn turned_area(side: u8, cell: Cell) -> (Cell, u8) {
        // A vertex (line v, position p) as its distances from the bottom, the left and
        // the right side; turning the area cycles them.
        let turn = |(v, p): (u8, u8)| (side - v + p, side - v);
        let corners = |c: Cell| [c.corner(0), c.corner(1), c.corner(2)].map(turn);
        for other in Cell::all(side) {
            for shift in 0..3u8 {
                let theirs = [0u8, 1, 2].map(|k| other.corner((k + shift) % 3));
                if theirs == corners(cell) {
                    return (other, shift);
                }
            }
        }
        panic!("no image for {cell:?}");
    }

    #[test]
    fn turning_the_whole_area_keeps_the_count() {
        // A small xorshift: the same cases every run, without a dependency.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let side = 5;
        let mut seen = [0usize; 4];
        for _ in 0..400 {
            let mut placed = BTreeMap::new();
            for cell in Cell::all(side) {
                if next(12) == 0 {
                    continue;
                }
                let tile = match next(6) {
                    0..=2 => FORK,
                    3 => [Some(0), Some(1), None],
                    4 => [None, Some(0), Some(1)],
                    _ => [Some(2), None, Some(3)],
                };
                placed.insert(cell, tile);
            }
            let count = enclosed_areas(side, &placed);
            seen[count.min(3)] += 1;
            let mut turned = BTreeMap::new();
            for (cell, outlets) in &placed {
                let (image, shift) = turned_area(side, *cell);
                turned.insert(image, rotated(*outlets, shift));
            }
            assert_eq!(turned.len(), placed.len());
            assert_eq!(enclosed_areas(side, &turned), count);
        }
        // The cases are not all trivial.
        assert!(
            seen[0] > 0 && seen[1] > 0 && seen[2] + seen[3] > 0,
            "{seen:?}"
        );
    }

    fn art(label: &str, outlets: [Option<char>; 3]) -> CellArt {
        CellArt {
            label: label.to_string(),
            outlets,
        }
    }

    #[test]
    fn the_drawing_fits_and_shows_every_label() {
        let side = 9;
        let digits = b"0123456789abcdefghijklmnopqrstuvwxyz";
        let cells: BTreeMap<Cell, CellArt> = Cell::all(side)
            .map(|c| {
                let label = format!(
                    "{}{}",
                    char::from(b'A' + c.row),
                    char::from(digits[usize::from(c.index)])
                );
                (c, art(&label, [Some('*'); 3]))
            })
            .collect();
        let text = draw(side, &cells);
        for line in text.lines() {
            assert!(line.chars().count() <= 78, "too wide: {line:?}");
            assert_eq!(line, line.trim_end(), "trailing space: {line:?}");
        }
        assert_eq!(text.lines().count(), 4 * usize::from(side));
        for art in cells.values() {
            assert!(text.contains(&art.label), "no {}", art.label);
        }
        let empty = draw(side, &BTreeMap::new());
        assert!(empty.lines().all(|l| l.len() <= 78 && l == l.trim_end()));
        // Up to side 50 every number fits its cell's two columns.
        for side in 1..=50 {
            let full = draw_numbered(side, &BTreeMap::new());
            assert!(full.lines().all(|l| l == l.trim_end()));
            let last = usize::from(2 * side - 1).to_string();
            assert!(full.contains(&last));
        }
    }

    #[test]
    fn the_drawing_of_a_small_area() {
        let cells = BTreeMap::from([
            (Cell::new(0, 0), art("Q", [Some('g'), Some('b'), Some('r')])),
            (Cell::new(1, 1), art("XY", [Some('r'), None, Some('w')])),
            (Cell::new(1, 2), art("P", [Some('w'), None, Some('y')])),
        ]);
        let expected = [
            "         /\\",
            "        /Q \\",
            "A      /g  b\\",
            "      /__r___\\",
            "     /\\  r   /\\",
            "    /  \\w   /P \\",
            "B  /    \\XY/w   \\",
            "  /______\\/__y___\\",
        ];
        let got = draw(2, &cells);
        assert_eq!(got, expected.join("\n") + "\n", "\n{got}");
    }

    #[test]
    fn rows_past_z_have_two_letter_names() {
        assert_eq!(row_name(0), "A");
        assert_eq!(row_name(25), "Z");
        assert_eq!(row_name(26), "AA");
        assert_eq!(row_name(40), "AO");
        assert_eq!(row_name(52), "BA");
        for row in 0..MAX_SIDE {
            assert_eq!(parse_row_name(&row_name(row)), Some(row));
        }
        assert_eq!(Cell::new(40, 40).name(), "AO41");
        assert_eq!(Cell::parse("ao41", 61), Some(Cell::new(40, 40)));
        assert_eq!(Cell::parse("AO 41", 61), Some(Cell::new(40, 40)));
        assert_eq!(Cell::parse("AO41", 40), None);
        assert_eq!(Cell::parse("AO041", 61), None);
        assert_eq!(Cell::parse("AAA1", 120), None);
        assert_eq!(parse_row_name(""), None);
        assert_eq!(parse_row_name("A1"), None);
    }

    #[test]
    fn a_part_of_a_large_area_is_drawn_around_its_start() {
        let side = 61;
        let start = Cell::new(40, 40);
        let empty = draw_numbered_part(side, &BTreeMap::new(), Some(start), 78);
        let lines: Vec<&str> = empty.lines().collect();
        // The start (an up space) and its neighbours: its row and the one below, led
        // by their two-letter names.
        assert_eq!(lines.len(), 8, "{empty}");
        assert!(lines[2].starts_with("AO "), "{empty}");
        assert!(lines[6].starts_with("AP "), "{empty}");
        assert!(lines[1].contains("/41\\"), "{empty}");
        assert!(lines.iter().all(|l| l.chars().count() <= 78));
        // Tiles far apart are drawn in bands within the width.
        let cells = BTreeMap::from([
            (Cell::new(20, 40), art("XY", [Some('r'); 3])),
            (start, art("41", [Some('g'); 3])),
            (Cell::new(60, 80), art("81", [Some('b'); 3])),
        ]);
        let part = draw_numbered_part(side, &cells, Some(start), 78);
        assert!(part.lines().all(|l| l.chars().count() <= 78), "{part}");
        for name in ["U ", "AO ", "BI "] {
            assert!(part.lines().any(|l| l.starts_with(name)), "{name}\n{part}");
        }
        assert!(part.contains("XY"));
    }
}
