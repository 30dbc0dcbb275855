//! The 8 x 8 board: squares A1..H8 (column letter, row number; row 1 at the top),
//! orthogonal adjacency, the barbarians' spiral and road networks.

use serde::{Deserialize, Serialize};

/// The board's side.
pub const SIDE: u8 = 8;

/// A square: `col` 0..8 (A..H, left to right), `row` 0..8 (1..8, top to bottom).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Square {
    pub col: u8,
    pub row: u8,
}

impl Square {
    pub const fn new(col: u8, row: u8) -> Square {
        Square { col, row }
    }

    /// The index of the square in reading order (A1 = 0, B1 = 1, ... H8 = 63).
    pub fn index(self) -> usize {
        usize::from(self.row) * usize::from(SIDE) + usize::from(self.col)
    }

    pub fn from_index(index: usize) -> Square {
        let side = usize::from(SIDE);
        Square::new(
            u8::try_from(index % side).unwrap_or(0),
            u8::try_from(index / side).unwrap_or(0),
        )
    }

    /// "C5".
    pub fn name(self) -> String {
        format!("{}{}", char::from(b'A' + self.col), self.row + 1)
    }

    /// Reads "c5", "C5", " C 5 ".
    pub fn parse(text: &str) -> Option<Square> {
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let mut chars = compact.chars();
        let letter = chars.next()?.to_ascii_uppercase();
        let rest: String = chars.collect();
        if !('A'..='H').contains(&letter) || rest.len() != 1 {
            return None;
        }
        let row = rest.parse::<u8>().ok()?.checked_sub(1)?;
        (row < SIDE).then(|| {
            Square::new(
                u8::try_from(u32::from(letter) - u32::from('A')).unwrap_or(0),
                row,
            )
        })
    }

    /// The orthogonal neighbours ("adjacent does not include diagonals").
    pub fn neighbours(self) -> impl Iterator<Item = Square> {
        let (col, row) = (i16::from(self.col), i16::from(self.row));
        [(0, -1), (1, 0), (0, 1), (-1, 0)]
            .into_iter()
            .filter_map(move |(dc, dr)| {
                let (c, r) = (col + dc, row + dr);
                let side = i16::from(SIDE);
                ((0..side).contains(&c) && (0..side).contains(&r)).then(|| {
                    Square::new(u8::try_from(c).unwrap_or(0), u8::try_from(r).unwrap_or(0))
                })
            })
    }

    /// Steps between squares, orthogonally ("the distance from A1 to B2 is 2").
    pub fn distance(self, other: Square) -> u8 {
        self.col.abs_diff(other.col) + self.row.abs_diff(other.row)
    }

    /// Every square in reading order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..usize::from(SIDE) * usize::from(SIDE)).map(Square::from_index)
    }
}

/// The spiral from `entry` (a corner) along the edge inwards, clockwise or not: every
/// square once, the entry first.
pub fn spiral(entry: Square, clockwise: bool) -> Vec<Square> {
    // Walk the rings of the board from the outside in, in screen directions; start at
    // the top-left corner going right (clockwise) or down (anticlockwise), then turn
    // the whole path so it starts at the entry corner.
    let side = usize::from(SIDE);
    let mut top_left = Vec::with_capacity(side * side);
    let (mut lo, mut hi) = (0usize, side - 1);
    while lo <= hi {
        let mut ring = Vec::new();
        for c in lo..=hi {
            ring.push((c, lo));
        }
        for r in lo + 1..=hi {
            ring.push((hi, r));
        }
        if hi > lo {
            for c in (lo..hi).rev() {
                ring.push((c, hi));
            }
            for r in (lo + 1..hi).rev() {
                ring.push((lo, r));
            }
        }
        top_left.extend(ring);
        if hi == 0 {
            break;
        }
        lo += 1;
        hi -= 1;
    }
    // Anticlockwise from the top-left corner is the mirror image across the diagonal.
    let oriented: Vec<(usize, usize)> = if clockwise {
        top_left
    } else {
        top_left.into_iter().map(|(c, r)| (r, c)).collect()
    };
    // Turn the board a quarter at a time until the path starts at the entry corner;
    // a quarter turn clockwise keeps a clockwise path clockwise.
    let turn = |(c, r): (usize, usize)| (side - 1 - r, c);
    let mut path = oriented;
    for _ in 0..4 {
        if let Some(&(c, r)) = path.first() {
            if usize::from(entry.col) == c && usize::from(entry.row) == r {
                break;
            }
        }
        path = path.into_iter().map(turn).collect();
    }
    path.into_iter()
        .map(|(c, r)| Square::new(u8::try_from(c).unwrap_or(0), u8::try_from(r).unwrap_or(0)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_are_named_read_and_measured() {
        let c5 = Square::parse(" c 5").expect("C5");
        assert_eq!(c5.name(), "C5");
        assert_eq!(Square::parse("I1"), None);
        assert_eq!(Square::parse("A9"), None);
        assert_eq!(Square::parse("A0"), None);
        let a1 = Square::new(0, 0);
        assert_eq!(a1.distance(Square::new(1, 1)), 2);
        assert_eq!(a1.neighbours().count(), 2);
        assert_eq!(c5.neighbours().count(), 4);
        for square in Square::all() {
            assert_eq!(Square::from_index(square.index()), square);
        }
    }

    #[test]
    fn the_spiral_runs_along_the_edge_inwards_from_the_entry() {
        let names = |path: &[Square]| path.iter().map(|s| s.name()).collect::<Vec<_>>();
        let clockwise = spiral(Square::new(0, 0), true);
        assert_eq!(clockwise.len(), 64);
        let mut sorted = clockwise.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 64, "every square once");
        assert_eq!(
            names(&clockwise[..10]),
            ["A1", "B1", "C1", "D1", "E1", "F1", "G1", "H1", "H2", "H3"]
        );
        // After the outer ring (28 squares), the next ring begins at B2.
        assert_eq!(clockwise[27].name(), "A2");
        assert_eq!(clockwise[28].name(), "B2");
        let anticlockwise = spiral(Square::new(0, 0), false);
        assert_eq!(names(&anticlockwise[..3]), ["A1", "A2", "A3"]);
        let from_h8 = spiral(Square::new(7, 7), true);
        assert_eq!(names(&from_h8[..3]), ["H8", "G8", "F8"]);
        // Each step is to a neighbour.
        for path in [&clockwise, &anticlockwise, &from_h8] {
            for pair in path.windows(2) {
                assert_eq!(pair[0].distance(pair[1]), 1, "{:?}", names(pair));
            }
        }
    }
}
