//! Axial hex coordinates (q, r), shared by every hex game.
//!
//! Edge `i` of a cell faces the neighbour at `DIRS[i]`. Drawn pointy-top, the six edges
//! are E, NE, NW, W, SW, SE, counter-clockwise from east. Rotating a tile by `k` steps
//! maps edge `i` to `(i + k) mod 6`. This numbering is part of a public contract
//! (players type the digits), so it must not change.

use serde::{Deserialize, Serialize};

/// Axial offsets of the six neighbours, indexed by edge number.
pub const DIRS: [(i32, i32); 6] = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)];

/// Edge names for a pointy-top drawing, indexed by edge number.
pub const EDGE_NAMES: [&str; 6] = ["E", "NE", "NW", "W", "SW", "SE"];

/// A cell in axial coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Hex {
    pub q: i32,
    pub r: i32,
}

impl Hex {
    pub const fn new(q: i32, r: i32) -> Self {
        Hex { q, r }
    }

    /// The cell across edge `edge` (taken mod 6).
    pub fn neighbour(self, edge: usize) -> Hex {
        let (dq, dr) = DIRS[edge % 6];
        Hex::new(self.q + dq, self.r + dr)
    }

    /// The third cube coordinate, `-q - r`.
    pub fn s(self) -> i32 {
        -self.q - self.r
    }

    /// Steps between two cells.
    pub fn distance(self, other: Hex) -> i32 {
        let dq = (self.q - other.q).abs();
        let dr = (self.r - other.r).abs();
        let ds = (self.s() - other.s()).abs();
        dq.max(dr).max(ds)
    }

    /// Doubled-width column: cells of one visual column in a pointy-top drawing share it.
    pub fn doubled_col(self) -> i32 {
        2 * self.q + self.r
    }
}

/// The edge facing back from the neighbour across `edge`.
pub const fn opposite(edge: usize) -> usize {
    (edge + 3) % 6
}

/// Rotates a 6-bit edge mask by `k` steps counter-clockwise (edge i becomes i + k).
pub const fn rotate_mask(mask: u8, k: usize) -> u8 {
    let k = k % 6;
    let m = mask & 0x3f;
    ((m << k) | (m >> ((6 - k) % 6))) & 0x3f
}

/// The smallest mask among the six rotations: one representative per rotation class.
pub fn canonical_mask(mask: u8) -> u8 {
    (0..6).map(|k| rotate_mask(mask, k)).min().unwrap_or(mask)
}

/// The edges of a mask, ascending.
pub fn mask_edges(mask: u8) -> Vec<usize> {
    (0..6).filter(|&i| mask & (1 << i) != 0).collect()
}

/// A mask from edge numbers (each taken mod 6).
pub fn edges_mask(edges: &[usize]) -> u8 {
    edges.iter().fold(0u8, |m, &e| m | (1 << (e % 6)))
}

/// The hexagon of cells within `radius` of the origin, row by row (r ascending, then q).
pub fn hexagon(radius: i32) -> Vec<Hex> {
    let mut cells = Vec::new();
    for r in -radius..=radius {
        let q_min = (-radius).max(-radius - r);
        let q_max = radius.min(radius - r);
        for q in q_min..=q_max {
            cells.push(Hex::new(q, r));
        }
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hexagon_sizes() {
        assert_eq!(hexagon(0).len(), 1);
        assert_eq!(hexagon(4).len(), 61);
        assert_eq!(hexagon(5).len(), 91);
    }

    #[test]
    fn rotation_wraps() {
        assert_eq!(rotate_mask(0b100001, 1), 0b000011);
        assert_eq!(rotate_mask(0b000011, 5), 0b100001);
        assert_eq!(rotate_mask(0b001001, 3), 0b001001);
        assert_eq!(canonical_mask(0b110000), 0b000011);
    }

    #[test]
    fn neighbours_are_adjacent() {
        let h = Hex::new(1, -2);
        for i in 0..6 {
            let n = h.neighbour(i);
            assert_eq!(h.distance(n), 1);
            assert_eq!(n.neighbour(opposite(i)), h);
        }
    }
}
