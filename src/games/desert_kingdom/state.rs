//! The state of a desert kingdom: the board, the bag, the players' holdings.

use serde::{Deserialize, Serialize};

use super::board::Square;

/// A tile of the bag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Oasis,
    City,
    Mine,
    Grass,
    Desert,
    Mountain,
    Treasure,
    Barbarian,
}

impl Kind {
    pub const ALL: [Kind; 8] = [
        Kind::Oasis,
        Kind::City,
        Kind::Mine,
        Kind::Grass,
        Kind::Desert,
        Kind::Mountain,
        Kind::Treasure,
        Kind::Barbarian,
    ];

    /// Treasures and barbarians are kept, never placed face up.
    pub fn is_special(self) -> bool {
        matches!(self, Kind::Treasure | Kind::Barbarian)
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Oasis => "oasis",
            Kind::City => "city",
            Kind::Mine => "mine",
            Kind::Grass => "grass",
            Kind::Desert => "desert",
            Kind::Mountain => "mountain",
            Kind::Treasure => "treasure",
            Kind::Barbarian => "barbarian",
        }
    }

    /// The tile's letter on the board.
    pub fn letter(self) -> char {
        match self {
            Kind::Oasis => 'O',
            Kind::City => 'C',
            Kind::Mine => 'M',
            Kind::Grass => 'G',
            Kind::Desert => 'D',
            Kind::Mountain => '^',
            Kind::Treasure => 'T',
            Kind::Barbarian => 'B',
        }
    }

    pub fn parse(word: &str) -> Option<Kind> {
        let word = word.trim().to_ascii_lowercase();
        Kind::ALL
            .into_iter()
            .find(|kind| kind.name() == word || (word.len() >= 3 && kind.name().starts_with(&word)))
    }
}

/// What lies on a square.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tile {
    /// The tile; None for a face-down tile in the public state (hidden until the end).
    pub kind: Option<Kind>,
    /// Whether it lies face down (placed by the barbarians' spiral).
    pub face_down: bool,
    /// Its owner: the player who discovered it or chose it (face-up tiles only).
    pub owner: Option<u8>,
    pub road: bool,
    /// Barbarians placated in this city at the end.
    pub occupied: bool,
    /// A city the barbarians destroyed at the end: it no longer counts.
    pub ruined: bool,
}

/// Where the turn stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Phase {
    /// `seat` chooses an action.
    Turn {
        seat: u8,
    },
    /// `seat` chooses one of the tiles drawn by an activation, for `square`.
    Choosing {
        seat: u8,
        square: Square,
    },
    /// A band of barbarians reached `city`, and its owner `seat`, who holds a treasure,
    /// decides whether to turn one in (option `treasures=ask`, D13).
    Defending {
        seat: u8,
        city: Square,
    },
    Over,
}

/// What a move did that the states before and after it do not show, in order: what
/// the bag gave, where tiles went face down, what the barbarians did. Only the
/// turn's report and the end of the game read it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Event {
    /// Tiles drawn from the bag for the player, in the order drawn (an activation's
    /// before any went back; a discovery's one).
    Drew { tiles: Vec<Kind> },
    /// A tile from the bag went face down on `at` (its identity is not kept here: no
    /// report may tell it).
    FaceDown { at: Square },
    /// The player chose the tile kept for `at` (a `take`, whose text does not name
    /// the square).
    Chose { at: Square },
    /// A band of barbarians reached the city on `at`.
    Band { at: Square, fate: Fate },
    /// Every city left was occupied: the occupying bands left, the attack went on.
    Withdrew,
}

/// What became of a city a band reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Fate {
    /// Its owner turned in a treasure; the band occupies it.
    Treasure,
    /// Its owner paid these points (option `placate_points`); the band occupies it.
    Points(i64),
    /// It was destroyed.
    Ruined,
}

/// A tile chosen after an activation whose face-down tile took the last square (D12):
/// "even if it involves a second tile which has nowhere to go you still get the
/// points".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unplaced {
    pub seat: u8,
    pub kind: Kind,
}

/// The barbarians' attack while it waits for a city's owner (option
/// `treasures=ask`, D13), kept to the end of the game: where it stands and what each
/// band did so far.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Attack {
    /// Where the bands set out from.
    pub start: Square,
    /// Where the barbarians stand: the city the last band reached (`start` at first).
    pub at: Square,
    /// The bands still to come, the one waiting at a city included.
    pub bands_left: u32,
    /// Each band so far: the city it reached and what became of it.
    pub bands: Vec<(Square, Fate)>,
}

/// One player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Player {
    pub points: i64,
    pub treasures: u8,
    pub barbarians: u8,
    /// Whether the city tile of the setup is still held.
    pub city_tile: bool,
    /// Out of the game (forfeited past a deadline).
    pub out: bool,
    /// The final score, after the barbarian attack.
    pub final_score: Option<i64>,
}

/// The whole game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct State {
    pub phase: Phase,
    /// The 64 squares in reading order; None where empty.
    pub squares: Vec<Option<Tile>>,
    /// The bag, sorted (a draw picks a position in it); empty in the public state.
    pub bag: Vec<Kind>,
    /// How many tiles the bag holds: public.
    pub bag_count: u16,
    /// The tiles an activation drew for the player choosing (hidden from the others).
    pub drawn: Vec<Kind>,
    pub drawn_count: u8,
    /// The last face-down tile placed: where the barbarians start.
    pub last_face_down: Option<Square>,
    /// The game ended with every city destroyed: nobody wins.
    pub nobody_wins: bool,
    pub players: Vec<Player>,
    /// The tile that scored without a square at the end (D12); absent from the files of
    /// games where none did, so older files read and hash as they did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scored_unplaced: Option<Unplaced>,
    /// The attack, in games where an owner decides on their treasures (D13); absent
    /// from the files of other games, so older files read and hash as they did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attack: Option<Attack>,
    /// What the last move did beyond what the board shows, for its report. It names
    /// drawn tiles, so the public state never holds it (and a game file never does:
    /// files written before it existed read and hash as they did).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<Event>,
}
