//! The 90 triangular tiles (seed 003): their outlets, in a fixed order.
//!
//! The order is part of every game's record (a draw picks an index into what remains
//! of the pile), so it must never change for a given rules data.

use crate::grid::triangle::Outlets;

/// One tile: the colour at each of its edges, clockwise from edge 0 (None where no road
/// leaves).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tile {
    pub outlets: Outlets,
}

impl Tile {
    /// How many roads leave the tile: 2 or 3.
    pub fn outlet_count(&self) -> usize {
        self.outlets.iter().flatten().count()
    }

    /// The tile's outlets by colour letter, clockwise from edge 0, `-` for none:
    /// "RG-", "RYG".
    pub fn code(&self, letters: &[char]) -> String {
        self.outlets
            .iter()
            .map(|outlet| {
                outlet.map_or('-', |c| letters.get(usize::from(c)).copied().unwrap_or('?'))
            })
            .collect()
    }
}

/// Every tile of the game for `colours` colours, each design `copies` times, in the
/// canonical order: two outlets of one colour, then two of different colours (ordered:
/// the second clockwise after the first), then three of different colours (each
/// cyclic order once: a tile turned is the same tile, one turned over is not).
pub fn tile_set(colours: u8, copies: u8) -> Vec<Tile> {
    let mut designs = Vec::new();
    for c in 0..colours {
        designs.push([Some(c), Some(c), None]);
    }
    for a in 0..colours {
        for b in 0..colours {
            if a != b {
                designs.push([Some(a), Some(b), None]);
            }
        }
    }
    // Three different colours, written from the smallest: (a, b, c) and (a, c, b) are
    // the two cyclic orders of one set.
    for a in 0..colours {
        for b in a + 1..colours {
            for c in b + 1..colours {
                designs.push([Some(a), Some(b), Some(c)]);
                designs.push([Some(a), Some(c), Some(b)]);
            }
        }
    }
    designs
        .into_iter()
        .flat_map(|outlets| std::iter::repeat_n(Tile { outlets }, usize::from(copies)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed's list: "There are 50 tiles with 2 outlets. - tiles with symbols of the
    /// same color, in each color, x2 (10) - all possible combinations of two different
    /// colors, taking into consideration the orientation of the tile ..., x2 (40)
    /// There are 40 tiles with 3 outlets. - all possible combinations of three
    /// different colors, taking into consideration orientation as above, x2 (40)"
    #[test]
    fn the_tile_set_is_the_seeds() {
        let tiles = tile_set(5, 2);
        assert_eq!(tiles.len(), 90);
        let two: Vec<&Tile> = tiles.iter().filter(|t| t.outlet_count() == 2).collect();
        let three: Vec<&Tile> = tiles.iter().filter(|t| t.outlet_count() == 3).collect();
        assert_eq!((two.len(), three.len()), (50, 40));
        let same = two.iter().filter(|t| t.outlets[0] == t.outlets[1]).count();
        assert_eq!(same, 10);
        // Every design exactly twice, and no two designs the same tile turned.
        let turned = |o: Outlets, k: usize| [o[k % 3], o[(k + 1) % 3], o[(k + 2) % 3]];
        for tile in &tiles {
            let copies = tiles
                .iter()
                .filter(|other| (0..3).any(|k| turned(other.outlets, k) == tile.outlets))
                .count();
            assert_eq!(copies, 2, "{:?}", tile.outlets);
        }
        // Each colour appears on as many outlets as any other.
        for colour in 0..5u8 {
            let count: usize = tiles
                .iter()
                .map(|t| t.outlets.iter().filter(|o| **o == Some(colour)).count())
                .sum();
            assert_eq!(count, (10 * 2 + 40 * 2 + 40 * 3) / 5);
        }
    }
}
