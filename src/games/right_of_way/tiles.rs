//! Highway tile kinds: the connection patterns of games/right-of-way.toml.

use crate::grid::hex::{canonical_mask, edges_mask, rotate_mask};

/// Marks a mask that no tile kind can take.
pub const NO_KIND: u8 = u8::MAX;

/// One kind of highway tile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TileKind {
    /// What players type and what the board panel shows ("I", "FL", ...).
    pub name: String,
    /// A longer description for the rules doc and the legend.
    pub label: String,
    /// The edges at rotation 0.
    pub mask: u8,
    /// How many of this kind each player owns.
    pub count: u8,
}

impl TileKind {
    /// The number of connections, which is also the tile's "value" in the first-player
    /// rule and its victory points when fully connected.
    pub fn connections(&self) -> u32 {
        self.mask.count_ones()
    }
}

/// The kind whose rotations include each of the 64 masks, or [`NO_KIND`].
///
/// Every mask belongs to at most one kind because each kind is a distinct rotation
/// class (the fork and its mirror are different classes: tiles are never flipped).
pub fn kind_table(kinds: &[TileKind]) -> Result<[u8; 64], String> {
    let mut table = [NO_KIND; 64];
    for (index, kind) in kinds.iter().enumerate() {
        let index = u8::try_from(index).map_err(|_| "too many tile kinds".to_string())?;
        for k in 0..6 {
            let m = rotate_mask(kind.mask, k) as usize;
            if table[m] != NO_KIND && table[m] != index {
                return Err(format!(
                    "tile kinds {} and {} are rotations of each other",
                    kinds[table[m] as usize].name, kind.name
                ));
            }
            table[m] = index;
        }
    }
    Ok(table)
}

/// Checks one tile kind from the data file.
pub fn make_kind(name: &str, label: &str, edges: &[usize], count: u8) -> Result<TileKind, String> {
    if edges.iter().any(|&e| e > 5) {
        return Err(format!("tile {name}: edges are numbered 0 to 5"));
    }
    let mask = edges_mask(edges);
    if mask.count_ones() < 2 {
        return Err(format!(
            "tile {name}: a highway tile has at least two connections"
        ));
    }
    let _ = canonical_mask(mask);
    Ok(TileKind {
        name: name.to_string(),
        label: label.to_string(),
        mask,
        count,
    })
}
