//! The state of a triangle auction: what the file stores (the public part) and what
//! the referee rebuilds (each player's face-down card).

use serde::{Deserialize, Serialize};

use crate::grid::triangle::Cell;

/// Where a round stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Phase {
    /// Every player chooses a card face down, all at once.
    Cards,
    /// The auction, in turn order: `seat` is to bid.
    Bidding { seat: u8 },
    /// Every player who won tiles places them in their area.
    Placing,
    /// After the last round.
    Over,
}

/// Chits on a tile of the offer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bid {
    pub seat: u8,
    pub chits: u8,
}

/// A tile on offer this round (labelled A, B, ... in offer order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Offer {
    /// The tile's index in the tile set.
    pub tile: u8,
    pub bid: Option<Bid>,
}

/// A tile in a player's area.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Placed {
    pub cell: Cell,
    pub tile: u8,
    /// Steps turned clockwise (0 to 2): tile edge i lies on cell edge (i + rotation) % 3.
    pub rotation: u8,
}

/// One player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Player {
    /// Chits in hand. Until the card is revealed, all of them (the card's chits are
    /// taken when it is).
    pub hand: u8,
    /// The card chosen face down this round: hidden (None in the public state) until
    /// revealed.
    pub card: Option<u8>,
    /// Whether a card was chosen this round: public ("has chosen").
    pub chosen: bool,
    /// The card revealed this round, on the player's first bidding turn.
    pub revealed: Option<u8>,
    /// The space reached on the improvement track (0 to the track's end).
    pub improvement: u8,
    /// Tiles won this round and not yet placed or discarded, by their offer index.
    pub won: Vec<u8>,
    /// The player's area, in the order the tiles were placed.
    pub area: Vec<Placed>,
}

/// The whole game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct State {
    /// The round being played, from 1.
    pub round: u8,
    pub phase: Phase,
    /// Who holds the starting-player card this round.
    pub starting: u8,
    /// The face-down pile, as tile indices in the tile set's order: a draw picks a
    /// position in it.
    pub pile: Vec<u8>,
    /// This round's tiles, face up.
    pub offer: Vec<Offer>,
    /// With passing allowed: who passed since the last bid.
    pub passed: Vec<u8>,
    /// Tiles out of the game (unclaimed, or not placeable), in the order discarded.
    pub discarded: Vec<u8>,
    pub players: Vec<Player>,
}
